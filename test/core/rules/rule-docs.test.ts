// Every rule's documentation examples are tests: the bad example yields exactly one finding of that
// rule and the good example none (biome/ESLint style).
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../../core/rules/index';
import { lint } from '../../helpers/engine';

describe.each(RULES.map((r) => [r.meta.id, r] as const))('%s', (_id, rule) => {
  const language = rule.meta.languages.includes('cuda') ? 'cuda' : rule.meta.languages.includes('croqtile') ? 'croqtile' : 'tilus';
  it('bad example gives exactly one finding of this rule', async () => {
    const findings = (await lint(rule.docs.bad, language)).filter((f) => f.code === rule.meta.code);
    expect(findings.map((f) => `${f.code} ${f.range.start.line + 1}: ${f.message}`)).toHaveLength(1);
  });
  it('good example gives no finding at all', async () => {
    const findings = await lint(rule.docs.good, language);
    expect(findings.map((f) => `${f.code} ${f.range.start.line + 1}: ${f.message}`)).toEqual([]);
  });
  it('has complete metadata and docs', () => {
    expect(rule.meta.code).toMatch(/^PF[1-4]\d\d$/);
    expect(({ phase: '1', bootstrap: '2', commit: '3', count: '4' } as Record<string, string>)[rule.meta.family]).toBe(rule.meta.code[2]);
    expect(rule.docs.whatItDoes.length).toBeGreaterThan(40);
    expect(rule.docs.whyIsThisBad).toMatch(/hang|race|undefined|launch failure|trap/i);
    expect(rule.docs.references.length).toBeGreaterThan(0);
    if (rule.meta.fix !== 'none') expect(rule.docs.fixSafety).toBeTruthy();
  });
});

describe('registry', () => {
  it('lists every rule file exactly once, sorted by id, with unique codes', () => {
    // The rules sit one file each in core/rules/checks/; core/rules/ itself holds the infrastructure.
    const dir = path.join(__dirname, '../../../core/rules/checks');
    const files = readdirSync(dir)
      .filter((f) => /^[a-z0-9-]+\.ts$/.test(f))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(RULES.map((r) => r.meta.id)).toEqual(files);
    expect(new Set(RULES.map((r) => r.meta.code)).size).toBe(RULES.length);
  });
});
