// Corpus test for the Croqtile parser. With PHASEFLIP_CROQTILE_REPO pointing at a compiler checkout (e.g.
// /work/corpus/croqtile), every `.co` file under it is parsed; files the compiler accepts must parse with zero
// errors. Files whose RUN/CHECK lines say they are not parsed by the compiler, or expect a parse-time error, are
// excluded and listed with the reason. PHASEFLIP_CROQTILE_EXTRA (paths joined by ':') adds corpora (older compiler
// snapshots, the tuner kernels) whose rates are reported; there only a floor is asserted, since they hold
// unfinished kernels (merge-conflict markers, typos) with no RUN lines to tell them apart.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCroqtile } from '../../../core/lang/croqtile/parser';
import { makeLineIndex } from '../../../core/lang/croqtile/positions';

const REPO = process.env.PHASEFLIP_CROQTILE_REPO;
const EXTRA = (process.env.PHASEFLIP_CROQTILE_EXTRA ?? '').split(':').filter((p) => p.length > 0);
/** Error-free rate required on the extra corpora. */
const EXTRA_FLOOR = 0.99;

function coFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === '.git' || name === 'node_modules') continue;
    const p = path.join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) coFiles(p, out);
    else if (name.endsWith('.co')) out.push(p);
  }
  return out.sort();
}

/** Diagnostics the compiler emits while scanning/parsing (lib/scanner.l, lib/parser.yy, copp). */
const PARSE_TIME_ERRORS: RegExp[] = [
  /syntax error/,
  /Parsing failed/,
  /no ituple array is allowed/,
  /an ituple must be initialized/,
  /must use '[^']*' (?:to|for)/,
  /missing '#endif'/,
  /missing '\}'/,
  /'else' without a previous 'if'/,
  /event initializer must be 'ready'/,
  /invalid __asm__ syntax/,
  /__asm__ goto is not supported/,
  /unexpected character/,
  /literal '[^']*' out of range/,
  /only 'cluster' scope is supported for trigger/,
];

/**
 * Why a file is not expected to parse, judged only from its RUN/CHECK/XFAIL lines (never from our result), or
 * undefined when the compiler accepts it. `tests/parse/removed_*.co` hold era-A/B forms that HEAD rejects with a
 * syntax error; Phaseflip accepts the union of the eras, so those stay in.
 */
export function exclusionReason(text: string, file = ''): string | undefined {
  if (/^removed_/.test(path.basename(file))) return undefined;
  const lines = text.split('\n');
  if (lines.some((l) => /\/\/\s*XFAIL:/.test(l))) return 'marked XFAIL (expected to fail)';
  const runs = lines.filter((l) => /\/\/\s*RUN:/.test(l));
  if (runs.length > 0 && runs.every((r) => /\bcopp\b/.test(r) || /\s-E\b/.test(r))) {
    return 'preprocessor-only test (copp / choreo -E): the compiler never parses its __co__ code';
  }
  const checks = lines.filter((l) => /\/\/\s*CHECK(?!-NOT)[\w-]*(?:\{LITERAL\})?:/.test(l));
  for (const c of checks) {
    const re = PARSE_TIME_ERRORS.find((r) => r.test(c));
    if (re) return `expects the parse-time error "${re.exec(c)![0]}"`;
  }
  if (checks.some((c) => /error:\s*$/.test(c))) return 'expects an unspecified compile error (bare "error:" check)';
  return undefined;
}

interface CorpusReport {
  total: number;
  clean: number;
  included: number;
  includedClean: number;
  failures: string[];
  exclusions: string[];
}

function runCorpus(root: string): CorpusReport {
  const report: CorpusReport = { total: 0, clean: 0, included: 0, includedClean: 0, failures: [], exclusions: [] };
  for (const file of coFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const rel = path.relative(root, file);
    const parsed = parseCroqtile(text);
    const ok = parsed.errors.length === 0;
    report.total++;
    if (ok) report.clean++;
    const why = exclusionReason(text, rel);
    if (why) {
      report.exclusions.push(`${rel}: ${why}${ok ? ' (parses cleanly anyway)' : ''}`);
      continue;
    }
    report.included++;
    if (ok) report.includedClean++;
    else {
      const e = parsed.errors[0]!;
      const pos = makeLineIndex(text).position(e.span.start);
      report.failures.push(`${rel}:${pos.line + 1}:${pos.character + 1}: ${e.message}${parsed.errors.length > 1 ? ` (+${parsed.errors.length - 1} more)` : ''}`);
    }
  }
  return report;
}

function print(root: string, r: CorpusReport): void {
  const pct = (a: number, b: number) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(2)}%`);
  const lines = [
    `croqtile corpus ${root}`,
    `  all files:      ${r.clean}/${r.total} parse with zero errors (${pct(r.clean, r.total)})`,
    `  accepted files: ${r.includedClean}/${r.included} (${pct(r.includedClean, r.included)}); ${r.exclusions.length} excluded`,
  ];
  if (r.failures.length) lines.push('  failures:', ...r.failures.map((f) => `    ${f}`));
  if (r.exclusions.length) lines.push('  excluded:', ...r.exclusions.map((f) => `    ${f}`));
  console.log(lines.join('\n'));
}

describe('croqtile parser corpus', () => {
  if (!REPO) {
    it('is skipped without PHASEFLIP_CROQTILE_REPO', () => {
      console.log('croqtile corpus test skipped: set PHASEFLIP_CROQTILE_REPO to a Croqtile compiler checkout (e.g. /work/corpus/croqtile) to parse all of its .co files; PHASEFLIP_CROQTILE_EXTRA=dir1:dir2 adds more corpora.');
    });
  } else {
    it(`parses every .co file the compiler accepts under ${REPO}`, { timeout: 300_000 }, () => {
      const r = runCorpus(REPO);
      print(REPO, r);
      expect(r.total).toBeGreaterThan(0);
      expect(r.failures).toEqual([]);
    });
  }
  for (const root of EXTRA) {
    it(`reports the parse rate of ${root}`, { timeout: 300_000 }, () => {
      const r = runCorpus(root);
      print(root, r);
      expect(r.total).toBeGreaterThan(0);
      expect(r.includedClean / r.included).toBeGreaterThanOrEqual(EXTRA_FLOOR);
    });
  }

  it('classifies exclusions from RUN/CHECK lines', () => {
    expect(exclusionReason('// RUN: not choreo %s 2>&1 | FileCheck %s\n// CHECK: error: syntax error, unexpected [\n')).toBe('expects the parse-time error "syntax error"');
    expect(exclusionReason('// RUN: choreo -E %s | FileCheck %s\n')).toMatch(/preprocessor-only/);
    expect(exclusionReason('// RUN: copp %s -o - | FileCheck %s\n')).toMatch(/preprocessor-only/);
    expect(exclusionReason('// RUN: choreo -e %s\n// XFAIL: *\n')).toMatch(/XFAIL/);
    expect(exclusionReason('// RUN: choreo -gs %s 2>&1 | FileCheck %s\n// CHECK: error:\n')).toMatch(/unspecified/);
    // Semantic errors are not parse errors: the file must still parse.
    expect(exclusionReason('// RUN: not choreo %s\n// CHECK: error: symbol `f\' has been declared already.\n')).toBeUndefined();
    expect(exclusionReason('// RUN: choreo -e %s\n// CHECK-NOT: syntax error\n')).toBeUndefined();
    expect(exclusionReason('// RUN: not choreo -e %s\n// CHECK: error: syntax error\n', 'tests/parse/removed_mma_wait.co')).toBeUndefined();
  });
});
