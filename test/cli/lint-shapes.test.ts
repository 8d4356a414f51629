// `phaseflip lint` (the built CLI) with launch shapes: `--launch` gives the block of a kernel launched
// elsewhere, so an information note becomes the real error; a header line reached from two translation
// units at two block sizes is reported once, with each kernel, each launch and the other wording.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireBuild, runPhaseflip } from '../server/lsp-client';

const PROJECTS = path.join(ROOT, 'test', 'fixtures', 'projects');

/** Every thread arrives on a barrier initialised for 64: correct exactly at 64 threads; not launched here. */
const KERNEL = `#include <cuda/barrier>
__global__ void k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 64);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1.f;
}
`;

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(path.join(tmpdir(), 'pf-cli-shapes-'));
  writeFileSync(path.join(dir, 'k.cu'), KERNEL);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('phaseflip lint --launch', () => {
  it('without it: an information note, exit 0; with the wrong block: the error, exit 1; with the right one: clean', async () => {
    const unknown = await runPhaseflip(['lint', '--format', 'json', 'k.cu'], dir);
    expect(unknown.status).toBe(0);
    const note = JSON.parse(unknown.stdout).files[0].diagnostics[0];
    expect(note).toMatchObject({ code: 'PF401', severity: 'information' });
    expect(note.message).toMatch(/--launch KERNEL:block=N/);

    const wrong = await runPhaseflip(['lint', '--launch', 'k:block=128', 'k.cu'], dir);
    expect(wrong.status).toBe(1);
    expect(wrong.stdout).toMatch(/^k\.cu:6:3: error PF401 128 threads execute this arrive/m);

    const right = await runPhaseflip(['lint', '--launch=k.cu:k:block=64', 'k.cu'], dir);
    expect(right.status).toBe(0);
    expect(right.stdout).toBe('');
  }, 60_000);

  it('.phaseflip.json gives the shape the same way; --launch wins over it', async () => {
    const project = path.join(dir, 'configured');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, 'k.cu'), KERNEL);
    writeFileSync(path.join(project, '.phaseflip.json'), JSON.stringify({ launch: { k: { block: 128 } } }));
    const wrong = await runPhaseflip(['lint', 'k.cu'], project);
    expect(wrong.status).toBe(1);
    expect(wrong.stdout).toMatch(/^k\.cu:6:3: error PF401 128 threads execute this arrive/m);
    const overridden = await runPhaseflip(['lint', '--launch', 'k:block=64', 'k.cu'], project);
    expect([overridden.status, overridden.stdout]).toEqual([0, '']);
  }, 60_000);

  it('a bad --launch is a usage error (exit 2)', async () => {
    const r = await runPhaseflip(['lint', '--launch', 'k:block=lots', 'k.cu'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/block must be a positive integer/);
  }, 30_000);
});

describe('a header line reached at two block sizes', () => {
  it('is reported once, with both kernels, both launches and the other wording as notes', async () => {
    const r = await runPhaseflip(['lint', 'launch-shapes/src/shapes-64.cu', 'launch-shapes/src/shapes-96.cu'], PROJECTS);
    expect(r.status).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => /: (error|warning|info) PF\d+/.test(l)).map((l) => l.replace(/ PF401 .*/, ' PF401'))).toEqual(['launch-shapes/include/all_arrive/body.cuh:13:5: error PF401']);
    expect(lines[0]).toMatch(/ 64 threads execute this arrive/);
    expect(lines.slice(1).map((l) => l.replace(/ as: 96 threads execute .*/, ' as: 96 threads…'))).toEqual([
      "  launch-shapes/src/shapes-64.cu:5:17: note: reached from kernel 'all_arrive_64'",
      "  launch-shapes/src/shapes-64.cu:6:1: note: 'all_arrive_64' launched here with a block of 64 threads",
      "  launch-shapes/src/shapes-96.cu:5:17: note: also reached from kernel 'all_arrive_96' as: 96 threads…",
      "  launch-shapes/src/shapes-96.cu:6:1: note: 'all_arrive_96' launched here with a block of 96 threads",
    ]);
    expect(r.stderr).toContain('1 finding in 3 files');
  }, 60_000);

  it('JSON carries the same related locations, with their files', async () => {
    const r = await runPhaseflip(['lint', '--format', 'json', 'launch-shapes/src/shapes-96.cu', 'launch-shapes/src/shapes-64.cu'], PROJECTS);
    const files = JSON.parse(r.stdout).files as { path: string; diagnostics: { message: string; related: { path: string; message: string }[] }[] }[];
    const header = files.find((f) => f.path.endsWith('body.cuh'))!;
    expect(header.diagnostics).toHaveLength(1);
    expect(header.diagnostics[0].message).toMatch(/^96 threads/);
    expect(header.diagnostics[0].related.map((x) => `${x.path} ${x.message.slice(0, 40)}`)).toEqual([
      "launch-shapes/src/shapes-96.cu reached from kernel 'all_arrive_96'",
      "launch-shapes/src/shapes-96.cu 'all_arrive_96' launched here with a blo",
      "launch-shapes/src/shapes-64.cu also reached from kernel 'all_arrive_64'",
      "launch-shapes/src/shapes-64.cu 'all_arrive_64' launched here with a blo",
    ]);
  }, 60_000);
});
