// Builtins for diagnostics and time: printf (formatted when the thread executes it), assert,
// __trap/abort, and clock/clock64/__globaltimer (the thread's simulated time).
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { args, type BuiltinCx, cases, type FreeBuiltin, V } from './builtin-operands';
import type { Ex } from './context';
import { genericAddress } from './runtime';
import { unsupported } from './syntax';
import { num, S32 } from './types';

/** printf, assert, traps and clocks. */
export const DIAGNOSTIC_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(['clock', 'clock64', '__globaltimer'], (_k, name) => V((f) => f.ts.t.time, name === 'clock' ? S32 : num('s64'))),
  ...cases(['__trap', 'abort'], () => {
    return V(() => {
      throw new SimError('__trap() was called: the kernel aborts');
    });
  }),
  ...cases(['assert'], (k, _name, _ns, a) => {
    const { c, cx } = k;
    const cond = c.truth(c.rv(c.expr(cx, a[0])), a[0]);
    const text = a[0].text;
    return V((f) => {
      if (!cond(f)) throw new SimError(`assertion failed: ${text}`);
      return 0;
    });
  }),
  ...cases(['printf'], (k, _name, _ns, a) => printfCall(k, a)),
};

/** printf with a literal format, formatted when the thread executes it. */
function printfCall(k: BuiltinCx, a: SyntaxNode[]): Ex {
  const { n } = k;
  const xs = args(k, a);
  const fmt = xs[0]?.str;
  if (fmt === undefined) unsupported('printf with a non-literal format', n);
  const vals = xs.slice(1).map((e) => ({ ev: e.ev, t: e.t }));
  return V((f) => {
    const values = vals.map((v) => v.ev(f));
    let i = 0;
    const text = fmt.replace(/%([-+ 0#]*)([1-9]\d*|\*)?(?:\.(\d+))?(hh|h|ll|l|z|j|t)?([diouxXfFeEgGcsp%])/g, (_m, flags: string, width: string | undefined, prec: string | undefined, len: string | undefined, conv: string) => {
      if (conv === '%') return '%';
      let w = width === '*' ? Number(values[i++]) : width ? Number(width) : 0;
      const v = values[i];
      const t = vals[i]?.t;
      i++;
      let s: string;
      // 64-bit integers beyond 2^53 are bigints (types.ts Int64); 64-bit lengths print them exactly.
      const wide = typeof v === 'bigint' || (len !== undefined && /^(ll|l|z|j|t)$/.test(len) && /[diuxXo]/.test(conv) && Number.isInteger(v));
      if (wide) {
        const b = BigInt(v as bigint | number);
        const u = BigInt.asUintN(64, b);
        s = conv === 'd' || conv === 'i' ? String(BigInt.asIntN(64, b)) : conv === 'u' ? String(u) : conv === 'o' ? u.toString(8) : u.toString(16);
        if (conv === 'X') s = s.toUpperCase();
        if ((conv === 'x' || conv === 'X') && flags.includes('#') && u !== 0n) s = `0${conv}${s}`;
        if ((conv === 'd' || conv === 'i') && flags.includes('+') && BigInt.asIntN(64, b) >= 0n) s = `+${s}`;
        if (w && s.length < w) s = flags.includes('-') ? s.padEnd(w, ' ') : s.padStart(w, flags.includes('0') ? '0' : ' ');
        return s;
      }
      switch (conv) {
        case 'd':
        case 'i':
          s = String(Math.trunc(Number(v)));
          break;
        case 'u':
          s = String(Number(v) < 0 ? Number(v) + 4294967296 : Math.trunc(Number(v)));
          break;
        case 'x':
        case 'X':
          s = (Number(v) < 0 ? Number(v) + 4294967296 : Number(v)).toString(16);
          if (conv === 'X') s = s.toUpperCase();
          if (flags.includes('#') && Number(v) !== 0) s = `0${conv}${s}`;
          break;
        case 'o':
          s = (Number(v) >>> 0).toString(8);
          break;
        case 'c':
          s = String.fromCharCode(Number(v));
          break;
        case 's':
          s = String(v);
          break;
        case 'p':
          s = `0x${genericAddress(f.ts.ex, v as Pointer | null).toString(16)}`;
          break;
        case 'e':
        case 'E':
          s = Number(v).toExponential(prec ? Number(prec) : 6).replace(/e([+-])(\d)$/, 'e$10$2');
          if (conv === 'E') s = s.toUpperCase();
          break;
        case 'g':
        case 'G':
          s = String(Number(Number(v).toPrecision(prec ? Number(prec) || 1 : 6)));
          break;
        default:
          s = Number(v).toFixed(prec ? Number(prec) : 6);
      }
      if (flags.includes('+') && /[dife]/.test(conv) && Number(v) >= 0) s = `+${s}`;
      void t;
      if (w && s.length < w) {
        const pad = flags.includes('0') && !flags.includes('-') ? '0' : ' ';
        s = flags.includes('-') ? s.padEnd(w, ' ') : pad === '0' && /^[+-]/.test(s) ? s[0] + s.slice(1).padStart(w - 1, '0') : s.padStart(w, pad);
      }
      w = 0;
      return s;
    });
    f.ts.m.print(text, f.ts.t);
    return text.length;
  }, S32);
}
