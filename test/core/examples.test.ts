// The bundled examples: correct kernels (seeds, fixed versions, bootstrap conventions) lint clean, and
// every buggy kernel yields exactly the finding its `// expect: CODE` marker names, on that line.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintCuda } from '../helpers/engine';

const root = path.join(__dirname, '../../examples');
const list = (dir: string): string[] => readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.cu')).map((f) => path.join(dir, f));

/** `// expect: PF201` markers: [line (0-based), code]. */
export function expectations(text: string): [number, string][] {
  const out: [number, string][] = [];
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/\/\/.*?expect:\s*((?:PF\d{3}[ ,]*)+)/g)) for (const c of m[1].split(/[ ,]+/).filter(Boolean)) out.push([i, c]);
  });
  return out;
}

describe('correct examples lint clean', () => {
  it.each([...list('seeds'), ...list('good')])('%s', async (file) => {
    const findings = await lintCuda(readFileSync(path.join(root, file), 'utf8'));
    expect(findings.map((f) => `${f.range.start.line + 1}: ${f.code} ${f.message}`)).toEqual([]);
  });
});

describe('buggy examples give the expected finding', () => {
  it.each(list('bugs'))('%s', async (file) => {
    const text = readFileSync(path.join(root, file), 'utf8');
    const findings = await lintCuda(text);
    const want = expectations(text).map(([l, c]) => `${l + 1}: ${c}`);
    expect(want.length).toBeGreaterThan(0);
    expect(findings.map((f) => `${f.range.start.line + 1}: ${f.code}`).sort()).toEqual(want.sort());
  });
});
