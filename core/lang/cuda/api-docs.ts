// Hover documentation for every barrier API Phaseflip recognises: cuda::barrier and cuda::device,
// cuda::ptx, the __mbarrier_* primitives, raw PTX mnemonics inside asm strings, CTA/warp/cluster
// sync, and the CUTLASS/CuTe, ThunderKittens and DeepGEMM wrappers. Plain data only; lookup and
// rendering live in lookup.ts. All prose is written for this project.

export type ApiSurface =
  | 'cuda::barrier'
  | 'cuda::device'
  | 'cuda::ptx'
  | 'primitives'
  | 'ptx'
  | 'sync'
  | 'cutlass'
  | 'thunderkittens'
  | 'deepgemm'
  | 'cooperative_groups'
  /** CUDA's vector helpers, paired half-precision arithmetic and timers (no barrier effect). */
  | 'intrinsics';

export interface ApiDoc {
  /** Stable id, unique across the table (e.g. `ptx.mbarrier.try_wait.parity`). */
  id: string;
  surface: ApiSurface;
  /**
   * Every spelling that should hit, exactly as written at a call site after template arguments are
   * removed: unqualified and qualified C++ names, or PTX mnemonics for `ptx` entries. Methods list
   * their class-qualified names (`cuda::barrier::arrive`) and set `member`.
   */
  names: string[];
  /** Called as `obj.name(...)` / `ptr->name(...)`; found through `findMemberDoc`. */
  member?: boolean;
  /** For `ptx` entries: the base mnemonic, without state-space, type or ordering qualifiers. */
  ptx?: string;
  signature: string;
  /** One line. */
  summary: string;
  /** What it does to the barrier state (arrivals, tx-count, phase), in plain words. */
  semantics: string;
  /** Phase, parity and token rules the caller must follow, and the typical bug. */
  phaseRules?: string;
  /** Whether it counts against the mbarrier's expected arrival count. Undefined: not an mbarrier operation. */
  arrives?: boolean;
  /** Ids of related entries. */
  seeAlso?: string[];
}

// Shared wording for the parity rule, which many entries need.
const PARITY_RULE =
  "Pass the parity of the phase you are waiting *for*: 0 for the first completion after init, then flip it after every successful wait. " +
  "On a freshly initialised barrier, parity 1 succeeds at once (phase 0 is still running, so the 'previous' phase counts as done); this is why producers waiting on 'empty' barriers start at 1. " +
  "Parity is one bit: a waiter that falls two phases behind cannot tell, and either passes early or hangs.";

const TOKEN_RULE =
  "The token must come from an arrive on the same barrier and be used while the barrier is in that phase or the one right after it; anything older, or a token from another barrier, is undefined.";

export const API_DOCS: ApiDoc[] = [
  // ---------------------------------------------------------------------------------------------
  // cuda::barrier (libcu++)
  // ---------------------------------------------------------------------------------------------
  {
    id: 'cuda.barrier',
    surface: 'cuda::barrier',
    names: ['cuda::barrier'],
    signature: `template <cuda::thread_scope Scope,
          class CompletionFunction = /* no-op */>
class cuda::barrier;`,
    summary: "Split arrive/wait barrier; with block scope in shared memory it is a hardware mbarrier.",
    semantics:
      "Keeps an expected count, a pending count and a phase. Each arrival lowers the pending count; when it hits zero (and, for a hardware barrier, the tx-count is zero too) the phase completes: the completion function runs once, the pending count reloads from the expected count and the phase advances. " +
      "Only `cuda::barrier<cuda::thread_scope_block>` with the default completion function, placed in `__shared__` memory, is a hardware mbarrier with a tx-count; every other combination is a software barrier with the same arrive/wait rules.",
    phaseRules:
      "A `__shared__` barrier is never constructed: one thread calls `init(&bar, n)` and the block syncs before anyone else uses it. Waits take the token from the same barrier's `arrive()`.",
    seeAlso: ['cuda.barrier.init', 'cuda.barrier.arrive', 'cuda.barrier.wait', 'cuda.device.barrier_arrive_tx'],
  },
  {
    id: 'cuda.barrier.init',
    surface: 'cuda::barrier',
    names: ['init', 'cuda::barrier::init'],
    signature: `void init(cuda::barrier<Scope, CompletionFunction>* bar,
          std::ptrdiff_t expected,
          CompletionFunction completion = CompletionFunction());`,
    summary: "Friend function that initialises a barrier in place; the only way to set up a `__shared__` cuda::barrier.",
    semantics:
      "Sets the expected and pending counts to `expected` and the phase to 0 (for a hardware barrier this is `mbarrier.init`). It does not synchronise, so other threads may still see the old memory.",
    phaseRules:
      "Call it from exactly one thread, then `__syncthreads()` / `block.sync()` before any thread arrives or waits. Running it again on a barrier in use resets it mid-phase and loses arrivals. For a hardware barrier `expected` must be 1 to 2^20 − 1.",
    seeAlso: ['cuda.barrier', 'sync.__syncthreads', 'cuda.barrier.ctor'],
  },
  {
    id: 'cuda.barrier.ctor',
    surface: 'cuda::barrier',
    names: ['cuda::barrier::barrier', 'cuda::std::barrier::barrier'],
    signature: `cuda::barrier<Scope, CompletionFunction>::barrier(
    std::ptrdiff_t expected,
    CompletionFunction completion = CompletionFunction());`,
    summary: "Constructs a barrier for `expected` arrivals per phase, with an optional completion function.",
    semantics:
      "Same start state as `init`: phase 0, pending count = `expected`. The completion function runs once per phase, on one participating thread, after the last arrival and before any waiter is released; then the count reloads and the next phase begins.",
    phaseRules:
      "Not usable for `__shared__` barriers (they are not constructed); use `init`. Keep the completion function short: every waiter of the phase is held until it returns. A custom completion function makes even a block-scoped shared barrier a software barrier, so the tx APIs and `barrier_native_handle` do not apply.",
    seeAlso: ['cuda.barrier.init'],
  },
  {
    id: 'cuda.barrier.arrive',
    surface: 'cuda::barrier',
    member: true,
    names: ['cuda::barrier::arrive', 'cuda::std::barrier::arrive'],
    signature: `[[nodiscard]] arrival_token arrive(std::ptrdiff_t update = 1);`,
    summary: "Arrives `update` times on the current phase and returns a token for that phase.",
    semantics:
      "Lowers the pending count by `update` without blocking. If that brings the pending count (and the tx-count) to zero, the phase completes and the count reloads.",
    phaseRules:
      "Each phase needs exactly the expected number of arrivals; extra ones complete it early and spill into the next phase. " + TOKEN_RULE,
    arrives: true,
    seeAlso: ['cuda.barrier.wait', 'cuda.barrier.arrive_and_wait', 'ptx.mbarrier.arrive'],
  },
  {
    id: 'cuda.barrier.wait',
    surface: 'cuda::barrier',
    member: true,
    names: ['cuda::barrier::wait', 'cuda::std::barrier::wait'],
    signature: `void wait(arrival_token&& token) const;`,
    summary: "Blocks until the phase the token belongs to has completed.",
    semantics:
      "Leaves the counts alone. Returns at once if the barrier has already moved past the token's phase, otherwise polls until it does.",
    phaseRules: TOKEN_RULE + " The phase completes only when all expected arrivals happen, so a missing arrival anywhere hangs every waiter.",
    arrives: false,
    seeAlso: ['cuda.barrier.arrive', 'cuda.barrier.arrival_token'],
  },
  {
    id: 'cuda.barrier.arrive_and_wait',
    surface: 'cuda::barrier',
    member: true,
    names: ['cuda::barrier::arrive_and_wait', 'cuda::std::barrier::arrive_and_wait'],
    signature: `void arrive_and_wait();`,
    summary: "Arrives once, then waits for that phase to complete; same as `wait(arrive())`.",
    semantics: "One arrival on the current phase, then blocks until the phase completes.",
    phaseRules:
      "Every participant counted in the expected count must reach it (or arrive some other way) each phase. Calling it from only part of a block when the barrier was sized for the whole block deadlocks.",
    arrives: true,
    seeAlso: ['cuda.barrier.arrive', 'cuda.barrier.wait'],
  },
  {
    id: 'cuda.barrier.arrive_and_drop',
    surface: 'cuda::barrier',
    member: true,
    names: ['cuda::barrier::arrive_and_drop', 'cuda::std::barrier::arrive_and_drop'],
    signature: `void arrive_and_drop();`,
    summary: "Arrives once on the current phase and removes this participant from all later phases.",
    semantics:
      "Lowers the current pending count by one and the expected count by one, so every later phase needs one arrival fewer. Does not wait. Hardware form: `mbarrier.arrive_drop`.",
    phaseRules:
      "Use it when a thread leaves the loop early; a thread that simply stops arriving leaves later phases hanging. After dropping, the thread must not arrive on this barrier again.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive_drop'],
  },
  {
    id: 'cuda.barrier.arrival_token',
    surface: 'cuda::barrier',
    names: ['cuda::barrier::arrival_token', 'cuda::std::barrier::arrival_token', 'arrival_token'],
    signature: `using arrival_token = /* opaque; the 64-bit mbarrier state for a hardware barrier */;`,
    summary: "Opaque value returned by `arrive()` that records the phase it arrived in.",
    semantics: "Carries no count of its own; `wait` compares it with the barrier's current phase.",
    phaseRules:
      "Move it into `wait` on the same barrier. It goes stale once the barrier is two or more phases past it; keeping a token from an earlier loop iteration and waiting on it later is the typical bug.",
    seeAlso: ['cuda.barrier.wait'],
  },
  {
    id: 'cuda.barrier.max',
    surface: 'cuda::barrier',
    member: true,
    names: ['cuda::barrier::max', 'cuda::std::barrier::max'],
    signature: `static constexpr std::ptrdiff_t max() noexcept;`,
    summary: "Largest expected count this barrier type supports.",
    semantics:
      "No effect on any barrier. For `thread_scope_block` it is 2^20 − 1, the hardware mbarrier limit; other scopes allow larger values.",
  },
  {
    id: 'cuda.device.barrier_arrive_tx',
    surface: 'cuda::device',
    names: ['barrier_arrive_tx', 'cuda::device::barrier_arrive_tx'],
    signature: `[[nodiscard]] cuda::barrier<cuda::thread_scope_block>::arrival_token
cuda::device::barrier_arrive_tx(cuda::barrier<cuda::thread_scope_block>& bar,
                                std::ptrdiff_t arrive_count,
                                std::ptrdiff_t tx_bytes);`,
    summary: "Adds `tx_bytes` expected bytes and arrives `arrive_count` times on the current phase (sm_90+).",
    semantics:
      "Raises the tx-count by `tx_bytes`, then lowers the pending count by `arrive_count`. The phase can only complete after async copies have delivered those bytes. Lowered to `mbarrier.arrive.expect_tx` (or `expect_tx` followed by `arrive` when the count is above 1).",
    phaseRules:
      "It is an arrival: include it in the expected count. The barrier must be block-scoped and `__shared__`. `tx_bytes` must equal the bytes delivered to this barrier in this phase: too few lets waiters run before the data lands, too many hangs the phase.",
    arrives: true,
    seeAlso: ['cuda.device.barrier_expect_tx', 'ptx.mbarrier.arrive.expect_tx'],
  },
  {
    id: 'cuda.device.barrier_expect_tx',
    surface: 'cuda::device',
    names: ['barrier_expect_tx', 'cuda::device::barrier_expect_tx'],
    signature: `void cuda::device::barrier_expect_tx(cuda::barrier<cuda::thread_scope_block>& bar,
                                     std::ptrdiff_t tx_bytes);`,
    summary: "Adds `tx_bytes` expected bytes to the current phase without arriving (sm_90+).",
    semantics: "Raises the tx-count only; the pending arrival count is unchanged. Lowered to `mbarrier.expect_tx`.",
    phaseRules:
      "Not an arrival: the thread still has to `arrive()` for its slot, or the phase never completes. Issue it before the phase it belongs to can end. The barrier must be block-scoped and `__shared__`.",
    arrives: false,
    seeAlso: ['cuda.device.barrier_arrive_tx', 'ptx.mbarrier.expect_tx'],
  },
  {
    id: 'cuda.device.barrier_native_handle',
    surface: 'cuda::device',
    names: ['barrier_native_handle', 'cuda::device::barrier_native_handle'],
    signature: `std::uint64_t* cuda::device::barrier_native_handle(
    cuda::barrier<cuda::thread_scope_block>& bar);`,
    summary: "Returns a pointer to the 64-bit mbarrier word behind a block-scoped barrier, for `cuda::ptx` or inline PTX.",
    semantics: "No effect on the barrier. Raw operations through the pointer act on the same counts and phase as the member functions.",
    phaseRules:
      "Only meaningful for a block-scoped barrier in shared memory. Raw parity waits through the handle follow the mbarrier parity rule; mixing them with token waits means tracking both against the same phase sequence.",
    seeAlso: ['cuda.ptx.mbarrier_try_wait_parity'],
  },
  {
    id: 'cuda.memcpy_async',
    surface: 'cuda::barrier',
    names: ['cuda::memcpy_async', 'memcpy_async'],
    signature: `void cuda::memcpy_async(void* dst, const void* src, Size size,
                        cuda::barrier<Scope, CompletionFunction>& bar);
void cuda::memcpy_async(const Group& group, void* dst, const void* src, Size size,
                        cuda::barrier<Scope, CompletionFunction>& bar);`,
    summary: "Starts an asynchronous copy whose completion is tied to the current phase of `bar`.",
    semantics:
      "Does not arrive. It makes the current phase also wait for the copy: on sm_80 via `cp.async` plus `cp.async.mbarrier.arrive` (a pending-count increment that the copy pays back); on sm_90 with a suitable shared destination via a bulk copy and an `expect_tx` of `size` bytes. Without an async path it copies synchronously.",
    phaseRules:
      "Every thread still arrives and waits as usual, and the data is only safe to read after a wait on the phase the copy was issued in. Issue the copy before this thread's `arrive()` for that phase.",
    arrives: false,
    seeAlso: ['ptx.cp.async.mbarrier.arrive', 'ptx.cp.async.bulk'],
  },
  {
    id: 'cuda.device.memcpy_async_tx',
    surface: 'cuda::device',
    names: ['memcpy_async_tx', 'cuda::device::memcpy_async_tx'],
    signature: `template <class T, std::size_t Align>
void cuda::device::memcpy_async_tx(T* dst, const T* src,
                                   cuda::aligned_size_t<Align> size,
                                   cuda::barrier<cuda::thread_scope_block>& bar);`,
    summary: "Global→shared bulk copy that reports its bytes to a block-scoped barrier (sm_90+).",
    semantics:
      "Issues `cp.async.bulk` with complete_tx: the bytes lower the barrier's tx-count when they land. It neither arrives nor raises the tx-count itself.",
    phaseRules:
      "Pair it with `barrier_arrive_tx` / `barrier_expect_tx` covering `size` bytes in the same phase; without that the tx-count goes negative and the phase can finish before the data is in place. Needs 16-byte alignment.",
    arrives: false,
    seeAlso: ['cuda.device.barrier_arrive_tx', 'ptx.cp.async.bulk'],
  },
  {
    id: 'cuda.device.cp_async_bulk_shared_to_global',
    surface: 'cuda::device',
    names: [
      'cp_async_bulk_shared_to_global', 'cuda::device::experimental::cp_async_bulk_shared_to_global',
      'cp_async_bulk_tensor_1d_shared_to_global', 'cp_async_bulk_tensor_2d_shared_to_global', 'cp_async_bulk_tensor_3d_shared_to_global',
      'cp_async_bulk_tensor_4d_shared_to_global', 'cp_async_bulk_tensor_5d_shared_to_global',
    ],
    signature: `void cuda::device::experimental::cp_async_bulk_shared_to_global(void* gmem_dst, const void* smem_src, uint32_t size);
void cuda::device::experimental::cp_async_bulk_tensor_2d_shared_to_global(const CUtensorMap* map, int c0, int c1, const void* smem_src);   // 1d..5d`,
    summary: "Shared→global bulk (or tensor TMA) store, sm_90+: `cp.async.bulk[.tensor].global.shared::cta.bulk_group`.",
    semantics:
      "Returns immediately; the async proxy reads the shared-memory source afterwards. Completion is tracked by bulk groups (`cp_async_bulk_commit_group`, `cp_async_bulk_wait_group_read`), not by an mbarrier.",
    phaseRules:
      "Threads that wrote the source with ordinary stores must issue `fence_proxy_async_shared_cta()` after their writes and before the sync that hands the buffer to the storing thread; otherwise the store may read stale data.",
    arrives: false,
    seeAlso: ['ptx.cp.async.bulk', 'cuda.ptx.fence_proxy_async'],
  },
  {
    id: 'cuda.pipeline',
    surface: 'cuda::barrier',
    names: ['cuda::pipeline', 'producer_acquire', 'producer_commit', 'consumer_wait', 'consumer_release', 'cuda::pipeline::producer_acquire', 'cuda::pipeline::producer_commit', 'cuda::pipeline::consumer_wait', 'cuda::pipeline::consumer_release'],
    member: true,
    signature: `template <cuda::thread_scope Scope> class cuda::pipeline;
void producer_acquire();   // wait until the head stage is free
void producer_commit();    // the head stage's copies are issued; advance head
void consumer_wait();      // wait until the tail stage's copies landed
void consumer_release();   // the tail stage may be refilled; advance tail
bool quit();               // leave; true for the last thread (releases the stages)`,
    summary: "A ring of stages filled by `cuda::memcpy_async(…, pipe)` and drained by consumers, over two barriers per stage (libcu++).",
    semantics:
      "Block scope: stage i has a `produced` and a `consumed` barrier in the `pipeline_shared_state`. producer_acquire waits on consumed[head] (parity starting at 1: the first pass does not wait); producer_commit makes produced[head] wait for the thread's copies (cp.async.mbarrier.arrive) and arrives on it; consumer_wait waits on produced[tail] (parity from 0); consumer_release arrives on consumed[tail]. Head and tail wrap at the stage count and flip their parities. Thread scope (`cuda::make_pipeline()`): commit and wait are cp.async commit_group / wait_group; acquire and release do nothing.",
    phaseRules:
      "Every producer commits every stage it acquired and every consumer releases every stage it waited for, in order: a skipped release leaves consumed[i] short and the producer hangs one lap later; a release before the reads lets the next copy overwrite data still being read.",
    seeAlso: ['cuda.make_pipeline', 'cuda.barrier'],
  },
  {
    id: 'cuda.make_pipeline',
    surface: 'cuda::barrier',
    names: ['make_pipeline', 'cuda::make_pipeline'],
    signature: `cuda::pipeline<cuda::thread_scope_thread> cuda::make_pipeline();
template <class Group, cuda::thread_scope S, uint8_t N>
cuda::pipeline<S> cuda::make_pipeline(const Group& g, cuda::pipeline_shared_state<S, N>* state);
cuda::pipeline<S> cuda::make_pipeline(const Group& g, cuda::pipeline_shared_state<S, N>* state, size_t producer_count);
cuda::pipeline<S> cuda::make_pipeline(const Group& g, cuda::pipeline_shared_state<S, N>* state, cuda::pipeline_role role);`,
    summary: "Creates a pipeline over a shared state (collective over the group) or a thread-local one over cp.async groups.",
    semantics:
      "Collective: rank 0 of the group initialises each stage's barriers (all threads both roles: both count the group; with producer_count or roles: produced counts the producers, consumed the consumers) with the group's syncs in between, so no barrier is used before it is initialised.",
    phaseRules: "Every thread of the group must call it (it synchronises the group); the shared state must outlive every thread's pipeline.",
    seeAlso: ['cuda.pipeline'],
  },
  {
    id: 'cuda.pipeline_consumer_wait_prior',
    surface: 'cuda::barrier',
    names: ['pipeline_consumer_wait_prior', 'cuda::pipeline_consumer_wait_prior'],
    signature: `template <uint8_t Prior>
void cuda::pipeline_consumer_wait_prior(cuda::pipeline<cuda::thread_scope_thread>& pipe);`,
    summary: "Waits until at most `Prior` of the thread's committed stages are still in flight (cp.async.wait_group Prior).",
    semantics: "No barrier effect; the thread's own cp.async groups only.",
    phaseRules: "Other threads' copies are not covered: synchronise (`__syncthreads`) before reading what they copied.",
    seeAlso: ['cuda.pipeline'],
  },
  {
    id: 'cuda.pipeline_producer_commit',
    surface: 'cuda::barrier',
    names: ['pipeline_producer_commit', 'cuda::pipeline_producer_commit'],
    signature: `template <cuda::thread_scope S>
void cuda::pipeline_producer_commit(cuda::pipeline<cuda::thread_scope_thread>& pipe, cuda::barrier<S>& bar);`,
    summary: "Makes `bar`'s current phase wait for the thread's copies so far (cp.async.mbarrier.arrive).",
    semantics: "Adds one pending arrival to `bar` and arrives it when the thread's cp.async copies have landed; it is not the thread's own arrival.",
    phaseRules: "The thread still arrives on `bar` itself; waiting on `bar` then covers the copies.",
    seeAlso: ['cuda.pipeline', 'ptx.cp.async.mbarrier.arrive'],
  },
  {
    id: 'cuda.vector_constructors',
    surface: 'intrinsics',
    names: ['make_float2', 'make_float3', 'make_float4', 'make_int2', 'make_int3', 'make_int4', 'make_uint2', 'make_uint4', 'make_double2', 'make_half2', 'make_bfloat162', '__floats2half2_rn', '__float2half2_rn', '__halves2half2', '__halves2bfloat162', '__floats2bfloat162_rn', '__float2bfloat162_rn', '__half22float2', '__low2half', '__high2half', '__low2float', '__high2float'],
    signature: `float4 make_float4(float x, float y, float z, float w);   // and make_<type><1..4> for the other vector types
__half2 __floats2half2_rn(float lo, float hi);            // each rounded to nearest even
__nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi);
float2 __half22float2(__half2 h);  __half __low2half(__half2 h);  float __high2float(__half2 h);`,
    summary: "Builds a CUDA vector value from its lanes, or converts and reads the lanes of a `__half2` / `__nv_bfloat162`.",
    semantics: "No barrier effect. `x` is the low lane (the lower address). The built-in vector types have no arithmetic operators: `a + b` on `float4` is a compile error unless the program defines `operator+`, which is then an ordinary function.",
    seeAlso: ['cuda.half2_arithmetic'],
  },
  {
    id: 'cuda.half2_arithmetic',
    surface: 'intrinsics',
    names: ['__hadd2', '__hsub2', '__hmul2', '__h2div', '__hfma2', '__hneg2', '__habs2', '__hmax2', '__hmin2'],
    signature: `__half2 __hadd2(__half2 a, __half2 b);          // also on __nv_bfloat162
__half2 __hfma2(__half2 a, __half2 b, __half2 c);  // a*b + c with one rounding`,
    summary: "Lane-wise arithmetic on a pair of halves (or bfloat16s): one HADD2/HMUL2/HFMA2 instruction.",
    semantics: "No barrier effect. Each lane rounds once to nearest even; `__hfma2` rounds the fused result once, so it can differ from `a * b + c` written with the operators `cuda_fp16.hpp` defines (two roundings).",
    seeAlso: ['cuda.vector_constructors'],
  },
  {
    id: 'cuda.timers',
    surface: 'intrinsics',
    names: ['clock', 'clock64', '__nanosleep', '__globaltimer'],
    signature: `long long clock64();            // the SM's cycle counter (%clock64)
void __nanosleep(unsigned ns);    // suspend about ns nanoseconds (0 to 2*ns)
// %globaltimer: a nanosecond timer, read with asm("mov.u64 %0, %%globaltimer;" : "=l"(t))`,
    summary: "Time stamps and a sleep: they order nothing.",
    semantics: "No barrier effect and no memory ordering. In the simulator they read the thread's simulated time (cycles; the global timer one nanosecond per cycle), only moving forward, and `__nanosleep` advances it.",
    phaseRules: "Never a substitute for a wait: a sleep long enough on one GPU is a race on another (the simulator reports such a race regardless of time).",
    seeAlso: ['ptx.nanosleep'],
  },
  {
    id: 'cuda.std.barrier',
    surface: 'cuda::barrier',
    names: ['cuda::std::barrier'],
    signature: `template <class CompletionFunction = /* no-op */>
class cuda::std::barrier;   // same type as cuda::barrier<cuda::thread_scope_system, CompletionFunction>`,
    summary: "The standard C++20 barrier at system scope.",
    semantics:
      "Same arrive / wait / arrive_and_wait / arrive_and_drop and token rules as `cuda::barrier`, but it is always a software barrier: no tx-count, no native handle, no `_tx` functions.",
    phaseRules: "Construct or `init` it before use. " + TOKEN_RULE,
    seeAlso: ['cuda.barrier'],
  },

  // ---------------------------------------------------------------------------------------------
  // cuda::ptx (1:1 wrappers of PTX instructions)
  // ---------------------------------------------------------------------------------------------
  {
    id: 'cuda.ptx.mbarrier_init',
    surface: 'cuda::ptx',
    names: ['mbarrier_init', 'cuda::ptx::mbarrier_init'],
    signature: `void cuda::ptx::mbarrier_init(std::uint64_t* addr, const std::uint32_t& count);`,
    summary: "Initialises the mbarrier at `addr` for `count` arrivals per phase.",
    semantics: "Writes a fresh state: phase 0, pending and expected counts = `count`, tx-count 0. Orders nothing else.",
    phaseRules:
      "One thread, before any use; then `__syncthreads()` for users in this CTA, or `fence_mbarrier_init` plus a cluster arrive/wait when other CTAs touch it. To re-initialise, `mbarrier_inval` first once nobody is using it. `count` is 1 to 2^20 − 1.",
    seeAlso: ['ptx.mbarrier.init', 'cuda.ptx.fence_mbarrier_init'],
  },
  {
    id: 'cuda.ptx.mbarrier_arrive',
    surface: 'cuda::ptx',
    names: ['mbarrier_arrive', 'cuda::ptx::mbarrier_arrive'],
    signature: `uint64_t mbarrier_arrive(uint64_t* addr);
uint64_t mbarrier_arrive(uint64_t* addr, const uint32_t& count);
uint64_t mbarrier_arrive(sem_release_t, scope_t<Scope>, space_shared_t,
                         uint64_t* addr[, const uint32_t& count]);
void     mbarrier_arrive(sem_release_t, scope_t<Scope>, space_cluster_t,
                         uint64_t* addr[, const uint32_t& count]);`,
    summary: "Arrives on an mbarrier (`count` times, default 1) and returns the phase token for a local barrier.",
    semantics:
      "Lowers the pending count by `count` with release semantics. If pending and tx-count both reach zero, the phase completes. The returned state identifies the phase for token waits; the `space_cluster` form targets a barrier in another CTA and returns nothing.",
    phaseRules:
      "Counts against the init count once per executing thread. Guard it (`elect_sync`, lane 0) so the number of executing threads matches the count; extra arrivals complete the phase early.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive', 'cuda.ptx.mbarrier_arrive_expect_tx'],
  },
  {
    id: 'cuda.ptx.mbarrier_arrive_no_complete',
    surface: 'cuda::ptx',
    names: ['mbarrier_arrive_no_complete', 'cuda::ptx::mbarrier_arrive_no_complete'],
    signature: `uint64_t cuda::ptx::mbarrier_arrive_no_complete(uint64_t* addr, const uint32_t& count);`,
    summary: "Arrives `count` times on the promise that this does not finish the phase.",
    semantics:
      "Lowers the pending count by `count` and returns the token. If it would bring the pending count to zero, the behaviour is undefined.",
    phaseRules:
      "Only safe when another arrival is certain to follow in the same phase; libcu++ uses it for `count − 1` arrivals followed by one plain arrive.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive.noComplete'],
  },
  {
    id: 'cuda.ptx.mbarrier_arrive_expect_tx',
    surface: 'cuda::ptx',
    names: ['mbarrier_arrive_expect_tx', 'cuda::ptx::mbarrier_arrive_expect_tx'],
    signature: `uint64_t mbarrier_arrive_expect_tx(sem_release_t, scope_t<Scope>, space_shared_t,
                                   uint64_t* addr, const uint32_t& tx_count);
void     mbarrier_arrive_expect_tx(sem_release_t, scope_t<Scope>, space_cluster_t,
                                   uint64_t* addr, const uint32_t& tx_count);`,
    summary: "Adds `tx_count` expected bytes, then arrives once.",
    semantics:
      "First raises the tx-count by `tx_count`, then lowers the pending count by one. The phase now also waits for copies that complete that many bytes on this barrier.",
    phaseRules:
      "It IS an arrival (unlike `mbarrier_expect_tx`): a TMA 'full' barrier armed by one such call per phase is initialised with count 1. `tx_count` = bytes of every copy that signals this barrier in this phase.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive.expect_tx', 'cuda.ptx.mbarrier_expect_tx'],
  },
  {
    id: 'cuda.ptx.mbarrier_expect_tx',
    surface: 'cuda::ptx',
    names: ['mbarrier_expect_tx', 'cuda::ptx::mbarrier_expect_tx'],
    signature: `void cuda::ptx::mbarrier_expect_tx(sem_relaxed_t, scope_t<Scope>, space_shared_t,
                                  uint64_t* addr, uint32_t tx_count);`,
    summary: "Adds `tx_count` expected bytes to the current phase without arriving.",
    semantics: "Raises the tx-count only; the pending arrival count is untouched.",
    phaseRules:
      "NOT an arrival, despite the name being close to `mbarrier_arrive_expect_tx`. If a producer only does this, the init count is never met and waiters hang; add an arrive or use the `arrive_expect_tx` form.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.expect_tx', 'cuda.ptx.mbarrier_arrive_expect_tx'],
  },
  {
    id: 'cuda.ptx.mbarrier_complete_tx',
    surface: 'cuda::ptx',
    names: ['mbarrier_complete_tx', 'cuda::ptx::mbarrier_complete_tx'],
    signature: `void cuda::ptx::mbarrier_complete_tx(sem_relaxed_t, scope_t<Scope>, space_shared_t | space_cluster_t,
                                    uint64_t* addr, uint32_t tx_count);`,
    summary: "Lowers the tx-count of the current phase by `tx_count` from a thread, as a copy of that size landing would (`mbarrier.complete_tx`, sm_90).",
    semantics:
      "Decrements the tx-count without arriving; completes the phase when the tx-count reaches zero and no arrivals are pending. No memory is moved and no ordering is implied (relaxed).",
    phaseRules:
      "Not an arrival. Pair it with bytes announced by expect_tx or arrive_expect_tx in the same phase; completing more than was announced ends the phase early, completing fewer leaves waiters hanging.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.complete_tx', 'cuda.ptx.mbarrier_expect_tx'],
  },
  {
    id: 'cuda.ptx.mbarrier_try_wait',
    surface: 'cuda::ptx',
    names: ['mbarrier_try_wait', 'cuda::ptx::mbarrier_try_wait'],
    signature: `bool mbarrier_try_wait(uint64_t* addr, const uint64_t& state
                       [, const uint32_t& suspend_time_hint]);
bool mbarrier_try_wait(sem_acquire_t, scope_t<Scope>, uint64_t* addr, const uint64_t& state
                       [, const uint32_t& suspend_time_hint]);`,
    summary: "Returns true once the phase recorded in `state` has completed; may suspend the thread for a while first.",
    semantics: "No change to the counts. A bounded wait: it can return false before the phase completes.",
    phaseRules: "Loop until it returns true (`while (!mbarrier_try_wait(...));`); ignoring the result is a real bug. " + TOKEN_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait', 'cuda.ptx.mbarrier_try_wait_parity'],
  },
  {
    id: 'cuda.ptx.mbarrier_try_wait_parity',
    surface: 'cuda::ptx',
    names: ['mbarrier_try_wait_parity', 'cuda::ptx::mbarrier_try_wait_parity'],
    signature: `bool mbarrier_try_wait_parity(uint64_t* addr, const uint32_t& phase_parity
                              [, const uint32_t& suspend_time_hint]);
bool mbarrier_try_wait_parity(sem_acquire_t, scope_t<Scope>, uint64_t* addr,
                              const uint32_t& phase_parity[, const uint32_t& suspend_time_hint]);`,
    summary: "Returns true once the phase with parity `phase_parity` has completed; may suspend the thread for a while first.",
    semantics: "No change to the counts. True when the barrier's current phase parity differs from `phase_parity`.",
    phaseRules: "Loop until it returns true; ignoring the result is a real bug. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait.parity'],
  },
  {
    id: 'cuda.ptx.mbarrier_test_wait',
    surface: 'cuda::ptx',
    names: ['mbarrier_test_wait', 'cuda::ptx::mbarrier_test_wait'],
    signature: `bool mbarrier_test_wait(uint64_t* addr, const uint64_t& state);
bool mbarrier_test_wait(sem_acquire_t, scope_t<Scope>, uint64_t* addr, const uint64_t& state);`,
    summary: "Non-blocking check: has the phase recorded in `state` completed?",
    semantics: "No change to the counts and never suspends.",
    phaseRules: "Needs a polling loop to be used as a wait. " + TOKEN_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.test_wait'],
  },
  {
    id: 'cuda.ptx.mbarrier_test_wait_parity',
    surface: 'cuda::ptx',
    names: ['mbarrier_test_wait_parity', 'cuda::ptx::mbarrier_test_wait_parity'],
    signature: `bool mbarrier_test_wait_parity(uint64_t* addr, const uint32_t& phase_parity);
bool mbarrier_test_wait_parity(sem_acquire_t, scope_t<Scope>, uint64_t* addr,
                               const uint32_t& phase_parity);`,
    summary: "Non-blocking check: has the phase with parity `phase_parity` completed?",
    semantics: "No change to the counts and never suspends.",
    phaseRules: "Needs a polling loop to be used as a wait. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.test_wait.parity'],
  },
  {
    id: 'cuda.ptx.mbarrier_inval',
    surface: 'cuda::ptx',
    names: ['mbarrier_inval', 'cuda::ptx::mbarrier_inval'],
    signature: `void cuda::ptx::mbarrier_inval(uint64_t* addr);`,
    summary: "Invalidates the mbarrier so its shared-memory word can be reused or re-initialised.",
    semantics: "Ends the barrier's life; any later mbarrier operation on it other than init is undefined.",
    phaseRules:
      "Only once every thread and every async copy/commit is done with it; bracket it with CTA syncs when the memory is reused.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.inval'],
  },
  {
    id: 'cuda.ptx.fence_mbarrier_init',
    surface: 'cuda::ptx',
    names: ['fence_mbarrier_init', 'cuda::ptx::fence_mbarrier_init'],
    signature: `void cuda::ptx::fence_mbarrier_init(sem_release_t, scope_cluster_t);`,
    summary: "Publishes this thread's earlier mbarrier inits to the whole cluster (release, cluster scope).",
    semantics: "No barrier state change; it is an ordering fence, not a synchronisation.",
    phaseRules:
      "Issue it from the thread that did the init, then synchronise the cluster (arrive/wait) before other CTAs use the barriers. Not needed for barriers used only inside the CTA.",
    seeAlso: ['ptx.fence.mbarrier_init'],
  },
  {
    id: 'cuda.ptx.fence_proxy_async',
    surface: 'cuda::ptx',
    names: ['fence_proxy_async', 'cuda::ptx::fence_proxy_async'],
    signature: `void cuda::ptx::fence_proxy_async();
void cuda::ptx::fence_proxy_async(space_t<Space>);   // space_global, space_shared, space_cluster`,
    summary: "Orders ordinary memory accesses against async-proxy accesses (TMA, bulk copies, tensor-core operand reads).",
    semantics: "No barrier state change.",
    phaseRules:
      "Put it after threads write shared memory with normal stores and before the TMA store / MMA that reads it, or before handing such a buffer back to the producer.",
    seeAlso: ['ptx.fence.proxy.async'],
  },
  {
    id: 'cuda.ptx.cp_async_bulk',
    surface: 'cuda::ptx',
    names: ['cp_async_bulk', 'cuda::ptx::cp_async_bulk'],
    signature: `void cp_async_bulk(space_cluster_t, space_global_t, void* dst, const void* src,
                   const uint32_t& size, uint64_t* smem_bar);
void cp_async_bulk(space_cluster_t, space_shared_t, void* dst, const void* src,
                   const uint32_t& size, uint64_t* rdsmem_bar);
void cp_async_bulk(space_global_t, space_shared_t, void* dst, const void* src,
                   const uint32_t& size);   // completes through bulk groups`,
    summary: "Bulk (non-tensor) TMA copy of `size` bytes; copies into shared memory report their bytes to an mbarrier.",
    semantics: "Returns immediately. When the bytes land they lower the barrier's tx-count. Not an arrival.",
    phaseRules:
      "Some thread must add `size` to the barrier's tx-count in the same phase (`mbarrier_arrive_expect_tx`). `size` and addresses must be multiples of 16.",
    arrives: false,
    seeAlso: ['ptx.cp.async.bulk'],
  },
  {
    id: 'cuda.ptx.cp_async_bulk_tensor',
    surface: 'cuda::ptx',
    names: ['cp_async_bulk_tensor', 'cuda::ptx::cp_async_bulk_tensor'],
    signature: `void cp_async_bulk_tensor(space_cluster_t, space_global_t, void* dst,
                          const void* tensor_map, const int32_t (&coords)[N],
                          uint64_t* smem_bar);`,
    summary: "Tensor TMA load of one box described by a tensor map; its bytes are reported to an mbarrier.",
    semantics:
      "Returns immediately. When the box lands, the barrier's tx-count drops by the full box size, even if part of the box was out of bounds and zero-filled. Not an arrival.",
    phaseRules:
      "The expected bytes for a phase are box bytes × boxes issued × CTAs that deliver into this barrier. Read the box only after waiting on the barrier.",
    arrives: false,
    seeAlso: ['ptx.cp.async.bulk.tensor'],
  },
  {
    id: 'cuda.ptx.cp_reduce_async_bulk',
    surface: 'cuda::ptx',
    names: ['cp_reduce_async_bulk', 'cuda::ptx::cp_reduce_async_bulk'],
    signature: `void cp_reduce_async_bulk(space_global_t, space_shared_t, op_add_t /* op_min_t, op_max_t, op_inc_t, op_dec_t, op_and_op_t, … */,
                          T* dstMem, const T* srcMem, uint32_t size);        // completes through bulk groups
void cp_reduce_async_bulk(space_cluster_t, space_shared_t, op_add_t /* … */,
                          T* dstMem, const T* srcMem, uint32_t size, uint64_t* rdsmem_bar);`,
    summary: "Bulk (non-tensor) reduction (`cp.reduce.async.bulk`): combines `size` bytes of shared memory into global or a cluster CTA's shared memory.",
    semantics:
      "Returns immediately. The element type is the pointers' (`__half`/`__nv_bfloat16` adds are `.add.noftz`); each element is combined once, rounded to nearest even for floating point. Into global memory completion is tracked by bulk groups; into shared::cluster memory the destination CTA's barrier gets complete_tx of `size` bytes. Not an arrival.",
    phaseRules:
      "Fence the source (`fence_proxy_async_shared_cta`) after writing it with ordinary stores; wait on the bulk group (global) or the destination barrier (shared::cluster, whose phase must expect `size` bytes) before reusing or reading. `size` and both addresses must be multiples of 16.",
    arrives: false,
    seeAlso: ['ptx.cp.reduce.async.bulk'],
  },
  {
    id: 'cuda.ptx.cp_reduce_async_bulk_tensor',
    surface: 'cuda::ptx',
    names: ['cp_reduce_async_bulk_tensor', 'cuda::ptx::cp_reduce_async_bulk_tensor'],
    signature: `void cp_reduce_async_bulk_tensor(space_global_t, space_shared_t, op_add_t /* op_min_t, op_max_t, op_inc_t, … */,
                                 const void* tensor_map, const int32_t (&coords)[N], const void* smem_src);`,
    summary: "Tensor TMA reduction (`cp.reduce.async.bulk.tensor`): combines a shared-memory box into the tensor map's global box.",
    semantics:
      "Returns immediately; elements of the box outside the tensor are skipped. Completion is tracked by bulk groups (`cp_async_bulk_commit_group`, `cp_async_bulk_wait_group_read`), not by an mbarrier.",
    phaseRules: "Fence the source (`fence_proxy_async_shared_cta`) after writing it with ordinary stores; wait on the bulk group before reusing it.",
    arrives: false,
    seeAlso: ['ptx.cp.reduce.async.bulk.tensor'],
  },
  {
    id: 'cuda.device.cp_async_bulk_tensor_global_to_shared',
    surface: 'cuda::device',
    names: [
      'cp_async_bulk_tensor_1d_global_to_shared', 'cp_async_bulk_tensor_2d_global_to_shared', 'cp_async_bulk_tensor_3d_global_to_shared',
      'cp_async_bulk_tensor_4d_global_to_shared', 'cp_async_bulk_tensor_5d_global_to_shared',
    ],
    signature: `void cuda::device::experimental::cp_async_bulk_tensor_2d_global_to_shared(void* smem_dst, const CUtensorMap* map, int c0, int c1,
                                                                  cuda::barrier<cuda::thread_scope_block>& bar);   // 1d..5d`,
    summary: "Tensor TMA load of one box (libcu++, sm_90+): `cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes`.",
    semantics:
      "Returns immediately. When the box lands, the barrier's tx-count drops by the full box size, out-of-bounds elements (filled with zeros or NaN) included. Not an arrival: pair it with `cuda::device::barrier_arrive_tx(bar, 1, bytes)`.",
    phaseRules: "The destination must be 128-byte aligned (1024 for the 128B swizzle pattern to start at its beginning); read it only after the barrier's phase completes.",
    arrives: false,
    seeAlso: ['cuda.device.barrier_arrive_tx', 'ptx.cp.async.bulk.tensor'],
  },
  {
    id: 'cuda.ptx.cp_async_mbarrier_arrive',
    surface: 'cuda::ptx',
    names: ['cp_async_mbarrier_arrive', 'cuda::ptx::cp_async_mbarrier_arrive'],
    signature: `void cuda::ptx::cp_async_mbarrier_arrive(uint64_t* addr);`,
    summary: "Adds one to the pending count now and arrives once this thread's earlier `cp.async` copies finish.",
    semantics: "Net effect on the arrival count is zero: +1 immediately, −1 when the copies complete.",
    phaseRules:
      "Does not replace the thread's own arrive: it still has to arrive normally, and the init count counts only those normal arrivals.",
    arrives: false,
    seeAlso: ['ptx.cp.async.mbarrier.arrive', 'cuda.ptx.cp_async_mbarrier_arrive_noinc'],
  },
  {
    id: 'cuda.ptx.cp_async_mbarrier_arrive_noinc',
    surface: 'cuda::ptx',
    names: ['cp_async_mbarrier_arrive_noinc', 'cuda::ptx::cp_async_mbarrier_arrive_noinc'],
    signature: `void cuda::ptx::cp_async_mbarrier_arrive_noinc(uint64_t* addr);`,
    summary: "Arrives once this thread's earlier `cp.async` copies finish, without first raising the pending count.",
    semantics: "One asynchronous arrival that counts toward the current phase.",
    phaseRules: "Include one arrival per issuing thread in the init count.",
    arrives: true,
    seeAlso: ['ptx.cp.async.mbarrier.arrive.noinc'],
  },
  {
    id: 'cuda.ptx.tcgen05_commit',
    surface: 'cuda::ptx',
    names: ['tcgen05_commit', 'cuda::ptx::tcgen05_commit', 'tcgen05_commit_multicast', 'cuda::ptx::tcgen05_commit_multicast'],
    signature: `void tcgen05_commit(cta_group_t<N>, uint64_t* smem_bar);
void tcgen05_commit_multicast(cta_group_t<N>, uint64_t* smem_bar, uint16_t cta_mask);`,
    summary: "One arrival on `smem_bar` once all of this thread's earlier tcgen05 operations are done (sm_100).",
    semantics:
      "Tracks the thread's earlier `tcgen05.mma` / `cp` / `shift`; when they finish, the barrier gets exactly one arrival (one per CTA in `cta_mask` for the multicast form).",
    phaseRules: "Issue from a single thread. Count one arrival per commit in the init count.",
    arrives: true,
    seeAlso: ['ptx.tcgen05.commit'],
  },
  {
    id: 'cuda.ptx.elect_sync',
    surface: 'cuda::ptx',
    names: ['elect_sync', 'cuda::ptx::elect_sync'],
    signature: `bool cuda::ptx::elect_sync(const uint32_t& membermask);`,
    summary: "Returns true in exactly one lane of `membermask`.",
    semantics: "Warp-synchronous lane election; no barrier effect.",
    phaseRules:
      "All lanes of the mask must call it together. An arrive inside `if (elect_sync(~0u))` arrives once per warp, not once per thread.",
    seeAlso: ['ptx.elect.sync'],
  },

  // ---------------------------------------------------------------------------------------------
  // cuda_awbarrier_primitives.h
  // ---------------------------------------------------------------------------------------------
  {
    id: 'prim.__mbarrier_init',
    surface: 'primitives',
    names: ['__mbarrier_init'],
    signature: `void __mbarrier_init(__mbarrier_t* barrier, uint32_t expected_count);`,
    summary: "Initialises a shared-memory mbarrier for `expected_count` arrivals per phase.",
    semantics: "Phase 0, pending and expected counts = `expected_count`. No synchronisation.",
    phaseRules: "One thread, then `__syncthreads()` before other threads use it.",
    seeAlso: ['ptx.mbarrier.init'],
  },
  {
    id: 'prim.__mbarrier_inval',
    surface: 'primitives',
    names: ['__mbarrier_inval'],
    signature: `void __mbarrier_inval(__mbarrier_t* barrier);`,
    summary: "Invalidates the mbarrier so its memory can be reused.",
    semantics: "Ends the barrier's life; later operations other than init are undefined.",
    phaseRules: "Only after every thread has finished arriving and waiting on it.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.inval'],
  },
  {
    id: 'prim.__mbarrier_arrive',
    surface: 'primitives',
    names: ['__mbarrier_arrive'],
    signature: `__mbarrier_token_t __mbarrier_arrive(__mbarrier_t* barrier);`,
    summary: "Arrives once on the current phase and returns its token.",
    semantics: "Lowers the pending count by one; completes the phase if it reaches zero.",
    phaseRules: "Counts against the init count once per calling thread. " + TOKEN_RULE,
    arrives: true,
    seeAlso: ['prim.__mbarrier_try_wait', 'ptx.mbarrier.arrive'],
  },
  {
    id: 'prim.__mbarrier_arrive_and_drop',
    surface: 'primitives',
    names: ['__mbarrier_arrive_and_drop'],
    signature: `__mbarrier_token_t __mbarrier_arrive_and_drop(__mbarrier_t* barrier);`,
    summary: "Arrives once and lowers the expected count of all later phases by one.",
    semantics: "Pending count −1 now, expected count −1 from the next phase on.",
    phaseRules: "Use it when a thread stops participating; afterwards it must not arrive again.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive_drop'],
  },
  {
    id: 'prim.__mbarrier_test_wait',
    surface: 'primitives',
    names: ['__mbarrier_test_wait'],
    signature: `bool __mbarrier_test_wait(__mbarrier_t* barrier, __mbarrier_token_t token);`,
    summary: "Non-blocking check: has the token's phase completed?",
    semantics: "No change to the counts.",
    phaseRules: "Poll it in a loop to wait. " + TOKEN_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.test_wait'],
  },
  {
    id: 'prim.__mbarrier_test_wait_parity',
    surface: 'primitives',
    names: ['__mbarrier_test_wait_parity'],
    signature: `bool __mbarrier_test_wait_parity(__mbarrier_t* barrier, bool phase_parity);`,
    summary: "Non-blocking check: has the phase with parity `phase_parity` completed?",
    semantics: "No change to the counts.",
    phaseRules: "Poll it in a loop to wait. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.test_wait.parity'],
  },
  {
    id: 'prim.__mbarrier_try_wait',
    surface: 'primitives',
    names: ['__mbarrier_try_wait'],
    signature: `bool __mbarrier_try_wait(__mbarrier_t* barrier, __mbarrier_token_t token,
                         uint32_t max_sleep_nanosec);`,
    summary: "Waits up to about `max_sleep_nanosec` for the token's phase to complete; returns whether it did.",
    semantics: "No change to the counts.",
    phaseRules: "Loop until it returns true. " + TOKEN_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait'],
  },
  {
    id: 'prim.__mbarrier_try_wait_parity',
    surface: 'primitives',
    names: ['__mbarrier_try_wait_parity'],
    signature: `bool __mbarrier_try_wait_parity(__mbarrier_t* barrier, bool phase_parity,
                                uint32_t max_sleep_nanosec);`,
    summary: "Waits up to about `max_sleep_nanosec` for the phase with parity `phase_parity` to complete; returns whether it did.",
    semantics: "No change to the counts.",
    phaseRules: "Loop until it returns true. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait.parity'],
  },
  {
    id: 'prim.__mbarrier_token_pending_count',
    surface: 'primitives',
    names: ['__mbarrier_token_pending_count'],
    signature: `uint32_t __mbarrier_token_pending_count(__mbarrier_token_t token);`,
    summary: "Reads the pending arrival count stored in a token.",
    semantics: "Looks only at the token, not at the barrier; the value is a snapshot from when the token was made.",
    seeAlso: ['ptx.mbarrier.pending_count'],
  },
  {
    id: 'prim.__mbarrier_maximum_count',
    surface: 'primitives',
    names: ['__mbarrier_maximum_count'],
    signature: `uint32_t __mbarrier_maximum_count();`,
    summary: "Largest `expected_count` the primitives accept.",
    semantics: "A constant; no barrier effect. (2^14 − 1 in the CUDA 13.0 headers, below the 2^20 − 1 hardware limit.)",
  },
  {
    id: 'prim.__mbarrier_t',
    surface: 'primitives',
    names: ['__mbarrier_t'],
    signature: `typedef uint64_t __mbarrier_t;`,
    summary: "Storage type of an mbarrier for the primitives API; must live in shared memory.",
    semantics: "Plain 64-bit word holding the counts and the phase; read or write it only through mbarrier operations.",
    seeAlso: ['prim.__mbarrier_init'],
  },
  {
    id: 'prim.__mbarrier_token_t',
    surface: 'primitives',
    names: ['__mbarrier_token_t'],
    signature: `typedef uint64_t __mbarrier_token_t;`,
    summary: "Token returned by `__mbarrier_arrive`; names the phase the thread arrived in.",
    semantics: "Opaque copy of the barrier state at the arrive; it does not change when the barrier advances.",
    phaseRules: TOKEN_RULE,
    seeAlso: ['prim.__mbarrier_arrive'],
  },

  // ---------------------------------------------------------------------------------------------
  // Raw PTX (inside asm strings)
  // ---------------------------------------------------------------------------------------------
  {
    id: 'ptx.mbarrier.init',
    surface: 'ptx',
    ptx: 'mbarrier.init',
    names: ['mbarrier.init'],
    signature: `mbarrier.init{.shared{::cta}}.b64 [addr], count;`,
    summary: "Initialises an mbarrier in shared memory for `count` arrivals per phase.",
    semantics: "Phase 0, pending and expected counts = `count`, tx-count 0. Behaves like a store: other threads need a sync to see it.",
    phaseRules:
      "One thread, once, before any arrive or wait. Then `bar.sync` / `__syncthreads()` for this CTA, or `fence.mbarrier_init.release.cluster` plus `barrier.cluster.arrive` / `wait` when other CTAs use it. `count` is 1 to 2^20 − 1. Initialising a barrier that is still valid is undefined: `mbarrier.inval` it first.",
    seeAlso: ['ptx.fence.mbarrier_init', 'ptx.mbarrier.inval'],
  },
  {
    id: 'ptx.mbarrier.arrive',
    surface: 'ptx',
    ptx: 'mbarrier.arrive',
    names: ['mbarrier.arrive'],
    signature: `mbarrier.arrive{.release|.relaxed}{.cta|.cluster}{.shared{::cta}}.b64  state, [addr]{, count};
mbarrier.arrive{.release|.relaxed}{.cta|.cluster}.shared::cluster.b64  _, [addr]{, count};`,
    summary: "Arrives on an mbarrier (`count` times, default 1) without waiting.",
    semantics:
      "Lowers the pending count by `count`, with release ordering by default. When pending and tx-count both reach zero, the phase completes: the count reloads and the phase advances. A local arrive returns the state as a token; an arrive on another CTA's barrier (`shared::cluster`) must discard it with `_`.",
    phaseRules:
      "Counts once per executing thread: a whole warp running it arrives 32 times. Arrivals beyond what the phase needs complete it early and leak into the next phase; hardware can trap on that ('unspecified launch failure'). Bind `state` if you plan a token wait.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive.expect_tx', 'ptx.mbarrier.try_wait'],
  },
  {
    id: 'ptx.mbarrier.arrive.noComplete',
    surface: 'ptx',
    ptx: 'mbarrier.arrive.noComplete',
    names: ['mbarrier.arrive.noComplete'],
    signature: `mbarrier.arrive.noComplete{.release}{.cta}{.shared{::cta}}.b64  state, [addr], count;`,
    summary: "Arrives `count` times on the promise that this does not finish the phase.",
    semantics: "Lowers the pending count by `count`. Undefined if it would complete the phase.",
    phaseRules: "Only when another arrival is certain to follow in the same phase.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive'],
  },
  {
    id: 'ptx.mbarrier.arrive.expect_tx',
    surface: 'ptx',
    ptx: 'mbarrier.arrive.expect_tx',
    names: ['mbarrier.arrive.expect_tx'],
    signature: `mbarrier.arrive.expect_tx{.release|.relaxed}{.cta|.cluster}{.shared{::cta}}.b64  state, [addr], txCount;
mbarrier.arrive.expect_tx{.release|.relaxed}{.cta|.cluster}.shared::cluster.b64  _, [addr], txCount;`,
    summary: "Adds `txCount` expected bytes to the current phase, then arrives once.",
    semantics:
      "Raises the tx-count by `txCount` first, then lowers the pending count by one. The phase now also waits until TMA / bulk copies have delivered that many bytes to this barrier.",
    phaseRules:
      "It IS an arrival (unlike `mbarrier.expect_tx`): the usual TMA 'full' barrier is init 1 plus one `arrive.expect_tx` from an elected thread per phase. `txCount` = total bytes delivered to this barrier in this phase: full boxes even when partly out of bounds, times every CTA that multicasts into it. Too few bytes lets the phase end before the data lands; too many hangs it.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.expect_tx', 'ptx.cp.async.bulk.tensor'],
  },
  {
    id: 'ptx.mbarrier.expect_tx',
    surface: 'ptx',
    ptx: 'mbarrier.expect_tx',
    names: ['mbarrier.expect_tx'],
    signature: `mbarrier.expect_tx{.relaxed}{.cta|.cluster}{.shared{::cta|::cluster}}.b64  [addr], txCount;`,
    summary: "Adds `txCount` expected bytes to the current phase without arriving.",
    semantics: "Raises the tx-count only; the pending arrival count is unchanged.",
    phaseRules:
      "NOT an arrival. The thread must still arrive (plain `mbarrier.arrive`) or the phase never completes. Issue it in the phase the bytes belong to, before that phase can end.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.arrive.expect_tx', 'ptx.mbarrier.complete_tx'],
  },
  {
    id: 'ptx.mbarrier.complete_tx',
    surface: 'ptx',
    ptx: 'mbarrier.complete_tx',
    names: ['mbarrier.complete_tx'],
    signature: `mbarrier.complete_tx{.relaxed}{.cta|.cluster}{.shared{::cta|::cluster}}.b64  [addr], txCount;`,
    summary: "Lowers the tx-count by `txCount`, as if copies of that size had landed.",
    semantics:
      "Decrements the tx-count; completes the phase if that reaches zero and no arrivals are pending. This is what `mbarrier::complete_tx::bytes` copies do in hardware.",
    phaseRules:
      "Not an arrival. Use it only to settle bytes that were announced with expect_tx but will not be delivered by a copy; completing more bytes than expected ends the phase early.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.expect_tx'],
  },
  {
    id: 'ptx.mbarrier.arrive_drop',
    surface: 'ptx',
    ptx: 'mbarrier.arrive_drop',
    names: ['mbarrier.arrive_drop'],
    signature: `mbarrier.arrive_drop{.expect_tx|.noComplete}{.release|.relaxed}{.cta|.cluster}{.shared{::cta}}.b64  state, [addr]{, count};
mbarrier.arrive_drop{.release|.relaxed}{.cta|.cluster}.shared::cluster.b64  _, [addr]{, count};`,
    summary: "Arrives `count` times and lowers the expected count for all later phases by `count`.",
    semantics: "Pending count −count now; every later phase needs `count` fewer arrivals.",
    phaseRules:
      "The correct way for a participant to leave early (for example a warp that runs out of work). After dropping, it must not arrive again; a participant that just stops arriving hangs later phases.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive'],
  },
  {
    id: 'ptx.mbarrier.try_wait',
    surface: 'ptx',
    ptx: 'mbarrier.try_wait',
    names: ['mbarrier.try_wait'],
    signature: `mbarrier.try_wait{.acquire|.relaxed}{.cta|.cluster}{.shared{::cta}}.b64  waitComplete, [addr], state{, suspendTimeHint};`,
    summary: "Tests whether the phase recorded in `state` has completed, suspending the thread for a bounded time.",
    semantics:
      "No change to the counts. Sets `waitComplete` once the barrier has moved past the token's phase; otherwise the thread may sleep until the phase completes or a time limit passes, then gets false. With `.acquire` (the default) a true result makes the arrivers' released writes visible.",
    phaseRules: "It can return false: loop (`@!p bra retry;`). Only a barrier in the executing CTA can be waited on. " + TOKEN_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait.parity', 'ptx.mbarrier.arrive'],
  },
  {
    id: 'ptx.mbarrier.try_wait.parity',
    surface: 'ptx',
    ptx: 'mbarrier.try_wait.parity',
    names: ['mbarrier.try_wait.parity'],
    signature: `mbarrier.try_wait.parity{.acquire|.relaxed}{.cta|.cluster}{.shared{::cta}}.b64  waitComplete, [addr], phaseParity{, suspendTimeHint};`,
    summary: "Tests whether the phase with parity `phaseParity` has completed, suspending the thread for a bounded time.",
    semantics:
      "No change to the counts. `waitComplete` is true when the barrier's current phase parity differs from `phaseParity`, i.e. the phase you named has finished. Only one bit of the phase is compared.",
    phaseRules: "It can return false: loop on it. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait', 'ptx.mbarrier.test_wait.parity'],
  },
  {
    id: 'ptx.mbarrier.test_wait',
    surface: 'ptx',
    ptx: 'mbarrier.test_wait',
    names: ['mbarrier.test_wait'],
    signature: `mbarrier.test_wait{.acquire|.relaxed}{.cta|.cluster}{.shared{::cta}}.b64  waitComplete, [addr], state;`,
    summary: "Non-blocking test: has the phase recorded in `state` completed?",
    semantics: "No change to the counts; never suspends.",
    phaseRules: "Needs a polling loop to act as a wait. " + TOKEN_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait'],
  },
  {
    id: 'ptx.mbarrier.test_wait.parity',
    surface: 'ptx',
    ptx: 'mbarrier.test_wait.parity',
    names: ['mbarrier.test_wait.parity'],
    signature: `mbarrier.test_wait.parity{.acquire|.relaxed}{.cta|.cluster}{.shared{::cta}}.b64  waitComplete, [addr], phaseParity;`,
    summary: "Non-blocking test: has the phase with parity `phaseParity` completed?",
    semantics: "No change to the counts; never suspends.",
    phaseRules: "Needs a polling loop to act as a wait. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait.parity'],
  },
  {
    id: 'ptx.mbarrier.inval',
    surface: 'ptx',
    ptx: 'mbarrier.inval',
    names: ['mbarrier.inval'],
    signature: `mbarrier.inval{.shared{::cta}}.b64  [addr];`,
    summary: "Invalidates an mbarrier so its shared-memory word can be reused.",
    semantics: "Ends the barrier's life; any later mbarrier operation on it other than `mbarrier.init` is undefined.",
    phaseRules:
      "Only after every thread, copy and commit targeting it is finished; usually between two CTA syncs. Required before reusing the memory for anything else or re-initialising.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.init'],
  },
  {
    id: 'ptx.mbarrier.pending_count',
    surface: 'ptx',
    ptx: 'mbarrier.pending_count',
    names: ['mbarrier.pending_count'],
    signature: `mbarrier.pending_count.b64  count, state;`,
    summary: "Extracts the pending arrival count from a state token.",
    semantics: "Reads the token only, not the barrier; the value is a snapshot from when the token was produced.",
  },
  {
    id: 'ptx.cp.async.bulk',
    surface: 'ptx',
    ptx: 'cp.async.bulk',
    names: ['cp.async.bulk'],
    signature: `cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes  [dst], [src], size, [mbar];
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}  [dst], [src], size, [mbar]{, ctaMask};
cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes  [dst], [src], size, [mbar];
cp.async.bulk.global.shared::cta.bulk_group  [dst], [src], size;`,
    summary: "Bulk (non-tensor) TMA copy; into shared memory it reports completed bytes to an mbarrier.",
    semantics:
      "Returns immediately. As bytes land in shared memory they lower the tx-count of `mbar` (in the destination CTA). Not an arrival. The shared→global form completes through bulk async-groups instead.",
    phaseRules:
      "Someone must add `size` bytes to the barrier's tx-count in the same phase (`arrive.expect_tx` or `expect_tx`), and the phase's arrivals must still happen. `size` and both addresses must be multiples of 16.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.arrive.expect_tx', 'ptx.cp.async.bulk.wait_group'],
  },
  {
    id: 'ptx.cp.async.bulk.tensor',
    surface: 'ptx',
    ptx: 'cp.async.bulk.tensor',
    names: ['cp.async.bulk.tensor'],
    signature: `cp.async.bulk.tensor.{1d..5d}.shared::cluster.global{.tile|.im2col}.mbarrier::complete_tx::bytes{.multicast::cluster}{.cta_group::N}
    [dst], [tensorMap, {coords}], [mbar]{, ctaMask}{, cache-policy};`,
    summary: "Tensor TMA load of one box described by a tensor map; completion is reported as bytes on an mbarrier.",
    semantics:
      "Each box lowers the barrier's tx-count by the full box size when it lands, even if part of it was out of bounds and zero-filled. With `.multicast::cluster` the box lands in every CTA of `ctaMask`, and each of their barriers (same offset) receives the bytes. With `.cta_group::2` the barrier may be in the destination CTA's peer (rank ^ 1), so both CTAs of a pair can complete on the even CTA's barrier, as CUTLASS's `SM100_TMA_2SM_LOAD` does. Not an arrival.",
    phaseRules:
      "expect_tx for a phase = box bytes × boxes issued × CTAs that deliver into this barrier (2-CTA and multicast kernels multiply). Read the data only after waiting on the barrier.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.arrive.expect_tx', 'ptx.cp.async.bulk'],
  },
  {
    id: 'ptx.cp.reduce.async.bulk',
    surface: 'ptx',
    ptx: 'cp.reduce.async.bulk',
    names: ['cp.reduce.async.bulk'],
    signature: `cp.reduce.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}.{add|min|max|inc|dec|and|or|xor}{.noftz}.type
    [dstMem], [srcMem], size{, cache-policy};
cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.{add|min|max|inc|dec|and|or|xor}.type
    [dstMem], [srcMem], size, [mbar];`,
    summary: "Bulk (non-tensor) reduction: combines `size` bytes of shared memory element by element into global memory, or into the shared memory of a CTA of the cluster.",
    semantics:
      "Returns immediately; the async proxy reads the source and applies `dst = dst op src` to each element, rounded once (nearest even) for floating point. Into global memory: `.add` takes u32/s32/u64/f32/f64 and f16/bf16 as `.add.noftz`, `.min`/`.max` u32/s32/u64/s64/f16/bf16, `.inc`/`.dec` u32, `.and`/`.or`/`.xor` b32/b64; completion is tracked by bulk groups. Into shared::cluster memory: `.add` u32/s32/u64, `.min`/`.max` u32/s32, `.inc`/`.dec` u32, bitwise b32 only (ptxas refuses b64 there); the mbarrier (in the destination's CTA) gets complete_tx of `size` bytes.",
    phaseRules:
      "Threads that wrote the source with ordinary stores must `fence.proxy.async.shared::cta` before the sync that hands it over. `size` and both addresses must be multiples of 16. Global form: `cp.async.bulk.wait_group.read` before reusing the source, `wait_group` before reading the result. Cluster form: the destination barrier's phase must expect the `size` bytes (expect_tx), and the destination CTA must stay alive until they land.",
    arrives: false,
    seeAlso: ['ptx.cp.reduce.async.bulk.tensor', 'ptx.cp.async.bulk', 'ptx.cp.async.bulk.commit_group'],
  },
  {
    id: 'ptx.cp.reduce.async.bulk.tensor',
    surface: 'ptx',
    ptx: 'cp.reduce.async.bulk.tensor',
    names: ['cp.reduce.async.bulk.tensor'],
    signature: `cp.reduce.async.bulk.tensor.{1d..5d}.global.shared::cta.{add|min|max|inc|dec|and|or|xor}.tile.bulk_group
    [tensorMap, {coords}], [smem_src];`,
    summary: "Tensor TMA reduction: combines a shared-memory box into the global box of a tensor map, element by element.",
    semantics:
      "Returns immediately; the async proxy reads the shared source and applies the reduction to every element of the box inside the tensor (elements outside are skipped). The element type is the map's: `.add` takes u32/s32/u64/f32/f16/bf16, `.min`/`.max` u32/s32/u64/s64/f16/bf16, `.inc`/`.dec` u32, `.and`/`.or`/`.xor` 32- and 64-bit integers. Completion is tracked by bulk groups.",
    phaseRules:
      "Threads that wrote the source with ordinary stores must `fence.proxy.async.shared::cta` before the sync that hands it over; `cp.async.bulk.wait_group.read` before reusing the source. On an H200 a box whose innermost start coordinate is not a multiple of 16 bytes, or any negative coordinate, faults (illegal instruction).",
    arrives: false,
    seeAlso: ['ptx.cp.async.bulk.tensor', 'ptx.cp.async.bulk.commit_group'],
  },
  {
    id: 'ptx.cp.async.bulk.prefetch.tensor',
    surface: 'ptx',
    ptx: 'cp.async.bulk.prefetch.tensor',
    names: ['cp.async.bulk.prefetch.tensor'],
    signature: `cp.async.bulk.prefetch.tensor.{1d..5d}.L2.global.tile [tensorMap, {coords}];`,
    summary: "Prefetches a tensor map's box into L2. A hint: no effect on values, no completion to wait for.",
    semantics: "The simulator accepts it and does nothing.",
    phaseRules: "None: nothing arrives and no bytes are counted on any barrier.",
    arrives: false,
    seeAlso: ['ptx.cp.async.bulk.tensor'],
  },
  {
    id: 'ptx.prefetch.tensormap',
    surface: 'ptx',
    ptx: 'prefetch.tensormap',
    names: ['prefetch.tensormap'],
    signature: `prefetch{.const|.param}.tensormap [tensorMap];`,
    summary: "Brings a tensor map (CUtensorMap) into the cache the TMA unit reads it from. A hint: no effect on values.",
    semantics: "The simulator accepts it and does nothing.",
    phaseRules: "None.",
    arrives: false,
    seeAlso: ['ptx.cp.async.bulk.tensor'],
  },
  {
    id: 'ptx.fence.proxy.tensormap',
    surface: 'ptx',
    ptx: 'fence.proxy.tensormap::generic',
    names: ['fence.proxy.tensormap::generic'],
    signature: `fence.proxy.tensormap::generic.release.{cta|cluster|gpu|sys};
fence.proxy.tensormap::generic.acquire.{cta|cluster|gpu|sys} [tensorMap], 128;`,
    summary: "Orders generic-proxy writes of a tensor map (one modified in global memory) before the TMA unit reads it.",
    semantics: "The simulator's tensor copies read the map's bytes when they issue, so it accepts the fence and does nothing.",
    phaseRules: "A kernel that rewrites a tensor map in global memory needs the release by the writer and the acquire before the copy that uses it.",
    arrives: false,
    seeAlso: ['ptx.cp.async.bulk.tensor'],
  },
  {
    id: 'ptx.cp.async.bulk.commit_group',
    surface: 'ptx',
    ptx: 'cp.async.bulk.commit_group',
    names: ['cp.async.bulk.commit_group'],
    signature: `cp.async.bulk.commit_group;`,
    summary: "Closes this thread's pending bulk-group copies (e.g. TMA stores) into one group.",
    semantics: "Per-thread bookkeeping; no mbarrier effect.",
    phaseRules: "Only copies issued before it are covered by a later `cp.async.bulk.wait_group`.",
    seeAlso: ['ptx.cp.async.bulk.wait_group'],
  },
  {
    id: 'ptx.cp.async.bulk.wait_group',
    surface: 'ptx',
    ptx: 'cp.async.bulk.wait_group',
    names: ['cp.async.bulk.wait_group'],
    signature: `cp.async.bulk.wait_group{.read} N;`,
    summary: "Waits until at most `N` of this thread's most recent bulk groups are still pending.",
    semantics: "Blocks the issuing thread only; no mbarrier effect.",
    phaseRules:
      "`.read` only waits until the source shared memory has been read (safe to overwrite), not until the writes are visible in global memory.",
    seeAlso: ['ptx.cp.async.bulk.commit_group'],
  },
  {
    id: 'ptx.cp.async.mbarrier.arrive',
    surface: 'ptx',
    ptx: 'cp.async.mbarrier.arrive',
    names: ['cp.async.mbarrier.arrive'],
    signature: `cp.async.mbarrier.arrive{.shared{::cta}}.b64  [addr];`,
    summary: "Adds one to the pending count now, and arrives once this thread's earlier `cp.async` copies finish.",
    semantics: "Net effect on the arrival count is zero: +1 immediately, −1 asynchronously when the copies complete. The phase therefore cannot finish before the copies do.",
    phaseRules:
      "Not the thread's arrival: the thread must still `mbarrier.arrive`, and the init count counts only those normal arrivals. Treating it as the arrival (no separate arrive) hangs the phase. Compare `.noinc`.",
    arrives: false,
    seeAlso: ['ptx.cp.async.mbarrier.arrive.noinc', 'ptx.cp.async'],
  },
  {
    id: 'ptx.cp.async.mbarrier.arrive.noinc',
    surface: 'ptx',
    ptx: 'cp.async.mbarrier.arrive.noinc',
    names: ['cp.async.mbarrier.arrive.noinc'],
    signature: `cp.async.mbarrier.arrive.noinc{.shared{::cta}}.b64  [addr];`,
    summary: "Arrives once this thread's earlier `cp.async` copies finish, without first raising the pending count.",
    semantics: "One asynchronous arrival that counts toward the current phase.",
    phaseRules:
      "This arrival counts toward the init count: include one per issuing thread (e.g. init N when it is the only arrival of N threads, 2N when they also arrive normally).",
    arrives: true,
    seeAlso: ['ptx.cp.async.mbarrier.arrive'],
  },
  {
    id: 'ptx.cp.async',
    surface: 'ptx',
    ptx: 'cp.async',
    names: ['cp.async'],
    signature: `cp.async.{ca|cg}.shared{::cta}.global{.L2::cache_hint}  [dst], [src], cp-size{, src-size}{, cache-policy};`,
    summary: "Per-thread asynchronous global→shared copy of 4, 8 or 16 bytes (sm_80+).",
    semantics:
      "Touches no mbarrier by itself. Completion is tracked per thread with `cp.async.commit_group` / `wait_group`, or tied to an mbarrier with `cp.async.mbarrier.arrive[.noinc]`.",
    phaseRules: "Reading the destination before the matching wait is a race.",
    seeAlso: ['ptx.cp.async.commit_group', 'ptx.cp.async.wait_group', 'ptx.cp.async.mbarrier.arrive'],
  },
  {
    id: 'ptx.cp.async.commit_group',
    surface: 'ptx',
    ptx: 'cp.async.commit_group',
    names: ['cp.async.commit_group'],
    signature: `cp.async.commit_group;`,
    summary: "Closes this thread's outstanding `cp.async` copies into one group.",
    semantics: "Per-thread bookkeeping; no mbarrier effect.",
    phaseRules: "Copies issued after it belong to the next group; a `wait_group` only covers committed groups.",
    seeAlso: ['ptx.cp.async.wait_group'],
  },
  {
    id: 'ptx.cp.async.wait_group',
    surface: 'ptx',
    ptx: 'cp.async.wait_group',
    names: ['cp.async.wait_group', 'cp.async.wait_all'],
    signature: `cp.async.wait_group N;
cp.async.wait_all;`,
    summary: "Waits until at most `N` of this thread's most recent `cp.async` groups are pending (`wait_all`: none).",
    semantics: "Blocks the issuing thread only; no mbarrier effect.",
    phaseRules: "Makes the data visible to the issuing thread only; other threads need a barrier afterwards.",
    seeAlso: ['ptx.cp.async.commit_group'],
  },
  {
    id: 'ptx.tcgen05.mma',
    surface: 'ptx',
    ptx: 'tcgen05.mma',
    names: ['tcgen05.mma'],
    signature: `tcgen05.mma{.ws}.cta_group::{1|2}.kind::<kind>  [d_tmem], a_desc|[a_tmem], b_desc, idesc, enable_input_d{, ...};`,
    summary: "Issues an asynchronous tensor-core MMA (sm_100) with its accumulator in tensor memory.",
    semantics:
      "Only queues work: nothing is complete when it returns, and it arrives on no barrier. With `.cta_group::2` one thread of a CTA pair (cluster ranks differing in bit 0) issues it for both CTAs: A's and D's rows are split between the pair (first half in the even CTA), B's N columns likewise, each CTA's half at the same descriptor and tensor-memory address.",
    phaseRules:
      "Follow it with `tcgen05.commit` to an mbarrier and wait on that barrier before reading the accumulator or letting the producer overwrite the shared-memory operands. Issue from one thread (with `.cta_group::2`, one thread of the pair: issuing from both CTAs computes every product twice).",
    arrives: false,
    seeAlso: ['ptx.tcgen05.commit'],
  },
  {
    id: 'ptx.tcgen05.commit',
    surface: 'ptx',
    ptx: 'tcgen05.commit',
    names: ['tcgen05.commit'],
    signature: `tcgen05.commit.cta_group::{1|2}.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64  [mbar]{, ctaMask};`,
    summary: "One arrival on `mbar` once all of this thread's earlier tcgen05 async operations are done.",
    semantics:
      "Tracks the thread's earlier `tcgen05.mma` / `cp` / `shift`; when they finish, the barrier gets exactly one arrival. With `.multicast::cluster`, each CTA in `ctaMask` gets one arrival on the barrier at the same offset (CUTLASS's `umma_arrive_multicast_2x1SM` signals both CTAs of a pair this way). Implies `tcgen05.fence::before_thread_sync`.",
    phaseRules:
      "One arrival per executing thread: issue it from one elected thread (a warp-wide commit arrives many times). Init the barrier with the number of commits per phase.",
    arrives: true,
    seeAlso: ['ptx.tcgen05.mma', 'ptx.tcgen05.fence::after_thread_sync'],
  },
  {
    id: 'ptx.tcgen05.fence::before_thread_sync',
    surface: 'ptx',
    ptx: 'tcgen05.fence::before_thread_sync',
    names: ['tcgen05.fence::before_thread_sync'],
    signature: `tcgen05.fence::before_thread_sync;`,
    summary: "Orders this thread's earlier tcgen05 operations before the synchronisation that follows.",
    semantics: "No barrier effect on its own.",
    phaseRules:
      "Place it before an mbarrier arrive or `bar.sync` that lets another thread reuse tensor memory or the operands. `tcgen05.commit` already implies it.",
    seeAlso: ['ptx.tcgen05.fence::after_thread_sync'],
  },
  {
    id: 'ptx.tcgen05.fence::after_thread_sync',
    surface: 'ptx',
    ptx: 'tcgen05.fence::after_thread_sync',
    names: ['tcgen05.fence::after_thread_sync'],
    signature: `tcgen05.fence::after_thread_sync;`,
    summary: "Orders this thread's later tcgen05 operations after the synchronisation that preceded it.",
    semantics: "No barrier effect on its own.",
    phaseRules: "Place it right after the mbarrier wait (or `bar.sync`) that guards tensor-memory use, before the dependent `tcgen05.ld` / `mma`.",
    seeAlso: ['ptx.tcgen05.fence::before_thread_sync'],
  },
  {
    id: 'ptx.fence.mbarrier_init',
    surface: 'ptx',
    ptx: 'fence.mbarrier_init',
    names: ['fence.mbarrier_init'],
    signature: `fence.mbarrier_init.release.cluster;`,
    summary: "Lightweight release fence that publishes this thread's earlier `mbarrier.init`s to the cluster.",
    semantics: "Orders the thread's prior inits before its later operations at cluster scope. It does not synchronise by itself.",
    phaseRules:
      "Issue it from the thread that did the init, then sync the cluster (`barrier.cluster.arrive.relaxed` + `barrier.cluster.wait`) before other CTAs arrive on, multicast into or commit to these barriers. Barriers used only inside the CTA need just `__syncthreads()`.",
    seeAlso: ['ptx.mbarrier.init', 'ptx.barrier.cluster.arrive'],
  },
  {
    id: 'ptx.fence.proxy.async',
    surface: 'ptx',
    ptx: 'fence.proxy.async',
    names: ['fence.proxy.async'],
    signature: `fence.proxy.async{.global|.shared::cta|.shared::cluster};`,
    summary: "Orders ordinary loads/stores against async-proxy accesses (TMA, bulk copies, wgmma/tcgen05 operand reads).",
    semantics: "No barrier effect. Makes this thread's earlier generic writes visible to later async operations, and the reverse, for the given state space.",
    phaseRules:
      "Needed when threads write shared memory with ordinary stores and a TMA store or MMA reads it, or before handing such a buffer back to a TMA producer; put it before the arrive or sync that hands the buffer over. Not needed between `mbarrier.init` and a TMA issued by the same thread.",
    seeAlso: ['ptx.cp.async.bulk'],
  },
  {
    id: 'ptx.bar.sync',
    surface: 'ptx',
    ptx: 'bar.sync',
    names: ['bar.sync', 'barrier.sync'],
    signature: `bar{.cta}.sync  id{, nthreads};
barrier{.cta}.sync{.aligned}  id{, nthreads};`,
    summary: "Named CTA barrier: arrive on barrier `id` and wait until `nthreads` threads (default: the whole CTA) have arrived.",
    semantics:
      "Not an mbarrier. Each CTA has 16 ids (0–15); `__syncthreads()` uses id 0. Also orders memory among the participating threads.",
    phaseRules:
      "`nthreads` must be a multiple of 32 and the same for every participant; each warp counts with all its threads. Sharing an id between groups of different sizes, or with `__syncthreads()`, deadlocks or releases early.",
    seeAlso: ['ptx.bar.arrive', 'sync.__syncthreads'],
  },
  {
    id: 'ptx.bar.arrive',
    surface: 'ptx',
    ptx: 'bar.arrive',
    names: ['bar.arrive', 'barrier.arrive'],
    signature: `bar{.cta}.arrive  id, nthreads;
barrier{.cta}.arrive{.aligned}  id, nthreads;`,
    summary: "Arrives on named barrier `id` without waiting (the producer side of a `bar.sync`).",
    semantics: "Counts the warp toward `nthreads`; threads waiting in `bar.sync` on the same id are released once `nthreads` have arrived. Not an mbarrier.",
    phaseRules:
      "`nthreads` is required and must match the `bar.sync` side. An extra arrive counts toward the next use of the barrier, so producers and consumers must stay in step.",
    seeAlso: ['ptx.bar.sync'],
  },
  {
    id: 'ptx.barrier.cluster.arrive',
    surface: 'ptx',
    ptx: 'barrier.cluster.arrive',
    names: ['barrier.cluster.arrive'],
    signature: `barrier.cluster.arrive{.release|.relaxed}{.aligned};`,
    summary: "Marks this thread's arrival on the cluster-wide hardware barrier.",
    semantics:
      "Not an mbarrier. `barrier.cluster.wait` returns once every non-exited thread of every CTA in the cluster has arrived. Release ordering by default; `.relaxed` drops it.",
    phaseRules:
      "Pair each arrive with one wait before arriving again. Use it after `fence.mbarrier_init` (relaxed is enough there), and before exiting while peers may still touch this CTA's shared memory.",
    seeAlso: ['ptx.barrier.cluster.wait', 'ptx.fence.mbarrier_init'],
  },
  {
    id: 'ptx.barrier.cluster.wait',
    surface: 'ptx',
    ptx: 'barrier.cluster.wait',
    names: ['barrier.cluster.wait'],
    signature: `barrier.cluster.wait{.acquire}{.aligned};`,
    summary: "Waits until all threads of the cluster have arrived on the cluster barrier.",
    semantics: "Acquire ordering by default: afterwards, writes released by the arrivals are visible. Not an mbarrier.",
    phaseRules: "Must follow this thread's own `barrier.cluster.arrive`.",
    seeAlso: ['ptx.barrier.cluster.arrive'],
  },
  {
    id: 'ptx.wgmma.fence',
    surface: 'ptx',
    ptx: 'wgmma.fence',
    names: ['wgmma.fence'],
    signature: `wgmma.fence.sync.aligned;`,
    summary: "Orders the warpgroup's earlier register accesses before the `wgmma.mma_async` that follows (sm_90a).",
    semantics:
      "Required before the first `wgmma.mma_async` of a warpgroup, and between a thread's access of an accumulator or A-fragment register and an `mma_async` that uses that register (a chain of same-shape MMAs on the same accumulators needs none). Shared-memory operands written by the threads need `fence.proxy.async` instead. No mbarrier effect.",
    phaseRules: "Without it the MMA may read the registers before the thread's writes land. The simulator reports a missing fence as misuse.",
    seeAlso: ['ptx.wgmma.mma_async', 'ptx.wgmma.commit_group'],
  },
  {
    id: 'ptx.wgmma.mma_async',
    surface: 'ptx',
    ptx: 'wgmma.mma_async',
    names: ['wgmma.mma_async'],
    signature: `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a-desc|{a}, b-desc, scale-d{, imm-scale-a, imm-scale-b{, imm-trans-a}, imm-trans-b};`,
    summary: "Warpgroup MMA (sm_90a): D = A × B (+ D), M = 64, N 8..256, A from shared memory (a descriptor) or registers, B from shared memory.",
    semantics:
      "All 128 threads of the warpgroup issue it together; it runs asynchronously. K is 16 for f16/bf16, 8 for tf32, 32 for e4m3/e5m2/s8/u8; accumulators f32 or f16 (s32 for integers). " +
      "A descriptor holds start address >> 4 (bits 0-13), leading and stride byte offsets >> 4 (16-29, 32-45), base offset (49-51) and the swizzle (62-63: none, 128B, 64B, 32B). " +
      "`scale-d` false ignores D; imm-scale ±1 negates A or B; imm-trans (f16/bf16) reads the operand MN-major. Thread 4g + t of warp w holds rows 16w + g and + 8 of D.",
    phaseRules:
      "The MMA owns its accumulator and A registers until `wgmma.wait_group` retires its group: reading or writing them earlier is a race (the simulator reports it). Its shared-memory reads go through the async proxy: `fence.proxy.async` after ordinary stores to the operands, and release a stage only after the wait.",
    seeAlso: ['ptx.wgmma.fence', 'ptx.wgmma.commit_group', 'ptx.wgmma.wait_group'],
  },
  {
    id: 'ptx.ldmatrix',
    surface: 'ptx',
    ptx: 'ldmatrix',
    names: ['ldmatrix'],
    signature: `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16 {d0, …}, [row];`,
    summary: "Warp-wide load of one, two or four 8×8 matrices of 16-bit elements from shared memory into registers.",
    semantics:
      "Lanes 8j..8j+7 give the addresses of rows 0..7 of matrix j (16 bytes each, 16-byte aligned). Register j of lane l receives elements (l/4, 2(l%4)) and (l/4, 2(l%4)+1) of matrix j, low half first; `.trans` delivers the transpose.",
    phaseRules: "Every lane of the warp executes it (`.sync.aligned`). The rows must have been written before (a barrier or `__syncwarp` after the stores).",
    seeAlso: ['ptx.stmatrix'],
  },
  {
    id: 'ptx.stmatrix',
    surface: 'ptx',
    ptx: 'stmatrix',
    names: ['stmatrix'],
    signature: `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared{::cta}.b16 [row], {r0, …};`,
    summary: "Warp-wide store of one, two or four 8×8 matrices of 16-bit elements from registers to shared memory (sm_90).",
    semantics: "The inverse of `ldmatrix`: lanes 8j..8j+7 give the row addresses of matrix j, and register j of lane l holds elements (l/4, 2(l%4)) and the next one (transposed with `.trans`).",
    phaseRules: "Every lane of the warp executes it. Other threads may read the rows only after a barrier.",
    seeAlso: ['ptx.ldmatrix'],
  },
  {
    id: 'ptx.wgmma.commit_group',
    surface: 'ptx',
    ptx: 'wgmma.commit_group',
    names: ['wgmma.commit_group'],
    signature: `wgmma.commit_group.sync.aligned;`,
    summary: "Groups the warp's not-yet-committed `wgmma.mma_async` operations into one wgmma-group (sm_90).",
    semantics: "Bookkeeping for async warpgroup MMAs; no mbarrier effect.",
    phaseRules: "Needed before `wgmma.wait_group` can wait for those MMAs.",
    seeAlso: ['ptx.wgmma.wait_group'],
  },
  {
    id: 'ptx.wgmma.wait_group',
    surface: 'ptx',
    ptx: 'wgmma.wait_group',
    names: ['wgmma.wait_group'],
    signature: `wgmma.wait_group.sync.aligned N;`,
    summary: "Waits until at most `N` of the most recent wgmma-groups are still pending.",
    semantics: "Once it returns, the finished MMAs no longer read their shared-memory operands and their accumulators are written. No mbarrier effect.",
    phaseRules:
      "Release a shared-memory stage (arrive on its 'empty' barrier) only after a wait_group that retires every MMA reading that stage; arriving earlier lets the producer overwrite operands still in use.",
    seeAlso: ['ptx.wgmma.commit_group'],
  },
  {
    id: 'ptx.elect.sync',
    surface: 'ptx',
    ptx: 'elect.sync',
    names: ['elect.sync'],
    signature: `elect.sync  laneid|pred, membermask;`,
    summary: "Picks one leader lane from `membermask`; the predicate is true only there.",
    semantics: "Warp-synchronous; no barrier effect. All lanes in the mask must execute it together. The leader is the lowest-numbered active lane of the mask (the simulator elects it so; `laneid` receives its number in every lane).",
    phaseRules:
      "The usual guard for single-thread `arrive.expect_tx`, TMA issue and `tcgen05.commit`. An arrive under it counts once per warp, not once per thread.",
  },
  {
    id: 'ptx.nanosleep',
    surface: 'ptx',
    ptx: 'nanosleep',
    names: ['nanosleep'],
    signature: `nanosleep.u32  t;          // __nanosleep(unsigned ns) in CUDA C++`,
    summary: "Suspends the thread for about `t` nanoseconds (the hardware picks a duration in [0, 2t]).",
    semantics: "No barrier effect and no memory ordering. The simulator advances the thread's simulated time by `t` (one cycle per nanosecond), so `%globaltimer` and `clock64()` read later move on by at least that.",
    phaseRules: "A back-off inside a try_wait retry loop is fine; it never replaces the wait, and sleeping does not make another thread's write visible.",
  },
  {
    id: 'ptx.griddepcontrol',
    surface: 'ptx',
    ptx: 'griddepcontrol',
    names: ['griddepcontrol', 'griddepcontrol.launch_dependents', 'griddepcontrol.wait'],
    signature: `griddepcontrol.launch_dependents;
griddepcontrol.wait;`,
    summary: "Programmatic dependent launch: let the next kernel in the stream start early / wait until the previous grid's memory is visible.",
    semantics: "No barrier effect. In a single kernel launch (what the simulator runs) there is no dependent grid and no primary grid, so both are no-ops there.",
    phaseRules: "`griddepcontrol.wait` must come before the first read of data the previous kernel wrote; `launch_dependents` only allows an earlier start, it publishes nothing.",
  },
  {
    id: 'ptx.setmaxnreg',
    surface: 'ptx',
    ptx: 'setmaxnreg',
    names: ['setmaxnreg'],
    signature: `setmaxnreg.inc.sync.aligned.u32  N;   // N: immediate in 24..256, a multiple of 8
setmaxnreg.dec.sync.aligned.u32  N;`,
    summary: "Raises (.inc) or lowers (.dec) the per-thread register budget of the executing warpgroup (warp-specialised kernels: producers give registers to consumers).",
    semantics: "No barrier effect. `.sync.aligned`: every thread of all four warps of the warpgroup must execute the same instruction. The simulator has no register file to resize; it checks N as ptxas does and makes the warpgroup's threads meet there (one thread alone waits forever: a deadlock naming it).",
    phaseRules: "Issue it right after the role split, in every warp of the warpgroup (not under an elect or a lane test); producers `.dec`, consumers `.inc`.",
  },
  {
    id: 'ptx.mapa',
    surface: 'ptx',
    ptx: 'mapa',
    names: ['mapa'],
    signature: `mapa{.shared::cluster}.{u32|u64}  dst, addr, cta_rank;`,
    summary: "Maps a shared-memory address in this CTA to the same variable's address in CTA `cta_rank` of the cluster.",
    semantics: "Address arithmetic only; no barrier effect.",
    phaseRules:
      "Used to arrive on a peer's mbarrier (`mbarrier.arrive.shared::cluster`). The peer's init must be visible cluster-wide (fence.mbarrier_init + cluster sync), and the peer must not exit while such arrivals are in flight.",
    seeAlso: ['ptx.mbarrier.arrive'],
  },

  // ---------------------------------------------------------------------------------------------
  // CTA / warp / cluster sync
  // ---------------------------------------------------------------------------------------------
  {
    id: 'sync.__syncthreads',
    surface: 'sync',
    names: ['__syncthreads'],
    signature: `void __syncthreads();`,
    summary: "Block-wide barrier: waits until every thread of the block arrives, and orders their memory accesses.",
    semantics: "Hardware named barrier 0 (`bar.sync 0`). Not an mbarrier.",
    phaseRules:
      "All threads of the block must reach it; do not put it in code that only some threads run. It is the usual way to make `mbarrier.init` visible to the rest of the CTA.",
    seeAlso: ['ptx.bar.sync'],
  },
  {
    id: 'sync.__syncwarp',
    surface: 'sync',
    names: ['__syncwarp'],
    signature: `void __syncwarp(unsigned mask = 0xffffffff);`,
    summary: "Synchronises and orders memory among the lanes in `mask` of the current warp.",
    semantics: "No mbarrier effect.",
    phaseRules:
      "Every lane named in `mask` must execute it. Use it to reconverge a warp before warp-collective operations such as `elect.sync` or `.aligned` instructions.",
  },
  {
    id: 'sync.__cluster_barrier_arrive',
    surface: 'sync',
    names: ['__cluster_barrier_arrive', '__cluster_barrier_arrive_relaxed'],
    signature: `void __cluster_barrier_arrive();\nvoid __cluster_barrier_arrive_relaxed();`,
    summary: "Arrives on the cluster barrier (`barrier.cluster.arrive.release` / `.relaxed`) without waiting (sm_90+).",
    semantics: "Every non-exited thread of every CTA of the cluster arrives once per phase; `__cluster_barrier_wait()` then waits for the phase. The release form orders the thread's earlier memory accesses before the waiters' later ones; the relaxed form orders nothing. Not an mbarrier.",
    phaseRules:
      "Arrive, then wait, then arrive again: two arrives without a wait in between are undefined. Independent work may sit between the arrive and the wait. After `fence.mbarrier_init`, a release arrive + wait publishes barrier inits to the cluster.",
    seeAlso: ['sync.__cluster_barrier_wait', 'ptx.barrier.cluster.arrive'],
  },
  {
    id: 'sync.__cluster_barrier_wait',
    surface: 'sync',
    names: ['__cluster_barrier_wait'],
    signature: `void __cluster_barrier_wait();`,
    summary: "Waits until every non-exited thread of the cluster has arrived on the cluster barrier (`barrier.cluster.wait.acquire`, sm_90+).",
    semantics: "Completes the phase the thread arrived in with `__cluster_barrier_arrive()`; acquire: the arrivals' released accesses are visible afterwards. Not an mbarrier.",
    phaseRules: "A thread must have arrived since its last wait. Ending the kernel with an arrive + wait keeps every CTA alive until its peers stop using its shared memory and barriers.",
    seeAlso: ['sync.__cluster_barrier_arrive', 'ptx.barrier.cluster.wait'],
  },
  {
    id: 'cg.this_thread_block',
    surface: 'cooperative_groups',
    names: ['this_thread_block', 'cooperative_groups::this_thread_block'],
    signature: `cooperative_groups::thread_block cooperative_groups::this_thread_block();`,
    summary: "Returns a handle to the calling thread's block.",
    semantics: "No synchronisation and no barrier effect.",
    phaseRules: "`block.size()` is the usual init count when every thread of the block arrives.",
    seeAlso: ['cg.thread_block.sync', 'cg.thread_rank', 'cg.size'],
  },
  {
    id: 'cg.thread_block.sync',
    surface: 'cooperative_groups',
    member: true,
    names: ['cooperative_groups::thread_block::sync', 'thread_block::sync'],
    signature: `void cooperative_groups::thread_block::sync();`,
    summary: "Block-wide barrier; same as `__syncthreads()`.",
    semantics: "Not an mbarrier.",
    phaseRules: "Every thread of the block must call it. Typical use: right after one thread initialises the block's mbarriers.",
    seeAlso: ['sync.__syncthreads'],
  },
  {
    id: 'cg.thread_rank',
    surface: 'cooperative_groups',
    member: true,
    names: [
      'cooperative_groups::thread_block::thread_rank',
      'thread_block::thread_rank',
      'cooperative_groups::cluster_group::thread_rank',
      'cluster_group::thread_rank',
    ],
    signature: `unsigned int thread_block::thread_rank();
unsigned int cluster_group::thread_rank();`,
    summary: "Rank of the calling thread within the group, from 0 to `size() - 1`.",
    semantics: "No barrier effect.",
    phaseRules: "`if (block.thread_rank() == 0)` is the usual guard for a single-thread init or arrive.",
  },
  {
    id: 'cg.size',
    surface: 'cooperative_groups',
    member: true,
    names: [
      'cooperative_groups::thread_block::size',
      'thread_block::size',
      'cooperative_groups::cluster_group::size',
      'cluster_group::size',
    ],
    signature: `unsigned int thread_block::size();    // also num_threads()
unsigned int cluster_group::size();`,
    summary: "Number of threads in the group.",
    semantics: "No barrier effect.",
    phaseRules: "A valid init count only if every one of these threads arrives once per phase.",
  },
  {
    id: 'cg.cluster_group.sync',
    surface: 'cooperative_groups',
    member: true,
    names: ['cooperative_groups::cluster_group::sync', 'cluster_group::sync'],
    signature: `void cooperative_groups::cluster_group::sync();`,
    summary: "Cluster-wide barrier across every thread of every CTA in the cluster.",
    semantics: "`barrier.cluster.arrive` followed by `barrier.cluster.wait`. Not an mbarrier.",
    phaseRules:
      "Use it after `fence.mbarrier_init` so other CTAs see initialised barriers, and before exit when peers may still arrive on this CTA's barriers.",
    seeAlso: ['ptx.barrier.cluster.arrive', 'ptx.fence.mbarrier_init'],
  },
  {
    id: 'cg.this_cluster',
    surface: 'cooperative_groups',
    names: ['this_cluster', 'cooperative_groups::this_cluster'],
    signature: `cooperative_groups::cluster_group cooperative_groups::this_cluster();`,
    summary: "Returns a handle to the calling thread's thread-block cluster (sm_90+).",
    semantics: "No synchronisation and no barrier effect.",
    seeAlso: ['cg.cluster_group.sync'],
  },

  // ---------------------------------------------------------------------------------------------
  // CUTLASS / CuTe
  // ---------------------------------------------------------------------------------------------
  {
    id: 'cutlass.ClusterBarrier.init',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterBarrier::init',
      'ClusterBarrier::init',
      'cutlass::arch::ClusterTransactionBarrier::init',
      'ClusterTransactionBarrier::init',
    ],
    signature: `void ClusterBarrier::init(uint32_t arrive_count) const;
static void ClusterBarrier::init(uint64_t const* smem_ptr, uint32_t arrive_count);`,
    summary: "Initialises the mbarrier for `arrive_count` arrivals per phase (`mbarrier.init.shared::cta`).",
    semantics: "Phase 0, pending and expected counts = `arrive_count`, tx-count 0. No synchronisation.",
    phaseRules:
      "One thread (e.g. under `elect_one_sync()`); then `fence_barrier_init()` if the barrier is used cluster-wide, and `__syncthreads()` or a cluster sync before anyone else uses it. `arrive_count` counts arrive operations, not threads: 1 for a TMA 'full' barrier armed by one `arrive_and_expect_tx`, the number of consumer warps if one lane per warp arrives.",
    seeAlso: ['cutlass.fence_barrier_init', 'ptx.mbarrier.init'],
  },
  {
    id: 'cutlass.ClusterBarrier.arrive',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterBarrier::arrive',
      'ClusterBarrier::arrive',
      'cutlass::arch::ClusterTransactionBarrier::arrive',
      'ClusterTransactionBarrier::arrive',
    ],
    signature: `void arrive() const;                                        // this CTA's barrier
void arrive(uint32_t cta_id, uint32_t pred = true) const;   // same barrier in CTA cta_id
static void arrive(uint64_t const* smem_ptr);
static void arrive(uint64_t const* smem_ptr, uint32_t cta_id, uint32_t pred);`,
    summary: "Arrives once on this barrier, or on the barrier at the same offset in another CTA of the cluster.",
    semantics:
      "Local form: `mbarrier.arrive.shared::cta`. Remote form: `mapa` then `mbarrier.arrive.shared::cluster`, skipped when `pred` is false. Returns no token; pair it with parity waits.",
    phaseRules:
      "One arrival per executing thread: a warp calling it unguarded arrives 32 times. Remote arrivals need the peer's init visible cluster-wide, and the peer must not exit before they land (drain with a final wait or cluster sync).",
    arrives: true,
    seeAlso: ['cutlass.ClusterBarrier.wait', 'ptx.mapa'],
  },
  {
    id: 'cutlass.ClusterBarrier.wait',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterBarrier::wait',
      'ClusterBarrier::wait',
      'cutlass::arch::ClusterTransactionBarrier::wait',
      'ClusterTransactionBarrier::wait',
    ],
    signature: `void wait(uint32_t phase) const;
static void wait(uint64_t const* smem_ptr, uint32_t phase);`,
    summary: "Spins on `mbarrier.try_wait.parity` until the phase with parity `phase` has completed.",
    semantics: "No change to the counts.",
    phaseRules:
      PARITY_RULE +
      " Consumers of 'full' barriers start at 0; producers waiting on 'empty' barriers start at 1 (or pre-fill / pre-arrive instead). When all stages share one phase bit, flip it when the stage index wraps.",
    arrives: false,
    seeAlso: ['cutlass.PipelineState', 'ptx.mbarrier.try_wait.parity'],
  },
  {
    id: 'cutlass.ClusterBarrier.try_wait',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterBarrier::try_wait',
      'ClusterBarrier::try_wait',
      'cutlass::arch::ClusterTransactionBarrier::try_wait',
      'ClusterTransactionBarrier::try_wait',
    ],
    signature: `bool try_wait(uint32_t phase) const;
static bool try_wait(uint64_t const* smem_ptr, uint32_t phase);`,
    summary: "One `mbarrier.try_wait.parity` probe; returns whether the phase with parity `phase` has completed.",
    semantics: "No change to the counts.",
    phaseRules: "It can return false before the phase completes: loop or fall back to `wait`. Dropping the result is a bug. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['cutlass.ClusterBarrier.wait'],
  },
  {
    id: 'cutlass.ClusterBarrier.test_wait',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterBarrier::test_wait',
      'ClusterBarrier::test_wait',
      'cutlass::arch::ClusterTransactionBarrier::test_wait',
      'ClusterTransactionBarrier::test_wait',
    ],
    signature: `bool test_wait(uint32_t phase, uint32_t pred = true) const;
static bool test_wait(uint64_t const* smem_ptr, uint32_t phase, uint32_t pred);`,
    summary: "Non-blocking `mbarrier.test_wait.parity` probe; skipped when `pred` is false.",
    semantics: "No change to the counts. With `pred` false the probe does not run and the result means nothing.",
    phaseRules: "Poll it or follow it with `wait`. " + PARITY_RULE,
    arrives: false,
    seeAlso: ['cutlass.ClusterBarrier.wait'],
  },
  {
    id: 'cutlass.ClusterBarrier.invalidate',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterBarrier::invalidate',
      'ClusterBarrier::invalidate',
      'cutlass::arch::ClusterTransactionBarrier::invalidate',
      'ClusterTransactionBarrier::invalidate',
    ],
    signature: `static void ClusterBarrier::invalidate(uint64_t const* smem_ptr);`,
    summary: "Invalidates the barrier (`mbarrier.inval`) so its shared memory can be reused.",
    semantics: "Ends the barrier's life; later operations other than init are undefined.",
    phaseRules: "Only after every arrive, wait, copy and commit on it has finished.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.inval'],
  },
  {
    id: 'cutlass.ClusterTransactionBarrier.arrive_and_expect_tx',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterTransactionBarrier::arrive_and_expect_tx',
      'ClusterTransactionBarrier::arrive_and_expect_tx',
      'cutlass::arch::ClusterTransactionBarrier::arrive_and_reset_bytes',
      'ClusterTransactionBarrier::arrive_and_reset_bytes',
    ],
    signature: `void arrive_and_expect_tx(uint32_t transaction_bytes) const;
void arrive_and_expect_tx(uint32_t transaction_bytes, uint32_t cta_id, uint32_t pred = 1u) const;
// deprecated alias: arrive_and_reset_bytes`,
    summary: "Adds `transaction_bytes` expected bytes and arrives once (`mbarrier.arrive.expect_tx`), locally or on CTA `cta_id`.",
    semantics: "tx-count += bytes, then pending count −1, in one operation.",
    phaseRules:
      "It is an arrival: a 'full' barrier armed by one leader per phase is initialised with 1. Bytes must cover every TMA load that signals this barrier in this phase, including multicast and 2-CTA copies.",
    arrives: true,
    seeAlso: ['cutlass.ClusterTransactionBarrier.expect_transaction', 'ptx.mbarrier.arrive.expect_tx'],
  },
  {
    id: 'cutlass.ClusterTransactionBarrier.expect_transaction',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterTransactionBarrier::expect_transaction',
      'ClusterTransactionBarrier::expect_transaction',
      'cutlass::arch::ClusterTransactionBarrier::reset_bytes',
      'ClusterTransactionBarrier::reset_bytes',
    ],
    signature: `void expect_transaction(uint32_t transaction_bytes) const;
static void expect_transaction(uint64_t const* smem_ptr, uint32_t transaction_bytes);
// deprecated alias: reset_bytes`,
    summary: "Adds `transaction_bytes` expected bytes without arriving (`mbarrier.expect_tx`).",
    semantics: "tx-count += bytes; the pending arrival count is unchanged.",
    phaseRules:
      "NOT an arrival. Someone must still `arrive()` for the phase (in `PipelineTransactionAsync` that is the producer commit); without it the phase never completes.",
    arrives: false,
    seeAlso: ['cutlass.ClusterTransactionBarrier.arrive_and_expect_tx', 'ptx.mbarrier.expect_tx'],
  },
  {
    id: 'cutlass.ClusterTransactionBarrier.complete_transaction',
    surface: 'cutlass',
    member: true,
    names: [
      'cutlass::arch::ClusterTransactionBarrier::complete_transaction',
      'ClusterTransactionBarrier::complete_transaction',
      'cutlass::arch::ClusterTransactionBarrier::commit',
      'ClusterTransactionBarrier::commit',
    ],
    signature: `void complete_transaction(uint32_t transaction_bytes, uint32_t pred = 1) const;
void complete_transaction(uint32_t dst_cta_id, uint32_t transaction_bytes, uint32_t pred) const;
// deprecated alias: commit`,
    summary: "Lowers the tx-count by `transaction_bytes` on this or another CTA's barrier (`mbarrier.complete_tx`).",
    semantics: "tx-count −= bytes; may complete the phase if no arrivals are pending. Not an arrival.",
    phaseRules: "Settle only bytes that were announced and will not arrive through a TMA copy; extra completes end the phase early.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.complete_tx'],
  },
  {
    id: 'cutlass.fence_barrier_init',
    surface: 'cutlass',
    names: ['fence_barrier_init', 'cutlass::arch::fence_barrier_init'],
    signature: `void cutlass::arch::fence_barrier_init();   // fence.mbarrier_init.release.cluster`,
    summary: "Publishes this thread's earlier barrier inits cluster-wide.",
    semantics: "Ordering fence only; no barrier state change and no synchronisation.",
    phaseRules:
      "Call it from the init thread, then sync (`__syncthreads()` for CTA-local use, cluster arrive + wait when other CTAs use the barriers) before first use.",
    seeAlso: ['ptx.fence.mbarrier_init', 'cg.cluster_group.sync'],
  },
  {
    id: 'cutlass.fence_view_async_shared',
    surface: 'cutlass',
    names: ['fence_view_async_shared', 'cutlass::arch::fence_view_async_shared', 'tma_store_fence', 'cute::tma_store_fence'],
    signature: `void cutlass::arch::fence_view_async_shared();   // fence.proxy.async.shared::cta
void cute::tma_store_fence();                      // the same fence, before a TMA store`,
    summary: "Makes ordinary shared-memory accesses and async-proxy (TMA/MMA) accesses see each other.",
    semantics: "No barrier state change.",
    phaseRules:
      "Put it after threads write a shared buffer that a TMA store or MMA will read, and before releasing a buffer that threads read back to the TMA producer (before the 'empty' arrive).",
    seeAlso: ['ptx.fence.proxy.async'],
  },
  {
    id: 'cutlass.umma_arrive',
    surface: 'cutlass',
    names: [
      'umma_arrive',
      'cutlass::arch::umma_arrive',
      'umma_arrive_2x1SM',
      'cutlass::arch::umma_arrive_2x1SM',
      'umma_arrive_multicast',
      'cutlass::arch::umma_arrive_multicast',
      'umma_arrive_multicast_2x1SM',
      'cutlass::arch::umma_arrive_multicast_2x1SM',
    ],
    signature: `void cutlass::arch::umma_arrive(uint64_t const* smem_ptr);
void cutlass::arch::umma_arrive_2x1SM(uint64_t const* smem_ptr);
void cutlass::arch::umma_arrive_multicast(uint64_t const* smem_ptr, uint16_t cta_mask);
void cutlass::arch::umma_arrive_multicast_2x1SM(uint64_t const* smem_ptr, uint16_t cta_mask);`,
    summary: "`tcgen05.commit ... mbarrier::arrive::one`: one arrival once the caller's earlier tcgen05 MMAs finish.",
    semantics:
      "Elects one lane internally and commits; the barrier gets one arrival when the tracked MMAs complete (one per CTA in `cta_mask` for the multicast forms).",
    phaseRules: "Call it from a converged warp; it is one arrival per warp, not per thread. Count one per commit in the init count.",
    arrives: true,
    seeAlso: ['ptx.tcgen05.commit'],
  },
  {
    id: 'cutlass.cpasync_barrier_arrive',
    surface: 'cutlass',
    names: ['cpasync_barrier_arrive', 'cutlass::arch::cpasync_barrier_arrive'],
    signature: `void cutlass::arch::cpasync_barrier_arrive(uint64_t const* smem_ptr);`,
    summary: "`cp.async.mbarrier.arrive`: pending +1 now, one arrival when this thread's cp.async copies finish.",
    semantics: "Net zero on the arrival count.",
    phaseRules: "The thread must still arrive normally; the init count counts only those arrivals.",
    arrives: false,
    seeAlso: ['ptx.cp.async.mbarrier.arrive'],
  },
  {
    id: 'cutlass.cpasync_barrier_arrive_noinc',
    surface: 'cutlass',
    names: ['cpasync_barrier_arrive_noinc', 'cutlass::arch::cpasync_barrier_arrive_noinc'],
    signature: `void cutlass::arch::cpasync_barrier_arrive_noinc(uint64_t const* smem_ptr);`,
    summary: "`cp.async.mbarrier.arrive.noinc`: one arrival when this thread's cp.async copies finish.",
    semantics: "Counts toward the current phase.",
    phaseRules: "Include one arrival per issuing thread in the init count.",
    arrives: true,
    seeAlso: ['ptx.cp.async.mbarrier.arrive.noinc'],
  },
  {
    id: 'cute.elect_one_sync',
    surface: 'cutlass',
    names: ['elect_one_sync', 'cute::elect_one_sync'],
    signature: `bool cute::elect_one_sync();   // elect.sync with a full-warp mask`,
    summary: "True in exactly one lane of the (fully converged) warp.",
    semantics: "No barrier effect.",
    phaseRules: "An arrive under it counts once per warp. All 32 lanes must call it together.",
    seeAlso: ['ptx.elect.sync'],
  },
  {
    id: 'cute.initialize_barrier',
    surface: 'cutlass',
    names: ['initialize_barrier', 'cute::initialize_barrier'],
    signature: `void cute::initialize_barrier(uint64_t& smem_barrier, int thread_count = 1);`,
    summary: "Initialises a raw `uint64_t` shared-memory barrier for `thread_count` arrivals per phase.",
    semantics: "`mbarrier.init`: phase 0, pending and expected counts = `thread_count`.",
    phaseRules: "One thread, then a CTA sync (plus `fence_barrier_init` and a cluster sync for cluster use). `thread_count` counts arrive operations, not threads.",
    seeAlso: ['ptx.mbarrier.init'],
  },
  {
    id: 'cute.set_barrier_transaction_bytes',
    surface: 'cutlass',
    names: ['set_barrier_transaction_bytes', 'cute::set_barrier_transaction_bytes'],
    signature: `void cute::set_barrier_transaction_bytes(uint64_t& smem_barrier, uint32_t bytes);`,
    summary: "Adds `bytes` expected bytes AND arrives once: it is `mbarrier.arrive.expect_tx`, despite the name.",
    semantics: "tx-count += bytes, then pending count −1.",
    phaseRules:
      "Despite its name it ARRIVES. Count it in the init count (usually init 1 with one call per phase) and do not add a separate arrive from the same thread, or the phase over-arrives.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive.expect_tx', 'cute.wait_barrier'],
  },
  {
    id: 'cute.wait_barrier',
    surface: 'cutlass',
    names: ['wait_barrier', 'cute::wait_barrier'],
    signature: `void cute::wait_barrier(uint64_t& smem_barrier, int phase_bit);`,
    summary: "Spins on `mbarrier.try_wait.parity` until the phase with parity `phase_bit` has completed.",
    semantics:
      "No change to the counts. Its inline asm has no `memory` clobber, so the compiler may move ordinary loads of the guarded buffer above it.",
    phaseRules: PARITY_RULE + " The usual pattern is `wait_barrier(bar, phase); phase ^= 1;`.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait.parity'],
  },
  {
    id: 'cute.arrive_barrier',
    surface: 'cutlass',
    names: ['arrive_barrier', 'cute::arrive_barrier'],
    signature: `void cute::arrive_barrier(uint64_t& smem_barrier);`,
    summary: "Plain arrive (`mbarrier.arrive`) on a raw `uint64_t` barrier.",
    semantics: "Pending count −1; completes the phase if the pending count and tx-count are both zero.",
    phaseRules: "One arrival per executing thread.",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive'],
  },
  {
    id: 'cutlass.PipelineState',
    surface: 'cutlass',
    names: ['PipelineState', 'cutlass::PipelineState'],
    signature: `template <uint32_t Stages>
struct cutlass::PipelineState {
  int index_;  uint32_t phase_;  uint32_t count_;
  void operator++();              // index + 1; on wrap: index = 0, phase ^= 1
  PipelineState& advance(uint32_t n);
};`,
    summary: "Ring position in a CUTLASS pipeline: stage index, phase bit and step count.",
    semantics: "`++state` moves to the next stage and flips `phase` when the index wraps to 0. No barrier effect.",
    phaseRules:
      "Default construction (phase 0) is the consumer's start; the producer starts from `make_producer_start_state()` (phase 1). Producer and consumer keep separate states and advance once per stage they use; skipping an advance on some path puts the phase out of step.",
    seeAlso: ['cutlass.make_producer_start_state', 'cutlass.ClusterBarrier.wait'],
  },
  {
    id: 'cutlass.make_producer_start_state',
    surface: 'cutlass',
    names: ['make_producer_start_state', 'cutlass::make_producer_start_state'],
    signature: `template <class Pipeline>
cutlass::PipelineState<Pipeline::Stages> cutlass::make_producer_start_state();   // {0, phase 1, 0}`,
    summary: "The producer's starting PipelineState: stage 0, phase 1.",
    semantics:
      "Phase 1 makes the first `producer_acquire` (a parity-1 wait on a fresh 'empty' barrier) return at once, because all buffers start empty.",
    phaseRules:
      "Producer side only. Mixing it with consumers that pre-arrive on 'empty' barriers makes the producer wait one round too long and deadlock; pick one convention.",
    seeAlso: ['cutlass.PipelineState'],
  },
  {
    id: 'cutlass.NamedBarrier',
    surface: 'cutlass',
    names: ['NamedBarrier', 'cutlass::arch::NamedBarrier'],
    signature: `class cutlass::arch::NamedBarrier {
  NamedBarrier(uint32_t num_threads, uint32_t id = 0);
  void arrive_and_wait() const;   // bar.sync id, num_threads
  void arrive() const;            // bar.arrive id, num_threads
  void sync() const;
};`,
    summary: "Wrapper over the hardware named barriers (`bar.sync` / `bar.arrive`); not an mbarrier.",
    semantics: "Uses one of the 16 per-CTA barrier ids; CUTLASS reserves the low ids for itself and offsets user ids past them.",
    phaseRules: "`num_threads` must be a multiple of 32 and identical on every side of the same id.",
    seeAlso: ['ptx.bar.sync', 'ptx.bar.arrive'],
  },

  // ---------------------------------------------------------------------------------------------
  // ThunderKittens
  // ---------------------------------------------------------------------------------------------
  {
    id: 'tk.init_semaphore',
    surface: 'thunderkittens',
    names: ['init_semaphore', 'kittens::init_semaphore'],
    signature: `void kittens::init_semaphore(semaphore& bar, int thread_count, int transaction_count = 0);`,
    summary: "Initialises a ThunderKittens semaphore (an mbarrier) for `thread_count + transaction_count` arrivals.",
    semantics:
      "`mbarrier.init` with count = thread_count + transaction_count. `transaction_count` is not a byte count: it is the number of `tma::expect_bytes` calls per phase, each of which arrives.",
    phaseRules:
      "Count every `arrive`, `tma::expect_bytes` and tensor commit that lands on it per phase. One thread initialises, then `__syncthreads()` (or a cluster sync) before use.",
    seeAlso: ['tk.tma.expect_bytes', 'tk.arrive'],
  },
  {
    id: 'tk.arrive',
    surface: 'thunderkittens',
    names: ['arrive', 'kittens::arrive'],
    signature: `void kittens::arrive(semaphore& sem);
void kittens::arrive(semaphore& sem, uint32_t count);`,
    summary: "Arrives on a semaphore once (or `count` times) with release ordering.",
    semantics: "`mbarrier.arrive.release.cta`: pending count −count. (The overload taking `kittens::barrier<N>` is a named-barrier `bar.arrive` instead.)",
    phaseRules:
      "Counts per executing thread: guard with `laneid() == 0` / `warpgroup::laneid() == 0` when the init count is per warp or per warpgroup.",
    arrives: true,
    seeAlso: ['tk.wait', 'tk.init_semaphore'],
  },
  {
    id: 'tk.wait',
    surface: 'thunderkittens',
    names: ['wait', 'kittens::wait'],
    signature: `void kittens::wait(semaphore& sem, int kPhaseBit);`,
    summary: "Spins until the semaphore's phase with parity `kPhaseBit` has completed.",
    semantics: "`mbarrier.try_wait.parity` loop (test_wait + nanosleep before Hopper). No change to the counts; no `memory` clobber.",
    phaseRules:
      PARITY_RULE +
      " ThunderKittens kernels often keep per-stage bits in one `uint32_t` (`get_phasebit` / `update_phasebit`), with 'finished' bits starting at 1 and 'arrived' bits at 0.",
    arrives: false,
    seeAlso: ['tk.arrive'],
  },
  {
    id: 'tk.tma.expect_bytes',
    surface: 'thunderkittens',
    names: [
      'tma::expect_bytes',
      'kittens::tma::expect_bytes',
      'expect_bytes',
      'tma::expect',
      'kittens::tma::expect',
      'tma::cluster::expect_bytes',
      'kittens::tma::cluster::expect_bytes',
      'tma::cluster::expect',
      'kittens::tma::cluster::expect',
    ],
    signature: `void kittens::tma::expect_bytes(semaphore& bar, uint32_t bytes);
template <class T, class... Ts>
void kittens::tma::expect(semaphore& bar, const T&, const Ts&...);   // bytes = size of the tiles`,
    summary: "Adds expected bytes AND arrives once: `mbarrier.arrive.expect_tx`.",
    semantics: "tx-count += bytes, then pending count −1.",
    phaseRules:
      "It ARRIVES: count it in `init_semaphore` (that is what its `transaction_count` argument is for). Call it from one thread; from a whole warp it arrives 32 times and multiplies the byte budget.",
    arrives: true,
    seeAlso: ['tk.tma.load_async', 'tk.init_semaphore', 'ptx.mbarrier.arrive.expect_tx'],
  },
  {
    id: 'tk.tma.load_async',
    surface: 'thunderkittens',
    names: ['tma::load_async', 'kittens::tma::load_async', 'tma::cluster::load_async', 'kittens::tma::cluster::load_async'],
    signature: `template <int axis, cache_policy policy, class ST, class GL, class COORD>
void kittens::tma::load_async(ST& dst, const GL& src, const COORD& idx, semaphore& bar);`,
    summary: "Issues a TMA tile load into a shared tile; its bytes are reported to `bar`.",
    semantics: "`cp.async.bulk.tensor ... mbarrier::complete_tx::bytes`: lowers the tx-count by the tile size when it lands. Does not arrive.",
    phaseRules: "Arm the phase with `tma::expect_bytes` / `tma::expect` covering every load into this semaphore, then `wait` on it before reading the tile.",
    arrives: false,
    seeAlso: ['tk.tma.expect_bytes', 'ptx.cp.async.bulk.tensor'],
  },

  // ---------------------------------------------------------------------------------------------
  // DeepGEMM
  // ---------------------------------------------------------------------------------------------
  {
    id: 'deepgemm.mbarrier_wait_and_flip_phase',
    surface: 'deepgemm',
    names: ['mbarrier_wait_and_flip_phase', 'ptx::mbarrier_wait_and_flip_phase', 'deep_gemm::ptx::mbarrier_wait_and_flip_phase'],
    signature: `void ptx::mbarrier_wait_and_flip_phase(cutlass::arch::ClusterTransactionBarrier* bar,
                                       uint32_t& phase);`,
    summary: "Waits for the phase with parity `phase`, then flips `phase` in place.",
    semantics: "`mbarrier.try_wait.parity` loop, then `phase ^= 1`. No change to the counts.",
    phaseRules:
      "One `phase` variable per barrier (or per use stream): sharing it between barriers, or calling this twice per phase, desynchronises the parity.",
    arrives: false,
    seeAlso: ['ptx.mbarrier.try_wait.parity', 'deepgemm.mbarrier_arrive_and_set_tx'],
  },
  {
    id: 'deepgemm.mbarrier_arrive_and_set_tx',
    surface: 'deepgemm',
    names: ['mbarrier_arrive_and_set_tx', 'ptx::mbarrier_arrive_and_set_tx', 'deep_gemm::ptx::mbarrier_arrive_and_set_tx'],
    signature: `void ptx::mbarrier_arrive_and_set_tx(cutlass::arch::ClusterTransactionBarrier* bar,
                                     const uint32_t& num_bytes);`,
    summary: "Adds `num_bytes` expected bytes AND arrives once: `mbarrier.arrive.expect_tx`.",
    semantics: "tx-count += num_bytes, then pending count −1. The name says 'set', but the bytes are added.",
    phaseRules: "It is an arrival: count it in the init count (typically 1, issued by one elected thread per phase).",
    arrives: true,
    seeAlso: ['ptx.mbarrier.arrive.expect_tx'],
  },
];
