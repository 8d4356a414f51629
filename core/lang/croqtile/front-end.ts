// Croqtile's front end: the documents the linter opens and constant folding. The language's registry entry
// (index.ts) imports it on first use, so that `phaseflip sim x.co` never initialises the linter's analysis.
import type { FrontEnd } from '../language';
import { CroqtileDocument } from './document';
import { parseCoExpression } from './parser';
import { evaluateConstant } from './constant-eval';

export const croqtileFrontEnd: FrontEnd = {
  openDocument: (text) => new CroqtileDocument(text),
  evaluateConstant: (expression, constants = new Map()) => {
    try {
      const expr = parseCoExpression(expression);
      // The evaluator resolves names through #define texts: known values are given as such texts.
      return expr && evaluateConstant(expr, new Map([...constants].map(([name, value]) => [name, String(value)])));
    } catch {
      return undefined;
    }
  },
};
