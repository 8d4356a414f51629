// Inline suppressions: `// phaseflip-ignore PF401: why` on a finding's line or the line before, and
// `// phaseflip-ignore-file PF202: why` anywhere in a file. Applied once, in the engine, to every analysis
// (the CLI and the language server alike), with the directives of the file each finding lies in (a header's
// own directives suppress its findings). Directives that suppress nothing and directives without a reason are
// reported as findings of their own (PF000, PF001), like ruff's unused `noqa` and ESLint's
// `--report-unused-disable-directives`. Comments are C-style in every language Phaseflip reads (CUDA, Croqtile);
// a `#` comment is read too, for languages that write comments that way.
import type { Finding, Fix, LintOptions, Range, Severity } from './api';
import { ruleByIdOrCode } from './rules/index';
import { byPosition } from './rules/run';

const DOCS_URL = 'https://github.com/phaseflip/phaseflip/blob/main/docs/suppressions.md';

/** The findings about suppression directives: not rules of the IR (they read comments), but tuned like them. */
export interface DirectiveRuleMeta {
  id: string;
  code: string;
  defaultSeverity: Severity;
  summary: string;
}

export const UNUSED_SUPPRESSION: DirectiveRuleMeta = {
  id: 'unused-suppression',
  code: 'PF000',
  defaultSeverity: 'information',
  summary: 'A phaseflip-ignore directive (or one code in it) suppresses no finding: the bug was fixed, the code is wrong, or the line moved.',
};

export const SUPPRESSION_WITHOUT_REASON: DirectiveRuleMeta = {
  id: 'suppression-without-reason',
  code: 'PF001',
  defaultSeverity: 'information',
  summary: 'A phaseflip-ignore directive gives no reason after a colon: the next reader cannot tell a checked exception from a silenced bug.',
};

export const DIRECTIVE_RULES: readonly DirectiveRuleMeta[] = [UNUSED_SUPPRESSION, SUPPRESSION_WITHOUT_REASON];

export function directiveRuleByIdOrCode(key: string): DirectiveRuleMeta | undefined {
  return DIRECTIVE_RULES.find((r) => r.id === key || r.code === key.toUpperCase());
}

/** One rule named in a directive, as written, with where it is written. */
export interface DirectiveCode {
  /** As written: `PF401`, `pf401` or `parity-never-flips`. */
  text: string;
  /** The rule's code, when the name is a rule's code or id. */
  code?: string;
  range: Range;
}

export interface SuppressionDirective {
  kind: 'line' | 'file';
  /** Zero-based line of the comment. */
  line: number;
  /** The lines whose findings it suppresses (kind 'line'): its own, or the next code line when the comment stands alone. */
  target: number;
  codes: DirectiveCode[];
  /** The text after the colon, trimmed; undefined when none is given. */
  reason?: string;
  /** The directive word through the end of the comment. */
  range: Range;
}

const WORD = 'phaseflip-ignore';
const FILE_WORD = 'phaseflip-ignore-file';

/**
 * The comment opener right before `at` in `raw` (blanks between allowed): `//…`, `/*…` or `#`; undefined when the
 * word does not start a comment. Scanned by hand: a regular expression with `\/\/+` backtracks quadratically on a
 * long run of slashes.
 */
function commentOpener(raw: string, at: number): string | undefined {
  let end = at;
  while (end > 0 && (raw[end - 1] === ' ' || raw[end - 1] === '\t')) end--;
  let start = end;
  while (start > 0 && (raw[start - 1] === '/' || raw[start - 1] === '*')) start--;
  const run = raw.slice(start, end);
  if (run.startsWith('//') || run.startsWith('/*')) return run;
  return run === '' && end > 0 && raw[end - 1] === '#' ? '#' : undefined;
}

/** The suppression directives of a file's text, in order. Never throws. */
export function parseSuppressions(text: string): SuppressionDirective[] {
  if (!text.includes(WORD)) return [];
  const lines = text.split('\n');
  const out: SuppressionDirective[] = [];
  for (let line = 0; line < lines.length; line++) {
    const raw = lines[line]!.endsWith('\r') ? lines[line]!.slice(0, -1) : lines[line]!;
    for (let wordStart = raw.indexOf(WORD); wordStart >= 0; wordStart = raw.indexOf(WORD, wordStart + WORD.length)) {
      const opener = commentOpener(raw, wordStart);
      if (opener === undefined) continue;
      const word = raw.startsWith(FILE_WORD, wordStart) ? FILE_WORD : WORD;
      const after = raw[wordStart + word.length];
      if (after !== undefined && /[\w-]/.test(after)) continue;
      const restStart = wordStart + word.length;
      let rest = raw.slice(restStart);
      // A block comment ends the directive where it closes.
      if (opener.startsWith('/*')) {
        const close = rest.indexOf('*/');
        if (close >= 0) rest = rest.slice(0, close);
      }
      const colon = rest.indexOf(':');
      const list = colon < 0 ? rest : rest.slice(0, colon);
      const reason = colon < 0 ? undefined : rest.slice(colon + 1).trim() || undefined;
      const codes: DirectiveCode[] = [];
      for (const c of list.matchAll(/[A-Za-z][\w-]*/g)) {
        const start = restStart + c.index!;
        const name = c[0];
        const code = ruleByIdOrCode(name)?.meta.code ?? ruleByIdOrCode(name.toUpperCase())?.meta.code ?? directiveRuleByIdOrCode(name)?.code;
        codes.push({ text: name, ...(code ? { code } : {}), range: lineRange(line, start, start + name.length) });
      }
      const kind = word === FILE_WORD ? 'file' : 'line';
      const standsAlone = raw.slice(0, wordStart).replace(/[/*#]/g, '').trim() === '';
      out.push({
        kind,
        line,
        target: kind === 'line' && standsAlone ? nextCodeLine(lines, line) : line,
        codes,
        ...(reason !== undefined ? { reason } : {}),
        range: lineRange(line, wordStart, restStart + rest.trimEnd().length),
      });
      // One directive per comment: what follows belongs to it.
      break;
    }
  }
  return out;
}

/** The first line after `line` that is not blank-free comment-only (a stack of directive comments covers the code below it). */
function nextCodeLine(lines: readonly string[], line: number): number {
  for (let l = line + 1; l < lines.length; l++) {
    const t = lines[l]!.trim();
    if (!(t.startsWith('//') || (t.startsWith('#') && t.includes('phaseflip-ignore')))) return l;
  }
  return line + 1;
}

function lineRange(line: number, start: number, end: number): Range {
  return { start: { line, character: start }, end: { line, character: end } };
}

export interface SuppressionInput {
  findings: readonly Finding[];
  /** The analysed document's text: its directives suppress its own findings, and are checked for use. */
  text: string;
  /** The document's path, when it has one: a finding whose `range.file` is this path is the document's own. */
  path?: string;
  /** The current text of another file of the translation unit (a header), for the directives in it. */
  readFile?: (file: string) => string | undefined;
  options?: LintOptions;
  /**
   * Whether the document's directives that suppress nothing are reported (PF000): true for a translation unit's
   * own file; false for a header, whose directives may serve another file that includes it.
   */
  reportUnused?: boolean;
}

/**
 * The findings no directive suppresses, followed by the findings about the document's own directives:
 * a code that suppressed nothing (PF000, unless `reportUnused` is false) and a directive without a reason
 * (PF001). Directives in the headers of the translation unit suppress the headers' findings.
 */
export function applySuppressions(input: SuppressionInput): Finding[] {
  const own = parseSuppressions(input.text);
  if (own.length === 0 && !input.findings.some((f) => f.range.file !== undefined && f.range.file !== input.path)) return [...input.findings];
  const byFile = new Map<string, SuppressionDirective[]>();
  const directivesOf = (file: string | undefined): SuppressionDirective[] => {
    if (file === undefined || file === input.path) return own;
    let list = byFile.get(file);
    if (!list) {
      let text: string | undefined;
      try {
        text = input.readFile?.(file);
      } catch {
        text = undefined;
      }
      byFile.set(file, (list = text === undefined ? [] : parseSuppressions(text)));
    }
    return list;
  };
  const used = new Set<DirectiveCode>();
  const kept: Finding[] = [];
  for (const f of input.findings) {
    const line = f.range.start.line;
    let suppressed = false;
    for (const d of directivesOf(f.range.file)) {
      if (d.kind === 'line' && d.line !== line && d.target !== line) continue;
      for (const c of d.codes) {
        if (c.code !== f.code) continue;
        used.add(c);
        suppressed = true;
      }
    }
    if (!suppressed) kept.push(f);
  }
  const severity = (meta: DirectiveRuleMeta | { id: string; code: string; defaultSeverity: Severity }): Severity | 'off' =>
    input.options?.rules?.[meta.id] ?? input.options?.rules?.[meta.code] ?? meta.defaultSeverity;
  const unusedSeverity = input.reportUnused === false ? 'off' : severity(UNUSED_SUPPRESSION);
  const reasonSeverity = severity(SUPPRESSION_WITHOUT_REASON);
  const reports: Finding[] = [];
  for (const d of own) {
    const directive = d.kind === 'file' ? 'phaseflip-ignore-file' : 'phaseflip-ignore';
    if (unusedSeverity !== 'off') {
      if (d.codes.length === 0) {
        reports.push(directiveFinding(UNUSED_SUPPRESSION, unusedSeverity, d.range, `${directive} names no rule, so it suppresses nothing: write the code and why, e.g. \`// ${directive} PF401: elected lane per warp\``));
      }
      for (const c of d.codes) {
        if (used.has(c)) continue;
        if (!c.code) {
          reports.push(directiveFinding(UNUSED_SUPPRESSION, unusedSeverity, c.range, `'${c.text}' is no Phaseflip rule code or id ('phaseflip rules' lists them), so it suppresses nothing`));
          continue;
        }
        // A rule turned off cannot report here: the directive is not known to be stale.
        const rule = ruleByIdOrCode(c.code);
        const ruleMeta = rule?.meta ?? directiveRuleByIdOrCode(c.code);
        if (ruleMeta && severity(ruleMeta) === 'off') continue;
        const where = d.kind === 'file' ? 'in this file' : d.target === d.line ? `on line ${d.line + 1}` : `on line ${d.line + 1} or ${d.target + 1}`;
        reports.push(directiveFinding(UNUSED_SUPPRESSION, unusedSeverity, c.range, `${directive} ${c.text} suppresses nothing: there is no ${c.code} finding ${where}; remove it`));
      }
    }
    if (reasonSeverity !== 'off' && d.reason === undefined && d.codes.length > 0) {
      reports.push(directiveFinding(SUPPRESSION_WITHOUT_REASON, reasonSeverity, d.range, `${directive} gives no reason: say why the finding does not apply after a colon, e.g. \`${directive} ${d.codes.map((c) => c.text).join(', ')}: elected lane per warp\``));
    }
  }
  return reports.length ? [...kept, ...reports].sort(byPosition) : kept;
}

function directiveFinding(meta: DirectiveRuleMeta, severity: Severity, range: Range, message: string): Finding {
  return { code: meta.code, ruleId: meta.id, family: 'suppression', severity, message, range, related: [], docsUrl: `${DOCS_URL}#${meta.id}`, fixes: [] };
}

/**
 * The quick fix that suppresses `finding` where it is reported: the code added to a directive standing on the line
 * before, else a new `// phaseflip-ignore CODE: ` line (`#` in Python: `comment`) above with the line's indentation. The reason is left for
 * the user to write after the colon (until then, PF001 says so). `lines` is the document's text split at `\n`.
 * Undefined for the directives' own findings and for a finding outside the document (another file's).
 */
export function suppressionFix(lines: readonly string[], finding: Finding, comment = '//'): Fix | undefined {
  if (finding.range.file !== undefined || DIRECTIVE_RULES.some((d) => d.code === finding.code)) return undefined;
  const line = finding.range.start.line;
  const target = lines[line];
  if (target === undefined) return undefined;
  const title = `Suppress ${finding.code} on this line (${comment} phaseflip-ignore)`;
  const above = line > 0 ? parseSuppressions(lines[line - 1]!).find((d) => d.kind === 'line') : undefined;
  if (above && lines[line - 1]!.trim().startsWith(comment) && !above.codes.some((c) => c.code === finding.code)) {
    const last = above.codes[above.codes.length - 1];
    const at = { line: line - 1, character: last ? last.range.end.character : above.range.start.character + 'phaseflip-ignore'.length };
    return { title, edits: [{ range: { start: at, end: at }, newText: last ? `, ${finding.code}` : ` ${finding.code}` }] };
  }
  const indent = /^[ \t]*/.exec(target)![0];
  const start = { line, character: 0 };
  return { title, edits: [{ range: { start, end: start }, newText: `${indent}${comment} phaseflip-ignore ${finding.code}: \n` }] };
}
