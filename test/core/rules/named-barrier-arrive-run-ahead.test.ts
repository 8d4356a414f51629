// PF409 on self-written kernels: named-barrier arrivals that run ahead into the next use of the same id.
import { describe, expect, it } from 'vitest';
import { lint } from '../../helpers/engine';

async function pf409(src: string): Promise<string[]> {
  return (await lint(src, 'cuda')).filter((f) => f.code === 'PF409').map((f) => `${f.range.start.line + 1}: ${f.message}`);
}

const kernel = (producer: string[], consumer: string[]): string =>
  [
    '__global__ void __launch_bounds__(256) k(const float* in, float* out, int n) {',
    '  __shared__ float buf[128];',
    '  if (threadIdx.x < 128) {',
    ...producer.map((l) => `    ${l}`),
    '  } else {',
    ...consumer.map((l) => `    ${l}`),
    '  }',
    '}',
  ].join('\n');

const CONSUMER = ['for (int i = 0; i < n; ++i) {', '  asm volatile("bar.sync 1, 256;");', '  out[i] = buf[threadIdx.x - 128];', '}'];

describe('named-barrier-arrive-run-ahead', () => {
  it('flags a producer that arrives every iteration with nothing ordering it after the consumer', async () => {
    const bad = await pf409(kernel(['for (int i = 0; i < n; ++i) {', '  buf[threadIdx.x] = in[i];', '  asm volatile("bar.arrive 1, 256;");', '}'], CONSUMER));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^6: .*barrier 1 once per iteration of the loop at line 4.*line 10\)/);
  });

  it('stays quiet when the producer waits for the consumer each iteration (a second id, or an mbarrier)', async () => {
    const second = ['for (int i = 0; i < n; ++i) {', '  if (i > 0) asm volatile("bar.sync 2, 256;");', '  buf[threadIdx.x] = in[i];', '  asm volatile("bar.arrive 1, 256;");', '}'];
    expect(await pf409(kernel(second, CONSUMER))).toEqual([]);
    const cutlass = ['for (int i = 0; i < n; ++i) {', '  cutlass::arch::NamedBarrier::sync(256, 2);', '  buf[threadIdx.x] = in[i];', '  cutlass::arch::NamedBarrier::arrive(256, 1);', '}'];
    expect(await pf409(kernel(cutlass, CONSUMER.map((l) => l.replace('bar.sync 1', 'bar.sync 9'))))).toEqual([]);
  });

  it('stays quiet without a consumer that syncs on the id, or with a single arrive', async () => {
    expect(await pf409(kernel(['for (int i = 0; i < n; ++i) asm volatile("bar.arrive 1, 256;");'], ['asm volatile("bar.arrive 3, 256;");']))).toEqual([]);
    expect(await pf409(kernel(['buf[threadIdx.x] = in[0];', 'asm volatile("bar.arrive 1, 256;");'], ['asm volatile("bar.sync 1, 256;");']))).toEqual([]);
  });

  it('flags one id used by two handshakes back to back, and not two ids', async () => {
    const bad = await pf409(kernel(['asm volatile("bar.arrive 1, 256;");', 'asm volatile("bar.sync 1, 256;");'], ['asm volatile("bar.sync 1, 256;");', 'asm volatile("bar.arrive 1, 256;");']));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^5: This sync on barrier 1 .*follows `bar\.arrive` \(line 4\) on the same id/);
    expect(await pf409(kernel(['asm volatile("bar.arrive 1, 256;");', 'asm volatile("bar.sync 2, 256;");'], ['asm volatile("bar.sync 1, 256;");', 'asm volatile("bar.arrive 2, 256;");']))).toEqual([]);
  });

  it('stays quiet when the id depends on the thread', async () => {
    expect(await pf409(kernel(['for (int i = 0; i < n; ++i) asm volatile("bar.arrive %0, 256;" :: "r"(1 + threadIdx.x / 128));'], CONSUMER))).toEqual([]);
  });
});
