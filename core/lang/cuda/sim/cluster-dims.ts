// A kernel's `__cluster_dims__(X[, Y[, Z]])`: tree-sitter does not know the attribute (the parse
// text blanks it), so the kernel's head is read from the file's text; the simulator's launch and the
// launch templates both take the kernel's cluster shape from here.
import { SimError } from '../../../sim/machine';
import { type Compiler, FnCx, type FnDecl } from './compile';
import { type TemplateBinding, templateParams, templateScope } from './templates';

/**
 * `__cluster_dims__(X[, Y[, Z]])` in the kernel's head, or alone on the line above it.
 * Arguments are integer constants or names the compiler folds (constexpr values, template arguments).
 */
export function declaredClusterDims(c: Compiler, decl: FnDecl, binding: TemplateBinding, full: string | undefined): [number, number, number] | undefined {
  if (full === undefined) return undefined;
  const body = decl.node.childForFieldName('body');
  const lineStart = full.lastIndexOf('\n', decl.node.startIndex - 1) + 1;
  const prevStart = full.lastIndexOf('\n', lineStart - 2) + 1;
  const previous = lineStart > 0 ? full.slice(prevStart, lineStart) : '';
  // The line above counts only when it is the attribute alone (`__cluster_dims__(2, 1, 1)` then `__global__ void k(…)`).
  const head = (/^\s*__cluster_dims__\s*\([^;{}]*$/.test(previous) ? previous : '') + full.slice(lineStart, body ? body.startIndex : decl.node.endIndex);
  const m = /__cluster_dims__\s*\(([^()]*)\)/.exec(head);
  if (!m) return undefined;
  const parts = m[1].split(',').map((x) => x.trim());
  const dims = parts.map((x) => {
    if (/^\d+[uUlL]*$/.test(x)) return parseInt(x, 10);
    let v: number | undefined;
    if (/^[A-Za-z_][\w:]*$/.test(x)) {
      const cx = new FnCx(decl.name, null, binding, undefined, { line: 0 });
      if (decl.tparams) for (const [k, sym] of templateScope(c, templateParams(decl.tparams, c), binding)) cx.scopes[0].set(k, sym);
      const sym = c.lookup(cx, x)?.sym;
      if (sym?.k === 'const') v = sym.value;
    }
    if (v === undefined) throw new SimError(`__cluster_dims__(${m[1]}): '${x}' is not an integer constant the simulator can fold`, { line: decl.node.startPosition.row }, 'unsupported');
    return v;
  });
  if (dims.length < 1 || dims.length > 3 || dims.some((v) => !Number.isInteger(v) || v < 1)) throw SimError.ofRequest({ kind: 'cluster' }, `bad launch configuration: __cluster_dims__(${m[1]}) must have one to three positive integers`);
  return [dims[0], dims[1] ?? 1, dims[2] ?? 1];
}

