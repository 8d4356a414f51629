// Mutations of source files for the fuzz harness: byte-level edits and grammar-aware ones (line
// deletion, duplication and swaps, unbalanced braces, deep nesting, huge literals, long runs of
// spaces after tokens whose regexes have backtracked before, duplicated `foreach` lines for .co).
import type { Random } from './random';

export type SourceLanguage = 'cuda' | 'croqtile';

export interface Mutation {
  text: string;
  /** The mutations applied, in order, for the reproducer's record. */
  steps: string[];
}

/**
 * How large generated constructs get: nesting depth, repetition counts and literal lengths are
 * drawn up to a size proportional to this (1 for the smoke, larger for the long run).
 */
export interface MutationLimits {
  maxRepeat: number;
}

type Mutator = (text: string, rng: Random, limits: MutationLimits, language: SourceLanguage, donors: readonly string[]) => string;

const CUDA_TOKENS = ['static_cast<', 'reinterpret_cast<', 'asm("', 'asm volatile("', '__launch_bounds__(', 'template <', '#define X ', 'mbarrier.try_wait.parity.shared::cta.b64 ', '<<<', 'cuda::barrier<', '__shared__ ', '"r"(', '//'];
const CROQTILE_TOKENS = ['foreach ', 'parallel ', 'wait ', 'trigger ', 'dma.copy ', 'mma.commit', '#define X ', '{', '(', '=> ', 'event ', 'inthreads.async '];
const RANDOM_BYTES = ['\0', '\u00ff', '\u2028', '\ud800', '\r', '\t', '\\', '"', "'", '{', '}', '(', ')', '<', '>', ';', '#', '/*', '*/', '@', '`', '\u00e9', '\ufeff'];

function lines(text: string): string[] {
  return text.split('\n');
}

/** Up to `max`, biased towards small values so that most inputs stay quick to run. */
function count(rng: Random, max: number): number {
  const exponent = rng.next() * Math.log2(Math.max(2, max));
  return Math.max(1, Math.floor(2 ** exponent));
}

function insertAt(text: string, offset: number, insertion: string): string {
  return text.slice(0, offset) + insertion + text.slice(offset);
}

function randomLineStart(text: string, rng: Random): number {
  const ls = lines(text);
  const index = rng.int(ls.length);
  let offset = 0;
  for (let i = 0; i < index; i++) offset += ls[i].length + 1;
  return offset;
}

const BYTE_MUTATORS: Record<string, Mutator> = {
  'flip-char': (text, rng) => {
    if (text.length === 0) return rng.pick(RANDOM_BYTES);
    const at = rng.int(text.length);
    return text.slice(0, at) + rng.pick(RANDOM_BYTES) + text.slice(at + 1);
  },
  'insert-bytes': (text, rng) => insertAt(text, rng.int(text.length + 1), Array.from({ length: rng.range(1, 8) }, () => rng.pick(RANDOM_BYTES)).join('')),
  'delete-span': (text, rng) => {
    const at = rng.int(text.length + 1);
    return text.slice(0, at) + text.slice(at + count(rng, 200));
  },
  'duplicate-span': (text, rng) => {
    const at = rng.int(text.length + 1);
    const span = text.slice(at, at + count(rng, 200));
    return insertAt(text, at, span);
  },
  truncate: (text, rng) => text.slice(0, rng.int(text.length + 1)),
};

const GRAMMAR_MUTATORS: Record<string, Mutator> = {
  'delete-lines': (text, rng) => {
    const ls = lines(text);
    const at = rng.int(ls.length);
    ls.splice(at, count(rng, 10));
    return ls.join('\n');
  },
  'duplicate-lines': (text, rng, limits) => {
    const ls = lines(text);
    const at = rng.int(ls.length);
    const block = ls.slice(at, at + count(rng, 6));
    const copies = count(rng, limits.maxRepeat);
    ls.splice(at, 0, ...Array.from({ length: copies }, () => block).flat());
    return ls.join('\n');
  },
  'swap-lines': (text, rng) => {
    const ls = lines(text);
    const a = rng.int(ls.length);
    const b = rng.int(ls.length);
    [ls[a], ls[b]] = [ls[b], ls[a]];
    return ls.join('\n');
  },
  'unbalance-braces': (text, rng) => {
    const brackets = [...text.matchAll(/[{}()[\]<>]/g)].map((m) => m.index ?? 0);
    if (brackets.length === 0 || rng.chance(0.3)) return insertAt(text, rng.int(text.length + 1), rng.pick(['{', '}', '(', ')', '[', ']', '<', '>']));
    const at = rng.pick(brackets);
    return text.slice(0, at) + text.slice(at + 1);
  },
  'deep-nesting': (text, rng, limits, language) => {
    const depth = count(rng, limits.maxRepeat * 20);
    const shapes = language === 'cuda'
      ? [['{', '}'], ['if (threadIdx.x) {', '}'], ['(', ')'], ['[', ']'], ['for (int i = 0; i < 2; ++i) {', '}']]
      : [['{', '}'], ['(', ')'], ['foreach i in [2] {', '}'], ['if (x) {', '}']];
    const [open, close] = rng.pick(shapes);
    // Half of the time leave the nest unclosed: deep nesting with a syntax error was a crash class.
    const closing = rng.chance(0.5) ? close.repeat(depth) : close.repeat(Math.max(0, depth - 1));
    return insertAt(text, randomLineStart(text, rng), `${open.repeat(depth)}x${closing}\n`);
  },
  'huge-literal': (text, rng, limits, language) => {
    const n = count(rng, limits.maxRepeat * 1000);
    const literal = rng.pick([
      () => '9'.repeat(n),
      () => `"${'a'.repeat(n)}"`,
      () => `0x${'f'.repeat(n)}`,
      () => `1.${'5'.repeat(n)}e${'9'.repeat(Math.min(n, 400))}`,
      () => Array.from({ length: Math.max(1, Math.floor(n / 4)) }, (_, i) => `a${i % 10}`).join(' + '),
      () => (language === 'cuda' ? `// ${'x'.repeat(n)}` : `// ${'x'.repeat(n)}`),
      () => 'x'.repeat(n),
    ])();
    const statement = language === 'cuda' ? `int huge = ${literal};\n` : `huge = ${literal};\n`;
    return rng.chance(0.5) ? insertAt(text, randomLineStart(text, rng), statement) : insertAt(text, rng.int(text.length + 1), literal);
  },
  'spaces-after-token': (text, rng, limits, language) => {
    const tokens = language === 'cuda' ? CUDA_TOKENS : CROQTILE_TOKENS;
    const token = rng.pick(tokens);
    const run = rng.pick([' ', '\t', ' \n', '  ']).repeat(count(rng, limits.maxRepeat * 1000));
    const existing = text.indexOf(token);
    if (existing >= 0 && rng.chance(0.6)) return insertAt(text, existing + token.length, run);
    return insertAt(text, randomLineStart(text, rng), `${token}${run}\n`);
  },
  'duplicate-foreach': (text, rng, limits) => {
    const ls = lines(text);
    const loops = ls.map((l, i) => (/\b(foreach|for|parallel)\b/.test(l) ? i : -1)).filter((i) => i >= 0);
    if (loops.length === 0) return text;
    const at = rng.pick(loops);
    ls.splice(at, 0, ...Array.from({ length: count(rng, Math.min(40, limits.maxRepeat * 4)) }, () => ls[at]));
    return ls.join('\n');
  },
  'empty-argument': (text, rng) => {
    // `out[]` and `f()` where an operand belongs: once an internal error in the simulator's compiler.
    const sites = [...text.matchAll(/\[[^\]\n]+\]|\([^()\n]+\)/g)];
    if (sites.length === 0) return text;
    const site = rng.pick(sites);
    const at = site.index ?? 0;
    return `${text.slice(0, at)}${site[0][0]}${site[0][site[0].length - 1]}${text.slice(at + site[0].length)}`;
  },
  'splice-donor': (text, rng, _limits, _language, donors) => {
    if (donors.length === 0) return text;
    const donor = lines(rng.pick(donors));
    const at = rng.int(donor.length);
    const piece = donor.slice(at, at + count(rng, 20)).join('\n');
    return insertAt(text, randomLineStart(text, rng), `${piece}\n`);
  },
};

const ALL = { ...BYTE_MUTATORS, ...GRAMMAR_MUTATORS };
const NAMES = Object.keys(ALL);

/** One to three mutations of `text`, drawn from `rng`. */
export function mutate(text: string, language: SourceLanguage, rng: Random, limits: MutationLimits, donors: readonly string[] = []): Mutation {
  const steps: string[] = [];
  let out = text;
  const n = rng.chance(0.6) ? 1 : rng.range(2, 3);
  for (let i = 0; i < n; i++) {
    const name = rng.pick(NAMES);
    out = ALL[name](out, rng, limits, language, donors);
    steps.push(name);
  }
  return { text: out, steps };
}
