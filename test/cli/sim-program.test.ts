// `phaseflip sim prog.cu` on whole programs (a .cu with main() and no --kernel), run in-process with
// the real simulator: stdout is exactly the program's, the summary goes to stderr, the exit status is
// the program's own (1 for a deadlock, where the GPU hangs), -D defines reach the program, and --json
// carries stdout, stderr and the exit code.
import { mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseNpy } from '../../core/sim/npy';
import { describe, expect, it } from 'vitest';
import { runSim } from '../../cli/sim';

const PROGRAMS = path.join(__dirname, '../fixtures/sim/programs');
const at = (name: string) => path.join(PROGRAMS, name);

async function sim(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runSim(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

describe('phaseflip sim on a whole program', () => {
  it('prints the program\'s stdout exactly and exits with its exit code', async () => {
    const r = await sim([at('over_arrive_program.cu')]);
    expect(r.stdout).toMatch(/^cudaMalloc in {12}-> 0 no error\n/);
    expect(r.stdout).toContain('cudaDeviceSynchronize    -> 719 unspecified launch failure\n');
    expect(r.stdout).not.toContain('phaseflip');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('test failed\n');
    expect(r.stderr).toMatch(/phaseflip: kernel over_arrive \(launched at line 65\) failed .* at line 43/);
    expect(r.stderr).toMatch(/over_arrive_program\.cu: completed: the program exited with code 1 after 1 kernel launch/);
  }, 60_000);

  it('passes -D defines to the program (its harness is behind #ifdef HARNESS)', async () => {
    const r = await sim([at('harness_defines.cu'), '-DHARNESS', '-DN_ELEMS=3000', '-DSEED=7']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('n = 3000, total = -1905, reference = -1905');
    expect(r.stdout.endsWith('PASSED\n')).toBe(true);
  }, 60_000);

  it('a kernel that deadlocks ends the run with the deadlock report and exit status 1', async () => {
    const r = await sim([at('deadlock_program.cu')]);
    expect(r.stdout).toBe('launching 4 tiles\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/deadlock_program\.cu: kernel stuck_ring \(launched at line \d+\): deadlock/);
  }, 60_000);

  it('--json gives the status, the exit code, stdout and stderr', async () => {
    const r = await sim([at('bad_launch.cu'), '--json']);
    const doc = JSON.parse(r.stdout) as { status: string; exitCode: number; stdout: string; stderr: string };
    expect(doc.status).toBe('completed');
    expect(doc.exitCode).toBe(0);
    expect(doc.stdout).toMatch(/^launch with 2048 threads: invalid argument \(code 1\)\n/);
    expect(doc.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 60_000);

  it('--dump writes a device allocation by the variable it was made for, typed by its pointer', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-dump-'));
    const file = path.join(dir, 'out.npy');
    const r = await sim([at('tma_ring_program.cu'), '--dump', `d_out=${file}`]);
    expect(r.code).toBe(0);
    const npy = parseNpy(readFileSync(file));
    expect(npy.dtype).toBe('f32');
    expect(npy.shape).toEqual([128]);
    expect(new DataView(npy.bytes.buffer, npy.bytes.byteOffset).getFloat32(0, true)).toBe(-18.5);
  }, 60_000);

  it('with a launch geometry and no --kernel, the file\'s one kernel runs as before', async () => {
    const r = await sim([at('bad_launch.cu'), '--grid', '1', '--block', '32', '--dynamic-smem', '128', '--arg', 'out=s32[32]', '--arg', 'n=32', '--arg', 'base=1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status: completed/);
  }, 60_000);

  it('with --kernel, the file runs as one launch as before (main is ignored)', async () => {
    const r = await sim([at('bad_launch.cu'), '--kernel', 'fill_kernel', '--grid', '1', '--block', '32', '--dynamic-smem', '128', '--arg', 'out=s32[32]', '--arg', 'n=32', '--arg', 'base=1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^status: completed/);
  }, 60_000);
});
