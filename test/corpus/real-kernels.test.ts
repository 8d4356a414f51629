// Real code in place: each repository of the corpus table is linted the way a user would lint it,
// every file as its translation unit with the repository's include directories, and must lint clean
// (no syntax error; warnings only on the allow-listed files). Prints how many kernels were fully
// understood. Runs when PHASEFLIP_CORPUS names a folder of checkouts (test/corpus/README.md).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeTargets } from '../../cli/analyze-targets';
import { collectTargets } from '../../cli/files';
import { Project, loadEngine } from '../../core/index';

const corpus = process.env.PHASEFLIP_CORPUS ? path.resolve(process.env.PHASEFLIP_CORPUS) : undefined;

interface CorpusRepo {
  /** Folder under PHASEFLIP_CORPUS (the repository's checkout). */
  folder: string;
  /** Where it comes from, for the skip message. */
  origin: string;
  /**
   * Include directories relative to the folder, as the repository's build gives them. A library a
   * repository takes as a git submodule is named twice: the submodule, and the sibling checkout that
   * stands in for it when the submodule is not checked out (a directory that does not exist is ignored).
   */
  includeDirs: string[];
  /** `-D` flags of the repository's build. */
  defines?: string[];
  /**
   * The compile database the repository's build would give (`bear -- make`), for a build that sets flags
   * per kernel: ThunderKittens' Makefiles pick each kernel's GPU, and with it its architecture's helpers.
   */
  compileCommands?: (root: string) => CompileCommand[];
  /** What is linted, relative to the folder; a trailing `*` in the last segment matches a name prefix. */
  lint: string[];
}

interface CompileCommand {
  directory: string;
  file: string;
  arguments: string[];
}

/** What ThunderKittens' kernels/common.mk adds for each `GPU :=` a kernel's Makefile names. */
const THUNDERKITTENS_GPU_FLAGS: Record<string, string[]> = {
  H100: ['-DKITTENS_HOPPER', '-gencode', 'arch=compute_90a,code=sm_90a'],
  B200: ['-DKITTENS_BLACKWELL', '-gencode', 'arch=compute_100a,code=sm_100a'],
  B300: ['-DKITTENS_BLACKWELL', '-gencode', 'arch=compute_103a,code=sm_103a'],
  A100: ['-DKITTENS_AMPERE', '-gencode', 'arch=compute_80,code=sm_80'],
};

/** One entry per `SRC :=` of each kernels/** /Makefile, with the flags of its `GPU :=`. */
function thunderKittensCommands(root: string): CompileCommand[] {
  const out: CompileCommand[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'Makefile') {
        // `SRC := level_$(LEVEL).cu`: the Makefile's own variables expanded.
        const raw = readFileSync(p, 'utf8');
        const vars = new Map([...raw.matchAll(/^(\w+)\s*:?=\s*(\S*)\s*$/gm)].map((m) => [m[1], m[2]] as [string, string]));
        const make = raw.replace(/\$\((\w+)\)/g, (whole, name: string) => vars.get(name) ?? whole);
        const gpu = /^GPU\s*:?=\s*(\w+)/m.exec(make)?.[1];
        const sources = /^SRC\s*:?=\s*(.+)$/m.exec(make)?.[1].trim().split(/\s+/) ?? [];
        const flags = gpu ? THUNDERKITTENS_GPU_FLAGS[gpu] : undefined;
        if (!flags) continue;
        for (const src of sources) out.push({ directory: dir, file: path.join(dir, src), arguments: ['nvcc', '-std=c++20', ...flags, `-I${root}/include`, `-I${root}/prototype`, '-c', src] });
      }
    }
  };
  if (existsSync(path.join(root, 'kernels'))) walk(path.join(root, 'kernels'));
  return out;
}

/** The repositories and paths of issue 12's acceptance. */
const REPOS: CorpusRepo[] = [
  { folder: 'DeepGEMM', origin: 'github.com/deepseek-ai/DeepGEMM', includeDirs: ['deep_gemm/include', 'third-party/cutlass/include', '../cutlass/include'], lint: ['deep_gemm/include'] },
  {
    folder: 'cutlass',
    origin: 'github.com/NVIDIA/cutlass',
    includeDirs: ['include', 'examples/common', 'tools/util/include'],
    lint: ['examples/cute/tutorial', 'include/cutlass/pipeline', 'include/cutlass/gemm/kernel/sm90_*'],
  },
  // Each kernel with the flags its Makefile gives (Hopper or Blackwell); headers borrow a kernel's.
  { folder: 'ThunderKittens', origin: 'github.com/HazyResearch/ThunderKittens', includeDirs: ['include', 'prototype'], compileCommands: thunderKittensCommands, lint: ['include', 'kernels'] },
  { folder: 'flash-attention', origin: 'github.com/Dao-AILab/flash-attention (hopper/ is enough)', includeDirs: ['hopper', 'csrc/cutlass/include', '../cutlass/include'], lint: ['hopper'] },
  { folder: 'cccl', origin: 'github.com/NVIDIA/cccl (libcudacxx/include and cub/ are enough)', includeDirs: ['libcudacxx/include', 'cub', 'thrust'], lint: ['libcudacxx/include/cuda', 'cub/cub'] },
  // DeepEP's kernels moved from csrc/kernels to deep_ep/include/deep_ep/impls: both are linted.
  { folder: 'DeepEP', origin: 'github.com/deepseek-ai/DeepEP', includeDirs: ['csrc', 'deep_ep/include', '../DeepGEMM/deep_gemm/include', '../cutlass/include'], lint: ['csrc', 'deep_ep/include'] },
];

/**
 * Files allowed to carry a warning or an error, with the reason (a real bug, or a warning that is
 * justified on this code): at most 3, each explained in test/corpus/README.md. Keyed `folder/path`.
 */
const ALLOWED_FINDINGS = new Map<string, string>([]);

/** A kernel's coverage over every translation unit that analysed it. */
interface KernelSeen {
  repo: string;
  barrierOps: number;
  understood: boolean;
}

interface RepoSummary {
  repo: string;
  files: number;
  units: number;
  headers: number;
  kernels: number;
  withBarriers: number;
  fully: number;
  partly: number;
  syntaxErrors: number;
  findings: number;
  includesNotFound: number;
  ms: number;
}

const summaries: RepoSummary[] = [];
/** Every unresolved-helper note: callee -> kernels (`file:line:name`) it was seen in, per repository. */
const unresolved = new Map<string, { repos: Set<string>; kernels: Set<string>; why: Map<string, number> }>();

function expandLintPaths(root: string, entries: string[]): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    if (!entry.endsWith('*')) {
      out.push(path.join(root, entry));
      continue;
    }
    const dir = path.join(root, path.dirname(entry));
    const prefix = path.basename(entry).slice(0, -1);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) if (name.startsWith(prefix)) out.push(path.join(dir, name));
  }
  return out;
}

const NOTE_CALL = /^not understood in kernel '.*?': '(.*?)' \((.*)\); barrier findings/;

/** Lints one repository in place; returns its problems (syntax errors, unexpected findings) as lines. */
async function lintRepo(repo: CorpusRepo): Promise<string[]> {
  const root = path.join(corpus!, repo.folder);
  const started = Date.now();
  const includeDirs = repo.includeDirs.map((d) => path.resolve(root, d)).filter((d) => existsSync(d));
  const database = repo.compileCommands ? mkdtempSync(path.join(tmpdir(), 'phaseflip-corpus-')) : undefined;
  if (database) writeFileSync(path.join(database, 'compile_commands.json'), JSON.stringify(repo.compileCommands!(root), null, 1));
  const explicit = { includeDirs, defines: repo.defines, ...(database ? { compileCommands: path.join(database, 'compile_commands.json') } : {}) };
  try {
    return await lintWith(repo, root, started, await loadEngine({ project: new Project({ explicit }) }));
  } finally {
    if (database) rmSync(database, { recursive: true, force: true });
  }
}

async function lintWith(repo: CorpusRepo, root: string, started: number, engine: Awaited<ReturnType<typeof loadEngine>>): Promise<string[]> {
  const lintPaths = expandLintPaths(root, repo.lint).filter((p) => existsSync(p));
  const { targets, errors } = collectTargets(lintPaths);
  const problems: string[] = errors.map((e) => `${repo.folder}: ${e}`);
  const rel = (abs: string): string => `${repo.folder}/${path.relative(root, abs)}`;
  const kernels = new Map<string, KernelSeen>();
  const headers = new Set<string>();
  const flagged = new Set<string>();
  const seenFindings = new Set<string>();
  const summary: RepoSummary = { repo: repo.folder, files: targets.length, units: 0, headers: 0, kernels: 0, withBarriers: 0, fully: 0, partly: 0, syntaxErrors: 0, findings: 0, includesNotFound: 0, ms: 0 };
  const slowest: { file: string; ms: number }[] = [];
  // In the order `phaseflip lint` analyses (a header that fails alone read again inside a file including it).
  const analysisErrors: string[] = [];
  // The event loop runs between translation units: a repository takes minutes, and the test runner's
  // worker must keep answering its runner meanwhile.
  for (const { abs, result, ms } of analyzeTargets(engine, targets, {}, analysisErrors)) {
    await new Promise((resolve) => setImmediate(resolve));
    summary.units++;
    slowest.push({ file: rel(abs), ms });
    for (const d of result.dependencies ?? []) headers.add(d);
    for (const s of result.syntaxProblems) {
      summary.syntaxErrors++;
      problems.push(`${rel(s.range.file ?? abs)}:${s.range.start.line + 1}: syntax: ${s.message}`);
    }
    for (const f of result.findings) {
      if (f.severity !== 'error' && f.severity !== 'warning') continue;
      const file = f.range.file ?? abs;
      const key = `${file}:${f.range.start.line}:${f.range.start.character}:${f.code}`;
      if (seenFindings.has(key)) continue;
      seenFindings.add(key);
      summary.findings++;
      flagged.add(rel(file));
      if (!ALLOWED_FINDINGS.has(rel(file))) problems.push(`${rel(file)}:${f.range.start.line + 1}: ${f.code} ${f.message} (translation unit ${rel(abs)})`);
    }
    for (const n of result.notes ?? []) {
      if (n.kind === 'include-not-found') summary.includesNotFound++;
    }
    for (const k of result.kernels ?? []) {
      const file = k.range.file ?? abs;
      const id = `${rel(file)}:${k.range.start.line + 1}:${k.name}`;
      const seen = kernels.get(id);
      // A kernel analysed from several translation units is fully understood only if it was in each.
      if (seen) {
        seen.understood &&= k.notUnderstood === 0;
        seen.barrierOps = Math.max(seen.barrierOps, k.barrierOps);
      } else kernels.set(id, { repo: repo.folder, barrierOps: k.barrierOps, understood: k.notUnderstood === 0 });
    }
    for (const n of result.notes ?? []) {
      const m = n.kind === 'unresolved-helper' ? NOTE_CALL.exec(n.message) : null;
      if (!m) continue;
      const kernel = /^not understood in kernel '(.*?)'/.exec(n.message)?.[1] ?? '?';
      let entry = unresolved.get(m[1]);
      if (!entry) unresolved.set(m[1], (entry = { repos: new Set(), kernels: new Set(), why: new Map() }));
      entry.repos.add(repo.folder);
      entry.kernels.add(`${rel(abs)}:${kernel}`);
      const why = m[2].replace(/'[^']*'/g, "'…'");
      entry.why.set(why, (entry.why.get(why) ?? 0) + 1);
    }
  }
  problems.push(...analysisErrors.map((e) => `${repo.folder}: ${e}`));
  summary.headers = headers.size;
  summary.kernels = kernels.size;
  for (const k of kernels.values()) {
    if (k.barrierOps > 0 || !k.understood) summary.withBarriers++;
    if (k.understood) summary.fully++;
    else summary.partly++;
  }
  summary.ms = Date.now() - started;
  summaries.push(summary);
  slowest.sort((a, b) => b.ms - a.ms);
  console.log(`${repo.folder}: slowest translation units: ${slowest.slice(0, 3).map((s) => `${s.file} ${s.ms} ms`).join(', ')}`);
  // An allow-listed file that no longer has a finding must leave the list.
  for (const file of ALLOWED_FINDINGS.keys()) if (file.startsWith(`${repo.folder}/`) && !flagged.has(file)) problems.push(`${file} is allow-listed but has no finding any more: remove it from ALLOWED_FINDINGS`);
  return problems;
}

function printSummary(): void {
  if (!summaries.length) return;
  const columns: [string, (s: RepoSummary) => string | number][] = [
    ['repository', (s) => s.repo],
    ['files', (s) => s.files],
    ['TUs', (s) => s.units],
    ['headers read', (s) => s.headers],
    ['kernels', (s) => s.kernels],
    ['with barriers', (s) => s.withBarriers],
    ['fully understood', (s) => s.fully],
    ['partly', (s) => s.partly],
    ['syntax errors', (s) => s.syntaxErrors],
    ['findings', (s) => s.findings],
    ['includes not found', (s) => s.includesNotFound],
    ['time', (s) => `${(s.ms / 1000).toFixed(1)} s`],
  ];
  const total: RepoSummary = { repo: 'total', files: 0, units: 0, headers: 0, kernels: 0, withBarriers: 0, fully: 0, partly: 0, syntaxErrors: 0, findings: 0, includesNotFound: 0, ms: 0 };
  for (const s of summaries) for (const k of Object.keys(total) as (keyof RepoSummary)[]) if (k !== 'repo') (total[k] as number) += s[k] as number;
  const rows = [...summaries, total].map((s) => columns.map(([, get]) => String(get(s))));
  const widths = columns.map(([h], i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => (i ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const out = [line(columns.map(([h]) => h)), `|${widths.map((w, i) => (i ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...rows.map(line)];
  const top = [...unresolved.entries()].sort((a, b) => b[1].kernels.size - a[1].kernels.size || (a[0] < b[0] ? -1 : 1)).slice(0, 15);
  out.push('', 'most common calls not understood (kernels in which each appears):');
  for (const [callee, e] of top) {
    const why = [...e.why.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
    out.push(`  ${String(e.kernels.size).padStart(4)}  ${callee}  [${[...e.repos].join(', ')}]  ${why}`);
  }
  console.log(out.join('\n'));
}

describe.skipIf(!corpus)('real kernels in place, with their include directories', () => {
  afterAll(printSummary);
  for (const repo of REPOS) {
    const present = !!corpus && existsSync(path.join(corpus, repo.folder)) && statSync(path.join(corpus, repo.folder)).isDirectory();
    if (corpus && !present) console.log(`real-kernels: ${repo.folder} skipped: no checkout of ${repo.origin} at ${path.join(corpus, repo.folder)}`);
    it.skipIf(!present)(`${repo.folder}: no syntax error, no finding outside the allow-list`, async () => {
      const problems = await lintRepo(repo);
      expect(problems).toEqual([]);
    }, 900_000);
  }
  it('allows at most 3 flagged files, each with its reason', () => {
    expect(ALLOWED_FINDINGS.size).toBeLessThanOrEqual(3);
    for (const reason of ALLOWED_FINDINGS.values()) expect(reason.length).toBeGreaterThan(20);
  });
});

if (!corpus) {
  console.log('real-kernels corpus test skipped: set PHASEFLIP_CORPUS to a folder holding checkouts of DeepGEMM, cutlass, ThunderKittens, flash-attention, cccl and DeepEP (see test/corpus/README.md)');
}
