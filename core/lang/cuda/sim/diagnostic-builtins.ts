// Builtins for diagnostics and time: printf (formatted when the thread executes it), assert,
// __trap/abort, and clock/clock64/__globaltimer (the thread's simulated time).
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { args, type BuiltinCx, cases, type FreeBuiltin, V } from './builtin-operands';
import type { Ex } from './context';
import { cString, formatPrintf, type PrintfArg } from './printf-format';
import { type Frame, genericAddress } from './runtime';
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

/**
 * printf with a literal format, formatted when the thread executes it, as the CUDA runtime prints
 * device output on the host (glibc's conversions: printf-format.ts). A `char*` argument is a string
 * for %s; other pointers print as the simulator's generic addresses.
 */
function printfCall(k: BuiltinCx, a: SyntaxNode[]): Ex {
  const { n } = k;
  const xs = args(k, a);
  const fmt = xs[0]?.str;
  if (fmt === undefined) unsupported('printf with a non-literal format', n);
  const vals = xs.slice(1).map((e): ((f: Frame) => PrintfArg) => {
    const ev = e.ev;
    if (e.t.k !== 'ptr') return ev;
    const to = e.t.to;
    if (to.k === 'num' && (to.dt === 's8' || to.dt === 'u8')) return ev;
    return (f) => genericAddress(f.ts.ex, ev(f) as Pointer | null);
  });
  return V((f) => {
    const text = formatPrintf(fmt, vals.map((v) => v(f)), cString);
    f.ts.m.print(text, f.ts.t);
    return text.length;
  }, S32);
}
