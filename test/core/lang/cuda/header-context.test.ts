// A header is read the way the compiler reads it: inside the translation unit of a file known to include it
// (test/fixtures/projects/header-context: a part of a library included inside a namespace after the macro it
// is written with). Alone it does not parse, and says so in a note; in context it parses and is analysed at
// the includer's launch shape. The CLI reads sources first and analyses a header named before its includer
// again once the includer is known.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEngine } from '../../../../core/index';
import { Project } from '../../../../core/project/project';
import { ROOT, requireBuild, runPhaseflip } from '../../../server/lsp-client';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'projects', 'header-context');
const PART = path.join(FIXTURE, 'include', 'ctx', 'consume.cuh');
const RING = path.join(FIXTURE, 'include', 'ctx', 'ring.cuh');
const BAD = path.join(FIXTURE, 'src', 'bad-three-warps.cu');
const GOOD = path.join(FIXTURE, 'src', 'good-three-warps.cu');
const read = (p: string) => readFileSync(p, 'utf8');
const ARRIVE_LINE = read(PART).split('\n').findIndex((l) => l.includes('pf::mbar_arrive(empty)'));

async function freshEngine() {
  const project = new Project();
  return { project, engine: await loadEngine({ project }) };
}

describe('a header analysed in the translation unit of a file that includes it', () => {
  it('alone: syntax errors, no finding, and a note that says it was read alone', async () => {
    const { engine } = await freshEngine();
    const alone = engine.analyze(read(PART), 'cuda', {}, PART);
    expect(alone.context).toBeUndefined();
    expect(alone.syntaxProblems.length).toBeGreaterThan(0);
    expect(alone.findings).toEqual([]);
    const note = (alone.notes ?? []).find((n) => n.kind === 'header-alone');
    expect(note?.message).toMatch(/read alone \(no file known to include it\).*lint it together with that file/);
  });

  it('once a source including it was analysed: parsed in its context, with the source\'s launch shape', async () => {
    const { engine } = await freshEngine();
    engine.analyze(read(BAD), 'cuda', {}, BAD);
    const inContext = engine.analyze(read(PART), 'cuda', {}, PART);
    expect(inContext.context).toBe(BAD);
    expect(inContext.syntaxProblems).toEqual([]);
    expect((inContext.notes ?? []).some((n) => n.kind === 'header-alone')).toBe(false);
    expect(inContext.findings.map((f) => `${f.range.file ?? 'self'}:${f.range.start.line}: ${f.code}`)).toEqual([`self:${ARRIVE_LINE}: PF401`]);
    // The kernel it was reached from is a location in the source.
    expect(inContext.findings[0].related.some((r) => r.range.file === BAD && /reached from kernel 'ring_kernel'/.test(r.message))).toBe(true);
    // The source itself is one of the files the header's analysis read: editing it lints the header again.
    expect(inContext.dependencies).toContain(BAD);
  });

  it("the good twin as context: clean; a header's edits are its own text, the includer read from the project", async () => {
    const { engine } = await freshEngine();
    engine.analyze(read(GOOD), 'cuda', {}, GOOD);
    expect(engine.analyze(read(PART), 'cuda', {}, PART).findings).toEqual([]);
    // The editor's unsaved text of the header is what gets analysed (here: the arrive made elected).
    const edited = read(PART).replace('pf::mbar_arrive(empty);', 'if (threadIdx.x % 32 == 0) pf::mbar_arrive(empty);');
    const r = engine.analyze(edited, 'cuda', {}, PART);
    expect(r.context).toBe(GOOD);
    expect(r.syntaxProblems).toEqual([]);
  });

  it('a header included by a header: the context is the source at the top of the chain', async () => {
    const { project, engine } = await freshEngine();
    engine.analyze(read(RING), 'cuda', {}, RING);
    expect(project.contextFor(PART)).toBe(RING);
    engine.analyze(read(BAD), 'cuda', {}, BAD);
    // A source outranks a header as the context, and the header's own context is followed up.
    expect(project.contextFor(PART)).toBe(BAD);
    expect(project.contextFor(RING)).toBe(BAD);
  });
});

describe('Project.contextFor', () => {
  it('prefers a source, then a header nothing is known to include; follows chains; survives cycles', () => {
    const p = new Project();
    p.noteInclusions('/w/a.cuh', ['/w/x.cuh']);
    expect(p.contextFor('/w/x.cuh')).toBe('/w/a.cuh');
    p.noteInclusions('/w/k.cu', ['/w/y.cuh', '/w/x.cuh']);
    expect(p.contextFor('/w/x.cuh')).toBe('/w/k.cu');
    // A later source does not replace an earlier one.
    p.noteInclusions('/w/l.cu', ['/w/x.cuh']);
    expect(p.contextFor('/w/x.cuh')).toBe('/w/k.cu');
    // Two headers including each other (guarded): no endless walk.
    p.noteInclusions('/w/c1.cuh', ['/w/c2.cuh']);
    p.noteInclusions('/w/c2.cuh', ['/w/c1.cuh']);
    expect(['/w/c1.cuh', '/w/c2.cuh']).toContain(p.contextFor('/w/c1.cuh'));
    expect(p.contextFor('/w/unknown.cuh')).toBeUndefined();
  });
});

describe('phaseflip lint with a header named before the file that includes it', () => {
  it('reads the source first: the header part is analysed in its context, its finding reported once on it', async () => {
    requireBuild();
    const r = await runPhaseflip(['lint', '--notes', 'include/ctx/consume.cuh', 'src/bad-three-warps.cu'], FIXTURE);
    expect(r.status).toBe(1);
    const errors = r.stdout.split('\n').filter((l) => /: (error|warning) PF\d+/.test(l));
    expect(errors.map((l) => l.replace(/ PF401 .*/, ' PF401'))).toEqual([`include/ctx/consume.cuh:${ARRIVE_LINE + 1}:5: error PF401`]);
    expect(r.stdout).not.toContain('read alone');
  }, 60_000);

  it('the header alone: no finding, and the note says it was read alone', async () => {
    requireBuild();
    const r = await runPhaseflip(['lint', '--notes', 'include/ctx/consume.cuh'], FIXTURE);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('read alone (no file known to include it)');
  }, 60_000);
});
