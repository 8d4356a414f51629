// `phaseflip lint`: argument parsing, running the engine over the files, choosing the exit status.
import * as path from 'node:path';
import {
  type AnalysisResult,
  type Engine,
  type ExplicitFlags,
  type Finding,
  type LintOptions,
  RULE_SETTINGS,
  type RuleSetting,
  findingKey,
  isKnownRule,
  isRuleSetting,
  lintOptionsFor,
  mergeDuplicateFinding,
  projectConfigFor,
} from '../core/index';
import { analyzeTargets } from './analyze-targets';
import { takeCompileFlag } from './compile-args';
import { EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, UsageError } from './errors';
import { type Collected, type LintTarget, collectTargets, lintedFilesInWords, realpathOr } from './files';
import { formatJson } from './format/json';
import { formatSarif } from './format/sarif';
import { formatSummary, formatText } from './format/text';
import type { FileResult, LintRun } from './lint-run';

export type { FileResult, LintRun } from './lint-run';

export const FORMATS = ['text', 'json', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

export interface LintArgs {
  format: Format;
  rules: Record<string, RuleSetting>;
  paths: string[];
  help: boolean;
  /** -I, -D, --compile-commands, --cuda-arch: added to the flags found for each file. */
  compile: ExplicitFlags;
  /** `--notes`: print the information notes on what was not understood (text format). */
  notes: boolean;
}

export function parseLintArgs(argv: readonly string[]): LintArgs {
  const args: LintArgs = { format: 'text', rules: {}, paths: [], help: false, compile: {}, notes: false };
  let onlyPaths = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (onlyPaths || !arg.startsWith('-') || arg === '-') {
      args.paths.push(arg);
      continue;
    }
    if (arg === '--') {
      onlyPaths = true;
      continue;
    }
    if (arg === '-h' || arg === '--help') {
      args.help = true;
      continue;
    }
    if (arg === '--notes') {
      args.notes = true;
      continue;
    }
    const used = takeCompileFlag(argv, i, args.compile);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const takeValue = (): string => {
      if (flag !== arg) return arg.slice(eq + 1);
      const value = argv[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      return value;
    };
    switch (flag) {
      case '-f':
      case '--format': {
        const value = takeValue();
        if (!(FORMATS as readonly string[]).includes(value)) {
          throw new UsageError(`unknown format '${value}': expected one of ${FORMATS.join(', ')}`);
        }
        args.format = value as Format;
        break;
      }
      case '-r':
      case '--rule': {
        const value = takeValue();
        const sep = value.lastIndexOf('=');
        const key = sep > 0 ? value.slice(0, sep) : '';
        const setting = sep > 0 ? value.slice(sep + 1) : '';
        if (!key || !isRuleSetting(setting)) {
          throw new UsageError(`--rule expects ID=SEVERITY with SEVERITY one of ${RULE_SETTINGS.join(', ')}; got '${value}'`);
        }
        if (!isKnownRule(key)) throw new UsageError(`--rule ${value}: no rule with id or code '${key}' (see 'phaseflip rules')`);
        args.rules[key] = setting;
        break;
      }
      default:
        throw new UsageError(`unknown option '${arg}' for 'phaseflip lint'`);
    }
  }
  return args;
}

/**
 * Lints each target as its translation unit. A finding located in a header is reported on the
 * header (listed after the files linted, unless it is one of them), once however many translation
 * units reach it; `range.file` of related locations then holds the path to show.
 */
export function lintTargets(engine: Engine, targets: readonly LintTarget[], options: LintOptions, errors: string[], cwd = process.cwd(), read?: Set<LintTarget>): FileResult[] {
  const files: FileResult[] = [];
  const byPath = new Map<string, FileResult>();
  const seen = new Set<string>();
  const reported = new Map<string, Finding>();
  const shown = (abs: string): string => {
    const rel = path.relative(cwd, abs);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs;
  };
  const resultFor = (abs: string, display: string): FileResult => {
    let r = byPath.get(abs);
    if (!r) {
      r = { path: display, findings: [] };
      byPath.set(abs, r);
      files.push(r);
    }
    return r;
  };
  const record = (abs: string, result: AnalysisResult): void => {
    const own = resultFor(abs, displayOf.get(abs) ?? shown(abs));
    for (const f of result.findings) {
      const file = f.range.file ?? abs;
      const { file: _file, ...range } = f.range;
      const related = f.related.map((r) => {
        const relFile = r.range.file ?? abs;
        const { file: _f, ...relRange } = r.range;
        return { ...r, range: relFile === file ? relRange : { ...relRange, file: shown(relFile) } };
      });
      const shownFinding: Finding = { ...f, range, related };
      // One problem per rule and place, however many translation units (and launch shapes) reach it.
      const key = findingKey({ ...f, range: { ...range, file } });
      const first = reported.get(key);
      if (first) {
        mergeDuplicateFinding(first, shownFinding);
        continue;
      }
      reported.set(key, shownFinding);
      resultFor(file, shown(file)).findings.push(shownFinding);
    }
    for (const n of result.notes ?? []) {
      const key = `note:${n.range.file ?? abs}:${n.range.start.line}:${n.range.start.character}:${n.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      own.notes = [...(own.notes ?? []), n.range.file ? { ...n, range: { ...n.range, file: shown(n.range.file) } } : n];
    }
  };
  const displayOf = new Map<string, string>();
  // Every target read has its entry, even with nothing to report (or when its analysis failed).
  const analysed = analyzeTargets(engine, targets, options, errors, (target, abs) => {
    displayOf.set(abs, target.path);
    resultFor(abs, target.path);
    read?.add(target);
  });
  for (const { abs, result } of analysed) record(abs, result);
  for (const f of files) f.findings.sort(compareFindings);
  // In the order the targets were named, then the headers reached from them.
  const rank = new Map(targets.map((t, i) => [path.resolve(t.path), i]));
  const pathOf = new Map([...byPath].map(([abs, r]) => [r, abs]));
  const order = (r: FileResult): number => rank.get(pathOf.get(r) ?? '') ?? targets.length;
  return files.map((r) => ({ r, k: order(r) })).sort((a, b) => a.k - b.k).map((x) => x.r);
}

export interface Output {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The files `phaseflip lint` reads, found before the engine is loaded: their languages say which front ends it needs. */
export function collectLintTargets(args: LintArgs): Collected {
  if (args.paths.length === 0) throw new UsageError('no paths given: phaseflip lint PATH...');
  return collectTargets(args.paths);
}

/** Lints `collected` (from `collectLintTargets(args)`) with an engine that has their languages' front ends. */
export function runLint(engine: Engine, args: LintArgs, info: { version: string; cwd: string }, collected: Collected): Output {
  const { targets, errors, excluded } = collected;
  const options: LintOptions = lintOptionsFor(args.rules);
  const read = new Set<LintTarget>();
  const files = lintTargets(engine, targets, options, errors, process.cwd(), read);
  // A path that gave nothing to lint is an error: a mistyped or emptied path must not pass CI as "no findings".
  const unreadable = [...errors];
  const linted = [...read].map((t) => realpathOr(t.path));
  for (const arg of args.paths) {
    // A file named explicitly is always read (or its read error is already reported); a directory must hold
    // a file that was linted (whichever argument reached it first).
    const real = realpathOr(arg);
    const under = real.endsWith(path.sep) ? real : real + path.sep;
    // A named file already reported (unreadable, or not of its language: a Python file without tilus) is not reported twice.
    if (linted.some((f) => f === real || f.startsWith(under)) || unreadable.some((e) => e.startsWith(`cannot read ${arg}:`) || e.startsWith(`${arg}: `))) continue;
    const skipped = excluded.get(arg);
    const why = skipped ? `; ${skipped.count} ${skipped.count === 1 ? 'file was' : 'files were'} left out by the exclude patterns of ${[...skipped.configs].join(', ')}` : '';
    errors.push(`found nothing to lint in ${arg}: looked for ${lintedFilesInWords()}${why}`);
  }
  // Problems of the .phaseflip.json files that govern the linted files: each once, the run fails with them.
  const configs = new Map<string, string[]>();
  for (const t of read) {
    const config = projectConfigFor(path.resolve(t.path));
    if (config?.problems.length) configs.set(config.file, config.problems);
  }
  for (const skipped of excluded.values()) {
    for (const file of skipped.configs) {
      const config = projectConfigFor(file);
      if (config?.problems.length) configs.set(config.file, config.problems);
    }
  }
  for (const problems of configs.values()) errors.push(...problems);
  const run: LintRun = { files, errors };

  let stdout: string;
  let stderr = errors.map((e) => `phaseflip: ${e}\n`).join('');
  switch (args.format) {
    case 'json':
      stdout = formatJson(run);
      break;
    case 'sarif':
      stdout = formatSarif(run, info);
      break;
    default:
      stdout = formatText(run, args.notes);
      stderr += formatSummary(run, args.notes);
  }
  const failing = files.some((f) => f.findings.some((x) => x.severity === 'error' || x.severity === 'warning'));
  const exitCode = errors.length > 0 ? EXIT_ERROR : failing ? EXIT_FINDINGS : EXIT_OK;
  return { stdout, stderr, exitCode };
}

function compareFindings(a: Finding, b: Finding): number {
  return (
    a.range.start.line - b.range.start.line ||
    a.range.start.character - b.range.start.character ||
    (a.code < b.code ? -1 : a.code > b.code ? 1 : 0)
  );
}
