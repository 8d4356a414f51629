// Independent references for the memmodel/ fixtures (memory model, cuda::pipeline, elect.sync,
// vector constructors and paired half/bfloat16 arithmetic, timers, setmaxnreg): what each kernel
// means, written from its header, with f32 rounding by Math.fround and f16/bf16 rounding done here
// (round to nearest even), not by the simulator's code.
type Inputs = Record<string, number[]>;

const f = Math.fround;
const word = new DataView(new ArrayBuffer(4));

/** The f32 bits of x (already an f32 value). */
function f32Bits(x: number): number {
  word.setFloat32(0, x);
  return word.getUint32(0);
}

/** bf16 bits of an f32 value, round to nearest even (finite inputs). */
function bf16Bits(x: number): number {
  const b = f32Bits(f(x));
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}
function bf16Value(bits: number): number {
  word.setUint32(0, bits << 16);
  return word.getFloat32(0);
}

/** f16 bits of a real number, round to nearest even (finite, in range). */
function f16Bits(x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === 0) return sign;
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--;
  if (2 ** (e + 1) <= a) e++;
  const ee = Math.max(e, -14); // subnormals share the smallest exponent
  const scaled = a / 2 ** (ee - 10); // mantissa with 10 fraction bits
  let m = Math.floor(scaled);
  const rest = scaled - m;
  if (rest > 0.5 || (rest === 0.5 && m % 2 === 1)) m++;
  let exp = ee + 15;
  if (m >= 2048) {
    m /= 2;
    exp++;
  }
  if (m < 1024) return sign | m; // subnormal
  return sign | (exp << 10) | (m - 1024);
}
function f16Value(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1;
  const e = (bits >>> 10) & 31;
  const m = bits & 1023;
  return s * (e === 0 ? m * 2 ** -24 : (1024 + m) * 2 ** (e - 25));
}
const h = (x: number) => f16Value(f16Bits(x));
const bf = (x: number) => bf16Value(bf16Bits(x));

const times3plus1 = ({ in: x }: Inputs) => ({ out: x.map((v) => f(f(v * 3) + 1)) });
const twice32 = ({ in: x }: Inputs) => ({ out: x.slice(0, 32).map((v) => f(v * 2)) });

export const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  silent_unfenced_bulk_store: times3plus1,
  fenced_bulk_store: times3plus1,
  silent_init_no_sync: twice32,
  init_sync_fixed: twice32,
  copy_beside_barrier: twice32,
  pipeline_prodcons: ({ in: x, num_tiles: [n] }) => ({
    out: Array.from({ length: 64 }, (_, c) => {
      let acc = 0;
      for (let k = 0; k < n; k++) acc = f(acc + f(x[k * 128 + c] + x[k * 128 + 64 + c]));
      return acc;
    }),
  }),
  pipeline_thread_scope: ({ in: x, num_tiles: [n] }) => ({
    out: Array.from({ length: 64 }, (_, t) => {
      let acc = 0;
      for (let k = 0; k < n; k++) acc = f(acc + f(x[k * 64 + t] * (k + 1)));
      return acc;
    }),
  }),
  elect_sync_leader: () => ({
    out: Array.from({ length: 64 }, (_, t) => {
      const l = t % 32;
      return [0, l >= 4 ? 4 : -1, l & 1 ? 1 : -1];
    }).flat(),
    lead: Array.from({ length: 64 }, (_, t) => {
      const l = t % 32;
      return (l === 0 ? 1 : 0) + (l === 4 ? 2 : 0) + (l === 1 ? 4 : 0);
    }),
  }),
  vector_half2_math: ({ in: input }) => {
    const out: number[] = [];
    const bits: number[] = [];
    const iout: number[] = [];
    for (let t = 0; t < 64; t++) {
      const x = f(input[t] * f(0.3));
      const y = f(input[t] - 7.25);
      const xy = f(x * y);
      const hv = [h(x), h(y)];
      const gv = [h(f(0.7)), h(-1.25)];
      const s = [0, 1].map((i) => h(hv[i] + gv[i]));
      const m = [0, 1].map((i) => h(hv[i] * gv[i]));
      const fm = [0, 1].map((i) => h(hv[i] * gv[i] + s[i])); // one rounding (HFMA2)
      const o = [0, 1].map((i) => h(h(hv[i] * gv[i]) + s[i])); // operator* then operator+
      const b = [bf(x), bf(y)];
      const bb = [0, 1].map((i) => bf(b[i] * b[i] + [0.5, -2][i]));
      out.push(f(x + 1.5), f(y * xy), s[0], s[1], bb[0], bb[1]);
      for (const p of [m, fm, o]) bits.push(f16Bits(p[0]), f16Bits(p[1]));
      bits.push(bf16Bits(bb[0]), bf16Bits(bb[1]));
      iout.push(t + (3 * t - 40), (t * (3 * t - 40)) | 0);
    }
    return { out, bits, iout };
  },
  timer_monotonic: () => ({ ok: new Array<number>(128).fill(15) }),
  setmaxnreg_ws: ({ in: x }) => ({ out: x.map((v) => f(f(v * 3) - 1)) }),
};
