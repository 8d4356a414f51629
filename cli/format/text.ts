// Compiler-style text: `file:line:col: severity CODE message` (1-based), related locations as
// indented `note:` lines, and a summary for stderr.
import type { LintRun } from '../lint-run';

export function formatText(run: LintRun): string {
  let out = '';
  for (const file of run.files) {
    for (const f of file.findings) {
      out += `${file.path}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} ${f.code} ${oneLine(f.message)}\n`;
      for (const r of f.related) {
        out += `  ${r.range.file ?? file.path}:${r.range.start.line + 1}:${r.range.start.character + 1}: note: ${oneLine(r.message)}\n`;
      }
    }
  }
  return out;
}

export function formatSummary(run: LintRun): string {
  const findings = run.files.reduce((n, f) => n + f.findings.length, 0);
  const files = run.files.length;
  return `${findings} ${findings === 1 ? 'finding' : 'findings'} in ${files} ${files === 1 ? 'file' : 'files'}\n`;
}

function oneLine(s: string): string {
  return s.replace(/\s*\r?\n\s*/g, ' ');
}
