// `phaseflip lint` on Python: a directory walk lints the .py files that import tilus and skips the others
// silently; a .py named explicitly that does not import tilus is reported as not a tilus file (exit 2), by
// `phaseflip ir` too.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS, ROOT, requireBuild } from '../server/lsp-client';

let dir: string;

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-tilus-'));
  writeFileSync(path.join(dir, 'train.py'), 'import torch\n\nprint(torch.ones(3))\n');
  copyFileSync(path.join(ROOT, 'examples/tilus/good/tma_pipeline.py'), path.join(dir, 'good.py'));
  copyFileSync(path.join(ROOT, 'examples/tilus/bugs/tma_pipeline.py'), path.join(dir, 'bug.py'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lint(...args: string[]) {
  return spawnSync(process.execPath, [CLI_JS, 'lint', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
}

describe('phaseflip lint on Python files', () => {
  it('walks a folder: lints the tilus files, skips other Python silently', () => {
    const r = lint('.');
    expect(r.stderr).not.toContain('train.py');
    expect(r.stdout).toMatch(/^bug\.py:\d+:\d+: error PF201 /m);
    expect(r.stdout).not.toContain('good.py');
    expect(r.stderr).toContain('1 finding in 2 files');
    expect(r.status).toBe(1);
  });

  it('says a Python file named explicitly is not a tilus file', () => {
    const r = lint('train.py');
    // Said once, with the run's summary: not also "found nothing to lint in train.py", which is for directories.
    expect(r.stderr).toBe('phaseflip: train.py: not a tilus file (it does not import tilus): nothing to lint\nno file was linted (1 error)\n');
    expect(r.status).toBe(2);
  });

  it('lints a tilus file named explicitly', () => {
    const r = lint('good.py');
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('0 findings in 1 file');
    expect(r.status).toBe(0);
  });
});

describe('phaseflip ir on Python files', () => {
  const ir = (...args: string[]) => spawnSync(process.execPath, [CLI_JS, 'ir', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });

  it('prints every autotune variant of a tilus Script; a Python file without tilus is said not to be one (exit 2)', () => {
    const good = ir('good.py');
    expect(good.status).toBe(0);
    expect(good.stdout).toMatch(/^# TmaPipeline: \d+ autotune combination\(s\): num_stages=2, block_k=32/m);
    expect(good.stdout).toMatch(/^kernel TmaPipeline\(/m);
    const plain = ir('train.py');
    expect([plain.status, plain.stdout, plain.stderr]).toEqual([2, '', 'phaseflip: train.py: not a tilus file (it does not import tilus): nothing to lint\n']);
  });
});
