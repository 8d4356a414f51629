// Tensor TMA through C++: cuda::ptx::cp_async_bulk_tensor (load and store overloads, cta_group_2 included),
// cuda::ptx::cp_reduce_async_bulk_tensor, and libcu++'s cuda::device::experimental
// cp_async_bulk_tensor_{1..5}d_global_to_shared / _shared_to_global. They issue on the same engine as
// the inline-PTX forms (ptx-tensor.ts).
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import { TENSOR_REDUCE_OPS, type TensorReduceOp } from '../../../sim/tensor-copy';
import { args, asNum, asPtr, barArg, type BuiltinCx, cases, type FreeBuiltin, noTags, V } from './builtin-operands';
import type { Fn } from './context';
import { windowAddress } from './cluster-runtime';
import { type Coords, issueTensorLoad, issueTensorMulticast, issueTensorStore, pairBarrierCta, sharedAt } from './ptx-tensor';
import { type Frame, loader } from './runtime';
import type { Pointer } from '../../../sim/memory';

const loadS32 = loader('s32');

/** The coordinates argument `const int32_t (&coords)[N]`: N from its array type, else the map's rank. */
function coordsArg(k: BuiltinCx, node: SyntaxNode): (f: Frame) => Coords {
  const e = k.c.expr(k.cx, node);
  const n = e.t.k === 'arr' ? e.t.n : undefined;
  const p = asPtr(k, k.c.rv(e));
  return (f) => {
    const base = p(f) as Pointer | null;
    if (!base) throw new SimError('cp_async_bulk_tensor: null coordinates');
    return (rank) => Array.from({ length: n ?? rank }, (_, i) => loadS32(base.buf, base.offset + 4 * i));
  };
}

/** Coordinates given one by one (`c0, c1, …`). */
function coordList(k: BuiltinCx, nodes: SyntaxNode[]): (f: Frame) => Coords {
  const cs: Fn[] = args(k, nodes).map((e) => asNum(k, e, 's32'));
  return (f) => cs.map((c) => c(f));
}

const PTX_LOAD = 'cuda::ptx::cp_async_bulk_tensor';
const PTX_STORE = 'cuda::ptx::cp_async_bulk_tensor (store)';

/** `cde::cp_async_bulk_tensor_Nd_global_to_shared` / `_shared_to_global`. */
function libcuForm(d: number, dir: 'global_to_shared' | 'shared_to_global'): FreeBuiltin {
  const what = `cuda::device::experimental::cp_async_bulk_tensor_${d}d_${dir}`;
  return (k, _name, _ns, a) => {
    if (dir === 'global_to_shared') {
      // (dest, tensor_map, c0 … c{d-1}, barrier&)
      if (a.length !== d + 3) return undefined;
      const [dst, map] = args(k, a.slice(0, 2)).map((e) => asPtr(k, e));
      const at = coordList(k, a.slice(2, 2 + d));
      const bar = barArg(k, a[d + 2], what);
      return V((f) => (issueTensorLoad(f.ts, map(f), at(f), sharedAt(f.ts, dst(f) as Pointer | null, what), bar(f), what), 0));
    }
    // (tensor_map, c0 … c{d-1}, src)
    if (a.length !== d + 2) return undefined;
    const map = asPtr(k, args(k, [a[0]])[0]);
    const at = coordList(k, a.slice(1, 1 + d));
    const src = asPtr(k, args(k, [a[d + 1]])[0]);
    return V((f) => (issueTensorStore(f.ts, map(f), at(f), sharedAt(f.ts, src(f) as Pointer | null, what), undefined, what), 0));
  };
}

export const TENSOR_COPY_BUILTINS: Record<string, FreeBuiltin> = {
  // (dst, map, coords, bar) global->shared; (map, coords, src) shared->global, after the space tags.
  ...cases(['cp_async_bulk_tensor'], (k, _name, _ns, raw) => {
    // cta_group_2 (.cta_group::2): the barrier may be in the destination's CTA or its peer (ptx-tensor.ts pairBarrierCta).
    const pairs = raw.some((x) => /(^|::)cta_group_2$/.test(x.text.replace(/\s+/g, '')));
    const a = noTags(k, raw);
    if (a.length === 5) {
      // (dst, map, coords, bar, ctaMask): .multicast::cluster
      const [dst, map, bar] = args(k, [a[0], a[1], a[3]]).map((e) => asPtr(k, e));
      const at = coordsArg(k, a[2]);
      const mask = asNum(k, args(k, [a[4]])[0], 'u16');
      return V((f) => {
        const ts = f.ts;
        let barrierRank: ((rank: number) => number) | undefined;
        if (pairs) {
          const barCta = pairBarrierCta(f, bar(f), 0, PTX_LOAD);
          if (barCta === undefined) return 0;
          barrierRank = (rank) => (rank & ~1) | (barCta & 1);
        }
        issueTensorMulticast(ts, map(f), at(f), windowAddress(ts, dst(f), 0, PTX_LOAD), windowAddress(ts, bar(f), 0, PTX_LOAD), Number(mask(f)), PTX_LOAD, barrierRank);
        return 0;
      });
    }
    if (a.length === 4) {
      const [dst, map] = args(k, a.slice(0, 2)).map((e) => asPtr(k, e));
      const at = coordsArg(k, a[2]);
      const bar = barArg(k, a[3], PTX_LOAD);
      const barPtr = pairs ? asPtr(k, args(k, [a[3]])[0]) : undefined;
      return V((f) => {
        if (barPtr && pairBarrierCta(f, barPtr(f), 0, PTX_LOAD) === undefined) return 0;
        issueTensorLoad(f.ts, map(f), at(f), sharedAt(f.ts, dst(f) as Pointer | null, PTX_LOAD), bar(f), PTX_LOAD);
        return 0;
      });
    }
    if (a.length === 3) {
      const map = asPtr(k, args(k, [a[0]])[0]);
      const at = coordsArg(k, a[1]);
      const src = asPtr(k, args(k, [a[2]])[0]);
      return V((f) => (issueTensorStore(f.ts, map(f), at(f), sharedAt(f.ts, src(f) as Pointer | null, PTX_STORE), undefined, PTX_STORE), 0));
    }
    return undefined;
  }),
  // (op tag, map, coords, src): the reduction is named by its tag (`cuda::ptx::op_add`).
  ...cases(['cp_reduce_async_bulk_tensor'], (k, _name, _ns, raw) => {
    const tag = raw.map((x) => /(?:^|::)op_(\w+)$/.exec(x.text.replace(/\s+/g, ''))?.[1]).find((x) => x);
    const op = TENSOR_REDUCE_OPS.find((o) => o === tag) as TensorReduceOp | undefined;
    const a = noTags(k, raw);
    if (!op || a.length !== 3) return undefined;
    const what = `cuda::ptx::cp_reduce_async_bulk_tensor (.${op})`;
    const map = asPtr(k, args(k, [a[0]])[0]);
    const at = coordsArg(k, a[1]);
    const src = asPtr(k, args(k, [a[2]])[0]);
    return V((f) => (issueTensorStore(f.ts, map(f), at(f), sharedAt(f.ts, src(f) as Pointer | null, what), op, what), 0));
  }),
  ...Object.fromEntries(
    [1, 2, 3, 4, 5].flatMap((d) => [
      [`cp_async_bulk_tensor_${d}d_global_to_shared`, libcuForm(d, 'global_to_shared')],
      [`cp_async_bulk_tensor_${d}d_shared_to_global`, libcuForm(d, 'shared_to_global')],
    ]),
  ),
};
