// The CLI installs outside this checkout: `npm pack` (in a temporary copy of the repository, whose prepack build
// never rewrites the dist/ other tests read) gives a package with the launcher, the bundle and the wasm pair and
// no dependencies; `npm install -g --prefix TMP` installs it offline; the installed `phaseflip` lints a kernel in a
// directory outside the repository and writes SARIF. Skipped, saying why, where npm cannot be run.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function npmProblem(): string | undefined {
  if (process.platform === 'win32') return 'the installed bin is a .cmd shim on Windows; this test checks the POSIX layout';
  const r = spawnSync(npm, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? undefined : `npm is not available (${r.error?.message ?? r.stderr.trim()})`;
}
const skipReason = npmProblem();
if (skipReason) console.log(`test/package/cli-install.test.ts skipped: ${skipReason}`);

describe.skipIf(skipReason !== undefined)('npm pack, then npm install -g of the .tgz', () => {
  let dir: string;
  let tgz: string;
  let files: string[];
  let prefix: string;
  let outside: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'phaseflip-pack-'));
    const copy = path.join(dir, 'repo');
    const skip = new Set(['node_modules', '.git', 'dist', 'test', '.bench', '.cache', '.fuzz', '.gpu-stage']);
    cpSync(ROOT, copy, { recursive: true, filter: (src) => !skip.has(path.relative(ROOT, src).split(path.sep)[0]!) && !/\.(vsix|tgz)$/.test(src) });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    const cache = path.join(dir, 'npm-cache');
    const env = { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' };
    // Built first, as the README says: the repository's .npmrc sets ignore-scripts, so npm pack runs no build.
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: copy, stdio: 'pipe', timeout: 120_000 });
    const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: copy, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 170_000 })) as { filename: string; files: { path: string }[] }[];
    tgz = path.join(dir, packed[0]!.filename);
    files = packed[0]!.files.map((f) => f.path);
    prefix = path.join(dir, 'prefix');
    // --offline: the package needs nothing from a registry.
    execFileSync(npm, ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tgz], { cwd: dir, env, stdio: 'pipe', timeout: 120_000 });
    outside = path.join(dir, 'kernels');
    cpSync(path.join(ROOT, 'examples', 'bugs', 'continue_skips_release.cu'), path.join(outside, 'k.cu'));
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('packs the launcher, the CLI bundle, the grammars (CUDA, Python) and the schema, and no sources, tests or dependencies', () => {
    for (const f of ['package.json', 'README.md', 'LICENSE', 'bin/phaseflip.js', 'dist/cli.js', 'dist/load-bundle.js', 'dist/tree-sitter.wasm', 'dist/tree-sitter-cuda.wasm', 'dist/tree-sitter-python.wasm', 'schemas/phaseflip.schema.json']) expect(files, f).toContain(f);
    expect(files.filter((f) => /^(core|cli|server|client|debugger|entry|test|scripts|examples)\/|\.ts$|\.map$|node_modules|v8cache/.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(prefix, 'lib', 'node_modules', 'phaseflip', 'package.json'), 'utf8'));
    // Everything the CLI runs is in the bundle: installing it pulls nothing (and builds nothing native).
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(readdirSync(path.join(prefix, 'lib', 'node_modules'))).toEqual(['phaseflip']);
  });

  it('the installed phaseflip lints a kernel outside the repository and writes SARIF', () => {
    const bin = path.join(prefix, 'bin', 'phaseflip');
    // A PATH with node only: nothing of the checkout (or its node_modules) can be reached.
    const env = { PATH: path.dirname(process.execPath), HOME: dir };
    const version = spawnSync(bin, ['--version'], { cwd: outside, env, encoding: 'utf8' });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
    const r = spawnSync(bin, ['lint', '--format', 'sarif', '.'], { cwd: outside, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(1);
    const sarif = JSON.parse(r.stdout);
    expect(sarif.version).toBe('2.1.0');
    const results = sarif.runs[0].results as { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[];
    const line = readFileSync(path.join(outside, 'k.cu'), 'utf8').split('\n').findIndex((l) => l.includes('// expect: PF403')) + 1;
    expect(results.map((x) => [x.ruleId, x.locations[0]!.physicalLocation.artifactLocation.uri, x.locations[0]!.physicalLocation.region.startLine])).toEqual([['PF403', 'k.cu', line]]);
    // A .phaseflip.json beside the kernel is read by the installed CLI too.
    writeFileSync(path.join(outside, '.phaseflip.json'), JSON.stringify({ rules: { PF403: 'off' } }));
    const quiet = spawnSync(bin, ['lint', '.'], { cwd: outside, env, encoding: 'utf8', timeout: 60_000 });
    expect([quiet.status, quiet.stdout]).toEqual([0, '']);
  });

  it('the installed phaseflip lints a tilus script (the Python grammar ships in the package)', () => {
    const bin = path.join(prefix, 'bin', 'phaseflip');
    const env = { PATH: path.dirname(process.execPath), HOME: dir };
    const scripts = path.join(dir, 'scripts');
    cpSync(path.join(ROOT, 'examples', 'tilus', 'bugs', 'tma_pipeline.py'), path.join(scripts, 'pipeline.py'));
    const r = spawnSync(bin, ['lint', '--format', 'json', '.'], { cwd: scripts, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(1);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain('PF201');
  });
});
