// The one inline-PTX reader (core/lang/cuda/ptx.ts) that the front end and the simulator's PTX compiler
// share, and the one C++ type table (c-types.ts): what both consumers rely on.
import { describe, expect, it } from 'vitest';
import { sizeOfTypeName } from '../../../../core/lang/cuda/c-types';
import { sizeOfType } from '../../../../core/lang/cuda/lower';
import { parsePtxAsm, readPtxLines } from '../../../../core/lang/cuda/ptx';

describe('readPtxLines', () => {
  it('reads labels, predicates, scope braces and declarations', () => {
    const lines = readPtxLines('{\n .reg .pred p;\n LAB_WAIT: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; // retry\n @!p bra LAB_WAIT;\n DONE:\n}');
    expect(lines).toEqual([
      { labels: ['LAB_WAIT'], pred: undefined, mnemonic: 'mbarrier.try_wait.parity.shared::cta.b64', operands: ['p', '[%0]', '%1'] },
      { labels: [], pred: { neg: true, reg: 'p' }, mnemonic: 'bra', operands: ['LAB_WAIT'] },
      { labels: ['DONE'], mnemonic: '', operands: [] },
    ]);
  });

  it('keeps braces inside operands and splits at top-level commas only', () => {
    const [ld, bulk] = readPtxLines('tcgen05.ld.sync.aligned.32x32b.x2.b32 {%0, %1}, [%2]; cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];');
    expect(ld.operands).toEqual(['{%0, %1}', '[%2]']);
    expect(bulk.operands).toEqual(['[%0]', '[%1, {%2, %3}]', '[%4]']);
  });

  it('gives the front end barrier operations through the catalogue', () => {
    expect(parsePtxAsm('mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;')).toEqual([
      { mnemonic: 'mbarrier.complete_tx.relaxed.cta.shared::cta.b64', op: 'complete-tx', barrier: '%0', bytes: '%1', remote: false },
    ]);
    const [wait] = parsePtxAsm('W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W;');
    expect(wait).toMatchObject({ op: 'wait-parity', result: 'p', barrier: '%0', parity: '%1', loops: true });
    expect(parsePtxAsm('mbarrier.pending_count.b64 %0, %1;')).toEqual([]);
    expect(parsePtxAsm('bar.sync 0;')[0].sync).toBe('block');
    expect(parsePtxAsm('bar.sync 1, 128;')[0].sync).toBe('named');
  });
});

describe('C++ type sizes', () => {
  it('sizeof by type name serves the front end', () => {
    expect(sizeOfTypeName('uint64_t')).toBe(8);
    expect(sizeOfTypeName('__nv_bfloat16')).toBe(2);
    expect(sizeOfTypeName('float4')).toBe(16);
    expect(sizeOfTypeName('constructor')).toBeUndefined();
    expect(sizeOfType('sizeof(const float)')).toBe(4);
    expect(sizeOfType('sizeof(unsigned int)')).toBe(4);
    expect(sizeOfType('sizeof(Foo)')).toBeUndefined();
  });
});
