// Quick fixes apply cleanly and remove the finding they address (Croqtile and CUDA).
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../core/index';
import { RULES } from '../../core/rules/index';
import { lint } from '../helpers/engine';

function apply(text: string, f: Finding): string {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }): number => lines.slice(0, p.line).reduce((a, l) => a + l.length + 1, 0) + p.character;
  const edits = [...f.fixes[0].edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const e of edits) out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  return out;
}

describe.each(['event-double-credit', 'slot-released-before-mma-commit', 'event-at-modulo'])('%s quick fix', (id) => {
  it('removes the finding', async () => {
    const rule = RULES.find((r) => r.meta.id === id)!;
    const [f] = (await lint(rule.docs.bad, 'croqtile')).filter((x) => x.code === rule.meta.code);
    expect(f.fixes.length).toBeGreaterThan(0);
    const fixed = apply(rule.docs.bad, f);
    expect((await lint(fixed, 'croqtile')).filter((x) => x.code === rule.meta.code)).toEqual([]);
  });
});

describe('missing-bootstrap-arrival quick fixes (CUDA)', () => {
  it('each fix (parity 1 start or pre-arrive loop) removes the deadlock', async () => {
    const rule = RULES.find((r) => r.meta.id === 'missing-bootstrap-arrival')!;
    const [f] = (await lint(rule.docs.bad, 'cuda')).filter((x) => x.code === rule.meta.code);
    expect(f.fixes.map((x) => x.title).join(' | ')).toMatch(/Pre-arrive once per slot/);
    for (const fix of f.fixes) {
      const fixed = apply(rule.docs.bad, { ...f, fixes: [fix] });
      expect((await lint(fixed, 'cuda')).map((x) => x.code)).toEqual([]);
    }
  });
});
