// `#if`/`#elif` expressions: `defined`, `__has_include` and friends, macro expansion, then C's integer
// arithmetic in 64 bits (signed or unsigned as the operands say), with short-circuit evaluation.
import { expandTokens, type MacroTable } from './macros';
import { spell, tokenize, type Token } from './tokens';

export interface ConditionHooks {
  /** Whether `__has_include(<x>)` / `("x")` finds a file; undefined when it cannot be told. */
  hasInclude?: (spelling: string, angled: boolean) => boolean | undefined;
}

interface Value {
  v: bigint;
  unsigned: boolean;
}

class ConditionError extends Error {}

// C++ attributes nvcc's host compiler (GCC 11 in C++17 mode) reports through `__has_cpp_attribute`.
const CPP_ATTRIBUTES = new Map<string, number>([
  ['nodiscard', 201907], ['maybe_unused', 201603], ['fallthrough', 201603], ['deprecated', 201309],
  ['noreturn', 200809], ['likely', 201803], ['unlikely', 201803], ['no_unique_address', 201803],
]);

const ALTERNATIVE_TOKENS = new Map([
  ['and', '&&'], ['or', '||'], ['not', '!'], ['bitand', '&'], ['bitor', '|'], ['xor', '^'], ['compl', '~'], ['not_eq', '!='],
]);

const UNKNOWN: Token = { kind: 'other', text: '?unknown', space: true };

/**
 * The value of an `#if` expression (its text or its tokens): unknown identifiers count 0 as in C; undefined when
 * the expression does not parse, divides by zero, or asks something that cannot be told here (`__has_include`
 * without a hook).
 */
export function evaluateCondition(expression: string | readonly Token[], macros: MacroTable, hooks: ConditionHooks = NO_HOOKS): boolean | undefined {
  const v = evaluateConditionValue(expression, macros, hooks);
  return v === undefined ? undefined : v !== 0n;
}

const NO_HOOKS: ConditionHooks = {};
const operatorTables = new WeakMap<ConditionHooks, ReadonlyMap<string, (operand: Token[]) => Token>>();

/** The `__has_*` operators answering through `hooks` (one table per hooks object). */
function operatorsFor(hooks: ConditionHooks): ReadonlyMap<string, (operand: Token[]) => Token> {
  let table = operatorTables.get(hooks);
  if (table) return table;
  const hasInclude = (operand: Token[]): Token => {
    const answer = includeOperand(operand, hooks);
    return answer === undefined ? UNKNOWN : { kind: 'number', text: answer ? '1' : '0', space: true };
  };
  const zero = (): Token => ({ kind: 'number', text: '0', space: true });
  table = new Map<string, (operand: Token[]) => Token>([
    ['__has_include', hasInclude],
    ['__has_include_next', hasInclude],
    ['__has_builtin', zero],
    ['__has_feature', zero],
    ['__has_extension', zero],
    ['__has_attribute', zero],
    ['__has_declspec_attribute', zero],
    ['__has_cpp_attribute', (operand) => ({ kind: 'number', text: String(CPP_ATTRIBUTES.get(spell(operand).replace(/^gnu::|^__|__$/g, '')) ?? 0), space: true })],
  ]);
  operatorTables.set(hooks, table);
  return table;
}

/** Like evaluateCondition, but the integer value. */
export function evaluateConditionValue(expression: string | readonly Token[], macros: MacroTable, hooks: ConditionHooks = NO_HOOKS): bigint | undefined {
  const input = typeof expression === 'string' ? tokenize(expression) : expression;
  const expanded = expandTokens(input, macros, { evaluateDefined: true, operators: operatorsFor(hooks), limit: 100_000 });
  if (!expanded.complete) return undefined;
  // C++'s alternative spellings are operators, in `#if` too.
  const tokens = expanded.tokens.map((t) => (t.kind === 'ident' && ALTERNATIVE_TOKENS.has(t.text) ? { ...t, kind: 'punct' as const, text: ALTERNATIVE_TOKENS.get(t.text)! } : t));
  if (tokens.some((t) => t === UNKNOWN || t.text === '?unknown' || t.text === '?defined')) return undefined;
  try {
    const parser = new ExpressionParser(tokens);
    const value = parser.parse();
    return value.v;
  } catch (e) {
    if (e instanceof ConditionError || e instanceof RangeError || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

function includeOperand(operand: Token[], hooks: ConditionHooks): boolean | undefined {
  if (!hooks.hasInclude || operand.length === 0) return undefined;
  if (operand.length === 1 && operand[0].kind === 'string' && operand[0].text.startsWith('"')) {
    return hooks.hasInclude(operand[0].text.slice(1, -1), false);
  }
  if (operand[0].text === '<' && operand[operand.length - 1].text === '>') {
    // The header name as written: the tokens between the brackets, re-joined.
    return hooks.hasInclude(spell(operand.slice(1, -1)).replace(/\s+/g, ''), true);
  }
  return undefined;
}

const MASK64 = (1n << 64n) - 1n;

function wrap(v: bigint, unsigned: boolean): Value {
  return { v: unsigned ? v & MASK64 : BigInt.asIntN(64, v), unsigned };
}

/** The value of an integer or character literal token; throws on floating literals and junk. */
export function literalValue(t: Token): Value {
  if (t.kind === 'char') return charValue(t.text);
  let s = t.text.replace(/'/g, '');
  const suffix = /([uU](ll|LL|l|L|z|Z)?|(ll|LL|l|L|z|Z)[uU]?)$/.exec(s);
  let unsigned = false;
  if (suffix) {
    unsigned = /[uU]/.test(suffix[0]);
    s = s.slice(0, -suffix[0].length);
  }
  let v: bigint;
  if (/^0[xX][0-9a-fA-F]+$/.test(s) || /^0[bB][01]+$/.test(s)) v = BigInt(s);
  else if (/^0[0-7]*$/.test(s)) v = s.length > 1 ? BigInt(`0o${s.slice(1)}`) : 0n;
  else if (/^[1-9][0-9]*$/.test(s)) v = BigInt(s);
  else throw new ConditionError(`not an integer literal: ${t.text}`);
  // A literal too big for a signed 64-bit integer is unsigned.
  if (v > (1n << 63n) - 1n) unsigned = true;
  return wrap(v, unsigned);
}

const ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, "'": 39, '"': 34, '?': 63, e: 27 };

function charValue(text: string): Value {
  const open = text.indexOf("'");
  const body = text.slice(open + 1, text.endsWith("'") ? -1 : undefined);
  const codes: number[] = [];
  for (let i = 0; i < body.length; ) {
    if (body[i] !== '\\') {
      codes.push(body.codePointAt(i)!);
      i += codes[codes.length - 1] > 0xffff ? 2 : 1;
      continue;
    }
    const c = body[i + 1];
    if (c === 'x') {
      const m = /^[0-9a-fA-F]+/.exec(body.slice(i + 2));
      if (!m) throw new ConditionError('bad escape');
      codes.push(parseInt(m[0], 16));
      i += 2 + m[0].length;
    } else if (c !== undefined && /[0-7]/.test(c)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i + 1))!;
      codes.push(parseInt(m[0], 8));
      i += 1 + m[0].length;
    } else if (c !== undefined && c in ESCAPES) {
      codes.push(ESCAPES[c]);
      i += 2;
    } else {
      throw new ConditionError('bad escape');
    }
  }
  if (codes.length === 0) throw new ConditionError('empty character literal');
  const plain = open === 0;
  if (codes.length === 1) {
    // A plain char is signed (x86 GCC), so '\xff' is -1.
    const c = codes[0];
    return { v: BigInt(plain && c > 127 && c < 256 ? c - 256 : c), unsigned: false };
  }
  // Multi-character literal: GCC packs the bytes big-end first into an int.
  let v = 0n;
  for (const c of codes) v = ((v << 8n) | BigInt(c & 0xff)) & 0xffffffffn;
  return { v: BigInt.asIntN(32, v), unsigned: false };
}

const BINARY_PRECEDENCE = new Map<string, number>([
  ['*', 10], ['/', 10], ['%', 10],
  ['+', 9], ['-', 9],
  ['<<', 8], ['>>', 8],
  ['<', 7], ['>', 7], ['<=', 7], ['>=', 7],
  ['==', 6], ['!=', 6],
  ['&', 5], ['^', 4], ['|', 3], ['&&', 2], ['||', 1],
]);

/** A precedence-climbing parser that evaluates as it parses; `live` is false inside short-circuited operands. */
class ExpressionParser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  parse(): Value {
    if (this.tokens.length === 0) throw new ConditionError('empty expression');
    const v = this.comma(true);
    if (this.pos !== this.tokens.length) throw new ConditionError(`unexpected ${this.tokens[this.pos].text}`);
    return v;
  }

  private peek(): string | undefined {
    return this.tokens[this.pos]?.text;
  }

  private expect(text: string): void {
    if (this.peek() !== text) throw new ConditionError(`expected ${text}`);
    this.pos++;
  }

  private comma(live: boolean): Value {
    let v = this.conditional(live);
    while (this.peek() === ',') {
      this.pos++;
      v = this.conditional(live);
    }
    return v;
  }

  private conditional(live: boolean): Value {
    if (++this.depth > 2000) throw new ConditionError('expression nested too deeply');
    const c = this.binary(1, live);
    let result = c;
    if (this.peek() === '?') {
      this.pos++;
      const chooseFirst = c.v !== 0n;
      const a = this.comma(live && chooseFirst);
      this.expect(':');
      const b = this.conditional(live && !chooseFirst);
      const unsigned = a.unsigned || b.unsigned;
      result = wrap(chooseFirst ? a.v : b.v, unsigned);
    }
    this.depth--;
    return result;
  }

  private binary(minPrec: number, live: boolean): Value {
    let left = this.unary(live);
    for (;;) {
      const op = this.peek();
      const prec = op === undefined ? undefined : BINARY_PRECEDENCE.get(op);
      if (prec === undefined || prec < minPrec) return left;
      this.pos++;
      if (op === '&&' || op === '||') {
        const decided = op === '&&' ? left.v === 0n : left.v !== 0n;
        const right = this.binary(prec + 1, live && !decided);
        const v = decided ? op === '||' : right.v !== 0n;
        left = { v: v ? 1n : 0n, unsigned: false };
        continue;
      }
      const right = this.binary(prec + 1, live);
      left = applyBinary(op!, left, right, live);
    }
  }

  private unary(live: boolean): Value {
    const t = this.tokens[this.pos];
    if (!t) throw new ConditionError('unexpected end of expression');
    if (t.text === '(') {
      if (++this.depth > 2000) throw new ConditionError('expression nested too deeply');
      this.pos++;
      const v = this.comma(live);
      this.expect(')');
      this.depth--;
      return v;
    }
    if (t.text === '!' || t.text === '-' || t.text === '+' || t.text === '~') {
      this.pos++;
      if (++this.depth > 2000) throw new ConditionError('expression nested too deeply');
      const v = this.unary(live);
      this.depth--;
      if (t.text === '!') return { v: v.v === 0n ? 1n : 0n, unsigned: false };
      if (t.text === '-') return wrap(-v.v, v.unsigned);
      if (t.text === '~') return wrap(~v.v, v.unsigned);
      return v;
    }
    this.pos++;
    if (t.kind === 'number' || t.kind === 'char') return literalValue(t);
    if (t.kind === 'ident') {
      // After expansion, `true` is 1 and any other identifier is 0 (C++ [cpp.cond]).
      return { v: t.text === 'true' ? 1n : 0n, unsigned: false };
    }
    throw new ConditionError(`unexpected ${t.text}`);
  }
}

function applyBinary(op: string, a: Value, b: Value, live: boolean): Value {
  const unsigned = a.unsigned || b.unsigned;
  const x = unsigned ? a.v & MASK64 : a.v;
  const y = unsigned ? b.v & MASK64 : b.v;
  const bool = (c: boolean): Value => ({ v: c ? 1n : 0n, unsigned: false });
  switch (op) {
    case '*': return wrap(x * y, unsigned);
    case '/':
    case '%':
      if (y === 0n) {
        if (live) throw new ConditionError('division by zero');
        return { v: 0n, unsigned };
      }
      return wrap(op === '/' ? x / y : x % y, unsigned);
    case '+': return wrap(x + y, unsigned);
    case '-': return wrap(x - y, unsigned);
    case '<<':
    case '>>': {
      // Shifts take the left operand's type; counts outside 0..63 are undefined in C, here they saturate.
      const count = b.v < 0n ? 0n : b.v > 64n ? 64n : b.v;
      const l = a.unsigned ? a.v & MASK64 : a.v;
      return wrap(op === '<<' ? l << count : l >> count, a.unsigned);
    }
    case '<': return bool(x < y);
    case '>': return bool(x > y);
    case '<=': return bool(x <= y);
    case '>=': return bool(x >= y);
    case '==': return bool(x === y);
    case '!=': return bool(x !== y);
    case '&': return wrap(x & y, unsigned);
    case '^': return wrap(x ^ y, unsigned);
    case '|': return wrap(x | y, unsigned);
    default: throw new ConditionError(`unknown operator ${op}`);
  }
}
