// The warp-specialised TMA + WGMMA GEMM of issue 15's acceptance, as a whole program
// (test/fixtures/sim/gemm/ws_gemm.cu with its PTX wrappers in include/ws/ptx.cuh): a producer warpgroup
// issuing 128B-swizzled tensor TMA copies, two consumer warpgroups running wgmma.m64n128k16 on them, a
// 4-stage full/empty ring, persistent tiles and a tail tile past M. run.sh there built it and its three
// broken variants with nvcc and ran each twice on an H200 (ground-truth.json). The simulator runs each
// from main() and must end as the GPU did:
//   - the correct build prints exactly the GPU's stdout (every one of the 49,152 outputs is checked
//     against the CPU reference by the program itself, and the checksum line is compared byte for byte);
//   - the missing bootstrap hangs on the GPU: a deadlock naming the producer's and consumers' waits;
//   - the tail tile's short expect_tx hangs on the GPU: the simulator stops at the root cause, the
//     tx-count underflow on the barrier the tail tile's copies complete on (no launch failure: the GPU
//     does not fault there, and the program prints nothing);
//   - releasing the stage before wgmma.wait_group completes right on the GPU (the MMAs happened to finish
//     reading before the refill landed): the program's output is the same, and the simulator reports the
//     race between the TMA refill and the wgmma's shared-memory read, at the lines of both.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../../core/simulate';

const DIR = path.join(__dirname, '../../fixtures/sim/gemm');
interface GpuRun {
  rc: number;
  stdout: string;
  stderr: string;
}
const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'ground-truth.json'), 'utf8')) as {
  device: string;
  programs: Record<string, { source: string; flags: string; outcome: 'completed' | 'failed' | 'hang' | 'flaky'; runs: GpuRun[] }>;
};
const file = path.join(DIR, 'ws_gemm.cu');
const text = fs.readFileSync(file, 'utf8');

function run(variant: string) {
  const defines = truth.programs[variant].flags
    .split(/\s+/)
    .filter((f) => f.startsWith('-D'))
    .map((f) => f.slice(2));
  return simulate({ file, text, compile: { defines } });
}

describe(`warp-specialised TMA + WGMMA GEMM against the ${truth.device}`, () => {
  it('was recorded for the correct build and the three bugs, both runs agreeing', () => {
    expect(truth.device).toMatch(/H100|H200/);
    expect(Object.fromEntries(Object.entries(truth.programs).map(([k, v]) => [k, v.outcome]))).toEqual({
      ws_gemm: 'completed',
      bug_missing_bootstrap: 'hang',
      bug_tail_expect_tx: 'hang',
      bug_release_before_wait: 'completed',
    });
    expect(truth.programs.ws_gemm.runs[0].stdout).toMatch(/0 of 49152 entries differ from the CPU reference: PASSED/);
  });

  it('the correct build prints exactly what the GPU printed and exits 0', async () => {
    const r = await run('ws_gemm');
    expect(r.status, r.message).toBe('completed');
    expect(r.stdout).toBe(truth.programs.ws_gemm.runs[0].stdout);
    expect(r.exitCode).toBe(0);
  }, 120_000);

  it('missing bootstrap: hangs on the GPU, a deadlock here naming both roles and the barriers', async () => {
    const r = await run('bug_missing_bootstrap');
    expect(r.status).toBe('deadlock');
    expect(r.stdout).toBe(truth.programs.bug_missing_bootstrap.runs[0].stdout);
    // The producer (warp 0) waits on an empty slot, the consumers (warps 4-11) on a full one; nobody arrived.
    expect(r.message).toMatch(/warp 0 \(2 threads\) wait on .* \(parity 0\) at line \d+ ← mbar_wait ptx\.cuh:\d+/);
    expect(r.message).toMatch(/warps 4-11 \(512 threads\) wait on .* \(parity 0\)/);
    expect(r.message).toMatch(/needs 2 more arrivals of 2 \(nobody has arrived in this phase\)/);
  }, 120_000);

  it('short expect_tx on the tail tile: hangs on the GPU, stopped here at the tx-count underflow', async () => {
    const r = await run('bug_tail_expect_tx');
    expect(r.status).toBe('misuse');
    expect(r.stdout).toBe(truth.programs.bug_tail_expect_tx.runs[0].stdout);
    expect(r.launchFailures ?? []).toEqual([]);
    expect(r.message).toMatch(/32768 transaction bytes completed in this phase but only 24576 were announced \(tx-count underflow\)/);
    expect(r.message).toMatch(/cp\.async\.bulk\.tensor .* ptx\.cuh:\d+/);
  }, 120_000);

  it('release before wgmma.wait_group: right values on the GPU, a race report at the root cause here', async () => {
    const r = await run('bug_release_before_wait');
    expect(r.stdout).toBe(truth.programs.bug_release_before_wait.runs[0].stdout);
    expect(r.status).toBe('race');
    // The refill (a tensor TMA write) against the wgmma's asynchronous shared-memory read.
    expect(r.message).toMatch(/write by cp\.async\.bulk\.tensor .* is not ordered by any barrier with the read by an async operation .* consumer at ptx\.cuh:\d+/);
  }, 120_000);
});
