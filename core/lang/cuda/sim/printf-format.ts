// printf's conversions as glibc formats them, so a whole program's stdout matches the GPU machine's
// byte for byte: %d %i %u %o %x %X %c %s %p %f %F %e %E %g %G %a-free, flags `-+ 0#`, widths and
// precisions (`*` too), length modifiers (hh h l ll z j t L) applied to the argument's width. Floating
// point conversions are exact (decimal expansion of the binary value with BigInt, ties to even as
// glibc rounds), not JS's toFixed, which rounds ties away from zero.

import type { Pointer } from '../../../sim/memory';

/** One argument as the format reads it: a number (integer or floating), a string (%s), or a pointer's address. */
export type PrintfArg = number | string | bigint | null | undefined;

/** Formats `fmt` with `args`; `strOf` reads a %s argument that is not a JS string (a char pointer). */
export function formatPrintf(fmt: string, args: readonly PrintfArg[], strOf: (v: PrintfArg) => string = (v) => String(v)): string {
  let i = 0;
  const next = (): PrintfArg => args[i++];
  // A width never starts with 0 (that is the flag), which keeps the pattern linear on runs of zeros.
  return fmt.replace(/%([-+ 0#]*)([1-9]\d*|\*)?(?:\.(\d*|\*))?(hh|h|ll|l|L|z|j|t|q)?([diouxXfFeEgGcsp%n])/g, (_m, flags: string, width: string | undefined, precText: string | undefined, len: string | undefined, conv: string) => {
    if (conv === '%') return '%';
    let left = flags.includes('-');
    let w = 0;
    if (width === '*') {
      w = Number(next());
      if (w < 0) {
        left = true;
        w = -w;
      }
    } else if (width) w = Number(width);
    let prec: number | undefined;
    if (precText !== undefined) {
      prec = precText === '*' ? Number(next()) : Number(precText || '0');
      if (prec < 0) prec = undefined;
    }
    const v = next();
    let body: string;
    let sign = '';
    let zeroPad = flags.includes('0') && !left;
    switch (conv) {
      case 'd':
      case 'i': {
        let x = toBig(v);
        x = BigInt.asIntN(intBits(len), x);
        if (x < 0n) {
          sign = '-';
          x = -x;
        } else if (flags.includes('+')) sign = '+';
        else if (flags.includes(' ')) sign = ' ';
        body = intDigits(x.toString(), prec);
        if (prec !== undefined) zeroPad = false;
        break;
      }
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        const x = BigInt.asUintN(intBits(len), toBig(v));
        const radix = conv === 'u' ? 10 : conv === 'o' ? 8 : 16;
        let digits = x.toString(radix);
        if (conv === 'X') digits = digits.toUpperCase();
        body = intDigits(digits, prec);
        if (flags.includes('#')) {
          if (conv === 'o' && !body.startsWith('0')) body = `0${body}`;
          if ((conv === 'x' || conv === 'X') && x !== 0n) sign = conv === 'x' ? '0x' : '0X';
        }
        if (prec !== undefined) zeroPad = false;
        break;
      }
      case 'c':
        body = String.fromCharCode(Number(v) & 0xff);
        zeroPad = false;
        break;
      case 's': {
        const s = v === null ? '(null)' : typeof v === 'string' ? v : strOf(v);
        body = prec !== undefined ? s.slice(0, prec) : s;
        zeroPad = false;
        break;
      }
      case 'p':
        body = v === null || v === undefined || Number(v) === 0 ? '(nil)' : `0x${toBig(v).toString(16)}`;
        zeroPad = false;
        break;
      case 'n':
        return '';
      default: {
        const x = Number(v);
        const neg = x < 0 || Object.is(x, -0);
        if (neg) sign = '-';
        else if (flags.includes('+')) sign = '+';
        else if (flags.includes(' ')) sign = ' ';
        const upper = conv === 'F' || conv === 'E' || conv === 'G';
        if (!Number.isFinite(x)) {
          body = Number.isNaN(x) ? 'nan' : 'inf';
          if (upper) body = body.toUpperCase();
          zeroPad = false;
          break;
        }
        const a = Math.abs(x);
        const p = prec ?? 6;
        const alt = flags.includes('#');
        if (conv === 'f' || conv === 'F') body = fixed(a, p, alt);
        else if (conv === 'e' || conv === 'E') body = expo(a, p, alt, upper);
        else body = general(a, p, alt, upper);
      }
    }
    const total = sign.length + body.length;
    if (total >= w) return sign + body;
    if (left) return (sign + body).padEnd(w, ' ');
    if (zeroPad) return sign + body.padStart(w - sign.length, '0');
    return (sign + body).padStart(w, ' ');
  });
}

function intBits(len: string | undefined): number {
  switch (len) {
    case 'hh':
      return 8;
    case 'h':
      return 16;
    case 'l':
    case 'll':
    case 'z':
    case 'j':
    case 't':
    case 'q':
      return 64;
    default:
      return 32;
  }
}

function toBig(v: PrintfArg): bigint {
  if (typeof v === 'bigint') return v;
  const x = Number(v ?? 0);
  return Number.isFinite(x) ? BigInt(Math.trunc(x)) : 0n;
}

/** Integer digits padded with zeros to `prec` (`%.0d` of 0 prints nothing). */
function intDigits(digits: string, prec: number | undefined): string {
  if (prec === undefined) return digits;
  if (prec === 0 && digits === '0') return '';
  return digits.padStart(prec, '0');
}

/** A finite non-negative double as an exact fraction num / 2^shift. */
function exact(a: number): { num: bigint; shift: bigint } {
  if (a === 0) return { num: 0n, shift: 0n };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, a);
  const bits = view.getBigUint64(0);
  const e = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let exp = e - 1075;
  if (e === 0) exp = -1074;
  else mant |= 1n << 52n;
  if (exp >= 0) return { num: mant << BigInt(exp), shift: 0n };
  return { num: mant, shift: BigInt(-exp) };
}

/** round(a × 10^p) with ties to even, as an integer. */
function scaledRound(a: number, p: number): bigint {
  const { num, shift } = exact(a);
  let n = num;
  let d = 1n << shift;
  if (p >= 0) n *= 10n ** BigInt(p);
  else d *= 10n ** BigInt(-p);
  const q = n / d;
  const r = n % d;
  if (2n * r > d || (2n * r === d && q % 2n === 1n)) return q + 1n;
  return q;
}

function fixed(a: number, p: number, alt: boolean): string {
  const digits = scaledRound(a, p).toString().padStart(p + 1, '0');
  const int = digits.slice(0, digits.length - p);
  const frac = digits.slice(digits.length - p);
  return p > 0 ? `${int}.${frac}` : alt ? `${int}.` : int;
}

/** The decimal exponent and p+1 significant digits of `a` (rounded, ties to even). */
function significand(a: number, p: number): { digits: string; exp: number } {
  if (a === 0) return { digits: '0'.repeat(p + 1), exp: 0 };
  let e = Math.floor(Math.log10(a));
  for (;;) {
    const digits = scaledRound(a, p - e).toString();
    if (digits.length === p + 2) {
      e++;
      continue;
    }
    if (digits.length < p + 1) {
      e--;
      continue;
    }
    return { digits, exp: e };
  }
}

function expo(a: number, p: number, alt: boolean, upper: boolean): string {
  const { digits, exp } = significand(a, p);
  return mantissa(digits, alt) + expPart(exp, upper);
}

function mantissa(digits: string, alt: boolean): string {
  return digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : alt ? `${digits}.` : digits;
}

function expPart(exp: number, upper: boolean): string {
  const s = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return (upper ? 'E' : 'e') + s;
}

function general(a: number, prec: number, alt: boolean, upper: boolean): string {
  const P = prec === 0 ? 1 : prec;
  const { exp } = significand(a, P - 1);
  let s: string;
  if (P > exp && exp >= -4) {
    s = fixed(a, P - 1 - exp, alt);
    return alt ? s : trimZeros(s);
  }
  const { digits } = significand(a, P - 1);
  const m = mantissa(digits, alt);
  return (alt ? m : trimZeros(m)) + expPart(exp, upper);
}

/** %g's trailing zeros (and a bare point) removed from a number with a fraction. */
function trimZeros(s: string): string {
  if (!s.includes('.')) return s;
  let end = s.length;
  while (s.charCodeAt(end - 1) === 48) end--;
  if (s[end - 1] === '.') end--;
  return s.slice(0, end);
}

/** The bytes of a NUL-terminated string at `p` (a `const char*`), or a JS string as it is. */
export function cString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '(null)';
  const p = v as Pointer;
  if (!p.buf) return String(v);
  const bytes = p.buf.bytes;
  let end = p.offset;
  while (end < bytes.length && bytes[end] !== 0) end++;
  return new TextDecoder().decode(bytes.subarray(p.offset, end));
}
