// `phaseflip rules`: the rule registry as a table (or JSON with --format json).
import { DIRECTIVE_RULES, RULES } from '../core/index';
import { UsageError } from './errors';

export function formatRules(argv: readonly string[]): string {
  let format = 'text';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--format' || arg === '-f') format = argv[++i] ?? '';
    else if (arg.startsWith('--format=')) format = arg.slice('--format='.length);
    else throw new UsageError(`unknown argument '${arg}' for 'phaseflip rules'`);
  }
  // The rules of the IR, and the findings about suppression directives (PF000, PF001), tuned the same way.
  const directives = DIRECTIVE_RULES.map((d) => ({ meta: { code: d.code, id: d.id, family: 'suppression', defaultSeverity: d.defaultSeverity, summary: d.summary } }));
  const rules = [...RULES, ...directives].sort((a, b) => (a.meta.code < b.meta.code ? -1 : a.meta.code > b.meta.code ? 1 : 0));
  if (format === 'json') {
    const rows = rules.map((r) => ({
      code: r.meta.code,
      id: r.meta.id,
      family: r.meta.family,
      defaultSeverity: r.meta.defaultSeverity,
      summary: r.meta.summary,
    }));
    return `${JSON.stringify(rows, null, 2)}\n`;
  }
  if (format !== 'text') throw new UsageError(`unknown format '${format}' for 'phaseflip rules': expected text or json`);
  if (rules.length === 0) return 'no rules registered\n';
  const header = ['CODE', 'ID', 'FAMILY', 'SUMMARY'];
  const rows = rules.map((r) => [r.meta.code, r.meta.id, r.meta.family, r.meta.summary]);
  const width = [0, 1, 2].map((c) => Math.max(header[c]!.length, ...rows.map((row) => row[c]!.length)));
  const line = (row: string[]) => row.map((cell, c) => (c < 3 ? cell.padEnd(width[c]!) : cell)).join('  ').trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}
