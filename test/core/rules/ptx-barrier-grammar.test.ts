// The PTX barrier grammar against ptxas: each instruction below carries the verdict ptxas (CUDA 13.0, sm_100a)
// gave it; the checker must agree. Where ptxas is installed the verdicts are re-checked against it, else that
// part says why it skipped. The lint tests check what the front end hands the rule (literal strings only).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPtxBarrierInstruction } from '../../../core/rules/ptx-barrier-grammar';
import { lint } from '../../helpers/engine';

/** [instruction as written, whether ptxas accepts it]. */
const VERDICTS: [string, boolean][] = [
  ['barrier.cluster.arrive.acquire;', false],
  ['barrier.cluster.arrive.aligned.release;', true],
  ['barrier.cluster.arrive.aligned;', true],
  ['barrier.cluster.arrive.relaxed.aligned;', true],
  ['barrier.cluster.arrive.release.aligned;', true],
  ['barrier.cluster.arrive;', true],
  ['barrier.cluster.sync;', false],
  ['barrier.cluster.wait.acquire.aligned;', true],
  ['barrier.cluster.wait.aligned;', true],
  ['barrier.cluster.wait.release;', false],
  ['barrier.cluster.wait;', true],
  ['cp.async.bulk.commit_group;', true],
  ['cp.async.bulk.global.shared::cluster.mbarrier::complete_tx::bytes [r2], [r3], w1, [r1];', false],
  ['cp.async.bulk.global.shared::cta.bulk_group [r2], [r3], w1;', true],
  ['cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [r2], [r3], w1, r4;', true],
  ['cp.async.bulk.global.shared::cta.bulk_group.cp_mask [r2], [r3], w1, h1;', true],
  ['cp.async.bulk.prefetch.L2.global [r3], w1;', true],
  ['cp.async.bulk.prefetch.tensor.2d.L2.global [r3, {w1, w2}];', true],
  ['cp.async.bulk.prefetch.tensor.2d.L2.global.tile [r3, {w1, w2}];', true],
  ['cp.async.bulk.shared::cluster.global [r2], [r3], w1, [r1];', false],
  ['cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [r2], [r3], w1, [r1];', true],
  ['cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [r2], [r3], w1, [r1], r4;', true],
  ['cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [r2], [r3], w1, [r1], h1;', true],
  ['cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [r2], [r3], w1, [r1];', true],
  ['cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [r2], [r3], w1, [r1];', true],
  ['cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.multicast::cluster [r2], [r3], w1, [r1], h1;', false],
  ['cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [r3, {w1, w2}], [r2];', true],
  ['cp.async.bulk.tensor.2d.global.shared::cta.im2col_no_offs.bulk_group [r3, {w1, w2}], [r2];', false],
  ['cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [r3, {w1, w2}], [r2];', true],
  ['cp.async.bulk.tensor.2d.shared::cluster.global [r2], [r3, {w1, w2}], [r1];', false],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [r2], [r3, {w1, w2}], [r1];', true],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [r2], [r3, {w1, w2}], [r1], r4;', true],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.cta_group::2 [r2], [r3, {w1, w2}], [r1];', true],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [r2], [r3, {w1, w2}], [r1], h1;', true],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.tile [r2], [r3, {w1, w2}], [r1];', false],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [r2], [r3, {w1, w2}], [r1];', true],
  ['cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2.L2::cache_hint [r2], [r3, {w1, w2}], [r1], h1, r4;', true],
  ['cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [r2], [r3, {w1, w2}], [r1];', true],
  ['cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes.cta_group::1 [r2], [r3, {w1, w2}], [r1];', true],
  ['cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [r2], [r3, {w1, w2, w3}], [r1], {h1};', true],
  ['cp.async.bulk.tensor.6d.shared::cluster.global.mbarrier::complete_tx::bytes [r2], [r3, {w1, w2}], [r1];', false],
  ['cp.async.bulk.tensr.2d.shared::cluster.global.mbarrier::complete_tx::bytes [r2], [r3, {w1, w2}], [r1];', false],
  ['cp.async.bulk.wait_group 0;', true],
  ['cp.async.bulk.wait_group.read 0;', true],
  ['cp.async.ca.shared.global [r2], [r3], 4;', true],
  ['cp.async.ca.shared.global.L2::cache_hint [r2], [r3], 4, r4;', true],
  ['cp.async.cg.shared.global [r2], [r3], 16;', true],
  ['cp.async.cg.shared::cta.global.L2::128B [r2], [r3], 16;', true],
  ['cp.async.commit_group;', true],
  ['cp.async.mbarrier.arrive.b64 [r1];', true],
  ['cp.async.mbarrier.arrive.noinc.b64 [r1];', true],
  ['cp.async.mbarrier.arrive.noinc.shared::cluster.b64 [r1];', false],
  ['cp.async.mbarrier.arrive.noinc.shared::cta.b64 [r1];', true],
  ['cp.async.mbarrier.arrive.shared.b32 [r1];', false],
  ['cp.async.mbarrier.arrive.shared.b64 [r1];', true],
  ['cp.async.wait_all;', true],
  ['cp.async.wait_group 1;', true],
  ['fence.mbarrier_init.release.cluster;', true],
  ['fence.mbarrier_init.release.cta;', false],
  ['fence.mbarrier_init;', false],
  ['fence.proxy.async.global;', true],
  ['fence.proxy.async.shared::cluster;', true],
  ['fence.proxy.async.shared::cta.shared::cta;', false],
  ['fence.proxy.async.shared::cta;', true],
  ['fence.proxy.async.shared;', false],
  ['fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;', true],
  ['fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;', true],
  ['fence.proxy.async;', true],
  ['mbarier.arrive.shared.b64 r2, [r1];', false],
  ['mbarrier.arrive.acquire.cta.b64 r2, [r1];', false],
  ['mbarrier.arrive.b64 r2, [r1];', true],
  ['mbarrier.arrive.b64.shared r2, [r1];', true],
  ['mbarrier.arrive.cluster.b64 r2, [r1];', false],
  ['mbarrier.arrive.expect_tx.b64 r2, [r1], w1;', true],
  ['mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [r1], w1;', true],
  ['mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 r2, [r1], w1;', false],
  ['mbarrier.arrive.expect_tx.shared::cluster.b64 _, [r1], w1;', true],
  ['mbarrier.arrive.expect_tx.shared::cta.b64 r2, [r1], w1;', true],
  ['mbarrier.arrive.noComplete.relaxed.cluster.shared.b64 r2, [r1], w1;', false],
  ['mbarrier.arrive.noComplete.release.cta.shared.b64 r2, [r1], w1;', true],
  ['mbarrier.arrive.noComplete.shared.b64 r2, [r1], w1;', true],
  ['mbarrier.arrive.noComplete.shared::cluster.b64 _, [r1], w1;', false],
  ['mbarrier.arrive.relaxed.cta.b64 r2, [r1];', true],
  ['mbarrier.arrive.release.b64 r2, [r1];', false],
  ['mbarrier.arrive.release.release.b64 r2, [r1];', false],
  ['mbarrier.arrive.shared.b64 r2, [r1], w1;', true],
  ['mbarrier.arrive.shared.b64 r2, [r1];', true],
  ['mbarrier.arrive.shared.shared::cta.b64 r2, [r1];', false],
  ['mbarrier.arrive.shared.u64 r2, [r1];', false],
  ['mbarrier.arrive.shared::cta.b64 _, [r1];', true],
  ['mbarrier.arrive.shared;', false],
  ['mbarrier.arrive.sync.shared.b64 r2, [r1];', false],
  ['mbarrier.arrive_drop.expect_tx.relaxed.cta.shared::cluster.b64 _, [r1], w1;', true],
  ['mbarrier.arrive_drop.expect_tx.shared.b64 r2, [r1], w1;', true],
  ['mbarrier.arrive_drop.noComplete.shared.b64 r2, [r1], w1;', true],
  ['mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [r1];', true],
  ['mbarrier.arrive_drop.shared.b64 r2, [r1];', true],
  ['mbarrier.complete_tx.relaxed.cta.shared::cluster.b64 [r1], w1;', true],
  ['mbarrier.complete_tx.shared::cta.b64 [r1], w1;', true],
  ['mbarrier.expect_tx.b64 [r1], w1;', true],
  ['mbarrier.expect_tx.cta.b64 [r1], w1;', false],
  ['mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [r1], w1;', true],
  ['mbarrier.expect_tx.release.cta.shared.b64 [r1], w1;', false],
  ['mbarrier.expect_tx.shared.b64 [r1], w1;', true],
  ['mbarrier.init.b64 [r1], w1;', true],
  ['mbarrier.init.release.shared.b64 [r1], w1;', false],
  ['mbarrier.init.shared.b64 [r1], w1;', true],
  ['mbarrier.init.shared::cluster.b64 [r1], w1;', false],
  ['mbarrier.init.shared::cta.b64 [r1], w1;', true],
  ['mbarrier.inval.shared.b64 [r1];', true],
  ['mbarrier.inval.shared::cta.b64 [r1];', true],
  ['mbarrier.pending_count.b64 w1, r2;', true],
  ['mbarrier.pending_count.shared.b64 w1, r2;', false],
  ['mbarrier.test_wait.acquire.b64 q1, [r1], r2;', false],
  ['mbarrier.test_wait.acquire.cluster.shared.b64 q1, [r1], r2;', true],
  ['mbarrier.test_wait.parity.b64 q1, [r1], w1;', true],
  ['mbarrier.test_wait.parity.shared::cta.b64 q1, [r1], w1;', true],
  ['mbarrier.test_wait.shared.b64 q1, [r1], r2;', true],
  ['mbarrier.try_wait.parity.acquire.shared::cta.b64 q1, [r1], w1;', false],
  ['mbarrier.try_wait.parity.b64 q1, [r1], w1;', true],
  ['mbarrier.try_wait.parity.cta.shared::cta.b64 q1, [r1], w1;', false],
  ['mbarrier.try_wait.parity.shared.u64 q1, [r1], w1;', false],
  ['mbarrier.try_wait.parity.shared::cta.b64.acquire q1, [r1], w1;', false],
  ['mbarrier.try_wait.relaxed.cta.shared::cta.b64 q1, [r1], r2;', true],
  ['mbarrier.try_wait.release.cta.shared::cta.b64 q1, [r1], r2;', false],
  ['mbarrier.try_wait.shared::cta.b64 q1, [r1], r2, w2;', true],
  ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [r1];', true],
  ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared.b64 [r1];', false],
  ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b32 [r1];', false],
  ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [r1], h1;', true],
  ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cta.b64 [r1];', false],
  ['tcgen05.commit.cta_group::1.shared::cluster.b64 [r1];', false],
  ['tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [r1], h1;', true],
  ['tcgen05.fence::after_thread_sync;', true],
  ['tcgen05.fence::before_thread_sync;', true],
  ['tcgen05.fence;', false],
];

function split(line: string): { mnemonic: string; operands: string[] } {
  const body = line.replace(/;\s*$/, '').trim();
  const sp = body.search(/\s/);
  const mnemonic = sp < 0 ? body : body.slice(0, sp);
  const operands = sp < 0 ? [] : body.slice(sp + 1).split(',').map((o) => o.trim());
  return { mnemonic, operands };
}

describe('PTX barrier grammar', () => {
  it.each(VERDICTS)('%s (ptxas accepts: %s)', (line, accepted) => {
    const { mnemonic, operands } = split(line);
    const problem = checkPtxBarrierInstruction(mnemonic, operands);
    if (accepted) expect(problem).toBeUndefined();
    else expect(problem).toBeTruthy();
  });

  it('names the nearest spelling of a misspelt instruction or qualifier', () => {
    expect(checkPtxBarrierInstruction('mbarrier.arive.shared.b64', ['%0', '[%1]'])).toMatch(/did you mean `mbarrier.arrive`/);
    expect(checkPtxBarrierInstruction('cp.async.bulk.tensr.2d.shared::cluster.global.mbarrier::complete_tx::bytes', [])).toMatch(/did you mean `.tensor`/);
    expect(checkPtxBarrierInstruction('mbarrier.try_wait.parity.shared::cta.b32', [])).toMatch(/did you mean `.b64`/);
  });

  it('leaves other instructions alone', () => {
    for (const m of ['bar.sync', 'membar.gl', 'barrier.sync', 'fence.acq_rel.cta', 'fence.proxy.tensormap::generic.release.gpu', 'tcgen05.mma.cta_group::1.kind::f16', 'mov.u32']) {
      expect(checkPtxBarrierInstruction(m, [])).toBeUndefined();
    }
  });
});

const ptxas = spawnSync('ptxas', ['--version'], { encoding: 'utf8' });
describe('verdicts against ptxas', () => {
  const reason = ptxas.status === 0 ? undefined : 'ptxas is not installed here';
  if (reason) console.log(`skipped: ${reason}`);
  it.skipIf(!!reason)('ptxas still gives every recorded verdict', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-ptx-'));
    const wrong: string[] = [];
    for (const [line, accepted] of VERDICTS) {
      const file = path.join(dir, 'one.ptx');
      const header = ['.version 9.0', '.target sm_100a', '.address_size 64', '.visible .entry k(.param .u64 p)', '{', '.reg .b64 r<10>; .reg .b32 w<10>; .reg .pred q<4>; .reg .b16 h<4>;', '.shared .align 8 .b64 bar;', 'mov.u64 r1, bar;'];
      writeFileSync(file, [...header, line, 'ret;', '}', ''].join('\n'));
      const r = spawnSync('ptxas', ['-arch=sm_100a', file, '-o', path.join(dir, 'one.cubin')], { encoding: 'utf8' });
      if ((r.status === 0) !== accepted) wrong.push(`${line}: ptxas ${r.status === 0 ? 'accepts' : 'rejects'} it`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);
});

describe('what the front end hands the rule', () => {
  const kernel = (asm: string): string => `#define SPACE ".shared::cta"
__device__ __forceinline__ void probe(unsigned addr) { asm volatile(${asm} :: "r"(addr)); }
__global__ void a() { __shared__ __align__(8) unsigned long long bar; probe(static_cast<unsigned>(__cvta_generic_to_shared(&bar))); }
__global__ void b() { __shared__ __align__(8) unsigned long long bar; probe(static_cast<unsigned>(__cvta_generic_to_shared(&bar))); }`;
  const pf307 = async (src: string) => (await lint(src, 'cuda')).filter((f) => f.code === 'PF307');

  it('reports a misspelt instruction in a helper once, however many kernels inline it', async () => {
    const findings = await pf307(kernel('"mbarrier.arrive.expect_tx.shared::cta.b32 _, [%0], 16;"'));
    expect(findings).toHaveLength(1);
    expect(findings[0].message).toMatch(/`mbarrier.arrive.expect_tx.shared::cta.b32`/);
  });

  it('reads concatenated literal pieces', async () => {
    expect(await pf307(kernel('"mbarrier.arive" ".shared::cta.b64 _, [%0];"'))).toHaveLength(1);
  });

  it('stays silent on a string built with a macro', async () => {
    expect(await pf307(kernel('"mbarrier.arrive" SPACE ".b64 _, [%0];"'))).toEqual([]);
  });
});
