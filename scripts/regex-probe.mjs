// Times every regular-expression literal under core/ on long adversarial inputs, to find the ones that backtrack
// super-linearly (issue 14). `node scripts/regex-probe.mjs [--base N]` lists the ones whose time grows faster than
// the input and exits 1 if any; test/robustness/regex-probe.test.ts runs the same probe.
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Repeated units that drive backtracking in typical patterns: blanks, word characters, digits, punctuation. */
const PUMPS = [' ', '\t', '\n', 'a', '0', 'a ', ' a', 'a0', '_', '.', ',', ':', ';', '(', ')', '<', '>', '[', ']', '{', '}', '"', '\\', '/', '*', '-', '%r1', 'a.', 'a,', 'a::', ' ,', '0x', '$'];

/** Every regular-expression literal of the TypeScript files under `dirs`: its file, line, source and flags. */
export function regexLiterals(dirs = ['core']) {
  const out = [];
  const visitDir = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visitDir(full);
      else if (entry.name.endsWith('.ts')) visitFile(full);
    }
  };
  const visitFile = (file) => {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const stack = [sf];
    while (stack.length > 0) {
      const node = stack.pop();
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const literal = node.getText(sf);
        const slash = literal.lastIndexOf('/');
        const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
        out.push({ file: path.relative(ROOT, file), line, source: literal.slice(1, slash), flags: literal.slice(slash + 1) });
      }
      node.forEachChild((c) => {
        stack.push(c);
      });
    }
  };
  for (const d of dirs) visitDir(path.join(ROOT, d));
  return out;
}

/** Literal words of a pattern (escapes and classes removed): prefixes that get a match attempt going. */
function prefixesOf(source) {
  const plain = source.replace(/\\[dDwWsSbB]/g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/\\(.)/g, '$1');
  const words = plain.split(/[()|?*+{}^$]+/).filter((w) => w.trim().length > 0);
  const joined = plain.replace(/[()|?*+{}^$]/g, '');
  return [...new Set(['', joined, ...words])].slice(0, 12);
}

/** The input `prefix` + `pump` repeated to about `size` characters + `suffix`. */
function inputOf(prefix, pump, suffix, size) {
  return prefix + pump.repeat(Math.ceil(size / pump.length)) + suffix;
}

/** The fastest of `runs` timings (in milliseconds) of `re.test(input)`: a garbage collection can land in any one. */
function timeOf(re, input, runs = 1) {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    re.lastIndex = 0;
    const t0 = performance.now();
    re.test(input);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/**
 * Whether `{ source, flags }` grows super-linearly on some adversarial input, decided by the ratio of its times at
 * `base` and 4 x `base` characters (a linear pattern takes about 4 times as long, a quadratic one 16 times), so that
 * the verdict does not depend on how fast the machine is. Inputs that take under `floorMs` at `base` characters are
 * not grown: a linear pattern takes microseconds there. Returns the worst ratio found, the times and the input; it
 * stops at the first input that is clearly super-linear, so a slow pattern costs little.
 */
export function probeRegex({ source, flags }, { base = 2_000, floorMs = 0.2, ratioLimit = 7 } = {}) {
  // A sticky pattern keeps its flag: the code runs it anchored at one position, so it is timed that way.
  const re = new RegExp(source, flags.replace(/g/g, ''));
  let worst = { superLinear: false, ratio: 0, smallMs: 0, largeMs: 0, input: '' };
  for (const prefix of prefixesOf(source)) {
    for (const pump of PUMPS) {
      for (const suffix of ['', '!', '\n!']) {
        const small = inputOf(prefix, pump, suffix, base);
        if (timeOf(re, small) < floorMs) continue;
        const large = inputOf(prefix, pump, suffix, 4 * base);
        const measure = () => {
          const smallMs = timeOf(re, small, 3);
          const largeMs = timeOf(re, large, 2);
          return { smallMs, largeMs, ratio: largeMs / Math.max(smallMs, floorMs / 4) };
        };
        // Sub-millisecond times are mostly timer and collector noise, and a growth seen once is measured again.
        const isSuperLinear = (m) => m.ratio > ratioLimit && m.largeMs > 1;
        let m = measure();
        if (isSuperLinear(m)) {
          const again = measure();
          if (!isSuperLinear(again)) m = again;
        }
        if (m.ratio > worst.ratio) {
          const input = `${JSON.stringify(prefix)} + ${JSON.stringify(pump)} x ${Math.ceil(base / pump.length)} (then x4) + ${JSON.stringify(suffix)}`;
          worst = { superLinear: isSuperLinear(m), ...m, input };
          if (worst.superLinear) return worst;
        }
      }
    }
  }
  return worst;
}

/**
 * Probes every literal in a worker thread that the caller stops when one pattern runs past `timeoutMs` (a pattern
 * exponential on the inputs is then reported as `timedOut`), so the whole run is bounded. `literals` defaults to
 * those under `dirs`. Resolves to the super-linear literals, each with its probe result.
 */
export async function slowRegexes({ dirs = ['core'], literals = regexLiterals(dirs), base = 2_000, timeoutMs = 3_000, onEach = undefined } = {}) {
  const { Worker } = await import('node:worker_threads');
  const slow = [];
  let next = 0;
  while (next < literals.length) {
    next = await new Promise((resolve, reject) => {
      const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { literals: literals.slice(next), base } });
      let at = next;
      let timer;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          const lit = literals[at];
          const result = { superLinear: true, timedOut: true, ratio: Infinity, smallMs: timeoutMs, largeMs: timeoutMs, input: `over ${timeoutMs} ms` };
          slow.push({ ...lit, ...result });
          if (onEach) onEach(lit, result);
          void worker.terminate().then(() => resolve(at + 1));
        }, timeoutMs);
      };
      arm();
      worker.on('message', (result) => {
        const lit = literals[at];
        if (result.superLinear) slow.push({ ...lit, ...result });
        if (onEach) onEach(lit, result);
        at++;
        arm();
      });
      worker.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      worker.on('exit', () => {
        if (at >= literals.length) {
          clearTimeout(timer);
          resolve(at);
        }
      });
    });
  }
  return slow;
}

const { isMainThread, parentPort, workerData } = await import('node:worker_threads');
if (!isMainThread && workerData?.literals) {
  for (const lit of workerData.literals) parentPort.postMessage(probeRegex(lit, { base: workerData.base }));
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--base');
  const base = i >= 0 ? Number(process.argv[i + 1]) : 2_000;
  const t0 = performance.now();
  const slow = await slowRegexes({
    base,
    onEach: (lit, r) => {
      if (r.superLinear) console.log(`${lit.file}:${lit.line} /${lit.source}/${lit.flags}  ${r.smallMs.toFixed(1)} -> ${r.largeMs.toFixed(1)} ms (x${r.ratio.toFixed(1)}) on ${r.input}`);
    },
  });
  console.log(`${regexLiterals().length} regex literals, ${slow.length} super-linear from ${base} to ${4 * base} characters (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  process.exitCode = slow.length > 0 ? 1 : 0;
}
