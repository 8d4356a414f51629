// Kernel launches written in host code: `k<<<grid, block, smem, stream>>>(args)` (template kernels
// with explicit arguments too) and `cudaLaunchKernelEx(&config, k, args...)` with its cluster
// attribute. The launch compiles to one instruction that evaluates the configuration and the
// arguments (converted to the kernel's parameter types, as the call would) and hands them to the
// program runner through the host state; the runner checks the configuration as the runtime does and
// runs the kernel (host-program.ts).
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { args as compileArgs, asNum, asPtr, type BuiltinCx } from './builtin-operands';
import type { CompilerContext, Ex, Fn, FnCx, FnDecl } from './context';
import { hostOf, type KernelLaunch } from './host-runtime';
import { loader, loadPointer } from './runtime';
import { fail, named, requiredField, unsupported } from './syntax';
import { applyDefaults, bindTemplateArgs, spellArgs, type TemplateBinding, templateParams } from './templates';
import { type CType, S32, typeName } from './types';

type Dim = (f: Parameters<Fn>[0]) => [number, number, number];

/** A kernel named in host code, with its template arguments bound. */
interface KernelRef {
  decl: FnDecl;
  binding: TemplateBinding;
  name: string;
}

function kernelRef(c: CompilerContext, cx: FnCx, fnNode: SyntaxNode): KernelRef {
  let callee = fnNode;
  while (callee.type === 'qualified_identifier') callee = requiredField(callee, 'name');
  let targs: SyntaxNode[] | undefined;
  if (callee.type === 'template_function') {
    targs = named(requiredField(callee, 'arguments'));
    callee = requiredField(callee, 'name');
  }
  const name = callee.text;
  const decl = c.kernels.find((d) => d.name === name);
  if (!decl) fail(`'${name}' is not a __global__ kernel of this file`, fnNode);
  const binding: TemplateBinding = new Map();
  if (decl.tparams) {
    const params = templateParams(decl.tparams, c);
    bindTemplateArgs(c, cx, params, targs ?? [], decl.name, fnNode, binding);
    const missing = applyDefaults(c, params, binding, fnNode);
    if (missing.length) unsupported(`launching template kernel ${name} without its template arguments (deduced from the call)`, fnNode);
    return { decl, binding, name: `${name}<${spellArgs(params.map((p) => binding.get(p.name)!))}>` };
  }
  return { decl, binding, name };
}

/** The kernel's parameter types (compiling it); undefined when it cannot be compiled (the launch then reports why). */
function paramTypes(c: CompilerContext, k: KernelRef, at: SyntaxNode): CType[] | undefined {
  try {
    return c.instantiate(k.decl, k.binding, at).params.map((p) => p.type);
  } catch (e) {
    if (e instanceof SimError) return undefined;
    throw e;
  }
}

/** A grid or block operand: an integer or a dim3. */
function dimOf(c: CompilerContext, cx: FnCx, n: SyntaxNode): Dim {
  const e = c.expr(cx, n);
  if (e.t.k === 'struct') {
    const at = c.addressOf(e, n);
    const fields = ['x', 'y', 'z'].map((x) => e.t.k === 'struct' && e.t.def.fields.find((fl) => fl.name === x));
    if (fields.some((fl) => !fl)) fail(`a launch dimension of type ${typeName(e.t)}`, n);
    const ld = loader('u32');
    return (f) => {
      const p = at(f) as Pointer;
      return fields.map((fl) => ld(p.buf, p.offset + (fl as { offset: number }).offset)) as [number, number, number];
    };
  }
  const v = asNum({ c, cx, n }, c.rv(e), 'u32');
  return (f) => [v(f), 1, 1];
}

function argValues(c: CompilerContext, cx: FnCx, nodes: SyntaxNode[], types: CType[] | undefined, n: SyntaxNode): Fn[] {
  return nodes.map((a, i) => {
    const e = c.rv(c.expr(cx, a));
    const t = types?.[i];
    return t ? c.convertTo(e, t, n).ev : e.ev;
  });
}

/** Emits the launch instruction; its value is the launch's error code (what cudaLaunchKernelEx returns). */
function emitLaunch(c: CompilerContext, cx: FnCx, n: SyntaxNode, k: KernelRef, grid: Dim, block: Dim, smem: Fn | undefined, cluster: Dim | undefined, argFns: Fn[]): Ex {
  const dst = cx.slot();
  const next = cx.code.length + 1;
  const line = n.startPosition.row;
  c.emit(cx, n, (f) => {
    const launch: KernelLaunch = {
      name: k.name,
      declName: k.decl.name,
      binding: k.binding,
      grid: grid(f),
      block: block(f),
      dynamicSmem: smem ? smem(f) : 0,
      cluster: cluster?.(f),
      args: argFns.map((a) => a(f)),
      line,
    };
    const h = hostOf(f);
    if (!h.launch) throw new SimError('kernel launch outside a whole program');
    f.v[dst] = h.launch(launch);
    return next;
  });
  return { t: S32, ev: (f) => f.v[dst], pure: true };
}

/** `k<<<grid, block[, smem[, stream]]>>>(args)`, or undefined when `n` is no launch. */
export function compileTripleChevron(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex | undefined {
  const config = named(n).find((x) => x.type === 'kernel_call_syntax');
  if (!config) return undefined;
  const k = kernelRef(c, cx, requiredField(n, 'function'));
  const conf = named(config);
  if (conf.length < 2) fail('a launch needs a grid and a block', config);
  const grid = dimOf(c, cx, conf[0]);
  const block = dimOf(c, cx, conf[1]);
  const smem = conf[2] ? asNum({ c, cx, n }, c.rv(c.expr(cx, conf[2])), 'u64') : undefined;
  if (conf[3]) c.expr(cx, conf[3]); // the stream: every launch is ordered with the host (the simulator runs it at once)
  const argNodes = named(requiredField(n, 'arguments'));
  const types = paramTypes(c, k, n);
  if (types && argNodes.length !== types.length) fail(`${k.name} takes ${types.length} argument(s), the launch passes ${argNodes.length}`, n);
  const ex = emitLaunch(c, cx, n, k, grid, block, smem, undefined, argValues(c, cx, argNodes, types, n));
  // `<<<>>>` has no value; errors are read with cudaGetLastError.
  return { t: { k: 'void' }, ev: ex.ev, pure: true };
}

/**
 * `cudaLaunchKernelEx(&config, kernel, args...)`: the config's gridDim, blockDim, dynamicSmemBytes
 * and a cudaLaunchAttributeClusterDimension among its attrs (the cluster is recorded with the launch).
 */
export function compileLaunchKernelEx(k: BuiltinCx, a: SyntaxNode[]): Ex {
  const { c, cx, n } = k;
  if (a.length < 2) fail('cudaLaunchKernelEx(&config, kernel, args...)', n);
  const cfg = asPtr(k, compileArgs(k, [a[0]])[0]);
  const ref = kernelRef(c, cx, a[1]);
  const types = paramTypes(c, ref, n);
  const argNodes = a.slice(2);
  if (types && argNodes.length !== types.length) fail(`${ref.name} takes ${types.length} argument(s), cudaLaunchKernelEx passes ${argNodes.length}`, n);
  // The prelude's cudaLaunchConfig_t: gridDim (0), blockDim (12), dynamicSmemBytes (24), stream (32), attrs (40), numAttrs (48).
  const u32 = loader('u32');
  const u64 = loader('u64');
  const dim = (off: number): Dim => (f) => {
    const p = cfg(f) as Pointer;
    return [u32(p.buf, p.offset + off), u32(p.buf, p.offset + off + 4), u32(p.buf, p.offset + off + 8)];
  };
  const smem: Fn = (f) => {
    const p = cfg(f) as Pointer;
    return u64(p.buf, p.offset + 24);
  };
  const cluster: Dim = (f) => {
    const p = cfg(f) as Pointer;
    const attrs = loadPointer(p.buf, p.offset + 40);
    const count = u32(p.buf, p.offset + 48);
    // The prelude's cudaLaunchAttribute: id (0), val (8: clusterDim x, y, z), 64 bytes in all.
    for (let i = 0; i < count && attrs; i++) {
      const base = attrs.offset + 64 * i;
      if (u32(attrs.buf, base) === CLUSTER_DIMENSION) return [u32(attrs.buf, base + 8), u32(attrs.buf, base + 12), u32(attrs.buf, base + 16)];
    }
    return [1, 1, 1];
  };
  return emitLaunch(c, cx, n, ref, dim(0), dim(12), smem, cluster, argValues(c, cx, argNodes, types, n));
}

/** cudaLaunchAttributeClusterDimension. */
export const CLUSTER_DIMENSION = 4;
