// Sleeping in the CUDA simulator: __nanosleep and PTX nanosleep advance the thread's simulated clock
// (what clock64() reads), so spin-waits on the clock end after the cycles they ask for.
import { describe, expect, it } from 'vitest';
import { runKernel, values } from './helpers';

describe('sleeping advances the simulated clock', () => {
  it('__nanosleep and nanosleep.u32 move clock64() on by their argument', async () => {
    const r = await runKernel(`__global__ void k(long long* out) {
  long long t0 = clock64();
  __nanosleep(5000);
  long long t1 = clock64();
  asm volatile("nanosleep.u32 %0;" :: "r"(3000));
  long long t2 = clock64();
  if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = t2 - t1; }
}`, { grid: [1, 1, 1], args: ['out=s64[2]'] });
    expect(r.status, r.message).toBe('completed');
    const [a, b] = values(r, 'out');
    expect(a).toBeGreaterThanOrEqual(5000);
    expect(a).toBeLessThan(5010);
    expect(b).toBeGreaterThanOrEqual(3000);
    expect(b).toBeLessThan(3010);
  });
});
