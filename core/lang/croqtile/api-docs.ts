// Hover documentation for the Croqtile DSL (`.co` files): every keyword, dotted operation and operator
// of the HEAD compiler's `__co__` scanner, plus the era-A/B sync forms that HEAD removed. Event and
// future entries spell out how each era lowers them, because that is where pipelines hang or race.
// Plain data plus three pure functions (lookup, rendering); all prose is written for this project.
import { syncChainHeads } from './sync-catalogue';

export interface CroqtileDoc {
  /** Canonical spelling: `dma.copy.async`, `trigger.cluster`, `.at`, `event<N>`, `group-4`, `#`. */
  keyword: string;
  /** Other spellings that resolve to this entry (other MMA layouts, `.mdata` for `.data`, …). */
  aliases?: string[];
  signature: string;
  /** One line. */
  summary: string;
  semantics: string;
  /** Event, phase and arrival rules, and the typical bug. */
  syncNotes?: string;
  /**
   * Sync-syntax era the form belongs to: A = tutorial era (to about May 2026), B = `mma.wait` era
   * (May to 2026-08-10), C = HEAD (since 2026-08-10). Absent when the form is not tied to an era.
   */
  era?: 'all' | 'A' | 'B' | 'C' | 'A-B';
  /** When the HEAD compiler stopped accepting it, and what replaces it. */
  removedIn?: string;
}

// --- shared wording -----------------------------------------------------------------------------

const ERA_A_EVENTS =
  'Era A (tutorial-era compilers, `--use-warpspec`): a `shared event` is a `cuda::barrier<thread_scope_block>` that one thread initialises with count `(blockDim.x - 128) + 1`, i.e. every consumer thread plus one producer thread. ' +
  '`trigger e[i]` lowers to `(void)e[i].arrive()` and `wait e[i]` to `e[i].wait(e[i].arrive())`: a wait also arrives. ' +
  'So each phase completes only when every participant has arrived exactly once, by triggering or by waiting; the producer must be a single thread (`inthreads.async (p == 0 && t == 0)`) or be elected by the compiler.';

const HEAD_EVENTS =
  'HEAD: a `shared event` is one mbarrier per slot. Its arrival count is, first match wins: the explicit `event<N>`; 1 (plus the transaction bytes) for an event bound with `trigger ... after` a TMA load; for `trigger.cluster`, one arrival per consumer warpgroup of every CTA in the cluster; otherwise the number of threads that execute a `trigger` of it. ' +
  '`wait` does not arrive: it spins on the parity of the generation it waits for. Generation 0 is pending unless the declarator says `= ready`.';

const HEAD_LEGACY_INDEX =
  'In HEAD, `e[i]` is plain slot indexing: the wait parity is derived from the innermost enclosing `foreach` variable `iv` as `(iv / N) & 1` (flipped for `= ready`), so `e[i]` is only phase-correct when `i == iv % N` of that innermost loop. Prefer `e.at(order)`.';

const BOOTSTRAP =
  'Events start pending, so a ring whose producer waits on `empty` needs one credit per slot before the loop (a bootstrap): either the consumer runs `foreach {s} in [S] trigger empty[s];` (era A, still legal), or (HEAD) the ring is declared `= ready`. Doing both gives every slot two credits and skews the phases.';

// --- the table ----------------------------------------------------------------------------------

export const CROQTILE_DOCS: CroqtileDoc[] = [
  // ---------------------------------------------------------------------------------------------
  // Program structure
  // ---------------------------------------------------------------------------------------------
  {
    keyword: '__co__',
    signature: '__co__ <return type> name(<storage> <type> [dims] param, ...) { ... }',
    summary: 'Marks a Croqtile DSL ("tileflow") function inside a C++ translation unit.',
    semantics:
      'Everything outside `__co__` functions is host C++ and passes through unchanged. The return type may be `void`, `auto` or a shaped type such as `s32 [6, 17, 128]`; parameters are shaped tensors like `global f16 [M, K] lhs`, whose symbolic dimensions become names in the body. ' +
      '`__co__` functions cannot call each other. Inside one, the outermost `parallel` is the kernel launch; code outside it runs on the host.',
    era: 'all',
  },
  {
    keyword: '__co_device__',
    aliases: ['__device__'],
    signature: '__co_device__ <type> name(params) { ... }',
    summary: 'A device function written in the target language, callable from a `__co__` function with `call`.',
    semantics: 'The scanner buffers the whole function and hands it to the target compiler; the DSL only records its signature so that `call name(...)` can be checked.',
    era: 'all',
  },
  {
    keyword: '__cok__',
    aliases: ['__real_cok__'],
    signature: '__cok__ { <device code> }',
    summary: 'A block of separate-source device code (for example CUDA) emitted next to the generated kernels.',
    semantics: 'The body is copied verbatim into the device source; it is not parsed as DSL. Functions defined in it can be reached with `call`.',
    era: 'all',
  },
  {
    keyword: '__cpp__',
    signature: '__cpp__("<C++ statement>");',
    summary: 'Inline C++ inside a `__co__` body, emitted verbatim at that point.',
    semantics: 'The string (a normal or raw string literal) is pasted into the generated code. The compiler does not look inside it, so any synchronisation it performs is invisible to event and liveness analysis.',
    era: 'all',
  },
  {
    keyword: 'asm',
    aliases: ['__asm__', 'volatile', 'goto'],
    signature: 'asm volatile("ptx" : outputs : inputs : clobbers);',
    summary: 'GNU-style extended inline assembly inside a `__co__` body.',
    semantics: 'Operands follow the C/C++ extended-asm rules (`%0`, `%[name]`, constraint strings, clobbers). `volatile` keeps the statement from being moved or removed.',
    era: 'all',
  },
  {
    keyword: 'call',
    signature: 'call name(args);\ncall name<T>(args);',
    summary: 'Calls a device function (`__co_device__`, `__device__` or one from a `__cok__` block).',
    semantics: 'Arguments may be scalars, spanned data (passed as pointers) or `nullptr`. Template arguments are passed through to the target language.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // Storage, types
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'shared',
    signature: 'shared f16 [64, 32] tile;\nshared event full[4];\nf = dma.copy.async src => shared;',
    summary: 'Storage qualifier for memory shared by the threads of one block (CUDA shared memory).',
    semantics:
      'Declares block-shared buffers and events. As the destination of a DMA it allocates a fresh shared buffer that the future owns (`f.data`). ' +
      'A shared buffer declared inside a `parallel` body is still one buffer per block on the GPU targets.',
    syncNotes: 'A `shared event` is the only event kind that lowers to a hardware barrier (an mbarrier, or a named barrier for simple one-slot handoffs).',
    era: 'all',
  },
  {
    keyword: 'local',
    signature: 'local f32 [16] acc;\nlocal event le[2];',
    summary: 'Storage qualifier for per-thread memory (registers or local memory).',
    semantics: 'Each thread owns its copy. As a DMA destination it allocates a per-thread buffer.',
    syncNotes: 'A `local event` is a plain boolean flag: `trigger` sets it, `wait` spins until it is set and clears it. Two triggers before one wait collapse into one, and two waiters on one flag can deadlock.',
    era: 'all',
  },
  {
    keyword: 'global',
    signature: '__co__ void f(global f16 [M, K] x) { ... }',
    summary: 'Storage qualifier for device (global) memory; the usual qualifier of `__co__` parameters.',
    semantics: 'Global buffers are visible to every block. A `global event` may only be declared on the host side of a `__co__` function and behaves like a boolean flag.',
    era: 'all',
  },
  {
    keyword: 'mutable',
    signature: 'mutable u32 order = 0;',
    summary: 'Declares a scalar that may be reassigned (DSL scalars are otherwise single-assignment).',
    semantics: 'Used for counters carried across iterations, such as a pipeline order passed to `.at(order++)`.',
    syncNotes: 'A mutable order that keeps counting across an outer (persistent) loop keeps `.at(order)` phase-correct; restarting it at 0 for every tile is only safe when the per-tile trip count is a multiple of `2 * N`.',
    era: 'all',
  },
  {
    keyword: 'f32',
    aliases: ['f64', 'tf32', 'f16', 'bf16', 'f8', 'f8_e4m3', 'f8_e5m2', 'f8_ue4m3', 'f8_ue8m0', 'f6_e3m2', 'f6_e2m3', 'f4_e2m1', 'half', 'bfp16', 'float', 'double'],
    signature: 'f16 [M, K] x;   // element type + shape',
    summary: 'Floating-point element types: f64, f32, tf32, f16, bf16, the FP8 (e4m3, e5m2, ue4m3, ue8m0), FP6 and FP4 formats.',
    semantics: '`f8` means `f8_e4m3`; `half`, `bfp16`, `float` and `double` are C-style spellings of f16, bf16, f32 and f64. A type followed by `[dims]` declares spanned data.',
    era: 'all',
  },
  {
    keyword: 's32',
    aliases: ['s64', 'u64', 'u32', 'u16', 's16', 'u8', 's8', 'u6', 's6', 'u4', 's4', 'u2', 's2', 'u1', 'bin1', 'int', 'bool'],
    signature: 's32 [N] idx;\nint n = 4;',
    summary: 'Integer element types (signed `sN`, unsigned `uN`, 1-bit `bin1`/`u1`) plus `int` and `bool` scalars.',
    semantics: '`int` is a 32-bit signed integer for program control. Mixed arithmetic promotes narrower to wider types and integers to floating point.',
    era: 'all',
  },
  {
    keyword: 'auto',
    aliases: ['void'],
    signature: '__co__ auto f(...) { ...; return out; }',
    summary: 'Return types of a `__co__` function: `auto` infers it from `return`, `void` returns nothing.',
    semantics: 'Inside a body, `auto` may also introduce a scalar whose type is inferred.',
    era: 'all',
  },
  {
    keyword: 'mdspan',
    signature: 'mdspan<2> sp : [M, K];',
    summary: 'A named shape (list of extents), optionally rank-checked.',
    semantics: 'Shapes support element access `sp(0)`, element-wise arithmetic, concatenation `[sp, 6]` and `|sp|` (element count). `x.span` gives the shape of spanned data.',
    era: 'all',
  },
  {
    keyword: 'ituple',
    signature: 'ituple<3> t = {a, b, c};',
    summary: 'A named tuple of integers, written `{...}`.',
    semantics: 'Supports element access `t(0)`, concatenation and element-wise arithmetic; `parallel {x, y} by [...]` binds one.',
    era: 'all',
  },
  {
    keyword: 'frag',
    signature: 'frag f32 [64] acc;\nfrag.f32 acc {0.0f};',
    summary: 'Declares an MMA register fragment (accumulator or operand) explicitly.',
    semantics: 'Usually fragments are created by `mma.fill` and `mma.load`; `frag` is the explicit declaration form.',
    era: 'all',
  },
  {
    keyword: 'stream',
    signature: 'stream s;\nparallel.async<s> p by N : block { ... }',
    summary: 'A host-side stream handle for non-blocking kernel launches.',
    semantics: '`parallel.async<s>` launches the kernel on stream `s` and returns immediately.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // Events
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'event',
    signature: 'shared event e;\nshared event full[S], empty[S];\nlocal event le[2][2];',
    summary: 'Declares a synchronisation event (or an array of them) that one path triggers and others wait on.',
    semantics:
      'An event publishes readiness between asynchronous paths, typically the producer and consumer `inthreads.async` roles. Storage is `shared`, `local` or `global`; the `shared` kind is the hardware barrier. ' +
      'Events may not be declared inside an `inthreads` block. A trigger of an event that is never waited anywhere is a compile error ("some asyncs are not explicitly waited").',
    syncNotes: `${ERA_A_EVENTS} ${HEAD_EVENTS} ${BOOTSTRAP}`,
    era: 'all',
  },
  {
    keyword: 'event<N>',
    signature: 'shared event<256> full[4], empty[4];',
    summary: 'An event with an explicit arrival count N.',
    semantics: 'N replaces the count the compiler would compute from the triggering scopes. If it differs from the computed participation the compiler warns ("explicit thread count N but computed participation ... is M").',
    syncNotes:
      'HEAD: each phase completes after exactly N arrivals; every thread that executes a `trigger` of the event is one arrival, so N must equal the number of triggering threads per phase, or the phase completes early (race) or never (hang).',
    era: 'all',
  },
  {
    keyword: 'ready',
    aliases: ['= ready'],
    signature: 'shared event full[2], empty[2] = ready;',
    summary: 'Declares an event whose generation 0 is already complete (HEAD).',
    semantics: '`= ready` applies to the declarator it follows only: above, `empty` is ready and `full` is pending. Any other initialiser is an error ("event initializer must be \'ready\'").',
    syncNotes:
      'Lowered by flipping the wait parity (`^ 1`), so the first `wait empty.at(0)` passes at once: this replaces the consumer bootstrap loop. A ready event that also gets a bootstrap `trigger` receives two credits per slot and its phases drift.',
    era: 'C',
  },
  {
    keyword: 'wait',
    signature: 'wait f;\nwait lhs_f, rhs_f;\nwait full[stage];\nwait full.at(order);',
    summary: 'Blocks the current path until futures complete or the selected event generation is ready.',
    semantics:
      'Targets may be futures (async DMA/TMA/MMA), events, `e[i]` (a physical slot) or `e.at(order)` (a cyclic generation). Waiting a synchronous future is an error, and each dynamic future instance may be waited or bound once; use an event when several paths need one completion. ' +
      'A completed wait advances that path to the next generation of the event; the event is not consumed.',
    syncNotes: `${ERA_A_EVENTS} Missing bootstrap in era A: the producer's first \`wait empty[0]\` never returns. ${HEAD_EVENTS} ${HEAD_LEGACY_INDEX} A scalar shared event keeps a per-thread phase bit that flips after every wait.`,
    era: 'all',
  },
  {
    keyword: 'trigger',
    signature: 'trigger e;\ntrigger empty[stage];\ntrigger full.at(order++);\ntrigger full.at(iv) after lf, rf;',
    summary: 'Publishes readiness of one or more events (arrives on them).',
    semantics:
      'Without `after`, readiness is published at that point; it does not stand for the completion of an earlier async operation unless that operation was already waited. Triggering a whole array arrives on every slot. ' +
      'Triggering (or waiting) an event array or element outside any `inthreads` block draws a warning.',
    syncNotes: `${ERA_A_EVENTS} In era A, a \`trigger full[s]\` right after \`tma.copy.async<full[s]>\` became \`arrive_and_expect_tx\` of the bytes just issued. ${HEAD_EVENTS} Every thread of the triggering scope arrives, which is why the computed count is the number of triggering threads. ${BOOTSTRAP}`,
    era: 'all',
  },
  {
    keyword: 'trigger.cluster',
    signature: 'trigger.cluster empty[stage];\ntrigger.cluster e after f;',
    summary: 'Arrives on the event in every CTA of the thread-block cluster.',
    semantics: 'Only the `cluster` scope is accepted after `trigger.` ("only \'cluster\' scope is supported for trigger."). One elected thread loops over the CTAs of the cluster and arrives remotely on each copy of the event.',
    syncNotes:
      'HEAD: a cluster-triggered event is initialised with one arrival per consumer warpgroup of each CTA times the cluster size, `(blockDim.x / 128 - 1) * cluster_dim`. Era A used a raw mbarrier with a per-slot phase array. Cluster waits that time out only print a warning instead of trapping.',
    era: 'all',
  },
  {
    keyword: 'after',
    signature: 'trigger e after f1, f2;\ng = dma.copy.async src => dst after f;',
    summary: 'Binds a trigger to async completions, or orders one DMA after another.',
    semantics:
      '`trigger e after f...` (HEAD) hands the native completion of the listed futures to the event without waiting: only global-to-shared TMA loads qualify (not `dma.copy.async`, MMA futures, TMA stores, or a future already waited), only one event may be named, and an incremented order (`.at(o++)`) cannot be shared by several dependencies. ' +
      'On a DMA statement, `after f` adds an operation-to-operation ordering edge and publishes nothing.',
    syncNotes:
      'HEAD lowering: the trigger emits no code of its own; each bound TMA load does `arrive_and_expect_tx(bytes)` (the first) or `expect_transaction` (the others) on the event and passes the mbarrier to the TMA instruction, so the event is initialised with count 1 plus transaction bytes. Several consumers must then wait on the event, not on the future.',
    era: 'all',
  },
  {
    keyword: '.at',
    signature: 'wait full.at(order);\ntrigger empty.at(order++);\nx = a.at(i, j);\nt = a.subspan(64, 32).at(bm, bk);',
    summary: 'Selects a cyclic event generation (`e.at(order)`), an element, or a tile.',
    semantics:
      'On spanned data, `a.at(i, j)` is element access and `.subspan(...).at(coords)` picks the tile at those coordinates. ' +
      'On a one-dimensional event array `e[N]`, `.at(order)` selects slot `order % N` and phase `(order / N) & 1`. The argument must be an integer; `.at(order++)` uses the value before the increment for both slot and phase and advances it once.',
    syncNotes:
      'The order may grow monotonically or be kept modulo `2 * N` (for example `(order + 1) & 3` for `e[2]`); reducing it modulo `N` (`e.at(order % N)`) loses the phase and hangs or races. With `= ready` the parity is flipped. ' +
      'An order that restarts at 0 in every iteration of an outer loop is only correct if each inner trip count is a multiple of `2 * N`. `e[i]` is not the same thing: it is a physical slot with a loop-derived parity. ' +
      'The event form `e.at(order)` exists in HEAD compilers only (since 2026-08-10); data `.at` is older.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // Parallelism and control flow
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'parallel',
    signature: 'parallel p by N : block { ... }\nparallel {x, y} by [a, b] : block { ... }\nparallel g by 2 : group-4, t by 128 : thread { ... }',
    summary: 'SPMD region: runs the body once per index, at a parallel level (block, group-4, group, thread, ...).',
    semantics:
      'The outermost `parallel` of a `__co__` function is the kernel launch; nested ones subdivide the block into warpgroups, warps or threads. The index variable is bounded (`#p` is its extent). ' +
      'Attributes `[[launch_bounds(..)]]` and `[[maxnreg(n)]]` may precede it; `: block<cooperative>` requests a cooperative launch; `: device(name)` targets a device.',
    syncNotes: 'Event arrival counts and the number of warpgroups come from these extents: `parallel p by 3 : group-4` always has 3 warpgroups, so role predicates and `event<N>` counts must agree with it.',
    era: 'all',
  },
  {
    keyword: 'parallel.async',
    signature: 'parallel.async<s> p by N : block { ... }',
    summary: 'Launches the kernel without blocking the host, optionally on stream `s`.',
    semantics: 'Only the outermost level may be asynchronous ("inner parallel-by level can not be asynchronous").',
    era: 'all',
  },
  {
    keyword: 'by',
    signature: 'parallel p by 6 { ... }',
    summary: 'Gives the extent of a `parallel` index.',
    semantics: 'A scalar for one index, or `[a, b]` for an ituple `{x, y}`. Several clauses separated by commas nest.',
    era: 'all',
  },
  {
    keyword: 'inthreads',
    signature: 'inthreads (pred) { ... }',
    summary: 'Divergent sub-block: only threads where `pred` holds run the body; all threads sync afterwards.',
    semantics: 'The predicate must depend only on parallel indices ("strictly divergent"). An implicit synchronisation follows the block. Events may not be declared inside it.',
    era: 'all',
  },
  {
    keyword: 'inthreads.async',
    signature: 'inthreads.async (p == 0) { /* producer */ }\ninthreads.async (p == 1) { /* consumer */ }',
    summary: 'Warp-specialised role region: runs on the matching threads with no implicit sync afterwards.',
    semantics:
      'Each `inthreads.async` block is an independent program (a role) with its own control flow. Only the outermost `inthreads` may be async ("inner inthreads can not be declared as async"). Roles communicate only through events.',
    syncNotes:
      'Roles run concurrently, so every cross-role dependency needs an event: a producer waits `empty` and triggers `full`, a consumer waits `full` and triggers `empty`. Without events or an explicit barrier the roles race. ' +
      'Producer and consumer must run the same number of iterations over a ring, or the last stages are never consumed or never released.',
    era: 'all',
  },
  {
    keyword: 'foreach',
    signature: 'foreach {iv} in [cdiv(K, TILE_K)] { ... }\nforeach i in 4 { ... }\nforeach tile_k(1:) { ... }\nforeach y(1:-1:2) : unroll(4) { ... }',
    summary: 'Sequential loop over a bounded variable or a range.',
    semantics:
      '`foreach x` walks a bounded variable declared by `with`; `foreach {iv} in [n]` declares and walks one; `x(start:end:step)` slices the range (negative ends count from the extent). `: unroll(n)` asks for unrolling.',
    syncNotes: 'In HEAD the innermost enclosing `foreach` variable also sets the parity of a legacy `wait e[i]` / `trigger e[i]`, as `(iv / N) & 1`.',
    era: 'all',
  },
  {
    keyword: 'in',
    signature: 'foreach {iv} in [n] { ... }\nwith x in 128 { ... }',
    summary: 'Introduces the extent of a `foreach`, `with` or `apply` variable.',
    semantics: 'The extent is a scalar or a bracketed list for several variables.',
    era: 'all',
  },
  {
    keyword: 'with',
    signature: 'with tile_k in 16 { ... }\nwith idx = {x, y} in [17, 4] { ... }',
    summary: 'Opens a scope with bounded variables.',
    semantics: 'Bound variables are used by `foreach`, `.chunkat` and `#x` (the extent of x).',
    era: 'all',
  },
  {
    keyword: 'where',
    signature: 'where a <-> b { ... }',
    summary: 'Binds bounded variables to each other for the enclosed statements.',
    semantics: 'Each `a <-> b` pair states that the two variables walk together.',
    era: 'all',
  },
  {
    keyword: '<->',
    signature: 'where x <-> z { ... }',
    summary: 'Binding operator of a `where` clause.',
    semantics: 'Pairs two bounded variables so that they take the same values.',
    era: 'all',
  },
  {
    keyword: 'if',
    aliases: ['else'],
    signature: 'if (cond) { ... } else { ... }',
    summary: 'Predicated execution.',
    semantics: 'Works like C. A condition that depends on data rather than on parallel indices makes event counts data-dependent.',
    syncNotes: 'A `trigger` under an `if` that not every iteration takes leaves the phase short of arrivals: the waiter hangs.',
    era: 'all',
  },
  {
    keyword: 'while',
    signature: 'while (cond) { ... }\nwhile (e) { ... }',
    summary: 'Loop while a condition (or an event) holds.',
    semantics: 'The condition may be an event; any other non-boolean is an error ("requires an event predication expression").',
    era: 'all',
  },
  {
    keyword: 'break',
    aliases: ['continue'],
    signature: 'break;\ncontinue;',
    summary: 'Leaves the innermost loop, or skips to its next iteration.',
    semantics: 'Works as in C, on `foreach` and `while` loops.',
    syncNotes: 'Leaving a ring loop early skips the remaining triggers, so the other role waits forever.',
    era: 'all',
  },
  {
    keyword: 'return',
    signature: 'return out;',
    summary: 'Returns from the `__co__` function (host side).',
    semantics: 'Returning a future or a placeholder is not supported.',
    era: 'all',
  },
  {
    keyword: 'yield',
    signature: 'yield;',
    summary: 'Early return from device code.',
    semantics: 'Ends the current path immediately. The compiler performs no compile-time or run-time checks for it.',
    syncNotes: 'A path that yields while it still owes triggers leaves the other roles waiting forever.',
    era: 'all',
  },
  {
    keyword: 'unroll',
    aliases: ['vectorize'],
    signature: 'foreach {i} in [64] : unroll(4) { ... }',
    summary: 'Loop hints: unroll by a factor, or vectorise.',
    semantics: 'Hints do not change the result. `trigger` is not supported inside a vectorised loop.',
    era: 'all',
  },
  {
    keyword: 'apply',
    signature: 'apply {i, j} in acc.span { ... }',
    summary: 'Element-wise loop over the logical indices of a fragment.',
    semantics: 'Each owner thread visits the elements it holds; used for softmax-style updates of MMA accumulators.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // Levels
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'block',
    signature: 'parallel b by N : block { ... }\nsync.barrier : block;',
    summary: 'Parallel level: a thread block (CTA).',
    semantics: 'The usual level of the outermost `parallel`. `block<cooperative>` requests a cooperative launch.',
    syncNotes: '`sync.barrier : block` is a CTA barrier (`__syncthreads()`), or a grid barrier inside `block<cooperative>`.',
    era: 'all',
  },
  {
    keyword: 'group-4',
    signature: 'parallel g by 2 : group-4 { ... }',
    summary: 'Parallel level: a warpgroup (four warps, 128 threads).',
    semantics: 'The unit of Hopper WGMMA and of warp-specialised roles; needs an architecture that has warpgroups (sm_90+).',
    syncNotes: 'Under warp specialisation the default arrival count assumes one producer warpgroup: `blockDim.x - 128`.',
    era: 'all',
  },
  {
    keyword: 'group',
    signature: 'parallel w by 4 : group { ... }',
    summary: 'Parallel level: a warp (32 threads).',
    semantics: '`sync.barrier : group` lowers to a warp barrier.',
    era: 'all',
  },
  {
    keyword: 'thread',
    signature: 'parallel t by 128 : thread { ... }',
    summary: 'Parallel level: a single thread.',
    semantics: '`sync.barrier : thread` lowers to a warp barrier on CUDA.',
    era: 'all',
  },
  {
    keyword: 'cluster',
    signature: 'parallel c by [4] : cluster { ... }\ntrigger.cluster e;',
    summary: 'Parallel level: a thread-block cluster (sm_90+).',
    semantics: 'Blocks of one cluster can multicast TMA loads (`.multicast`) and arrive on each other\'s events (`trigger.cluster`).',
    era: 'all',
  },
  {
    keyword: 'device',
    signature: 'parallel p by N : device(name) { ... }\nsync.barrier : device;',
    summary: 'Parallel level: the whole device (grid).',
    semantics: '`sync.barrier : device` is only accepted inside `parallel ... : block<cooperative>`.',
    era: 'all',
  },
  {
    keyword: 'term',
    signature: 'parallel p by N : term { ... }',
    summary: 'Parallel level: the terminal (innermost) level of a target.',
    semantics: 'A target-defined leaf level; most CUDA kernels use `thread` instead.',
    era: 'all',
  },
  {
    keyword: 'cooperative',
    signature: 'parallel b by N : block<cooperative> { ... }',
    summary: 'Requests a cooperative kernel launch, which guarantees that all blocks are resident at once.',
    semantics: 'Required for grid-wide barriers (`sync.barrier : device`, or `: block` inside the cooperative scope). The host stub uses the cooperative launch API.',
    era: 'all',
  },
  {
    keyword: 'launch_bounds',
    aliases: ['maxnreg'],
    signature: '[[launch_bounds(256)]] [[maxnreg(40)]] parallel b by N : block { ... }',
    summary: 'Launch attributes of a `parallel` region: launch bounds and a register cap.',
    semantics: 'Passed to the target compiler as `__launch_bounds__` / `__maxnreg__`.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // Barriers and fences
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'sync.barrier',
    signature: 'sync.barrier : block;\nsync.barrier : group-4;\nsync.barrier : device;',
    summary: 'Execution barrier among the threads of the named level.',
    semantics:
      'On CUDA, `: thread` and `: group` lower to `__syncwarp()` and `: block` to `__syncthreads()` (a grid barrier inside `block<cooperative>`); `: device` needs an enclosing `parallel ... : block<cooperative>`. ' +
      'A level larger than the enclosing `parallel` level draws "the barrier may have no effect". Added on 2026-07-31 as the replacement for `sync.shared`.',
    syncNotes: 'Every thread of the level must reach the barrier: inside one `inthreads.async` role, a block-level barrier deadlocks because the other roles never arrive.',
  },
  {
    keyword: 'sync.fence',
    signature: 'sync.fence : block;\nsync.fence : block<shared>;',
    summary: 'Memory fence with the visibility of the named level, optionally limited to one storage.',
    semantics: 'On CUDA, thread/group/group-4 fences lower to `__threadfence_block()`, block/device fences to `__threadfence()`. A fence orders memory only; it does not make anyone wait.',
  },
  {
    keyword: 'sync.shared',
    aliases: ['sync.global', 'sync.local'],
    signature: 'sync.shared;',
    summary: 'Legacy block synchronisation (deprecated: use `sync.barrier` or `sync.fence`).',
    semantics:
      '`sync.shared` lowers to `__syncthreads()`; `sync.global` to a host-side `cudaDeviceSynchronize()`. Since 2026-07-31 the compiler warns "\'sync.<storage>\' is deprecated".',
    syncNotes: 'Between `inthreads.async` roles it is the only ordering point besides events; without it (or an event) the roles race.',
    era: 'all',
  },
  {
    keyword: '__bar_arrive',
    aliases: ['__bar_sync'],
    signature: '__bar_arrive(id, nthreads);\n__bar_sync(id, nthreads);',
    summary: 'Raw PTX named barriers (`bar.arrive` / `bar.sync`), an escape hatch.',
    semantics: 'The caller picks the id and thread count. Id 15 is reserved for the compiler\'s internal warpgroup sync, and ids used here are removed from the pool the compiler uses for named-barrier events.',
    syncNotes: 'All participants must agree on the count; `bar.arrive` does not wait, `bar.sync` arrives and waits.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // Data movement and futures
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'dma',
    signature: 'dma.copy src => dst;\nf = dma.copy.async src => shared;\nf = dma.any;',
    summary: 'Generic data-movement engine: copies between storages (cp.async or plain copies on CUDA).',
    semantics: 'Operations: `.copy`, `.pad<...>`, `.transp<...>`, `.any`; modifiers `.async`, `.swiz<N>`, `.zfill`, `.promote<N>`, `.sp`.',
    era: 'all',
  },
  {
    keyword: 'tma',
    signature: 'tma.copy src => dst;\nf = tma.load.async src => shared;',
    summary: 'Hopper Tensor Memory Accelerator transfers (sm_90+).',
    semantics: 'Operations: `.copy` (either direction), `.load` (global to shared, HEAD), `.any`; modifiers `.async`, `.swiz<N>`, `.multicast`, `.evict_first` / `.evict_last` (on `tma.load` only).',
    era: 'all',
  },
  {
    keyword: 'dma.copy',
    signature: '[f =] dma.copy src => dst;\nf = dma.copy src => shared;',
    summary: 'Synchronous copy: when the statement ends, the data is in `dst`.',
    semantics: 'The destination is a view or a storage keyword (`shared`, `local`), which allocates a buffer owned by the future (`f.data`). Waiting a synchronous future is an error.',
    era: 'all',
  },
  {
    keyword: 'dma.copy.async',
    signature: 'f = dma.copy.async src => dst;\nf = dma.copy.async src => shared after g;',
    summary: 'Asynchronous copy that returns a future at once; `wait f` before reading the data.',
    semantics:
      'The future must be named, and every async copy must be waited somewhere ("some asyncs are not explicitly waited"). On CUDA only global-to-shared is allowed; it becomes `cp.async` plus a fence, and `wait f` becomes `cp_async_wait<k>` where k is the number of younger copies that may stay in flight (at most 5), followed by a block or named-barrier sync.',
    syncNotes: 'It cannot be bound to an event with `trigger ... after` (no native completion event): wait it, then trigger. Reading `f.data` before `wait f` races with the copy.',
    era: 'all',
  },
  {
    keyword: 'dma.any',
    aliases: ['tma.any'],
    signature: 'f1 = dma.any;',
    summary: 'Placeholder data future for A/B buffering, to be overwritten and swapped later.',
    semantics: 'It stands for no transfer: it exists so that `swap`/`rotate` have a partner on the first iteration. A placeholder that is never used is an error, and another variable may not be initialised from a placeholder.',
    syncNotes: 'Before any `wait` or `.data` use, a real copy must have been assigned to it.',
    era: 'all',
  },
  {
    keyword: 'dma.pad',
    signature: 'dma.pad<{low...}, {high...}, {mid...}, value> src => dst;',
    summary: 'Copy that pads each dimension with a constant.',
    semantics: 'The three lists give low, high and interior padding per dimension; the last argument is the fill value.',
    era: 'all',
  },
  {
    keyword: 'dma.transp',
    signature: 'dma.transp<1, 0> src => dst;',
    summary: 'Copy that permutes dimensions.',
    semantics: 'The template list is the permutation of source dimensions.',
    era: 'all',
  },
  {
    keyword: 'tma.copy',
    signature: 'tma.copy[.swiz<N>][.multicast] src => dst;',
    summary: 'Synchronous TMA transfer (global to shared, or shared to global).',
    semantics: 'The statement completes when the data has arrived. `.multicast` delivers one load to every CTA of the cluster.',
    era: 'all',
  },
  {
    keyword: 'tma.copy.async',
    signature: 'f = tma.copy.async src => dst;',
    summary: 'Asynchronous TMA transfer returning a future.',
    semantics: 'The future owns a TMA mbarrier of its own: `wait f` waits its parity and flips it.',
    syncNotes: 'HEAD: a global-to-shared async TMA future can instead be bound to an event with `trigger e after f`. A shared-to-global one cannot (no mbarrier completion).',
    era: 'all',
  },
  {
    keyword: 'tma.copy.async<ev>',
    aliases: ['dma.copy.async<ev>', 'tma.copy.async<ev[i]>'],
    signature: 'tma.copy.async<full[stage]>.swiz<128> src => dst;\ntrigger full[stage];',
    summary: 'Era A/B: TMA copy whose completion is tied inline to an event.',
    semantics: 'The named event became the TMA mbarrier. HEAD rejects the form with a syntax error.',
    syncNotes:
      'The `trigger full[stage]` that followed in the same scope lowered to `arrive_and_expect_tx(bytes of the TMA copies just issued)`, executed by one thread; consumers waiting `full[stage]` then saw the data. Omitting that trigger left the transaction count unbalanced and the consumer hung. HEAD spelling: `f = tma.load.async src => dst; trigger full.at(iv) after f;`.',
    era: 'A-B',
    removedIn: 'HEAD, 2026-08-10 (compiler 86e6947): use `trigger e after f`',
  },
  {
    keyword: 'tma.load',
    signature: 'tma.load src => shared;',
    summary: 'Synchronous global-to-shared TMA load (HEAD).',
    semantics: '`.load` is TMA-only and global to shared. It is the only TMA operation that takes `.evict_first` / `.evict_last`.',
    era: 'C',
  },
  {
    keyword: 'tma.load.async',
    signature: 'f = tma.load.async[.evict_first] src => dst;\ntrigger full.at(iv) after f;',
    summary: 'Asynchronous global-to-shared TMA load returning a data future (HEAD).',
    semantics: 'Either `wait f` locally, or publish it with `trigger e after f` so that other roles can wait on the event.',
    syncNotes: 'Bound with `trigger e after f`, the load arrives on `e` with its byte count; the event is initialised with count 1 plus bytes, so nothing else may trigger it.',
    era: 'C',
  },
  {
    keyword: 'tma.store',
    signature: 'tma.store tile => output;',
    summary: 'Removed spelling of a shared-to-global TMA store.',
    semantics: 'HEAD rejects it with a syntax error; write `tma.copy tile => output;`.',
    removedIn: 'HEAD, 2026-08-10: not accepted; use `tma.copy`',
  },
  {
    keyword: '.swiz',
    aliases: ['.swizzle'],
    signature: 'tma.copy.swiz<128> src => dst;\nma = mma.load.swiz<64> buf;',
    summary: 'Swizzled shared-memory layout of 32, 64 or 128 bytes.',
    semantics: 'Must match between the copy that writes a buffer and the MMA load that reads it. Any other value is an error.',
    era: 'all',
  },
  {
    keyword: '.multicast',
        signature: 'tma.copy.multicast.swiz<128> src => dst;',
    summary: 'Delivers one TMA load to every CTA of the cluster.',
    semantics: 'Each receiving CTA must expect the bytes on its own barrier.',
    era: 'all',
  },
  {
    keyword: '.evict_first',
    aliases: ['.evict_last'],
    signature: 'f = tma.load.async.evict_first src => shared;',
    summary: 'L2 eviction hint of a TMA load (HEAD).',
    semantics: 'Only valid on `tma.load`, at most one, and before `.swiz`.',
    era: 'C',
  },
  {
    keyword: '.zfill',
    signature: 'f = dma.copy.async.zfill src => shared;',
    summary: 'Fills out-of-bounds elements with zeros instead of skipping them.',
    semantics: 'Used for partial edge tiles.',
    era: 'all',
  },
  {
    keyword: '.promote',
    signature: 'tma.copy.promote<128> src => dst;',
    summary: 'L2 promotion size hint (64, 128 or 256 bytes).',
    semantics: 'Other sizes are an error.',
    era: 'all',
  },
  {
    keyword: '.sp',
    signature: 'dma.copy.sp<2:4> src => dst;\nmma.row.row.sp acc, a, b, meta;',
    summary: 'Structured-sparsity variant of a copy or an MMA.',
    semantics: 'For copies, `<n:m>` gives the sparsity pattern; for MMA, the extra operand is the metadata fragment.',
    era: 'all',
  },
  {
    keyword: '=>',
    signature: 'dma.copy src => dst;',
    summary: 'Direction of a DMA/TMA transfer: source on the left, destination on the right.',
    semantics: 'The destination may be a view, a `select(...)`, or a storage keyword that allocates a new buffer.',
    era: 'all',
  },
  {
    keyword: 'swap',
    signature: 'swap(f0, f1);\nswap f0, f1;',
    summary: 'Exchanges two future handles (names), not the bytes behind them.',
    semantics: 'Both futures must have the same type and be declared in the same scope; exactly two arguments. The double-buffer idiom issues the next copy into `f1`, waits and computes on `f0`, then swaps.',
    syncNotes: 'A swap does not wait: after it, the handle that was just issued is the one that still needs `wait` before its data is read (including in the epilogue after the loop).',
    era: 'all',
  },
  {
    keyword: 'rotate',
    signature: 'rotate(f0, f1, f2);',
    summary: 'Cycles three or more future handles by one position.',
    semantics: 'The multi-buffer generalisation of `swap`; needs at least two arguments of the same type.',
    era: 'all',
  },
  {
    keyword: 'select',
    signature: 'x = select(k, f0, f1, ...);',
    summary: 'Picks one of several futures or buffers by index at run time.',
    semantics: 'All arms must have the same type; a constant index out of range is a compile error, a dynamic one is checked at run time.',
    era: 'all',
  },
  {
    keyword: '.data',
    aliases: ['.mdata'],
    signature: 'f.data\nf.data.at(i, j)',
    summary: 'The destination data of a data future (`.mdata`: its multi-dimensional form).',
    semantics: 'Available immediately for a synchronous copy and after `wait` for an async one. Operation futures (async MMA) have no `.data`.',
    syncNotes: 'Reading `.data` of an async future before it was waited is a race.',
    era: 'all',
  },
  {
    keyword: '.span',
    signature: 'x.span\nx.span(0)\nf32 [input.span] out;',
    summary: 'The shape (mdspan) of spanned data or of a data future\'s destination.',
    semantics: '`x.span(i)` is one extent; `|x.span|` is the element count.',
    era: 'all',
  },
  {
    keyword: '.chunkat',
    signature: 'a.chunkat(p, k)',
    summary: 'Tile of `a` selected by bounded variables, partitioning evenly by their extents.',
    semantics: '`a.chunkat(p, k)` equals `a.chunk({#p, #k}).at({p, k})`; `_` keeps a dimension whole.',
    era: 'all',
  },
  {
    keyword: '.chunk',
    signature: 'a.chunk({4, 8}).at(i, j)',
    summary: 'Splits data into the given number of chunks per dimension; `.at` picks one.',
    semantics: 'The explicit form behind `.chunkat`.',
    era: 'all',
  },
  {
    keyword: '.subspan',
    aliases: ['.modspan'],
    signature: 'a.subspan(64, 32).at(bm, bk)\na.subspan(64, 32).step(128, 32).at(i, j)',
    summary: 'Fixed-size tiles chosen by anchor coordinates.',
    semantics: '`.at(coords)` picks the tile; `.step(...)` spaces tiles apart; `.modspan` wraps coordinates modulo the extent.',
    era: 'all',
  },
  {
    keyword: '.view',
    aliases: ['.from'],
    signature: 'a.view(16, 16 : ld, 1).from(r, c)',
    summary: 'Explicit window with optional strides, starting at an offset.',
    semantics: 'The most general view: it does not assume even partitioning, so it fits sliding windows and irregular access.',
    era: 'all',
  },
  {
    keyword: '.span_as',
    signature: 'a.span_as([16, 9, 36])',
    summary: 'Reinterprets data with another shape of the same element count.',
    semantics: 'No data moves; only the shape changes.',
    era: 'all',
  },
  {
    keyword: '.step',
    aliases: ['.stride'],
    signature: 'a.subspan(m, k).step(sm, sk).at(i, j)',
    summary: '`.step`: spacing between tiles of a subspan; `.stride`: memory strides of a view.',
    semantics: 'Step is about which tiles are chosen; stride is about how elements are laid out.',
    era: 'all',
  },
  {
    keyword: '.sqz',
    signature: 'head = a.subspan(1, S, D).at(b, 0, 0).sqz();',
    summary: 'Drops dimensions of extent 1.',
    semantics: 'Only the shape changes.',
    era: 'all',
  },
  {
    keyword: '.map',
    aliases: ['.remap'],
    signature: 'm = src.map<local>(offset, size);\nm = src.remap<local>(offset, size);',
    summary: 'Zero-copy mapping of a dense global range into local memory (targets with mapping hardware).',
    semantics: '`.remap` re-points an existing mapping of the same source. The source must be contiguous.',
    era: 'all',
  },
  {
    keyword: '#',
    aliases: ['#+', '#-', '#*', '#/', '#%'],
    signature: '#tile_k\npx # qx\na #+ b',
    summary: 'Bound operators: `#x` is the extent of bounded variable x; `a # b` composes indices.',
    semantics: '`px # qx` composes an outer and an inner bounded variable into one whose value is `px * #qx + qx` and whose bound is `#px * #qx` (not commutative). `#+ #- #* #/ #%` derive a bounded value whose upper bound is adjusted by the operation: `q #- 1` has bound `#q - 1`.',
    era: 'all',
  },
  {
    keyword: 'cdiv',
    signature: 'cdiv(a, b)',
    summary: 'Ceiling division: the number of `b`-sized tiles needed to cover `a`.',
    semantics: 'Usual in `parallel ... by [cdiv(M, TILE_M), ...]` and `foreach {iv} in [cdiv(K, TILE_K)]`.',
    syncNotes: 'Producer and consumer loops over one ring must use the same `cdiv(K, TILE_K)` bound.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // MMA
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'mma',
    signature: 'acc = mma.fill.f32 0.0f;\nmma.row.row acc, a, b;\nmma.store acc, dst;',
    summary: 'Matrix multiply-accumulate operations (WMMA/WGMMA on CUDA).',
    semantics: 'Operations: `.fill`, `.load`, `.row.row` / `.row.col` / `.col.row` / `.col.col` (optionally `.async`, `.sp`, `.scale`), `.store`, `.scale`.',
    era: 'all',
  },
  {
    keyword: 'mma.fill',
    signature: 'acc = mma.fill[.f32] 0.0f;\nmma.fill acc, 0.0f;',
    summary: 'Creates (or re-initialises) an accumulator fragment filled with a value.',
    semantics: 'The optional type suffix picks the accumulator precision.',
    era: 'all',
  },
  {
    keyword: 'mma.load',
    aliases: ['mma.load.frag', 'mma.load.async'],
    signature: 'a = mma.load[.frag][.swiz<N>][.async] buf.chunkat(...);',
    summary: 'Loads an MMA operand fragment from memory.',
    semantics: 'Warpgroup MMA can also read shared operands directly (`mma.row.row acc, lhs_s, rhs_s`), without a load.',
    era: 'all',
  },
  {
    keyword: 'mma.row.row',
    aliases: ['mma.row.col', 'mma.col.row', 'mma.col.col', 'mma.row.row.sp', 'mma.row.row.scale'],
    signature: 'mma.row.row acc, a, b;\nmma.row.col.sp acc, a, b, meta;\nmma.row.row.scale acc, a, b, sa, sb;',
    summary: 'Issues acc += a * b; the two words give the layouts of A and B (row- or column-major).',
    semantics: 'Operands may be fragments or shared buffers. `.sp` is the sparse form, `.scale` the block-scaled form. `[[schedule(k_tiles(...))]]` may fix the order of the K tiles.',
    syncNotes:
      'HEAD: every plain MMA is followed by an automatic `warpgroup_commit_batch(); warpgroup_wait<0>();`, so the operands are free again once the statement ends. ' +
      'Era A: a warp-specialised consumer got no such wait per iteration; `mma.commit` had to precede the `trigger empty[...]` that released the operand stage.',
    era: 'all',
  },
  {
    keyword: 'mma.row.row.async',
    aliases: ['mma.row.col.async', 'mma.col.row.async', 'mma.col.col.async'],
    signature: 'q = mma.row.row.async acc, a, b;\nwait q;\ntrigger k_empty;',
    summary: 'Issues a WGMMA without waiting and returns an operation future (HEAD).',
    semantics:
      'The accumulator (not the future) holds the result; the future has no `.data`. `wait q` lowers to `warpgroup_wait<depth>`, where depth is the number of younger MMA futures in the same scope, so a later MMA can stay in flight.',
    syncNotes:
      'WGMMA has no completion event, so `trigger e after q` is rejected: write `wait q; trigger e;`. Releasing an operand stage (`trigger empty...`) before `wait q` lets the producer overwrite data the MMA still reads.',
    era: 'C',
  },
  {
    keyword: 'mma.store',
    aliases: ['mma.store.transp', 'mma.store.mask'],
    signature: 'mma.store acc, dst;\nmma.store.transp acc, dst;\nmma.store.mask acc, dst, rows[, cols];',
    summary: 'Writes an accumulator fragment to memory.',
    semantics: '`.transp` stores transposed, `.mask` stores only the valid rows/columns of an edge tile.',
    syncNotes: 'Era A: if no `mma.commit` had been seen, the store first finalised the outstanding WGMMA batch.',
    era: 'all',
  },
  {
    keyword: 'mma.store.async',
    signature: 'mma.store.async acc, dst;',
    summary: 'Accumulator store that does not wait for completion (HEAD).',
    semantics: 'Used in epilogues that overlap the store with the next tile.',
    era: 'C',
  },
  {
    keyword: 'mma.scale',
    signature: 'mma.scale acc, scales, s;',
    summary: 'Applies per-block scale factors to an accumulator.',
    semantics: 'Used by block-scaled FP8 GEMMs between K blocks.',
    era: 'all',
  },
  {
    keyword: 'mma.commit',
    signature: 'mma.commit;',
    summary: 'Era A: completes the WGMMAs issued so far before a stage may be reused.',
    semantics: 'Lowered to `warpgroup_commit_batch(); warpgroup_wait<0>();`. HEAD rejects it with a syntax error and inserts the commit/wait itself.',
    syncNotes:
      'Order in an era-A consumer: `wait full[s]` → MMAs → `mma.commit` → `trigger empty[s]`. Without the commit, the trigger could release a shared stage while WGMMA was still reading it, and the producer overwrote the operands: silent corruption, not a hang. ' +
      'Triggering `empty` before the commit ("early empty signalling") is only safe when the released stage is not read by the uncommitted MMAs.',
    era: 'A',
    removedIn: 'era B, 2026-07-02 (compiler 47d5588): the compiler inserts the commit/wait',
  },
  {
    keyword: 'mma.wait<N>',
    signature: 'mma.wait<1>;',
    summary: 'Era B: waits until at most N WGMMA batches are still in flight (N in [0, 7]).',
    semantics: 'A depth larger than the enclosing loop extent was an error. HEAD removed it: the wait depth is derived from `wait q` on MMA futures.',
    syncNotes: 'With N > 0 the most recent N batches may still read their operands, so only stages used by older batches may be released.',
    era: 'B',
    removedIn: 'HEAD, 2026-08-10 (compiler 86e6947): use `q = mma.row.row.async ...; wait q;`',
  },
  {
    keyword: 'mma.row.row.order<...>',
    aliases: ['mma.row.col.order<...>', 'mma.col.row.order<...>', 'mma.col.col.order<...>'],
    signature: 'mma.row.row.order<0, 1, 2, 3> acc, a, b;',
    summary: 'Rejected spelling of a WGMMA K-tile issue order.',
    semantics: 'HEAD rejects it with a syntax error; write `[[schedule(k_tiles(0, 1, 2, 3))]] mma.row.row acc, a, b;`.',
    removedIn: 'HEAD, 2026-08-10: not accepted; use `[[schedule(k_tiles(...))]]`',
  },
  {
    keyword: 'schedule',
    aliases: ['k_tiles'],
    signature: '[[schedule(k_tiles(3, 2, 1, 0))]]\nmma.row.row acc, a, b;',
    summary: 'Sets the issue order of the K tiles of an auto-split WGMMA (HEAD).',
    semantics: 'Applies only to an MMA execution statement; the list must be a permutation of the K tiles.',
    era: 'C',
  },
  {
    keyword: 'reduce_sum',
    aliases: ['reduce_max', 'all_reduce_sum', 'copy'],
    signature: 'reduce_sum(row_sum, scores, 1);\nreduce_max(row_max, scores, 1);\nall_reduce_sum(row_sum);\ncopy(dst_frag, src_frag);',
    summary: 'Fragment reductions along a dimension, a replicated all-reduce, and fragment copy.',
    semantics: 'The participating width comes from the fragment layout; no lane mask or shuffle width is written in source.',
    era: 'all',
  },

  // ---------------------------------------------------------------------------------------------
  // Removed pipeline forms, diagnostics helpers
  // ---------------------------------------------------------------------------------------------
  {
    keyword: 'wait<N>',
    signature: 'wait<0> full;',
    summary: 'Rejected spelling of a wait on an explicit phase.',
    semantics: 'HEAD rejects it with a syntax error: the phase comes from `e.at(order)`.',
    removedIn: 'HEAD, 2026-08-10: not accepted; use `wait e.at(order)`',
  },
  {
    keyword: 'stage<N>',
    signature: 'slot = stage<2>(order);',
    summary: 'Rejected stage helper for pipeline orders.',
    semantics: 'HEAD lexes it only to report a syntax error: use `order % N` for the data slot and `e.at(order)` for the event.',
    removedIn: 'HEAD, 2026-08-10: not accepted; use `order % N` and `.at(order)`',
  },
  {
    keyword: 'println',
    aliases: ['print', 'println!', 'print!'],
    signature: 'println("x = ", x);\nprintln!("M + 10: ", M + 10);',
    summary: 'Prints values at run time; the `!` forms print at compile time.',
    semantics: 'Device prints run on every thread that reaches them, so guard them (one tile, one thread) when debugging pipelines.',
    era: 'all',
  },
  {
    keyword: 'assert',
    signature: 'assert(cond, "message");',
    summary: 'Checked at compile time when the condition is static, at run time otherwise.',
    semantics: 'Run-time checks follow the `--runtime-check` level.',
    era: 'all',
  },
];

// --- lookup -------------------------------------------------------------------------------------

/**
 * Words that start a dotted or templated form; only after these is `nextChars` read as part of the word. The heads
 * of the synchronisation constructs (`dma`, `tma`, `mma`, `trigger`, `sync`, `event`) come from the sync catalogue.
 */
const CHAIN_HEADS = new Set(['parallel', 'inthreads', 'wait', 'stage', ...syncChainHeads()]);

/** Dotted modifiers that refine an operation without changing which entry documents it. */
const MODIFIERS = new Set([
  'swiz', 'swizzle', 'multicast', 'evict_first', 'evict_last', 'zfill', 'promote', 'sp', 'frag', 'scale', 'mask', 'transp',
  'f64', 'f32', 'tf32', 'f16', 'bf16', 'f8', 'f8_e4m3', 'f8_e5m2', 'f8_ue4m3', 'f8_ue8m0', 'f6_e3m2', 'f6_e2m3', 'f4_e2m1',
  's32', 'u32', 's16', 'u16', 's8', 'u8',
]);

/** Removes whitespace and reduces every template argument list after a name to `<>`. */
function normalizeKey(spelling: string): string {
  let out = '';
  let depth = 0;
  const s = spelling.replace(/\s+/g, '');
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (depth > 0) {
      if (ch === '<') depth++;
      else if (ch === '>') depth--;
      if (depth === 0) out += '>';
      continue;
    }
    // A `<` opens template arguments only right after a name and only when it is closed later.
    if (ch === '<' && /\w$/.test(out) && s.indexOf('>', i) > i) {
      out += '<';
      depth = 1;
      continue;
    }
    out += ch;
  }
  return depth > 0 ? out + '>' : out;
}

const byKey = new Map<string, CroqtileDoc>();
for (const doc of CROQTILE_DOCS) {
  for (const spelling of [doc.keyword, ...(doc.aliases ?? [])]) {
    const key = normalizeKey(spelling);
    if (!byKey.has(key)) byKey.set(key, doc);
  }
}

/**
 * The dotted/templated continuation at the start of `nextChars`: `.copy.async`, `<256>`, `.swiz<128>`.
 * A template list cut off by the end of `nextChars` (`.async<full_barri`) is closed, so a short
 * look-ahead still finds the templated entry.
 */
function continuation(nextChars: string): string {
  const m = /^(?:\s*<[^<>;]*(?:>|$))?(?:\s*\.\s*[A-Za-z_]\w*(?:\s*<[^<>;]*(?:>|$))?)*/.exec(nextChars);
  const text = m ? m[0] : '';
  return text.lastIndexOf('<') > text.lastIndexOf('>') ? text + '>' : text;
}

/** Splits `tma.copy.async<full[s]>.swiz<128>` into `['tma', 'copy', 'async<>', 'swiz<>']`. */
function segments(chain: string): string[] {
  return normalizeKey(chain).split('.');
}

function stripTemplate(segment: string): string {
  return segment.replace(/<>$/, '');
}

/** Candidate keys for a chain, most specific first. */
function chainCandidates(segs: string[]): string[] {
  const plain = segs.map(stripTemplate);
  const keep = (s: string, i: number) => i < 2 || !MODIFIERS.has(stripTemplate(s));
  const forms = [segs, segs.filter(keep), plain, plain.filter(keep)];
  const out: string[] = [];
  const add = (k: string) => {
    if (k && !out.includes(k)) out.push(k);
  };
  for (const f of forms) add(f.join('.'));
  for (const f of forms) for (let n = f.length - 1; n >= 1; n--) add(f.slice(0, n).join('.'));
  return out;
}

/**
 * Finds the doc for a Croqtile token under the cursor.
 *
 * `word` is the token as written; for dotted forms pass the whole chain from its head
 * (`dma.copy.async`, `tma.copy.async<full[s]>.swiz<128>`, `trigger.cluster`, `full.at`, `.at`).
 * `nextChars` is the source text right after `word`; when `word` is the head of a dotted form
 * (`dma`, `mma`, `trigger`, `event`, …) the dotted/templated continuation is read from it, so
 * `findCroqtileDoc('dma', '.copy.async lhs => shared')` finds `dma.copy.async`.
 * The most specific entry wins: `mma.row.row.async` over `mma.row.row`, `tma.copy.async<ev>` over `tma.copy.async`.
 */
export function findCroqtileDoc(word: string, nextChars?: string): CroqtileDoc | undefined {
  let text = word.trim();
  if (!text) return undefined;

  // `#` followed by an arithmetic operator is one token (`#+`); so is `group-4` when split at the dash.
  if (text === '#' && nextChars && /^[+\-*/%]/.test(nextChars)) text += nextChars[0];
  if (text === 'group' && nextChars && /^-4(?!\w)/.test(nextChars)) text = 'group-4';

  const direct = byKey.get(normalizeKey(text));
  const head = /^[A-Za-z_]\w*/.exec(text)?.[0];

  if (head && CHAIN_HEADS.has(head)) {
    const full = nextChars ? text + continuation(nextChars) : text;
    for (const key of chainCandidates(segments(full))) {
      const doc = byKey.get(key);
      if (doc) return doc;
    }
    return direct;
  }
  if (direct) return direct;

  // `full.at`, `lf0.data`, `.chunkat`: the last known member of a dotted chain.
  if (text.includes('.')) {
    const segs = segments(text);
    for (let i = segs.length - 1; i >= 1; i--) {
      const doc = byKey.get('.' + stripTemplate(segs[i]!));
      if (doc) return doc;
    }
    return undefined;
  }

  // A bare method name written as a call: `chunkat(` / `swiz<`.
  if (nextChars && /^\s*[(<]/.test(nextChars)) return byKey.get('.' + text);
  return undefined;
}

// --- rendering ----------------------------------------------------------------------------------

const ERA_LABEL: Record<NonNullable<CroqtileDoc['era']>, string> = {
  all: 'all compiler versions',
  A: 'era A (tutorial-era compilers, to about May 2026)',
  B: 'era B (`mma.wait` era, May to August 2026)',
  C: 'HEAD compilers (since 2026-08-10)',
  'A-B': 'eras A and B (compilers before 2026-08-10)',
};

/** Markdown for a hover: signature block, summary, semantics, sync notes, era or removal note. */
export function renderCroqtileDoc(d: CroqtileDoc): string {
  const parts = ['```croqtile\n' + d.signature + '\n```', d.summary, d.semantics];
  if (d.syncNotes) parts.push(`**Synchronization:** ${d.syncNotes}`);
  if (d.removedIn) {
    const era = d.era ? ` Accepted by ${ERA_LABEL[d.era]}.` : '';
    parts.push(`**Removed:** ${d.removedIn}.${era}`);
  } else if (d.era && d.era !== 'all') {
    parts.push(`_Available in ${ERA_LABEL[d.era]}._`);
  }
  return parts.join('\n\n');
}
