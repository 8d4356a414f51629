// Independent references for the interleaved-tensor-map fixtures (test/fixtures/sim/gpu/interleave): what
// each kernel means under the layout the H200 showed, computed on plain byte arrays without the
// simulator's code. With CU_TENSOR_MAP_INTERLEAVE_16B/_32B a dimension-0 element is a whole 16- or
// 32-byte slice (x0 * slice bytes into the row, bounds checked per slice); the box covers
// ceil(boxDim[i] / elementStrides[i]) positions in every dimension but dimension rank-2, which stays at
// its coordinate; slices land packed (dimension 0 innermost) and each 16-byte chunk is swizzled by its
// shared-memory address (CUTLASS Swizzle<1|2|3,4,3>); out-of-bounds slices read as zeros (or 0x7FF7
// halfwords with the NaN fill) and are skipped by stores and reductions; the barrier counts every slice.
// Inputs are the buffers before the kernel.
type Inputs = Record<string, number[]>;

interface Map {
  /** Bytes of a dimension-0 element: the interleave size. */
  slice: 16 | 32;
  dims: number[];
  strides: number[];
  box: number[];
  estr?: number[];
  swizzle?: 0 | 32 | 64 | 128;
  nan?: boolean;
}

const TILE = 4096;

function swizzle(addr: number, span: number): number {
  const mask = span === 32 ? 1 : span === 64 ? 3 : span === 128 ? 7 : 0;
  return addr ^ (((addr >> 7) & mask) << 4);
}

/** Little-endian bytes of `values` stored as `size`-byte unsigned integers. */
function bytesOf(values: number[], size: number): Uint8Array {
  const out = new Uint8Array(values.length * size);
  values.forEach((v, i) => {
    let x = BigInt(v);
    for (let b = 0; b < size; b++, x >>= 8n) out[i * size + b] = Number(x & 0xffn);
  });
  return out;
}

function numbersOf(bytes: Uint8Array, size: 2 | 4): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.length / size }, (_, i) => (size === 2 ? view.getUint16(i * size, true) : view.getUint32(i * size, true)));
}

/**
 * Every slice of the box at `coords`: its byte offset in the (unswizzled) packed box and its byte offset
 * in global memory, or -1 outside the tensor.
 */
function slices(m: Map, coords: number[]): [number, number][] {
  const rank = m.dims.length;
  const count = m.box.map((b, i) => (i === rank - 2 ? 1 : Math.ceil(b / (m.estr?.[i] ?? 1))));
  const out: [number, number][] = [];
  const k = new Array<number>(rank).fill(0);
  for (let n = 0; n < count.reduce((a, b) => a * b, 1); n++) {
    let g = 0;
    let inside = true;
    for (let i = 0; i < rank; i++) {
      const x = coords[i] + k[i] * (m.estr?.[i] ?? 1);
      if (x < 0 || x >= m.dims[i]) inside = false;
      g += x * (i === 0 ? m.slice : m.strides[i - 1]);
    }
    out.push([n * m.slice, inside ? g : -1]);
    for (let i = 0; i < rank && ++k[i] >= count[i]; i++) k[i] = 0;
  }
  return out;
}

/** A load of the box into a 4096-byte tile of 0xFF bytes at a 1024-byte-aligned address: the tile and the bytes counted. */
function load(mem: Uint8Array, m: Map, coords: number[]): { tile: Uint8Array; tx: number } {
  const tile = new Uint8Array(TILE).fill(0xff);
  const all = slices(m, coords);
  for (const [s, g] of all)
    for (let p = 0; p < m.slice; p += 16) {
      const at = swizzle(s + p, m.swizzle ?? 0);
      for (let b = 0; b < 16; b++) tile[at + b] = g >= 0 ? mem[g + p + b] : m.nan ? (b & 1 ? 0x7f : 0xf7) : 0;
    }
  return { tile, tx: all.length * m.slice };
}

/** The probe kernels' output: each load's raw tile in turn (as `size`-byte words), and the bytes each one counted. */
function probes(mem: Uint8Array, size: 2 | 4, loads: [Map, number[]][]): { out: number[]; tx: number[] } {
  const out: number[] = [];
  const tx: number[] = [];
  for (const [m, c] of loads) {
    const r = load(mem, m, c);
    out.push(...numbersOf(r.tile, size));
    tx.push(r.tx);
  }
  return { out, tx };
}

/** A store (or, with `add`, a .add reduction of `size`-byte words) of the tile holding base + i in word i to the box at `coords`. */
function store(values: number[], size: 2 | 4, m: Map, coords: number[], base: number, add = false): number[] {
  const mem = bytesOf(values, size);
  const tile = bytesOf(Array.from({ length: TILE / size }, (_, i) => base + i), size);
  const view = new DataView(mem.buffer);
  const tileView = new DataView(tile.buffer);
  for (const [s, g] of slices(m, coords)) {
    if (g < 0) continue;
    for (let p = 0; p < m.slice; p += 16) {
      const at = swizzle(s + p, m.swizzle ?? 0);
      if (!add) mem.set(tile.subarray(at, at + 16), g + p);
      else for (let w = 0; w < 16; w += 4) view.setUint32(g + p + w, (view.getUint32(g + p + w, true) + tileView.getUint32(at + w, true)) >>> 0, true);
    }
  }
  return numbersOf(mem, size);
}

const T16 = { slice: 16, dims: [5, 6, 4], strides: [144, 896] } as const;
const WIDE = { slice: 16, dims: [20, 3, 3], strides: [336, 1040] } as const;
const T32 = { slice: 32, dims: [6, 5, 3], strides: [544, 2784] } as const;
const U32 = { slice: 16, dims: [3, 4, 5], strides: [80, 352], box: [4, 2, 2] } as const;
const m16 = (box: number[], more: Partial<Map> = {}): Map => ({ ...T16, box, ...more, dims: [...(more.dims ?? T16.dims)], strides: [...(more.strides ?? T16.strides)] });
const m32 = (box: number[], swizzle: 0 | 32 = 32): Map => ({ ...T32, dims: [...T32.dims], strides: [...T32.strides], box, swizzle });
const wide = (box: number[], swizzle: 0 | 32 | 64 | 128 = 0): Map => ({ ...WIDE, dims: [...WIDE.dims], strides: [...WIDE.strides], box, swizzle });
const u32Map = (): Map => ({ ...U32, dims: [...U32.dims], strides: [...U32.strides], box: [...U32.box] });
const one = (a: number[], m: Map, c: number[]) => probes(bytesOf(a, 2), 2, [[m, c]]);

export const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  il16_load: ({ a }) => {
    const m = m16([8, 2, 3]);
    return probes(bytesOf(a, 2), 2, [[0, 0, 0], [0, 1, 1], [0, 4, 2], [0, 5, 0], [0, 6, 0], [0, 0, 4], [8, 0, 0]].map((c) => [m, c]));
  },
  il16_boxes: ({ a }) => probes(bytesOf(a, 2), 2, [[8, 1, 1], [8, 4, 1], [8, 1, 4]].map((box) => [m16(box), [0, 1, 0]])),
  il16_wide: ({ a }) => one(a, wide([16, 2, 2]), [0, 1, 1]),
  il16_c0_1: ({ a }) => one(a, m16([8, 2, 3]), [1, 1, 1]),
  il16_c0_3: ({ a }) => one(a, m16([8, 2, 3]), [3, 2, 1]),
  il16_neg0: ({ a }) => one(a, m16([8, 2, 3]), [-1, 1, 1]),
  il16_neg1: ({ a }) => one(a, m16([8, 2, 3]), [0, -1, 1]),
  il16_neg2: ({ a }) => one(a, m16([8, 2, 3]), [0, 1, -1]),
  il16_swizzle: ({ a }) => probes(bytesOf(a, 2), 2, ([32, 64, 128] as const).map((s) => [wide([8, 2, 3], s), [0, 1, 0]])),
  il32_load: ({ a }) =>
    probes(bytesOf(a, 2), 2, [
      [m32([8, 3, 2]), [0, 0, 0]],
      [m32([8, 3, 2]), [0, 1, 1]],
      [m32([8, 3, 2]), [0, 3, 2]],
      [m32([8, 3, 2]), [0, 5, 0]],
      [m32([16, 1, 1]), [0, 2, 1]],
      [m32([16, 2, 2], 0), [0, 1, 1]],
    ]),
  il32_c0: ({ a }) => one(a, m32([8, 3, 2]), [2, 1, 1]),
  il16_rank4: ({ a }) => {
    const m: Map = { slice: 16, dims: [3, 3, 3, 2], strides: [144, 464, 1424], box: [8, 2, 3, 2] };
    return probes(bytesOf(a, 2), 2, [[m, [0, 1, 1, 1]], [m, [0, 0, 2, 0]]]);
  },
  il16_rank5: ({ a }) => {
    const m: Map = { slice: 16, dims: [2, 2, 2, 2, 2], strides: [144, 304, 624, 1264], box: [8, 2, 2, 2, 2] };
    return probes(bytesOf(a, 2), 2, [[m, [0, 1, 1, 1, 1]], [m, [0, 1, 0, 1, 0]]]);
  },
  il_u32_load: ({ a }) => probes(bytesOf(a, 4), 4, [[0, 0, 0], [0, 1, 1], [0, 3, 4]].map((c) => [u32Map(), c])),
  il_dtypes: ({ a, b }) => {
    const at = (mem: Uint8Array, box: number[]) => load(mem, { slice: 16, dims: [5, 3, 3], strides: [96, 320], box }, [0, 1, 1]);
    const r8 = at(bytesOf(a, 1), [16, 2, 2]);
    const r64 = at(bytesOf(b, 8), [2, 2, 2]);
    return { out: [...numbersOf(r8.tile, 2), ...numbersOf(r64.tile, 2)], tx: [r8.tx, r64.tx] };
  },
  il16_estr0: ({ a }) => one(a, m16([8, 2, 3], { estr: [2, 1, 1] }), [0, 1, 1]),
  il16_estr12: ({ a }) => one(a, m16([8, 4, 3], { estr: [1, 2, 2] }), [0, 1, 1]),
  il16_nan: ({ a }) => one(a, m16([8, 2, 3], { nan: true }), [0, 5, 3]),
  il16_mcast: ({ a }) => probes(bytesOf(a, 2), 2, [[m16([8, 2, 3]), [0, 1, 1]], [m16([8, 2, 3]), [0, 1, 1]]]),
  il16_store: ({ a, b }) => ({ a: store(a, 2, m16([8, 2, 3]), [0, 1, 1], 1000), b: store(b, 2, m16([8, 2, 3]), [0, 5, 3], 1000) }),
  il16_store_c0: ({ a }) => ({ a: store(a, 2, m16([8, 2, 3]), [2, 1, 1], 1000) }),
  il32_store: ({ a }) => ({ a: store(a, 2, m32([8, 3, 2]), [0, 1, 1], 1000) }),
  il_u32_reduce: ({ a }) => ({ a: store(a, 4, u32Map(), [0, 1, 1], 100000, true) }),
};
