// Replays fixed barrier bugs from public history (test/corpus/barrier-history.json): each file is linted
// before and after its fix, and a case is caught when the before version is flagged near the fixed lines
// and the after version is clean there. Runs when PHASEFLIP_HISTORY names a folder of repository mirrors.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeTargets } from '../../cli/analyze-targets';
import { collectTargets } from '../../cli/files';
import { Project, loadEngine } from '../../core/index';

/** An inclusive 1-based line range. */
type LineRange = [number, number];

interface HistoryFile {
  path: string;
  /** The lines the fix changed, in the parent revision. */
  before: LineRange[];
  /** The lines the fix wrote, in the fixing revision. */
  after: LineRange[];
  /**
   * Why this file's part of the fix changes nothing the hardware does (a sync added where one already
   * orders the threads): it must still be clean after the fix, but need not be flagged before.
   */
  defensive?: string;
}

interface HistoryCase {
  id: string;
  /** `owner/name` on GitHub. */
  repo: string;
  fix: string;
  parent: string;
  link: string;
  family: 'phase' | 'bootstrap' | 'commit' | 'count';
  subclass: string;
  summary: string;
  files: HistoryFile[];
  /** Relative to the materialised tree. */
  includeDirs: string[];
  /** The paths of the repository extracted for each revision (the files and their include directories). */
  materialise: string[];
  defines?: string[];
  cudaArch?: number;
  /** Submodule path -> the `owner/name` whose mirror holds the commit the revision's gitlink names. */
  submodules?: Record<string, string>;
}

interface HistoryData {
  /** How many lines either side of a fixed range still count as "near". */
  tolerance: number;
  cases: HistoryCase[];
  notApplicable: { id: string; repo: string; fix: string; reason: string }[];
}

const data = JSON.parse(readFileSync(path.join(__dirname, 'barrier-history.json'), 'utf8')) as HistoryData;
const historyRoot = process.env.PHASEFLIP_HISTORY ? path.resolve(process.env.PHASEFLIP_HISTORY) : undefined;

/** A git directory: bare (HEAD + objects), a snapshot folder holding `repo`, or a checkout holding `.git`. */
function gitDirIn(dir: string): string | undefined {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  if (existsSync(path.join(dir, 'HEAD')) && existsSync(path.join(dir, 'objects'))) return dir;
  for (const inner of ['.git', 'repo']) {
    const found = gitDirIn(path.join(dir, inner));
    if (found) return found;
  }
  return undefined;
}

/** Where a repository's mirror lies under the history folder: `owner+name`, `owner/name` or `name`. */
function mirrorOf(repo: string): string | undefined {
  const [owner, name] = repo.split('/');
  for (const folder of [`${owner}+${name}`, path.join(owner, name), name]) {
    const found = gitDirIn(path.join(historyRoot!, folder));
    if (found) return found;
  }
  return undefined;
}

function git(gitDir: string, args: string[]): string {
  // stderr is kept: a snapshot mirror lacks its largest blobs, which `ls-tree` complains about harmlessly.
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Extracts `paths` (those present) of `rev` into `into` with git archive; throws if the revision is not there. */
function extract(gitDir: string, rev: string, paths: string[], into: string): void {
  git(gitDir, ['cat-file', '-e', `${rev}^{commit}`]);
  const present = paths.filter((p) => git(gitDir, ['ls-tree', rev, '--', p]).trim() !== '');
  if (!present.length) throw new Error(`none of ${paths.join(', ')} exists at ${rev}`);
  mkdirSync(into, { recursive: true });
  const tar = path.join(into, '.revision.tar');
  git(gitDir, ['archive', `--output=${tar}`, rev, '--', ...present]);
  execFileSync('tar', ['-xf', tar, '-C', into]);
  rmSync(tar);
}

/** Materialises one revision of a case, its submodules from their own mirrors at the commit the gitlink names. */
function materialise(c: HistoryCase, gitDir: string, rev: string, into: string, notes: string[]): void {
  const own = c.materialise.filter((p) => !Object.keys(c.submodules ?? {}).some((s) => p === s || p.startsWith(`${s}/`)));
  extract(gitDir, rev, own, into);
  for (const [sub, repo] of Object.entries(c.submodules ?? {})) {
    const link = /^160000 commit ([0-9a-f]{40})\t/.exec(git(gitDir, ['ls-tree', rev, '--', sub]))?.[1];
    const subDir = mirrorOf(repo);
    if (!link || !subDir) throw new Error(`submodule ${sub} of ${c.repo}@${rev.slice(0, 10)}: ${link ? `no mirror of ${repo}` : 'no gitlink'}`);
    const wanted = c.materialise.filter((p) => p.startsWith(`${sub}/`)).map((p) => p.slice(sub.length + 1));
    let commit = link;
    try {
      git(subDir, ['cat-file', '-e', `${link}^{commit}`]);
    } catch {
      commit = 'HEAD';
      notes.push(`${c.id}: ${repo}@${link.slice(0, 10)} is not in its mirror; ${sub} taken from HEAD`);
    }
    extract(subDir, commit, wanted.length ? wanted : ['.'], path.join(into, sub));
  }
}

interface RevisionLint {
  /** Warnings and errors per fixed file (relative path). */
  findings: Map<string, { line: number; code: string }[]>;
  /** Kernels seen in the fixed files, and how many of them were fully understood: shows the lint really read them. */
  kernels: number;
  understood: number;
  syntaxProblems: number;
}

/** Lints each fixed file as its own translation unit in `root`. */
async function lintRevision(c: HistoryCase, root: string, errors: string[]): Promise<RevisionLint> {
  const includeDirs = c.includeDirs.map((d) => path.join(root, d)).filter((d) => existsSync(d));
  const engine = await loadEngine({ project: new Project({ explicit: { includeDirs, defines: c.defines, cudaArch: c.cudaArch } }) });
  const files = c.files.map((f) => path.join(root, f.path));
  for (const f of files) if (!existsSync(f)) errors.push(`${c.id}: ${path.relative(root, f)} missing from the materialised revision`);
  const { targets, errors: collectErrors } = collectTargets(files.filter((f) => existsSync(f)));
  errors.push(...collectErrors.map((e) => `${c.id}: ${e}`));
  const byFile = new Map<string, { line: number; code: string }[]>(c.files.map((f) => [f.path, []]));
  const lint: RevisionLint = { findings: byFile, kernels: 0, understood: 0, syntaxProblems: 0 };
  for (const { abs, result } of analyzeTargets(engine, targets, {}, errors)) {
    await new Promise((resolve) => setImmediate(resolve));
    lint.syntaxProblems += result.syntaxProblems.length;
    for (const k of result.kernels ?? []) {
      if (!byFile.has(path.relative(root, k.range.file ?? abs))) continue;
      lint.kernels++;
      if (k.notUnderstood === 0) lint.understood++;
    }
    for (const f of result.findings) {
      if (f.severity !== 'error' && f.severity !== 'warning') continue;
      const rel = path.relative(root, f.range.file ?? abs);
      byFile.get(rel)?.push({ line: f.range.start.line + 1, code: f.code });
    }
  }
  return lint;
}

const near = (line: number, ranges: LineRange[]): boolean => ranges.some(([s, e]) => line >= s - data.tolerance && line <= e + data.tolerance);

interface Row {
  id: string;
  cls: string;
  /** Kernels in the fixed files before the fix (fully understood), and syntax problems. */
  coverage: string;
  flaggedBefore: string;
  cleanAfter: string;
  caught: boolean;
}

const rows: Row[] = [];

function printTable(): void {
  if (!rows.length) return;
  const header = ['case', 'class', 'kernels (understood), syntax', 'before flagged near fix', 'after clean there', 'caught'];
  const cells = rows.map((r) => [r.id, r.cls, r.coverage, r.flaggedBefore, r.cleanAfter, r.caught ? 'yes' : 'no']);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]): string => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  const caught = rows.filter((r) => r.caught).length;
  console.log(
    [
      line(header),
      `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
      ...cells.map(line),
      '',
      `barrier history: caught ${caught}/${rows.length} (${data.cases.length} cases recorded, ${data.notApplicable.length} not applicable: ${data.notApplicable.map((n) => n.id).join(', ')})`,
    ].join('\n'),
  );
}

describe('barrier-history data', () => {
  it('names every case by exact commits and gives each fixed file its ranges', () => {
    const ids = new Set<string>();
    for (const c of data.cases) {
      expect(ids.has(c.id), c.id).toBe(false);
      ids.add(c.id);
      expect(c.fix).toMatch(/^[0-9a-f]{40}$/);
      expect(c.parent).toMatch(/^[0-9a-f]{40}$/);
      expect(['phase', 'bootstrap', 'commit', 'count']).toContain(c.family);
      expect(c.files.length).toBeGreaterThan(0);
      for (const f of c.files) {
        expect(f.before.length, `${c.id} ${f.path}`).toBeGreaterThan(0);
        for (const [s, e] of [...f.before, ...f.after]) expect(s <= e && s > 0, `${c.id} ${f.path}`).toBe(true);
        expect(c.materialise.some((m) => f.path === m || f.path.startsWith(`${m}/`)), `${c.id}: ${f.path} is materialised`).toBe(true);
      }
    }
  });
});

describe.skipIf(!historyRoot)('barrier bugs from public history, before and after their fix', () => {
  afterAll(printTable);
  for (const c of data.cases) {
    const gitDir = historyRoot ? mirrorOf(c.repo) : undefined;
    if (historyRoot && !gitDir) console.log(`barrier-history: ${c.id} skipped: no mirror of ${c.repo} under ${historyRoot} (${c.repo.replace('/', '+')}, ${c.repo} or ${c.repo.split('/')[1]})`);
    it.skipIf(!gitDir)(`${c.id} (${c.family}: ${c.subclass})`, async () => {
      const work = mkdtempSync(path.join(tmpdir(), `phaseflip-history-${c.id}-`));
      const errors: string[] = [];
      const notes: string[] = [];
      try {
        materialise(c, gitDir!, c.parent, path.join(work, 'before'), notes);
        materialise(c, gitDir!, c.fix, path.join(work, 'after'), notes);
        const before = await lintRevision(c, path.join(work, 'before'), errors);
        const after = await lintRevision(c, path.join(work, 'after'), errors);
        const flagged: string[] = [];
        const stillFlagged: string[] = [];
        let caught = true;
        for (const f of c.files) {
          const hitsBefore = (before.findings.get(f.path) ?? []).filter((h) => near(h.line, f.before));
          const hitsAfter = (after.findings.get(f.path) ?? []).filter((h) => near(h.line, f.after));
          flagged.push(...hitsBefore.map((h) => `${path.basename(f.path)}:${h.line} ${h.code}`));
          stillFlagged.push(...hitsAfter.map((h) => `${path.basename(f.path)}:${h.line} ${h.code}`));
          caught &&= (hitsBefore.length > 0 || !!f.defensive) && hitsAfter.length === 0;
        }
        rows.push({
          id: c.id,
          cls: c.family,
          coverage: `${before.kernels} (${before.understood}), ${before.syntaxProblems}`,
          flaggedBefore: flagged.length ? `yes (${[...new Set(flagged)].join(', ')})` : 'no',
          cleanAfter: stillFlagged.length ? `no (${[...new Set(stillFlagged)].join(', ')})` : 'yes',
          caught,
        });
        for (const n of notes) console.log(`barrier-history: ${n}`);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
      // Uncaught cases are the issue's work, not a failure; internal errors and missing files are.
      expect(errors).toEqual([]);
    }, 300_000);
  }
});

if (!historyRoot) {
  console.log('barrier-history test skipped: set PHASEFLIP_HISTORY to a folder holding git mirrors of the repositories in test/corpus/barrier-history.json (see test/corpus/README.md)');
}
