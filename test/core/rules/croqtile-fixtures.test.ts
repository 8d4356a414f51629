// Croqtile fixtures (test/fixtures/croqtile/<CODE>-<rule-id>/) and examples (examples/croqtile/):
// bad files yield exactly the findings their `// expect: CODE` markers name; good files and the
// seed kernels yield none.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../../core/rules/index';
import { lint } from '../../helpers/engine';
import { expectations } from '../examples.test';

const fixtures = path.join(__dirname, '../../fixtures/croqtile');
const examples = path.join(__dirname, '../../../examples/croqtile');
const folders = existsSync(fixtures) ? readdirSync(fixtures).filter((d) => /^PF\d{3}-/.test(d)) : [];
const list = (dir: string, pred: (f: string) => boolean): string[] => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.co') && pred(f)) : []);

async function expectMarkers(file: string): Promise<void> {
  const text = readFileSync(file, 'utf8');
  const want = expectations(text).map(([l, c]) => `${l + 1}: ${c}`);
  expect(want.length).toBeGreaterThan(0);
  const got = (await lint(text, 'croqtile')).map((f) => `${f.range.start.line + 1}: ${f.code}`);
  expect(got.sort()).toEqual(want.sort());
}

async function expectClean(file: string): Promise<void> {
  const text = readFileSync(file, 'utf8');
  const got = (await lint(text, 'croqtile')).map((f) => `${f.range.start.line + 1}: ${f.code} ${f.message}`);
  expect(got).toEqual([]);
}

describe('croqtile fixture folders', () => {
  it('exist for every Croqtile rule', () => {
    expect(folders.sort()).toEqual(RULES.filter((r) => r.meta.languages.includes('croqtile')).map((r) => `${r.meta.code}-${r.meta.id}`).sort());
  });
});

describe.each(folders)('%s', (folder) => {
  const dir = path.join(fixtures, folder);
  it.each(list(dir, (f) => f.startsWith('bad')))('%s', (f) => expectMarkers(path.join(dir, f)));
  it.each(list(dir, (f) => f.startsWith('good')))('%s', (f) => expectClean(path.join(dir, f)));
});

describe('croqtile examples', () => {
  for (const sub of ['seeds', 'good']) {
    const dir = path.join(examples, sub);
    it.each(list(dir, () => true))(`${sub}/%s lints clean`, (f) => expectClean(path.join(dir, f)));
  }
  const bugs = path.join(examples, 'bugs');
  it.each(list(bugs, () => true))('bugs/%s gives its expected finding', (f) => expectMarkers(path.join(bugs, f)));
});
