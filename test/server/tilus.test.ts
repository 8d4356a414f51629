// The language server on Python documents: one that imports tilus gets findings, quick fixes, hovers and
// barrier symbols; one that does not gets nothing (no diagnostics, no hover), even after edits; adding
// `import tilus` to an open document makes it a tilus document.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestClient, requireBuild } from './lsp-client';

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
