// Croqtile's incremental analysis gives what a fresh analysis of the same text gives: a property test over a
// fixed-seed sequence of random edits (inside and between functions, across #defines, comments and braces), and
// a check that unchanged functions really are taken over rather than parsed again.
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LintOptions } from '../../../../core/api';
import { CroqtileDocument } from '../../../../core/lang/croqtile/document';
import { CroqtileParseCache } from '../../../../core/lang/croqtile/parse-cache';
import { parseCroqtile } from '../../../../core/lang/croqtile/parser';

const FIXTURES = path.join(__dirname, '../../../fixtures/croqtile');

/** A few fixtures of each rule, bad and good, of every sync era: many functions with findings. */
function fixtureFile(): string {
  const parts: string[] = ['#define STAGES 4\n#include "choreo.h"\n'];
  for (const dir of readdirSync(FIXTURES).filter((d) => /^PF\d+/.test(d)).sort()) {
    const files = readdirSync(path.join(FIXTURES, dir)).filter((f) => f.endsWith('.co')).sort();
    for (const f of files.slice(0, 2)) parts.push(readFileSync(path.join(FIXTURES, dir, f), 'utf8'));
  }
  return parts.join('\nint host_helper(int x) { return x + 1; }\n');
}

/** mulberry32: a small seeded generator, so that a failure replays exactly. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Text an edit inserts: tokens that change findings, break syntax, open comments or touch the preprocessor. */
const INSERTS = [
  ' ', '\n', ';', '{', '}', 'x', '0', '// ', '/*', '*/', '"', '#define STAGES 2\n', '#if 0\n', '#endif\n',
  'wait full.at(iv);\n', 'trigger empty.at(iv);\n', 'mma.commit;\n', '__co__ void extra() {\n}\n', '__co__ ',
  'foreach {s} in [2] { trigger empty.at(s); }\n', 'shared event e[2];\n',
];

interface Edit {
  start: number;
  end: number;
  text: string;
}

function randomEdit(text: string, next: () => number): Edit {
  const at = Math.floor(next() * (text.length + 1));
  const r = next();
  if (r < 0.45) return { start: at, end: at, text: INSERTS[Math.floor(next() * INSERTS.length)]! };
  if (r < 0.8) return { start: at, end: Math.min(text.length, at + 1 + Math.floor(next() * 12)), text: '' };
  if (r < 0.9) {
    // Move a whole line elsewhere: functions shift by lines and by offsets.
    const lineStart = text.lastIndexOf('\n', at - 1) + 1;
    const lineEnd = text.indexOf('\n', at);
    return { start: lineStart, end: lineStart, text: text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd + 1) };
  }
  return { start: at, end: Math.min(text.length, at + 1), text: String.fromCharCode(97 + Math.floor(next() * 26)) };
}

describe('Croqtile incremental analysis', () => {
  it('gives the findings, syntax problems and symbols of a fresh analysis after each of 120 random edits', () => {
    const next = random(20261126);
    const pristine = fixtureFile();
    const doc = new CroqtileDocument(pristine);
    const optionSets: LintOptions[] = [{}, { rules: { PF201: 'off', PF107: 'error' } }];
    let reusedSome = false;
    for (let step = 0; step < 120; step++) {
      if (step % 40 === 39) doc.replaceText(pristine); // Keep the text close to real code.
      const e = randomEdit(doc.text, next);
      doc.edit(e.start, e.end, e.text);
      const options = optionSets[Math.floor(step / 20) % optionSets.length]!;
      const got = doc.analyze(options);
      const fresh = new CroqtileDocument(doc.text).analyze(options);
      expect(got, `step ${step}: ${JSON.stringify(e)}`).toEqual(fresh);
      if (step % 30 === 0) expect(doc.irText(), `step ${step}`).toBe(new CroqtileDocument(doc.text).irText());
      reusedSome ||= got.findings.length > 0;
    }
    // The sequence must have exercised findings, not only empty results.
    expect(reusedSome).toBe(true);
  });

  it('takes unchanged functions over from the last parse, moved to where they now start', () => {
    const text = fixtureFile();
    const cache = new CroqtileParseCache();
    const first = parseCroqtile(text, cache);
    const cut = first.functions[3]!.span.start + 40; // inside the fourth function
    const edited = `${text.slice(0, cut)}\n\n  ${text.slice(cut)}`;
    const second = parseCroqtile(edited, cache);
    const fresh = parseCroqtile(edited);
    expect(second).toEqual(fresh);
    expect(second.functions.length).toBe(first.functions.length);
    // Before the edit: the same objects, unmoved; the edited one: parsed again; after it: the same objects, moved.
    expect(second.functions[0]).toBe(first.functions[0]);
    expect(second.functions[3]).not.toBe(first.functions[3]);
    expect(second.functions[5]).toBe(first.functions[5]);
    expect(second.functions[5]!.span.start).toBe(fresh.functions[5]!.span.start);
  });
});
