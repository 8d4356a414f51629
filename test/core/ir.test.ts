// The kernel IR both front ends produce (what `phaseflip ir` prints): the seed pipelines lower to the
// operations, roles and loops the rules rely on.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEngine } from '../helpers/engine';

const root = path.join(__dirname, '../..');

describe('kernel IR', () => {
  it('inlines device helpers and maps cuda::ptx calls in the seed producer/consumer kernel', async () => {
    const text = readFileSync(path.join(root, 'examples/seeds/producer_consumer_cuda_ptx.cu'), 'utf8');
    const ir = (await getEngine()).openDocument('cuda', text).irText();
    expect(ir).toMatch(/init bar=bar\[threadIdx\.x\] count=blockDim\.x/);
    expect(ir).toMatch(/if \(threadIdx\.x<warpSize\)/);
    // produce() is inlined with `filled` = bar + 2: its arrive lands on slots 2..3 of the same array.
    expect(ir).toMatch(/arrive bar=bar\[\(2\+\(i#\d+%2\)\)\]/);
    expect(ir).toMatch(/wait-token bar=bar\[\(i#\d+%2\)\] token=token1#\d+ \(blocking\)/);
  });

  it('inlines a helper with more parameters only when the ones a call leaves out have defaults', async () => {
    const text = [
      '#include <cuda/barrier>',
      '__device__ void copy(float* dst, const float* src, int n) { __syncthreads(); }',
      '__device__ void fill(float* dst, const float* src, int n = 4) { __syncwarp(); }',
      '__global__ void k(const float* g) {',
      '  __shared__ float s[32];',
      '  copy(s, g);  // a two-argument overload this unit does not define (its #ifdef not taken)',
      '  fill(s, g);',
      '}',
    ].join('\n');
    const ir = (await getEngine()).openDocument('cuda', text).irText();
    expect(ir).not.toMatch(/sync block/);
    expect(ir).toMatch(/sync warp \(__syncwarp\)/);
  });

  it('lowers a Croqtile 1P1C pipeline with era-A event semantics', async () => {
    const text = readFileSync(path.join(root, 'examples/croqtile/seeds/pipeline_1p1c.co'), 'utf8');
    const ir = (await getEngine()).openDocument('croqtile', text).irText();
    // Every participant arrives each phase: the count is the threads that trigger or wait.
    expect(ir).toMatch(/count=<auto>\(\)/);
    expect(ir).toMatch(/let p1 = \(\(threadIdx\.x\/128\)%2\)/);
    // In the tutorial era a wait also arrives.
    expect(ir).toMatch(/arrive bar=full\[stage\][^\n]*\n\s*wait-token bar=full\[stage\]/);
    expect(ir).toMatch(/mma-fence/);
  });
});
