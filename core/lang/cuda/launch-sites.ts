// Kernel launches written in the file: `k<<<grid, block, smem, stream>>>(...)`, `k<T, 3><<<...>>>`,
// `cudaLaunchKernelEx(&config, k, ...)` with its config and cluster attribute,
// `cudaLaunchKernel((void*)k, grid, block, args, smem, stream)` and `cudaLaunchCooperativeKernel`: the
// shape each launches with, folded to numbers, so the analysis replays the sizes the kernel really runs
// at. A dimension that does not fold to a constant is unknown (a launch whose block is unknown gives no size).
import { foldConstant, recordConstants } from './constants';
import type { SyntaxNode } from './parser';
import { declaratorName, field, named, operatorOf, unqualified } from './syntax-nodes';

export type Dim3 = [number, number, number];

/** How a launch is written. */
export type LaunchApi = '<<<>>>' | 'cudaLaunchKernelEx' | 'cudaLaunchKernel' | 'cudaLaunchCooperativeKernel';

/** One launch of a kernel: its name without scope or template arguments, and what of its shape folds. */
export interface KernelLaunch {
  kernel: string;
  api: LaunchApi;
  /** Zero-based line of the launch. */
  line: number;
  block?: Dim3;
  grid?: Dim3;
  /** Dynamic shared memory in bytes. */
  smem?: number;
  /** Cluster shape from a `cudaLaunchAttributeClusterDimension` attribute. */
  cluster?: Dim3;
  /** Template arguments as written (`k<64, float>` gives ['64', 'float']). */
  templateArgs?: string[];
}

/** A launch whose block folds. */
export interface LaunchSite extends KernelLaunch {
  block: Dim3;
}

/** A function whose body may launch kernels (scan.ts's FnDef fits; named here so scan.ts can import this file). */
export interface LaunchingFunction {
  body: SyntaxNode;
  params: { name: string }[];
  /** The body's offsets in the text, when known without looking the body node up. */
  bodySpan?(): [number, number];
}

const MAX_THREADS = 1024;

const LAUNCH_API = /^(cudaLaunchKernelEx|cudaLaunchKernelExC|cudaLaunchKernel|cudaLaunchCooperativeKernel)$/;
const MENTIONS_LAUNCH = /<<<|cudaLaunch(KernelEx|Kernel|CooperativeKernel)\b/;

/** The launches in `fns`' bodies whose block folds, in source order. Cheap when the file has none. */
export function findLaunchSites(text: string, fns: Map<string, LaunchingFunction[]>, constants: ReadonlyMap<string, number>): LaunchSite[] {
  return findLaunches(text, fns, constants).filter((l): l is LaunchSite => !!l.block);
}

/** Every launch in `fns`' bodies that names a kernel, whether its shape folds or not, in source order. */
export function findLaunches(text: string, fns: Map<string, LaunchingFunction[]>, constants: ReadonlyMap<string, number>): KernelLaunch[] {
  if (!MENTIONS_LAUNCH.test(text)) return [];
  const out: KernelLaunch[] = [];
  const seen = new Set<number>();
  for (const list of fns.values()) {
    for (const fn of list) {
      const span = fn.bodySpan?.();
      if (!MENTIONS_LAUNCH.test(span ? text.slice(span[0], span[1]) : fn.body.text)) continue;
      const calls: SyntaxNode[] = [];
      collectLaunches(fn.body, calls);
      if (!calls.length) continue;
      const scope = new Map(constants);
      for (const [k, v] of localNames(fn, constants)) if (v === undefined) scope.delete(k); else scope.set(k, v);
      for (const call of calls) {
        // A lambda or class method inside a function is also a function of its own: count it once.
        if (seen.has(call.startIndex)) continue;
        seen.add(call.startIndex);
        const site = isKernelLaunch(call) ? chevronLaunch(call, fn.body, scope) : apiLaunch(call, fn.body, scope);
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
export function launchBlockSizes(sites: KernelLaunch[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const s of sites) {
    if (!s.block || s.block[1] !== 1 || s.block[2] !== 1) continue;
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

/** Whether `n` calls a runtime launch API (`cudaLaunchKernelEx`, `cudaLaunchKernel`, `cudaLaunchCooperativeKernel`). */
function isApiLaunch(n: SyntaxNode): boolean {
  return n.type === 'call_expression' && LAUNCH_API.test(unqualified(calleeText(n)));
}

function collectLaunches(n: SyntaxNode, out: SyntaxNode[]): void {
  if (isKernelLaunch(n) || isApiLaunch(n)) out.push(n);
  for (const c of named(n)) if (MENTIONS_LAUNCH.test(c.text)) collectLaunches(c, out);
}

function chevronLaunch(call: SyntaxNode, body: SyntaxNode, constants: ReadonlyMap<string, number>): KernelLaunch | undefined {
  const fn = field(call, 'function');
  const config = named(call).find((c) => c.type === 'kernel_call_syntax');
  if (!fn || !config) return undefined;
  const ref = kernelRef(fn, false);
  const args = named(config).filter((c) => c.type !== 'comment');
  if (!ref || args.length < 2) return undefined;
  return shaped({ kernel: ref.name, api: '<<<>>>', line: call.startPosition.row, templateArgs: ref.templateArgs }, {
    grid: foldDims(args[0], body, constants, false),
    block: foldDims(args[1], body, constants, true),
    smem: args[2] ? foldBytes(args[2], constants) : 0,
  });
}

/** `cudaLaunchKernel((void*)k, grid, block, args, smem, stream)` and its cooperative twin; `cudaLaunchKernelEx(&config, k, ...)`. */
function apiLaunch(call: SyntaxNode, body: SyntaxNode, constants: ReadonlyMap<string, number>): KernelLaunch | undefined {
  const api = unqualified(calleeText(call));
  const args = named(field(call, 'arguments')).filter((c) => c.type !== 'comment');
  const line = call.startPosition.row;
  if (api.startsWith('cudaLaunchKernelEx')) {
    const ref = args[1] ? kernelRef(args[1], true) : undefined;
    const configName = args[0] ? addressedName(args[0]) : undefined;
    if (!ref || !configName) return undefined;
    return shaped({ kernel: ref.name, api: 'cudaLaunchKernelEx', line, templateArgs: ref.templateArgs }, launchConfig(configName, body, constants));
  }
  const ref = args[0] ? kernelRef(args[0], true) : undefined;
  if (!ref || args.length < 3) return undefined;
  return shaped({ kernel: ref.name, api: api === 'cudaLaunchCooperativeKernel' ? 'cudaLaunchCooperativeKernel' : 'cudaLaunchKernel', line, templateArgs: ref.templateArgs }, {
    grid: foldDims(args[1], body, constants, false),
    block: foldDims(args[2], body, constants, true),
    smem: args[4] ? foldBytes(args[4], constants) : 0,
  });
}

/** The launch with the parts of its shape that folded (and no empty fields). */
function shaped(l: KernelLaunch, shape: Pick<KernelLaunch, 'block' | 'grid' | 'smem' | 'cluster'>): KernelLaunch {
  const out: KernelLaunch = { kernel: l.kernel, api: l.api, line: l.line };
  if (shape.block) out.block = shape.block;
  if (shape.grid) out.grid = shape.grid;
  if (shape.smem !== undefined) out.smem = shape.smem;
  if (shape.cluster) out.cluster = shape.cluster;
  if (l.templateArgs?.length) out.templateArgs = l.templateArgs;
  return out;
}

/**
 * `k`, `ns::k`, `k<float, 3>` and, as a launch API's argument, `(void*)k`, `&k<3>` or
 * `reinterpret_cast<const void*>(k)`: the kernel's name and template arguments.
 */
function kernelRef(n: SyntaxNode, unwrap: boolean): { name: string; templateArgs: string[] } | undefined {
  let cur: SyntaxNode | null = n;
  for (let depth = 0; unwrap && cur && depth < 6; depth++) {
    if (cur.type === 'cast_expression') cur = field(cur, 'value');
    else if (cur.type === 'parenthesized_expression') cur = named(cur)[0] ?? null;
    else if (cur.type === 'pointer_expression' && operatorOf(cur) === '&') cur = field(cur, 'argument');
    else if (cur.type === 'call_expression' && /_cast$/.test(calleeText(cur))) cur = named(field(cur, 'arguments'))[0] ?? null;
    else break;
  }
  while (cur && cur.type === 'qualified_identifier') cur = field(cur, 'name');
  if (!cur) return undefined;
  let templateArgs: string[] = [];
  if (cur.type === 'template_function') {
    templateArgs = named(field(cur, 'arguments')).map((a) => a.text);
    cur = field(cur, 'name');
  }
  if (!cur || cur.type !== 'identifier') return undefined;
  return { name: unqualified(cur.text), templateArgs };
}

function calleeText(call: SyntaxNode): string {
  const f = field(call, 'function');
  return (f?.type === 'template_function' ? field(f, 'name')?.text : f?.text) ?? '';
}

/** `&config` or `config` → `config`. */
function addressedName(n: SyntaxNode): string | undefined {
  const inner = n.type === 'pointer_expression' && operatorOf(n) === '&' ? field(n, 'argument') : n;
  return inner?.type === 'identifier' ? inner.text : undefined;
}

/** `cudaLaunchConfig_t`'s first fields, in the order a positional brace initialiser gives them. */
const CONFIG_FIELDS = ['gridDim', 'blockDim', 'dynamicSmemBytes'] as const;

/**
 * A `cudaLaunchConfig_t` local's shape: its brace initialiser (positional or designated) and the
 * fields assigned once in the function (`config.blockDim = dim3(128)`, `config.blockDim.x = 128`), plus
 * a cluster attribute (`attr.id = cudaLaunchAttributeClusterDimension; attr.val.clusterDim.x = 2`).
 */
function launchConfig(name: string, body: SyntaxNode, constants: ReadonlyMap<string, number>): Pick<KernelLaunch, 'block' | 'grid' | 'smem' | 'cluster'> {
  const parts = new Map<string, SyntaxNode[]>();
  const add = (key: string, n: SyntaxNode): void => {
    parts.set(key, [...(parts.get(key) ?? []), n]);
  };
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'init_declarator' && declaratorName(field(n, 'declarator'))?.text === name) {
      const value = field(n, 'value');
      if (value?.type === 'initializer_list') {
        named(value).forEach((v, i) => {
          if (v.type === 'initializer_pair') {
            const key = field(v, 'designator')?.text.replace(/^\./, '') ?? '';
            const val = field(v, 'value');
            if (key && val) add(key, val);
          } else if (CONFIG_FIELDS[i]) add(CONFIG_FIELDS[i], v);
        });
      }
    }
    if (n.type === 'assignment_expression' && operatorOf(n) === '=') {
      const left = field(n, 'left');
      const right = field(n, 'right');
      const path = left ? memberPath(left) : undefined;
      if (right && path?.[0] === name && path.length >= 2) add(path.slice(1).join('.'), right);
    }
    for (const c of named(n)) visit(c);
  };
  visit(body);
  const single = (key: string): SyntaxNode | undefined => (parts.get(key)?.length === 1 ? parts.get(key)![0] : undefined);
  const dimsOf = (key: string, isBlock: boolean): Dim3 | undefined => {
    const whole = parts.get(key);
    const xs = ['x', 'y', 'z'].map((c) => parts.get(`${key}.${c}`));
    if (whole?.length === 1 && xs.every((x) => !x)) return foldDims(whole[0], body, constants, isBlock);
    if (!whole && xs[0]?.length === 1 && xs.every((x) => !x || x.length === 1)) return checkDims(xs.map((x) => (x ? foldConstant(x[0], constants) : 1)), isBlock);
    return undefined;
  };
  const smemNode = single('dynamicSmemBytes');
  return {
    grid: dimsOf('gridDim', false),
    block: dimsOf('blockDim', true),
    smem: smemNode ? foldBytes(smemNode, constants) : parts.has('dynamicSmemBytes') ? undefined : 0,
    cluster: /\bcudaLaunchAttributeClusterDimension\b/.test(body.text) ? clusterAttribute(body, constants) : undefined,
  };
}

/** `attrs[0].val.clusterDim.x = 2` (y and z default to 1) anywhere in the function, each assigned once. */
function clusterAttribute(body: SyntaxNode, constants: ReadonlyMap<string, number>): Dim3 | undefined {
  const found = new Map<string, number | undefined>();
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'assignment_expression' && operatorOf(n) === '=') {
      const left = field(n, 'left');
      const path = left ? memberPath(left) : undefined;
      const right = field(n, 'right');
      if (path && right && path.length >= 2 && path[path.length - 2] === 'clusterDim') {
        const c = path[path.length - 1];
        found.set(c, found.has(c) ? undefined : foldConstant(right, constants));
      }
    }
    for (const c of named(n)) visit(c);
  };
  visit(body);
  if (!found.has('x')) return undefined;
  return checkDims(['x', 'y', 'z'].map((c) => (found.has(c) ? found.get(c) : 1)), false);
}

/** `a.b.c` → ['a', 'b', 'c']; `attrs[0].val` → ['attrs[0]', 'val']; anything else undefined. */
function memberPath(n: SyntaxNode): string[] | undefined {
  if (n.type === 'identifier') return [n.text];
  if (n.type === 'subscript_expression') return [n.text.replace(/\s+/g, '')];
  if (n.type === 'field_expression') {
    const arg = field(n, 'argument');
    const inner = arg ? memberPath(arg) : undefined;
    const f = field(n, 'field')?.text;
    return inner && f ? [...inner, f] : undefined;
  }
  return undefined;
}

function foldBytes(n: SyntaxNode, constants: ReadonlyMap<string, number>): number | undefined {
  if (hasOpaqueCall(n)) return undefined;
  const v = foldConstant(n, constants);
  return v !== undefined && Number.isInteger(v) && v >= 0 ? v : undefined;
}

/**
 * A block or grid argument as [x, y, z]: a constant expression, `dim3(...)`, `{x, y, z}`, or a local
 * `dim3 b(...)` never changed. A block holds at most 1024 threads.
 */
export function foldDims(arg: SyntaxNode, body: SyntaxNode, constants: ReadonlyMap<string, number>, isBlock = true): Dim3 | undefined {
  if (arg.type === 'call_expression' && field(arg, 'function')?.text === 'dim3') return dims(named(field(arg, 'arguments')), constants, isBlock);
  if (arg.type === 'initializer_list') return dims(named(arg), constants, isBlock);
  if (hasOpaqueCall(arg)) return undefined;
  if (arg.type === 'identifier' && !constants.has(arg.text)) {
    const init = unchangedDim3(arg.text, body);
    return init ? dims(init, constants, isBlock) : undefined;
  }
  return checkDims([foldConstant(arg, constants)], isBlock);
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

function dims(args: SyntaxNode[], constants: ReadonlyMap<string, number>, isBlock: boolean): Dim3 | undefined {
  if (args.length < 1 || args.length > 3) return undefined;
  return checkDims(args.map((a) => foldConstant(a, constants)), isBlock);
}

function checkDims(v: (number | undefined)[], isBlock: boolean): Dim3 | undefined {
  if (!v.length || !v.every((x): x is number => x !== undefined && Number.isInteger(x) && x > 0)) return undefined;
  const d: Dim3 = [v[0], v[1] ?? 1, v[2] ?? 1];
  return !isBlock || d[0] * d[1] * d[2] <= MAX_THREADS ? d : undefined;
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

/**
 * A launch configuration argument (`<<<g, b>>>`, a launch API's argument, `config.blockDim = b`), or
 * `b.x` read (not assigned, incremented or addressed).
 */
function isPlainUse(m: SyntaxNode): boolean {
  const p = m.parent;
  if (!p) return false;
  if (p.type === 'kernel_call_syntax') return true;
  if (p.type === 'argument_list' && p.parent && isApiLaunch(p.parent)) return true;
  if (p.type === 'assignment_expression' && field(p, 'right')?.equals(m)) return true;
  if (p.type === 'initializer_list' || p.type === 'initializer_pair') return true;
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
