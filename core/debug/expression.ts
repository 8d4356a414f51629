// The expression language of debugger conditions, logpoints, watches and hovers: numbers, names
// bound to numbers, C operators and precedence. Languages evaluate their expressions through their
// debug target (DebugTarget.evaluator); the CUDA and Croqtile targets both use this one over their
// own scopes (a lane's locals and coordinates, a Croqtile thread's scalars).

/** Whether a value counts as true (non-zero, not NaN), as in C. */
export function truthy(v: number): boolean {
  return v !== 0 && !Number.isNaN(v);
}

const TOKEN = /\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+)|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(==|!=|<=|>=|&&|\|\||[-+*/%<>!()]))/y;

/**
 * Evaluates a condition or log expression: numbers, names from `scope`, unary `- !`, binary
 * `* / % + - < <= > >= == != && ||` (C precedence), parentheses. Integer `/` truncates like C when
 * both sides are integers. Unknown names and syntax errors throw with a message that says which.
 */
export function evaluate(expr: string, scope: Map<string, number>): number {
  const tokens: string[] = [];
  const kinds: ('num' | 'id' | 'op')[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  const text = expr.trimEnd();
  while (pos < text.length) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`unexpected '${text.slice(pos).trim()[0]}' in '${expr}'`);
    pos = TOKEN.lastIndex;
    if (m[1] !== undefined) (tokens.push(m[1]), kinds.push('num'));
    else if (m[2] !== undefined) (tokens.push(m[2]), kinds.push('id'));
    else (tokens.push(m[3]), kinds.push('op'));
  }
  let i = 0;
  const peek = () => (kinds[i] === 'op' ? tokens[i] : undefined);
  const levels: string[][] = [['||'], ['&&'], ['==', '!='], ['<', '<=', '>', '>='], ['+', '-'], ['*', '/', '%']];
  const binary = (level: number): number => {
    if (level === levels.length) return unary();
    let left = binary(level + 1);
    for (let op = peek(); op && levels[level].includes(op); op = peek()) {
      i++;
      const right = binary(level + 1);
      left = apply(op, left, right);
    }
    return left;
  };
  const unary = (): number => {
    const op = peek();
    if (op === '-' || op === '!' || op === '+') {
      i++;
      const v = unary();
      return op === '-' ? -v : op === '!' ? (truthy(v) ? 0 : 1) : v;
    }
    return primary();
  };
  const primary = (): number => {
    if (i >= tokens.length) throw new Error(`'${expr}' ends too early`);
    const tok = tokens[i];
    const kind = kinds[i++];
    if (kind === 'num') return Number(tok);
    if (kind === 'id') {
      if (tok === 'true') return 1;
      if (tok === 'false') return 0;
      const v = scope.get(tok);
      if (v === undefined) throw new Error(`'${tok}' is not a number in scope here`);
      return v;
    }
    if (tok === '(') {
      const v = binary(0);
      if (tokens[i++] !== ')') throw new Error(`missing ')' in '${expr}'`);
      return v;
    }
    throw new Error(`unexpected '${tok}' in '${expr}'`);
  };
  if (!tokens.length) throw new Error('empty expression');
  const v = binary(0);
  if (i < tokens.length) throw new Error(`unexpected '${tokens[i]}' in '${expr}'`);
  return v;
}

function apply(op: string, a: number, b: number): number {
  switch (op) {
    case '||':
      return truthy(a) || truthy(b) ? 1 : 0;
    case '&&':
      return truthy(a) && truthy(b) ? 1 : 0;
    case '==':
      return a === b ? 1 : 0;
    case '!=':
      return a !== b ? 1 : 0;
    case '<':
      return a < b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      if (Number.isInteger(a) && Number.isInteger(b)) {
        if (b === 0) throw new Error('division by zero');
        return Math.trunc(a / b);
      }
      return a / b;
    default:
      if (b === 0) throw new Error('division by zero');
      return a % b;
  }
}
