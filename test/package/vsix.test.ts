// Packages the extension once with `npm run package` (vsce, after the minified prepublish build)
// in a temporary copy of the repository (so the rebuild never rewrites the dist/ other test files
// are running at the same time) and reads the .vsix's zip central directory: it holds what runs (the
// bundles, the wasm pair, grammars, snippets, the walkthrough, the icon and the docs) and nothing
// else — no sources, tests, node_modules or source maps — and stays small.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
/** The .vsix may not grow past this (it is ~1.3 MB: the CUDA and Python grammars' wasm are most of it). */
const MAX_VSIX_BYTES = 2 * 1024 * 1024;

interface ZipEntry {
  name: string;
  compressed: number;
  size: number;
}

/** Entries of a zip file from its central directory (no zip64: a .vsix this small never needs it). */
export function zipEntries(zip: Buffer): ZipEntry[] {
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file: no end-of-central-directory record');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`bad central directory entry ${n}`);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    entries.push({ name: zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'), compressed, size });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

describe('npm run package', () => {
  let dir: string;
  let vsix: string;
  let names: string[];

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'phaseflip-vsix-'));
    vsix = path.join(dir, `phaseflip-${pkg.version}.vsix`);
    const copy = path.join(dir, 'repo');
    const skip = new Set(['node_modules', '.git', 'dist', 'test', '.bench', '.cache']);
    cpSync(ROOT, copy, { recursive: true, filter: (src) => !skip.has(path.relative(ROOT, src).split(path.sep)[0]) && !src.endsWith('.vsix') });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(npm, ['run', '--silent', 'package', '--', '--out', vsix], { cwd: copy, stdio: 'pipe', timeout: 170_000 });
    names = zipEntries(readFileSync(vsix)).map((e) => e.name);
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is small', () => {
    const bytes = statSync(vsix).size;
    console.log(`phaseflip-${pkg.version}.vsix: ${(bytes / 1024).toFixed(0)} KiB, ${names.length} entries`);
    expect(bytes).toBeLessThan(MAX_VSIX_BYTES);
  });

  it('holds everything the extension needs at run time', () => {
    const required = [
      'extension/package.json',
      'extension/readme.md',
      'extension/changelog.md',
      'extension/LICENSE.txt',
      'extension/dist/client.js',
      'extension/dist/server.js',
      'extension/dist/server-main.js',
      'extension/dist/tree-sitter.wasm',
      'extension/dist/tree-sitter-cuda.wasm',
      'extension/dist/tree-sitter-python.wasm',
      `extension/${pkg.icon}`,
      'extension/walkthrough/producer_missing_bootstrap.cu',
      ...pkg.contributes.jsonValidation.map((v: { url: string }) => `extension/${v.url.replace(/^\.\//, '')}`),
      ...pkg.contributes.grammars.map((g: { path: string }) => `extension/${g.path.replace(/^\.\//, '')}`),
      ...pkg.contributes.snippets.map((s: { path: string }) => `extension/${s.path.replace(/^\.\//, '')}`),
      ...pkg.contributes.walkthroughs.flatMap((w: { steps: { media: { markdown: string } }[] }) => w.steps.map((s) => `extension/${s.media.markdown}`)),
    ];
    for (const f of required) expect(names, f).toContain(f);
    // `main` points into the package.
    expect(names).toContain(`extension/${pkg.main.replace(/^\.\//, '')}`);
  });

  it('holds no sources, tests, dependencies, source maps or build leftovers', () => {
    const unwanted = names.filter((n) =>
      /\.ts$|\.map$|\.vsix$|(^|\/)node_modules\/|^extension\/(core|server|client|cli|debugger|test|scripts|examples|docs|bin)\/|^extension\/dist\/cli\.js$|(^|\/)\.(git|vscode|ci)\b|tsconfig|vitest/.test(n),
    );
    expect(unwanted).toEqual([]);
    // Only these top-level folders ship.
    const folders = new Set(names.filter((n) => n.startsWith('extension/') && n.split('/').length > 2).map((n) => n.split('/')[1]));
    expect([...folders].sort()).toEqual(['dist', 'images', 'schemas', 'snippets', 'syntaxes', 'walkthrough']);
  });

  it('bundles the debugger and the simulator into the client', () => {
    const client = readFileSync(path.join(dir, 'repo', 'dist', 'client.js'), 'utf8');
    // The inline adapter's session and the code lens command ids travel in the bundle.
    expect(client).toContain('phaseflip.debugKernel');
    expect(client).toMatch(/DebugAdapterInlineImplementation/);
  });
});
