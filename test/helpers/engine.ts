// Shared test helper: one engine per test process.
import { loadEngine, type Engine } from '../../core/index';

let engine: Promise<Engine> | undefined;

export function getEngine(): Promise<Engine> {
  engine ??= loadEngine();
  return engine;
}

export async function lintCuda(text: string) {
  return (await getEngine()).analyze(text, 'cuda').findings;
}

export async function lint(text: string, language: 'cuda' | 'croqtile' | 'tilus') {
  return (await getEngine()).analyze(text, language).findings;
}
