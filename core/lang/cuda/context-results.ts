// A header analysed inside the translation unit of a file that includes it also gets what that file's
// kernels find in it: their findings located in the header, moved into the header's own coordinates (the
// kernel they were reached from becomes a location in the including file).
import type { AnalysisNote, AnalysisResult, Finding, Range } from '../../api';
import { byPosition, mergeFindings } from '../../rules/run';

/** `own` (the header's analysis) with the findings and notes `fromContext` (the including file's) located in `header`. */
export function withContextResults(own: AnalysisResult, fromContext: AnalysisResult, header: string, contextPath: string): AnalysisResult {
  // The header's ranges lose their file (they are the document's); the including file's gain theirs.
  const place = (r: Range): Range => {
    if (r.file === header) {
      const { file: _file, ...local } = r;
      return local;
    }
    return r.file === undefined ? { ...r, file: contextPath } : r;
  };
  const moved: Finding[] = fromContext.findings
    .filter((f) => f.range.file === header)
    .map((f) => ({
      ...f,
      range: place(f.range),
      related: f.related.map((x) => ({ ...x, range: place(x.range) })),
      fixes: f.fixes.map((fix) => ({ ...fix, edits: fix.edits.map((e) => ({ ...e, range: place(e.range) })) })),
    }));
  const findings = mergeFindings([...own.findings, ...moved]).sort(byPosition);
  const notes: AnalysisNote[] = [...(own.notes ?? [])];
  const noteKeys = new Set(notes.map((n) => `${n.range.file ?? ''}:${n.range.start.line}:${n.message}`));
  for (const n of fromContext.notes ?? []) {
    if (n.range.file !== header) continue;
    const note = { ...n, range: place(n.range) };
    const key = `:${note.range.start.line}:${note.message}`;
    if (noteKeys.has(key)) continue;
    noteKeys.add(key);
    notes.push(note);
  }
  const result: AnalysisResult = { ...own, findings };
  if (notes.length) result.notes = notes;
  return result;
}
