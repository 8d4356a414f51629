// Folds a constant Python expression (`STAGES * 2`, `cdiv(K, 64)`) with known names bound: what the
// front end's `evaluateConstant` answers. Integer arithmetic as Python does it (`//` floors).
import { namedChildren, parsePython, type PyNode } from './parser';
import { literalNumber } from './script-classes';

export function evaluatePythonConstant(expression: string, constants: ReadonlyMap<string, number>): number | undefined {
  if (expression.length > 10_000) return undefined;
  const tree = parsePython(expression);
  try {
    const root = tree.rootNode;
    if (root.hasError) return undefined;
    const stmts = namedChildren(root);
    const expr = stmts.length === 1 && stmts[0]!.type === 'expression_statement' ? namedChildren(stmts[0]!)[0] : undefined;
    return expr ? evaluate(expr, constants, 0) : undefined;
  } finally {
    tree.delete();
  }
}

function evaluate(n: PyNode, constants: ReadonlyMap<string, number>, depth: number): number | undefined {
  if (depth > 200) return undefined;
  const literal = literalNumber(n);
  if (literal !== undefined) return literal;
  const kids = namedChildren(n);
  switch (n.type) {
    case 'identifier':
      return constants.get(n.text);
    case 'parenthesized_expression':
      return kids[0] ? evaluate(kids[0], constants, depth + 1) : undefined;
    case 'unary_operator': {
      const v = kids[0] ? evaluate(kids[0], constants, depth + 1) : undefined;
      const op = n.child(0)?.type;
      return v === undefined ? undefined : op === '-' ? -v : op === '~' ? ~v : v;
    }
    case 'binary_operator': {
      const a = evaluate(kids[0]!, constants, depth + 1);
      const b = evaluate(kids[1]!, constants, depth + 1);
      if (a === undefined || b === undefined) return undefined;
      switch (n.childForFieldName('operator')?.type) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '//': return b ? Math.floor(a / b) : undefined;
        case '%': return b ? ((a % b) + b) % b : undefined;
        case '<<': return a << b;
        case '>>': return a >> b;
        case '&': return a & b;
        case '|': return a | b;
        case '^': return a ^ b;
        case '**': return a ** b;
        default: return undefined;
      }
    }
    case 'call': {
      const name = n.childForFieldName('function')?.text;
      const args = namedChildren(n.childForFieldName('arguments')).map((a) => evaluate(a, constants, depth + 1));
      if (args.some((a) => a === undefined)) return undefined;
      const [a, b] = args as number[];
      if (name === 'cdiv' && args.length === 2) return b ? Math.ceil(a! / b) : undefined;
      if ((name === 'min' || name === 'max') && args.length >= 1) return (name === 'min' ? Math.min : Math.max)(...(args as number[]));
      return undefined;
    }
    default:
      return undefined;
  }
}
