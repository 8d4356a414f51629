// Per-rule fixtures (test/fixtures/cuda/<CODE>-<rule-id>/): every bad-*.cu yields exactly the
// findings its `// expect: CODE` markers name, on those lines; every good-*.cu yields none.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../../core/rules/index';
import { lintCuda } from '../../helpers/engine';
import { expectations } from '../examples.test';

const root = path.join(__dirname, '../../fixtures/cuda');
const folders = existsSync(root) ? readdirSync(root).filter((d) => /^PF\d{3}-/.test(d)) : [];

describe('fixture folders', () => {
  it('exist for every CUDA rule, named <code>-<id>', () => {
    expect(folders.sort()).toEqual(RULES.filter((r) => r.meta.languages.includes('cuda')).map((r) => `${r.meta.code}-${r.meta.id}`).sort());
  });
});

describe.each(folders)('%s', (folder) => {
  const files = readdirSync(path.join(root, folder)).filter((f) => f.endsWith('.cu'));
  it.each(files.filter((f) => f.startsWith('bad')))('%s', async (file) => {
    const text = readFileSync(path.join(root, folder, file), 'utf8');
    const want = expectations(text).map(([l, c]) => `${l + 1}: ${c}`);
    expect(want.length).toBeGreaterThan(0);
    const got = (await lintCuda(text)).map((f) => `${f.range.start.line + 1}: ${f.code}`);
    expect(got.sort()).toEqual(want.sort());
  });
  it.each(files.filter((f) => f.startsWith('good')))('%s', async (file) => {
    const text = readFileSync(path.join(root, folder, file), 'utf8');
    const got = (await lintCuda(text)).map((f) => `${f.range.start.line + 1}: ${f.code} ${f.message}`);
    expect(got).toEqual([]);
  });
});
