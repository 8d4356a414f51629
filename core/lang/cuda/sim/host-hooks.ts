// What a whole program adds to the compiler for host code (the `HostHooks` of context.ts): the C
// library and the CUDA runtime by name (host-builtins.ts, cuda-runtime-builtins.ts), kernel launches,
// `new`/`delete`, and `v[i]` on the prelude's std::vector (host-prelude.ts), which has no operator
// overloading to lean on.
import type { SyntaxNode } from '../parser';
import type { BuiltinCx } from './builtin-operands';
import type { CompilerContext, Ex, FnCx, HostHooks, LV } from './context';
import { CUDA_RUNTIME_BUILTINS } from './cuda-runtime-builtins';
import { HOST_BUILTINS, hostDelete, hostNew } from './host-builtins';
import { compileLaunchKernelEx, compileTripleChevron } from './host-launch';
import { loadPointer, storer } from './runtime';
import { Buffer, type Pointer } from '../../../sim/memory';
import { lastName, named, requiredField } from './syntax';
import { S64, sizeOfType, type StructDef, U32 } from './types';

/** The host library's calls by unqualified name (`std::printf` is `printf`). */
export const HOST_LIBRARY: readonly string[] = Object.freeze([...Object.keys(HOST_BUILTINS), ...Object.keys(CUDA_RUNTIME_BUILTINS), 'cudaLaunchKernelEx']);

export class ProgramHooks implements HostHooks {
  /** The program's file as compiled (assert messages name it). */
  constructor(readonly file: string) {}

  call(c: CompilerContext, cx: FnCx, fullName: string, argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[]): Ex | undefined {
    const name = lastName(fullName);
    const k: BuiltinCx = { c, cx, n };
    if (name === 'cudaLaunchKernelEx') return compileLaunchKernelEx(k, argNodes);
    if (fullName === 'dim3') return dim3Temporary(k, argNodes);
    const ns = fullName.slice(0, Math.max(0, fullName.length - name.length - 2));
    const h = HOST_BUILTINS[name] ?? CUDA_RUNTIME_BUILTINS[name];
    return h?.(k, name, ns, argNodes, targs);
  }

  expr(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex | undefined {
    switch (n.type) {
      case 'call_expression':
        return compileTripleChevron(c, cx, n);
      case 'new_expression':
        return n.childForFieldName('placement') ? undefined : hostNew(c, cx, n);
      case 'delete_expression':
        return hostDelete(c, cx, n);
      case 'subscript_expression':
        return vectorIndex(c, cx, n);
    }
    return undefined;
  }
}

/** `dim3(x[, y[, z]])` as a value (`k<<<dim3(4, 2), dim3(128)>>>`, `cfg.gridDim = dim3(4)`): a temporary, missing sizes 1. */
function dim3Temporary(k: BuiltinCx, argNodes: SyntaxNode[]): Ex | undefined {
  const { c, cx, n } = k;
  const def = c.structDef(cx, 'dim3', n);
  if (!def || argNodes.length > 3) return undefined;
  const xs = argNodes.map((a) => c.convertTo(c.rv(c.expr(cx, a)), U32, a).ev);
  const put = storer('u32');
  return {
    t: { k: 'struct', def },
    ev: (f) => {
      const buf = new Buffer(f.ts.ex.nextBufferId(), 'dim3 temporary', 'local', 12);
      for (let i = 0; i < 3; i++) put(buf, 4 * i, xs[i] ? xs[i](f) : 1);
      return { buf, offset: 0 };
    },
  };
}

function isVector(def: StructDef): boolean {
  return def.template?.name === 'vector' && def.fields[0]?.name === '__data';
}

/** `v[i]` on a std::vector: element i of its storage (bounds-checked by the storage's buffer). */
function vectorIndex(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex | undefined {
  const argNode = requiredField(n, 'argument');
  const t = c.typeOf(cx, argNode);
  if (t.k !== 'struct' || !isVector(t.def)) return undefined;
  const self = c.addressOf(c.expr(cx, argNode), argNode);
  const dataT = t.def.fields[0].type;
  if (dataT.k !== 'ptr') return undefined;
  const et = dataT.to;
  const es = Math.max(1, sizeOfType(et));
  const idxList = n.childForFieldName('indices') ?? named(n)[1];
  const idxNode = idxList.type === 'subscript_argument_list' ? named(idxList)[0] : idxList;
  const i = c.convertTo(c.rv(c.expr(cx, idxNode)), S64, idxNode).ev;
  const storage = (f: Parameters<typeof self>[0]): Pointer => {
    const p = self(f) as Pointer;
    const d = loadPointer(p.buf, p.offset);
    if (!d) throw new Error(`index into an empty std::vector ('${argNode.text}')`);
    return d;
  };
  const lv: LV = { k: 'mem', buf: (f) => storage(f).buf, off: (f) => storage(f).offset + i(f) * es };
  return { t: et, ev: c.loadFn(lv, et), lv };
}
