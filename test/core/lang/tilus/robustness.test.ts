// Code being typed: every prefix of the tilus examples and fixtures, and each with a line deleted, analyses
// without throwing (a syntax problem or nothing, never an exception) and hovers anywhere answer or say nothing.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEngine } from '../../../helpers/engine';

const ROOT = path.join(__dirname, '../../../..');
const FILES = [
  path.join(ROOT, 'examples/tilus/good/tma_pipeline.py'),
  ...readdirSync(path.join(ROOT, 'test/fixtures/tilus')).map((f) => path.join(ROOT, 'test/fixtures/tilus', f)),
];

describe('tilus front end on broken code', () => {
  it('never throws on prefixes or on a deleted line, and reports no internal error', async () => {
    const engine = await getEngine();
    let analysed = 0;
    for (const file of FILES) {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n');
      const variants: string[] = [];
      for (let cut = 0; cut < text.length; cut += 97) variants.push(text.slice(0, cut));
      for (let i = 0; i < lines.length; i += 3) variants.push([...lines.slice(0, i), ...lines.slice(i + 1)].join('\n'));
      for (const v of variants) {
        const r = engine.analyze(v, 'tilus');
        analysed++;
        expect(r.syntaxProblems.filter((p) => p.message.startsWith('internal')), `${path.basename(file)}:\n${v.slice(-200)}`).toEqual([]);
      }
    }
    expect(analysed).toBeGreaterThan(100);
  }, 120_000);

  it('answers hovers at every position of a file or returns null', async () => {
    const engine = await getEngine();
    const text = readFileSync(FILES[0]!, 'utf8');
    const doc = engine.openDocument('tilus', text);
    const lines = text.split('\n');
    for (let line = 0; line < lines.length; line++) for (let character = 0; character <= lines[line]!.length; character += 3) doc.hover({ line, character });
    doc.dispose();
  });
});
