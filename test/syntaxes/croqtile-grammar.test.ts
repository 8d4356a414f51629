// Checks the Croqtile TextMate grammar (syntaxes/croqtile.tmLanguage.json). vscode-textmate and
// vscode-oniguruma are not dependencies of this repo, so the grammar's regexes are run as JavaScript
// RegExps by the small tokenizer in ./tmlite.ts; the grammar avoids Oniguruma-only constructs so that
// both engines read it the same way. Host C++ (the source.cpp include) is not tokenized here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TmLite, type RawGrammar, type RawRule, type Token } from './tmlite';

const grammarPath = join(__dirname, '../../syntaxes/croqtile.tmLanguage.json');
const grammar = JSON.parse(readFileSync(grammarPath, 'utf8')) as RawGrammar & { name: string; fileTypes?: string[] };

// --- helpers ------------------------------------------------------------------------------------

/** Every rule object in the grammar, with the regex sources it carries. */
function allRules(): RawRule[] {
  const out: RawRule[] = [];
  const walk = (r: RawRule) => {
    out.push(r);
    r.patterns?.forEach(walk);
    for (const caps of [r.captures, r.beginCaptures, r.endCaptures]) {
      for (const c of Object.values(caps ?? {})) c.patterns?.forEach(walk);
    }
  };
  grammar.patterns.forEach(walk);
  Object.values(grammar.repository ?? {}).forEach(walk);
  return out;
}

function tokenizeDoc(text: string): Token[][] {
  return new TmLite(grammar).tokenize(text);
}

/** Tokens of `body` placed inside a `__co__` function body (first body line is returned). */
function inCo(body: string): Token[][] {
  const lines = tokenizeDoc(`__co__ void k(global f16 [M, K] x) {\n${body}\n}`);
  return lines.slice(1, -1);
}

/** The innermost scope of the n-th token whose trimmed text is `text`. */
function scopeOf(tokens: Token[], text: string, nth = 0): string | undefined {
  const hits = tokens.filter((t) => t.text.trim() === text);
  const hit = hits[nth];
  return hit ? hit.scopes[hit.scopes.length - 1] : undefined;
}

function lineScopes(line: string): Token[] {
  return inCo(line)[0]!;
}

/** Asserts that `text` in `line` (inside a __co__ body) gets a scope starting with `prefix`. */
function expectScope(line: string, text: string, prefix: string, nth = 0): void {
  const scope = scopeOf(lineScopes(line), text, nth);
  expect(scope, `${JSON.stringify(text)} in ${JSON.stringify(line)}`).toBeDefined();
  expect(scope!.startsWith(prefix), `${JSON.stringify(text)} in ${JSON.stringify(line)} is ${scope}, want ${prefix}*`).toBe(true);
}

// --- structure ----------------------------------------------------------------------------------

describe('croqtile grammar: structure', () => {
  it('is the source.croqtile grammar for .co files and falls back to C++ for host code', () => {
    expect(grammar.scopeName).toBe('source.croqtile');
    expect(grammar.name).toBe('Croqtile');
    expect(grammar.fileTypes).toEqual(['co']);
    const top = grammar.patterns.map((p) => p.include);
    expect(top).toContain('#co-function');
    expect(top[top.length - 1]).toBe('source.cpp');
  });

  it('resolves every local include and uses every repository entry', () => {
    const repo = grammar.repository ?? {};
    const used = new Set<string>();
    for (const r of allRules()) {
      if (r.include?.startsWith('#')) {
        const key = r.include.slice(1);
        expect(repo[key], `include ${r.include}`).toBeDefined();
        used.add(key);
      }
    }
    expect(Object.keys(repo).filter((k) => !used.has(k))).toEqual([]);
  });

  it('gives every begin an end and names scopes with the .croqtile suffix', () => {
    for (const r of allRules()) {
      if (r.begin !== undefined) expect(r.end, r.begin).toBeDefined();
      const names = [r.name, r.contentName];
      for (const caps of [r.captures, r.beginCaptures, r.endCaptures]) for (const c of Object.values(caps ?? {})) names.push(c.name);
      for (const n of names) {
        if (n === undefined) continue;
        // The __cok__ block hands its contents to C++ and reuses C++ scope names for its braces.
        expect(n.endsWith('.croqtile') || n.endsWith('.cpp'), n).toBe(true);
        expect(n.split('.')[0], n).toMatch(/^(comment|constant|entity|keyword|meta|punctuation|storage|string|support|variable)$/);
      }
    }
  });

  it('compiles every regex as a JavaScript RegExp (Oniguruma-only syntax is not used)', () => {
    const tm = new TmLite(grammar);
    let count = 0;
    for (const r of allRules()) {
      for (const src of [r.match, r.begin, r.end]) {
        if (src === undefined) continue;
        count++;
        tm.compile(src.replace(/\\(\d+)/g, 'x'));
      }
    }
    expect(count).toBeGreaterThan(60);
    // A few patterns that only Oniguruma can read would be tolerable; this grammar has none.
    expect(tm.failures.length, JSON.stringify(tm.failures)).toBeLessThanOrEqual(2);
    expect(tm.failures).toEqual([]);
    for (const r of allRules()) for (const src of [r.match, r.begin, r.end]) if (src) expect(src).not.toMatch(/\\G|\\A|\\z|\(\?>|\(\?i\)|[*+?}]\+/);
  });
});

// --- keywords -----------------------------------------------------------------------------------

/** The alphabetic keywords of the HEAD scanner's `<CO_FUNC>` state (lib/scanner.l), by expected scope. */
const KEYWORDS: Record<string, string[]> = {
  'storage.type': ['auto', 'mdspan', 'ituple', 'stream', 'event', 'frag', 'f64', 'f32', 'tf32', 'f16', 'bf16', 'f8', 'f8_e4m3', 'f8_e5m2', 'f8_ue4m3', 'f8_ue8m0', 'f6_e3m2', 'f6_e2m3', 'f4_e2m1', 'u64', 's64', 'u32', 's32', 'u16', 's16', 'u8', 's8', 'u6', 's6', 'u4', 's4', 'u2', 's2', 'bin1', 'u1', 'int', 'bool', 'half', 'bfp16', 'float', 'double', 'void'],
  'storage.modifier': ['local', 'shared', 'global', 'mutable', 'cooperative', 'volatile', 'goto'],
  'constant.language': ['term', 'device', 'cluster', 'block', 'group-4', 'group', 'thread', 'true', 'false', 'inf', 'nullptr'],
  'keyword.control': ['trigger', 'wait', 'after', 'sync', 'barrier', 'fence', 'if', 'else', 'inthreads', 'parallel', 'by', 'with', 'in', 'foreach', 'apply', 'return', 'where', 'while', 'break', 'vectorize', 'unroll', 'continue', 'yield'],
  'support.function': ['dma', 'tma', 'mma', 'swap', 'rotate', 'select', 'cdiv', 'print', 'println', 'assert', 'reduce_max', 'reduce_sum', 'all_reduce_sum', 'copy', '__bar_arrive', '__bar_sync', '__exp', '__atomic_cas', '__alignup', '__to', '__lib_fastexp'],
  'keyword.other': ['call', 'asm', '__asm__', '__cpp__', '__pragma_croq_intrinsic_prefix'],
};

describe('croqtile grammar: keywords inside __co__', () => {
  for (const [prefix, words] of Object.entries(KEYWORDS)) {
    it(`scopes ${prefix} keywords`, () => {
      for (const w of words) expectScope(`  x = ${w} y;`, w, prefix);
    });
  }

  it('does not treat keyword prefixes of identifiers as keywords', () => {
    const toks = lineScopes('  block_m = waits + triggered + f16x + group4 + parallelism;');
    for (const w of ['block_m', 'waits', 'triggered', 'f16x', 'group4', 'parallelism']) {
      const t = toks.find((x) => x.text.includes(w))!;
      expect(t.scopes[t.scopes.length - 1]!.startsWith('meta.'), w).toBe(true);
    }
  });

  it('scopes the function header: marker, return type, name, parameters, shapes', () => {
    const [header] = tokenizeDoc('__co__ s32 [6, cdiv(M, 2)] matmul(global f16 [M, K] lhs, s32 [K] rhs) {}');
    expect(scopeOf(header!, '__co__')).toBe('storage.modifier.co.croqtile');
    expect(scopeOf(header!, 'matmul')).toBe('entity.name.function.croqtile');
    expect(scopeOf(header!, 'cdiv')).toBe('support.function.builtin.croqtile');
    expect(scopeOf(header!, 'lhs')).toBe('variable.parameter.croqtile');
    expect(scopeOf(header!, 'rhs')).toBe('variable.parameter.croqtile');
    expect(scopeOf(header!, 'global')).toBe('storage.modifier.croqtile');
    expect(scopeOf(header!, 'M')).toBe('meta.shape.croqtile');
  });

  it('scopes the other markers', () => {
    const lines = tokenizeDoc('__cok__ {\n  int k() { return 1; }\n}\n__co_device__ int f(int x);');
    expect(scopeOf(lines[0]!, '__cok__')).toBe('storage.modifier.cok.croqtile');
    expect(lines[1]!.every((t) => t.scopes.includes('meta.block.cok.croqtile'))).toBe(true);
    expect(lines[1]!.some((t) => t.scopes.includes('meta.embedded.block.cpp'))).toBe(true);
    expect(scopeOf(lines[3]!, '__co_device__')).toBe('storage.modifier.device.croqtile');
  });
});

// --- sync and data movement -----------------------------------------------------------------------

describe('croqtile grammar: sync forms of all three eras', () => {
  it('HEAD: ready events, .at(order), trigger after', () => {
    const decl = lineScopes('    shared event<256> full[STAGES], empty[STAGES] = ready;');
    expect(scopeOf(decl, 'shared')).toBe('storage.modifier.croqtile');
    expect(scopeOf(decl, 'event')).toBe('storage.type.event.croqtile');
    expect(scopeOf(decl, '256')).toBe('constant.numeric.croqtile');
    expect(scopeOf(decl, 'full')).toBe('variable.other.event.croqtile');
    expect(scopeOf(decl, 'empty')).toBe('variable.other.event.croqtile');
    expect(scopeOf(decl, 'STAGES')).toBe('meta.shape.croqtile');
    expect(scopeOf(decl, 'ready')).toBe('constant.language.ready.croqtile');
    expect(decl.every((t) => !t.text.trim() || t.text === ';' || t.scopes.includes('meta.declaration.event.croqtile'))).toBe(true);

    expectScope('  wait empty.at(order);', 'wait', 'keyword.control.sync.wait');
    expectScope('  wait empty.at(order);', 'at', 'entity.name.function.member');
    expectScope('  trigger full.at(order++) after lf, rf;', 'trigger', 'keyword.control.sync.trigger');
    expectScope('  trigger full.at(order++) after lf, rf;', '++', 'keyword.operator.increment');
    expectScope('  trigger full.at(order++) after lf, rf;', 'after', 'keyword.control.sync.after');
    expectScope('  lf = tma.load.async.evict_first lhs.subspan(64, 64).at(m, iv) => lhs_s[slot];', 'evict_first', 'support.function.operation');
    expectScope('  lf = tma.load.async lhs => lhs_s[slot];', 'tma', 'support.function.tma');
    expectScope('  q = mma.row.row.async acc, a, b;', 'async', 'support.function.operation');
  });

  it('`ready` is only a keyword as an event initialiser', () => {
    expect(scopeOf(lineScopes('  trigger ready;'), 'ready')).toMatch(/^meta\./);
    expect(scopeOf(lineScopes('  shared event ready;'), 'ready')).toBe('variable.other.event.croqtile');
  });

  it('era A: bootstrap triggers, inline TMA event, mma.commit, trigger.cluster', () => {
    expectScope('  tma.copy.async<full[stage]>.swiz<128> src => dst;', 'tma', 'support.function.tma');
    expectScope('  tma.copy.async<full[stage]>.swiz<128> src => dst;', 'swiz', 'support.function.operation');
    expectScope('  tma.copy.async<full[stage]>.swiz<128> src => dst;', '128', 'constant.numeric');
    expectScope('  tma.copy.async<full[stage]>.swiz<128> src => dst;', '<', 'punctuation.definition.template.begin');
    expectScope('  tma.copy.async<full[stage]>.swiz<128> src => dst;', '=>', 'keyword.operator.transfer');
    expectScope('  mma.commit;', 'mma', 'support.function.mma');
    expectScope('  mma.commit;', 'commit', 'support.function.legacy');
    const cl = lineScopes('  trigger.cluster empty[stage];');
    expect(scopeOf(cl, 'trigger')).toBe('keyword.control.sync.trigger.croqtile');
    expect(scopeOf(cl, 'cluster')).toBe('keyword.control.sync.trigger.croqtile');
    expectScope('  foreach {s} in [STAGES] trigger empty[s];', 'foreach', 'keyword.control');
  });

  it('era B and removed HEAD guards still highlight', () => {
    expectScope('  mma.wait<1>;', 'wait', 'support.function.legacy');
    expectScope('  mma.wait<1>;', '1', 'constant.numeric');
    expectScope('  wait<0> full;', 'wait', 'keyword.control.sync.wait');
    expectScope('  slot = stage<2>(order);', 'stage', 'support.function.legacy');
    expectScope('  mma.row.row.order<0, 1, 2, 3> acc, a, b;', 'order', 'support.function.legacy');
    expectScope('  tma.store tile => output;', 'store', 'support.function.operation');
  });

  it('barriers, fences, roles', () => {
    for (const w of ['barrier', 'fence', 'shared']) expectScope(`  sync.${w} : block;`, w, 'keyword.control.sync');
    expectScope('  sync.barrier : group-4;', 'group-4', 'constant.language.level');
    expectScope('  sync.fence : block<shared>;', 'shared', 'storage.modifier');
    expectScope('  inthreads.async (p1 == 0 && t == 0) {', 'inthreads', 'keyword.control.parallel');
    expectScope('  inthreads.async (p1 == 0 && t == 0) {', 'async', 'keyword.control.parallel');
    expectScope('  parallel.async<s> p by 2 : block {', 'async', 'keyword.control.parallel');
    expectScope('  [[launch_bounds(256)]] [[maxnreg(40)]] parallel b by 1 : block<cooperative> {', 'launch_bounds', 'entity.other.attribute-name');
    expectScope('  [[schedule(k_tiles(3, 2, 1, 0))]]', 'k_tiles', 'entity.other.attribute-name');
  });

  it('futures: swap, rotate, select, dma.any, members and bound operators', () => {
    expectScope('  lf1 = dma.any;', 'any', 'support.function.operation');
    expectScope('  swap(lf0, lf1);', 'swap', 'support.function.builtin');
    expectScope('  x = lf0.data.at(qx, k) + rf0.mdata.at(k, qy);', 'data', 'variable.other.property');
    expectScope('  x = lf0.data.at(qx, k) + rf0.mdata.at(k, qy);', 'mdata', 'variable.other.property');
    expectScope('  output.at(px#qx, py#qy) += v #+ 1;', '#', 'keyword.operator.bound');
    expectScope('  output.at(px#qx, py#qy) += v #+ 1;', '#+', 'keyword.operator.bound');
    expectScope('  output.at(px#qx, py#qy) += v #+ 1;', '+=', 'keyword.operator.assignment');
    expectScope('  where a <-> b { }', '<->', 'keyword.operator.bind');
    expectScope('  f = dma.copy.async lhs.chunkat(px, k).subspan(4, 4).view(2, 2).from(0, 0).span_as([16]) => shared;', 'span_as', 'entity.name.function.member');
  });

  it('scopes every dotted token of the HEAD scanner', () => {
    const methods = ['map', 'remap', 'span', 'span_as', 'mdata', 'data', 'view', 'from', 'chunkat', 'chunk', 'subspan', 'modspan', 'sqz', 'step', 'stride', 'at'];
    for (const d of methods) {
      const scope = scopeOf(lineScopes(`  y = x.${d}(1);`), d);
      expect(scope, d).toMatch(/^(entity\.name\.function\.member|variable\.other\.property)\./);
    }
    const ops = ['copy', 'transp', 'pad', 'swizzle', 'swiz', 'sp', 'zfill', 'promote', 'multicast', 'evict_first', 'evict_last', 'any', 'async', 'fill', 'load', 'store', 'row', 'col', 'scale', 'mask'];
    for (const d of ops) {
      expect(scopeOf(lineScopes(`  dma.${d} a => b;`), d), `dma.${d}`).toBe('support.function.operation.croqtile');
      expect(scopeOf(lineScopes(`  y = x.${d};`), d), `x.${d}`).toBe('support.function.operation.croqtile');
    }
  });

  it('numbers, strings, comments, preprocessor lines', () => {
    const toks = lineScopes('  println!("x = }", 0x1Fu, 1.5e-3f, 0.0f, 10ll, 42); // trailing }');
    for (const n of ['0x1Fu', '1.5e-3f', '0.0f', '10ll', '42']) expect(scopeOf(toks, n), n).toBe('constant.numeric.croqtile');
    expect(scopeOf(toks, 'println!')).toBe('support.function.builtin.print.croqtile');
    expect(scopeOf(toks, 'x = }')).toBe('string.quoted.double.croqtile');
    expect(scopeOf(toks, '//')).toBe('punctuation.definition.comment.croqtile');
    expect(scopeOf(toks, 'trailing }')).toBe('comment.line.double-slash.croqtile');
    expectScope('  __cpp__(R"tag(int y = "}";)tag");', 'int y = "}";', 'string.quoted.raw');
    expectScope('#if STAGES > 2', 'if', 'keyword.control.directive');
    expectScope('#pragma region pipeline', 'pragma', 'keyword.control.directive');
  });

  it('continues a preprocessor line after a trailing backslash, and only then', () => {
    const lines = inCo('  #define ADD(a, b) \\\n    (a + b)\n  x = 1;');
    expect(lines[1]!.every((t) => t.scopes.includes('meta.preprocessor.croqtile'))).toBe(true);
    expect(lines[2]!.some((t) => t.scopes.includes('meta.preprocessor.croqtile'))).toBe(false);
  });
});

// --- whole documents ---------------------------------------------------------------------------------

const PIPELINE = `#include "choreo.h"
#define STAGES 2
int parallel_count = 0;
__co__ void matmul(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block {
    shared event full[STAGES], empty[STAGES];
    shared f16 [64, 128] lhs_s[STAGES];
    /* a block comment with a brace } inside
       spanning lines */
    parallel p1 by 2 : group-4 {
      inthreads.async (p1 == 0) {
        foreach {iv_k} in [cdiv(K, 128)] {
          stage = iv_k % STAGES;
          wait empty[stage];
          tma.copy.async<full[stage]>.swiz<128> lhs.subspan(64, 128).at(block_m, iv_k) => lhs_s[stage];
          trigger full[stage];
        }
      }
      inthreads.async (p1 == 1) {
        mc = mma.fill.f16 0.0f;
        foreach {s} in [STAGES]
          trigger empty[s];
        foreach {iv_k} in [cdiv(K, 128)] {
          stage = iv_k % STAGES;
          wait full[stage];
          mma.row.row mc, lhs_s[stage], lhs_s[stage];
          mma.commit;
          trigger empty[stage];
        }
        __cpp__("if (x) { y(); }");
      }
    }
  }
}
int main() { int parallel = 1; return parallel; }`;

describe('croqtile grammar: documents', () => {
  const lines = tokenizeDoc(PIPELINE);
  const text = PIPELINE.split('\n');
  const lineOf = (needle: string) => text.findIndex((l) => l.includes(needle));

  it('keeps host code outside __co__ functions unscoped by the DSL rules', () => {
    for (const i of [0, 1, 2, text.length - 1]) {
      for (const t of lines[i]!) expect(t.scopes, `${t.text} on line ${i + 1}`).toEqual(['source.croqtile']);
    }
  });

  it('scopes the body of the __co__ function, nested braces included, and closes it', () => {
    const first = lineOf('__co__');
    const last = text.length - 2;
    expect(text[last]).toBe('}');
    for (let i = first; i <= last; i++) {
      for (const t of lines[i]!) expect(t.scopes, `${t.text} on line ${i + 1}`).toContain('meta.function.croqtile');
    }
    const deepest = lines[lineOf('mma.commit')]!;
    // Function body, block-level parallel, group-4 parallel, consumer role, K loop.
    expect(deepest.find((t) => t.text === 'commit')!.scopes.filter((s) => s === 'meta.block.croqtile').length).toBe(5);
  });

  it('keeps braces inside comments and strings from closing blocks', () => {
    const comment = lines[lineOf('a block comment')]!;
    expect(comment.find((t) => t.text.includes('}'))!.scopes).toContain('comment.block.croqtile');
    const cpp = lines[lineOf('__cpp__')]!;
    expect(cpp.find((t) => t.text.includes('{ y(); }'))!.scopes).toContain('string.quoted.double.croqtile');
  });

  it('scopes the era-A pipeline statements', () => {
    expect(scopeOf(lines[lineOf('wait empty[stage]')]!, 'wait')).toBe('keyword.control.sync.wait.croqtile');
    expect(scopeOf(lines[lineOf('trigger empty[s];')]!, 'trigger')).toBe('keyword.control.sync.trigger.croqtile');
    expect(scopeOf(lines[lineOf('mma.commit')]!, 'commit')).toBe('support.function.legacy.croqtile');
    expect(scopeOf(lines[lineOf('group-4')]!, 'group-4')).toBe('constant.language.level.croqtile');
  });

  it('handles several functions, one-line bodies and an indented marker', () => {
    const doc = tokenizeDoc('__co__ void a() { parallel by 1 : thread {} }\n  __co__ auto b(s32 [4] x) { return x; }\nint c = 0;');
    expect(scopeOf(doc[0]!, 'parallel')).toBe('keyword.control.parallel.croqtile');
    expect(scopeOf(doc[1]!, '__co__')).toBe('storage.modifier.co.croqtile');
    expect(scopeOf(doc[1]!, 'b')).toBe('entity.name.function.croqtile');
    expect(doc[2]!.every((t) => t.scopes.length === 1)).toBe(true);
  });
});
