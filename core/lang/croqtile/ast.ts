// Croqtile syntax tree: what the error-tolerant parser produces for a `.co` file. Host C++ outside
// `__co__` functions is kept only as opaque spans. Every node carries a span of source offsets
// (UTF-16 code units into the original text); `toRange` in ./positions.ts turns spans into ranges.

export interface Span {
  start: number;
  end: number;
}

export type CoExpr =
  | { kind: 'num'; value: number; text: string; span: Span }
  | { kind: 'string'; text: string; span: Span }
  | { kind: 'id'; name: string; span: Span }
  /** `a op b`, including `#` composition (`px#qx`) and the `#+ #- #* #/ #%` forms. */
  | { kind: 'binary'; op: string; left: CoExpr; right: CoExpr; span: Span }
  /** Prefix `- ! ~ #` (`#x` is the extent of bounded variable x) and postfix `++`/`--` (op `post++`). */
  | { kind: 'unary'; op: string; arg: CoExpr; span: Span }
  | { kind: 'cond'; test: CoExpr; then: CoExpr; else: CoExpr; span: Span }
  /** Free call: `cdiv(a, b)`, `select(k, f0, f1)`, `swap(a, b)`, `__alignup(x, 16)`, `call f<T>(...)`. */
  | { kind: 'call'; callee: string; typeArgs?: string[]; args: CoExpr[]; span: Span }
  /** `obj.name` without arguments: `f.data`, `lhs.span`, `e.any` is not this (see dma). */
  | { kind: 'member'; object: CoExpr; name: string; span: Span }
  /** `obj.name(args)` / `obj.name<targs>(args)`: `.chunkat(..)`, `.subspan(..)`, `.at(order)`, `.at(order++)`. */
  | { kind: 'method'; object: CoExpr; name: string; typeArgs?: string[]; args: CoExpr[]; span: Span }
  /** `a[i]`, `a[i, j]`, `e[stage]`. */
  | { kind: 'index'; object: CoExpr; indices: CoExpr[]; span: Span }
  /** `{a, b}` lists and `[a, b]` extents used as values. */
  | { kind: 'list'; items: CoExpr[]; span: Span }
  /**
   * A data-movement operation: `dma.copy[.async] src => dst [after f, g]`, `tma.copy.async<ev>.swiz<128> src => dst`
   * (era A inline event in `event`), `tma.load[.async] g => s`, `dma.any` / `tma.any` (placeholders),
   * `dma.pad<...> ...`, `dma.transp<...> ...`. `dst` may be a storage keyword (`shared`, `local`).
   */
  | {
      kind: 'dma';
      engine: 'dma' | 'tma';
      /** `copy`, `load`, `store`, `any`, `pad`, `transp`, … */
      op: string;
      async: boolean;
      /** Other dotted modifiers and their template args, e.g. `swiz<128>`, `multicast`, `evict_first`. */
      modifiers: string[];
      /** Era A: the event in `tma.copy.async<full[stage]>`. */
      event?: CoExpr;
      src?: CoExpr;
      dst?: CoExpr;
      after: CoExpr[];
      span: Span;
    }
  /**
   * An MMA operation: `mma.fill[.f16] 0.0f`, `mma.load[.swiz<N>] buf`, `mma.row.row acc, a, b`,
   * `mma.row.row.async acc, a, b`, `mma.store acc, dst`, era A `mma.commit`, era B `mma.wait<N>`.
   */
  | { kind: 'mma'; op: string; modifiers: string[]; typeArgs?: string[]; async: boolean; args: CoExpr[]; span: Span }
  /** Anything the parser recognised as an expression but does not model (kept verbatim). */
  | { kind: 'opaque'; text: string; span: Span };

export interface EventDeclarator {
  name: string;
  /** Array extents, e.g. `[STAGES]`; empty for a scalar event. */
  dims: CoExpr[];
  /** `= ready`. */
  ready: boolean;
  span: Span;
  nameSpan: Span;
}

export type CoStmt =
  /**
   * `parallel p by N : level { }`, `parallel {x, y} by [a, b] : block`, `parallel.async ...`;
   * `parallel p by 2 : group-4, t by 128 : thread { }` nests the second clause inside the first.
   */
  | { kind: 'parallel'; vars: string[]; extents: CoExpr[]; level?: string; async: boolean; attributes: string[]; body: CoStmt[]; span: Span }
  /** `inthreads (pred) stmt` / `inthreads.async (pred) stmt`. */
  | { kind: 'inthreads'; async: boolean; cond: CoExpr; body: CoStmt[]; span: Span }
  /**
   * `foreach x {}` (x a bounded variable), `foreach x(1:)`, `foreach y(1:-1:2)`, `foreach {iv} in [cdiv(K, T)]`,
   * `foreach i in 4`, `foreach a, b in [2, 3]`. `ranges[i]` gives the slice of `vars[i]` when written.
   */
  | {
      kind: 'foreach';
      vars: string[];
      extents: CoExpr[];
      ranges: ({ start?: CoExpr; end?: CoExpr; step?: CoExpr } | undefined)[];
      attributes: string[];
      body: CoStmt[];
      span: Span;
    }
  /** `with tile_k in 16 { }`, `with idx = {x, y} in [17, 4] { }`. */
  | { kind: 'with'; vars: string[]; extents: CoExpr[]; body: CoStmt[]; span: Span }
  | { kind: 'while'; cond: CoExpr; body: CoStmt[]; span: Span }
  | { kind: 'if'; cond: CoExpr; then: CoStmt[]; else: CoStmt[]; span: Span }
  /** `shared event full[S], empty[S] = ready;`, `shared event<256> e[4];`, `local event le;`. */
  | { kind: 'event-decl'; storage: 'shared' | 'local' | 'global'; count?: CoExpr; items: EventDeclarator[]; span: Span }
  /**
   * Variable or buffer declaration: `shared f16 [WARP_M, TILE_K] lhs_s[STAGES];`, `mutable u32 order = 0;`,
   * `frag f32[64] x;`, `s32 [a, b] out;`. `init` is the initialiser when present.
   */
  | { kind: 'decl'; storage?: string; type: string; shape: CoExpr[]; names: { name: string; dims: CoExpr[]; span: Span }[]; init?: CoExpr; mutable: boolean; span: Span }
  /** `x = e;`, `f = dma.copy.async ...;`, `stage = iv % S;`, `acc += ...;`, `a.at(i) += b;` (target may be any lvalue). */
  | { kind: 'assign'; target: CoExpr; op: string; value: CoExpr; span: Span }
  /** `wait a, b;` — futures, events, `e[i]`, `e.at(order)`. */
  | { kind: 'wait'; targets: CoExpr[]; span: Span }
  /** `trigger e;`, `trigger e[i], f;`, `trigger.cluster e[i];`, `trigger e.at(o) after f, g;`. */
  | { kind: 'trigger'; targets: CoExpr[]; cluster: boolean; after: CoExpr[]; span: Span }
  /** `sync.shared;`, `sync.barrier : block;`, `sync.fence : block<shared>;`. */
  | { kind: 'sync'; what: string; level?: string; span: Span }
  /** Any expression statement: `dma.copy ...;`, `mma.row.row c, a, b;`, `swap(a, b);`, `println(...)`. */
  | { kind: 'expr'; expr: CoExpr; span: Span }
  | { kind: 'return'; value?: CoExpr; span: Span }
  | { kind: 'break' | 'continue' | 'yield'; span: Span }
  | { kind: 'block'; body: CoStmt[]; span: Span }
  /** Inline C++/asm inside a `__co__` body (`__cpp__("...")`, `asm volatile(...)`), kept verbatim. */
  | { kind: 'opaque'; text: string; span: Span };

export interface CoParam {
  name: string;
  /** e.g. `global f16` / `s32`. */
  type: string;
  /** Symbolic or constant dims `[M, K]`. */
  dims: CoExpr[];
  span: Span;
}

export interface CoFunction {
  name: string;
  returnType: string;
  params: CoParam[];
  body: CoStmt[];
  span: Span;
  nameSpan: Span;
}

export interface CoSyntaxError {
  message: string;
  span: Span;
}

export interface CoFile {
  functions: CoFunction[];
  /** Object-like `#define NAME value` after preprocessing, in order; last definition wins. */
  defines: Map<string, string>;
  errors: CoSyntaxError[];
}
