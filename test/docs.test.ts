// Documentation stays in step with the code: one page per rule (generated from the RuleDef; run with
// UPDATE_DOCS=1 to rewrite) and the README's rule table lists every rule.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES } from '../core/rules/index';
import { renderRulePage } from '../core/rules/docs-page';

const root = path.join(__dirname, '..');

describe('docs', () => {
  it.each(RULES.map((r) => [r.meta.id, r] as const))('docs/rules/%s.md is up to date', (id, rule) => {
    const file = path.join(root, 'docs/rules', `${id}.md`);
    const page = renderRulePage(rule);
    if (process.env.UPDATE_DOCS) writeFileSync(file, page);
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').toBe(page);
  });

  it('README lists every rule with its code, id and family', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    for (const r of RULES) expect(readme).toMatch(new RegExp(`\\| ${r.meta.code} \\| \\[\`${r.meta.id}\`\\]\\(docs/rules/${r.meta.id}\\.md\\) \\| ${r.meta.family} \\|`));
  });
});
