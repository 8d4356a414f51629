// Which object-like macros are "specifier macros": their full expansion holds only declaration specifiers,
// attributes and pragmas (or nothing), so the text tree-sitter parses can drop them (or keep `__global__`)
// without changing what the declaration means to the parser.
import { bodyTokens, expandTokens, type MacroDefinition, type MacroTable } from './macros';
import { classifyTokens, CUDA_KEYWORDS, type SpecifierKind } from './specifiers';

const fixedKinds = new WeakMap<MacroDefinition, SpecifierKind>();

/**
 * The kind of object-like macro `def` under `macros`: its expansion (CUDA keywords left unexpanded) classified.
 * Function-like macros and CUDA keywords themselves are always 'other'. A body made of specifiers alone, or one
 * that could never expand to specifiers alone (numbers, operators), has a kind of its own, remembered; a body
 * naming other macros is expanded under the table of the moment.
 */
export function classifyMacro(def: MacroDefinition, macros: MacroTable): SpecifierKind {
  if (def.params || CUDA_KEYWORDS.has(def.name)) return 'other';
  const fixed = fixedKinds.get(def);
  if (fixed) return fixed;
  const tokens = bodyTokens(def);
  const strict = classifyTokens(tokens);
  if (strict !== 'other' || classifyTokens(tokens, true) === 'other') {
    fixedKinds.set(def, strict);
    return strict;
  }
  const expanded = expandTokens([{ kind: 'ident', text: def.name, space: false }], macros, { noExpand: CUDA_KEYWORDS, limit: 10_000 });
  return expanded.complete ? classifyTokens(expanded.tokens) : 'other';
}
