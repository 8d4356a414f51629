// Constant folding for the front end: integer literals, `sizeof` of scalar types, and `constexpr` /
// `const` integers declared in the file or a kernel, so ring sizes, counts and byte totals are numbers.
import { sizeOfTypeName } from './c-types';
import type { SyntaxNode } from './parser';
import { declaratorName, field, named, operatorOf } from './syntax-nodes';

/** `sizeof(float)` and friends; undefined for anything that is not a plain scalar type. */
export function sizeOfType(text: string): number | undefined {
  const m = /^sizeof\s*\(\s*(?:const\s+)?(?:unsigned\s+)?([\w:]+)\s*\)$/.exec(text.trim());
  if (!m) return undefined;
  return sizeOfTypeName(m[1].replace(/^(std|cute|cutlass)::/, ''));
}

export function parseIntLiteral(text: string): number | undefined {
  const t = text.trim().replace(/[uUlL]+$/, '');
  if (/^-?\d+$/.test(t)) return parseInt(t, 10);
  if (/^0[xX][0-9a-fA-F]+$/.test(t)) return parseInt(t, 16);
  if (/^(true|false)$/.test(t)) return t === 'true' ? 1 : 0;
  return undefined;
}

/** `constexpr int STAGES = 4;`, `const int N = 2 * 64;` (simple folds). */
export function recordConstants(decl: SyntaxNode, constants: Map<string, number>): void {
  if (!/\b(constexpr|const)\b/.test(decl.text)) return;
  for (const d of named(decl)) {
    if (d.type !== 'init_declarator') continue;
    const name = declaratorName(field(d, 'declarator'))?.text;
    const value = field(d, 'value');
    if (!name || !value) continue;
    const v = foldConstant(value, constants);
    if (v !== undefined) constants.set(name, v);
  }
}

export function foldConstant(n: SyntaxNode, constants: ReadonlyMap<string, number>): number | undefined {
  switch (n.type) {
    case 'number_literal':
    case 'true':
    case 'false':
      return parseIntLiteral(n.text);
    case 'identifier':
      return constants.get(n.text);
    case 'sizeof_expression':
      return sizeOfType(n.text);
    case 'call_expression':
    case 'cast_expression': {
      // static_cast<int>(X) / (int)X keep the value.
      const v = field(n, 'value') ?? named(field(n, 'arguments'))[0];
      return v && named(field(n, 'arguments')).length <= 1 ? foldConstant(v, constants) : undefined;
    }
    case 'parenthesized_expression':
      return named(n)[0] ? foldConstant(named(n)[0], constants) : undefined;
    case 'binary_expression': {
      const l = foldConstant(field(n, 'left')!, constants);
      const r = foldConstant(field(n, 'right')!, constants);
      if (l === undefined || r === undefined) return undefined;
      const op = operatorOf(n);
      switch (op) {
        case '+': return l + r;
        case '-': return l - r;
        case '*': return l * r;
        case '/': return r ? Math.trunc(l / r) : undefined;
        case '%': return r ? l % r : undefined;
        case '<<': return l << r;
        case '>>': return l >> r;
        default: return undefined;
      }
    }
    default:
      return undefined;
  }
}
