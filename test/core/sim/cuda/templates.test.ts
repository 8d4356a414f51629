// Templates in the CUDA simulator (issue 12): kernels run by instantiation name (`k<4, float>`) or
// by the instantiation the file launches; class templates with static constexpr members, default
// member initialisers, constructors, member templates, out-of-class members, `if constexpr`, and
// function templates deducing non-type arguments. Expected values are computed by hand in each test.
import { describe, expect, it } from 'vitest';
import { SimError } from '../../../../core/sim/machine';
import { runKernel, values } from './helpers';

/** The request error `simulate` throws for a kernel name, as text. */
async function kernelError(text: string, kernel?: string): Promise<string> {
  try {
    const r = await runKernel(text, { kernel, args: ['out=s32[4]'] });
    return `no error: ${r.status} ${r.message}`;
  } catch (e) {
    expect(e).toBeInstanceOf(SimError);
    expect((e as SimError).field?.kind).toBe('kernel');
    return (e as Error).message;
  }
}

const RING = `
template <int kStages> struct PipelineState {
  static constexpr int kCount = kStages;
  int index = 0;
  uint32_t phase = 0;
  __device__ void advance() { if (++index == kStages) { index = 0; phase ^= 1; } }
  __device__ int code() const { return this->index * 10 + (int)phase; }
};
`;

describe('CUDA simulator: template kernels by name', () => {
  const src = `${RING}
#define STAGES 3
constexpr int kTwo = 2;
template <int kStages, typename T = float>
__global__ void k(int* out) {
  PipelineState<kStages> st;
  for (int i = 0; i < 5; ++i) st.advance();
  T half = (T)(1) / (T)2;         // (T)(1): a cast the grammar reads as a call
  out[0] = st.code();
  out[1] = PipelineState<kStages>::kCount;
  out[2] = half > 0 ? 1 : 0;      // 0 for an integer T
  out[3] = sizeof(T);
}
`;
  // Five advances of a kStages ring: index 5 % kStages, phase flips floor(5 / kStages) times.
  const code = (s: number) => (5 % s) * 10 + (Math.floor(5 / s) & 1);

  it('binds type and non-type arguments, whitespace-insensitively, with defaults, constants and #defines', async () => {
    const cases: [string, number[]][] = [
      ['k<3, float>', [code(3), 3, 1, 4]],
      [' k < 2 ,int > ', [code(2), 2, 0, 4]],
      ['k<4>', [code(4), 4, 1, 4]],
      ['k<STAGES, double>', [code(3), 3, 1, 8]],
      ['k<kTwo * 3, unsigned char>', [code(6), 6, 0, 1]],
    ];
    for (const [kernel, want] of cases) {
      const r = await runKernel(src, { kernel, block: [1, 1, 1], args: ['out=s32[4]'] });
      expect(r.status, `${kernel}: ${r.message}`).toBe('completed');
      expect(values(r, 'out'), kernel).toEqual(want);
    }
  });

  it('says what is wrong with a bad instantiation name', async () => {
    expect(await kernelError(src, 'k<int>')).toMatch(/template argument 'int' for non-type parameter 'kStages' of k \(template <int kStages, typename T = float>\): it is not a constant expression/);
    expect(await kernelError(src, 'k<3, 4>')).toMatch(/template argument '4' for type parameter 'T'.*not a type/);
    expect(await kernelError(src, 'k<1, float, 2>')).toMatch(/k takes 2 template arguments .* got 3/);
    expect(await kernelError(src, 'k<NOPE>')).toMatch(/'NOPE'/);
    expect(await kernelError(src, 'other<3>')).toMatch(/no __global__ kernel named 'other<3>'/);
    expect(await kernelError('__global__ void p(int* out) {}', 'p<3>')).toMatch(/kernel 'p' is not a template/);
  });

  it('runs the one instantiation the file launches or instantiates explicitly, and lists them when there are several', async () => {
    const launched = `${src}\nvoid host(int* d) { k<2, int><<<1, 1>>>(d); k<2,int><<<1, 1>>>(d); }\n`;
    const r = await runKernel(launched, { kernel: 'k', block: [1, 1, 1], args: ['out=s32[4]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([code(2), 2, 0, 4]);
    // The file's only kernel needs no --kernel at all.
    const alone = await runKernel(`${src}\ntemplate __global__ void k<5>(int*);\n`, { block: [1, 1, 1], args: ['out=s32[4]'] });
    expect(alone.status, alone.message).toBe('completed');
    expect(values(alone, 'out')).toEqual([code(5), 5, 1, 4]);

    const several = `${src}\ntemplate __global__ void k<128>(int*);\nvoid host(int* d) { k<64><<<1, 1>>>(d); k<64, float><<<1, 1>>>(d); }\n`;
    expect(await kernelError(several, 'k')).toBe('k is a template; name an instantiation: k<128, float>, k<64, float>');
    expect(await kernelError(src)).toMatch(/^k is a template \(template <int kStages, typename T = float>\) and the file neither launches nor explicitly instantiates it; name an instantiation: --kernel 'k<128, float>'/);
    // A launch inside a host template cannot be evaluated: it is listed with the reason.
    const hostTemplate = `${src}\ntemplate <int S> void launch(int* d) { k<S><<<1, 1>>>(d); }\n`;
    expect(await kernelError(hostTemplate, 'k')).toMatch(/k is a template; name an instantiation: k<S> \(line \d+: .*'S'/);
  });

  it('uses a template argument in __launch_bounds__ for the default block', async () => {
    const r = await runKernel(`template <int kThreads> __global__ void __launch_bounds__(kThreads) k(int* out) { atomicAdd(out, 1); }`, { kernel: 'k<96>', block: undefined, args: ['out=s32[1]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([96]);
  });
});

describe('CUDA simulator: class templates', () => {
  it('instantiates structs with type and value parameters, defaults, static members, typedefs and member templates', async () => {
    const r = await runKernel(
      `${RING}
      template <typename T, int N = 4> struct Buf {
        using Elem = T;
        static constexpr int kBytes = N * sizeof(T);
        T data[N];
        int filled{};
        __device__ void put(T v) { data[filled++] = v; }
        __device__ T sum() const { T s = 0; for (int i = 0; i < filled; ++i) s += data[i]; return s; }
        template <int K> __device__ T scaled(int i) const { return data[i] * K; }
        template <int K> __device__ T scaledSum() const { return sum() * K + scaled<K>(0); }
      };
      __global__ void k(int* out) {
        Buf<int> b;
        b.put(3); b.put(4);
        Buf<float, 2> f;
        f.put(1.5f);
        Buf<int>::Elem e = 7;
        out[0] = b.sum();
        out[1] = Buf<int>::kBytes + Buf<float, 2>::kBytes * 100;
        out[2] = b.template scaled<10>(1);
        out[2] += b.scaled<100>(0);     // the grammar reads this as comparisons; the call is recovered
        out[3] = (int)(f.sum() * 2) + e * 10;
        out[4] = b.scaledSum<2>();
        out[5] = sizeof(Buf<int>) + sizeof(Buf<char, 3>) * 100;
        PipelineState<3> st;
        st.advance(); st.advance(); st.advance(); st.advance();
        out[6] = st.code();
        out[7] = PipelineState<7>::kCount;
      }`,
      { block: [1, 1, 1], args: ['out=s32[8]'] },
    );
    expect(r.status, r.message).toBe('completed');
    // Buf<int>: 4 ints + int = 20 bytes; Buf<char, 3>: 3 chars, pad to 4, int = 8 bytes.
    expect(values(r, 'out')).toEqual([7, 16 + 8 * 100, 40 + 300, 3 + 70, 7 * 2 + 6, 20 + 800, 10 + 1, 7]);
  });

  it('runs constructors with member-init lists and default member initialisers, in declaration order', async () => {
    const r = await runKernel(
      `template <int kBase> struct Counter {
        int start = kBase;
        int step = 1;
        int count;
        __device__ Counter() : count(kBase * 2) {}
        __device__ Counter(int s, int c) : step(s), count(c) { count += start; }
        __device__ int next() { count += step; return count; }
      };
      struct Pair {
        Counter<5> a;
        int tag = 9;
      };
      __global__ void k(int* out, int n) {
        Counter<3> c;            // start 3, step 1, count 6
        Counter<3> d(10, 100);   // start 3, step 10, count 103
        Counter<1> e{2, n};      // start 1, step 2, count n + 1
        Pair p;                  // a: start 5, step 1, count 10
        for (int i = 0; i < 2; ++i) { Counter<4> loop; out[8 + i] = loop.next(); }
        out[0] = c.next(); out[1] = d.next(); out[2] = e.next();
        out[3] = p.a.next(); out[4] = p.tag;
        out[5] = c.start; out[6] = d.step; out[7] = e.count;
      }`,
      { block: [1, 1, 1], args: ['out=s32[10]', 'n=40'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([7, 113, 43, 11, 9, 3, 10, 43, 9, 9]);
  });

  it('initialises members that are not constants in a function of their own, with this and template arguments', async () => {
    const r = await runKernel(
      `template <int K> struct Lane {
        int lane = threadIdx.x * K;
        int twice = lane * 2;
      };
      __global__ void k(int* out) {
        Lane<3> l;
        out[threadIdx.x] = l.twice + 1000 * (l.lane == threadIdx.x * 3);
      }`,
      { block: [4, 1, 1], args: ['out=s32[4]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([0, 1, 2, 3].map((t) => t * 6 + 1000));
  });

  it('finds members defined outside a class template under their own parameter names', async () => {
    const r = await runKernel(
      `template <int kStages> struct Ring {
        int index = 0;
        __device__ void advance();
        __device__ int stages() const;
      };
      template <int S> __device__ void Ring<S>::advance() { index = (index + 1) % S; }
      template <int S> __device__ int Ring<S>::stages() const { return S; }
      struct Plain { int v; __device__ int twice() const; };
      __device__ int Plain::twice() const { return v * 2; }
      __global__ void k(int* out) {
        Ring<3> r; r.advance(); r.advance(); r.advance(); r.advance();
        Ring<5> q; q.advance();
        Plain p{21};
        out[0] = r.index; out[1] = q.index; out[2] = r.stages() * 10 + q.stages(); out[3] = p.twice();
      }`,
      { block: [1, 1, 1], args: ['out=s32[4]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 1, 35, 42]);
  });

  it('compiles only the branch if constexpr takes, and deduces non-type arguments from a template struct', async () => {
    const r = await runKernel(
      `template <int N> struct Ring { int slot[N]; };
      template <int N> __device__ int capacity(const Ring<N>& r) { return N; }
      template <typename T, int N> __device__ int bytes(T (&a)[N]) { return N * sizeof(T); }
      template <int kMode> __device__ int pick(int x) {
        if constexpr (kMode == 0) { return x; }
        else if constexpr (kMode == 1) { return x * 2; }
        else { return undefined_helper(x); }   // never compiled for kMode 0 or 1
      }
      __global__ void k(int* out) {
        Ring<6> r;
        short s[5];
        out[0] = capacity(r);
        out[1] = bytes(s);
        out[2] = pick<0>(21) + pick<1>(100);
      }`,
      { block: [1, 1, 1], args: ['out=s32[3]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([6, 10, 221]);
  });

  it('uses a full specialisation for its arguments, else a partial one that matches them', async () => {
    const full = await runKernel(
      `template <int N> struct R { static constexpr int kind = 1; int a[N]; };
      template <> struct R<0> { static constexpr int kind = 2; };
      __global__ void k(int* out) { out[0] = R<3>::kind * 10 + R<0>::kind; out[1] = sizeof(R<3>); }`,
      { block: [1, 1, 1], args: ['out=s32[2]'] },
    );
    expect(full.status, full.message).toBe('completed');
    expect(values(full, 'out')).toEqual([12, 12]);
    // A partial specialisation is taken when its arguments match (its parameters bound there), the primary otherwise.
    const partial = await runKernel(
      `template <typename T, int N> struct R { T a[N]; static constexpr int kind = 1; };
      template <typename T> struct R<T, 0> { T b; static constexpr int kind = 2; };
      template <bool B, typename T, typename F> struct cond { using type = T; };
      template <typename T, typename F> struct cond<false, T, F> { using type = F; };
      __global__ void k(float* out) {
        R<int, 2> r; R<float, 0> z; z.b = 1.5f;
        cond<false, int, float>::type x = 2.5f; cond<true, int, float>::type y = 2.5f;
        out[0] = R<int, 2>::kind * 10 + R<float, 0>::kind; out[1] = sizeof(r) + sizeof(z); out[2] = x + y; out[3] = z.b;
      }`,
      { block: [1, 1, 1], args: ['out=f32[4]'] },
    );
    expect(partial.status, partial.message).toBe('completed');
    expect(values(partial, 'out')).toEqual([12, 12, 4.5, 1.5]);
  });

  it('reports what it does not model as unsupported, at its line', async () => {
    const cases: [string, RegExp][] = [
      ['template <typename... Ts> __device__ bool all(Ts... xs) { return (xs && ...); }\n__global__ void k(int* out) { out[0] = all(1, 2); }', /not supported by the simulator: a fold expression over '&&' at line 2 ← all line 1/],
      ['template <int N> struct S { static int count; int a; };\n__global__ void k(int* out) { S<1> s; out[0] = 1; }', /not supported by the simulator: static data member 'count' of S<1>/],
      ['template <int N> struct S { template <int M> struct In { int b; }; int a; };\n__global__ void k(int* out) { S<1> s; out[0] = 1; }', /not supported by the simulator: member template 'template <int M> struct In' of S<1>/],
      ['template <int N> __device__ int f(int x) { if constexpr (x > 0) { return 1; } return 0; }\n__global__ void k(int* out) { out[0] = f<1>(out[0]); }', /'if constexpr' is not a compile-time constant/],
    ];
    for (const [text, want] of cases) {
      const r = await runKernel(text, { kernel: 'k', block: [1, 1, 1], args: ['out=s32[1]'] });
      expect(r.status, text).not.toBe('completed');
      expect(r.message, text).toMatch(want);
    }
  });
});
