// Croqtile launch templates derived from `__co__` signatures: symbolic dimensions fit the program's
// tiles and rings, #define dimensions are evaluated, and bad input yields no template rather than an
// exception.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { croqtile } from '../../../../core/lang/croqtile';
import { parseArg } from '../../../../core/sim/args';

const EXAMPLES = path.join(__dirname, '../../../../examples');

describe('Croqtile signatures', () => {
  it('makes symbolic dimensions whole multiples of their tiles and loops long enough to wrap the ring', async () => {
    const text = readFileSync(path.join(EXAMPLES, 'croqtile/sim/gemm_1p1c.co'), 'utf8');
    const [t] = await croqtile.launchTemplates(text, 'g.co');
    expect(t).toMatchObject({ kernel: 'gemm_1p1c', language: 'croqtile' });
    expect(t!.grid).toBeUndefined();
    const [lhs, rhs, output] = t!.args.map(parseArg) as { shape: number[]; init: { kind: string } }[];
    const [M, K] = lhs!.shape;
    expect(M! % 128).toBe(0); // TILE_M
    expect(K! % 64).toBe(0); // TILE_K
    expect(K! / 64).toBeGreaterThanOrEqual(2 * 2); // two passes over STAGES = 2
    expect(rhs!.shape[1]).toBe(K); // the shared K binds consistently
    expect(output!.shape).toEqual([M, rhs!.shape[0]]);
    expect(output!.init.kind).toBe('zeros');
    expect(lhs!.init.kind).toBe('random');
  });

  it('evaluates #define dimensions and gives parameterless programs no args', async () => {
    const swap = readFileSync(path.join(EXAMPLES, 'croqtile/seeds/double_buffer_swap.co'), 'utf8');
    const [t] = await croqtile.launchTemplates(swap);
    expect(t!.args.map(parseArg).map((s) => (s as { shape: number[] }).shape)).toEqual([
      [128, 256],
      [256, 256],
    ]);
    const selfinit = readFileSync(path.join(EXAMPLES, 'croqtile/sim/gemm_selfinit.co'), 'utf8');
    expect((await croqtile.launchTemplates(selfinit))[0]).toMatchObject({ kernel: 'gemm_selfinit', args: [] });
  });

  it('never throws on bad input', async () => {
    for (const text of ['', '\u0000\uFFFD', '__global__ void k( {', '{'.repeat(2000), '__global__ void k(struct S s) {}']) {
      await expect(croqtile.launchTemplates(text)).resolves.toBeInstanceOf(Array);
    }
  });
});
