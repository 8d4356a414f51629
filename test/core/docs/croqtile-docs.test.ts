// Checks the Croqtile hover table (core/lang/croqtile/api-docs.ts): coverage of the language's keywords and
// sync forms, resolution of dotted and templated spellings to the most specific entry, the era and
// removal metadata, and the Markdown rendering.
import { describe, expect, it } from 'vitest';
import { CROQTILE_DOCS, findCroqtileDoc, renderCroqtileDoc, type CroqtileDoc } from '../../../core/lang/croqtile/api-docs';

const doc = (keyword: string): CroqtileDoc => {
  const d = CROQTILE_DOCS.find((x) => x.keyword === keyword);
  expect(d, keyword).toBeDefined();
  return d!;
};

/** Spellings a hover may ask for, each resolving to some entry on its own (no nextChars). */
const KEYWORDS = [
  // structure
  '__co__', '__co_device__', '__device__', '__cok__', '__cpp__', 'asm', '__asm__', 'volatile', 'call',
  // storage and types
  'shared', 'local', 'global', 'mutable', 'f16', 'bf16', 'f32', 'f64', 'tf32', 'f8_e4m3', 'f8_e5m2', 'f4_e2m1', 's32', 'u8',
  'bin1', 'u1', 'int', 'bool', 'auto', 'void', 'mdspan', 'ituple', 'frag', 'stream',
  // events and sync
  'event', 'event<N>', 'ready', 'wait', 'trigger', 'trigger.cluster', 'after', '.at', 'sync.barrier', 'sync.fence',
  'sync.shared', 'sync.global', '__bar_arrive', '__bar_sync', 'cooperative',
  // control
  'parallel', 'parallel.async', 'by', 'inthreads', 'inthreads.async', 'foreach', 'in', 'with', 'where', '<->', 'if', 'else',
  'while', 'break', 'continue', 'return', 'yield', 'unroll', 'vectorize', 'apply',
  // levels
  'block', 'group', 'group-4', 'thread', 'cluster', 'device', 'term',
  // data movement and futures
  'dma', 'tma', 'dma.copy', 'dma.copy.async', 'dma.any', 'tma.any', 'dma.pad', 'dma.transp', 'tma.copy', 'tma.copy.async',
  'tma.copy.async<ev>', 'tma.load', 'tma.load.async', 'tma.store', '=>', 'swap', 'rotate', 'select', 'cdiv',
  '.swiz', '.swizzle', '.multicast', '.evict_first', '.evict_last', '.zfill', '.promote', '.sp',
  '.data', '.mdata', '.span', '.chunkat', '.chunk', '.subspan', '.modspan', '.view', '.from', '.span_as', '.step', '.stride',
  '.sqz', '.map', '.remap', '#', '#+', '#-', '#*', '#/', '#%',
  // MMA
  'mma', 'mma.fill', 'mma.load', 'mma.row.row', 'mma.row.col', 'mma.col.row', 'mma.col.col', 'mma.row.row.async',
  'mma.col.col.async', 'mma.store', 'mma.store.async', 'mma.scale', 'mma.commit', 'mma.wait<N>', 'schedule', 'k_tiles',
  'launch_bounds', 'maxnreg', 'reduce_sum', 'reduce_max', 'all_reduce_sum', 'copy',
  // removed guards and misc
  'wait<N>', 'stage<N>', 'mma.row.row.order<...>', 'println', 'print', 'println!', 'assert',
];

describe('croqtile docs table', () => {
  it('resolves every keyword and sync form', () => {
    const missing = KEYWORDS.filter((k) => findCroqtileDoc(k) === undefined);
    expect(missing).toEqual([]);
  });

  it('has complete, one-line-summary entries with unique spellings', () => {
    const seen = new Map<string, string>();
    for (const d of CROQTILE_DOCS) {
      expect(d.keyword.length, d.keyword).toBeGreaterThan(0);
      expect(d.signature.length, d.keyword).toBeGreaterThan(0);
      expect(d.summary, d.keyword).not.toContain('\n');
      expect(d.summary.length, d.keyword).toBeLessThan(160);
      expect(d.semantics.length, d.keyword).toBeGreaterThan(10);
      for (const s of [d.keyword, ...(d.aliases ?? [])]) {
        expect(seen.get(s), `${s} claimed by ${seen.get(s)} and ${d.keyword}`).toBeUndefined();
        seen.set(s, d.keyword);
      }
      // Each entry is reachable through its own keyword.
      expect(findCroqtileDoc(d.keyword), d.keyword).toBe(d);
      for (const a of d.aliases ?? []) expect(findCroqtileDoc(a)?.keyword, a).toBe(d.keyword);
    }
  });

  it('resolves dotted and templated forms to the most specific entry', () => {
    const cases: [string, string | undefined, string][] = [
      ['dma', '.copy.async lhs.chunkat(px, k) => shared;', 'dma.copy.async'],
      ['dma', '.copy lhs => rhs;', 'dma.copy'],
      ['dma', ' ', 'dma'],
      ['dma.copy.async', undefined, 'dma.copy.async'],
      ['dma.copy.async.zfill', undefined, 'dma.copy.async'],
      ['dma.pad<{1, 2}, {0, 0}, {0, 0}, 0>', undefined, 'dma.pad'],
      ['dma', '.any;', 'dma.any'],
      ['tma', '.any;', 'dma.any'],
      ['tma', '.copy.async<full[stage]>.swiz<128> src => dst;', 'tma.copy.async<ev>'],
      ['tma.copy.async<full[stage]>', undefined, 'tma.copy.async<ev>'],
      ['tma.copy.async', ' src => dst;', 'tma.copy.async'],
      ['tma.copy.swiz<32>', undefined, 'tma.copy'],
      ['tma', '.load.async.evict_first src => shared;', 'tma.load.async'],
      ['tma.load', undefined, 'tma.load'],
      ['mma', '.row.row.async acc, a, b;', 'mma.row.row.async'],
      ['mma.col.row.async', undefined, 'mma.row.row.async'],
      ['mma', '.row.row acc, a, b;', 'mma.row.row'],
      ['mma.row.col.sp', undefined, 'mma.row.row'],
      ['mma', '.fill.f32 0.0f;', 'mma.fill'],
      ['mma.load.frag.swiz<128>.async', undefined, 'mma.load'],
      ['mma', '.store.async acc, dst;', 'mma.store.async'],
      ['mma.store.transp', undefined, 'mma.store'],
      ['mma', '.commit;', 'mma.commit'],
      ['mma', '.wait<1>;', 'mma.wait<N>'],
      ['mma.wait<0>', undefined, 'mma.wait<N>'],
      ['mma.row.row.order<0, 1, 2, 3>', undefined, 'mma.row.row.order<...>'],
      ['trigger', '.cluster empty[stage];', 'trigger.cluster'],
      ['trigger', ' full.at(iv) after lf, rf;', 'trigger'],
      ['trigger.cluster', undefined, 'trigger.cluster'],
      ['wait', ' full.at(order);', 'wait'],
      ['wait', '<0> full;', 'wait<N>'],
      ['event', '<256> full[4];', 'event<N>'],
      ['event', ' full[2], empty[2] = ready;', 'event'],
      ['sync', '.barrier : block;', 'sync.barrier'],
      ['sync', '.local;', 'sync.shared'],
      ['inthreads', '.async (p == 0) {', 'inthreads.async'],
      ['inthreads', ' (p == 0) {', 'inthreads'],
      ['parallel', '.async<s> p by 2 : block {', 'parallel.async'],
      ['stage', '<2>(order);', 'stage<N>'],
      ['full.at', '(order)', '.at'],
      ['lf0.data', undefined, '.data'],
      ['at', '(order++)', '.at'],
      ['chunkat', '(px, k)', '.chunkat'],
      ['.swiz<128>', undefined, '.swiz'],
      ['#', '+ 1', '#'], // `#+` is documented with `#`
      ['#', 'tile_k', '#'],
      ['group-4', ' {', 'group-4'],
      ['group', '-4 {', 'group-4'],
      ['group', ' {', 'group'],
      ['tma', '.copy.async<full_barrier[st', 'tma.copy.async<ev>'],
      ['ready', ';', 'ready'],
    ];
    for (const [word, next, want] of cases) {
      expect(findCroqtileDoc(word, next)?.keyword, `${word} + ${JSON.stringify(next)}`).toBe(want);
    }
  });

  it('does not document ordinary identifiers', () => {
    expect(findCroqtileDoc('stage', ' = iv_k % STAGES;')).toBeUndefined();
    expect(findCroqtileDoc('full', '.at(order)')).toBeUndefined();
    expect(findCroqtileDoc('data', ' = 1;')).toBeUndefined();
    expect(findCroqtileDoc('lhs.foo')).toBeUndefined();
    expect(findCroqtileDoc('')).toBeUndefined();
  });

  it('marks removed forms with the release that removed them and their era', () => {
    const removed: [string, CroqtileDoc['era']][] = [
      ['mma.commit', 'A'],
      ['mma.wait<N>', 'B'],
      ['tma.copy.async<ev>', 'A-B'],
      ['wait<N>', undefined],
      ['stage<N>', undefined],
      ['tma.store', undefined],
      ['mma.row.row.order<...>', undefined],
    ];
    for (const [k, era] of removed) {
      expect(doc(k).removedIn, k).toMatch(/2026/);
      expect(doc(k).era, k).toBe(era);
    }
    expect(doc('mma.commit').removedIn).toMatch(/47d5588/);
    expect(doc('mma.wait<N>').removedIn).toMatch(/86e6947/);
    // Still-accepted forms carry no removal note; sync.shared is deprecated, not removed.
    for (const k of ['wait', 'trigger', 'sync.shared', 'dma.copy.async', 'mma.row.row']) expect(doc(k).removedIn, k).toBeUndefined();
    for (const k of ['ready', 'tma.load.async', 'mma.row.row.async']) expect(doc(k).era, k).toBe('C');
  });

  it('states the event semantics of each era precisely', () => {
    const wait = doc('wait').syncNotes!;
    expect(wait).toContain('e[i].wait(e[i].arrive())');
    expect(wait).toContain('(blockDim.x - 128) + 1');
    expect(wait).toMatch(/`wait` does not arrive/);
    const at = `${doc('.at').semantics} ${doc('.at').syncNotes}`;
    expect(at).toContain('order % N');
    expect(at).toContain('(order / N) & 1');
    expect(at).toMatch(/modulo `2 \* N`/);
    expect(doc('ready').summary).toMatch(/generation 0/);
    expect(doc('trigger').syncNotes).toMatch(/number of threads that execute a `trigger`/);
    expect(doc('event<N>').syncNotes).toMatch(/exactly N arrivals/);
    expect(doc('after').semantics).toMatch(/global-to-shared TMA/);
    expect(doc('after').syncNotes).toMatch(/count 1 plus transaction bytes/);
    expect(doc('trigger').syncNotes).toMatch(/bootstrap/);
    expect(doc('mma.commit').syncNotes).toMatch(/`mma.commit` → `trigger empty\[s\]`/);
  });

  it('renders markdown with a croqtile signature block, summary, sync notes and era notes', () => {
    for (const d of CROQTILE_DOCS) {
      const md = renderCroqtileDoc(d);
      expect(md.startsWith('```croqtile\n' + d.signature + '\n```'), d.keyword).toBe(true);
      expect(md).toContain(d.summary);
      expect(md).toContain(d.semantics);
      if (d.syncNotes) expect(md).toContain(`**Synchronization:** ${d.syncNotes}`);
      if (d.removedIn) expect(md).toContain(`**Removed:** ${d.removedIn}`);
    }
    expect(renderCroqtileDoc(doc('mma.commit'))).toContain('Accepted by era A');
    expect(renderCroqtileDoc(doc('ready'))).toContain('_Available in HEAD compilers');
    expect(renderCroqtileDoc(doc('shared'))).not.toContain('_Available in');
  });
});
