// Independent references for the bulk-reduction fixtures (test/fixtures/sim/gpu/tma2): what each kernel
// means, from the PTX ISA's description of cp.reduce.async.bulk (`dst = dst op src` per element; .inc
// gives 0 when old >= src, else old + 1; .dec gives src when old is 0 or old > src, else old - 1;
// floating-point adds round to nearest even), computed with typed arrays, without the simulator's code.
// Inputs are the buffers before the kernel.
type Inputs = Record<string, number[]>;

const u32 = (x: number) => x >>> 0;
/** Round to f32 (nearest even). */
const f32 = (x: number) => Math.fround(x);
/** Round to f16 (nearest even): through the bits, for the values these kernels produce (normal, below 65504). */
function f16(x: number): number {
  const e = Math.floor(Math.log2(Math.abs(x)));
  const ulp = 2 ** (e - 10);
  const q = x / ulp;
  const r = Math.round(q);
  const even = Math.abs(q - Math.trunc(q)) === 0.5 ? 2 * Math.round(q / 2) : r;
  return x === 0 ? 0 : even * ulp;
}
/** Round to bf16 (nearest even): 8 significant bits. */
function bf16(x: number): number {
  const e = Math.floor(Math.log2(Math.abs(x)));
  const ulp = 2 ** (e - 7);
  const q = x / ulp;
  const even = Math.abs(q - Math.trunc(q)) === 0.5 ? 2 * Math.round(q / 2) : Math.round(q);
  return x === 0 ? 0 : even * ulp;
}

export const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  bulk_reduce_u32: ({ g }) => {
    const out = [...g];
    for (let e = 0; e < 16; e++) {
      const at = (k: number) => k * 16 + e;
      out[at(0)] = u32(out[at(0)] + 0xfffffff0 + e);
      out[at(1)] = Math.min(out[at(1)], 10 + 3 * e);
      out[at(2)] = Math.max(out[at(2)], 10 + 3 * e);
      const inc = 40 + 2 * e;
      out[at(3)] = out[at(3)] >= inc ? 0 : out[at(3)] + 1;
      const dec = 60 + 2 * e;
      out[at(4)] = out[at(4)] === 0 || out[at(4)] > dec ? dec : out[at(4)] - 1;
      const bits = (0x5a5a5a00 | (e * 7)) >>> 0;
      out[at(5)] = u32(out[at(5)] & bits);
      out[at(6)] = u32(out[at(6)] | bits);
      out[at(7)] = u32(out[at(7)] ^ bits);
    }
    return { g: out };
  },
  bulk_reduce_types: ({ gs, gl, gf, gd, gh, gb }) => {
    const s = [...gs];
    const l = gl.map((x) => BigInt(x));
    const f = [...gf];
    const d = [...gd];
    const h = [...gh];
    const b = [...gb];
    for (let e = 0; e < 16; e++) {
      s[e] = Math.min(s[e], -8 + 2 * e);
      s[16 + e] = Math.max(s[16 + e], 30 - 2 * e);
      f[e] = f32(f[e] + 16777216);
      d[e] = d[e] + 9007199254740992; // one double add: rounds to nearest even like the GPU's
      h[e] = f16(h[e] + 2048);
      h[16 + e] = Math.min(h[16 + e], 7.5 - e);
      h[32 + e] = Math.max(h[32 + e], 7.5 - e);
      b[e] = bf16(b[e] + 256);
      b[16 + e] = Math.max(b[16 + e], 7.5 - e);
    }
    for (let e = 0; e < 8; e++) {
      l[e] = BigInt.asIntN(64, l[e] + (1n << 40n) + BigInt(e));
      l[8 + e] = l[8 + e] < BigInt(-3 + e) ? l[8 + e] : BigInt(-3 + e);
      l[16 + e] = BigInt.asIntN(64, l[16 + e] ^ BigInt.asIntN(64, 0xf0f0f0f0f0f0f0f0n));
    }
    return { gs: s, gl: l.map(Number), gf: f, gd: d, gh: h, gb: b };
  },
  bulk_reduce_cluster: () => {
    const out: number[] = [];
    const done = [1, 1];
    for (let blk = 0; blk < 2; blk++) {
      const rank = blk % 2;
      const peer = rank ^ 1;
      for (let k = 0; k < 4; k++)
        for (let e = 0; e < 16; e++) {
          const acc = 1000 * rank + 16 * k + e;
          const src = 0x30 * peer + 5 * e + k; // the peer reduces its own tile into this CTA
          out.push(k === 0 ? u32(acc + src) : k === 1 ? Math.min(acc, src) : k === 2 ? u32(acc ^ src) : acc >= src ? 0 : acc + 1);
        }
    }
    return { out, done };
  },
};
