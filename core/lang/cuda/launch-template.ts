// CUDA launch templates: a ready-to-run simulator launch for every `__global__` kernel of a file,
// derived from its signature alone, so "Debug kernel" starts a session without the user writing SPEC
// strings first: the block from the file's own launch of the kernel (`k<<<g, 64>>>`), else the size
// from `__launch_bounds__` (or a `blockDim.x == N` check, or a THREADS-like constant), one block, buffers for pointers (inputs filled, outputs zeroed) and small
// values for scalars chosen by name (`n` sizes, `num_tiles` counts). The signature is read with the
// simulator's compiler, so a template's types are the ones the launch will check; a template kernel
// is offered as the instantiation the file launches or instantiates explicitly (`k<4, float>`).
import { type DType, isFloat } from '../../sim/dtypes';
import {
  DEFAULT_BLOCK,
  DEFAULT_BUFFER_ELEMENTS,
  DEFAULT_DYNAMIC_SMEM,
  DEFAULT_ITERATIONS,
  type LaunchTemplate,
  MAX_KERNELS,
  OUTPUT_NAME,
} from '../../sim/launch-template';
import { findLaunchSites, type LaunchSite } from './launch-sites';
import { loadCudaLanguage, Parser, type SyntaxNode } from './parser';
import { rewriteGrammarGaps } from './preprocess/grammar-gaps';
import { scanCuda } from './scan';
import { Compiler, FnCx, type FnDecl, locOf, named } from './sim/compile';
import { declaredClusterDims } from './sim/cluster-dims';
import { chooseKernel, kernelInstantiations } from './sim/kernel-instances';
import type { TemplateBinding } from './sim/templates';
import type { CType } from './sim/types';

interface CudaParam {
  name: string;
  type: CType | undefined;
  /** Declared `const T*`: read-only, so an input. */
  readOnly: boolean;
  text: string;
}

/**
 * Templates for every `__global__` kernel of `text`, in source order. Never throws; unreadable
 * kernels are skipped. `wasmDir` locates the grammar as in `loadEngine` (loaded once per process).
 */
export async function cudaLaunchTemplates(text: string, file = 'kernel', wasmDir?: string): Promise<LaunchTemplate[]> {
  try {
    return await cudaTemplates(text, file, wasmDir);
  } catch {
    return [];
  }
}

async function cudaTemplates(text: string, file: string, wasmDir: string | undefined): Promise<LaunchTemplate[]> {
  const language = await loadCudaLanguage(wasmDir);
  const parser = new Parser();
  parser.setLanguage(language);
  // What tree-sitter cannot read (`__cluster_dims__(…)` among others) blanked, positions unchanged.
  const tree = parser.parse(rewriteGrammarGaps(text));
  if (!tree) return [];
  try {
    let id = 1;
    const compiler = new Compiler(tree.rootNode, () => id++);
    try {
      compiler.prepareFileScope();
    } catch {
      // file-scope constants we cannot evaluate only cost us macro-sized launch bounds
    }
    const defines = cDefines(text);
    const dynamic = /\bextern\s+__shared__\b|\b__shared__\s+extern\b|\bextern\s+__shared__/.test(text);
    const fileDefault = fileBlockSize(compiler, defines);
    const scan = scanCuda(named(tree.rootNode), text);
    const launches = findLaunchSites(text, scan.fns, scan.constants);
    const out: LaunchTemplate[] = [];
    for (const decl of compiler.kernels.slice(0, MAX_KERNELS)) {
      const line = (decl.tparams?.parent ?? decl.node).startPosition.row;
      // A template kernel launches as the instantiation the file launches or instantiates (the first, if several).
      const instance = templateInstance(compiler, decl);
      if (typeof instance === 'string') {
        out.push({ kernel: decl.name, language: 'cuda', line, args: [], unsupported: `kernel '${decl.name}' is a template: ${instance} (in ${file})` });
        continue;
      }
      // Launches name a kernel without its scope: they count only when one kernel has that name.
      const sites = compiler.kernels.filter((k) => k.name === decl.name).length === 1 ? launches.filter((s) => s.kernel === decl.name) : [];
      const launched = sites[0]?.block;
      const chosen = launched ? { size: 0, source: `the launch on line ${sites[0].line + 1}`, fallback: false } : blockSize(compiler, decl, defines, fileDefault);
      const block: [number, number, number] = launched ?? [chosen.size, 1, 1];
      const params = cudaParams(compiler, decl, instance.binding);
      const args = cudaArgs(instance.name, params, block[0] * block[1] * block[2]);
      const others = [otherBlocks(sites), instance.others].filter(Boolean).join('; ');
      if (others) args.note = args.note ? `${others}; ${args.note}` : others;
      // A cluster kernel runs one cluster: the launch's cluster attribute, else its __cluster_dims__ (which the simulator reads itself).
      let declared: [number, number, number] | undefined;
      try {
        declared = declaredClusterDims(compiler, decl, instance.binding, text);
      } catch {
        declared = undefined;
      }
      const cluster = sites[0]?.cluster ?? declared;
      const clusterField = sites[0]?.cluster && !declared ? { cluster: sites[0].cluster } : {};
      out.push({ ...args, kernel: instance.name, language: 'cuda', line, grid: cluster ?? [1, 1, 1], block, ...clusterField, blockSource: chosen.source, ...(chosen.fallback ? { blockDefault: true } : {}), ...(dynamic ? { dynamicSmem: DEFAULT_DYNAMIC_SMEM } : {}) });
    }
    return out;
  } finally {
    tree.delete();
  }
}

/** When the file launches the kernel with several blocks, which one the template took. */
function otherBlocks(sites: LaunchSite[]): string | undefined {
  const text = (b: [number, number, number]): string => (b[1] === 1 && b[2] === 1 ? String(b[0]) : `[${b.join(', ')}]`);
  const first = text(sites[0]?.block ?? [0, 1, 1]);
  const others = [...new Set(sites.map((s) => text(s.block)))].filter((b) => b !== first);
  return others.length ? `block ${first} from the launch on line ${sites[0].line + 1}; other launches use ${others.join(', ')}` : undefined;
}

/** `#define NAME <integer>` lines (tree-sitter keeps macros unexpanded). */
function cDefines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?[ \t]*(\d+)[uUlL]*[ \t]*\)?[ \t]*(?:\/\/.*)?$/gm)) out.set(m[1], Number(m[2]));
  return out;
}

function constantValue(compiler: Compiler, defines: Map<string, number>, name: string): number | undefined {
  const sym = compiler.fileScope.get(name);
  if (sym && sym.k === 'const' && typeof sym.value === 'number') return sym.value;
  return defines.get(name);
}

function positiveInt(v: number | undefined): number | undefined {
  return v !== undefined && Number.isInteger(v) && v > 0 && v <= 1024 ? v : undefined;
}

const THREADS_NAMES = ['THREADS', 'NUM_THREADS', 'BLOCK_THREADS', 'THREADS_PER_BLOCK', 'BLOCK_SIZE', 'kThreads', 'kNumThreads', 'kBlockSize'];

/** The file's THREADS-like constant, if it has one (looked up once per file, not per kernel). */
function fileBlockSize(compiler: Compiler, defines: Map<string, number>): { size: number; name: string } | undefined {
  for (const name of THREADS_NAMES) {
    const v = positiveInt(constantValue(compiler, defines, name));
    if (v) return { size: v, name };
  }
  return undefined;
}

/** `__launch_bounds__(N)`, else `blockDim.x == N` in the body, else the file's THREADS-like constant, else 128. */
function blockSize(compiler: Compiler, decl: FnDecl, defines: Map<string, number>, fileDefault: { size: number; name: string } | undefined): { size: number; source: string; fallback: boolean } {
  const evalText = (t: string): number | undefined => (/^\d+$/.test(t) ? Number(t) : constantValue(compiler, defines, t));
  const lb = named(decl.node).find((x) => x.type === 'launch_bounds');
  const first = lb ? named(lb)[0]?.text.trim() : undefined;
  const fromBounds = first ? positiveInt(evalText(first)) : undefined;
  if (fromBounds) return { size: fromBounds, source: `__launch_bounds__(${first})`, fallback: false };
  const body = decl.node.childForFieldName('body')?.text ?? '';
  // `(?<!\w)`: a word is tried from its first character only (it was rescanned from each, quadratic).
  const check = /\bblockDim\.x\s*(?:==|!=)\s*([A-Za-z_]\w*|\d+)/.exec(body) ?? /(?<!\w)([A-Za-z_]\w*|\d+)\s*(?:==|!=)\s*blockDim\.x\b/.exec(body);
  const fromCheck = check ? positiveInt(evalText(check[1])) : undefined;
  if (fromCheck) return { size: fromCheck, source: `the kernel's check of blockDim.x against ${check![1]}`, fallback: false };
  if (fileDefault) return { size: fileDefault.size, source: `the file's constant ${fileDefault.name}`, fallback: false };
  return { size: DEFAULT_BLOCK, source: `the default of ${DEFAULT_BLOCK} threads (nothing in the file says how the kernel is launched)`, fallback: true };
}

/** The kernel's name to launch and its template arguments, or why a template kernel has none to offer. */
function templateInstance(compiler: Compiler, decl: FnDecl): { name: string; binding: TemplateBinding; others?: string } | string {
  if (!decl.tparams) return { name: decl.name, binding: new Map() };
  const found = [...new Map(kernelInstantiations(compiler, decl).filter((i) => i.binding).map((i) => [i.name, i])).values()];
  if (found.length > 1) return { name: found[0].name, binding: found[0].binding!, others: `the file also instantiates ${found.slice(1).map((i) => i.name).join(', ')}` };
  try {
    const choice = chooseKernel(compiler, decl.name, 'the file');
    return choice.decl === decl ? { name: choice.name, binding: choice.binding } : 'another kernel has its name';
  } catch (e) {
    return e instanceof Error ? e.message.replace(/^.*? is a template(?: \([^)]*\))?(; | and )/, '') : String(e);
  }
}

function cudaParams(compiler: Compiler, decl: FnDecl, binding: TemplateBinding): CudaParam[] {
  const fd = findFunctionDeclarator(decl.node.childForFieldName('declarator'));
  const list = fd?.childForFieldName('parameters');
  if (!list) return [];
  const cx = new FnCx(decl.name, null, binding, undefined, locOf(decl.node, decl.name));
  const out: CudaParam[] = [];
  for (const p of named(list)) {
    if (p.type !== 'parameter_declaration' && p.type !== 'optional_parameter_declaration') continue;
    const tn = p.childForFieldName('type');
    const dn = p.childForFieldName('declarator');
    if (!tn || !dn) continue; // `void` or an unnamed parameter: nothing to pass by name
    let type: CType | undefined;
    // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
    let name = dn.text.replace(/[*&\s]|__restrict__|__restrict|const\b/g, '').replace(/\[[\s\S]*$/, '');
    try {
      const info = compiler.declarator(cx, compiler.baseType(cx, tn), dn);
      name = info.name;
      type = info.type.k === 'arr' ? { k: 'ptr', to: info.type.of } : info.type;
    } catch {
      type = undefined;
    }
    // `const float* p` and `float const* p` are read-only pointees; `float* const p` is not.
    const beforeStar = p.text.slice(0, Math.max(0, p.text.indexOf('*')));
    out.push({ name, type, readOnly: /\bconst\b/.test(beforeStar), text: p.text });
  }
  return out;
}

function findFunctionDeclarator(n: SyntaxNode | null): SyntaxNode | undefined {
  for (let cur = n; cur; cur = cur.childForFieldName('declarator')) if (cur.type === 'function_declarator') return cur;
  return undefined;
}

/** The total problem size: buffers hold at least this many elements. */
const SIZE_NAME = /^(n|size|len|length|count|numel|num_elements|nelems|elements|total|num_items|items)$/i;
/** A chunk of the problem per round: `buffer_len`, `tile_size`, `chunk`. */
const CHUNK_NAME = /(buffer|chunk|tile|block|batch|stage|segment)_?(len|length|size|elems|elements)?$|_len$/i;
/** How many times something repeats: `num_tiles`, `iteration_count`, `k_tiles`, `num_k_blocks`. */
const COUNT_NAME = /^(num|n)_|iter|rounds?$|steps?$|tiles$|blocks$|_count$|^count_|times$|repeat|loops?$|stages$/i;
const GEMM_DIM = /^(m|n|k)$/i;
const LEADING_DIM = /^ld[a-z]?$/i;

function cudaArgs(kernel: string, params: CudaParam[], block: number): Pick<LaunchTemplate, 'args' | 'note' | 'unsupported'> {
  const gemm = params.filter((p) => p.type?.k === 'num' && GEMM_DIM.test(p.name)).length >= 2;
  const scalars = new Map<string, number>();
  const notes: string[] = [];
  for (const p of params) {
    if (p.type?.k !== 'num') continue;
    scalars.set(p.name, scalarValue(p.name, p.type.dt, block, gemm));
  }
  // Buffers hold everything a size-like scalar can index: n, or an M×K / K×N / M×N operand.
  const sizes = [...scalars].filter(([n]) => SIZE_NAME.test(n) || (gemm && GEMM_DIM.test(n))).map(([, v]) => v);
  let elements = Math.max(DEFAULT_BUFFER_ELEMENTS, ...sizes);
  if (gemm) {
    const dims = [...scalars].filter(([n]) => GEMM_DIM.test(n)).map(([, v]) => v);
    for (const a of dims) for (const b of dims) elements = Math.max(elements, a * b);
  }
  const args: string[] = [];
  let inputs = 0;
  for (const p of params) {
    const t = p.type;
    if (!t) return { args: [], unsupported: `parameter '${p.text.trim()}' of ${kernel} has a type the simulator does not model` };
    if (t.k === 'num') {
      args.push(`${p.name}=${scalars.get(p.name)}`);
      continue;
    }
    if (t.k !== 'ptr') return { args: [], unsupported: `parameter '${p.name}' of ${kernel} is not a number or a pointer: it cannot be passed to a simulated launch` };
    const dt: DType = t.to.k === 'num' ? t.to.dt : 'f32';
    if (t.to.k !== 'num') notes.push(`'${p.name}' points to ${t.to.k === 'void' ? 'void' : 'a struct'}: passed as f32[${elements}] bytes`);
    // Inputs count up (recognisable in the Variables view, and a zero first element is what
    // "skip empty tiles" code paths test); f16/bf16 take random values in [-1, 1) instead,
    // which stay exact where a count would overflow or round.
    const output = !p.readOnly && OUTPUT_NAME.test(p.name);
    const init = output ? 'zeros' : dt === 'f16' || dt === 'bf16' ? `random(${++inputs})` : 'iota';
    args.push(`${p.name}=${dt}[${elements}]:${init}`);
  }
  const sized = [...scalars.keys()];
  if (sized.length) notes.unshift(`sizes chosen for a first run (${sized.map((n) => `${n}=${scalars.get(n)}`).join(', ')})`);
  return { args, note: notes.length ? `${notes.join('; ')}; edit args to match your kernel` : undefined };
}

function scalarValue(name: string, dt: DType, block: number, gemm: boolean): number {
  if (dt === 'bool') return 0;
  if (isFloat(dt)) return /^(beta|bias|offset|eps|epsilon)$/i.test(name) ? 0 : 1;
  if (gemm && GEMM_DIM.test(name)) return 128;
  if (SIZE_NAME.test(name)) return 4 * block;
  if (LEADING_DIM.test(name)) return 128;
  if (/seed/i.test(name)) return 1;
  if (/^(stride|step|inc|incx|incy)$/i.test(name)) return 1;
  if (COUNT_NAME.test(name)) return DEFAULT_ITERATIONS;
  if (CHUNK_NAME.test(name)) return Math.max(1, block / 2);
  return DEFAULT_ITERATIONS;
}
