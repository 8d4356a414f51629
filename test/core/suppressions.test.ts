// Inline suppressions (core/suppressions.ts), applied by the engine to every analysis: a directive on the
// finding's line or the line before, a file-wide one, several codes, rule ids, reasons; unused directives and
// directives without a reason reported (PF000, PF001) and tunable like rules; a header's directives suppress the
// header's findings in the translation unit of a file that includes it.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Project, isKnownRule, loadEngine } from '../../core/index';
import { parseSuppressions, suppressionFix } from '../../core/suppressions';
import { getEngine, lint } from '../helpers/engine';

const BUG = readFileSync(path.join(__dirname, '../../examples/bugs/continue_skips_release.cu'), 'utf8');
const lines = BUG.split('\n');
const BUG_LINE = lines.findIndex((l) => l.includes('// expect: PF403'));

/** The example with line `at` replaced. */
function withLine(at: number, text: string): string {
  return lines.map((l, i) => (i === at ? text : l)).join('\n');
}
/** The example with `text` inserted as a line before line `at`. */
function insertBefore(at: number, text: string): string {
  return [...lines.slice(0, at), text, ...lines.slice(at)].join('\n');
}
const codes = (fs: { code: string }[]) => fs.map((f) => f.code);

describe('suppression directives', () => {
  it('the example reports PF403 on its continue without a directive', async () => {
    const findings = await lint(BUG, 'cuda');
    expect(findings.filter((f) => f.code === 'PF403').map((f) => f.range.start.line)).toEqual([BUG_LINE]);
  });

  it('a directive on the finding line suppresses it, and a used directive with a reason reports nothing', async () => {
    const text = withLine(BUG_LINE, lines[BUG_LINE]!.replace('// expect: PF403', '// phaseflip-ignore PF403: tiles are never empty here'));
    expect(codes(await lint(text, 'cuda'))).toEqual([]);
  });

  it('a directive on the line before suppresses it, by code in any case or by rule id, several codes comma-separated', async () => {
    for (const directive of ['// phaseflip-ignore PF403: checked', '  // phaseflip-ignore pf403: checked', '/* phaseflip-ignore arrival-on-one-path: checked */', '// phaseflip-ignore PF103, PF403: checked']) {
      const findings = await lint(insertBefore(BUG_LINE, directive), 'cuda');
      expect(codes(findings).filter((c) => c === 'PF403'), directive).toEqual([]);
    }
    // The unused PF103 of the last directive is reported.
    const findings = await lint(insertBefore(BUG_LINE, '// phaseflip-ignore PF103, PF403: checked'), 'cuda');
    expect(findings.map((f) => [f.code, f.severity, f.range.start.line, f.message])).toEqual([
      ['PF000', 'information', BUG_LINE, expect.stringMatching(/^phaseflip-ignore PF103 suppresses nothing: there is no PF103 finding on line \d+ or \d+/)],
    ]);
  });

  it('a directive two lines above, or for another code, suppresses nothing and is reported as unused', async () => {
    const far = await lint(insertBefore(BUG_LINE - 1, '// phaseflip-ignore PF403: too far'), 'cuda');
    expect(codes(far).sort()).toEqual(['PF000', 'PF403']);
    const other = await lint(withLine(BUG_LINE, lines[BUG_LINE]!.replace('// expect: PF403', '// phaseflip-ignore PF401: wrong code')), 'cuda');
    expect(codes(other).sort()).toEqual(['PF000', 'PF403']);
    const unused = other.find((f) => f.code === 'PF000')!;
    expect(unused.family).toBe('suppression');
    expect(unused.ruleId).toBe('unused-suppression');
    expect(unused.docsUrl).toMatch(/docs\/suppressions\.md#unused-suppression$/);
  });

  it('a file-wide directive suppresses every finding of its codes in the file', async () => {
    const text = `// phaseflip-ignore-file PF403: empty tiles are filtered on the host\n${BUG}`;
    expect(codes(await lint(text, 'cuda'))).toEqual([]);
  });

  it('a directive without a reason still suppresses, and is reported (PF001) where it is written', async () => {
    const findings = await lint(insertBefore(BUG_LINE, '// phaseflip-ignore PF403'), 'cuda');
    expect(findings.map((f) => [f.code, f.range.start.line])).toEqual([['PF001', BUG_LINE]]);
    expect(findings[0]!.message).toMatch(/gives no reason/);
  });

  it('unknown codes and directives naming no rule are reported as suppressing nothing', async () => {
    const findings = await lint(insertBefore(BUG_LINE, '// phaseflip-ignore PF999, PF403: x'), 'cuda');
    expect(findings.map((f) => f.message)).toEqual([expect.stringMatching(/'PF999' is no Phaseflip rule code or id/)]);
    const bare = await lint(insertBefore(BUG_LINE, '// phaseflip-ignore'), 'cuda');
    expect(codes(bare).sort()).toEqual(['PF000', 'PF403']);
  });

  it('PF000 and PF001 are tuned like rules: off, or another severity; a rule turned off leaves its directive alone', async () => {
    const engine = await loadEngine();
    const text = insertBefore(BUG_LINE, '// phaseflip-ignore PF103, PF403');
    expect(codes(engine.analyze(text, 'cuda', { rules: { PF000: 'off', 'suppression-without-reason': 'off' } }).findings)).toEqual([]);
    expect(engine.analyze(text, 'cuda', { rules: { PF000: 'warning' } }).findings.map((f) => `${f.code}:${f.severity}`).sort()).toEqual(['PF000:warning', 'PF001:information']);
    expect(codes(engine.analyze(text, 'cuda', { rules: { PF103: 'off' } }).findings)).toEqual(['PF001']);
    expect(isKnownRule('PF000') && isKnownRule('unused-suppression') && isKnownRule('PF001')).toBe(true);
  });

  it('suppresses a Croqtile finding the same way', async () => {
    const co = readFileSync(path.join(__dirname, '../../examples/croqtile/bugs/conditional_release.co'), 'utf8');
    const coLine = co.split('\n').findIndex((l) => l.includes('// expect: PF403'));
    expect((await lint(co, 'croqtile')).map((f) => [f.code, f.range.start.line])).toEqual([['PF403', coLine]]);
    const suppressed = co.replace('// expect: PF403', '// phaseflip-ignore PF403: masked blocks are never empty here');
    expect(await lint(suppressed, 'croqtile')).toEqual([]);
  });

  it('parses Croqtile programs, whose comments are C-style too', async () => {
    const parsed = parseSuppressions('__co__ void f() {\n  // phaseflip-ignore PF501, PF202: reason\n  wait x;\n}\n');
    expect(parsed).toEqual([
      expect.objectContaining({ kind: 'line', line: 1, target: 2, reason: 'reason', codes: [expect.objectContaining({ text: 'PF501' }), expect.objectContaining({ text: 'PF202', code: 'PF202' })] }),
    ]);
    expect(parsed[0]!.codes[0]!.code).toBeUndefined();
  });

  it('a trailing directive covers its own line only; a stack of directive lines covers the code below', () => {
    const parsed = parseSuppressions('a; // phaseflip-ignore PF403: x\nb;\n// phaseflip-ignore PF403: y\n// phaseflip-ignore PF103: z\nc;\n');
    expect(parsed.map((d) => [d.line, d.target])).toEqual([
      [0, 0],
      [2, 4],
      [3, 4],
    ]);
  });
});

describe('suppression directives in headers', () => {
  let dir: string;
  const HEADER = `#pragma once
#include <cstdint>
__device__ __forceinline__ void pf_wait(uint64_t* bar, unsigned parity) {
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(parity));
}
__device__ __forceinline__ void pf_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
}
__device__ __forceinline__ void pf_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count));
}
__device__ void pf_consume(uint64_t* full, int iters) {
  unsigned phase = 0;
  for (int i = 0; i < iters; ++i) {
    if (threadIdx.x == 0) pf_arrive(full);
    pf_wait(full, phase);
  }
}
`;
  const KERNEL = `#include "barrier.cuh"
__global__ void consumer(float* out) {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) pf_init(&full, 1);
  __syncthreads();
  pf_consume(&full, 8);
}
`;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'pf-suppress-'));
    mkdirSync(dir, { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const analyse = async (header: string, kernel = KERNEL) => {
    writeFileSync(path.join(dir, 'barrier.cuh'), header);
    writeFileSync(path.join(dir, 'consumer.cu'), kernel);
    const engine = await loadEngine({ project: new Project() });
    return engine.analyze(kernel, 'cuda', {}, path.join(dir, 'consumer.cu')).findings;
  };

  it('a finding located in a header is suppressed by a directive in the header', async () => {
    const before = await analyse(HEADER);
    expect(before.map((f) => [f.code, f.range.file])).toEqual([['PF103', path.join(dir, 'barrier.cuh')]]);
    const suppressed = HEADER.replace('    pf_wait(full, phase);\n', '    // phaseflip-ignore PF103: the caller flips it\n    pf_wait(full, phase);\n');
    expect(await analyse(suppressed)).toEqual([]);
    const fileWide = `// phaseflip-ignore-file parity-never-flips: reviewed\n${HEADER}`;
    expect(await analyse(fileWide)).toEqual([]);
  });

  it('a header analysed as the document does not call its directives unused: a file including it may need them', async () => {
    const text = `// phaseflip-ignore-file PF103: reviewed\n${HEADER}`;
    writeFileSync(path.join(dir, 'barrier.cuh'), text);
    const engine = await loadEngine({ project: new Project() });
    const findings = engine.analyze(text, 'cuda', {}, path.join(dir, 'barrier.cuh')).findings;
    expect(findings.filter((f) => f.code === 'PF000')).toEqual([]);
    // The same directive in a source file that has no such finding is reported.
    const source = engine.analyze(text, 'cuda', {}, path.join(dir, 'alone.cu')).findings;
    expect(source.map((f) => f.code)).toContain('PF000');
  });

  it("a directive in the including file does not reach the header's findings, and is reported there as unused", async () => {
    const kernel = `// phaseflip-ignore-file PF103: not here\n${KERNEL}`;
    const findings = await analyse(HEADER, kernel);
    expect(findings.map((f) => [f.code, f.range.file ?? 'consumer.cu']).sort()).toEqual([
      ['PF000', 'consumer.cu'],
      ['PF103', path.join(dir, 'barrier.cuh')],
    ]);
  });
});

describe('the quick fix that suppresses a finding', () => {
  it('inserts a directive above the line with its indentation, and applying it (with a reason) silences the finding', async () => {
    const findings = await lint(BUG, 'cuda');
    const pf403 = findings.find((f) => f.code === 'PF403')!;
    const fix = suppressionFix(lines, pf403)!;
    expect(fix.title).toBe('Suppress PF403 on this line (// phaseflip-ignore)');
    expect(fix.edits).toEqual([{ range: { start: { line: BUG_LINE, character: 0 }, end: { line: BUG_LINE, character: 0 } }, newText: `${/^\s*/.exec(lines[BUG_LINE]!)![0]}// phaseflip-ignore PF403: \n` }]);
    const applied = insertBefore(BUG_LINE, fix.edits[0]!.newText.replace(/\n$/, ''));
    // Until the reason is written, PF001 asks for it; with it, nothing is reported.
    expect(codes(await lint(applied, 'cuda'))).toEqual(['PF001']);
    expect(codes(await lint(applied.replace('phaseflip-ignore PF403: ', 'phaseflip-ignore PF403: empty tiles never occur'), 'cuda'))).toEqual([]);
  });

  it('adds the code to a directive already standing above the line; none for the directives\' own findings or another file\'s', async () => {
    const text = insertBefore(BUG_LINE, '      // phaseflip-ignore PF103: reviewed');
    const all = await lint(text, 'cuda');
    const pf403 = all.find((f) => f.code === 'PF403')!;
    const fix = suppressionFix(text.split('\n'), pf403)!;
    const directiveLine = text.split('\n')[BUG_LINE]!;
    expect(fix.edits).toEqual([{ range: { start: { line: BUG_LINE, character: directiveLine.indexOf('PF103') + 5 }, end: { line: BUG_LINE, character: directiveLine.indexOf('PF103') + 5 } }, newText: ', PF403' }]);
    const unused = all.find((f) => f.code === 'PF000')!;
    expect(suppressionFix(text.split('\n'), unused)).toBeUndefined();
    expect(suppressionFix(lines, { ...pf403, range: { ...pf403.range, file: '/elsewhere/h.cuh' } })).toBeUndefined();
  });
});

describe('suppression directives in tilus (Python) files', () => {
  const SCRIPT = readFileSync(path.join(__dirname, '../fixtures/tilus/group_arms_stage_without_single_thread.bad.py'), 'utf8');
  const scriptLines = SCRIPT.split('\n');

  it('a # directive suppresses a finding; an unused one and a file-wide one work as in C-style files', async () => {
    const [finding] = await lint(SCRIPT, 'tilus');
    expect(finding!.code).toBe('PF410');
    const line = finding!.range.start.line;
    const at = (text: string) => [...scriptLines.slice(0, line), `${/^\s*/.exec(scriptLines[line]!)![0]}${text}`, ...scriptLines.slice(line)].join('\n');
    expect(await lint(at('# phaseflip-ignore PF410: the group arrives once per thread by design'), 'tilus')).toEqual([]);
    expect(codes(await lint(at('# phaseflip-ignore PF103: stale'), 'tilus'))).toEqual(['PF000', 'PF410']);
    expect(await lint(`# phaseflip-ignore-file PF410: reviewed\n${SCRIPT}`, 'tilus')).toEqual([]);
  });

  it('the quick fix writes a # comment, which Python parses, and applying it with a reason silences the finding', async () => {
    const [finding] = await lint(SCRIPT, 'tilus');
    const fix = suppressionFix(scriptLines, finding!, '#')!;
    expect(fix.title).toBe('Suppress PF410 on this line (# phaseflip-ignore)');
    const line = finding!.range.start.line;
    expect(fix.edits).toEqual([{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `${/^\s*/.exec(scriptLines[line]!)![0]}# phaseflip-ignore PF410: \n` }]);
    const applied = [...scriptLines.slice(0, line), fix.edits[0]!.newText.replace(/\n$/, 'one arrival per thread is intended'), ...scriptLines.slice(line)].join('\n');
    const engine = await getEngine();
    const doc = engine.openDocument('tilus', applied);
    const result = doc.analyze();
    doc.dispose();
    expect(result.syntaxProblems).toEqual([]);
    expect(result.findings).toEqual([]);
    // A # directive already above the line gets the code added.
    const stacked = [...scriptLines.slice(0, line), '            # phaseflip-ignore PF103: reviewed', ...scriptLines.slice(line)];
    const [again] = (await lint(stacked.join('\n'), 'tilus')).filter((f) => f.code === 'PF410');
    expect(suppressionFix(stacked, again!, '#')!.edits[0]!.newText).toBe(', PF410');
  });
});
