// Checks the Croqtile editor contributions that are plain data: the language configuration
// (syntaxes/croqtile.language-configuration.json) and the snippets (snippets/croqtile.json).
// Snippets are expanded with their default values and run through the grammar, so a snippet that
// leaves a brace open or misspells a keyword fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TmLite, type RawGrammar } from './tmlite';

const root = join(__dirname, '../..');
const config = JSON.parse(readFileSync(join(root, 'syntaxes/croqtile.language-configuration.json'), 'utf8')) as {
  comments: { lineComment: string; blockComment: [string, string] };
  brackets: [string, string][];
  autoClosingPairs: { open: string; close: string; notIn?: string[] }[];
  surroundingPairs: [string, string][];
  folding: { markers: { start: string; end: string } };
  wordPattern: string;
  indentationRules: { increaseIndentPattern: string; decreaseIndentPattern: string };
  onEnterRules: { beforeText: string; afterText?: string; action: { indent: string } }[];
};
interface Snippet {
  prefix: string | string[];
  body: string[];
  description: string;
}
const snippets = JSON.parse(readFileSync(join(root, 'snippets/croqtile.json'), 'utf8')) as Record<string, Snippet>;
const grammar = JSON.parse(readFileSync(join(root, 'syntaxes/croqtile.tmLanguage.json'), 'utf8')) as RawGrammar;

// --- snippet expansion ----------------------------------------------------------------------------

/**
 * Expands VS Code snippet syntax with default values: `$n`, `${n}`, `${n:default}` (nested), `${n|a,b|}`
 * (first choice), `\$` / `\}` escapes. A mirror `$n` takes the default of the first `${n:...}`.
 * Throws on unbalanced placeholders.
 */
function expand(body: string): { text: string; stops: Set<number> } {
  const defaults = new Map<number, string>();
  const stops = new Set<number>();
  let i = 0;
  const parse = (stopAtBrace: boolean): string => {
    let out = '';
    while (i < body.length) {
      const ch = body[i]!;
      if (ch === '\\' && (body[i + 1] === '$' || body[i + 1] === '}' || body[i + 1] === '\\')) {
        out += body[i + 1];
        i += 2;
      } else if (ch === '}' && stopAtBrace) {
        i++;
        return out;
      } else if (ch === '$' && /\d/.test(body[i + 1] ?? '')) {
        const m = /^\$(\d+)/.exec(body.slice(i))!;
        const n = Number(m[1]);
        stops.add(n);
        i += m[0].length;
        out += `\u0000${n}\u0000`;
      } else if (ch === '$' && body[i + 1] === '{') {
        const m = /^\$\{(\d+)([:|}])/.exec(body.slice(i));
        if (!m) throw new Error(`bad placeholder at ${i}: ${body.slice(i, i + 20)}`);
        const n = Number(m[1]);
        stops.add(n);
        i += m[0].length;
        if (m[2] === '}') out += `\u0000${n}\u0000`;
        else if (m[2] === ':') {
          const value = parse(true);
          if (!defaults.has(n)) defaults.set(n, value);
          out += value;
        } else {
          const end = body.indexOf('|}', i);
          if (end < 0) throw new Error('unterminated choice');
          const choice = body.slice(i, end).split(',')[0]!;
          if (!defaults.has(n)) defaults.set(n, choice);
          out += choice;
          i = end + 2;
        }
      } else {
        out += ch;
        i++;
      }
    }
    if (stopAtBrace) throw new Error('unterminated placeholder');
    return out;
  };
  const raw = parse(false);
  const text = raw.replace(/\u0000(\d+)\u0000/g, (_, n: string) => defaults.get(Number(n)) ?? '');
  return { text, stops };
}

function expanded(name: string): string {
  const s = snippets[name];
  expect(s, name).toBeDefined();
  return expand(s!.body.join('\n')).text;
}

/** Tokenizes `code` as the body of a `__co__` function; returns the lines of the whole document. */
function tokenizeInCo(code: string) {
  return new TmLite(grammar).tokenize(`__co__ void k(global f16 [M, K] lhs, global f16 [N, K] rhs) {\n${code}\n}\nint host = 0;`);
}

describe('croqtile snippets', () => {
  it('has the pipeline snippets and the small ones', () => {
    for (const name of [
      'double-buffer swap',
      '1P1C event pipeline (era A)',
      'event pipeline (HEAD)',
      'parallel-by',
      'foreach in cdiv',
      'event declaration',
    ]) {
      expect(snippets[name], name).toBeDefined();
    }
  });

  it('every snippet has prefix, body, description and valid tab stops', () => {
    for (const [name, s] of Object.entries(snippets)) {
      expect(s.prefix.length, name).toBeGreaterThan(0);
      expect(Array.isArray(s.body) && s.body.length > 0, name).toBe(true);
      expect(s.description.length, name).toBeGreaterThan(10);
      const { stops } = expand(s.body.join('\n'));
      expect(stops.size, name).toBeGreaterThan(0);
      expect(stops.has(0) || stops.size > 1, name).toBe(true);
      for (const line of s.body) expect(line, name).not.toMatch(/^ +\S/); // indentation uses tabs
    }
  });

  it('every snippet expands to Croqtile that the grammar closes cleanly', () => {
    for (const [name, s] of Object.entries(snippets)) {
      const code = expand(s.body.join('\n')).text;
      const text = name === 'Croqtile function' ? code : `__co__ void k() {\n${code}\n}`;
      const lines = new TmLite(grammar).tokenize(`${text}\nint host = 0;`);
      const last = lines[lines.length - 1]!;
      expect(last.every((t) => t.scopes.length === 1), `${name} leaves a block open`).toBe(true);
    }
  });

  it('double-buffer swap: prologue, dma.any placeholders, steady state with swap, epilogue', () => {
    const code = expanded('double-buffer swap');
    const prologue = code.indexOf('lf0 = dma.copy.async');
    const any = code.indexOf('lf1 = dma.any;');
    const loop = code.indexOf('foreach tile_k(1:)');
    const swap = code.indexOf('swap(lf0, lf1);');
    expect(prologue).toBeGreaterThanOrEqual(0);
    expect(any).toBeGreaterThan(prologue);
    expect(loop).toBeGreaterThan(any);
    expect(code.indexOf('lf1 = dma.copy.async', loop)).toBeGreaterThan(loop);
    expect(code.indexOf('wait lf0, rf0;', loop)).toBeLessThan(swap);
    expect(swap).toBeGreaterThan(loop);
    expect(code).toContain('swap(rf0, rf1);');
    // The epilogue waits the last copies before computing on them.
    expect(code.lastIndexOf('wait lf0, rf0;')).toBeGreaterThan(swap);
  });

  it('era-A 1P1C pipeline: pending events, consumer bootstrap before the K loop, commit before release', () => {
    const code = expanded('1P1C event pipeline (era A)');
    expect(code).toContain('shared event full[STAGES], empty[STAGES];');
    expect(code).not.toContain('ready');
    const consumer = code.indexOf('inthreads.async (p1 == 1)');
    const bootstrap = code.indexOf('trigger empty[s];');
    const kloop = code.indexOf('foreach {iv_k}', consumer);
    expect(code.indexOf('inthreads.async (p1 == 0)')).toBeGreaterThanOrEqual(0);
    expect(bootstrap).toBeGreaterThan(consumer);
    expect(kloop).toBeGreaterThan(bootstrap);
    expect(code.indexOf('mma.commit;')).toBeLessThan(code.indexOf('trigger empty[stage];'));
    expect(code.indexOf('wait empty[stage];')).toBeLessThan(code.indexOf('trigger full[stage];'));
    const lines = tokenizeInCo(code);
    const commit = lines.flat().find((t) => t.text === 'commit')!;
    expect(commit.scopes).toContain('support.function.legacy.croqtile');
  });

  it('HEAD pipeline: ready empties, .at(iv) generations, trigger after TMA futures, no bootstrap or commit', () => {
    const code = expanded('event pipeline (HEAD)');
    expect(code).toContain('shared event full[STAGES], empty[STAGES] = ready;');
    expect(code).toContain('wait empty.at(iv);');
    expect(code).toContain('trigger full.at(iv) after lf, rf;');
    expect(code).toContain('wait full.at(iv);');
    expect(code).toContain('trigger empty.at(iv);');
    expect(code).toMatch(/lf = tma\.load\.async .* => lhs_s\[slot\];/);
    expect(code).not.toContain('mma.commit');
    expect(code).not.toMatch(/trigger empty\[/);
    const ready = tokenizeInCo(code).flat().find((t) => t.text === 'ready')!;
    expect(ready.scopes).toContain('constant.language.ready.croqtile');
  });

  it('small snippets', () => {
    expect(expanded('parallel-by')).toBe('parallel p by N : block {\n\t\n}');
    expect(expanded('foreach in cdiv')).toBe('foreach {iv} in [cdiv(K, TILE_K)] {\n\t\n}');
    expect(expanded('event declaration')).toBe('shared event full[STAGES], empty[STAGES] = ready;');
  });
});

describe('croqtile language configuration', () => {
  it('uses C-style comments and brackets', () => {
    expect(config.comments).toEqual({ lineComment: '//', blockComment: ['/*', '*/'] });
    expect(config.brackets).toEqual([
      ['{', '}'],
      ['[', ']'],
      ['(', ')'],
    ]);
    const opens = config.autoClosingPairs.map((p) => p.open);
    for (const o of ['{', '[', '(', '"', '/*']) expect(opens).toContain(o);
    expect(config.surroundingPairs.map((p) => p[0])).toEqual(expect.arrayContaining(['{', '[', '(', '"']));
  });

  it('folds #pragma region blocks', () => {
    const start = new RegExp(config.folding.markers.start);
    const end = new RegExp(config.folding.markers.end);
    expect(start.test('#pragma region producer')).toBe(true);
    expect(start.test('  # pragma region')).toBe(true);
    expect(end.test('#pragma endregion')).toBe(true);
    expect(start.test('#pragma endregion')).toBe(false);
    expect(start.test('// #region notes')).toBe(true);
  });

  it('treats group-4 and identifiers as words, and stops words at dots', () => {
    const words = 'parallel p by 2 : group-4 { f = dma.copy.async lhs_s[iv_k % 2]; }'.match(new RegExp(config.wordPattern, 'g'));
    expect(words).toEqual(['parallel', 'p', 'by', '2', 'group-4', 'f', 'dma', 'copy', 'async', 'lhs_s', 'iv_k', '2']);
  });

  it('indents after an opening brace or a bodiless control header, outdents at a closing brace', () => {
    const inc = new RegExp(config.indentationRules.increaseIndentPattern);
    const dec = new RegExp(config.indentationRules.decreaseIndentPattern);
    expect(inc.test('  parallel p by 2 : group-4 {')).toBe(true);
    expect(inc.test('  x = f(a,')).toBe(true);
    expect(inc.test('  // {')).toBe(false);
    expect(dec.test('  }')).toBe(true);
    expect(dec.test('  x;')).toBe(false);
    const header = new RegExp(config.onEnterRules.find((r) => r.beforeText.includes('foreach'))!.beforeText);
    expect(header.test('  foreach {s} in [STAGES]')).toBe(true);
    expect(header.test('  inthreads.async (p == 0)')).toBe(true);
    expect(header.test('  } else')).toBe(true);
    expect(header.test('  parallel by 1 : thread {}')).toBe(false);
    expect(header.test('  if (x) y = 1;')).toBe(false);
  });
});
