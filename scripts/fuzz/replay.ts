// Replays saved reproducers through their surfaces (`npm run fuzz -- --replay`): each must now pass.
// The regression test runs this, so every failure the fuzzer ever found stays a test.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runDapCases } from './dap-surface';
import type { EnginePool } from './engine-pool';
import { replayLsp } from './lsp-surface';
import type { Outcome } from './outcome';
import { type SavedReproducer, loadReproducers } from './reproducers';

export interface ReplayResult {
  /** Repository-relative path of the reproducer's input. */
  file: string;
  surface: string;
  outcome: Outcome;
}

/** A replay's limit: the limit it was found under, or `minLimitMs` when that is larger (`--limit-ms`). */
async function replayOne(root: string, pool: EnginePool, r: SavedReproducer, minLimitMs: number): Promise<Outcome> {
  const { record } = r;
  const limitMs = Math.max(record.limitMs, minLimitMs);
  const language = record.language ?? 'cuda';
  switch (record.surface) {
    case 'lint':
      return pool.run({ kind: 'lint', text: readFileSync(r.inputPath, 'utf8'), language }, limitMs);
    case 'sim':
      if (!record.launch) return { verdict: 'crash', ms: 0, detail: `${r.recordPath} has no launch` };
      return pool.run({ kind: 'sim', text: readFileSync(r.inputPath, 'utf8'), launch: record.launch }, limitMs);
    case 'lsp':
      if (!record.request) return { verdict: 'crash', ms: 0, detail: `${r.recordPath} has no request` };
      return replayLsp(root, readFileSync(r.inputPath, 'utf8'), language, record.request, limitMs);
    case 'dap':
      return runDapCases(root, [readFileSync(r.inputPath)], limitMs);
  }
}

export async function replayAll(root: string, dir: string, pool: EnginePool, minLimitMs: number, only: readonly string[] = []): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const r of loadReproducers(dir)) {
    const file = path.relative(root, r.inputPath);
    if (only.length > 0 && !only.some((o) => path.resolve(root, o) === r.inputPath)) continue;
    results.push({ file, surface: r.record.surface, outcome: await replayOne(root, pool, r, minLimitMs) });
  }
  return results;
}
