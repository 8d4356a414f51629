// Checks the TextMate injection grammar that highlights PTX inside CUDA asm strings
// (syntaxes/ptx-asm.injection.tmLanguage.json). Its regexes use only constructs that Oniguruma and
// JavaScript read the same way (classes, fixed-length look-behind), so they are run here as JS RegExps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface Rule {
  match?: string;
  name?: string;
  include?: string;
  patterns?: Rule[];
}
interface Grammar {
  scopeName: string;
  injectionSelector: string;
  patterns: Rule[];
  repository: Record<string, Rule>;
}

const grammarPath = join(__dirname, '../../../syntaxes/ptx-asm.injection.tmLanguage.json');
const grammar = JSON.parse(readFileSync(grammarPath, 'utf8')) as Grammar;

/** Flattens includes into [regex, scope] pairs in grammar order. */
function rules(list: Rule[]): { re: RegExp; scope: string }[] {
  const out: { re: RegExp; scope: string }[] = [];
  for (const r of list) {
    if (r.include) out.push(...rules([grammar.repository[r.include.slice(1)]!]));
    if (r.patterns) out.push(...rules(r.patterns));
    if (r.match && r.name) out.push({ re: new RegExp(r.match, 'g'), scope: r.name });
  }
  return out;
}

/** Non-overlapping matches, leftmost first (earlier rule wins a tie), like a TextMate line scan. */
function tokens(text: string): [string, string][] {
  const found: { start: number; end: number; order: number; scope: string }[] = [];
  rules(grammar.patterns).forEach(({ re, scope }, order) => {
    for (const m of text.matchAll(re)) found.push({ start: m.index!, end: m.index! + m[0].length, order, scope });
  });
  found.sort((a, b) => a.start - b.start || a.order - b.order);
  const out: [string, string][] = [];
  let pos = 0;
  for (const f of found) {
    if (f.start < pos || f.end === f.start) continue;
    out.push([text.slice(f.start, f.end), f.scope]);
    pos = f.end;
  }
  return out;
}

const KW = 'keyword.other.ptx.phaseflip';
const OP = 'variable.parameter.ptx.phaseflip';
const keywords = (text: string) => tokens(text).filter(([, s]) => s === KW).map(([t]) => t);
const operands = (text: string) => tokens(text).filter(([, s]) => s === OP).map(([t]) => t);

describe('ptx-asm injection grammar', () => {
  it('is an injection into CUDA C++ double-quoted strings', () => {
    expect(grammar.scopeName).toBe('phaseflip.ptx.injection');
    expect(grammar.injectionSelector).toBe('L:source.cuda-cpp string.quoted.double');
    for (const { scope } of rules(grammar.patterns)) expect([KW, OP]).toContain(scope);
  });

  it.each([
    ['mbarrier.init.shared::cta.b64 [%0], %1;', 'mbarrier.init.shared::cta.b64'],
    ['mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 P1, [%0], %1;', 'mbarrier.try_wait.parity.acquire.cta.shared::cta.b64'],
    ['@p mbarrier.arrive.expect_tx.shared::cluster.b64 _, [remAddr32], %3;', 'mbarrier.arrive.expect_tx.shared::cluster.b64'],
    ['cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];', 'cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes'],
    ['cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];', 'cp.async.mbarrier.arrive.noinc.shared::cta.b64'],
    ['cp.async.cg.shared.global [%0], [%1], 16;', 'cp.async.cg.shared.global'],
    ['cp.async.commit_group;', 'cp.async.commit_group'],
    ['cp.async.wait_group %0;', 'cp.async.wait_group'],
    ['tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];', 'tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64'],
    ['tcgen05.fence::before_thread_sync;', 'tcgen05.fence::before_thread_sync'],
    ['fence.mbarrier_init.release.cluster;', 'fence.mbarrier_init.release.cluster'],
    ['fence.proxy.async.shared::cta;', 'fence.proxy.async.shared::cta'],
    ['bar.sync %0, %1;', 'bar.sync'],
    ['bar.arrive 1, 256;', 'bar.arrive'],
    ['barrier.sync.aligned 0;', 'barrier.sync.aligned'],
    ['barrier.cluster.arrive.release.aligned;', 'barrier.cluster.arrive.release.aligned'],
    ['barrier.cluster.wait.acquire.aligned;', 'barrier.cluster.wait.acquire.aligned'],
    ['wgmma.commit_group.sync.aligned;', 'wgmma.commit_group.sync.aligned'],
    ['wgmma.wait_group.sync.aligned %0;', 'wgmma.wait_group.sync.aligned'],
    ['elect.sync _|P_OUT, %1;', 'elect.sync'],
    ['mapa.shared::cluster.u32 %0, %1, %2;', 'mapa.shared::cluster.u32'],
  ])('highlights %s', (text, keyword) => {
    expect(keywords(text)).toEqual([keyword]);
  });

  it('finds mnemonics after an escape sequence or a brace inside one literal', () => {
    const text = '{\\n\\t.reg .pred P1;\\n\\tLAB_WAIT:\\n\\tmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\\n\\t@P1 bra DONE;\\n\\t}';
    expect(keywords(text)).toEqual(['mbarrier.try_wait.parity.shared::cta.b64']);
    expect(keywords('{mbarrier.inval.shared::cta.b64 [%0];}')).toEqual(['mbarrier.inval.shared::cta.b64']);
  });

  it('marks %N and %[name] placeholders, but not %% registers', () => {
    expect(operands('mbarrier.arrive.shared::cta.b64 %0, [%[bar]], %12;')).toEqual(['%0', '%[bar]', '%12']);
    expect(operands('mov.u32 %0, %%laneid;')).toEqual(['%0']);
    expect(operands('mov.b64 start_clock, %%clock64;')).toEqual([]);
  });

  it('leaves ordinary text and other instructions alone', () => {
    for (const text of [
      'barrier reached',
      'mbarrier',
      'foobar.sync',
      'my.mbarrier.init',
      'rebar.arrive',
      'add.s32 %0, %1, %2;',
      'ld.shared.b32 %0, [%1];',
      'selp.b32 %0, 1, 0, P1;',
      'mapache',
      'elect.syncs',
    ]) {
      expect(keywords(text), text).toEqual([]);
    }
  });
});
