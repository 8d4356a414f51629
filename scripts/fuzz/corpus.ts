// The inputs the fuzz harness mutates: the repository's own examples and test fixtures (CUDA and
// Croqtile sources), read once and kept in a stable order so that a seed always means the same run.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { SourceLanguage } from './mutate';

export interface SeedFile {
  /** Repository-relative path. */
  path: string;
  language: SourceLanguage;
  text: string;
}

const ROOTS = ['examples', 'test/fixtures'];
/** Larger files are left out: mutations add size themselves, and the seeds should stay fast. */
const MAX_SEED_BYTES = 64 * 1024;

function walk(root: string, dir: string, out: string[]): void {
  for (const name of readdirSync(path.join(root, dir)).sort()) {
    const rel = path.posix.join(dir, name);
    const stat = statSync(path.join(root, rel));
    if (stat.isDirectory()) walk(root, rel, out);
    else if (/\.(cu|cuh|co)$/.test(name) && stat.size <= MAX_SEED_BYTES) out.push(rel);
  }
}

export function loadSeeds(root: string): SeedFile[] {
  const files: string[] = [];
  for (const dir of ROOTS) walk(root, dir, files);
  return files.map((p) => ({ path: p, language: p.endsWith('.co') ? 'croqtile' : 'cuda', text: readFileSync(path.join(root, p), 'utf8') }));
}
