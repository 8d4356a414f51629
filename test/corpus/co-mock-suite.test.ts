// Croqtile's reference interpreter ships a test suite (tools/co-mock/tests: programs whose expected
// output is in `// CHECK:` lines, matched by LLVM FileCheck). `phaseflip sim` must print the same
// output for every program there that does not depend on co-mock's known gaps. Runs when
// PHASEFLIP_CROQTILE_REPO points at a checkout of LancerLab/croqtile; skips with a reason otherwise.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../core/simulate';

const repo = process.env.PHASEFLIP_CROQTILE_REPO;
const DIR = 'tools/co-mock/tests';

/**
 * Programs left out, with the reason. None depends on the gaps named in the issue (events as
 * no-ops, per-thread `shared`); these two check the output of co-mock's own scripted debugger
 * (`co-mock -s SCRIPT`: `p x`, `info mem`), not the program's output, and Phaseflip's debugger is
 * the VS Code debug adapter (issue 5), not a line-command script.
 */
const EXCLUDED: Record<string, string> = {
  'script_debug.co': "expects the debugger's `p x` output (x = 10) from `co-mock -s`",
  'debugger_info.co': "expects the debugger's `info mem` output from `co-mock -s`",
};

interface Check {
  kind: 'CHECK' | 'CHECK-NEXT' | 'CHECK-SAME' | 'CHECK-NOT' | 'CHECK-DAG' | 'CHECK-EMPTY';
  pattern: string;
  line: number;
}

function parseChecks(text: string): Check[] {
  const out: Check[] = [];
  text.split('\n').forEach((l, i) => {
    const m = /\/\/\s*(CHECK(?:-[A-Z]+)?):(.*)$/.exec(l);
    if (!m) return;
    const kind = m[1] as Check['kind'];
    if (!['CHECK', 'CHECK-NEXT', 'CHECK-SAME', 'CHECK-NOT', 'CHECK-DAG', 'CHECK-EMPTY'].includes(kind)) throw new Error(`line ${i + 1}: FileCheck directive ${kind} is not implemented by this test`);
    out.push({ kind, pattern: m[2].trim().replace(/[ \t]+/g, ' '), line: i + 1 });
  });
  return out;
}

/**
 * The FileCheck subset the suite uses: patterns are literal substrings (horizontal whitespace
 * canonicalised), CHECK finds the next match at or after the end of the previous one, CHECK-NEXT on
 * the following line, CHECK-SAME on the same line, CHECK-NOT nowhere between its neighbours, and a
 * run of CHECK-DAG matches in any order. Returns the first failure, or undefined.
 */
function fileCheck(output: string, checks: Check[]): string | undefined {
  const lines = output.split('\n').map((l) => l.replace(/[ \t]+/g, ' '));
  let line = 0;
  let col = 0;
  let pendingNot: Check[] = [];
  const find = (pat: string, fromLine: number, fromCol: number): { line: number; col: number } | undefined => {
    for (let i = fromLine; i < lines.length; i++) {
      const k = lines[i].indexOf(pat, i === fromLine ? fromCol : 0);
      if (k >= 0) return { line: i, col: k + pat.length };
    }
    return undefined;
  };
  const checkNots = (toLine: number, toCol: number): string | undefined => {
    for (const n of pendingNot) {
      const hit = find(n.pattern, line, col);
      if (hit && (hit.line < toLine || (hit.line === toLine && hit.col <= toCol))) return `CHECK-NOT at line ${n.line}: '${n.pattern}' found on output line ${hit.line + 1}`;
    }
    pendingNot = [];
    return undefined;
  };
  for (let i = 0; i < checks.length; i++) {
    const c = checks[i];
    if (c.kind === 'CHECK-NOT') {
      pendingNot.push(c);
      continue;
    }
    if (c.kind === 'CHECK-DAG') {
      const group: Check[] = [];
      while (i < checks.length && checks[i].kind === 'CHECK-DAG') group.push(checks[i++]);
      i--;
      const used = new Set<string>();
      let endLine = line;
      let endCol = col;
      for (const g of group) {
        let from = { line, col };
        let hit: { line: number; col: number } | undefined;
        for (;;) {
          hit = find(g.pattern, from.line, from.col);
          if (!hit || !used.has(`${hit.line}:${hit.col}`)) break;
          from = hit;
        }
        if (!hit) return `CHECK-DAG at line ${g.line}: '${g.pattern}' not found`;
        used.add(`${hit.line}:${hit.col}`);
        if (hit.line > endLine || (hit.line === endLine && hit.col > endCol)) {
          endLine = hit.line;
          endCol = hit.col;
        }
      }
      const bad = checkNots(endLine, endCol);
      if (bad) return bad;
      line = endLine;
      col = endCol;
      continue;
    }
    let hit: { line: number; col: number } | undefined;
    if (c.kind === 'CHECK') hit = find(c.pattern, line, col);
    else if (c.kind === 'CHECK-SAME') {
      const k = lines[line]?.indexOf(c.pattern, col) ?? -1;
      hit = k >= 0 ? { line, col: k + c.pattern.length } : undefined;
    } else if (c.kind === 'CHECK-NEXT') {
      const k = lines[line + 1]?.indexOf(c.pattern) ?? -1;
      hit = k >= 0 ? { line: line + 1, col: k + c.pattern.length } : undefined;
    } else {
      hit = lines[line + 1] === '' ? { line: line + 1, col: 0 } : undefined;
    }
    if (!hit) return `${c.kind} at line ${c.line}: '${c.pattern}' not found after output line ${line + 1}`;
    const bad = checkNots(hit.line, hit.col);
    if (bad) return bad;
    line = hit.line;
    col = hit.col;
  }
  return checkNots(lines.length, 0);
}

/** co-mock runs every `__co__` function of the file in order; the simulator runs one per request. */
async function runLikeCoMock(file: string, text: string): Promise<{ stdout: string; problems: string[] }> {
  const names = [...text.matchAll(/__co__\s+[\w\s[\],]*?\b(\w+)\s*\(/g)].map((m) => m[1]);
  let stdout = '';
  const problems: string[] = [];
  for (const kernel of names) {
    const r = await simulate({ file, text, language: 'croqtile', kernel });
    stdout += r.stdout;
    if (r.status !== 'completed') problems.push(`${kernel}: ${r.status}: ${r.message}`);
  }
  return { stdout, problems };
}

describe.skipIf(!repo)("co-mock's test suite", () => {
  const dir = repo ? path.join(repo, DIR) : '';
  const files = repo ? readdirSync(dir).filter((f) => f.endsWith('.co')).sort() : [];

  it('finds the suite', () => {
    expect(files.length).toBeGreaterThan(40);
    for (const name of Object.keys(EXCLUDED)) expect(files).toContain(name);
  });

  for (const name of files) {
    const reason = EXCLUDED[name];
    if (reason) {
      it.skip(`${name} (excluded: ${reason})`, () => {});
      continue;
    }
    it(name, async () => {
      const text = readFileSync(path.join(dir, name), 'utf8');
      const checks = parseChecks(text);
      expect(checks.length).toBeGreaterThan(0);
      const { stdout, problems } = await runLikeCoMock(name, text);
      expect(problems).toEqual([]);
      const failure = fileCheck(stdout, checks);
      expect(failure, `output was:\n${stdout}`).toBeUndefined();
    });
  }

  it('the matcher rejects wrong output', () => {
    const checks = parseChecks('// CHECK: a 1\n// CHECK-NEXT: b\n// CHECK-NOT: zzz\n// CHECK: c');
    expect(fileCheck('x\na  1\nb\nc\n', checks)).toBeUndefined();
    expect(fileCheck('a 1\nq\nb\nc\n', checks)).toMatch(/CHECK-NEXT/);
    expect(fileCheck('a 1\nb\nzzz\nc\n', checks)).toMatch(/CHECK-NOT/);
    expect(fileCheck('a 2\nb\nc\n', checks)).toMatch(/'a 1' not found/);
    const dag = parseChecks('// CHECK-DAG: v 1\n// CHECK-DAG: v 0');
    expect(fileCheck('v 0\nv 1\n', dag)).toBeUndefined();
    expect(fileCheck('v 0\nv 0\n', dag)).toMatch(/CHECK-DAG/);
  });
});

if (!repo) console.log("co-mock suite skipped: set PHASEFLIP_CROQTILE_REPO to a checkout of LancerLab/croqtile to run its tools/co-mock/tests through the simulator");
