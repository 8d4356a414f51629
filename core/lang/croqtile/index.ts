// Croqtile as a Phaseflip language: `.co` files, parsed with the Croqtile parser, analysed per
// `__co__` function, simulated as whole programs (host code and every launch). The implementation of
// the `Language` interface (../language.ts) that core/languages.ts registers.
import { CPP_KEYWORDS } from '../inline-values';
import type { FrontEnd, Language } from '../language';
import { CroqtileDocument } from './document';
import { croqtileLaunchTemplates } from './launch-template';
import { parseCoExpression } from './parser';
import { evaluateConstant } from './constant-eval';
import { croqtileDebugProgram } from './sim/debug-target';
import { prepareCroqtileSimulation } from './sim';

/** Croqtile's keywords, element types and memory spaces, which inline values never show. */
const CROQTILE_KEYWORDS = `__co__ __cok__ parallel foreach with in by inthreads async wait trigger event events ready after select dma tma mma copy println print
  f16 bf16 f32 f64 s8 s16 s32 s64 u8 u16 u32 u64 i8 i16 i32 i64 block group thread local shared global span chunkat at`.split(/\s+/);

const frontEnd: FrontEnd = {
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

export const croqtile: Language = {
  id: 'croqtile',
  extensions: ['.co'],
  // Croqtile code lives in `.co` files only.
  headerExtensions: [],
  holdsCode: () => false,
  editorLanguageIds: ['croqtile'],
  lineComment: '//',
  inlineValues: {
    functionStart: /\b__co__\b|\b__cok__\b/,
    keywords: new Set([...CPP_KEYWORDS, ...CROQTILE_KEYWORDS]),
  },
  // Nothing to load: the parser is plain TypeScript.
  loadFrontEnd: async () => frontEnd,
  launchTemplates: async (text) => croqtileLaunchTemplates(text),
  prepareSimulation: async (req) => prepareCroqtileSimulation(req),
  debugProgram: croqtileDebugProgram,
};
