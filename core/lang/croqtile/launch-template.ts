// Croqtile launch templates: a ready-to-run simulator launch for every `__co__` function of a file,
// derived from its signature alone: tensor shapes whose symbolic dimensions are multiples of the
// tiles the program divides them by (so `cdiv`/`/` come out whole) and loop-carried dimensions long
// enough to wrap a STAGES ring. Croqtile programs launch their own grids, so a template has no geometry.
import { isFloat } from '../../sim/dtypes';
import { DEFAULT_ITERATIONS, type LaunchTemplate, MAX_KERNELS, OUTPUT_NAME } from '../../sim/launch-template';
import type { CoExpr, CoFunction } from './ast';
import { parseCroqtile } from './parser';
import { makeLineIndex } from './positions';
import { defineValues, evaluateConstant } from './constant-eval';
import { dtypeOf } from './sim/values';

/** Templates for every `__co__` function of `text` that has a body, in source order. Never throws. */
export function croqtileLaunchTemplates(text: string): LaunchTemplate[] {
  try {
    return croqtileTemplates(text);
  } catch {
    return [];
  }
}

function croqtileTemplates(text: string): LaunchTemplate[] {
  const file = parseCroqtile(text);
  const lines = makeLineIndex(text);
  const defines = defineValues(file.defines);
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
