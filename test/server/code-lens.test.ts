// Code lenses over the real protocol (dist/server.js): "Debug kernel" and "Add to launch.json"
// above every kernel with the derived launch configuration, none for template kernels, and the
// `phaseflip.codeLens.enabled` setting honoured at start and when it changes.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CodeLens, CodeLensRefreshRequest, CodeLensRequest, DidChangeConfigurationNotification } from 'vscode-languageserver-protocol/node';
import { ROOT, TestClient, requireBuild } from './lsp-client';

const FAST = { lint: { debounceMs: 0 } };
const EXAMPLE = path.join(ROOT, 'examples/good/producer_missing_bootstrap.cu');
const EXAMPLE_URI = 'file://' + EXAMPLE;

function lenses(client: TestClient, uri: string): Promise<CodeLens[] | null> {
  return client.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('code lenses', () => {
  it('offers Debug kernel and Add to launch.json with the derived configuration', async () => {
    requireBuild();
    const client = await TestClient.start();
    try {
      const init = await client.initialize({ initializationOptions: FAST });
      expect(init.capabilities.codeLensProvider).toEqual({ resolveProvider: false });
      const text = readFileSync(EXAMPLE, 'utf8');
      await client.open(EXAMPLE_URI, text);
      const got = (await lenses(client, EXAMPLE_URI)) ?? [];
      expect(got.map((l) => l.command?.command)).toEqual(['phaseflip.debugKernel', 'phaseflip.addLaunchConfiguration']);
      expect(got.map((l) => l.command?.title)).toEqual(['Debug kernel', 'Add to launch.json']);
      const line = text.split('\n').findIndex((l) => l.includes('__global__'));
      expect(got[0]!.range.start).toEqual({ line, character: 0 });
      const [config, uri] = got[0]!.command!.arguments!;
      expect(uri).toBe(EXAMPLE_URI);
      expect(config).toMatchObject({ type: 'phaseflip', request: 'launch', program: EXAMPLE, kernel: 'stream_sum', grid: 1, block: 160 });
      expect(config.args.map((a: string) => a.split('=')[0])).toEqual(['in', 'out', 'num_tiles']);
    } finally {
      await client.stop();
    }
  });

  it('follows edits, skips template kernels and covers Croqtile __co__ functions', async () => {
    requireBuild();
    const client = await TestClient.start();
    try {
      await client.initialize({ initializationOptions: FAST });
      const uri = 'file:///lens/two.cu';
      await client.open(uri, 'template <int N> __global__ void t(float* p) {}\n__global__ void a(float* out) {}\n');
      expect(((await lenses(client, uri)) ?? []).map((l) => [l.range.start.line, l.command?.arguments?.[0].kernel])).toEqual([
        [1, 'a'],
        [1, 'a'],
      ]);
      await client.change(uri, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '\n__global__ void b(int n) {}\n' }]);
      expect(((await lenses(client, uri)) ?? []).filter((l) => l.command?.command === 'phaseflip.debugKernel').map((l) => [l.range.start.line, l.command?.arguments?.[0].kernel])).toEqual([
        [1, 'b'],
        [3, 'a'],
      ]);
      const co = 'file:///lens/g.co';
      await client.open(co, readFileSync(path.join(ROOT, 'examples/croqtile/sim/gemm_1p1c.co'), 'utf8'), 'croqtile');
      const coLens = ((await lenses(client, co)) ?? [])[0];
      expect(coLens?.command?.arguments?.[0]).toMatchObject({ kernel: 'gemm_1p1c', program: '/lens/g.co' });
      expect(coLens?.command?.arguments?.[0].grid).toBeUndefined();
      // An untitled document keeps its URI as the program: the client asks the user to save it.
      await client.open('untitled:Untitled-1', '__global__ void u(float* out) {}\n');
      expect(((await lenses(client, 'untitled:Untitled-1')) ?? [])[0]?.command?.arguments?.[0].program).toBe('untitled:Untitled-1');
    } finally {
      await client.stop();
    }
  });

  it('honours phaseflip.codeLens.enabled from initializationOptions and from a configuration change, asking for a refresh', async () => {
    requireBuild();
    let setting = false;
    const options = {
      initializationOptions: { ...FAST, codeLens: { enabled: false } },
      configuration: () => [{ ...FAST, codeLens: { enabled: setting } }],
    };
    const client = await TestClient.start(options);
    let refreshes = 0;
    client.connection.onRequest(CodeLensRefreshRequest.type, () => {
      refreshes++;
      return null;
    });
    try {
      await client.initialize({ ...options, capabilities: { workspace: { codeLens: { refreshSupport: true } } } });
      await waitUntil(() => client.configurationRequests.length > 0);
      await client.open(EXAMPLE_URI, readFileSync(EXAMPLE, 'utf8'));
      expect(await lenses(client, EXAMPLE_URI)).toEqual([]);
      setting = true;
      await client.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      await waitUntil(() => refreshes === 1);
      expect(((await lenses(client, EXAMPLE_URI)) ?? []).length).toBe(2);
      setting = false;
      await client.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      await waitUntil(() => refreshes === 2);
      expect(await lenses(client, EXAMPLE_URI)).toEqual([]);
    } finally {
      await client.stop();
    }
  });
});
