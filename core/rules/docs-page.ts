// Renders a rule's documentation page (docs/rules/<id>.md) from its RuleDef, so the docs the
// diagnostics link to cannot drift from the examples that are tested.
import type { RuleDef } from './types';

export function renderRulePage(rule: RuleDef): string {
  const m = rule.meta;
  const d = rule.docs;
  const lines = [
    `# ${m.id} (${m.code})`,
    '',
    `Family: **${m.family}** · default severity: **${m.defaultSeverity}** · quick fix: **${m.fix}**`,
    '',
    m.summary,
    '',
    '## What it does',
    '',
    d.whatItDoes,
    '',
    '## Why is this bad?',
    '',
    d.whyIsThisBad,
    '',
    '## Example',
    '',
    `\`\`\`${fenceLanguage(m.languages)}`,
    d.bad,
    '```',
    '',
    'Use instead:',
    '',
    `\`\`\`${fenceLanguage(m.languages)}`,
    d.good,
    '```',
    '',
  ];
  if (d.fixSafety) lines.push('## Fix safety', '', d.fixSafety, '');
  lines.push('## References', '', ...d.references.map((r) => `- ${r}`), '');
  return lines.join('\n');
}

/** The code fence of a rule's examples: the first language it applies to (tilus examples are Python). */
function fenceLanguage(languages: readonly string[]): string {
  return languages.includes('cuda') ? 'cuda' : languages.includes('croqtile') ? 'croqtile' : 'python';
}
