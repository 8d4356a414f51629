// Stable machine-readable output, version 1:
// {"version":1,"files":[{"path","diagnostics":[{"range","severity","code","family","message","related":[{"path","range","message"}]}],
//   "notes":[{"path","range","kind","message"}]}]}  (notes: information on what was not understood; omitted when none)
// Ranges are LSP-style (zero-based line/character, end exclusive). Every linted file is listed,
// with an empty diagnostics array when clean.
import type { Range } from '../../core/index';
import type { LintRun } from '../lint-run';

export function formatJson(run: LintRun): string {
  const doc = {
    version: 1,
    files: run.files.map((file) => ({
      path: file.path,
      diagnostics: file.findings.map((f) => ({
        range: copyRange(f.range),
        severity: f.severity,
        code: f.code,
        family: f.family,
        message: f.message,
        related: f.related.map((r) => ({ path: r.range.file ?? file.path, range: copyRange(r.range), message: r.message })),
      })),
      ...(file.notes?.length ? { notes: file.notes.map((n) => ({ path: n.range.file ?? file.path, range: copyRange(n.range), kind: n.kind, message: n.message })) } : {}),
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function copyRange(r: Range): Range {
  return {
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  };
}
