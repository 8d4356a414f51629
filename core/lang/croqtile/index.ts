// Croqtile as a Phaseflip language: `.co` files, parsed with the Croqtile parser, analysed per
// `__co__` function, simulated as whole programs (host code and every launch). The implementation of
// the `Language` interface (../language.ts) that core/languages.ts registers.
import { CPP_KEYWORDS } from '../inline-values';
import type { Language } from '../language';
import { CROQTILE_DEBUG_THREADS } from './sim/debug-threads';

/** Croqtile's keywords, element types and memory spaces, which inline values never show. */
const CROQTILE_KEYWORDS = `__co__ __cok__ parallel foreach with in by inthreads async wait trigger event events ready after select dma tma mma copy println print
  f16 bf16 f32 f64 s8 s16 s32 s64 u8 u16 u32 u64 i8 i16 i32 i64 block group thread local shared global span chunkat at`.split(/\s+/);

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
  // The front end, launch templates, simulator and debugger are imported on first use: a process initialises
  // only what it runs (`phaseflip sim x.co` not the linter's analysis).
  loadFrontEnd: async () => (await import('./front-end')).croqtileFrontEnd,
  launchTemplates: async (text) => (await import('./launch-template')).croqtileLaunchTemplates(text),
  prepareSimulation: async (req) => (await import('./sim')).prepareCroqtileSimulation(req),
  debugProgram: (req) => ({ ...CROQTILE_DEBUG_THREADS, create: async (hooks) => (await import('./sim/debug-target')).croqtileDebugProgram(req).create(hooks) }),
  preloadDebugger: async () => void (await import('./sim/debug-target')),
};
