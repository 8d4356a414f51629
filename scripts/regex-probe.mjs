// Times every regular-expression literal under core/ on long adversarial inputs, to find the ones that backtrack
// super-linearly (issue 14). `node scripts/regex-probe.mjs [--size N] [--limit-ms M]` lists the slow ones and exits 1
// if any; test/robustness/regex-probe.test.ts runs the same probe.
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

/** Milliseconds `re` takes on `prefix` + `pump` repeated to `size` characters + `suffix`. */
function timeOne(re, prefix, pump, suffix, size) {
  const input = prefix + pump.repeat(Math.ceil(size / pump.length)) + suffix;
  const t0 = performance.now();
  re.test(input);
  return performance.now() - t0;
}

/**
 * Milliseconds of the slowest adversarial input of about `size` characters, and that input's description.
 * Every input is first tried at a fifth of the size; only those that already take a while are grown (a linear
 * pattern takes microseconds there, a quadratic one a twenty-fifth of its full time).
 */
export function probeRegex({ source, flags }, size = 10_000) {
  const re = new RegExp(source, flags.replace(/[gy]/g, ''));
  let worst = { ms: 0, input: '' };
  for (const prefix of prefixesOf(source)) {
    for (const pump of PUMPS) {
      for (const suffix of ['', '!', '\n!']) {
        if (timeOne(re, prefix, pump, suffix, size / 5) < 0.5) continue;
        const ms = timeOne(re, prefix, pump, suffix, size);
        if (ms > worst.ms) worst = { ms, input: `${JSON.stringify(prefix)} + ${JSON.stringify(pump)} x ${Math.ceil(size / pump.length)} + ${JSON.stringify(suffix)}` };
      }
    }
  }
  return worst;
}

/** The literals whose slowest input takes over `limitMs` at `size` characters. */
export function slowRegexes({ dirs = ['core'], size = 10_000, limitMs = 50, onEach = undefined } = {}) {
  const slow = [];
  for (const lit of regexLiterals(dirs)) {
    const worst = probeRegex(lit, size);
    if (onEach) onEach(lit, worst);
    // Re-time a slow one once: a garbage collection can land in any single run.
    if (worst.ms > limitMs && probeRegex(lit, size).ms > limitMs) slow.push({ ...lit, ...worst });
  }
  return slow;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const size = arg('--size', 10_000);
  const limitMs = arg('--limit-ms', 50);
  const all = regexLiterals();
  const t0 = performance.now();
  const slow = slowRegexes({
    size,
    limitMs,
    onEach: (lit, worst) => {
      if (worst.ms > limitMs) console.log(`${lit.file}:${lit.line} /${lit.source}/${lit.flags}  ${worst.ms.toFixed(0)} ms on ${worst.input}`);
    },
  });
  console.log(`${all.length} regex literals, ${slow.length} over ${limitMs} ms on ${size}-character inputs (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  process.exitCode = slow.length > 0 ? 1 : 0;
}
