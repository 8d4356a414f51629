// A kernel's launch shape (block, grid, cluster, dynamic shared memory) and template arguments, from
// the sources the translation unit offers, first match wins: a `// phaseflip: block=N` comment (the
// user's explicit word), the file's launches (launch-sites.ts), the user's launch setting for a kernel
// launched elsewhere (`phaseflip.launch`, `--launch`), the kernel's own checks
// (`assert(blockDim.x == N)`, `if (blockDim.x != N) return;`), `__launch_bounds__(N)`; the cluster
// from the comment, the launches' attribute, the setting or `__cluster_dims__`. Nothing is guessed
// here: a kernel no source describes gets no block, and the analysis says so.
import type { KernelLaunchSite, LaunchShape } from '../../ir/types';
import { type LaunchSetting, launchSettingsFor } from '../../project/launch-settings';
import { foldConstant } from './constants';
import { type Dim3, findLaunches, type KernelLaunch, launchBlockSizes, type LaunchingFunction } from './launch-sites';
import type { SyntaxNode } from './parser';
import { commentLinesAbove, shapeCommentOf } from './shape-comments';
import { calleeName, field, named, operatorOf, unqualified } from './syntax-nodes';

/**
 * The file's launches, as scan.ts keeps them: a map from kernel name to its one-dimensional launched
 * block sizes (what `CudaScan.launchBlockSizes` always was), carrying every launch and every explicit
 * instantiation (`template __global__ void k<128>(...)`) for the shape and template arguments.
 */
export class FileLaunches extends Map<string, number[]> {
  constructor(
    readonly launches: readonly KernelLaunch[],
    /** Explicit instantiations' template arguments as written, by kernel name. */
    readonly instantiations: ReadonlyMap<string, string[][]>,
  ) {
    super(launchBlockSizes([...launches]));
  }
}

/** A kernel definition as the scan records it (scan.ts's FnDef fits). */
export interface ShapedKernel {
  name: string;
  node: SyntaxNode;
  body: SyntaxNode;
  templateParams: string[];
}

/** Every launch and explicit instantiation of the file. Cheap when it has neither. */
export function fileLaunches(tops: SyntaxNode[], text: string, fns: Map<string, LaunchingFunction[]>, constants: ReadonlyMap<string, number>): FileLaunches {
  const instantiations = new Map<string, string[][]>();
  if (text.includes('template')) collectInstantiations(tops, instantiations);
  return new FileLaunches(findLaunches(text, fns, constants), instantiations);
}

function collectInstantiations(items: SyntaxNode[], out: Map<string, string[][]>): void {
  for (const c of items) {
    if (c.type === 'template_instantiation') {
      let d: SyntaxNode | null = field(c, 'declarator');
      while (d && d.type !== 'function_declarator') d = field(d, 'declarator');
      let name = d ? field(d, 'declarator') : null;
      while (name && name.type === 'qualified_identifier') name = field(name, 'name');
      if (name?.type === 'template_function') {
        const kernel = unqualified(field(name, 'name')?.text ?? '');
        const args = named(field(name, 'arguments')).map((a) => a.text);
        if (kernel) out.set(kernel, [...(out.get(kernel) ?? []), args]);
      }
    } else if (/^(namespace_definition|declaration_list|linkage_specification|preproc_if|preproc_ifdef|preproc_else|preproc_elif)$/.test(c.type)) {
      collectInstantiations(named(c), out);
    }
  }
}

function launchesOf(launches: ReadonlyMap<string, number[]>, kernel: string): KernelLaunch[] {
  return launches instanceof FileLaunches ? launches.launches.filter((l) => l.kernel === kernel) : [];
}

function instantiationsOf(launches: ReadonlyMap<string, number[]>, kernel: string): string[][] {
  return launches instanceof FileLaunches ? (launches.instantiations.get(kernel) ?? []) : [];
}

/**
 * The kernel's own template parameters bound to numbers, when every launch and explicit instantiation
 * that names template arguments names the same ones (`k<64><<<1, 64>>>` makes N = 64 inside `k`).
 * Type arguments and arguments that do not fold are left unbound.
 */
export function kernelTemplateArguments(launches: ReadonlyMap<string, number[]>, fn: ShapedKernel, constants: ReadonlyMap<string, number>): Map<string, number> | undefined {
  if (!fn.templateParams.length) return undefined;
  const lists = [...launchesOf(launches, fn.name).map((l) => l.templateArgs).filter((a): a is string[] => !!a), ...instantiationsOf(launches, fn.name)];
  const distinct = new Set(lists.map((l) => l.join('\u0001')));
  if (distinct.size !== 1) return undefined;
  const out = new Map<string, number>();
  lists[0].forEach((arg, i) => {
    const name = fn.templateParams[i];
    const v = name ? foldText(arg, constants) : undefined;
    if (name && v !== undefined) out.set(name, v);
  });
  return out.size ? out : undefined;
}

/**
 * The user's launch setting for a kernel (`phaseflip.launch`, `--launch`), most specific first, with the
 * template arguments the kernel is then analysed with. A template-id key (`k<128>`) fits the
 * instantiation the translation unit binds (`bound`), or binds the arguments itself when nothing does.
 */
export function kernelLaunchSetting(
  settings: readonly LaunchSetting[] | undefined,
  fn: ShapedKernel,
  file: string | undefined,
  bound: ReadonlyMap<string, number> | undefined,
  constants: ReadonlyMap<string, number>,
): { setting: LaunchSetting; templateArgs?: Map<string, number> } | undefined {
  if (!settings?.length) return undefined;
  for (const setting of launchSettingsFor(settings, fn.name, file)) {
    if (!setting.templateArgs) return { setting, ...(bound ? { templateArgs: new Map(bound) } : {}) };
    if (setting.templateArgs.length > fn.templateParams.length) continue;
    const args = new Map<string, number>();
    setting.templateArgs.forEach((arg, i) => {
      const v = foldText(arg, constants);
      if (v !== undefined) args.set(fn.templateParams[i], v);
    });
    if (!bound) return { setting, ...(args.size ? { templateArgs: args } : {}) };
    if ([...args].every(([name, v]) => bound.get(name) === v)) return { setting, templateArgs: new Map(bound) };
  }
  return undefined;
}

function foldText(text: string, constants: ReadonlyMap<string, number>): number | undefined {
  const t = text.trim().replace(/[uUlL]+$/, '');
  if (/^\d+$/.test(t)) return Number(t);
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return parseInt(t, 16);
  return constants.get(t);
}

/**
 * The kernel's launch shape from every source, or undefined when none says anything. `launched` says
 * whether the file's launches and instantiations may be read (they name a kernel without its scope, so
 * they count only when one kernel has that name). `constants` include the bound template arguments.
 */
export function kernelLaunchShape(
  launches: ReadonlyMap<string, number[]>,
  text: string,
  fn: ShapedKernel,
  constants: ReadonlyMap<string, number>,
  launchBounds: number | undefined,
  launched: boolean,
  templateArgs?: ReadonlyMap<string, number>,
  setting?: LaunchSetting,
): LaunchShape | undefined {
  const decl = declarationOf(fn);
  const comment = shapeCommentOf(text, decl, fn.node, fn.body, constants);
  const sites = launched ? launchesOf(launches, fn.name) : [];
  const shape: LaunchShape = { blocks: [] };
  const oneD = (b: Dim3 | undefined): boolean => !!b && b[1] === 1 && b[2] === 1;
  const siteBlocks = [...new Set(sites.filter((s) => oneD(s.block)).map((s) => s.block![0]))].sort((a, b) => a - b);
  const asserted = assertedBlock(fn.body, constants);
  if (comment?.block) {
    if (oneD(comment.block)) shape.blocks = [comment.block[0]];
    else shape.block3 = comment.block;
    shape.source = 'comment';
  } else if (siteBlocks.length) {
    shape.blocks = siteBlocks;
    shape.source = 'launch-site';
  } else if (setting?.block) {
    if (oneD(setting.block)) shape.blocks = [setting.block[0]];
    else shape.block3 = setting.block;
    shape.source = 'setting';
  } else if (asserted !== undefined) {
    shape.blocks = [asserted];
    shape.source = 'assert';
  } else if (launchBounds !== undefined && launchBounds > 0 && launchBounds <= 1024) {
    shape.blocks = [launchBounds];
    shape.source = 'launch-bounds';
  }
  if (!shape.source) {
    const multi = sites.find((s) => s.block && !oneD(s.block));
    if (multi) shape.block3 = multi.block;
  }
  const same = <T>(values: (T | undefined)[]): T | undefined => {
    const known = values.filter((v): v is T => v !== undefined);
    return known.length && known.length === values.length && new Set(known.map((v) => JSON.stringify(v))).size === 1 ? known[0] : undefined;
  };
  const siteGrid = same(sites.map((s) => s.grid));
  const grid = comment?.grid ?? siteGrid ?? setting?.grid;
  if (grid) {
    shape.grid = grid;
    shape.gridSource = comment?.grid ? 'comment' : siteGrid ? 'launch-site' : 'setting';
  }
  const siteSmem = same(sites.map((s) => s.smem));
  const smem = comment?.smem ?? siteSmem ?? setting?.smem;
  if (smem !== undefined) shape.smem = smem;
  const smemFromSetting = comment?.smem === undefined && siteSmem === undefined && setting?.smem !== undefined;
  const siteCluster = same(sites.map((s) => s.cluster));
  const declared = clusterDims(headText(text, decl, fn.body), constants);
  if (comment?.cluster) {
    shape.cluster = comment.cluster;
    shape.clusterSource = 'comment';
  } else if (siteCluster) {
    shape.cluster = siteCluster;
    shape.clusterSource = 'launch-site';
  } else if (setting?.cluster) {
    shape.cluster = setting.cluster;
    shape.clusterSource = 'setting';
  } else if (declared) {
    shape.cluster = declared;
    shape.clusterSource = 'cluster-dims';
  }
  if (sites.length) shape.sites = sites.map(siteOf);
  if (templateArgs?.size) shape.templateArgs = [...templateArgs].map(([name, value]) => ({ name, value }));
  const fromSetting = shape.source === 'setting' || shape.gridSource === 'setting' || shape.clusterSource === 'setting' || smemFromSetting;
  if (setting && fromSetting) shape.setting = { key: setting.key, origin: setting.origin };
  const known = shape.source || shape.block3 || shape.grid || shape.cluster || shape.smem !== undefined || shape.sites || shape.templateArgs;
  return known ? shape : undefined;
}

function siteOf(l: KernelLaunch): KernelLaunchSite {
  const { kernel: _kernel, ...rest } = l;
  return rest;
}

/** What a kernel's analysis depends on outside its own text: its launches, instantiations and the comment above it. */
export function launchShapeDependency(launches: ReadonlyMap<string, number[]>, text: string, fn: ShapedKernel): string {
  const decl = declarationOf(fn);
  const above = commentLinesAbove(text, decl.startIndex, decl.startPosition.row).map((c) => c.text);
  const head = text.slice(decl.startIndex, fn.node.startIndex);
  // Not the launches' lines: an edit above a launch moves it without changing what it says.
  const sites = launchesOf(launches, fn.name).map(({ line: _line, ...rest }) => rest);
  return JSON.stringify([sites, instantiationsOf(launches, fn.name), above, head]);
}

/**
 * The template declaration around a kernel when it has one, else the definition itself. Only asked of
 * templates: a node's parent costs time linear in the number of its siblings in tree-sitter.
 */
function declarationOf(fn: ShapedKernel): SyntaxNode {
  if (!fn.templateParams.length) return fn.node;
  const parent = fn.node.parent;
  return parent?.type === 'template_declaration' ? parent : fn.node;
}

/**
 * The kernel's head up to its body, from the start of its first line. tree-sitter-cuda does not know
 * `__cluster_dims__`: written before `__global__` it becomes a statement of its own, so a line above
 * holding only that attribute counts as the head too.
 */
function headText(text: string, decl: SyntaxNode, body: SyntaxNode): string {
  const lineStart = text.lastIndexOf('\n', decl.startIndex - 1) + 1;
  const prevStart = lineStart > 0 ? text.lastIndexOf('\n', lineStart - 2) + 1 : lineStart;
  const previous = text.slice(prevStart, lineStart);
  return (/^\s*__cluster_dims__\s*\([^;{}]*$/.test(previous) ? previous : '') + text.slice(lineStart, body.startIndex);
}

/** `__cluster_dims__(2, 1, 1)` in the kernel's head (tree-sitter does not know the attribute; the text does). */
function clusterDims(head: string, constants: ReadonlyMap<string, number>): Dim3 | undefined {
  const m = /__cluster_dims__\s*\(([^()]*)\)/.exec(head);
  if (!m) return undefined;
  const v = m[1].split(',').map((p) => foldText(p, constants));
  if (!v.length || v.length > 3 || !v.every((x): x is number => x !== undefined && x > 0)) return undefined;
  return [v[0], v[1] ?? 1, v[2] ?? 1];
}

/**
 * The block size the kernel checks for itself: `assert(blockDim.x == N)` (any `*assert*` call, `&&`
 * conjunctions included), `if (blockDim.x != N) return;` (or `__trap()`, `asm("trap;")`). Only direct
 * comparisons with `blockDim.x`; two checks that disagree give nothing.
 */
function assertedBlock(body: SyntaxNode, constants: ReadonlyMap<string, number>): number | undefined {
  if (!body.text.includes('blockDim')) return undefined;
  const found = new Set<number>();
  const visit = (n: SyntaxNode): void => {
    if (n.type === 'call_expression') {
      const f = field(n, 'function');
      const name = f ? unqualified(calleeName(f)) : '';
      const arg = named(field(n, 'arguments'))[0];
      if (/assert/i.test(name) && !/static_assert/i.test(name) && arg) for (const v of compared(arg, '==', '&&', constants)) found.add(v);
    }
    if (n.type === 'if_statement') {
      const cond = named(field(n, 'condition'))[0];
      const then = field(n, 'consequence');
      if (cond && then && !field(n, 'alternative') && exits(then)) for (const v of compared(cond, '!=', '||', constants)) found.add(v);
    }
    for (const c of named(n)) if (c.text.includes('blockDim')) visit(c);
  };
  visit(body);
  if (found.size !== 1) return undefined;
  const [v] = found;
  return v > 0 && v <= 1024 ? v : undefined;
}

/** The N of `blockDim.x <op> N` (either side) inside a chain of `join`. */
function compared(n: SyntaxNode, op: '==' | '!=', join: '&&' | '||', constants: ReadonlyMap<string, number>): number[] {
  if (n.type === 'parenthesized_expression') return named(n)[0] ? compared(named(n)[0], op, join, constants) : [];
  if (n.type !== 'binary_expression') return [];
  const o = operatorOf(n);
  const l = field(n, 'left');
  const r = field(n, 'right');
  if (!l || !r) return [];
  if (o === join) return [...compared(l, op, join, constants), ...compared(r, op, join, constants)];
  if (o !== op) return [];
  const isX = (x: SyntaxNode): boolean => x.text.replace(/\s+/g, '') === 'blockDim.x';
  const other = isX(l) ? r : isX(r) ? l : undefined;
  const v = other ? foldConstant(other, constants) : undefined;
  return v !== undefined && Number.isInteger(v) ? [v] : [];
}

/** A statement that leaves the kernel: `return`, `__trap()`, `asm("trap;")`, `assert(false)`, or a block holding only such. */
function exits(n: SyntaxNode): boolean {
  if (n.type === 'compound_statement') {
    const stmts = named(n).filter((c) => c.type !== 'comment');
    return stmts.length > 0 && stmts.some(exits);
  }
  if (n.type === 'return_statement') return true;
  const text = n.text.replace(/\s+/g, '');
  return /^(__trap\(\)|asm(volatile)?\("trap;"\)|assert\((false|0)\));$/.test(text);
}
