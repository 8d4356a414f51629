// The front end's first pass over a file: what it declares at top level (helpers, kernels and other
// roots, constants, file-scope `__shared__` variables), before any body is lowered.
import type { BarrierDecl, Expr } from '../../ir/types';
import type { LaunchSetting } from '../../project/launch-settings';
import { parseIntLiteral, recordConstants } from './constants';
import { fileLaunches } from './launch-shapes';
import type { SyntaxNode } from './parser';
import { declaratorName, field, fileOf, named, rangeOf, unqualified } from './syntax-nodes';

export interface FnDef {
  name: string;
  node: SyntaxNode;
  body: SyntaxNode;
  /** `hasDefault`: the parameter has a default argument, so a call may leave it out. */
  params: { name: string; type: string; hasDefault?: boolean }[];
  templateParams: string[];
  isKernel: boolean;
  nameNode: SyntaxNode;
  /** The header it is defined in; undefined for the analysed document's own functions. */
  file?: string;
  /** The struct or class it is a member function of (defined in the class body). */
  memberOf?: string;
}

/** Functions by name, as the lowering looks them up: the document's own first, then its headers'. */
export interface FunctionLookup {
  get(name: string): FnDef[] | undefined;
}

/** What the translation unit adds to a file's scan (unit.ts): its headers' functions and texts. */
export interface LowerContext {
  /** Functions by name: the document's own first, then its headers'. */
  functions: FunctionLookup;
  /** The text of a header a range lies in. */
  fileText(file: string): string | undefined;
  /** Why a function the code calls is not defined anywhere in the unit (an include not found, a macro). */
  whyUndefined(name: string): string;
  /** Launch shapes the user stated outside the source (`phaseflip.launch`, `--launch`). */
  launchSettings?: readonly LaunchSetting[];
  /** The analysed document's path, which a `file.cu:kernel` launch setting is matched against. */
  documentPath?: string;
}

/** What a file declares at top level: helpers, kernels (roots), constants, file-scope shared variables. */
export interface CudaScan {
  fns: Map<string, FnDef[]>;
  fileDecls: Map<string, BarrierDecl>;
  constants: Map<string, number>;
  roots: FnDef[];
  /** Block sizes of the file's launches, by kernel name (unqualified, without template arguments). */
  launchBlockSizes: Map<string, number[]>;
  /** The document's text, which lowered kernels are placed on (`placeOnLines`). */
  text: string;
}

export interface ScanOptions {
  /** Macros that expand to `__global__` (`#define KERNEL __global__`): a function declared with one is a kernel. */
  kernelMacros?: readonly string[];
}

export function scanCuda(tops: SyntaxNode[], text: string, options: ScanOptions = {}): CudaScan {
  const fns = new Map<string, FnDef[]>();
  const fileDecls = new Map<string, BarrierDecl>();
  const constants = new Map<string, number>();
  const kernelHead = options.kernelMacros?.length ? new RegExp(`\\b(__global__|${options.kernelMacros.map((m) => m.replace(/\W/g, '')).join('|')})\\b`) : /\b__global__\b/;
  collectItems(tops, fns, fileDecls, constants, [], kernelHead);
  // Callee names by a lexical scan of bodies: cheaper than a tree walk, and over-approximating
  // "is called" only makes fewer functions roots.
  // Kernels are the roots; uncalled device functions that initialise barriers are roots too (a .cuh
  // that holds the whole protocol in a device function). "Called" is a lexical scan of the other
  // bodies, only done when such a candidate exists.
  const all = [...fns.values()].flat();
  const candidates = new Set(all.filter((fn) => !fn.isKernel && /\b(init|mbarrier_init|__mbarrier_init|initialize_barrier|init_semaphore)\b|mbarrier\.init/.test(fn.body.text)).map((fn) => fn.name));
  const called = new Set<string>();
  if (candidates.size) {
    const pattern = new RegExp(`\\b(${[...candidates].map((c) => c.replace(/[^\w]/g, '')).join('|')})\\s*(?:<[^;(){}]*>)?\\s*\\(`, 'g');
    for (const d of all) for (const m of text.slice(d.body.startIndex, d.body.endIndex).matchAll(pattern)) called.add(m[1]);
  }
  const roots: FnDef[] = [];
  const helpers: FnDef[] = [];
  for (const fn of all) (fn.isKernel || (candidates.has(fn.name) && !called.has(fn.name)) ? roots : helpers).push(fn);
  roots.sort((a, b) => a.node.startIndex - b.node.startIndex);
  return { fns, fileDecls, constants, roots, launchBlockSizes: fileLaunches(tops, text, fns, constants), text };
}

function collectTopLevel(
  n: SyntaxNode,
  fns: Map<string, FnDef[]>,
  fileDecls: Map<string, BarrierDecl>,
  constants: Map<string, number>,
  templateParams: string[],
  kernelHead: RegExp,
): void {
  collectItems(named(n), fns, fileDecls, constants, templateParams, kernelHead);
}

function collectItems(
  items: SyntaxNode[],
  fns: Map<string, FnDef[]>,
  fileDecls: Map<string, BarrierDecl>,
  constants: Map<string, number>,
  templateParams: string[],
  kernelHead: RegExp,
): void {
  for (const c of items) {
    switch (c.type) {
      case 'function_definition': {
        const def = functionDef(c, templateParams, kernelHead);
        if (def) {
          const list = fns.get(def.name) ?? [];
          list.push(def);
          fns.set(def.name, list);
        }
        break;
      }
      case 'template_declaration': {
        const params = named(field(c, 'parameters')).map((p) => declaratorName(field(p, 'declarator') ?? p)?.text ?? '').filter(Boolean);
        collectTopLevel(c, fns, fileDecls, constants, params, kernelHead);
        break;
      }
      case 'namespace_definition':
      case 'linkage_specification':
      case 'declaration_list':
      case 'preproc_ifdef':
      case 'preproc_if':
      case 'preproc_else':
      case 'preproc_elif':
      case 'field_declaration_list':
        collectTopLevel(c, fns, fileDecls, constants, templateParams, kernelHead);
        break;
      case 'struct_specifier':
      case 'class_specifier': {
        const body = field(c, 'body');
        if (body) collectTopLevel(body, fns, fileDecls, constants, templateParams, kernelHead);
        break;
      }
      case 'preproc_def': {
        const name = field(c, 'name')?.text;
        const value = field(c, 'value')?.text.trim();
        if (name && value) {
          const v = parseIntLiteral(value.replace(/^\((.*)\)$/, '$1'));
          if (v !== undefined) constants.set(name, v);
        }
        break;
      }
      case 'declaration':
      case 'field_declaration': {
        recordConstants(c, constants);
        const text = c.text;
        if (/__shared__/.test(text)) for (const d of declsOf(c, 'shared')) fileDecls.set(d.name, d);
        break;
      }
      default:
        break;
    }
  }
}

function functionDef(c: SyntaxNode, templateParams: string[], kernelHead: RegExp): FnDef | undefined {
  const declarator = field(c, 'declarator');
  const body = field(c, 'body');
  if (!declarator || !body) return undefined;
  let fnDecl: SyntaxNode | null = declarator;
  while (fnDecl && fnDecl.type !== 'function_declarator') fnDecl = field(fnDecl, 'declarator');
  if (!fnDecl) return undefined;
  const nameNode = field(fnDecl, 'declarator');
  if (!nameNode) return undefined;
  const head = c.text.slice(0, declarator.startIndex - c.startIndex);
  const params = named(field(fnDecl, 'parameters'))
    .filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration')
    .map((p) => ({ name: declaratorName(field(p, 'declarator'))?.text ?? '', type: field(p, 'type')?.text ?? '', ...(p.type === 'optional_parameter_declaration' ? { hasDefault: true } : {}) }));
  return {
    name: unqualified(nameNode.text),
    node: c,
    body,
    params,
    templateParams,
    isKernel: kernelHead.test(head),
    nameNode,
    ...(fileOf(c) !== undefined ? { file: fileOf(c) } : {}),
    ...(memberOf(c) !== undefined ? { memberOf: memberOf(c) } : {}),
  };
}

/** The class a function definition sits in the body of, if any. */
function memberOf(fn: SyntaxNode): string | undefined {
  const list = fn.parent;
  if (list?.type !== 'field_declaration_list') return undefined;
  const cls = list.parent;
  if (cls?.type !== 'struct_specifier' && cls?.type !== 'class_specifier') return undefined;
  return cls.childForFieldName('name')?.text;
}

export function declsOf(decl: SyntaxNode, space: BarrierDecl['space']): BarrierDecl[] {
  const type = field(decl, 'type')?.text ?? '';
  const out: BarrierDecl[] = [];
  for (const d of named(decl)) {
    if (!/declarator$|^identifier$/.test(d.type)) continue;
    const nameNode = declaratorName(d);
    if (!nameNode) continue;
    let length: number | undefined;
    let arr: SyntaxNode | null = d.type === 'init_declarator' ? field(d, 'declarator') : d;
    while (arr && arr.type !== 'array_declarator' && arr.type !== 'identifier') arr = field(arr, 'declarator');
    // `buf[S][128]` nests as (buf[S])[128]: the first dimension is the innermost declarator.
    while (arr?.type === 'array_declarator' && field(arr, 'declarator')?.type === 'array_declarator') arr = field(arr, 'declarator');
    let lengthText: string | undefined;
    if (arr?.type === 'array_declarator') {
      lengthText = field(arr, 'size')?.text;
      length = lengthText ? parseIntLiteral(lengthText) : undefined;
    }
    out.push({ name: nameNode.text, type, space, length, range: rangeOf(decl), nameRange: rangeOf(nameNode), ...(lengthText ? { lengthExpr: { kind: 'opaque', text: lengthText, range: rangeOf(decl) } as Expr } : {}) });
  }
  return out;
}
