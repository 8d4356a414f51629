// `phaseflip lint` and the project around the files: a path that gives nothing to lint is an error (exit 2),
// `.phaseflip.json` (rules, exclude, its problems failing the run), and inline suppressions in the output.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS, ROOT, requireBuild } from '../server/lsp-client';

const BUG = readFileSync(path.join(ROOT, 'examples/bugs/continue_skips_release.cu'), 'utf8');
const BUG_LINE = BUG.split('\n').findIndex((l) => l.includes('// expect: PF403'));

let dir: string;

function phaseflip(args: string[], cwd = dir): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

function write(rel: string, content: string): void {
  const file = path.join(dir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-lint-project-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('paths that give nothing to lint', () => {
  it('an empty directory, or one without CUDA or Croqtile files, is an error naming it; exit 2', async () => {
    write('docs/readme.md', '# not a kernel\n');
    mkdirSync(path.join(dir, 'empty'), { recursive: true });
    const r = await phaseflip(['lint', 'empty', 'docs']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('phaseflip: found nothing to lint in empty: looked for .cu, .cuh or .co files, .py files of tilus, or headers (.h, .hpp, .hh, .hxx, .inl, .ipp) holding device code\n');
    expect(r.stderr).toContain('phaseflip: found nothing to lint in docs: ');
    expect(r.stderr).not.toMatch(/0 findings in 0 files/);
    expect(r.stderr).toMatch(/no file was linted \(2 errors\)\n$/);
  });

  it('a directory of headers without device code is nothing to lint either', async () => {
    write('host/util.h', 'int add(int a, int b);\n');
    const r = await phaseflip(['lint', 'host']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/found nothing to lint in host/);
  });

  it('a missing path is a clear error, exit 2; other paths are still linted', async () => {
    write('ok/k.cu', BUG);
    const r = await phaseflip(['lint', 'typo', 'ok']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^phaseflip: cannot read typo: no such file or directory$/m);
    expect(r.stdout).toMatch(/^ok\/k\.cu:\d+:\d+: warning PF403 /m);
  });

  it('a file named and also reached by a directory argument counts for both', async () => {
    write('both/k.cu', BUG);
    const r = await phaseflip(['lint', 'both', 'both/k.cu', './both']);
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/found nothing/);
    expect(r.stdout.match(/warning PF403/g)).toHaveLength(1);
  });

  it('an explicitly named file is linted and counted, whatever it holds', async () => {
    write('clean/empty.cu', '// nothing here yet\n');
    const r = await phaseflip(['lint', 'clean/empty.cu']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('0 findings in 1 file\n');
  });
});

describe('.phaseflip.json', () => {
  it('sets rule severities; --rule wins over it', async () => {
    write('cfg/.phaseflip.json', JSON.stringify({ rules: { PF403: 'error' } }));
    write('cfg/k.cu', BUG);
    const r = await phaseflip(['lint', 'cfg']);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^cfg\/k\.cu:\d+:\d+: error PF403 /m);
    const overridden = await phaseflip(['lint', '--rule', 'arrival-on-one-path=off', 'cfg']);
    expect(overridden.status).toBe(0);
    expect(overridden.stdout).toBe('');
  });

  it('exclude patterns leave files out of directory walks, but not a file named explicitly', async () => {
    write('ex/.phaseflip.json', JSON.stringify({ exclude: ['vendor/', '*_old.cu'] }));
    write('ex/src/k.cu', BUG);
    write('ex/src/k_old.cu', BUG);
    write('ex/vendor/lib/v.cu', BUG);
    const r = await phaseflip(['lint', '--format', 'json', 'ex']);
    const json = JSON.parse(r.stdout) as { files: { path: string }[] };
    expect(json.files.map((f) => f.path)).toEqual(['ex/src/k.cu']);
    const named = await phaseflip(['lint', 'ex/vendor/lib/v.cu']);
    expect(named.stdout).toMatch(/^ex\/vendor\/lib\/v\.cu:\d+:\d+: warning PF403 /m);
    const all = await phaseflip(['lint', 'ex/vendor']);
    expect(all.status).toBe(2);
    expect(all.stderr).toContain(`found nothing to lint in ex/vendor: looked for .cu, .cuh or .co files, .py files of tilus, or headers (.h, .hpp, .hh, .hxx, .inl, .ipp) holding device code; 1 file was left out by the exclude patterns of ${path.join(dir, 'ex', '.phaseflip.json')}`);
  });

  it('an unknown key or a wrong type fails the run with a message naming the file and the key; the rest still applies', async () => {
    write('bad/.phaseflip.json', JSON.stringify({ rules: { PF403: 'off' }, includePath: ['inc'], defines: 'X' }));
    write('bad/k.cu', BUG);
    const r = await phaseflip(['lint', 'bad']);
    expect(r.status).toBe(2);
    const config = path.join(dir, 'bad', '.phaseflip.json');
    expect(r.stderr).toContain(`phaseflip: ${config}: includePath: unknown key (expected rules, includePaths, defines, launch, cudaArch, compileCommands, exclude)\n`);
    expect(r.stderr).toContain(`phaseflip: ${config}: defines: must be a list of "NAME" or "NAME=VALUE" texts, got "X"\n`);
    expect(r.stdout).toBe('');
  });

  it('include paths and defines reach the translation unit', async () => {
    // The kernel's helpers live in a header found only through the configured include path, and its
    // arrival count comes from a configured define.
    const header = BUG.slice(0, BUG.indexOf('__global__'));
    const kernel = BUG.slice(BUG.indexOf('__global__'));
    write('inc-proj/.phaseflip.json', JSON.stringify({ includePaths: ['third_party/pf'], defines: ['UNUSED_FLAG=1'] }));
    write('inc-proj/third_party/pf/helpers.cuh', `#pragma once\n${header}`);
    write('inc-proj/src/k.cu', `#include "helpers.cuh"\n${kernel}`);
    const r = await phaseflip(['lint', '--notes', 'inc-proj/src']);
    expect(r.stdout).toMatch(/^inc-proj\/src\/k\.cu:\d+:\d+: warning PF403 /m);
    expect(r.stdout).not.toMatch(/not found/);
  });
});

describe('inline suppressions on the command line', () => {
  it('a suppressed finding is gone; an unused directive is an information finding that does not fail the run', async () => {
    const lines = BUG.split('\n');
    lines[BUG_LINE] = lines[BUG_LINE]!.replace('// expect: PF403', '// phaseflip-ignore PF403: tiles are never empty');
    lines.splice(BUG_LINE - 3, 0, '  // phaseflip-ignore PF103: stale');
    write('sup/k.cu', lines.join('\n'));
    const r = await phaseflip(['lint', '--format', 'sarif', 'sup']);
    expect(r.status).toBe(0);
    const results = JSON.parse(r.stdout).runs[0].results as { ruleId: string; level: string; locations: { physicalLocation: { region: { startLine: number } } }[] }[];
    expect(results.map((x) => [x.ruleId, x.level, x.locations[0]!.physicalLocation.region.startLine])).toEqual([['PF000', 'note', BUG_LINE - 2]]);
  });
});
