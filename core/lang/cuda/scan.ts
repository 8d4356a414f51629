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
  /** Default arguments of template parameters (`int ncta = 1` → ncta: '1'). */
  templateDefaults?: ReadonlyMap<string, string>;
  isKernel: boolean;
  nameNode: SyntaxNode;
  /** The header it is defined in; undefined for the analysed document's own functions. */
  file?: string;
  /** The struct or class it is a member function of (defined in the class body). */
  memberOf?: string;
  /** The body's offsets in its file's text, without looking the body node up. */
  bodySpan?(): [number, number];
  /** Whether the body holds inline assembly, when known without reading it again. */
  holdsAsm?: boolean;
}

/** Functions by name, as the lowering looks them up: the document's own first, then its headers'. */
export interface FunctionLookup {
  get(name: string): FnDef[] | undefined;
  /** The document's definitions and the headers' together (`get` lets the document's shadow the headers'). */
  everywhere?(name: string): FnDef[] | undefined;
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
  /** A call with a definition in a header is inlined even where the catalogue models it (checking the models). */
  definitionsFirst?: boolean;
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
  /** What earlier scans of the same document learned of its function definitions (an edit changes few). */
  cache?: ScanCache;
}

/** What a function definition's scan learns from its text alone; body offsets are relative to the definition. */
interface FnFacts {
  name: string;
  params: FnDef['params'];
  isKernel: boolean;
  bodyStart: number;
  bodyEnd: number;
  /** The body mentions a barrier initialisation: an uncalled such function is a root. */
  initsBarriers: boolean;
  /** The body holds inline assembly (`asm`, `__asm__`). */
  holdsAsm: boolean;
}

/**
 * Function facts by definition text (and kernel macros), kept for the definitions of the last scan: reading a
 * definition's name, parameters and body costs a dozen syntax-node crossings into the parser's WASM,
 * and an edit changes one definition of the file's hundreds. Per document, so that the keys (slices
 * of the document's text) keep at most two versions of it alive.
 */
export class ScanCache {
  private previous = new Map<string, FnFacts>();
  private current = new Map<string, FnFacts>();

  get(key: string): FnFacts | undefined {
    const hit = this.current.get(key) ?? this.previous.get(key);
    if (hit) this.current.set(key, hit);
    return hit;
  }

  set(key: string, facts: FnFacts): void {
    this.current.set(key, facts);
  }

  /** Ends a scan: what it did not use is forgotten after the next one. */
  turn(): void {
    this.previous = this.current;
    this.current = new Map();
  }
}

/** Inline assembly in a body, as a lexical test. */
export const HOLDS_ASM = /\basm\b|__asm__/;

const INITS_BARRIERS = /\b(init|mbarrier_init|__mbarrier_init|initialize_barrier|init_semaphore)\b|mbarrier\.init/;

export function scanCuda(tops: SyntaxNode[], text: string, options: ScanOptions = {}): CudaScan {
  const fns = new Map<string, FnDef[]>();
  const fileDecls = new Map<string, BarrierDecl>();
  const constants = new Map<string, number>();
  const kernelHead = options.kernelMacros?.length ? new RegExp(`\\b(__global__|${options.kernelMacros.map((m) => m.replace(/\W/g, '')).join('|')})\\b`) : /\b__global__\b/;
  collectItems(tops, { fns, fileDecls, constants, kernelHead, cache: options.cache }, NO_TEMPLATE, undefined);
  options.cache?.turn();
  // Callee names by a lexical scan of bodies: cheaper than a tree walk, and over-approximating
  // "is called" only makes fewer functions roots.
  // Kernels are the roots; uncalled device functions that initialise barriers are roots too (a .cuh
  // that holds the whole protocol in a device function). "Called" is a lexical scan of the other
  // bodies, only done when such a candidate exists.
  const all = [...fns.values()].flat();
  const candidates = new Set(all.filter((fn) => !fn.isKernel && (fn instanceof ScannedFunction ? fn.initsBarriers : INITS_BARRIERS.test(fn.body.text))).map((fn) => fn.name));
  const called = new Set<string>();
  if (candidates.size) {
    const pattern = new RegExp(`\\b(${[...candidates].map((c) => c.replace(/[^\w]/g, '')).join('|')})\\s*(?:<[^;(){}]*>)?\\s*\\(`, 'g');
    for (const d of all) {
      const [start, end] = d.bodySpan?.() ?? [d.body.startIndex, d.body.endIndex];
      for (const m of text.slice(start, end).matchAll(pattern)) called.add(m[1]);
    }
  }
  const roots: FnDef[] = [];
  const helpers: FnDef[] = [];
  for (const fn of all) (fn.isKernel || (candidates.has(fn.name) && !called.has(fn.name)) ? roots : helpers).push(fn);
  roots.sort((a, b) => a.node.startIndex - b.node.startIndex);
  return { fns, fileDecls, constants, roots, launchBlockSizes: fileLaunches(tops, text, fns, constants), text };
}

/** Where a scan collects what it finds. */
interface ScanSink {
  fns: Map<string, FnDef[]>;
  fileDecls: Map<string, BarrierDecl>;
  constants: Map<string, number>;
  kernelHead: RegExp;
  cache: ScanCache | undefined;
}

/** The template parameters a definition is declared under, and the defaults of those that have one. */
interface TemplateHead {
  params: string[];
  defaults?: Map<string, string>;
}

const NO_TEMPLATE: TemplateHead = { params: [] };

/** `cls`: the class whose body `items` are the members of (a definition there is a member function). */
function collectItems(items: SyntaxNode[], sink: ScanSink, template: TemplateHead, cls: string | undefined): void {
  for (const c of items) {
    switch (c.type) {
      case 'function_definition': {
        const def = functionDef(c, template, sink, cls);
        if (def) {
          const list = sink.fns.get(def.name) ?? [];
          list.push(def);
          sink.fns.set(def.name, list);
        }
        break;
      }
      case 'template_declaration': {
        const head: TemplateHead = { params: [] };
        for (const p of named(field(c, 'parameters'))) {
          if (p.type === 'comment') continue;
          // Positional: an unnamed parameter keeps its place ('') so that later arguments bind right.
          const name = templateParameterName(p) ?? '';
          head.params.push(name);
          // `int ncta = 1`: what a call that leaves the argument out gets.
          const value = p.type === 'optional_parameter_declaration' ? field(p, 'default_value')?.text : undefined;
          if (value !== undefined) (head.defaults ??= new Map()).set(name, value);
        }
        collectItems(named(c), sink, head, undefined);
        break;
      }
      case 'namespace_definition':
      case 'linkage_specification':
      case 'declaration_list':
      case 'preproc_ifdef':
      case 'preproc_if':
      case 'preproc_else':
      case 'preproc_elif':
        collectItems(named(c), sink, template, undefined);
        break;
      case 'field_declaration_list':
        collectItems(named(c), sink, template, memberList(c));
        break;
      case 'struct_specifier':
      case 'class_specifier': {
        const body = field(c, 'body');
        if (body) collectItems(named(body), sink, template, field(c, 'name')?.text);
        break;
      }
      case 'preproc_def': {
        const name = field(c, 'name')?.text;
        const value = field(c, 'value')?.text.trim();
        if (name && value) {
          const v = parseIntLiteral(value.replace(/^\((.*)\)$/, '$1'));
          if (v !== undefined) sink.constants.set(name, v);
        }
        break;
      }
      case 'declaration':
      case 'field_declaration': {
        recordConstants(c, sink.constants);
        const text = c.text;
        if (/__shared__/.test(text)) for (const d of declsOf(c, 'shared')) sink.fileDecls.set(d.name, d);
        break;
      }
      default:
        break;
    }
  }
}

/**
 * A function definition found by the scan. Its name, parameters and kind are read once per definition text
 * (`ScanCache`); the syntax nodes of its body and name are looked up only when the lowering asks for them.
 */
class ScannedFunction implements FnDef {
  private bodyNode: SyntaxNode | undefined;
  private nameSyntax: SyntaxNode | undefined;
  readonly name: string;
  readonly params: FnDef['params'];
  readonly isKernel: boolean;
  readonly initsBarriers: boolean;
  readonly holdsAsm: boolean;
  readonly file?: string;
  readonly memberOf?: string;
  readonly templateParams: string[];
  readonly templateDefaults?: ReadonlyMap<string, string>;

  constructor(
    readonly node: SyntaxNode,
    private readonly facts: FnFacts,
    template: TemplateHead,
    memberOf: string | undefined,
  ) {
    this.templateParams = template.params;
    if (template.defaults) this.templateDefaults = template.defaults;
    this.name = facts.name;
    this.params = facts.params;
    this.isKernel = facts.isKernel;
    this.initsBarriers = facts.initsBarriers;
    this.holdsAsm = facts.holdsAsm;
    const file = fileOf(node);
    if (file !== undefined) this.file = file;
    if (memberOf !== undefined) this.memberOf = memberOf;
  }

  get body(): SyntaxNode {
    this.bodyNode ??= field(this.node, 'body')!;
    return this.bodyNode;
  }

  get nameNode(): SyntaxNode {
    this.nameSyntax ??= functionDeclarator(this.node)!.nameNode;
    return this.nameSyntax;
  }

  /** The body's offsets in the file's text, without a syntax-node lookup. */
  bodySpan(): [number, number] {
    return [this.node.startIndex + this.facts.bodyStart, this.node.startIndex + this.facts.bodyEnd];
  }
}

/** The function declarator of a definition and the name it declares. */
function functionDeclarator(c: SyntaxNode): { declarator: SyntaxNode; fnDecl: SyntaxNode; nameNode: SyntaxNode } | undefined {
  const declarator = field(c, 'declarator');
  let fnDecl: SyntaxNode | null = declarator;
  while (fnDecl && fnDecl.type !== 'function_declarator') fnDecl = field(fnDecl, 'declarator');
  const nameNode = fnDecl ? field(fnDecl, 'declarator') : null;
  return declarator && fnDecl && nameNode ? { declarator, fnDecl, nameNode } : undefined;
}

function functionDef(c: SyntaxNode, template: TemplateHead, sink: ScanSink, cls: string | undefined): FnDef | undefined {
  const text = c.text;
  const key = sink.cache ? `${sink.kernelHead.source}\u0001${text}` : '';
  let facts = sink.cache?.get(key);
  if (!facts) {
    const body = field(c, 'body');
    const found = body ? functionDeclarator(c) : undefined;
    if (!body || !found) return undefined;
    const head = text.slice(0, found.declarator.startIndex - c.startIndex);
    const params = named(field(found.fnDecl, 'parameters'))
      .filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration')
      .map((p) => ({ name: declaratorName(field(p, 'declarator'))?.text ?? '', type: field(p, 'type')?.text ?? '', ...(p.type === 'optional_parameter_declaration' ? { hasDefault: true } : {}) }));
    const bodyStart = body.startIndex - c.startIndex;
    const bodyEnd = body.endIndex - c.startIndex;
    const bodyText = text.slice(bodyStart, bodyEnd);
    facts = { name: unqualified(found.nameNode.text), params, isKernel: sink.kernelHead.test(head), bodyStart, bodyEnd, initsBarriers: INITS_BARRIERS.test(bodyText), holdsAsm: HOLDS_ASM.test(bodyText) };
    sink.cache?.set(key, facts);
  }
  return new ScannedFunction(c, facts, template, cls);
}

/** The name a template parameter declares: `int N`, `int N = 1`, `typename T`, `class T = void`, `typename... Ts`. */
function templateParameterName(p: SyntaxNode): string | undefined {
  const declared = field(p, 'declarator') ?? field(p, 'name');
  if (declared) return declaratorName(declared)?.text ?? declared.text;
  if (/^(variadic_)?type_parameter_declaration$/.test(p.type)) return named(p).find((c) => c.type === 'type_identifier')?.text;
  return undefined;
}

/** The class a member list is the body of, for a list reached other than through its class. */
function memberList(list: SyntaxNode): string | undefined {
  const cls = list.parent;
  return cls?.type === 'struct_specifier' || cls?.type === 'class_specifier' ? (cls.childForFieldName('name')?.text ?? undefined) : undefined;
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
