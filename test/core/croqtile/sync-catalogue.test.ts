// Parity of the Croqtile sync catalogue with its three consumers: a synchronisation or asynchronous construct
// known to the front end (lowered to an IR operation), to the hovers (a doc with sync notes or a sync head word)
// or to the simulator (an example using it that it runs) must be in the catalogue, and every catalogue entry
// must be known to all three. Removing an entry, or adding a construct to one consumer only, fails here.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Stmt } from '../../../core/ir/types';
import { CROQTILE_DOCS, findCroqtileDoc } from '../../../core/lang/croqtile/api-docs';
import { lowerCroqtile } from '../../../core/lang/croqtile/lower';
import { parseCroqtile } from '../../../core/lang/croqtile/parser';
import { makeLineIndex } from '../../../core/lang/croqtile/positions';
import { SYNC_CONSTRUCTS, constructsLoweringTo, syncChainHeads } from '../../../core/lang/croqtile/sync-catalogue';
import { parseArg } from '../../../core/sim/args';
import { launchTemplates } from '../../../core/languages';
import { simulate } from '../../../core/simulate';

const EXAMPLES = path.join(__dirname, '../../../examples/croqtile');
const exampleFiles = ['seeds', 'good', 'bugs', 'sim'].flatMap((d) =>
  readdirSync(path.join(EXAMPLES, d))
    .filter((f) => f.endsWith('.co'))
    .map((f) => `${d}/${f}`),
);

/**
 * Constructs no example uses, lowered from these snippets instead (inside a block and a thread group). The
 * simulator's knowledge of them is covered by test/core/sim/croqtile/executor.test.ts.
 */
const SNIPPETS: Record<string, string> = {
  'event<N>': 'shared event<4> e[2]; trigger e[0]; wait e[0];',
  'trigger.cluster': 'shared event e[2]; trigger.cluster e[0]; wait e[0];',
  'tma.load.async': 'shared f16 [64] s; f = tma.load.async a => s; wait f;',
  'dma.any': 'f = dma.any; wait f;',
  rotate: 'shared f16 [64] s0, s1, s2; f0 = dma.copy.async a => s0; f1 = dma.copy.async a => s1; f2 = dma.copy.async a => s2; rotate(f0, f1, f2); wait f0;',
  '.span': 'shared f16 [64] s; f = dma.copy.async a => s; wait f; x = f.span;',
  'mma.wait<N>': 'mma.wait<1>;',
  'sync.barrier': 'sync.barrier : block;',
  'sync.shared': 'sync.shared;',
  'sync.fence': 'sync.fence;',
  inthreads: 'inthreads (t == 0) { x = 1; }',
  select: 'shared f16 [64] s0, s1; f0 = dma.copy.async a => s0; f1 = dma.copy.async a => s1; g = select(p, f0, f1); wait g;',
};

function snippetFile(body: string): string {
  return `__co__ void k(global f16 [64] a) {\n  parallel p by 1 : block {\n    parallel t by 128 : thread {\n      ${body}\n    }\n  }\n}\n`;
}

/** Every (operation, api) a file lowers to: barrier operations and the block/warp syncs. */
function lowered(text: string): { op: string; api: string }[] {
  const file = parseCroqtile(text);
  const module = lowerCroqtile(file, text, makeLineIndex(text));
  const out: { op: string; api: string }[] = [];
  const visit = (list: Stmt[]): void => {
    for (const s of list) {
      if (s.kind === 'op') out.push({ op: s.op.kind, api: s.op.api });
      else if (s.kind === 'sync') out.push({ op: 'sync', api: s.api });
      else if (s.kind === 'if') (visit(s.then), visit(s.else));
      else if (s.kind === 'loop') visit(s.body);
    }
  };
  for (const k of module.kernels) visit(k.body);
  return out;
}

/** Catalogue ids of the constructs a file uses, as the front end sees them. */
function constructsIn(text: string): Set<string> {
  const ids = new Set<string>();
  for (const l of lowered(text)) for (const c of constructsLoweringTo(l.op as never, l.api)) ids.add(c.id);
  return ids;
}

const ERAS: Record<string, string[]> = { all: ['A', 'B', 'C'], 'A-B': ['A', 'B'], A: ['A'], B: ['B'], C: ['C'] };

describe('Croqtile sync catalogue parity', () => {
  it('every entry has its hover doc, with the same era availability', () => {
    for (const c of SYNC_CONSTRUCTS) {
      const doc = findCroqtileDoc(c.id);
      expect(doc?.keyword, `hover doc of ${c.id}`).toBe(c.id);
      expect(ERAS[doc?.era ?? 'all'], `eras of ${c.id}`).toEqual([...c.eras]);
    }
  });

  it('every hover doc of a dotted or templated sync form is in the catalogue', () => {
    const ids = new Set(SYNC_CONSTRUCTS.map((c) => c.id));
    // Forms of the sync heads that complete before the statement ends (synchronous copies, fragment moves), and
    // `mma.store.async`, which neither the front end nor the simulator models as a future today.
    const synchronous = new Set(['dma.copy', 'dma.pad', 'dma.transp', 'tma.copy', 'tma.load', 'tma.store', 'mma.fill', 'mma.load', 'mma.store', 'mma.scale', 'mma.row.row.order<...>', 'mma.store.async']);
    const heads = new Set(syncChainHeads());
    for (const d of CROQTILE_DOCS) {
      const head = /^[A-Za-z_]\w*/.exec(d.keyword)?.[0];
      if (head === undefined || !heads.has(head) || d.keyword === head || ids.has(d.keyword)) continue;
      expect(synchronous.has(d.keyword), `'${d.keyword}' is documented as a sync form but missing from the catalogue`).toBe(true);
    }
  });

  it('every operation the front end lowers is in the catalogue, and every entry is lowered', () => {
    const covered = new Set<string>();
    const texts = [...exampleFiles.map((f) => readFileSync(path.join(EXAMPLES, f), 'utf8')), ...Object.values(SNIPPETS).map(snippetFile)];
    for (const text of texts) {
      for (const l of lowered(text)) {
        const cs = constructsLoweringTo(l.op as never, l.api);
        expect(cs.length, `'${l.op}' '${l.api}' is lowered by the front end but missing from the catalogue`).toBeGreaterThan(0);
        for (const c of cs) covered.add(c.id);
      }
    }
    for (const [id, body] of Object.entries(SNIPPETS)) {
      const text = snippetFile(body);
      expect(parseCroqtile(text).errors, `snippet of ${id}`).toEqual([]);
      const ids = lowered(text).filter((l) => l.op === 'sync' && l.api === id);
      if (ids.length) covered.add(id);
    }
    for (const c of SYNC_CONSTRUCTS) expect(covered.has(c.id), `catalogue entry ${c.id} is not lowered by the front end`).toBe(true);
  });

  it('the simulator runs every catalogued construct the examples use', async () => {
    const simulated = new Set<string>();
    for (const f of exampleFiles.filter((x) => x.startsWith('good/') || x.startsWith('seeds/'))) {
      const text = readFileSync(path.join(EXAMPLES, f), 'utf8');
      const [t] = await launchTemplates(text, 'croqtile', f);
      if (!t) continue;
      const r = await simulate({ file: f, text, language: 'croqtile', kernel: t.kernel, grid: t.grid, block: t.block, args: t.args.map(parseArg), maxSteps: 20_000 });
      expect(r.message, `${f} on the simulator`).not.toMatch(/not supported by the simulator/);
      for (const id of constructsIn(text)) simulated.add(id);
    }
    const viaExamples = SYNC_CONSTRUCTS.filter((c) => !(c.id in SNIPPETS) && !simulated.has(c.id)).map((c) => c.id);
    // Era-A/B constructs run in the bug examples (their own tests); the others must appear in a simulated example.
    expect(viaExamples.filter((id) => !['mma.commit', 'tma.copy.async<ev>', 'swap', 'select', '.data', 'mma.row.row.async', 'after'].includes(id))).toEqual([]);
  });
});
