// Compiler-style text: `file:line:col: severity CODE message` (1-based), related locations as
// indented `note:` lines, and a summary for stderr.
import type { LintRun } from '../lint-run';

export function formatText(run: LintRun, notes = false): string {
  let out = '';
  for (const file of run.files) {
    if (notes) {
      for (const n of file.notes ?? []) out += `${n.range.file ?? file.path}:${n.range.start.line + 1}:${n.range.start.character + 1}: info ${oneLine(n.message)}\n`;
    }
    for (const f of file.findings) {
      out += `${file.path}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} ${f.code} ${oneLine(f.message)}\n`;
      for (const r of f.related) {
        out += `  ${r.range.file ?? file.path}:${r.range.start.line + 1}:${r.range.start.character + 1}: note: ${oneLine(r.message)}\n`;
      }
    }
  }
  return out;
}

export function formatSummary(run: LintRun, notesShown = false): string {
  const findings = run.files.reduce((n, f) => n + f.findings.length, 0);
  const files = run.files.length;
  // Never "0 findings in 0 files": nothing was linted, and the errors above say why.
  if (files === 0) return `no file was linted${run.errors.length ? ` (${run.errors.length} ${run.errors.length === 1 ? 'error' : 'errors'})` : ''}\n`;
  const notes = run.files.reduce((n, f) => n + (f.notes?.length ?? 0), 0);
  // "No findings" must not hide "not understood": say how much was not, and how to see it.
  const noted = notes ? ` (${notes} ${notes === 1 ? 'note' : 'notes'} on code not understood${notesShown ? '' : ': --notes shows them'})` : '';
  return `${findings} ${findings === 1 ? 'finding' : 'findings'} in ${files} ${files === 1 ? 'file' : 'files'}${noted}\n`;
}

function oneLine(s: string): string {
  return s.replace(/\s*\r?\n\s*/g, ' ');
}
