// Protocol tests: spawn the bundled language server and drive it with a real JSON-RPC client.
// Tests marked [engine] need the rules / hover provider from core/ to produce results.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CodeAction,
  type Diagnostic,
  DiagnosticSeverity,
  type TextDocumentEdit,
  type TextEdit,
  TextDocumentSyncKind,
} from 'vscode-languageserver-protocol/node';
import { CLI_JS, TestClient, type Transport, requireBuild, withTimeout } from './lsp-client';
import { CLEAN_KERNEL, PF105_KERNEL, PF105_LINE, TRY_WAIT_COLUMN, bigSource, nestedBraces } from './kernels';

const FAST = { lint: { debounceMs: 0 } };
const pf105 = (d: Diagnostic) => d.code === 'PF105';

describe('language server over stdio (dist/server.js)', () => {
  let client: TestClient;
  let capabilities: Awaited<ReturnType<TestClient['initialize']>>;

  beforeAll(async () => {
    requireBuild();
    client = await TestClient.start();
    capabilities = await client.initialize({ initializationOptions: FAST });
  });

  afterAll(async () => {
    const code = await client.stop();
    expect(code, client.stderr).toBe(0);
  });

  it('announces incremental sync, hover, quick fixes and document symbols', () => {
    const caps = capabilities.capabilities;
    expect(caps.textDocumentSync).toMatchObject({ openClose: true, change: TextDocumentSyncKind.Incremental });
    expect(caps.hoverProvider).toBe(true);
    expect(caps.codeActionProvider).toMatchObject({ codeActionKinds: ['quickfix'] });
    expect(caps.documentSymbolProvider).toBe(true);
    expect(capabilities.serverInfo?.name).toBe('phaseflip');
  });

  it('publishes versioned diagnostics on open and after each incremental edit', async () => {
    const uri = 'file:///plumbing/clean.cu';
    const other = 'file:///plumbing/notes.txt';
    await client.open(other, 'not cuda', 'plaintext');
    await client.open(uri, CLEAN_KERNEL);
    const v1 = await client.waitForDiagnostics(uri, (p) => p.version === 1);
    expect(v1.diagnostics).toEqual([]);
    await client.change(uri, 2, [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: '// edit\n' }]);
    await client.waitForDiagnostics(uri, (p) => p.version === 2);
    await client.change(uri, 3, [{ range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, text: '' }]);
    await client.waitForDiagnostics(uri, (p) => p.version === 3);
    // Documents that are neither cuda-cpp/cuda nor .cu/.cuh are not linted.
    expect(client.diagnostics.some((p) => p.uri === other)).toBe(false);
    // Files recognised by extension are linted whatever the language id.
    await client.open('file:///plumbing/header.cuh', CLEAN_KERNEL, 'cpp');
    await client.waitForDiagnostics('file:///plumbing/header.cuh', (p) => p.version === 1);
    // Closing clears the document's diagnostics.
    await client.close(uri);
    await client.waitForDiagnostics(uri, (p) => p.version === undefined && p.diagnostics.length === 0);
  });

  it('answers documentSymbol with an array', async () => {
    const uri = 'file:///symbols.cu';
    await client.open(uri, PF105_KERNEL);
    const symbols = await client.documentSymbols(uri);
    expect(Array.isArray(symbols)).toBe(true);
  });

  describe('PF105 on the discarded try_wait [engine]', () => {
    const uri = 'file:///pf105/kernel.cu';
    let diagnostic: Diagnostic;

    it('reports PF105 with source, code and a docs link', async () => {
      await client.open(uri, PF105_KERNEL);
      const published = await client.waitForDiagnostics(uri, (p) => p.version === 1);
      const found = published.diagnostics.find(pf105);
      expect(found, JSON.stringify(published.diagnostics)).toBeDefined();
      diagnostic = found!;
      expect(diagnostic.source).toBe('phaseflip');
      expect(diagnostic.range.start.line).toBe(PF105_LINE);
      expect(diagnostic.codeDescription?.href).toMatch(/^https?:\/\//);
      expect([DiagnosticSeverity.Error, DiagnosticSeverity.Warning]).toContain(diagnostic.severity);
    });

    it('hovers over mbarrier_try_wait with markdown', async () => {
      const hover = await client.hover(uri, { line: PF105_LINE, character: TRY_WAIT_COLUMN + 3 });
      expect(hover).not.toBeNull();
      const contents = hover!.contents as { kind: string; value: string };
      expect(contents.kind).toBe('markdown');
      expect(contents.value.trim().length).toBeGreaterThan(0);
    });

    it('offers the quick fix, and applying it as an incremental edit clears PF105', async () => {
      expect(diagnostic, 'needs the PF105 diagnostic from the previous test').toBeDefined();
      const actions = (await client.codeActions(uri, diagnostic.range, [diagnostic])) as CodeAction[];
      expect(actions.length).toBeGreaterThan(0);
      const fix = actions.find((a) => a.isPreferred) ?? actions[0]!;
      expect(fix.kind).toBe('quickfix');
      expect(fix.diagnostics?.map((d) => d.code)).toEqual(['PF105']);
      const docEdits = fix.edit?.documentChanges as TextDocumentEdit[] | undefined;
      expect(docEdits?.[0]?.textDocument).toEqual({ uri, version: 1 });
      const edits = docEdits![0]!.edits as TextEdit[];
      expect(edits.length).toBeGreaterThan(0);

      // Apply the (non-overlapping) edits back to front so each range is still valid when sent.
      const ordered = [...edits].sort(
        (a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character,
      );
      const from = client.diagnostics.length;
      await client.change(uri, 2, ordered.map((e) => ({ range: e.range, text: e.newText })));
      const after = await client.waitForDiagnostics(uri, (p) => p.version === 2, 20_000, from);
      expect(after.diagnostics.filter(pf105)).toEqual([]);
    });

    it('finds quick fixes from the last published findings when the client sends no diagnostics', async () => {
      const uri2 = 'file:///pf105/no-context.cu';
      await client.open(uri2, PF105_KERNEL);
      const published = await client.waitForDiagnostics(uri2, (p) => p.version === 1);
      const d = published.diagnostics.find(pf105);
      expect(d).toBeDefined();
      const actions = (await client.codeActions(uri2, d!.range, [])) as CodeAction[];
      expect(actions.length).toBeGreaterThan(0);
    });
  });

  it('keeps serving after binary text, invalid UTF-8, a 2 MB file, 5,000 nested braces and bad edits', { timeout: 180_000 }, async () => {
    const stillServing = async (label: string) => {
      // Any answer (null included) proves the server is alive and its queue is not stuck.
      await withTimeout(client.hover('file:///garbage/probe.cu', { line: 0, character: 0 }), 60_000, `hover after ${label}`);
      expect(client.alive, `${label}\n${client.stderr}`).toBe(true);
    };
    await client.open('file:///garbage/probe.cu', PF105_KERNEL);

    // Binary bytes (NULs, control characters) and unpaired surrogates as document text.
    let binary = '';
    for (let i = 0; i < 64 * 1024; i++) binary += String.fromCharCode((i * 7919) % 256);
    binary += '\ud800\udfff\udc00 \ud83d';
    await client.open('file:///garbage/binary.cu', binary);
    await client.waitForDiagnostics('file:///garbage/binary.cu', (p) => p.version === 1, 60_000);
    await stillServing('binary');

    // Invalid UTF-8 on the wire, inside the JSON string of a didOpen.
    const body = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///garbage/raw.cu","languageId":"cuda-cpp","version":1,"text":"__global__ void k() { '),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]),
      Buffer.from(' }"}}}'),
    ]);
    client.process.stdin!.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
    await client.waitForDiagnostics('file:///garbage/raw.cu', (p) => p.version === 1, 60_000);
    await stillServing('invalid UTF-8');

    // A 2 MB file.
    await client.open('file:///garbage/big.cu', bigSource(2 * 1024 * 1024));
    await client.waitForDiagnostics('file:///garbage/big.cu', (p) => p.version === 1, 60_000);
    await stillServing('2 MB');

    // 5,000 nested braces, then an edit inside them.
    const deep = nestedBraces(5000);
    await client.open('file:///garbage/deep.cu', deep);
    await client.waitForDiagnostics('file:///garbage/deep.cu', (p) => p.version === 1, 60_000);
    await client.change('file:///garbage/deep.cu', 2, [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: 'x' }]);
    await client.waitForDiagnostics('file:///garbage/deep.cu', (p) => p.version === 2, 60_000);
    await stillServing('nested braces');

    // Edits with out-of-range and inverted positions, and requests for unknown documents.
    await client.change('file:///garbage/probe.cu', 2, [
      { range: { start: { line: 1_000_000, character: 5 }, end: { line: 1_000_001, character: 0 } }, text: 'tail' },
      { range: { start: { line: 3, character: 40 }, end: { line: 1, character: 2 } }, text: '' },
      { range: { start: { line: 0, character: 1_000_000 }, end: { line: 0, character: 1_000_000 } }, text: '\r\n' },
    ]);
    await client.waitForDiagnostics('file:///garbage/probe.cu', (p) => p.version === 2, 60_000);
    await client.change('file:///garbage/never-opened.cu', 7, [{ text: 'x' }]);
    await client.hover('file:///garbage/never-opened.cu', { line: 0, character: 0 });
    await client.hover('file:///garbage/probe.cu', { line: 99_999, character: 99_999 });
    await client.codeActions('file:///garbage/probe.cu', { start: { line: 5, character: 0 }, end: { line: 0, character: 0 } }, [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: 'x', source: 'phaseflip', data: { fixes: 'nope' } },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: 'y', source: 'phaseflip', data: { fixes: [{ title: 't', edits: 'bad' }] } } as Diagnostic,
    ]).catch(() => undefined);
    await stillServing('bad edits');

    // And it still lints.
    await client.open('file:///garbage/after.cu', CLEAN_KERNEL);
    await client.waitForDiagnostics('file:///garbage/after.cu', (p) => p.version === 1);
  });
});

describe('settings', () => {
  it('pulls the phaseflip section via workspace/configuration and registers for changes', async () => {
    requireBuild();
    const options = {
      initializationOptions: { lint: { debounceMs: 5_000 } },
      configuration: () => [{ lint: { debounceMs: 0 }, rules: { PF105: 'hint' } }],
    };
    const client = await TestClient.start(options);
    try {
      await client.initialize(options);
      await waitUntil(() => client.configurationRequests.length > 0);
      expect(client.configurationRequests[0]!.items).toEqual([{ section: 'phaseflip' }]);
      expect(client.registrations).toContain('workspace/didChangeConfiguration');
      // The pulled debounce (0) replaces the initializationOptions one (5 s): edits publish at once.
      const uri = 'file:///settings/pull.cu';
      await client.open(uri, CLEAN_KERNEL);
      await client.waitForDiagnostics(uri, (p) => p.version === 1);
      await client.change(uri, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: ' ' }]);
      await client.waitForDiagnostics(uri, (p) => p.version === 2, 2_000);
    } finally {
      await client.stop();
    }
  });

  it('applies rule severity overrides from workspace/configuration [engine]', async () => {
    const options = { configuration: () => [{ lint: { debounceMs: 0 }, rules: { PF105: 'hint' } }] };
    const client = await TestClient.start(options);
    try {
      await client.initialize(options);
      await waitUntil(() => client.configurationRequests.length > 0);
      const uri = 'file:///settings/hint.cu';
      await client.open(uri, PF105_KERNEL);
      const published = await client.waitForDiagnostics(uri, (p) => p.version === 1);
      expect(published.diagnostics.find(pf105)?.severity, JSON.stringify(published.diagnostics)).toBe(DiagnosticSeverity.Hint);
    } finally {
      await client.stop();
    }
  });

  it('turns a rule off from initializationOptions', async () => {
    const options = { initializationOptions: { lint: { debounceMs: 0 }, rules: { 'PF105': 'off', 'bogus-rule': 'loud' } } };
    const client = await TestClient.start(options);
    try {
      await client.initialize(options);
      const uri = 'file:///settings/off.cu';
      await client.open(uri, PF105_KERNEL);
      const published = await client.waitForDiagnostics(uri, (p) => p.version === 1);
      expect(published.diagnostics.filter(pf105)).toEqual([]);
      // The invalid severity was reported, not fatal.
      await waitUntil(() => client.logs.some((m) => m.includes('bogus-rule')));
    } finally {
      await client.stop();
    }
  });
});

describe('transports and entry points', () => {
  const cases: { name: string; transport: Transport; script?: string[] }[] = [
    { name: 'dist/server.js --node-ipc', transport: 'ipc' },
    { name: 'dist/server.js --socket=PORT', transport: 'socket' },
    { name: 'dist/server.js --pipe=NAME', transport: 'pipe' },
    { name: 'phaseflip lsp --stdio', transport: 'stdio', script: [CLI_JS, 'lsp'] },
  ];
  for (const c of cases) {
    it(`serves over ${c.name}`, async () => {
      requireBuild();
      const client = await TestClient.start({ transport: c.transport, script: c.script });
      try {
        const init = await client.initialize({ initializationOptions: FAST });
        expect(init.capabilities.textDocumentSync).toMatchObject({ change: TextDocumentSyncKind.Incremental });
        await client.open('file:///t/k.cu', CLEAN_KERNEL);
        await client.waitForDiagnostics('file:///t/k.cu', (p) => p.version === 1);
      } finally {
        expect(await client.stop()).toBe(0);
      }
    });
  }
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
