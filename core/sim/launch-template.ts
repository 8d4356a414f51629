// Launch templates: a ready-to-run simulator launch for every kernel of a file, derived from its
// signature alone, so "Debug kernel" (code lens, F5 without launch.json, the walkthrough) starts a
// session without the user writing SPEC strings first. CUDA: every `__global__` kernel, with its
// block size from `__launch_bounds__` (or a THREADS-like constant, or a `blockDim.x == N` check),
// one block, buffers for pointers (inputs filled, outputs zeroed) and small values for scalars
// chosen by name (`n` sizes, `num_tiles` counts). Croqtile: every `__co__` function, with tensor
// shapes whose symbolic dimensions are multiples of the tiles the program divides them by (so
// `cdiv`/`/` come out whole) and loop-carried dimensions long enough to wrap a STAGES ring.
// The result is plain data; the faces turn it into a launch.json configuration.
import { parseCoExpression, parseCroqtile } from '../lang/croqtile/parser';
import type { CoExpr, CoFunction } from '../lang/croqtile/ast';
import { makeLineIndex } from '../lang/croqtile/positions';
import { evaluateConstant } from '../lang/croqtile/preprocess';
import { loadCudaLanguage, Parser, type SyntaxNode } from '../lang/cuda/parser';
import { dtypeOf } from '../lang/croqtile/sim/values';
import { Compiler, FnCx, type FnDecl, locOf, named } from '../lang/cuda/sim/compile';
import type { CType } from '../lang/cuda/sim/types';
import { type DType, isFloat } from './dtypes';

export interface LaunchTemplate {
  /** `__global__` kernel or `__co__` function name (the launch's `kernel`). */
  kernel: string;
  language: 'cuda' | 'croqtile';
  /** Zero-based line where the declaration starts (where the code lens goes). */
  line: number;
  /** CUDA only: Croqtile programs launch their own grids. */
  grid?: [number, number, number];
  block?: [number, number, number];
  /** `NAME=SPEC` strings, in parameter order, as `phaseflip sim --arg` and launch.json take them. */
  args: string[];
  dynamicSmem?: number;
  /** What a user may want to change before trusting the run (one sentence), if anything. */
  note?: string;
  /** Why the simulator cannot run this kernel at all (template kernels); no launch is offered. */
  unsupported?: string;
}

/** Elements of a buffer whose size nothing in the signature says: room for typical tile loops. */
export const DEFAULT_BUFFER_ELEMENTS = 16384;
/** Iteration counts (`num_tiles`, `iterations`): enough to wrap a 2- or 3-stage ring once. */
export const DEFAULT_ITERATIONS = 4;
export const DEFAULT_BLOCK = 128;
/** Dynamic shared memory offered to kernels with `extern __shared__`: the no-opt-in limit. */
export const DEFAULT_DYNAMIC_SMEM = 48 * 1024;
/** Kernels per file that get a template: a generated file with thousands must not stall the server. */
export const MAX_KERNELS = 200;

/**
 * Templates for every kernel of `text`, in source order. Never throws; unreadable kernels are
 * skipped. `wasmDir` locates the CUDA grammar as in `loadEngine` (loaded once per process).
 */
export async function launchTemplates(text: string, language: 'cuda' | 'croqtile', file = 'kernel', wasmDir?: string): Promise<LaunchTemplate[]> {
  try {
    return language === 'croqtile' ? croqtileTemplates(text) : await cudaTemplates(text, file, wasmDir);
  } catch {
    return [];
  }
}

// ---- CUDA ------------------------------------------------------------------------------------

interface CudaParam {
  name: string;
  type: CType | undefined;
  /** Declared `const T*`: read-only, so an input. */
  readOnly: boolean;
  text: string;
}

async function cudaTemplates(text: string, file: string, wasmDir: string | undefined): Promise<LaunchTemplate[]> {
  const language = await loadCudaLanguage(wasmDir);
  const parser = new Parser();
  parser.setLanguage(language);
  const tree = parser.parse(text);
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
    const out: LaunchTemplate[] = [];
    for (const decl of compiler.kernels.slice(0, MAX_KERNELS)) {
      const line = (decl.tparams?.parent ?? decl.node).startPosition.row;
      if (decl.tparams) {
        out.push({
          kernel: decl.name,
          language: 'cuda',
          line,
          args: [],
          unsupported: `kernel '${decl.name}' is a template: the simulator cannot pick its template arguments (in ${file})`,
        });
        continue;
      }
      const block = blockSize(compiler, decl, defines, fileDefault);
      const params = cudaParams(compiler, decl);
      out.push({ ...cudaArgs(decl.name, params, block), kernel: decl.name, language: 'cuda', line, grid: [1, 1, 1], block: [block, 1, 1], ...(dynamic ? { dynamicSmem: DEFAULT_DYNAMIC_SMEM } : {}) });
    }
    return out;
  } finally {
    tree.delete();
  }
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
function fileBlockSize(compiler: Compiler, defines: Map<string, number>): number | undefined {
  for (const name of THREADS_NAMES) {
    const v = positiveInt(constantValue(compiler, defines, name));
    if (v) return v;
  }
  return undefined;
}

/** `__launch_bounds__(N)`, else `blockDim.x == N` in the body, else the file's THREADS-like constant, else 128. */
function blockSize(compiler: Compiler, decl: FnDecl, defines: Map<string, number>, fileDefault: number | undefined): number {
  const evalText = (t: string): number | undefined => (/^\d+$/.test(t) ? Number(t) : constantValue(compiler, defines, t));
  const lb = named(decl.node).find((x) => x.type === 'launch_bounds');
  const first = lb ? named(lb)[0]?.text.trim() : undefined;
  const fromBounds = first ? positiveInt(evalText(first)) : undefined;
  if (fromBounds) return fromBounds;
  const body = decl.node.childForFieldName('body')?.text ?? '';
  const check = /\bblockDim\.x\s*(?:==|!=)\s*([A-Za-z_]\w*|\d+)/.exec(body) ?? /([A-Za-z_]\w*|\d+)\s*(?:==|!=)\s*blockDim\.x\b/.exec(body);
  const fromCheck = check ? positiveInt(evalText(check[1])) : undefined;
  return fromCheck ?? fileDefault ?? DEFAULT_BLOCK;
}

function cudaParams(compiler: Compiler, decl: FnDecl): CudaParam[] {
  const fd = findFunctionDeclarator(decl.node.childForFieldName('declarator'));
  const list = fd?.childForFieldName('parameters');
  if (!list) return [];
  const cx = new FnCx(decl.name, null, new Map(), undefined, locOf(decl.node, decl.name));
  const out: CudaParam[] = [];
  for (const p of named(list)) {
    if (p.type !== 'parameter_declaration' && p.type !== 'optional_parameter_declaration') continue;
    const tn = p.childForFieldName('type');
    const dn = p.childForFieldName('declarator');
    if (!tn || !dn) continue; // `void` or an unnamed parameter: nothing to pass by name
    let type: CType | undefined;
    let name = dn.text.replace(/[*&\s]|__restrict__|__restrict|const\b/g, '').replace(/\[.*$/, '');
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

const OUTPUT_NAME = /^(out|output|outputs|result|results|res|dst|dest|y|c|d|acc|accum|sum|sums|partial|partials|counter|counters|flags?)(_.*)?$|_out$|^o$/i;
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

// ---- Croqtile --------------------------------------------------------------------------------

function croqtileTemplates(text: string): LaunchTemplate[] {
  const file = parseCroqtile(text);
  const lines = makeLineIndex(text);
  const defines = new Map<string, number>();
  for (const [name, raw] of file.defines) {
    const e = parseCoExpression(raw);
    const v = e && evaluateConstant(e, file.defines);
    if (v !== undefined) defines.set(name, v);
  }
  const out: LaunchTemplate[] = [];
  for (const fn of file.functions.slice(0, MAX_KERNELS)) {
    if (fn.body.length === 0 && fn.span.end <= fn.nameSpan.end) continue; // a declaration only
    const line = lines.position(fn.span.start).line;
    out.push({ kernel: fn.name, language: 'croqtile', line, ...croqtileArgs(fn, defines, file.defines) });
  }
  return out;
}

/** Every node (statement or expression) under `root`, depth first. */
function* nodes(root: unknown): Generator<{ kind: string } & Record<string, unknown>> {
  if (Array.isArray(root)) {
    for (const x of root) yield* nodes(x);
    return;
  }
  if (!root || typeof root !== 'object') return;
  const o = root as Record<string, unknown>;
  if (typeof o.kind === 'string') yield o as { kind: string } & Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) if (k !== 'span' && v && typeof v === 'object') yield* nodes(v);
}

function mentions(e: unknown, names: Set<string>): boolean {
  for (const n of nodes(e)) if (n.kind === 'id' && names.has(n.name as string)) return true;
  return false;
}

function gcd(a: number, b: number): number {
  return b ? gcd(b, a % b) : a;
}

/** `defines` holds the values of the file's `#define`s that fold to numbers; `texts`, all of them as written. */
function croqtileArgs(fn: CoFunction, defines: Map<string, number>, texts: Map<string, string>): Pick<LaunchTemplate, 'args' | 'note' | 'unsupported'> {
  const isSymbol = (e: CoExpr): e is Extract<CoExpr, { kind: 'id' }> => e.kind === 'id' && !defines.has(e.name) && e.name !== '?' && e.name !== '??';
  const symbols = new Set<string>();
  for (const p of fn.params) for (const d of p.dims) if (isSymbol(d)) symbols.add(d.name);

  // Divisors: `cdiv(M, TILE_M)` and `M / TILE_M` make M a multiple of TILE_M.
  const divisors = new Map<string, number>();
  const addDivisor = (sym: CoExpr, by: CoExpr) => {
    if (!isSymbol(sym) || !symbols.has(sym.name)) return;
    const v = evaluateConstant(by, texts);
    if (!v || v <= 0 || !Number.isInteger(v)) return;
    const have = divisors.get(sym.name) ?? 1;
    divisors.set(sym.name, (have * v) / gcd(have, v));
  };
  for (const n of nodes(fn.body)) {
    if (n.kind === 'call' && n.callee === 'cdiv' && Array.isArray(n.args) && n.args.length === 2) addDivisor(n.args[0] as CoExpr, n.args[1] as CoExpr);
    if (n.kind === 'binary' && n.op === '/') addDivisor(n.left as CoExpr, n.right as CoExpr);
  }
  // Loop-carried: a foreach extent mentions the symbol, directly or through a host variable.
  const carriers = new Map<string, Set<string>>();
  for (const s of symbols) carriers.set(s, new Set([s]));
  for (const n of nodes(fn.body)) {
    if (n.kind !== 'decl' && n.kind !== 'assign') continue;
    const value = n.kind === 'decl' ? n.init : n.value;
    const targets = n.kind === 'decl' ? (n.names as { name: string }[]).map((x) => x.name) : (n.target as CoExpr).kind === 'id' ? [(n.target as { name: string }).name] : [];
    for (const set of carriers.values()) if (mentions(value, set)) for (const t of targets) set.add(t);
  }
  const looped = new Set<string>();
  for (const n of nodes(fn.body)) {
    if (n.kind !== 'foreach') continue;
    for (const [s, set] of carriers) if (mentions(n.extents, set) || mentions(n.ranges, set)) looped.add(s);
  }
  const stages = defines.get('STAGES') ?? defines.get('NUM_STAGES') ?? defines.get('kStages') ?? 2;
  const rounds = Math.max(DEFAULT_ITERATIONS, 2 * stages);
  const value = new Map<string, number>();
  for (const s of symbols) {
    const unit = divisors.get(s);
    value.set(s, unit ? unit * (looped.has(s) ? rounds : 1) : 16);
  }

  // Dimensions like `M * 2` fold with the chosen sizes as if they were defines (no name is both).
  const withSizes = new Map([...texts, ...[...value].map(([k, v]): [string, string] => [k, String(v)])]);
  const args: string[] = [];
  let inputs = 0;
  for (const p of fn.params) {
    const words = p.type.split(/\s+/);
    const elem = words[words.length - 1];
    const dt = dtypeOf(elem);
    if (!dt) return { args: [], unsupported: `parameter '${p.name}' of ${fn.name} has the element type '${elem}', which the simulator does not model` };
    const dtype = dt.declared ? 'u8' : dt.dtype;
    if (!p.dims.length) {
      args.push(`${p.name}=${dtype === 'bool' ? 0 : isFloat(dtype) ? 1 : DEFAULT_ITERATIONS}`);
      continue;
    }
    const shape: number[] = [];
    for (const d of p.dims) {
      const v = isSymbol(d) ? value.get(d.name) : evaluateConstant(d, withSizes);
      if (!v || v < 1) return { args: [], unsupported: `dimension '${d.kind === 'id' ? d.name : '…'}' of '${p.name}' cannot be given a size` };
      shape.push(v);
    }
    const output = OUTPUT_NAME.test(p.name);
    // Random floats keep MMA results finite; declared 8-bit floats take random bytes in 0..99.
    const init = output ? 'zeros' : `random(${++inputs})`;
    args.push(`${p.name}=${dtype}[${shape.join(',')}]:${init}`);
  }
  const sized = [...value].map(([s, v]) => `${s}=${v}`);
  return { args, note: sized.length ? `dimensions chosen for a first run (${sized.join(', ')}); edit args to change them` : undefined };
}

/** A launch.json configuration (type `phaseflip`, request `launch`) as plain data. */
export interface LaunchConfiguration {
  type: 'phaseflip';
  request: 'launch';
  name: string;
  program: string;
  kernel: string;
  grid?: [number, number, number] | number;
  block?: [number, number, number] | number;
  args: string[];
  dynamicSmem?: number;
  [key: string]: unknown;
}

/** The configuration that launches `t` from `program` (a path or `${file}`-style variable). */
export function launchConfiguration(t: LaunchTemplate, program: string): LaunchConfiguration {
  const config: LaunchConfiguration = { type: 'phaseflip', request: 'launch', name: `Debug ${t.kernel}`, program, kernel: t.kernel, args: [...t.args] };
  // One-dimensional launches read best as plain numbers in launch.json.
  const dim = (d: [number, number, number]) => (d[1] === 1 && d[2] === 1 ? d[0] : [...d] as [number, number, number]);
  if (t.grid) config.grid = dim(t.grid);
  if (t.block) config.block = dim(t.block);
  if (t.dynamicSmem !== undefined) config.dynamicSmem = t.dynamicSmem;
  return config;
}
