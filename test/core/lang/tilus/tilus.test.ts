// tilus (Python) as a language: bad/good fixtures per rule, autotune combinations named in findings,
// quick fixes that remove their finding, hovers (instruction docs and barrier protocols), document
// symbols, thread-group semantics in the IR, and Python files that do not use tilus left alone.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding, Position, TextEdit } from '../../../../core/api';
import { kernelOverviews } from '../../../../core/kernel-overview';
import { tilus } from '../../../../core/lang/tilus';
import { TILUS_DOCS } from '../../../../core/lang/tilus/api-docs';
import { getEngine, lint } from '../../../helpers/engine';

const ROOT = path.join(__dirname, '../../../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/tilus');
const GOOD = path.join(ROOT, 'examples/tilus/good/tma_pipeline.py');

function offsetOf(text: string, p: Position): number {
  const lines = text.split('\n');
  return lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
}

function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => offsetOf(text, b.range.start) - offsetOf(text, a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, offsetOf(out, e.range.start)) + e.newText + out.slice(offsetOf(out, e.range.end));
  return out;
}

function positionOf(text: string, needle: string, into = 1): Position {
  const before = text.slice(0, text.indexOf(needle) + into).split('\n');
  return { line: before.length - 1, character: before.at(-1)!.length };
}

const codes = (findings: Finding[]) => findings.map((f) => `${f.code} ${f.range.start.line + 1}: ${f.message}`);

describe('tilus fixtures', () => {
  it('the good pipeline (every autotune combination) has no finding', async () => {
    expect(codes(await lint(readFileSync(GOOD, 'utf8'), 'tilus'))).toEqual([]);
  });

  const bad = readdirSync(FIXTURES).filter((f) => f.endsWith('.bad.py'));
  it('has a bad fixture for each tilus rule and for the reused families', () => {
    const expected = bad.map((f) => /^# BUG \((PF\d+)\)/.exec(readFileSync(path.join(FIXTURES, f), 'utf8'))?.[1]);
    expect(new Set(expected)).toEqual(new Set(['PF103', 'PF104', 'PF106', 'PF201', 'PF301', 'PF302', 'PF304', 'PF410', 'PF411']));
  });

  const good = readdirSync(FIXTURES).filter((f) => f.endsWith('.good.py'));
  it('has a good counterpart for fixtures that are not the good pipeline with one change', () => {
    expect(good).toContain('mma_committed.good.py');
  });
  for (const file of good) {
    it(`${file} has no finding`, async () => {
      expect(codes(await lint(readFileSync(path.join(FIXTURES, file), 'utf8'), 'tilus'))).toEqual([]);
    });
  }

  for (const file of bad) {
    it(`${file} gives exactly the finding its header names`, async () => {
      const text = readFileSync(path.join(FIXTURES, file), 'utf8');
      const code = /^# BUG \((PF\d+)\)/.exec(text)![1];
      const findings = await lint(text, 'tilus');
      expect(findings.map((f) => f.code)).toEqual([code]);
    });
  }
});

describe('tilus analysis', () => {
  it('names the autotune combinations a finding needs when not all have it', async () => {
    // The expected bytes miss the B tile only when block_k is 64.
    const text = readFileSync(GOOD, 'utf8').replace(
      'transaction_bytes=sa[stage].nbytes + sb[stage].nbytes',
      'transaction_bytes=sa[stage].nbytes + sb[stage].nbytes if self.block_k == 32 else sa[stage].nbytes',
    );
    const findings = await lint(text, 'tilus');
    expect(findings.map((f) => f.code)).toEqual(['PF304']);
    expect(findings[0]!.message).toContain('[autotune: 2 of 4 combinations');
    expect(findings[0]!.message).toContain('block_k=64');
    expect(findings[0]!.message).not.toContain('block_k=32');
  });

  it('leaves Python files that do not import tilus alone', async () => {
    const engine = await getEngine();
    const text = 'import torch\n\nclass K:\n    def __call__(self):\n        self.mbarrier.arrive(x)\n';
    const r = engine.analyze(text, 'tilus');
    expect(r).toEqual({ findings: [], syntaxProblems: [], symbols: [] });
    const doc = engine.openDocument('tilus', text);
    expect(doc.hover({ line: 4, character: 20 })).toBeNull();
    doc.dispose();
  });

  it('reports Python syntax errors of a tilus file', async () => {
    const r = (await getEngine()).analyze('import tilus\n\nclass K(tilus.Script):\n    def __call__(self:\n        pass\n', 'tilus');
    expect(r.syntaxProblems.length).toBeGreaterThan(0);
  });

  it('lists the barriers as document symbols', async () => {
    const r = (await getEngine()).analyze(readFileSync(GOOD, 'utf8'), 'tilus');
    expect(r.symbols.map((s) => s.name)).toEqual(['full', 'empty']);
    expect(r.kernels?.map((k) => [k.name, k.notUnderstood])).toEqual([['TmaPipeline', 0]]);
  });

  it('lowers nested thread groups relative to their parent, and elected-lane instructions to one thread', async () => {
    const engine = await getEngine();
    const text = `import tilus
class K(tilus.Script):
    def __call__(self):
        self.attrs.warps = 8
        bars = self.mbarrier.alloc(counts=[None, 1])
        with self.thread_group(thread_begin=128, num_threads=128):
            with self.single_warp(1):
                self.mbarrier.arrive(bars[1])
            with self.thread_group(thread_begin=64, num_threads=64):
                bars2 = self.mbarrier.alloc(counts=[None])
                self.tcgen05.commit(mbarrier=bars2[0])
`;
    const doc = engine.openDocument('tilus', text);
    const ir = doc.irText();
    doc.dispose();
    // A count of None is the size of the allocating group (the block, then the inner group of 64).
    expect(ir).toContain('init bar=bars[0] count=256');
    expect(ir).toContain('init bar=bars2[0] count=64');
    expect(ir).toContain('if ((threadIdx.x>=160)&&(threadIdx.x<192))');
    expect(ir).toContain('if ((threadIdx.x>=192)&&(threadIdx.x<256))');
    expect(ir).toMatch(/if \(threadIdx\.x==192\)\n\s+mma-commit-arrive bar=bars2\[0\]/);
  });
});

describe('tilus quick fixes', () => {
  it('wraps a group-wide arrive in single_thread(), which removes the finding', async () => {
    const text = readFileSync(path.join(FIXTURES, 'group_arms_stage_without_single_thread.bad.py'), 'utf8');
    const [finding] = await lint(text, 'tilus');
    expect(finding?.code).toBe('PF410');
    const fix = finding!.fixes[0]!;
    expect(fix.title).toContain('single_thread');
    const fixed = applyEdits(text, fix.edits);
    expect(fixed).toContain('                with self.single_thread():\n                    self.mbarrier.arrive_and_expect_tx(full[stage]');
    expect(codes(await lint(fixed, 'tilus'))).toEqual([]);
  });

  it('starts the producer at producer_initial_phase, which removes the deadlock', async () => {
    const text = readFileSync(path.join(FIXTURES, 'producer_starts_at_consumer_phase.bad.py'), 'utf8');
    const [finding] = await lint(text, 'tilus');
    expect(finding?.code).toBe('PF201');
    const fix = finding!.fixes.find((f) => f.title.includes('producer_initial_phase'));
    expect(fix).toBeDefined();
    const fixed = applyEdits(text, fix!.edits);
    expect(codes(await lint(fixed, 'tilus'))).toEqual([]);
  });
});

describe('tilus hovers', () => {
  const text = readFileSync(GOOD, 'utf8');

  it('documents the instruction under the cursor, whichever part of it is hovered', async () => {
    const doc = (await getEngine()).openDocument('tilus', text);
    const arrive = doc.hover(positionOf(text, 'self.mbarrier.arrive(empty', 16));
    expect(arrive?.markdown).toContain('self.mbarrier.arrive(barrier, count=1');
    expect(arrive?.markdown).toContain('in a group of N threads that is N arrivals');
    const initial = doc.hover(positionOf(text, 'producer_initial_phase', 3));
    expect(initial?.markdown).toContain('== 1');
    const group = doc.hover(positionOf(text, 'thread_group(', 3));
    expect(group?.markdown).toContain('counts from the first thread of the enclosing group');
    doc.dispose();
  });

  it('shows a barrier\'s protocol: its allocation and who arrives and waits', async () => {
    const doc = (await getEngine()).openDocument('tilus', text);
    const hover = doc.hover(positionOf(text, 'empty = self', 2));
    expect(hover?.markdown).toContain('**empty**[2]');
    expect(hover?.markdown).toContain('count `128`');
    doc.dispose();
  });

  it('has an entry for every instruction of the mbarrier, tma, tcgen05 and wgmma groups', () => {
    const names = new Set(TILUS_DOCS.map((d) => d.name));
    const instructions = {
      mbarrier: ['alloc', 'arrive', 'arrive_and_expect_tx', 'arrive_and_expect_tx_multicast', 'arrive_and_expect_tx_remote', 'wait', 'producer_initial_phase', 'consumer_initial_phase'],
      tma: ['global_to_shared', 'shared_to_global', 'commit_group', 'wait_group'],
      tcgen05: ['alloc', 'dealloc', 'slice', 'view', 'relinquish_alloc_permit', 'load', 'store', 'wait_load', 'wait_store', 'copy', 'commit', 'mma'],
      wgmma: ['fence', 'commit_group', 'wait_group', 'mma'],
    };
    for (const [group, list] of Object.entries(instructions)) for (const n of list) expect(names, `${group}.${n}`).toContain(`${group}.${n}`);
    for (const n of ['thread_group', 'single_thread', 'single_warp', 'warp_group', 'range', 'sync', 'attrs.warps', 'attrs.blocks', 'attrs.cluster_blocks']) expect(names).toContain(n);
  });
});

describe('tilus helpers', () => {
  const PIPELINE = `import tilus
from tilus import int32, uint32


def release(bar):
    pass


class Pipeline(tilus.Class):
    def __init__(self, stages: int):
        self.stages: int = stages
        self.full_barriers = self.mbarrier.alloc([1 for _ in range(stages)])
        self.empty_barriers = self.mbarrier.alloc([32 for _ in range(stages)])
        self.stage: int32 = 0
        self.phase: uint32 = self.mbarrier.consumer_initial_phase

    def wait_full(self):
        self.mbarrier.wait(self.full_barriers[self.stage], phase=self.phase)

    def advance(self):
        self.stage = (self.stage + 1) % self.stages
        self.phase = self.phase ^ (self.stage == 0)


class K(tilus.Script):
    def __call__(self, n: int):
        self.attrs.warps = 2
        pipe = Pipeline(3)
        with self.thread_group(thread_begin=0, num_threads=32):
            for i in self.range(n):
                self.mbarrier.wait(pipe.empty_barriers[pipe.stage], phase=pipe.phase ^ 1)
                with self.single_thread():
                    self.mbarrier.arrive(pipe.full_barriers[pipe.stage])
                pipe.advance()
        with self.thread_group(thread_begin=32, num_threads=32):
            for i in self.range(n):
                pipe.wait_full()
                self.mbarrier.arrive(pipe.empty_barriers[pipe.stage])
                release(pipe.full_barriers)
                pipe.advance()
`;

  it('inlines tilus.Class instances: their barriers and state are the instance\'s, their waits are reported at the call', async () => {
    const engine = await getEngine();
    const r = engine.analyze(PIPELINE, 'tilus');
    expect(codes(r.findings)).toEqual([]);
    expect(r.symbols.map((s) => s.name)).toEqual(['pipe.full_barriers', 'pipe.empty_barriers']);
    const doc = engine.openDocument('tilus', PIPELINE);
    const ir = doc.irText();
    expect(ir).toContain('wait-parity bar=pipe.full_barriers[pipe.stage] parity=pipe.phase (blocking)');
    // Hovering the field inside the class shows the instance's barrier protocol.
    const hover = doc.hover(positionOf(PIPELINE, 'self.full_barriers[self.stage]', 8));
    expect(hover?.markdown).toContain('**pipe.full_barriers**[3]');
    doc.dispose();
  });

  it('says when a barrier is handed to a function it does not enter', async () => {
    const r = (await getEngine()).analyze(PIPELINE, 'tilus');
    expect(r.notes?.map((n) => `${n.range.start.line}: ${n.message}`)).toEqual([
      `${positionOf(PIPELINE, 'release(pipe').line}: release(…) is given a barrier but is not a method of the Script or of a tilus.Class: what it does to the barrier is not analysed`,
    ]);
    expect(r.kernels).toEqual([expect.objectContaining({ name: 'K', notUnderstood: 1 })]);
  });

  it('finds the bug when the consumer releases with the whole warp on a count-1 slot', async () => {
    const bad = PIPELINE.replace('[32 for _ in range(stages)]', '[1 for _ in range(stages)]');
    const findings = await lint(bad, 'tilus');
    expect(findings.map((f) => [f.code, f.range.start.line])).toEqual([['PF410', positionOf(bad, 'self.mbarrier.arrive(pipe.empty').line]]);
  });
});

describe('tilus launch shape', () => {
  it('reads the block size from self.attrs.warps, also through a local', async () => {
    const frontEnd = await tilus.loadFrontEnd({});
    for (const [warps, expected] of [['self.attrs.warps = 3', 96], ['nw = 2\n        self.attrs.warps = nw', 64]] as const) {
      const text = `import tilus\nclass K(tilus.Script):\n    def __call__(self):\n        ${warps}\n        b = self.mbarrier.alloc(counts=[None])\n`;
      const doc = frontEnd.openDocument(text);
      expect(doc.kernelModule().kernels[0]?.launchBounds).toBe(expected);
      expect(doc.irText()).toContain(`init bar=b[0] count=${expected}`);
      doc.dispose();
    }
  });
});

describe('tilus kernel overviews (the code lens above each Script)', () => {
  const BUGGY = readFileSync(path.join(ROOT, 'examples/tilus/bugs/tma_pipeline.py'), 'utf8');

  it('give each Script its decorated extent, autotune space, barriers and the findings inside it', async () => {
    const doc = (await getEngine()).openDocument('tilus', BUGGY);
    const [o, ...rest] = kernelOverviews(doc.analyze());
    expect(rest).toEqual([]);
    expect(o!.name).toBe('TmaPipeline');
    expect(o!.line).toBe(BUGGY.split('\n').findIndex((l) => l.startsWith('@tilus.autotune')));
    expect(o!.autotune).toEqual({ combinations: 4, analysed: 4 });
    expect(o!.barriers.map((b) => b.name)).toEqual(['full', 'empty']);
    expect(o!.findings.map((f) => f.code)).toEqual(['PF201']);
    doc.dispose();
  });

  it('past the budget, say how many combinations of the space were analysed', async () => {
    const values = Array.from({ length: 17 }, (_, i) => i + 1).join(', ');
    const text = BUGGY.replace('@tilus.autotune("num_stages", [2, 4])', `@tilus.autotune("num_stages", [${values}])`).replace('@tilus.autotune("block_k", [32, 64])', `@tilus.autotune("block_k", [${values}])`);
    const doc = (await getEngine()).openDocument('tilus', text);
    expect(kernelOverviews(doc.analyze())[0]!.autotune).toEqual({ combinations: 289, analysed: 256 });
    doc.dispose();
  });

  it('a Script without @tilus.autotune has no autotune space; one with a single value has one combination', async () => {
    const untuned = BUGGY.replace('@tilus.autotune("num_stages", [2, 4])\n@tilus.autotune("block_k", [32, 64])\n', '').replace('def __init__(self, num_stages, block_k,', 'def __init__(self, num_stages=2, block_k=64,');
    const doc = (await getEngine()).openDocument('tilus', untuned);
    expect(kernelOverviews(doc.analyze())[0]).toMatchObject({ name: 'TmaPipeline', barriers: [{ name: 'full' }, { name: 'empty' }] });
    expect(kernelOverviews(doc.analyze())[0]!.autotune).toBeUndefined();
    doc.dispose();
    const single = (await getEngine()).openDocument('tilus', BUGGY.replace('@tilus.autotune("num_stages", [2, 4])', '@tilus.autotune("num_stages", [4])'));
    expect(kernelOverviews(single.analyze())[0]!.autotune).toEqual({ combinations: 2, analysed: 2 });
    single.dispose();
  });

  it('CUDA kernels have no extent, so no overview (their lenses launch them)', async () => {
    const doc = (await getEngine()).openDocument('cuda', readFileSync(path.join(ROOT, 'examples/bugs/producer_missing_bootstrap.cu'), 'utf8'));
    expect(kernelOverviews(doc.analyze())).toEqual([]);
    doc.dispose();
  });
});
