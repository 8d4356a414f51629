// The language server on Python documents: one that imports tilus gets findings, quick fixes, hovers and
// barrier symbols; one that does not gets nothing (no diagnostics, no hover), even after edits; adding
// `import tilus` to an open document makes it a tilus document. Above each Script, code lenses summarise its
// autotune space, barriers and findings and peek at them; they follow edits and suppressions.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { type CodeLens, CodeLensRefreshRequest, CodeLensRequest, type Location } from 'vscode-languageserver-protocol/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CAPABILITIES, ROOT, TestClient, requireBuild } from './lsp-client';

const FAST = { lint: { debounceMs: 0 } };
const BUG = readFileSync(path.join(ROOT, 'test/fixtures/tilus/group_arms_stage_without_single_thread.bad.py'), 'utf8');
const PLAIN = BUG.replace('import tilus\n', 'import torch\n').replace('from tilus import float16, float32, int32, uint32\n', '');

describe('language server: tilus (Python) documents', () => {
  let client: TestClient;

  beforeAll(async () => {
    requireBuild();
    client = await TestClient.start();
    await client.initialize({ initializationOptions: FAST });
  });

  afterAll(async () => {
    const code = await client.stop();
    expect(code, client.stderr).toBe(0);
  });

  it('lints a Python file that imports tilus, with a quick fix, hovers and symbols', async () => {
    const uri = 'file:///tilus/bug.py';
    await client.open(uri, BUG, 'python');
    const d = await client.waitForDiagnostics(uri, (p) => p.version === 1);
    expect(d.diagnostics.map((x) => x.code)).toEqual(['PF410']);
    const actions = await client.codeActions(uri, d.diagnostics[0]!.range, d.diagnostics);
    expect(JSON.stringify(actions)).toContain('single_thread');
    // The suppression quick fix writes a Python comment.
    const suppress = (actions ?? []).find((a) => a.title.startsWith('Suppress PF410')) as { title: string; edit?: unknown } | undefined;
    expect(suppress?.title).toBe('Suppress PF410 on this line (# phaseflip-ignore)');
    expect(JSON.stringify(suppress?.edit)).toMatch(/"newText":" *# phaseflip-ignore PF410: \\n"/);
    const line = BUG.split('\n').findIndex((l) => l.includes('self.mbarrier.wait(empty'));
    const hover = await client.hover(uri, { line, character: BUG.split('\n')[line]!.indexOf('wait') + 1 });
    expect(JSON.stringify(hover)).toContain('phase');
    const symbols = (await client.documentSymbols(uri)) as { name: string }[];
    expect(symbols.map((s) => s.name)).toEqual(['full', 'empty']);
  });

  it('leaves other Python files alone, until they import tilus', async () => {
    const uri = 'file:///tilus/plain.py';
    await client.open(uri, PLAIN, 'python');
    const d = await client.waitForDiagnostics(uri, (p) => p.version === 1);
    expect(d.diagnostics).toEqual([]);
    const line = PLAIN.split('\n').findIndex((l) => l.includes('self.mbarrier.wait(empty'));
    expect(await client.hover(uri, { line, character: PLAIN.split('\n')[line]!.indexOf('wait') + 1 })).toBeNull();
    await client.change(uri, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'import tilus\n' }]);
    const after = await client.waitForDiagnostics(uri, (p) => p.version === 2);
    expect(after.diagnostics.map((x) => x.code)).toEqual(['PF410']);
  });
});

describe('language server: code lenses above tilus Scripts', () => {
  const BUGGY = readFileSync(path.join(ROOT, 'examples/tilus/bugs/tma_pipeline.py'), 'utf8');
  const GOOD = readFileSync(path.join(ROOT, 'examples/tilus/good/tma_pipeline.py'), 'utf8');
  const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle));
  let client: TestClient;
  let refreshes = 0;

  beforeAll(async () => {
    requireBuild();
    client = await TestClient.start();
    client.connection.onRequest(CodeLensRefreshRequest.type, () => {
      refreshes++;
      return null;
    });
    await client.initialize({ initializationOptions: FAST, capabilities: { ...DEFAULT_CAPABILITIES, workspace: { ...DEFAULT_CAPABILITIES.workspace, codeLens: { refreshSupport: true } } } });
  });

  afterAll(async () => {
    const code = await client.stop();
    expect(code, client.stderr).toBe(0);
  });

  const lenses = async (uri: string) => ((await client.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) ?? []) as CodeLens[];
  const peeked = (lens: CodeLens) => {
    expect(lens.command?.command).toBe('phaseflip.peekLocations');
    const [uri, position, locations] = lens.command!.arguments as [string, { line: number; character: number }, Location[]];
    return { uri, position, lines: locations.map((l) => l.range.start.line), locations };
  };

  it('a buggy Script: its autotune space and barriers (peeking at their allocations), and its findings (peeking at them)', async () => {
    const uri = 'file:///tilus-lens/bug.py';
    await client.open(uri, BUGGY, 'python');
    const d = await client.waitForDiagnostics(uri, (p) => p.version === 1);
    expect(d.diagnostics.map((x) => x.code)).toEqual(['PF201']);
    const got = await lenses(uri);
    // Above the decorators: the lens is about the whole decorated class.
    const top = lineOf(BUGGY, '@tilus.autotune');
    expect(got.map((l) => l.range.start)).toEqual([
      { line: top, character: 0 },
      { line: top, character: 0 },
    ]);
    expect(got.map((l) => l.command?.title)).toEqual(['4 autotune combinations analysed · 2 barriers', '1 finding (PF201)']);
    const barriers = peeked(got[0]!);
    expect(barriers.uri).toBe(uri);
    expect(barriers.position).toEqual({ line: top, character: 0 });
    expect(barriers.lines).toEqual([lineOf(BUGGY, 'full = self.mbarrier.alloc'), lineOf(BUGGY, 'empty = self.mbarrier.alloc')]);
    const findings = peeked(got[1]!);
    expect(findings.locations.map((l) => l.range)).toEqual(d.diagnostics.map((x) => x.range));
    expect(findings.locations.every((l) => l.uri === uri)).toBe(true);
  });

  it('the fixed Script says it has no findings; a file of two Scripts gets one lens each; a Python file without tilus none', async () => {
    const uri = 'file:///tilus-lens/good.py';
    await client.open(uri, GOOD, 'python');
    await client.waitForDiagnostics(uri, (p) => p.version === 1);
    expect((await lenses(uri)).map((l) => l.command?.title)).toEqual(['4 autotune combinations analysed · 2 barriers · no findings']);

    const second = GOOD.slice(GOOD.indexOf('@tilus.autotune')).replace(/class TmaPipeline/, 'class Untuned').replace(/@tilus\.autotune\([^\n]*\n/g, '').replace('def __init__(self, num_stages, block_k,', 'def __init__(self, num_stages=3, block_k=64,');
    const two = `${BUGGY}\n\n${second}`;
    const both = 'file:///tilus-lens/two.py';
    await client.open(both, two, 'python');
    await client.waitForDiagnostics(both, (p) => p.version === 1);
    const got = await lenses(both);
    expect(got.map((l) => [l.range.start.line, l.command?.title])).toEqual([
      [lineOf(BUGGY, '@tilus.autotune'), '4 autotune combinations analysed · 2 barriers'],
      [lineOf(BUGGY, '@tilus.autotune'), '1 finding (PF201)'],
      [lineOf(two, 'class Untuned'), '2 barriers · no findings'],
    ]);

    const plain = 'file:///tilus-lens/plain.py';
    await client.open(plain, BUGGY.replace('import tilus\n', 'import torch\n').replace(/^from tilus import .*\n/m, ''), 'python');
    await client.waitForDiagnostics(plain, (p) => p.version === 1);
    expect(await lenses(plain)).toEqual([]);
  });

  it('follow the diagnostics: a suppression removes the finding from the lens, and the client is asked to refresh', async () => {
    const uri = 'file:///tilus-lens/suppressed.py';
    await client.open(uri, BUGGY, 'python');
    await client.waitForDiagnostics(uri, (p) => p.version === 1);
    expect((await lenses(uri)).map((l) => l.command?.title)).toEqual(['4 autotune combinations analysed · 2 barriers', '1 finding (PF201)']);
    const before = refreshes;
    const line = lineOf(BUGGY, 'self.mbarrier.wait(empty[stage], phase=phase)');
    await client.change(uri, 2, [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: '                # phaseflip-ignore PF201: the consumers pre-arrive in a prologue this sample leaves out\n' }]);
    const after = await client.waitForDiagnostics(uri, (p) => p.version === 2);
    expect(after.diagnostics.filter((x) => x.code === 'PF201')).toEqual([]);
    for (let i = 0; i < 200 && refreshes === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(refreshes).toBeGreaterThan(before);
    expect((await lenses(uri)).map((l) => l.command?.title)).toEqual(['4 autotune combinations analysed · 2 barriers · no findings']);
  });
});
