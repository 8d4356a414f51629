// textDocument/inlineValue over the real protocol (dist/server.js): variable lookups for the stopped
// function's names down to the stopped line, which VS Code resolves against the debugger's Locals.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type InlineValue, InlineValueRequest } from 'vscode-languageserver-protocol/node';
import { ROOT, TestClient, requireBuild } from './lsp-client';

const EXAMPLE = path.join(ROOT, 'examples/good/producer_missing_bootstrap.cu');
const EXAMPLE_URI = 'file://' + EXAMPLE;

describe('inline values', () => {
  it('announces the provider and answers variable lookups up to the stopped line', async () => {
    requireBuild();
    const client = await TestClient.start();
    try {
      const init = await client.initialize({ initializationOptions: { lint: { debounceMs: 0 } } });
      expect(init.capabilities.inlineValueProvider).toBe(true);
      const text = readFileSync(EXAMPLE, 'utf8');
      await client.open(EXAMPLE_URI, text);
      const lines = text.split('\n');
      const stop = lines.findIndex((l, i) => i > lines.findIndex((x) => x.includes('__global__')) + 3 && /\bfor\b/.test(l));
      expect(stop).toBeGreaterThan(0);
      const got = (await client.connection.sendRequest(InlineValueRequest.type, {
        textDocument: { uri: EXAMPLE_URI },
        range: { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: 0 } },
        context: { frameId: 1, stoppedLocation: { start: { line: stop, character: 0 }, end: { line: stop, character: 0 } } },
      })) as InlineValue[];
      expect(got.length).toBeGreaterThan(0);
      for (const v of got) {
        expect(v).toHaveProperty('variableName');
        const { variableName, range } = v as { variableName: string; range: { start: { line: number; character: number }; end: { character: number } } };
        expect(range.start.line).toBeLessThanOrEqual(stop);
        expect(lines[range.start.line].slice(range.start.character, range.end.character)).toBe(variableName);
      }
      // The loop variable on the stopped line is among them.
      const loopVar = /for\s*\(\s*(?:int|unsigned|uint32_t)?\s*(\w+)/.exec(lines[stop])?.[1];
      if (loopVar) expect(got.map((v) => (v as { variableName: string }).variableName)).toContain(loopVar);
      // An unknown document answers nothing rather than failing.
      const none = await client.connection.sendRequest(InlineValueRequest.type, {
        textDocument: { uri: 'file:///nope.cu' },
        range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
        context: { frameId: 1, stoppedLocation: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } },
      });
      expect(none).toEqual([]);
    } finally {
      await client.stop();
    }
  });

  it('a Python file that does not import tilus gets none (another debugger runs it); one that does gets its __call__ locals', async () => {
    requireBuild();
    const client = await TestClient.start();
    try {
      await client.initialize({ initializationOptions: { lint: { debounceMs: 0 } } });
      const body = ['class Adder:', '    def __call__(self, x):', '        total = x + 1', '        scaled = total * 2', '        return scaled', ''];
      const ask = async (uri: string, text: string) => {
        await client.open(uri, text, 'python');
        const lines = text.split('\n');
        const stop = lines.findIndex((l) => l.includes('return scaled'));
        return (await client.connection.sendRequest(InlineValueRequest.type, {
          textDocument: { uri },
          range: { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: 0 } },
          context: { frameId: 1, stoppedLocation: { start: { line: stop, character: 0 }, end: { line: stop, character: 0 } } },
        })) as { variableName: string }[];
      };
      expect(await ask('file:///iv/plain.py', ['import torch', ...body].join('\n'))).toEqual([]);
      const tilus = (await ask('file:///iv/script.py', ['import tilus', ...body].join('\n'))).map((v) => v.variableName);
      expect(tilus).toEqual(expect.arrayContaining(['total', 'scaled']));
    } finally {
      await client.stop();
    }
  });
});
