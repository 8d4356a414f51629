// Which kernel a simulator request runs, template kernels included: `k<float, 1024>` names an
// instantiation (types and values, defaults filled in, constants and `#define`s by name); a bare
// `k` of a template kernel takes the one instantiation the file launches (`k<128><<<...>>>`) or
// instantiates explicitly (`template __global__ void k<128>(...);`), and otherwise the error lists them.
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import type { CompilerContext, FnDecl } from './context';
import { fileContext, withSnippet } from './snippets';
import { named, requiredField } from './syntax';
import type { CType } from './types';
import { applyDefaults, bindTemplateArgs, spellArgs, type TemplateBinding, type TemplateParam, templateArg, templateParams } from './templates';

/** The kernel to run and its template arguments (empty for a plain kernel). */
export interface KernelChoice {
  decl: FnDecl;
  binding: TemplateBinding;
  /** As C++ spells it: `k`, `k<4, float>`. */
  name: string;
}

/** One instantiation of a template kernel the file names, or why its arguments cannot be read. */
export interface KernelInstance {
  /** `k<4, float>` once bound (defaults filled in), else as written. */
  name: string;
  binding?: TemplateBinding;
  error?: string;
  /** Zero-based line of the launch or explicit instantiation. */
  line: number;
}

/** `k<float, 1024>` → name and argument texts (split at top-level commas); undefined if it is no name. */
export function parseKernelName(text: string): { name: string; args?: string[] } | undefined {
  const m = /^\s*((?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*(?:<([^]*)>)?\s*$/.exec(text);
  if (!m) return undefined;
  const name = m[1].replace(/\s+/g, '').replace(/^::/, '');
  if (m[2] === undefined) return { name };
  const args: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of m[2]) {
    if (ch === '<' || ch === '(' || ch === '[') depth++;
    else if (ch === '>' || ch === ')' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      args.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() || args.length) args.push(cur.trim());
  if (depth !== 0 || args.some((a) => !a)) return undefined;
  return { name, args };
}

/** Picks the kernel `requested` names (or the file's only kernel) and binds its template arguments. Throws SimError about the `kernel` field. */
export function chooseKernel(c: CompilerContext, requested: string | undefined, file: string): KernelChoice {
  const kernels = c.kernels;
  const names = [...new Set(kernels.map((d) => d.name))];
  if (!kernels.length) throw SimError.ofRequest({ kind: 'kernel' }, `${file}: no __global__ kernel found`);
  if (requested === undefined) {
    if (kernels.length > 1) throw SimError.ofRequest({ kind: 'kernel' }, `${file} has ${kernels.length} kernels; choose one with --kernel (${names.join(', ')})`);
    return fromFile(c, kernels[0]);
  }
  const parsed = parseKernelName(requested);
  const bare = parsed?.name.replace(/^.*::/, '');
  const decl = kernels.find((d) => d.name === bare);
  if (!parsed || !decl) throw SimError.ofRequest({ kind: 'kernel', unknown: { name: requested, available: names } }, `${file}: no __global__ kernel named '${requested}' (kernels: ${names.join(', ')})`);
  if (!parsed.args) return fromFile(c, decl);
  if (!decl.tparams) throw SimError.ofRequest({ kind: 'kernel' }, `kernel '${decl.name}' is not a template: run it as --kernel ${decl.name}`);
  const params = templateParams(decl.tparams, c);
  const binding: TemplateBinding = new Map();
  if (parsed.args.length > params.length) throw SimError.ofRequest({ kind: 'kernel' }, `'${requested}': ${decl.name} takes ${params.length} template argument${params.length === 1 ? '' : 's'} (${signature(decl)}), got ${parsed.args.length}`);
  parsed.args.forEach((text, i) => {
    const p = params[i];
    try {
      binding.set(p.name, argFromText(c, decl.node, p, text));
    } catch (e) {
      if (!(e instanceof SimError)) throw e;
      const why = /^cannot read/.test(e.message) ? `it is not a ${p.kind === 'type' ? 'type' : 'constant expression'}` : e.message;
      throw SimError.ofRequest({ kind: 'kernel' }, `'${requested}': template argument '${text}' for ${p.kind === 'type' ? 'type' : 'non-type'} parameter '${p.name}' of ${decl.name} (${signature(decl)}): ${why}`);
    }
  });
  const missing = defaults(c, params, binding, decl);
  if (missing.length) throw SimError.ofRequest({ kind: 'kernel' }, `'${requested}': template argument${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')} of ${decl.name} not given (${signature(decl)})`);
  return { decl, binding, name: `${decl.name}<${spellArgs(params.map((p) => binding.get(p.name)!))}>` };
}

/** A kernel named without template arguments: itself, or the template's one instantiation in the file. */
function fromFile(c: CompilerContext, decl: FnDecl): KernelChoice {
  if (!decl.tparams) return { decl, binding: new Map(), name: decl.name };
  const found = kernelInstantiations(c, decl);
  const usable = found.filter((i) => i.binding);
  const distinct = [...new Map(usable.map((i) => [i.name, i])).values()];
  if (distinct.length === 1 && usable.length === found.length) return { decl, binding: distinct[0].binding!, name: distinct[0].name };
  if (!found.length) {
    // A template whose every parameter has a default still names one instantiation.
    const params = templateParams(decl.tparams, c);
    const binding: TemplateBinding = new Map();
    if (!defaults(c, params, binding, decl).length) return { decl, binding, name: `${decl.name}<${spellArgs(params.map((p) => binding.get(p.name)!))}>` };
    throw SimError.ofRequest(
      { kind: 'kernel' },
      `${decl.name} is a template (${signature(decl)}) and the file neither launches nor explicitly instantiates it; name an instantiation: --kernel '${decl.name}<${params.map((p) => (p.kind === 'type' ? 'float' : '128')).join(', ')}>'`,
    );
  }
  const listed = [...new Set(found.map((i) => (i.error ? `${i.name} (line ${i.line + 1}: ${i.error})` : i.name)))];
  throw SimError.ofRequest({ kind: 'kernel' }, `${decl.name} is a template; name an instantiation: ${listed.join(', ')}`);
}

/** `template <int kStages, typename T = float>` as written. */
function signature(decl: FnDecl): string {
  return `template ${decl.tparams!.text.replace(/\s+/g, ' ')}`;
}

function defaults(c: CompilerContext, params: TemplateParam[], binding: TemplateBinding, decl: FnDecl): string[] {
  try {
    return applyDefaults(c, params, binding, decl.node);
  } catch (e) {
    if (!(e instanceof SimError)) throw e;
    throw SimError.ofRequest({ kind: 'kernel' }, `the default template arguments of ${decl.name} cannot be evaluated: ${e.message}`);
  }
}

/** A template argument given as text (`float`, `2 * kStages`, `STAGES`), read with the file's grammar in its file scope. */
function argFromText(c: CompilerContext, at: SyntaxNode, p: TemplateParam, text: string): number | CType {
  const cx = fileContext(c);
  if (p.kind === 'type') {
    return withSnippet(at, `${text} __phaseflip_arg;`, (root) => {
      const d = named(root)[0];
      const tn = d?.childForFieldName('type');
      const dn = d?.childForFieldName('declarator');
      if (!d || d.type !== 'declaration' || !tn || !dn) throw new SimError(`'${text}' is not a type`);
      return c.declarator(cx, c.baseType(cx, tn), dn).type;
    });
  }
  return withSnippet(at, `int __phaseflip_arg = (${text});`, (root) => {
    const init = named(named(root)[0]).find((x) => x.type === 'init_declarator')?.childForFieldName('value');
    if (!init) throw new SimError(`'${text}' is not an expression`);
    return templateArg(c, cx, p, init);
  });
}

/** The instantiations of template kernel `decl` the file names: launches with template arguments and explicit instantiations, in source order. */
export function kernelInstantiations(c: CompilerContext, decl: FnDecl): KernelInstance[] {
  if (!decl.tparams) return [];
  const params = templateParams(decl.tparams, c);
  const out: KernelInstance[] = [];
  const visit = (n: SyntaxNode): void => {
    const named_ = templateUse(n, decl.name);
    if (named_) out.push(instance(c, decl, params, named_.args, named_.at));
    for (const ch of named(n)) if (ch.text.includes(decl.name)) visit(ch);
  };
  visit(decl.node.tree.rootNode);
  return out;
}

/** `k<...><<<...>>>(...)` or `template __global__ void k<...>(...);`: the template arguments written. */
function templateUse(n: SyntaxNode, name: string): { args: SyntaxNode[]; at: SyntaxNode } | undefined {
  let fn: SyntaxNode | null = null;
  if (n.type === 'call_expression' && named(n).some((x) => x.type === 'kernel_call_syntax')) fn = n.childForFieldName('function');
  else if (n.type === 'template_instantiation') {
    for (let d = n.childForFieldName('declarator'); d; d = d.childForFieldName('declarator')) {
      if (d.type === 'template_function') {
        fn = d;
        break;
      }
    }
  }
  while (fn?.type === 'qualified_identifier') fn = fn.childForFieldName('name');
  if (fn?.type !== 'template_function' || fn.childForFieldName('name')?.text !== name) return undefined;
  return { args: named(requiredField(fn, 'arguments')), at: n };
}

function instance(c: CompilerContext, decl: FnDecl, params: TemplateParam[], args: SyntaxNode[], at: SyntaxNode): KernelInstance {
  const written = `${decl.name}<${args.map((a) => a.text.replace(/\s+/g, ' ')).join(', ')}>`;
  const line = at.startPosition.row;
  try {
    const binding = bindTemplateArgs(c, fileContext(c), params, args, decl.name, at);
    const missing = applyDefaults(c, params, binding, at);
    if (missing.length) return { name: written, line, error: `${missing.join(', ')} deduced from the call, which the simulator does not do` };
    return { name: `${decl.name}<${spellArgs(params.map((p) => binding.get(p.name)!))}>`, binding, line };
  } catch (e) {
    if (!(e instanceof SimError)) throw e;
    return { name: written, line, error: e.message };
  }
}
