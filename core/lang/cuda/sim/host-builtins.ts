// The C library as a whole program's host code uses it: printf/fprintf/puts/putchar/fflush (glibc's
// formatting, stdout and stderr kept apart), malloc/calloc/free, memcpy/memset/memcmp, rand/srand
// (glibc's generator), exit/abort and assert (glibc's message and abort's exit status 134), plus
// `new`/`delete` (arrays too). Host memory is its own space ('host'): a kernel given a host pointer
// faults like the GPU's illegal address. <cmath> comes from the device math builtins, which host code
// shares. The CUDA runtime calls are in cuda-runtime-builtins.ts.
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import { type Buffer, check, type Pointer } from '../../../sim/memory';
import { args, asNum, asPtr, type BuiltinCx, cases, type FreeBuiltin, V } from './builtin-operands';
import type { CompilerContext, Ex, FnCx } from './context';
import { cString, formatPrintf, type PrintfArg } from './printf-format';
import { hostOf, ProgramExit } from './host-runtime';
import type { Frame } from './runtime';
import { genericAddress, loadPointer, storePointer } from './runtime';
import { locOf, named, requiredField, unsupported } from './syntax';
import { type CType, isNum, num, ptr, S32, sizeOfType, typeName, U64, VOID } from './types';

type Stream = 'stdout' | 'stderr';

/** printf-family arguments: numbers as they are, pointers as addresses, strings as text. */
function printfArgs(k: BuiltinCx, nodes: SyntaxNode[]): { fmt: Ex; vals: ((f: Frame) => PrintfArg)[] } {
  const xs = args(k, nodes);
  const fmt = xs[0];
  if (!fmt) unsupported('printf without a format', k.n);
  const vals = xs.slice(1).map((e): ((f: Frame) => PrintfArg) => {
    const ev = e.ev;
    if (e.t.k === 'ptr') {
      const to = e.t.to;
      // A `char*` is a string for %s; its address is what %p prints, which %s never asks for.
      if (to.k === 'num' && (to.dt === 's8' || to.dt === 'u8')) return (f) => ev(f);
      return (f) => genericAddress(f.ts.ex, ev(f));
    }
    if (e.t.k === 'num' && e.t.dt === 'f16') return (f) => Number(ev(f));
    return ev;
  });
  return { fmt, vals };
}

function format(f: Frame, fmt: Ex, vals: ((f: Frame) => PrintfArg)[]): string {
  const values = vals.map((v) => v(f));
  // Pointers held for %s are read as C strings; other pointers were turned into addresses above.
  return formatPrintf(cString(fmt.ev(f)), values, (v) => cString(v));
}

function printTo(k: BuiltinCx, stream: Stream | ((f: Frame) => Stream), nodes: SyntaxNode[]): Ex {
  const { fmt, vals } = printfArgs(k, nodes);
  return V((f) => {
    const text = format(f, fmt, vals);
    hostOf(f).out(text, typeof stream === 'function' ? stream(f) : stream);
    return new TextEncoder().encode(text).length;
  }, S32);
}

/** `stdout` / `stderr` as an argument (FILE* are not modelled otherwise). */
function streamArg(k: BuiltinCx, node: SyntaxNode | undefined, what: string): Stream {
  const text = node?.text.replace(/^(std)?::/, '');
  if (text === 'stdout' || text === 'stderr') return text;
  unsupported(`${what} on a FILE other than stdout or stderr`, node ?? k.n);
}

/** Bytes `[p, p + n)` of a buffer, bounds-checked (the simulator's view of a heap overflow). */
function bytesAt(p: Pointer | null, n: number, what: string): Uint8Array {
  if (!p) throw new SimError(`${what}: null pointer`);
  check(p.buf, p.offset, n);
  return p.buf.bytes.subarray(p.offset, p.offset + n);
}

/** memcpy's effect, pointer cells included (an array of pointers copies its pointers). */
export function copyMemory(dst: Pointer, src: Pointer, n: number, what: string): void {
  const from = bytesAt(src, n, what);
  const to = bytesAt(dst, n, what);
  to.set(from.slice());
  for (let o = 0; o + 8 <= n; o += 8) {
    if (src.offset % 8 || dst.offset % 8) break;
    const q = safeLoadPointer(src.buf, src.offset + o);
    if (q) storePointer(dst.buf, dst.offset + o, q);
  }
}

function safeLoadPointer(b: Buffer, o: number): Pointer | null {
  try {
    return loadPointer(b, o);
  } catch {
    return null;
  }
}

/**
 * glibc's assert message as `__assert_fail` prints it: program, file as compiled, line, function
 * (`int main()` for main; other functions by name, without the parameter list the compiler would add).
 */
function assertMessage(k: BuiltinCx, expr: string): string {
  const file = (k.c.host as { file?: string } | undefined)?.file ?? 'program.cu';
  const program = file.replace(/^.*\//, '').replace(/\.[^.]*$/, '');
  const line = k.n.startPosition.row + 1;
  const fn = k.cx.fn.name === 'main' ? 'int main()' : k.cx.fn.name;
  return `${program}: ${file}:${line}: ${fn}: Assertion \`${expr}' failed.\n`;
}

export const HOST_BUILTINS: Record<string, FreeBuiltin> = {
  printf: (k, _name, _ns, a) => printTo(k, 'stdout', a),
  fprintf: (k, _name, _ns, a) => printTo(k, streamArg(k, a[0], 'fprintf'), a.slice(1)),
  puts: (k, _name, _ns, a) => {
    const s = args(k, a)[0].ev;
    return V((f) => {
      hostOf(f).out(`${cString(s(f))}\n`);
      return 1;
    }, S32);
  },
  ...cases(['fputs'], (k, _name, _ns, a) => {
    const s = args(k, [a[0]])[0].ev;
    const stream = streamArg(k, a[1], 'fputs');
    return V((f) => {
      hostOf(f).out(cString(s(f)), stream);
      return 1;
    }, S32);
  }),
  ...cases(['putchar'], (k, _name, _ns, a) => {
    const c = asNum(k, args(k, a)[0], 's32');
    return V((f) => {
      const v = c(f);
      hostOf(f).out(String.fromCharCode(v & 0xff));
      return v;
    }, S32);
  }),
  fflush: (k, _name, _ns, a) => {
    if (a[0] && a[0].type !== 'null' && a[0].text !== 'NULL' && a[0].text !== 'nullptr') streamArg(k, a[0], 'fflush');
    return V(() => 0, S32);
  },
  ...cases(['malloc', 'calloc'], (k, name, _ns, a) => {
    const xs = args(k, a).map((e) => asNum(k, e, 'u64'));
    const line = k.n.startPosition.row + 1;
    return V((f) => {
      const size = name === 'calloc' ? xs[0](f) * xs[1](f) : xs[0](f);
      return hostOf(f).malloc(size, `${name}(${size}) at line ${line}`);
    }, ptr(VOID));
  }),
  free: (k, _name, _ns, a) => freeCall(k, a[0], 'free'),
  memcpy: (k, _name, _ns, a) => {
    const [d, s, nb] = args(k, a);
    const dst = asPtr(k, d);
    const src = asPtr(k, s);
    const n = asNum(k, nb, 'u64');
    return V((f) => {
      const p = dst(f);
      copyMemory(p, src(f), n(f), 'memcpy');
      return p;
    }, ptr(VOID));
  },
  memset: (k, _name, _ns, a) => {
    const [d, v, nb] = args(k, a);
    const dst = asPtr(k, d);
    const val = asNum(k, v, 's32');
    const n = asNum(k, nb, 'u64');
    return V((f) => {
      const p = dst(f);
      bytesAt(p, n(f), 'memset').fill(val(f) & 0xff);
      return p;
    }, ptr(VOID));
  },
  memcmp: (k, _name, _ns, a) => {
    const [x, y, nb] = args(k, a);
    const px = asPtr(k, x);
    const py = asPtr(k, y);
    const n = asNum(k, nb, 'u64');
    return V((f) => {
      const m = n(f);
      const bx = bytesAt(px(f), m, 'memcmp');
      const by = bytesAt(py(f), m, 'memcmp');
      for (let i = 0; i < m; i++) if (bx[i] !== by[i]) return bx[i] - by[i];
      return 0;
    }, S32);
  },
  ...cases(['atoi', 'atol', 'atoll', 'strtol', 'strtoll', 'strtoul', 'strtoull'], (k, name, _ns, a) => {
    const s = args(k, [a[0]])[0].ev;
    const base = name.startsWith('strto') && a[2] ? asNum(k, args(k, [a[2]])[0], 's32') : () => 10;
    if (name.startsWith('strto') && a[1] && a[1].text !== 'NULL' && a[1].text !== 'nullptr' && a[1].text !== '0') unsupported(`${name} with an end pointer`, k.n);
    return V((f) => {
      const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|\d+)/.exec(cString(s(f)));
      if (!m) return 0;
      const b = base(f) || (m[2].startsWith('0x') || m[2].startsWith('0X') ? 16 : 10);
      const v = parseInt(m[2].replace(/^0[xX]/, ''), b);
      return m[1] === '-' ? -v : v;
    }, name === 'atoi' ? S32 : num('s64'));
  }),
  ...cases(['atof', 'strtod', 'strtof'], (k, name, _ns, a) => {
    const s = args(k, [a[0]])[0].ev;
    return V((f) => {
      const m = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(cString(s(f)));
      const v = m ? Number(m[0]) : 0;
      return name === 'strtof' ? Math.fround(v) : v;
    }, name === 'strtof' ? num('f32') : num('f64'));
  }),
  strlen: (k, _name, _ns, a) => {
    const s = args(k, a)[0].ev;
    return V((f) => new TextEncoder().encode(cString(s(f))).length, U64);
  },
  ...cases(['strcmp', 'strncmp'], (k, name, _ns, a) => {
    const [x, y] = args(k, a.slice(0, 2)).map((e) => e.ev);
    const lim = name === 'strncmp' ? asNum(k, args(k, [a[2]])[0], 'u64') : () => Infinity;
    return V((f) => {
      const n = lim(f);
      const p = cString(x(f)).slice(0, n);
      const q = cString(y(f)).slice(0, n);
      return p === q ? 0 : p < q ? -1 : 1;
    }, S32);
  }),
  // Files: a program may mention them (a harness that dumps its output when given a path), but the
  // simulator does no I/O: reaching one stops the run, naming it.
  ...cases(['fopen', 'fclose', 'fread', 'fwrite', 'fgets', 'fscanf', 'scanf', 'fseek', 'ftell', 'remove'], (k, name) => {
    const loc = locOf(k.n);
    return V(() => {
      throw new SimError(`${name} (the simulator reads and writes no files)`, loc, 'unsupported');
    }, name === 'fopen' ? ptr(VOID) : S32);
  }),
  rand: () => V((f) => hostOf(f).rand.next(), S32),
  srand: (k, _name, _ns, a) => {
    const s = asNum(k, args(k, a)[0], 'u32');
    return V((f) => {
      hostOf(f).rand.seed(s(f));
      return 0;
    }, VOID);
  },
  exit: (k, _name, _ns, a) => {
    const code = asNum(k, args(k, a)[0], 's32');
    return V((f) => {
      throw new ProgramExit(code(f) & 0xff);
    }, VOID);
  },
  ...cases(['abort', '__trap'], () =>
    V(() => {
      throw new ProgramExit(134);
    }, VOID),
  ),
  assert: (k, _name, _ns, a) => {
    const { c, cx } = k;
    const cond = c.truth(c.rv(c.expr(cx, a[0])), a[0]);
    const msg = assertMessage(k, a[0].text);
    return V((f) => {
      if (cond(f)) return 0;
      hostOf(f).out(msg, 'stderr');
      throw new ProgramExit(134);
    }, VOID);
  },
};

function freeCall(k: BuiltinCx, node: SyntaxNode, what: string): Ex {
  const p = asPtr(k, args(k, [node])[0]);
  return V((f) => {
    const q = p(f) as Pointer | null;
    if (!q) return 0;
    const h = hostOf(f);
    if (q.buf.space !== 'host' || !h.heap.has(q.buf)) throw new SimError(`${what}: '${q.buf.name}' is not a live host allocation (${q.buf.space === 'global' ? 'device memory is freed with cudaFree' : 'freed twice, or never allocated'})`);
    if (q.offset !== 0) throw new SimError(`${what}: pointer ${q.offset} bytes into '${q.buf.name}', not its start`);
    h.heap.delete(q.buf);
    return 0;
  }, VOID);
}

/** `new T`, `new T(v)`, `new T[n]`, `new T[n]()`: host allocations, zeroed (the simulator's heap has no garbage). */
export function hostNew(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const tn = requiredField(n, 'type');
  let t: CType = c.baseType(cx, tn);
  const decl = n.childForFieldName('declarator');
  let count: ((f: Frame) => number) | undefined;
  if (decl?.type === 'new_declarator') {
    const size = named(decl)[0];
    if (!size || named(decl).length > 1) unsupported('new of a multi-dimensional array', n);
    count = c.convertTo(c.rv(c.expr(cx, size)), U64, n).ev;
  } else if (decl) {
    // `new T*[n]` and friends: pointer declarators wrap the element type.
    for (let d: SyntaxNode | null = decl; d; d = named(d)[0] ?? null) if (d.type === 'abstract_pointer_declarator') t = ptr(t);
  }
  if (t.k === 'struct' && t.def.ctors?.length) unsupported(`new of ${typeName(t)} (a type with constructors)`, n);
  const es = Math.max(1, sizeOfType(t));
  const init = n.childForFieldName('arguments');
  const initArgs = init ? named(init) : [];
  const first = !count && initArgs[0] && isNum(t) ? c.convertTo(c.rv(c.expr(cx, initArgs[0])), t, n).ev : undefined;
  const dt = isNum(t) ? t.dt : undefined;
  const line = n.startPosition.row + 1;
  return V((f) => {
    const m = count ? count(f) : 1;
    const p = hostOf(f).malloc(m * es, `new ${typeName(t)}${count ? `[${m}]` : ''} at line ${line}`);
    if (first && dt) {
      storeScalar(p, dt, first(f));
    }
    return p;
  }, ptr(t));
}

function storeScalar(p: Pointer, dt: string, v: number): void {
  const view = p.buf.view;
  switch (dt) {
    case 'f32':
      view.setFloat32(p.offset, v, true);
      break;
    case 'f64':
      view.setFloat64(p.offset, v, true);
      break;
    case 's64':
    case 'u64':
      view.setBigUint64(p.offset, BigInt.asUintN(64, BigInt(v)), true);
      break;
    case 's32':
    case 'u32':
      view.setUint32(p.offset, v >>> 0, true);
      break;
    case 's16':
    case 'u16':
      view.setUint16(p.offset, v & 0xffff, true);
      break;
    default:
      view.setUint8(p.offset, v & 0xff);
  }
}

/** `delete p` and `delete[] p`. */
export function hostDelete(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  const target = named(n)[named(n).length - 1];
  return freeCall({ c, cx, n }, target, n.text.includes('[') ? 'delete[]' : 'delete');
}
