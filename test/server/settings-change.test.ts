// didChangeConfiguration over the real protocol: a rule severity change re-lints open documents at
// once, a rule turned off disappears, and a new debounce applies to the next edit.
import { describe, expect, it } from 'vitest';
import { DiagnosticSeverity, DidChangeConfigurationNotification } from 'vscode-languageserver-protocol/node';
import { PF105_KERNEL } from './kernels';
import { TestClient, requireBuild } from './lsp-client';

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('settings changes', () => {
  it('re-lints on a rule change and applies a new debounce to the next edit [engine]', async () => {
    requireBuild();
    let section: Record<string, unknown> = { lint: { debounceMs: 0 }, rules: {} };
    const options = { configuration: () => [section] };
    const client = await TestClient.start(options);
    try {
      await client.initialize(options);
      await waitUntil(() => client.configurationRequests.length > 0);
      const uri = 'file:///settings/change.cu';
      await client.open(uri, PF105_KERNEL);
      const first = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF105'));
      expect(first.diagnostics.find((d) => d.code === 'PF105')?.severity).not.toBe(DiagnosticSeverity.Hint);

      section = { lint: { debounceMs: 0 }, rules: { PF105: 'hint' } };
      let seen = client.diagnostics.length;
      await client.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      const hinted = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF105'), 10_000, seen);
      expect(hinted.diagnostics.find((d) => d.code === 'PF105')?.severity).toBe(DiagnosticSeverity.Hint);

      section = { lint: { debounceMs: 0 }, rules: { PF105: 'off' } };
      seen = client.diagnostics.length;
      await client.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      const off = await client.waitForDiagnostics(uri, () => true, 10_000, seen);
      expect(off.diagnostics.filter((d) => d.code === 'PF105')).toEqual([]);

      // A long debounce: an edit publishes nothing for a while (the old 0 ms would publish at once).
      section = { lint: { debounceMs: 1_500 }, rules: { PF105: 'off' } };
      await client.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      await waitUntil(() => client.configurationRequests.length >= 4);
      await new Promise((r) => setTimeout(r, 100));
      seen = client.diagnostics.length;
      const sent = Date.now();
      await client.change(uri, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: ' ' }]);
      await client.waitForDiagnostics(uri, (p) => p.version === 2, 10_000, seen);
      expect(Date.now() - sent).toBeGreaterThanOrEqual(1_400);
    } finally {
      await client.stop();
    }
  });
});
