// Kernel launches written in the file (`k<<<grid, block, smem, stream>>>(...)`, `k<T, 3><<<...>>>`):
// the block each launches with, folded to numbers, so the analysis replays the sizes the kernel
// really runs at. A block that does not fold to constants is unknown and the site is ignored.
import { foldConstant, recordConstants } from './constants';
import type { SyntaxNode } from './parser';
import { declaratorName, field, named, unqualified } from './syntax-nodes';

/** One launch of a kernel: its name without scope or template arguments and its block. */
export interface LaunchSite {
  kernel: string;
  block: [number, number, number];
  /** Zero-based line of the launch. */
  line: number;
}

/** A function whose body may launch kernels (scan.ts's FnDef fits; named here so scan.ts can import this file). */
export interface LaunchingFunction {
  body: SyntaxNode;
  params: { name: string }[];
}

const MAX_THREADS = 1024;

/** The launches in `fns`' bodies whose block folds, in source order. Cheap when the file has none. */
export function findLaunchSites(text: string, fns: Map<string, LaunchingFunction[]>, constants: ReadonlyMap<string, number>): LaunchSite[] {
  if (!text.includes('<<<')) return [];
  const out: LaunchSite[] = [];
  const seen = new Set<number>();
  for (const list of fns.values()) {
    for (const fn of list) {
      if (!fn.body.text.includes('<<<')) continue;
      const calls: SyntaxNode[] = [];
      collectLaunches(fn.body, calls);
      if (!calls.length) continue;
      const scope = new Map(constants);
      for (const [k, v] of localNames(fn, constants)) if (v === undefined) scope.delete(k); else scope.set(k, v);
      for (const call of calls) {
        // A lambda or class method inside a function is also a function of its own: count it once.
        if (seen.has(call.startIndex)) continue;
        seen.add(call.startIndex);
        const site = launchSite(call, fn.body, scope);
        if (site) out.push(site);
      }
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/**
 * Distinct one-dimensional launched block sizes per kernel name, ascending. Multi-dimensional blocks
 * are left out: the replay models `threadIdx.x` only, so it cannot stand for them.
 */
export function launchBlockSizes(sites: LaunchSite[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const s of sites) {
    if (s.block[1] !== 1 || s.block[2] !== 1) continue;
    const list = out.get(s.kernel) ?? [];
    if (!list.includes(s.block[0])) list.push(s.block[0]);
    out.set(s.kernel, list);
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

/** Whether `n` is a kernel launch, a call with a `<<<…>>>` configuration. */
export function isKernelLaunch(n: SyntaxNode): boolean {
  return n.type === 'call_expression' && named(n).some((c) => c.type === 'kernel_call_syntax');
}

function collectLaunches(n: SyntaxNode, out: SyntaxNode[]): void {
  if (isKernelLaunch(n)) out.push(n);
  for (const c of named(n)) if (c.text.includes('<<<')) collectLaunches(c, out);
}

function launchSite(call: SyntaxNode, body: SyntaxNode, constants: ReadonlyMap<string, number>): LaunchSite | undefined {
  const fn = field(call, 'function');
  const config = named(call).find((c) => c.type === 'kernel_call_syntax');
  if (!fn || !config) return undefined;
  const kernel = kernelName(fn);
  const args = named(config).filter((c) => c.type !== 'comment');
  if (!kernel || args.length < 2) return undefined;
  const block = foldBlock(args[1], body, constants);
  return block ? { kernel, block, line: call.startPosition.row } : undefined;
}

/** `k`, `ns::k`, `k<float, 3>`, `ns::k<3>` → `k`; anything else (a function pointer expression) → undefined. */
function kernelName(fn: SyntaxNode): string | undefined {
  let n: SyntaxNode | null = fn;
  if (n.type === 'qualified_identifier') {
    while (n && n.type === 'qualified_identifier') n = field(n, 'name');
    if (!n) return undefined;
  }
  if (n.type === 'template_function') n = field(n, 'name');
  if (!n || n.type !== 'identifier') return undefined;
  return unqualified(n.text);
}

/** A block argument as [x, y, z]: a constant expression, `dim3(...)`, or a local `dim3 b(...)` never changed. */
function foldBlock(arg: SyntaxNode, body: SyntaxNode, constants: ReadonlyMap<string, number>): [number, number, number] | undefined {
  if (arg.type === 'call_expression' && field(arg, 'function')?.text === 'dim3') return dims(named(field(arg, 'arguments')), constants);
  if (hasOpaqueCall(arg)) return undefined;
  if (arg.type === 'identifier' && !constants.has(arg.text)) {
    const init = unchangedDim3(arg.text, body);
    return init ? dims(init, constants) : undefined;
  }
  const v = foldConstant(arg, constants);
  return valid(v) ? [v, 1, 1] : undefined;
}

/**
 * A call other than a cast or `dim3` inside the block expression: the constant folder reads a
 * one-argument call as a cast, which would make `threads_for(64)` 64.
 */
function hasOpaqueCall(n: SyntaxNode): boolean {
  if (n.type === 'call_expression') {
    const f = field(n, 'function');
    const callee = f?.type === 'template_function' ? field(f, 'name')?.text : f?.text;
    if (!/^(dim3|static_cast|int|unsigned|uint32_t|int32_t|size_t)$/.test(callee ?? '')) return true;
  }
  return named(n).some(hasOpaqueCall);
}

function dims(args: SyntaxNode[], constants: ReadonlyMap<string, number>): [number, number, number] | undefined {
  if (args.length < 1 || args.length > 3) return undefined;
  const v = args.map((a) => foldConstant(a, constants));
  if (!v.every((x): x is number => x !== undefined && Number.isInteger(x) && x > 0)) return undefined;
  const block: [number, number, number] = [v[0], v[1] ?? 1, v[2] ?? 1];
  return valid(block[0] * block[1] * block[2]) ? block : undefined;
}

function valid(v: number | undefined): v is number {
  return v !== undefined && Number.isInteger(v) && v > 0 && v <= MAX_THREADS;
}

/**
 * The constructor arguments of `dim3 name(...)` when it is the name's only declaration in `body` and
 * every other mention is a launch configuration or a read of `.x`/`.y`/`.z`; otherwise undefined.
 */
function unchangedDim3(name: string, body: SyntaxNode): SyntaxNode[] | undefined {
  const mentions: SyntaxNode[] = [];
  collectIdentifiers(body, name, mentions);
  const decls = mentions.filter((m) => m.parent?.type === 'init_declarator' && field(m.parent, 'declarator')?.equals(m));
  if (decls.length !== 1) return undefined;
  const d = decls[0].parent!;
  if (d.parent?.type !== 'declaration' || field(d.parent, 'type')?.text !== 'dim3') return undefined;
  const init = field(d, 'value');
  if (!init || init.type !== 'argument_list') return undefined;
  for (const m of mentions) if (m !== decls[0] && !m.equals(decls[0]) && !isPlainUse(m)) return undefined;
  return named(init);
}

/** A launch configuration argument, or `b.x` read (not assigned, incremented or addressed). */
function isPlainUse(m: SyntaxNode): boolean {
  const p = m.parent;
  if (!p) return false;
  if (p.type === 'kernel_call_syntax') return true;
  if (p.type !== 'field_expression' || !/^[xyz]$/.test(field(p, 'field')?.text ?? '')) return false;
  const use = p.parent;
  if (!use) return false;
  if (use.type === 'update_expression' || use.type === 'pointer_expression') return false;
  if (use.type === 'assignment_expression' && field(use, 'left')?.equals(p)) return false;
  return true;
}

function collectIdentifiers(n: SyntaxNode, name: string, out: SyntaxNode[]): void {
  if (n.type === 'identifier' && n.text === name) out.push(n);
  for (const c of named(n)) if (c.text.includes(name)) collectIdentifiers(c, name, out);
}

/**
 * The names a function declares (parameters and locals): `const`/`constexpr` integers with their
 * value, every other name (which shadows a file constant) as undefined. A name declared twice with
 * different values (in different blocks) is undefined too.
 */
function localNames(fn: LaunchingFunction, fileConstants: ReadonlyMap<string, number>): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>(fn.params.filter((p) => p.name).map((p) => [p.name, undefined]));
  const scope = (): Map<string, number> => {
    const m = new Map(fileConstants);
    for (const [k, v] of out) if (v === undefined) m.delete(k); else m.set(k, v);
    return m;
  };
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'declaration') {
      const names = named(n)
        .filter((d) => /declarator$|^identifier$/.test(d.type))
        .map((d) => declaratorName(d.type === 'init_declarator' ? field(d, 'declarator') : d)?.text)
        .filter((x): x is string => !!x);
      const values = scope();
      for (const name of names) values.delete(name);
      recordConstants(n, values);
      for (const name of names) {
        const v = values.get(name);
        out.set(name, out.has(name) && out.get(name) !== v ? undefined : v);
      }
    }
    for (const c of named(n)) visit(c);
  };
  visit(fn.body);
  return out;
}
