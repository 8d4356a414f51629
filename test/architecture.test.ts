// Enforces the invariants stated in ARCHITECTURE.md: which folder may import which, no import cycles,
// languages as plug-ins, file sizes and names. The import graph is read from the sources (relative
// `import`/`export … from` specifiers, type-only imports included: a type dependency is a dependency).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEngine } from './helpers/engine';

const root = path.join(__dirname, '..');
const FACES = ['cli', 'server', 'debugger', 'client'];
// entry/ is the composition root of the `phaseflip` command: the one place that may import several faces.
const SOURCE_DIRS = ['core', ...FACES, 'entry'];

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir))) {
    const rel = path.posix.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...tsFiles(rel));
    else if (name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]*?\s+from\s+)?['"]([^'"]+)['"]/g;
/** `import('./x')`: a module loaded on first use, and `import('./x').T` in a type: dependencies like any other. */
const DYNAMIC_SPECIFIER = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Relative imports of a file, resolved to repository paths (`core/sim/machine.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of [...text.matchAll(SPECIFIER), ...text.matchAll(DYNAMIC_SPECIFIER)]) {
    const spec = m[1];
    if (!spec.startsWith('.')) continue;
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    const hit = [`${base}.ts`, `${base}/index.ts`, base].find((c) => {
      try {
        return statSync(path.join(root, c)).isFile();
      } catch {
        return false;
      }
    });
    if (hit) out.push(hit);
  }
  return out;
}

const files = SOURCE_DIRS.flatMap((d) => tsFiles(d));
const graph = new Map(files.map((f) => [f, importsOf(f)]));

/** Static imports that stay in the JavaScript (not `import type`/`export type`): what initialising a module initialises. */
const RUNTIME_SPECIFIER = /(?:^|[\s;])(?:import\s+(?!type\s)(?:[\w*{}\s,$]*?\s+from\s+)?|export\s+(?!type\s)[\w*{}\s,$]*?\s+from\s+)['"](\.[^'"]*)['"]/g;

/** Files whose initialisation initialises `start` by static imports alone (import() edges not followed). */
function initialisedWith(start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const text = readFileSync(path.join(root, f), 'utf8');
    // Only specifiers the full reader resolved (importsOf), restricted to runtime ones.
    const runtime = new Set([...text.matchAll(RUNTIME_SPECIFIER)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(f), m[1]))));
    for (const d of graph.get(f) ?? []) if ([d, d.replace(/\.ts$/, ''), d.replace(/\/index\.ts$/, '')].some((spec) => runtime.has(spec))) stack.push(d);
  }
  return seen;
}

/** Every file reachable from `start` (excluding itself unless on a cycle). */
function reachable(start: string, stopAt: (f: string) => boolean = () => false): Set<string> {
  const seen = new Set<string>();
  const stack = [...(graph.get(start) ?? [])];
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    if (!stopAt(f)) stack.push(...(graph.get(f) ?? []));
  }
  return seen;
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function cycles(): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return found;
}

const topFolder = (f: string) => f.split('/')[0];
/** `cuda` for core/lang/cuda/…, undefined outside a language folder. */
const languageOf = (f: string) => /^core\/lang\/([^/]+)\//.exec(f)?.[1];

describe('architecture', () => {
  it('core/ never imports editor or protocol packages', () => {
    const banned = /from\s+['"](vscode|vscode-languageserver[^'"]*|vscode-languageclient[^'"]*|@vscode\/debugadapter[^'"]*|vscode-jsonrpc)['"]/;
    const offenders = tsFiles('core').filter((f) => banned.test(readFileSync(path.join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('dependencies point one way: core/ never imports a face', () => {
    const offenders = files.filter((f) => f.startsWith('core/')).flatMap((f) => graph.get(f)!.filter((d) => FACES.includes(topFolder(d))).map((d) => `${f} -> ${d}`));
    expect(offenders).toEqual([]);
  });

  it('faces import core only through core/index.ts', () => {
    const offenders = files
      .filter((f) => FACES.includes(topFolder(f)))
      .flatMap((f) => graph.get(f)!.filter((d) => d.startsWith('core/') && d !== 'core/index.ts').map((d) => `${f} -> ${d}`));
    expect(offenders).toEqual([]);
  });

  it('no face imports another face (the inline debug adapter in client/ is the one exception)', () => {
    const offenders = files
      .filter((f) => FACES.includes(topFolder(f)))
      .flatMap((f) =>
        graph
          .get(f)!
          .filter((d) => FACES.includes(topFolder(d)) && topFolder(d) !== topFolder(f) && !(topFolder(f) === 'client' && topFolder(d) === 'debugger'))
          .map((d) => `${f} -> ${d}`),
      );
    expect(offenders).toEqual([]);
  });

  it('there are no import cycles', () => {
    expect(cycles()).toEqual([]);
  });

  it('analysis, rules, the machine and the debug runtime never reach a language folder, even through other modules', () => {
    const neutral = files.filter((f) => /^core\/(analysis|rules|sim|debug|ir|project)\//.test(f));
    expect(neutral.length).toBeGreaterThan(20);
    const offenders: string[] = [];
    for (const f of neutral) {
      for (const d of reachable(f)) if (languageOf(d) && d !== 'core/lang/language.ts') offenders.push(`${f} -> … -> ${d}`);
    }
    expect(offenders).toEqual([]);
  });

  it("the language registry initialises no language's front end, simulator or debugger: each is imported on first use", () => {
    // What a registry entry may hold at start-up: its descriptor, the debugger's thread numbering and tilus's file test.
    const entries = ['cuda/index.ts', 'cuda/sim/debug-threads.ts', 'croqtile/index.ts', 'croqtile/sim/debug-threads.ts', 'tilus/index.ts', 'tilus/tilus-import.ts'].map((f) => `core/lang/${f}`);
    const initialised = [...initialisedWith('core/languages.ts')].filter((f) => /^core\/lang\/(?:cuda|croqtile|tilus)\//.test(f));
    expect(initialised.filter((f) => !entries.includes(f))).toEqual([]);
    // The reader sees the registry's static imports (the checks above would pass on an empty set).
    expect(initialised).toEqual(expect.arrayContaining(['core/lang/cuda/index.ts', 'core/lang/croqtile/index.ts', 'core/lang/cuda/sim/debug-threads.ts']));
    expect(initialisedWith('core/lang/croqtile/front-end.ts')).toContain('core/lang/croqtile/document.ts');
  });

  it('language folders never import each other', () => {
    const offenders = files
      .filter((f) => languageOf(f))
      .flatMap((f) => graph.get(f)!.filter((d) => languageOf(d) && languageOf(d) !== languageOf(f)).map((d) => `${f} -> ${d}`));
    expect(offenders).toEqual([]);
  });

  it('no source file is over 1,000 lines, except data tables (API docs)', () => {
    const DATA = /\/api-docs(\/[^/]+)?\.ts$|\/docs-table\.ts$/;
    const big = files
      .filter((f) => !DATA.test(f))
      .map((f) => [f, readFileSync(path.join(root, f), 'utf8').split('\n').length] as const)
      .filter(([, n]) => n > 1000)
      .map(([f, n]) => `${f}: ${n} lines`);
    expect(big).toEqual([]);
  });

  it('file and folder names are kebab-case', () => {
    const bad = files.filter((f) => !f.split('/').every((part) => /^[a-z0-9]+(-[a-z0-9]+)*(\.ts)?$/.test(part)));
    expect(bad).toEqual([]);
  });

  it('every source file opens with a comment saying what it is for', () => {
    const missing = files.filter((f) => !/^\s*(\/\/|\/\*)/.test(readFileSync(path.join(root, f), 'utf8')));
    expect(missing).toEqual([]);
  });

  it('the front end never throws, whatever the input', async () => {
    const engine = await getEngine();
    const inputs = [
      '',
      '\u0000\u0001\u0002binary\uFFFD\uFFFD',
      '__global__ void k( { asm("mbarrier.arrive [%0]" :: "r"(',
      '{'.repeat(3000) + '}'.repeat(3000),
      `__global__ void k(){ ${'if (threadIdx.x) {'.repeat(400)} cuda::ptx::mbarrier_arrive(&b); ${'}'.repeat(400)} }`,
      'template<int S> __global__ void k(){ __shared__ uint64_t b[S]; while(!cuda::ptx::mbarrier_try_wait_parity(&b[S], 0)); }',
    ];
    for (const text of inputs) {
      expect(() => engine.analyze(text, 'cuda')).not.toThrow();
    }
  });
});

// The checks above must be able to fail: the import reader sees every form the sources use.
describe('architecture checks themselves', () => {
  it('read type-only, re-export and multi-line imports', () => {
    const engine = graph.get('core/index.ts')!;
    expect(engine.length).toBeGreaterThan(3);
    const all = [...graph.values()].flat();
    expect(all).toContain('core/api.ts');
    expect(all).toContain('core/sim/machine.ts');
    // Loaded on first use (import()): still an edge the rules see.
    expect(graph.get('core/lang/cuda/index.ts')).toContain('core/lang/cuda/sim/index.ts');
  });
});
