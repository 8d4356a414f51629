// Conversions between the engine's plain data (core/api.ts) and LSP types. Positions already share
// LSP's convention (zero-based line, UTF-16 character), so ranges are copied field by field; this
// keeps core free of any LSP dependency and keeps LSP objects free of engine-private fields.
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeAction,
  type CodeLens,
  CodeActionKind,
  Diagnostic,
  DiagnosticRelatedInformation,
  DiagnosticSeverity,
  DocumentSymbol,
  Hover,
  MarkupKind,
  SymbolInformation,
  SymbolKind,
  type Position as LspPosition,
  type Range as LspRange,
  type TextDocumentContentChangeEvent,
  type TextEdit as LspTextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  type AnalysisNote,
  type BarrierSymbol,
  type ContentChange,
  type Finding,
  type Fix,
  type HoverInfo,
  type KernelOverview,
  type LaunchTemplate,
  type Position,
  type Range,
  type Severity,
  launchConfiguration,
} from '../core/index';

export const SOURCE = 'phaseflip';

export function toLspPosition(p: Position): LspPosition {
  return { line: p.line, character: p.character };
}

export function toLspRange(r: Range): LspRange {
  return { start: toLspPosition(r.start), end: toLspPosition(r.end) };
}

export function toCorePosition(p: LspPosition): Position {
  return { line: p.line, character: p.character };
}

export function toCoreRange(r: LspRange): Range {
  return { start: toCorePosition(r.start), end: toCorePosition(r.end) };
}

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toLspSeverity(s: Severity): DiagnosticSeverity {
  return SEVERITY[s] ?? DiagnosticSeverity.Warning;
}

export function toCoreSeverity(s: DiagnosticSeverity | undefined): Severity {
  switch (s) {
    case DiagnosticSeverity.Error:
      return 'error';
    case DiagnosticSeverity.Information:
      return 'information';
    case DiagnosticSeverity.Hint:
      return 'hint';
    default:
      return 'warning';
  }
}

/** What a published diagnostic carries in `data`, so code actions need no server-side lookup. */
export interface DiagnosticData {
  ruleId: string;
  fixes: Fix[];
  /** Document version the fixes' ranges refer to; quick fixes are versioned edits against it. */
  version: number | null;
}

export function toDiagnostic(finding: Finding, uri: string, version: number | null): Diagnostic {
  const diagnostic: Diagnostic = {
    range: toLspRange(finding.range),
    severity: toLspSeverity(finding.severity),
    code: finding.code,
    source: SOURCE,
    message: finding.message,
  };
  if (finding.docsUrl) diagnostic.codeDescription = { href: finding.docsUrl };
  if (finding.related.length > 0) {
    diagnostic.relatedInformation = finding.related.map((r) =>
      DiagnosticRelatedInformation.create({ uri: r.range.file !== undefined ? pathToFileURL(r.range.file).href : uri, range: toLspRange(r.range) }, r.message),
    );
  }
  const data: DiagnosticData = { ruleId: finding.ruleId, fixes: finding.fixes, version };
  diagnostic.data = data;
  return diagnostic;
}

/** An information note (an include not found, a call not understood) as an Information diagnostic. */
export function noteToDiagnostic(note: AnalysisNote): Diagnostic {
  return { range: toLspRange(note.range), severity: DiagnosticSeverity.Information, source: SOURCE, message: note.message, code: note.kind };
}

/**
 * A finding in a header that is not open, shown on the document's `#include` line that reaches the
 * header, as clangd shows problems "in included file"; the header's location is related information.
 */
export function includedFinding(finding: Finding, includeSite: Range): Finding {
  const where = finding.range.file ?? '';
  const name = where.split(/[\\/]/).pop() ?? where;
  return {
    ...finding,
    range: includeSite,
    message: `in included file ${name}:${finding.range.start.line + 1}: ${finding.message}`,
    related: [{ range: finding.range, message: 'the problem is here' }, ...finding.related],
    // Edits of another file cannot be offered from this document's diagnostic.
    fixes: [],
  };
}

/** Reads back the fixes a diagnostic carried, or undefined if the client dropped `data`. */
export function fixesOf(diagnostic: Diagnostic): { fixes: Fix[]; version: number | null } | undefined {
  const data = diagnostic.data as Partial<DiagnosticData> | undefined;
  if (!data || typeof data !== 'object' || !Array.isArray(data.fixes)) return undefined;
  return { fixes: data.fixes, version: typeof data.version === 'number' ? data.version : null };
}

export function toLspTextEdits(fix: Fix): LspTextEdit[] {
  return fix.edits.map((e) => ({ range: toLspRange(e.range), newText: e.newText }));
}

export function toCodeAction(
  fix: Fix,
  diagnostic: Diagnostic,
  uri: string,
  version: number | null,
  documentChanges: boolean,
): CodeAction {
  const edits = toLspTextEdits(fix);
  const edit: WorkspaceEdit = documentChanges
    ? { documentChanges: [{ textDocument: { uri, version }, edits }] }
    : { changes: { [uri]: edits } };
  return {
    title: fix.title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    isPreferred: fix.preferred === true ? true : undefined,
    edit,
  };
}

/**
 * LSP content changes as the engine's. An inverted range (end before start) is read from its
 * earlier end, as vscode-languageserver-textdocument reads it, so a confused client gets the same
 * text either way.
 */
export function toContentChanges(changes: TextDocumentContentChangeEvent[]): ContentChange[] {
  return changes.map((c) => ('range' in c && c.range ? { range: toCoreRange(ordered(c.range)), text: c.text } : { text: c.text }));
}

function ordered(r: LspRange): LspRange {
  const inverted = r.start.line > r.end.line || (r.start.line === r.end.line && r.start.character > r.end.character);
  return inverted ? { start: r.end, end: r.start } : r;
}

/**
 * The text after `changes`, computed without the engine: only for the rare document the engine
 * could not open or update, so that the next attempt starts from the client's text.
 */
export function applyContentChanges(text: string, changes: TextDocumentContentChangeEvent[]): string {
  const doc = TextDocument.create('', '', 0, text);
  TextDocument.update(doc, changes, 1);
  return doc.getText();
}

export function toHover(info: HoverInfo): Hover {
  return { contents: { kind: MarkupKind.Markdown, value: info.markdown }, range: toLspRange(info.range) };
}

export function toDocumentSymbol(s: BarrierSymbol): DocumentSymbol {
  return DocumentSymbol.create(
    s.name,
    s.detail,
    SymbolKind.Variable,
    toLspRange(s.range),
    toLspRange(s.selectionRange),
  );
}

export function toSymbolInformation(s: BarrierSymbol, uri: string): SymbolInformation {
  return SymbolInformation.create(s.name, SymbolKind.Variable, toLspRange(s.range), uri);
}

/** True when two ranges overlap or touch (an empty request range at a diagnostic's edge counts). */
export function rangesTouch(a: LspRange, b: LspRange): boolean {
  return !(before(a.end, b.start) || before(b.end, a.start));
}

function before(p: LspPosition, q: LspPosition): boolean {
  return p.line < q.line || (p.line === q.line && p.character < q.character);
}

/** The path a file: URI names; other schemes (untitled:) stay URIs for the client to resolve. */
export function programOf(uri: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/**
 * Two lenses per launchable kernel, on its first line: `debugCommand` and `addCommand`, each with
 * the derived launch configuration and the document URI as arguments.
 */
export function toCodeLenses(templates: LaunchTemplate[], uri: string, debugCommand: string, addCommand: string): CodeLens[] {
  const lenses: CodeLens[] = [];
  for (const t of templates) {
    if (t.unsupported) continue;
    const range: LspRange = { start: { line: t.line, character: 0 }, end: { line: t.line, character: 0 } };
    const config = launchConfiguration(t, programOf(uri));
    lenses.push({ range, command: { title: 'Debug kernel', command: debugCommand, arguments: [config, uri] } });
    lenses.push({ range, command: { title: 'Add to launch.json', command: addCommand, arguments: [config, uri] } });
  }
  return lenses;
}

/**
 * The lenses above a kernel that `kernelOverviews` summarises (a tilus Script): its autotune space and
 * barriers, peeking at the barriers' allocations (whose hovers show each protocol); and, when it has any,
 * its findings, peeking at them. Each runs `peekCommand` with the document URI, the lens position and the
 * locations (LSP `Location`s).
 */
export function toOverviewLenses(overviews: KernelOverview[], uri: string, peekCommand: string): CodeLens[] {
  const lenses: CodeLens[] = [];
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  for (const o of overviews) {
    const position: LspPosition = { line: o.line, character: 0 };
    const range: LspRange = { start: position, end: position };
    const at = (ranges: Range[]) => ranges.map((r) => ({ uri, range: toLspRange(r) }));
    const space = o.autotune
      ? o.autotune.analysed < o.autotune.combinations
        ? `${o.autotune.analysed} of ${o.autotune.combinations} autotune combinations analysed`
        : `${plural(o.autotune.combinations, 'autotune combination')} analysed`
      : undefined;
    const barriers = plural(o.barriers.length, 'barrier');
    const summary = [space, barriers, ...(o.findings.length ? [] : ['no findings'])].filter(Boolean).join(' · ');
    lenses.push({ range, command: { title: summary, command: peekCommand, arguments: [uri, position, at(o.barriers.map((b) => b.selectionRange))] } });
    if (o.findings.length) {
      const codes = [...new Set(o.findings.map((f) => f.code))].join(', ');
      lenses.push({ range, command: { title: `${plural(o.findings.length, 'finding')} (${codes})`, command: peekCommand, arguments: [uri, position, at(o.findings.map((f) => f.range))] } });
    }
  }
  return lenses;
}
