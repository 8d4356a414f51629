// Unit tests for the Croqtile front end: parser (all three sync-syntax eras), preprocessor, constant folding and
// span -> range conversion.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CoExpr, CoFile, CoStmt } from '../../../core/lang/croqtile/ast';
import { parseCoExpression, parseCroqtile } from '../../../core/lang/croqtile/parser';
import { evaluateConstant, preprocess } from '../../../core/lang/croqtile/preprocess';
import { makeLineIndex, toRange } from '../../../core/lang/croqtile/positions';

const FIX = path.join(__dirname, '../../fixtures/croqtile/parse');

/** All statements, depth first. */
function allStmts(body: CoStmt[]): CoStmt[] {
  const out: CoStmt[] = [];
  const visit = (s: CoStmt): void => {
    out.push(s);
    switch (s.kind) {
      case 'parallel':
      case 'inthreads':
      case 'foreach':
      case 'with':
      case 'while':
      case 'block':
        s.body.forEach(visit);
        break;
      case 'if':
        s.then.forEach(visit);
        s.else.forEach(visit);
        break;
      default:
    }
  };
  body.forEach(visit);
  return out;
}

function stmtsOf(file: CoFile, fn = 0): CoStmt[] {
  return allStmts(file.functions[fn]!.body);
}

function find<K extends CoStmt['kind']>(file: CoFile, kind: K, nth = 0): Extract<CoStmt, { kind: K }> {
  const s = stmtsOf(file).filter((x) => x.kind === kind)[nth];
  if (!s) throw new Error(`no ${kind} statement #${nth}`);
  return s as Extract<CoStmt, { kind: K }>;
}

/** Compact text of an expression, for shape assertions. */
function ex(e: CoExpr | undefined): string {
  if (!e) return '∅';
  switch (e.kind) {
    case 'num':
      return e.text;
    case 'string':
      return e.text;
    case 'id':
      return e.name;
    case 'binary':
      return `(${ex(e.left)} ${e.op} ${ex(e.right)})`;
    case 'unary':
      return e.op.startsWith('post') ? `(${ex(e.arg)}${e.op.slice(4)})` : `(${e.op}${ex(e.arg)})`;
    case 'cond':
      return `(${ex(e.test)} ? ${ex(e.then)} : ${ex(e.else)})`;
    case 'call':
      return `${e.callee}${e.typeArgs ? `<${e.typeArgs.join(',')}>` : ''}(${e.args.map(ex).join(', ')})`;
    case 'member':
      return `${ex(e.object)}.${e.name}`;
    case 'method':
      return `${ex(e.object)}.${e.name}${e.typeArgs ? `<${e.typeArgs.join(',')}>` : ''}(${e.args.map(ex).join(', ')})`;
    case 'index':
      return `${ex(e.object)}[${e.indices.map(ex).join(', ')}]`;
    case 'list':
      return `{${e.items.map(ex).join(', ')}}`;
    case 'dma':
      return `${e.engine}.${e.op}${e.async ? '.async' : ''}${e.modifiers.map((m) => '.' + m).join('')}${e.event ? `<${ex(e.event)}>` : ''} ${ex(e.src)} => ${ex(e.dst)}${e.after.length ? ' after ' + e.after.map(ex).join(', ') : ''}`;
    case 'mma':
      return `mma.${e.op}${e.typeArgs ? `<${e.typeArgs.join(',')}>` : ''}${e.async ? '.async' : ''}${e.modifiers.map((m) => '.' + m).join('')} ${e.args.map(ex).join(', ')}`.trim();
    case 'opaque':
      return `opaque(${e.text})`;
  }
}

const co = (body: string, params = ''): string => `__co__ void k(${params}) {\n${body}\n}\n`;

function parseOk(text: string): CoFile {
  const f = parseCroqtile(text);
  expect(f.errors).toEqual([]);
  return f;
}

describe('croqtile parser: seed kernels', () => {
  it('era-A 1P1C pipeline: inthreads.async producer with a foreach of wait / dma / trigger', () => {
    const text = readFileSync(path.join(FIX, 'seed_1p1c.co'), 'utf8');
    const f = parseOk(text);
    expect(f.functions.map((fn) => fn.name)).toEqual(['matmul']); // the fakes in host strings are skipped
    const fn = f.functions[0]!;
    expect(fn.returnType).toBe('void');
    expect(fn.params.map((p) => `${p.type} ${p.name}[${p.dims.map(ex).join(',')}]`)).toEqual([
      'global f16 lhs[M,K]',
      'global f16 rhs[N,K]',
      'global f16 output[M,N]',
    ]);
    const ev = find(f, 'event-decl');
    expect(ev.storage).toBe('shared');
    expect(ev.items.map((i) => `${i.name}[${i.dims.map(ex)}] ready=${i.ready}`)).toEqual(['full[STAGES] ready=false', 'empty[STAGES] ready=false']);
    expect(text.slice(ev.items[1]!.nameSpan.start, ev.items[1]!.nameSpan.end)).toBe('empty');

    const producers = stmtsOf(f).filter((s) => s.kind === 'inthreads');
    expect(producers).toHaveLength(2);
    const prod = producers[0] as Extract<CoStmt, { kind: 'inthreads' }>;
    expect(prod.async).toBe(true);
    expect(ex(prod.cond)).toBe('(p1 == 0)');
    const loop = prod.body[0] as Extract<CoStmt, { kind: 'foreach' }>;
    expect(loop.kind).toBe('foreach');
    expect(loop.vars).toEqual(['iv_k']);
    expect(loop.extents.map(ex)).toEqual(['cdiv(K, TILE_K)']);
    expect(loop.body.map((s) => s.kind)).toEqual(['assign', 'wait', 'expr', 'expr', 'trigger']);
    const [assign, wait, dma1, , trig] = loop.body as [
      Extract<CoStmt, { kind: 'assign' }>,
      Extract<CoStmt, { kind: 'wait' }>,
      Extract<CoStmt, { kind: 'expr' }>,
      CoStmt,
      Extract<CoStmt, { kind: 'trigger' }>,
    ];
    expect(`${ex(assign.target)} ${assign.op} ${ex(assign.value)}`).toBe('stage = (iv_k % STAGES)');
    expect(wait.targets.map(ex)).toEqual(['empty[stage]']);
    expect(ex(dma1.expr)).toBe('dma.copy lhs.subspan(WARP_M, TILE_K).at(block_m, iv_k) => lhs_load_s[stage]');
    expect(trig.targets.map(ex)).toEqual(['full[stage]']);
    expect(trig.cluster).toBe(false);
    expect(trig.after).toEqual([]);

    // Consumer: bootstrap, mma.commit, trigger empty[stage].
    const cons = producers[1] as Extract<CoStmt, { kind: 'inthreads' }>;
    const boot = cons.body[1] as Extract<CoStmt, { kind: 'foreach' }>;
    expect(boot.kind).toBe('foreach');
    expect(boot.extents.map(ex)).toEqual(['STAGES']);
    expect((boot.body[0] as Extract<CoStmt, { kind: 'trigger' }>).targets.map(ex)).toEqual(['empty[s]']);
    const mmas = allStmts(cons.body)
      .filter((s): s is Extract<CoStmt, { kind: 'expr' }> => s.kind === 'expr' && s.expr.kind === 'mma')
      .map((s) => ex(s.expr));
    expect(mmas).toEqual(['mma.row.row mc, ma, mb', 'mma.commit', 'mma.store mc, output_s']);
    const fill = allStmts(cons.body).find((s) => s.kind === 'assign') as Extract<CoStmt, { kind: 'assign' }>;
    expect(ex(fill.value)).toBe('mma.fill.f16 0.0f');
    expect(f.defines.get('STAGES')).toBe('2');
    expect(evaluateConstant(ev.items[0]!.dims[0]!, f.defines)).toBe(2);
  });

  it('swap double buffering: dma.any, => shared, foreach x(1:), #x, swap', () => {
    const f = parseOk(readFileSync(path.join(FIX, 'seed_swap.co'), 'utf8'));
    const fn = f.functions[0]!;
    expect(fn.returnType).toBe('auto');
    expect(fn.params.map((p) => p.type)).toEqual(['s32', 's32']);
    const decl = find(f, 'decl');
    expect(decl.type).toBe('s32');
    expect(decl.shape.map(ex)).toEqual(['lhs.span(0)', 'rhs.span(1)']);
    const par = find(f, 'parallel');
    expect(par.vars).toEqual(['px', 'py']);
    expect(par.level).toBe('block');
    expect((par.body[0] as Extract<CoStmt, { kind: 'parallel' }>).level).toBe('thread');
    const w = find(f, 'with');
    expect(w.vars).toEqual(['tile_k']);
    expect(w.extents.map(ex)).toEqual(['16']);
    const assigns = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'assign' }> => s.kind === 'assign');
    expect(ex(assigns[0]!.value)).toBe('dma.copy.async lhs.chunkat(px, tile_k) => shared');
    expect(ex(assigns[2]!.value)).toBe('dma.any ∅ => ∅');
    const sliced = find(f, 'foreach');
    expect(sliced.vars).toEqual(['tile_k']);
    expect(sliced.extents.map(ex)).toEqual(['(#tile_k)']);
    expect(ex(sliced.ranges[0]?.start)).toBe('1');
    expect(sliced.ranges[0]?.end).toBeUndefined();
    expect(find(f, 'wait').targets.map(ex)).toEqual(['lf0', 'rf0']);
    const inner = find(f, 'foreach', 1);
    expect(inner.extents.map(ex)).toEqual(['(256 / (#tile_k))']);
    const acc = inner.body[0] as Extract<CoStmt, { kind: 'assign' }>;
    expect(acc.op).toBe('+=');
    expect(ex(acc.target)).toBe('output.at((px # qx), (py # qy))');
    expect(ex(acc.value)).toBe('(lf0.data.at(qx, k) * rf0.data.at(k, qy))');
    const swaps = stmtsOf(f).filter((s) => s.kind === 'expr').map((s) => ex((s as Extract<CoStmt, { kind: 'expr' }>).expr));
    expect(swaps).toEqual(['swap(lf0, lf1)', 'swap(rf0, rf1)']);
    expect(ex(find(f, 'return').value)).toBe('output');
  });
  it('era C (HEAD): = ready, event<N>, tma.load futures, trigger ... after, .at(order++), mma futures', () => {
    const f = parseOk(readFileSync(path.join(FIX, 'head_futures.co'), 'utf8'));
    const ev = find(f, 'event-decl');
    expect(ex(ev.count)).toBe('128');
    expect(ev.items.map((i) => `${i.name}:${i.ready}`)).toEqual(['full:false', 'empty:true']);
    const trig = find(f, 'trigger');
    expect(ex(trig.targets[0])).toBe('full.at((order++))');
    expect(trig.after.map(ex)).toEqual(['l', 'r']);
    const loads = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'assign' }> => s.kind === 'assign' && s.value.kind === 'dma');
    expect(loads.map((s) => `${ex(s.target)} = ${ex(s.value)}`)).toEqual([
      'l = tma.load.async.swiz<128> lhs.subspan(64, TILE_K).at(bm, iv_k) => lhs_s[(order % STAGES)]',
      'r = tma.load.async.swiz<128> rhs.chunkat(bn, iv_k) => rhs_s[(order % STAGES)]',
    ]);
    const q = stmtsOf(f).find((s): s is Extract<CoStmt, { kind: 'assign' }> => s.kind === 'assign' && s.value.kind === 'mma' && s.value.async)!;
    expect(ex(q.value)).toBe('mma.row.row.async acc, lhs_s[(order % STAGES)], rhs_s[(order % STAGES)]');
    expect(find(f, 'wait', 2).targets.map(ex)).toEqual(['q']);
    const order = find(f, 'decl', 2);
    expect(order).toMatchObject({ mutable: true, type: 'u32', names: [{ name: 'order' }] });
  });

  it('era B: mma.wait<N>, inline TMA event, conditional bootstrap, unroll', () => {
    const f = parseOk(readFileSync(path.join(FIX, 'eraB_mma_wait.co'), 'utf8'));
    const waits = stmtsOf(f)
      .filter((s): s is Extract<CoStmt, { kind: 'expr' }> => s.kind === 'expr' && s.expr.kind === 'mma' && s.expr.op === 'wait')
      .map((s) => (s.expr as Extract<CoExpr, { kind: 'mma' }>).typeArgs);
    expect(waits).toEqual([['1'], ['0']]);
    const dma = stmtsOf(f).find((s): s is Extract<CoStmt, { kind: 'expr' }> => s.kind === 'expr' && s.expr.kind === 'dma')!.expr as Extract<CoExpr, { kind: 'dma' }>;
    expect(ex(dma.event)).toBe('kf[stage]');
    expect(dma.async).toBe(true);
    const boot = find(f, 'if');
    expect(ex(boot.cond)).toBe('(tile == 0)');
    expect((boot.then[0] as Extract<CoStmt, { kind: 'foreach' }>).body.map((s) => s.kind)).toEqual(['trigger']);
    expect(find(f, 'foreach', 3).attributes).toEqual(['unroll(2)']);
    expect(find(f, 'parallel', 1)).toMatchObject({ vars: ['wg', 't'], level: 'group-4' });
  });
});

describe('croqtile parser: statements', () => {
  it('parallel: forms, levels, nesting of comma clauses, .async, attributes, streams', () => {
    const f = parseOk(
      co(`
  parallel p by 2 : group-4, t by 128 : thread { }
  parallel {x, y} by [a, b] : block { }
  parallel by 1 : group-4 { }
  parallel.async<s> q = {u, v} by [4, 8] : block { }
  [[launch_bounds(256, 1)]] [[maxnreg(128)]] parallel b by 8 : block<cooperative> { }
  parallel d by 2 : device(gpu0) { }`),
    );
    const ps = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'parallel' }> => s.kind === 'parallel');
    expect(ps.map((p) => `${p.vars}|${p.extents.map(ex)}|${p.level}|${p.async}|${p.attributes.join(';')}`)).toEqual([
      'p|2|group-4|false|',
      't|128|thread|false|',
      'x,y|a,b|block|false|',
      '|1|group-4|false|',
      'u,v|4,8|block|true|stream(s)',
      'b|8|block|false|launch_bounds(256, 1);maxnreg(128);cooperative',
      'd|2|device|false|device(gpu0)',
    ]);
    expect(ps[0]!.body).toEqual([ps[1]]);
  });

  it('inthreads and inthreads.async', () => {
    const f = parseOk(co('inthreads (t < 32) x = 1;\ninthreads.async (p1 == 0 && t == 0) { wait e; }'));
    const its = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'inthreads' }> => s.kind === 'inthreads');
    expect(its.map((s) => `${s.async} ${ex(s.cond)} ${s.body.map((b) => b.kind)}`)).toEqual(['false (t < 32) assign', 'true ((p1 == 0) && (t == 0)) wait']);
  });

  it('foreach: every form, ranges and attributes', () => {
    const f = parseOk(
      co(`
  foreach x { }
  foreach x(1:) { }
  foreach y(1:-1:2) { }
  foreach {iv} in [cdiv(K, T)] { }
  foreach i in 4 { }
  foreach {a, b} in [2, 3] { }
  foreach c = b(0:N:2) { }
  foreach {i} in [N] : unroll(4) { }
  foreach k in 8 : unroll, vectorize(k, 8) { }
  foreach x, y(1:-1) { }`),
    );
    const fs = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'foreach' }> => s.kind === 'foreach');
    const r = (x: (typeof fs)[number]['ranges'][number]) => (x ? `${ex(x.start)}:${ex(x.end)}:${ex(x.step)}` : '-');
    expect(fs.map((s) => `${s.vars}|${s.extents.map(ex)}|${s.ranges.map(r)}|${s.attributes.join(';')}`)).toEqual([
      'x|(#x)|-|',
      'x|(#x)|1:∅:∅|',
      'y|(#y)|1:(-1):2|',
      'iv|cdiv(K, T)|-|',
      'i|4|-|',
      'a,b|2,3|-,-|',
      'c|(#b)|0:N:2|',
      'i|N|-|unroll(4)',
      'k|8|-|unroll;vectorize(k, 8)',
      'x,y|(#x),(#y)|-,1:(-1):∅|',
    ]);
  });

  it('with, where, while, if/else, apply', () => {
    const f = parseOk(
      co(`
  with tile_k in 16 { }
  with idx = {x, y} in [17, 4] where x <-> z { foreach x, y(1:-1) { } }
  while (i < 4) i = i + 1;
  while (ev) { }
  if (a > 0) { b = 1; } else if (a < 0) b = 2; else { b = 3; }
  apply {i, j} in acc.span { acc.at(i, j) = 0; }`),
    );
    const ws = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'with' }> => s.kind === 'with');
    expect(ws.map((w) => `${w.vars}|${w.extents.map(ex)}`)).toEqual(['tile_k|16', 'x,y|17,4']);
    const wh = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'while' }> => s.kind === 'while');
    expect(wh.map((w) => ex(w.cond))).toEqual(['(i < 4)', 'ev']);
    const iff = find(f, 'if');
    expect(ex(iff.cond)).toBe('(a > 0)');
    expect(iff.else[0]!.kind).toBe('if');
    expect((iff.else[0] as Extract<CoStmt, { kind: 'if' }>).else.map((s) => s.kind)).toEqual(['assign']);
    const ap = stmtsOf(f).filter((s) => s.kind === 'foreach').pop() as Extract<CoStmt, { kind: 'foreach' }>;
    expect(ap.attributes).toEqual(['apply']);
    expect(ap.vars).toEqual(['i', 'j']);
    expect(ap.extents.map(ex)).toEqual(['acc.span']);
  });

  it('event declarations: storage, counts, = ready per declarator, dims', () => {
    const f = parseOk(
      co(`
  shared event full[S], empty[S] = ready;
  shared event<256> e[4];
  local event le[2][2];
  global event g = ready;
  event plain;`),
    );
    const evs = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'event-decl' }> => s.kind === 'event-decl');
    expect(
      evs.map((e) => `${e.storage}${e.count ? `<${ex(e.count)}>` : ''} ${e.items.map((i) => `${i.name}${i.dims.map((d) => `[${ex(d)}]`).join('')}${i.ready ? '=ready' : ''}`).join(',')}`),
    ).toEqual(['shared full[S],empty[S]=ready', 'shared<256> e[4]', 'local le[2][2]', 'global g=ready', 'local plain']);
  });

  it('event initialiser other than ready is an error', () => {
    const f = parseCroqtile(co('shared event e = busy;'));
    expect(f.errors.map((e) => e.message)).toEqual(["event initializer must be 'ready'"]);
  });

  it('buffer and scalar declarations', () => {
    const text = co(`
  shared f16 [M, K] x[STAGES];
  mutable u32 order = 0;
  frag f32[64] acc;
  s32 [a, b] out;
  int WARP_M = 64, WARP_N = 64;
  local f32 [16] l1, l2;
  f32 [[4, 5]] dbl;
  bf16 [x.span] same;
  f8_e4m3 [128, 64] fp8 {0};
  int tmp;
  mutable n = 3;
  bool flag = true;
  mdspan<2> sp : [M, N];
  sp2 : [10, 20];
  ituple it = {1, 2};
  frag.f16 fr[2] {0.0f};`);
    const f = parseOk(text);
    const ds = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'decl' }> => s.kind === 'decl');
    expect(
      ds.map(
        (d) =>
          `${d.storage ?? '-'}|${d.mutable ? 'mut ' : ''}${d.type}|${d.shape.map(ex)}|${d.names.map((n) => n.name + n.dims.map((x) => `[${ex(x)}]`).join('')).join(',')}|${ex(d.init)}`,
      ),
    ).toEqual([
      'shared|f16|M,K|x[STAGES]|∅',
      '-|mut u32||order|0',
      'frag|f32|64|acc|∅',
      '-|s32|a,b|out|∅',
      '-|int||WARP_M|64',
      '-|int||WARP_N|64',
      'local|f32|16|l1,l2|∅',
      '-|f32|4,5|dbl|∅',
      '-|bf16|x.span|same|∅',
      '-|f8_e4m3|128,64|fp8|0',
      '-|int||tmp|∅',
      '-|mut auto||n|3',
      '-|bool||flag|true',
      '-|mdspan||sp|{M, N}',
      '-|mdspan||sp2|{10, 20}',
      '-|ituple||it|{1, 2}',
      'frag|f16||fr[2]|0.0f',
    ]);
    const x = ds[0]!.names[0]!;
    expect(text.slice(x.span.start, x.span.end)).toBe('x[STAGES]');
  });

  it('wait and trigger: lists, .at(order++), after, trigger.cluster, era A/B wait<0>', () => {
    const f = parseOk(
      co(`
  wait a, b, e[i], e.at(order);
  trigger full.at(order++) after lhs_load, rhs_load;
  trigger e after f, g;
  trigger.cluster empty[stage];
  trigger x, y;
  wait<0> full;`),
    );
    const ws = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'wait' }> => s.kind === 'wait');
    expect(ws.map((w) => w.targets.map(ex).join(' '))).toEqual(['a b e[i] e.at(order)', 'full']);
    const ts = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'trigger' }> => s.kind === 'trigger');
    expect(ts.map((t) => `${t.cluster ? 'cluster ' : ''}${t.targets.map(ex).join(' ')} | ${t.after.map(ex).join(' ')}`)).toEqual([
      'full.at((order++)) | lhs_load rhs_load',
      'e | f g',
      'cluster empty[stage] | ',
      'x y | ',
    ]);
    const at = ts[0]!.targets[0] as Extract<CoExpr, { kind: 'method' }>;
    expect(at.kind).toBe('method');
    expect(at.name).toBe('at');
    expect(at.args[0]).toMatchObject({ kind: 'unary', op: 'post++', arg: { kind: 'id', name: 'order' } });
  });

  it('dma and tma operations in all eras', () => {
    const f = parseOk(
      co(`
  dma.copy a => b;
  f = dma.copy.async src.chunkat(i, j) => shared;
  g = dma.copy.async src => dst after f;
  tma.copy.async<full[stage]>.swiz<128> lhs.subspan(M, K).at(i, k) => lhs_s[stage];
  tma.copy.async<full>.swiz<64> a => b;
  ld = tma.load.async.evict_first.swiz<128> q => q_s;
  tma.load g2 => s;
  tma.copy.multicast.swiz<128> rhs => r;
  p = dma.pad<{2, 4}, {2, 4}, {0, 0}, 99> input.subspan(32, 64) => shared;
  t = dma.transp<1, 0> input => local;
  x = dma.any;
  y = tma.any;
  tma.store tile => output;
  dma.copy.zfill a => b;`),
    );
    const ds = stmtsOf(f).map((s) => (s.kind === 'expr' ? s.expr : s.kind === 'assign' ? s.value : undefined)).filter((e): e is Extract<CoExpr, { kind: 'dma' }> => e?.kind === 'dma');
    expect(ds.map(ex)).toEqual([
      'dma.copy a => b',
      'dma.copy.async src.chunkat(i, j) => shared',
      'dma.copy.async src => dst after f',
      'tma.copy.async.swiz<128><full[stage]> lhs.subspan(M, K).at(i, k) => lhs_s[stage]',
      'tma.copy.async.swiz<64><full> a => b',
      'tma.load.async.evict_first.swiz<128> q => q_s',
      'tma.load g2 => s',
      'tma.copy.multicast.swiz<128> rhs => r',
      'dma.pad input.subspan(32, 64) => shared',
      'dma.transp input => local',
      'dma.any ∅ => ∅',
      'tma.any ∅ => ∅',
      'tma.store tile => output',
      'dma.copy.zfill a => b',
    ]);
    // Era A: the inline event is in `event`, not a modifier.
    expect(ds[3]!.event).toMatchObject({ kind: 'index', object: { kind: 'id', name: 'full' } });
    expect(ds[3]!.modifiers).toEqual(['swiz<128>']);
    expect(ds[2]!.after.map(ex)).toEqual(['f']);
  });

  it('mma operations in all eras', () => {
    const f = parseOk(
      co(`
  mc = mma.fill.f16 0.0f;
  mma.fill acc, 0;
  ma = mma.load lhs_s[stage].chunkat(_, iv);
  mb = mma.load.swiz<128> rhs_s.chunkat(_, iv);
  mf = mma.load.frag.async buf;
  mma.row.row mc, ma, mb;
  mma.row.col.scale acc, a, b, sa, sb;
  q = mma.row.row.async acc, a, b;
  mma.commit;
  mma.wait<1>;
  mma.store mc, output_s;
  mma.store.transp acc, out;
  mma.store.mask acc, out, rows, cols;
  mma.row.row.order<0, 1, 2, 3> acc, lhs, rhs;
  [[schedule(k_tiles(7, 6))]] mma.col.row acc, a, b;`),
    );
    const ms = stmtsOf(f)
      .map((s) => (s.kind === 'expr' ? s.expr : s.kind === 'assign' ? s.value : undefined))
      .filter((e): e is Extract<CoExpr, { kind: 'mma' }> => e?.kind === 'mma');
    expect(ms.map(ex)).toEqual([
      'mma.fill.f16 0.0f',
      'mma.fill acc, 0',
      'mma.load lhs_s[stage].chunkat(_, iv)',
      'mma.load.swiz<128> rhs_s.chunkat(_, iv)',
      'mma.load.async.frag buf',
      'mma.row.row mc, ma, mb',
      'mma.row.col.scale acc, a, b, sa, sb',
      'mma.row.row.async acc, a, b',
      'mma.commit',
      'mma.wait<1>',
      'mma.store mc, output_s',
      'mma.store.transp acc, out',
      'mma.store.mask acc, out, rows, cols',
      'mma.row.row.order<0, 1, 2, 3> acc, lhs, rhs',
      'mma.col.row acc, a, b',
    ]);
    expect(ms[7]!.async).toBe(true);
    expect(ms[9]!.typeArgs).toEqual(['1']);
  });

  it('sync, builtins, calls, inline C++ and asm, print, assert, jumps', () => {
    const text = co(`
  sync.shared;
  sync.barrier : block;
  sync.fence : block<shared>;
  __bar_arrive(1, 256);
  __bar_sync(1, 256);
  call mylib::compute<64, mylib::MY_CONST>(tmp, |tmp.span|);
  mutable float b = call wow<3, 1 + 7>(a, b);
  __cpp__("int x = 1; // } {");
  __cpp__(R"(
    if (x) { y(); }
  )");
  asm volatile("mbarrier.arrive.shared.b64 _, [%0];" :: "r"(addr) : "memory");
  println("value: ", x, y);
  print!("raw");
  assert(a > 0, "a must be positive");
  swap(f0, f1);
  swap f2, f3;
  rotate(f0, f1, f2);
  x = select(k % 2, f0, f1);
  return;
  break;
  continue;
  yield;`);
    const f = parseOk(text);
    const ss = stmtsOf(f);
    expect(ss.filter((s) => s.kind === 'sync').map((s) => `${(s as Extract<CoStmt, { kind: 'sync' }>).what}:${(s as Extract<CoStmt, { kind: 'sync' }>).level ?? ''}`)).toEqual([
      'sync.shared:',
      'sync.barrier:block',
      'sync.fence:block',
    ]);
    const exprs = ss.filter((s): s is Extract<CoStmt, { kind: 'expr' }> => s.kind === 'expr').map((s) => ex(s.expr));
    expect(exprs).toEqual([
      '__bar_arrive(1, 256)',
      '__bar_sync(1, 256)',
      'mylib::compute<64,mylib::MY_CONST>(tmp, (sizeoftmp.span))',
      'println("value: ", x, y)',
      'print!("raw")',
      'assert((a > 0), "a must be positive")',
      'swap(f0, f1)',
      'swap(f2, f3)',
      'rotate(f0, f1, f2)',
    ]);
    const wow = ss.find((s) => s.kind === 'decl') as Extract<CoStmt, { kind: 'decl' }>;
    expect(ex(wow.init)).toBe('wow<3,1 + 7>(a, b)');
    const opaque = ss.filter((s): s is Extract<CoStmt, { kind: 'opaque' }> => s.kind === 'opaque');
    expect(opaque).toHaveLength(3);
    expect(opaque[0]!.text).toBe('__cpp__("int x = 1; // } {")');
    expect(opaque[2]!.text.startsWith('asm volatile(')).toBe(true);
    expect(ss.filter((s) => ['return', 'break', 'continue', 'yield'].includes(s.kind)).map((s) => s.kind)).toEqual(['return', 'break', 'continue', 'yield']);
    const sel = ss.find((s) => s.kind === 'assign') as Extract<CoStmt, { kind: 'assign' }>;
    expect(ex(sel.value)).toBe('select((k % 2), f0, f1)');
  });

  it('expressions: #, #+, ternary, casts, numbers, strings, lists, chains, sizeof, templates', () => {
    const f = parseOk(
      co(`
  a = px # qx + 1;
  b = i #+ j #* 2;
  c = x > 0 ? x : -x;
  d = __to<f32>(iv);
  e = (f32)iv;
  g = 0.0f + 1e-3 + 128u + 0x10 + 2.5e+4f;
  h = "abc" "def";
  l = {x, y};
  m = [a, b];
  n = lhs.subspan(M, K).at(i, k).chunkat(_, w).span;
  o = f.data.at(i, j);
  p = |f32| * 2;
  q = stage<2>(order);
  r = !a && ~b || c;
  s = a.view(16, 8 : 12, 3).from(1, 2);
  t = buf.map<shared>(a, b);
  u = #x - 1;
  v = lhs.span(0) / 2;`),
    );
    const as = stmtsOf(f).filter((s): s is Extract<CoStmt, { kind: 'assign' }> => s.kind === 'assign').map((s) => ex(s.value));
    expect(as).toEqual([
      '((px # qx) + 1)',
      '(i #+ (j #* 2))',
      '((x > 0) ? x : (-x))',
      '__to<f32>(iv)',
      '__to<f32>(iv)',
      '((((0.0f + 1e-3) + 128u) + 0x10) + 2.5e+4f)',
      '"abc" "def"',
      '{x, y}',
      '{a, b}',
      'lhs.subspan(M, K).at(i, k).chunkat(_, w).span',
      'f.data.at(i, j)',
      '((sizeoff32) * 2)',
      'stage<2>(order)',
      '(((!a) && (~b)) || c)',
      'a.view(16, 8, opaque(: 12, 3)).from(1, 2)',
      'buf.map<shared>(a, b)',
      '((#x) - 1)',
      '(lhs.span(0) / 2)',
    ]);
    const nums = stmtsOf(f).filter((s) => s.kind === 'assign')[5] as Extract<CoStmt, { kind: 'assign' }>;
    const vals: number[] = [];
    const walk = (e: CoExpr): void => {
      if (e.kind === 'num') vals.push(e.value);
      if (e.kind === 'binary') {
        walk(e.left);
        walk(e.right);
      }
    };
    walk(nums.value);
    expect(vals).toEqual([0, 0.001, 128, 16, 25000]);
  });

  it('parameters: storage, shapes, ?, ??, mdspan, scalars, streams, references', () => {
    const f = parseOk(`__co__ s32 [6, 17, 128] f(global f32 [??, 16, M] a, f32 [?, 4] b, int n, stream s, f16 mdspan<2> c, local s32 [[2, 3]] &d, f32 [N] ) {}
__co__ void proto(int a);`);
    const fn = f.functions[0]!;
    expect(fn.returnType).toBe('s32 [6, 17, 128]');
    expect(fn.params.map((p) => `${p.type}|${p.dims.map(ex)}|${p.name}`)).toEqual([
      'global f32|??,16,M|a',
      'f32|?,4|b',
      'int||n',
      'stream||s',
      'f16||c',
      'local s32|2,3|d',
      'f32|N|',
    ]);
    expect(f.functions[1]!.name).toBe('proto');
  });

  it('function-like macros expand inside __co__ bodies', () => {
    const f = parseOk(`#define KP(x) println("x", ": ", x);
#define MIN(a, b) (((a) < (b)) ? (a) : (b))
#define CALL(name, ...) name(__VA_ARGS__)
__co__ void k() {
  KP(THREADS)
  y = MIN(p, 4);
  CALL(swap, a, b);
}`);
    const ss = stmtsOf(f);
    expect(ss.map((s) => s.kind)).toEqual(['expr', 'assign', 'expr']);
    expect(ex((ss[0] as Extract<CoStmt, { kind: 'expr' }>).expr)).toBe('println("x", ": ", THREADS)');
    expect(ex((ss[1] as Extract<CoStmt, { kind: 'assign' }>).value)).toBe('((p < 4) ? p : 4)');
    expect(ex((ss[2] as Extract<CoStmt, { kind: 'expr' }>).expr)).toBe('swap(a, b)');
  });
});

describe('croqtile parser: macros', () => {
  it('stringizes, pastes, rescans, and survives empty or self-referential expansions', () => {
    const f = parseOk(`#define P(x) #x
#define CAT(a, b) a ## b
#define E()
#define TWICE(s) s s
__co__ void k() {
  s = P(hello world);
  CAT(wa, it) e;
  ${'E() '.repeat(20000)}
  TWICE(trigger f;)
}`);
    const ss = stmtsOf(f);
    expect(ss.map((x) => x.kind)).toEqual(['assign', 'wait', 'trigger', 'trigger']);
    expect(ex((ss[0] as Extract<CoStmt, { kind: 'assign' }>).value)).toBe('"hello world"');
    const g = parseCroqtile('#define A(x) A(x) x\n__co__ void k() { A(wait e;) }');
    expect(g.errors.length).toBeGreaterThan(0); // A is not re-expanded inside itself (as in C)
  });
});

describe('croqtile parser: host code', () => {
  it('skips host C++ robustly and finds only __co__ functions', () => {
    const text = `#include <cstdio>
// __co__ void commented() {}
/* __co__ void blockcommented() { */
template <typename T, int N = (3 > 2)>
__device__ T helper(T a) { const char* s = "}"; return a + '}'; }
__co_device__ void dev() { if (1) { } }
__cok__ {
  __global__ void kern() { printf("{"); }
}
struct S { int a[2] = {1, 2}; };
static const char* raw = R"delim(
  __co__ void notreal() { }
)delim";
char q = '"';
int n = 1'000'000;
__co__ void real(int a) { x = a; }
int main() {
  auto v = [](int x) { return x; };
  real(1);
  return 0;
}
__co__ void second() { }
`;
    const f = parseOk(text);
    expect(f.functions.map((fn) => fn.name)).toEqual(['real', 'second']);
    expect(text.slice(f.functions[0]!.span.start, f.functions[0]!.span.end)).toBe('__co__ void real(int a) { x = a; }');
    expect(text.slice(f.functions[0]!.nameSpan.start, f.functions[0]!.nameSpan.end)).toBe('real');
  });

  it('identifiers that merely contain __co__ are not markers', () => {
    const f = parseOk('int __co__shared_spm_size = 0; int x__co__ = 1;\n');
    expect(f.functions).toEqual([]);
  });
});

describe('croqtile parser: error recovery', () => {
  it('missing ; at a line end: one error at the next token, the rest is parsed', () => {
    const text = co(`
  wait full[stage]
  dma.copy a => b;
  trigger e;`);
    const f = parseCroqtile(text);
    expect(f.errors).toHaveLength(1);
    expect(f.errors[0]!.message).toBe("expected ';' after wait");
    expect(text.slice(f.errors[0]!.span.start, f.errors[0]!.span.end)).toBe('dma');
    expect(stmtsOf(f).map((s) => s.kind)).toEqual(['wait', 'expr', 'trigger']);
  });

  it('garbage inside a statement: one error, skip to the next ;, keep going', () => {
    const text = co(`
  wait e;
  x = 3 + ;
  trigger e;
  foreach i in 4 { y = ) ; z = 1; }
  wait f;`);
    const f = parseCroqtile(text);
    expect(f.errors.map((e) => `${e.message} @${text.slice(e.span.start, e.span.end)}`)).toEqual(["unexpected token ';' @;", "unexpected token ')' @)"]);
    expect(stmtsOf(f).map((s) => s.kind)).toEqual(['wait', 'trigger', 'foreach', 'assign', 'wait']);
  });

  it('an unexpected } closes the block; later functions still parse', () => {
    const f = parseCroqtile(`__co__ void a() { if (x) } __co__ void b() { wait e; }`);
    expect(f.errors.map((e) => e.message)).toEqual(["expected a statement or '{' for the if body"]);
    expect(f.functions.map((fn) => fn.name)).toEqual(['a', 'b']);
    expect(f.functions[1]!.body.map((s) => s.kind)).toEqual(['wait']);
  });

  it('unterminated function and header errors are reported, never thrown', () => {
    expect(parseCroqtile('__co__ void a() { wait e;').errors.map((e) => e.message)).toEqual(["expected '}' at the end of the __co__ function"]);
    expect(parseCroqtile('__co__ choreo() { }').errors.map((e) => e.message)).toEqual(["expected return type but found 'choreo'"]);
    expect(parseCroqtile('__co__ void f(f32 d[]) { wait e; }').errors).toHaveLength(1);
    expect(parseCroqtile('__co__').errors).toHaveLength(1);
  });

  it('deep nesting is capped with one error and no stack overflow', () => {
    const cases = [
      `__co__ void f() { ${'{'.repeat(5000)}${'}'.repeat(5000)} wait e; }`,
      `__co__ void f() { x = ${'('.repeat(5000)}1${')'.repeat(5000)}; wait e; }`,
      `__co__ void f() { ${'if (a) '.repeat(5000)} y = 1; wait e; }`,
      `__co__ void f() { x = ${'-'.repeat(5000)}1; wait e; }`,
      `__co__ void f() { x = ${'a.b('.repeat(5000)}${')'.repeat(5000)}; wait e; }`,
    ];
    for (const text of cases) {
      const f = parseCroqtile(text);
      expect(f.errors.map((e) => e.message)).toEqual(['nesting too deep']);
      expect(f.functions[0]!.body.some((s) => s.kind === 'wait')).toBe(true);
    }
  });

  it('never throws on hostile input', () => {
    const inputs = [
      '',
      '__co__',
      '__co__ void',
      '__co__ void f(',
      '__co__ void f() {',
      '__co__ void f() { x = "unterminated',
      '__co__ void f() { x = R"(unterminated',
      '__co__ void f() { /* unterminated',
      '__co__ void f() { tma.copy.async<<<<< a => b; }',
      '__co__ void f() { mma.wait<; }',
      '__co__ void f() { [[ [[ ]] }',
      '\u0000\u0001__co__\uFFFD void f() { \uD800 }',
      '#if\n#elif\n#else\n#endif\n#endif\n#define\n#define (x)\n__co__ void f() {}',
      '__cok__ {',
      '__co__ void f() { foreach } }',
      '__co__ void f() { parallel p by : { } }',
      Array.from({ length: 2000 }, (_, i) => '(){}[]<>;,.=#|?:'[i % 16]).join(''),
    ];
    for (const t of inputs) {
      expect(() => parseCroqtile(t)).not.toThrow();
      expect(() => parseCroqtile('__co__ void f() {' + t + '}')).not.toThrow();
    }
  });

  it('parses a 20,000-line file quickly (warm)', () => {
    const pieces = [readFileSync(path.join(FIX, 'seed_1p1c.co'), 'utf8'), readFileSync(path.join(FIX, 'seed_swap.co'), 'utf8')];
    let text = '';
    for (let i = 0; text.split('\n').length < 20_000; i++) text += pieces[i % 2]!.replace(/__co__ (\w+) (\w+)\(/g, `__co__ $1 $2_${i}(`);
    for (let i = 0; i < 3; i++) parseCroqtile(text);
    const times: number[] = [];
    let fns = 0;
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const f = parseCroqtile(text);
      times.push(performance.now() - t0);
      fns = f.functions.length;
      expect(f.errors).toEqual([]);
    }
    times.sort((a, b) => a - b);
    console.log(`croqtile parse of ${text.split('\n').length} lines (${fns} functions): min ${times[0]!.toFixed(1)} ms, median ${times[3]!.toFixed(1)} ms`);
    // Generous bound: guards against regressions on a loaded CI machine, not the target (well under 50 ms).
    expect(times[0]!).toBeLessThan(250);
  });

  it('handles 10 MB of input', () => {
    const big = 'int x = 0; /* host */ const char* s = "{"; // }\n'.repeat(220_000);
    expect(big.length).toBeGreaterThan(10_000_000);
    const f = parseCroqtile(big + co('wait e;'));
    expect(f.errors).toEqual([]);
    expect(f.functions).toHaveLength(1);
  });
});

describe('croqtile preprocessor', () => {
  it('collects object-like defines (last wins, #undef removes) and records function-like macros', () => {
    const r = preprocess(`#define A 1
#define B (A + 2) // comment
#define C \\
  4
#define A 3
#define F(x, y) ((x) + (y))
#define G 7
#undef G
`);
    expect([...r.defines]).toEqual([
      ['B', '(A + 2)'],
      ['C', '4'],
      ['A', '3'],
    ]);
    expect(r.functionMacros.get('F')).toEqual({ params: ['x', 'y'], body: '((x) + (y))' });
  });

  it('evaluates #if/#ifdef/#ifndef/#elif/#else and blanks inactive branches, offsets preserved', () => {
    const text = `#define STAGES 4
#ifndef DEPTH
#define DEPTH 2
#endif
#if STAGES > 8
#error too many
#elif STAGES == 4 && defined(DEPTH)
__co__ void four() { }
#else
__co__ void other() { }
#endif
#ifdef NOT_DEFINED
__co__ void hidden() { }
#endif
#if UNKNOWN_FROM_COMMAND_LINE
__co__ void first() { }
#else
__co__ void second() { }
#endif
#if 0
  #if 1
  __co__ void nested() { }
  #endif
#endif
`;
    const r = preprocess(text);
    expect(r.text.length).toBe(text.length);
    expect(r.text.split('\n').length).toBe(text.split('\n').length);
    expect(r.defines.get('DEPTH')).toBe('2');
    expect(r.text).not.toContain('#');
    const f = parseOk(text);
    expect(f.functions.map((fn) => fn.name)).toEqual(['four', 'first']);
    // Spans point into the original text.
    const four = f.functions[0]!;
    expect(text.slice(four.nameSpan.start, four.nameSpan.end)).toBe('four');
  });

  it('reports unbalanced conditionals once each', () => {
    const text = '#endif\n#if 1\n__co__ void k() { wait e; }\n';
    const f = parseCroqtile(text);
    expect(f.errors.map((e) => `${e.message} @${text.slice(e.span.start, e.span.end)}`)).toEqual([
      "'#endif' without '#if' @#endif",
      "missing '#endif' for this conditional @#if 1",
    ]);
    expect(f.functions).toHaveLength(1);
  });

  it('a directive line inside a __co__ body is ignored, # as an operator is not a directive', () => {
    const f = parseOk(`__co__ void k() {
#pragma unroll
  foreach k in [256 /
    #tile_k] { }
}`);
    expect(find(f, 'foreach').extents.map(ex)).toEqual(['(256 / (#tile_k))']);
  });
});

describe('evaluateConstant', () => {
  const defs = preprocess(`#define STAGES 4
#define TILE_K 64
#define K (2 * TILE_K)
#define SWIZ (2 * TILE_K)
#define LOOP_A LOOP_B
#define LOOP_B LOOP_A
#define HALF 0.5f
`).defines;
  const ev = (s: string): number | undefined => evaluateConstant(parseCoExpression(s)!, defs);

  it('folds defines recursively, cdiv, arithmetic and conditionals', () => {
    expect(ev('STAGES')).toBe(4);
    expect(ev('cdiv(K, 48)')).toBe(3);
    expect(ev('K / 3')).toBe(42);
    expect(ev('SWIZ == 128 ? 1 : 0')).toBe(1);
    expect(ev('(STAGES - 1) % STAGES')).toBe(3);
    expect(ev('__alignup(100, TILE_K)')).toBe(128);
    expect(ev('HALF * 2')).toBe(1);
    expect(ev('-STAGES')).toBe(-4);
    expect(ev('[STAGES]')).toBe(4);
  });

  it('is undefined for unknowns and cycles', () => {
    expect(ev('M')).toBeUndefined();
    expect(ev('cdiv(M, 4)')).toBeUndefined();
    expect(ev('LOOP_A')).toBeUndefined();
    expect(ev('STAGES / 0')).toBeUndefined();
  });

  it('works on expressions taken from a parsed file (ring size and trip count)', () => {
    const f = parseOk(`#define STAGES 3
#define TILE_K 64
__co__ void k(global f16 [M, 1024] a) {
  shared event full[STAGES];
  foreach {iv} in [cdiv(1024, TILE_K)] { }
}`);
    expect(evaluateConstant(find(f, 'event-decl').items[0]!.dims[0]!, f.defines)).toBe(3);
    expect(evaluateConstant(find(f, 'foreach').extents[0]!, f.defines)).toBe(16);
  });
});

describe('croqtile positions', () => {
  it('converts spans to zero-based ranges (LF, CRLF, CR) and clamps', () => {
    const text = 'ab\ncd\r\nef\rgh';
    const li = makeLineIndex(text);
    expect(li.lineCount).toBe(4);
    expect(li.position(0)).toEqual({ line: 0, character: 0 });
    expect(li.position(3)).toEqual({ line: 1, character: 0 });
    expect(li.position(7)).toEqual({ line: 2, character: 0 });
    expect(li.position(10)).toEqual({ line: 3, character: 0 });
    expect(li.position(999)).toEqual({ line: 3, character: 2 });
    expect(li.position(-5)).toEqual({ line: 0, character: 0 });
    expect(toRange(text, { start: 1, end: 8 })).toEqual({ start: { line: 0, character: 1 }, end: { line: 2, character: 1 } });
    expect(li.offsetAt({ line: 2, character: 1 })).toBe(8);
  });

  it('maps parser spans onto the source', () => {
    const text = co('  wait full[stage];');
    const f = parseOk(text);
    const w = find(f, 'wait');
    expect(toRange(text, w.span)).toEqual({ start: { line: 1, character: 2 }, end: { line: 1, character: 18 } });
  });

  it('converts thousands of spans quickly', () => {
    const text = 'x\n'.repeat(200_000);
    const li = makeLineIndex(text);
    const t0 = performance.now();
    for (let i = 0; i < 100_000; i++) li.range({ start: (i * 7919) % text.length, end: ((i * 7919) % text.length) + 1 });
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
