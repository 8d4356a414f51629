// Whole programs ("harness mode") against the GPU: every program in test/fixtures/sim/programs was
// built with nvcc and run twice on an H200 (run.sh there; ground-truth.json holds what it printed and
// its exit code). The simulator runs each from main() and must print exactly the GPU's stdout and end
// as the GPU did: the same exit code, or a deadlock report where the GPU hung (exit 124 under timeout);
// a kernel that faulted on the GPU (the program printed the launch failure) is reported on stderr.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../../core/simulate';

const DIR = path.join(__dirname, '../../fixtures/sim/programs');
interface Run {
  stdout: string;
  stderr: string;
  exitCode: number;
}
const truth = JSON.parse(fs.readFileSync(path.join(DIR, 'ground-truth.json'), 'utf8')) as { device: string; programs: Record<string, { flags: string; runs: Run[]; agree: boolean }> };

function defines(flags: string): string[] {
  return flags.split(/\s+/).filter((f) => f.startsWith('-D')).map((f) => f.slice(2));
}

async function run(name: string) {
  const file = path.join(DIR, `${name}.cu`);
  return simulate({ file, text: fs.readFileSync(file, 'utf8'), compile: { defines: defines(truth.programs[name].flags) } });
}

describe(`whole programs print what they printed on the ${truth.device}`, () => {
  const names = Object.keys(truth.programs);

  it('the recording covers at least the required programs, both runs agreeing', () => {
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const n of names) expect(truth.programs[n].agree, n).toBe(true);
    expect(names.filter((n) => truth.programs[n].runs[0].exitCode === 124)).toEqual(['deadlock_program']);
  });

  for (const name of names) {
    const gpu = truth.programs[name].runs[0];
    it(`${name}: ${gpu.exitCode === 124 ? 'hangs on the GPU, deadlocks here' : `exit code ${gpu.exitCode}`}`, async () => {
      const r = await run(name);
      expect(r.stdout).toBe(gpu.stdout);
      if (gpu.exitCode === 124) {
        expect(r.status).toBe('deadlock');
        expect(r.message).toMatch(/^kernel stuck_ring \(launched at line \d+\): deadlock/);
        return;
      }
      expect(r.status, r.message).toBe('completed');
      expect(r.exitCode).toBe(gpu.exitCode);
      // The program's own stderr comes through as it wrote it.
      for (const line of gpu.stderr.split('\n').filter(Boolean)) expect(r.stderr).toContain(line);
    }, 60_000);
  }

  it('a kernel that faults is a launch failure the program sees, with the simulator report on stderr', async () => {
    const over = await run('over_arrive_program');
    expect(over.launchFailures).toHaveLength(1);
    expect(over.stderr).toMatch(/kernel over_arrive \(launched at line 65\) failed \(the GPU reports an unspecified launch failure\): barrier misuse: arrive on empty\[\d\].* at line 43/);
    const host = await run('host_pointer');
    expect(host.stderr).toMatch(/kernel scale .* failed \(the GPU reports an illegal memory access\): .*host pointer passed as 'data'.* at line 12/);
  }, 60_000);
});
