// tilus's front end: the Python grammar, the documents the linter opens and constant folding. The language's
// registry entry (index.ts) imports it on first use, so that a process that lints no Python file never loads
// tree-sitter-python.
import type { FrontEnd, FrontEndOptions } from '../language';
import { evaluatePythonConstant } from './constant-eval';
import { TilusDocument } from './document';
import { loadPythonLanguage } from './parser';

const frontEnd: FrontEnd = {
  openDocument: (text) => new TilusDocument(text),
  evaluateConstant: (expression, constants = new Map()) => {
    try {
      return evaluatePythonConstant(expression, constants);
    } catch {
      return undefined;
    }
  },
};

export async function loadTilusFrontEnd(options: FrontEndOptions): Promise<FrontEnd> {
  await loadPythonLanguage(options.wasmDir);
  return frontEnd;
}
