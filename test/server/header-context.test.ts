// The language server reads an open header inside the translation unit of a file that includes it once
// one is known: a library part opened first is read alone (a note says so); opening the source that
// includes it re-lints the header in context, with the finding the source's kernel reaches in it.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestClient, requireBuild } from './lsp-client';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'projects', 'header-context');
const PART = path.join(FIXTURE, 'include', 'ctx', 'consume.cuh');
const BAD = path.join(FIXTURE, 'src', 'bad-three-warps.cu');

describe('language server: a header opened before the file that includes it', () => {
  let client: TestClient;

  beforeAll(async () => {
    requireBuild();
    client = await TestClient.start();
    await client.initialize({ initializationOptions: { lint: { debounceMs: 0 } } });
  });

  afterAll(async () => {
    await client.stop();
  });

  it('is read alone first, then in the source\'s translation unit once the source is opened', async () => {
    const partUri = pathToFileURL(PART).href;
    await client.open(partUri, readFileSync(PART, 'utf8'));
    const alone = await client.waitForDiagnostics(partUri, () => true);
    expect(alone.diagnostics.some((d) => /read alone/.test(d.message))).toBe(true);
    expect(alone.diagnostics.some((d) => d.code === 'PF401')).toBe(false);

    await client.open(pathToFileURL(BAD).href, readFileSync(BAD, 'utf8'));
    const inContext = await client.waitForDiagnostics(partUri, (p) => p.diagnostics.some((d) => d.code === 'PF401') && !p.diagnostics.some((d) => /read alone/.test(d.message)));
    const arrive = readFileSync(PART, 'utf8').split('\n').findIndex((l) => l.includes('pf::mbar_arrive(empty)'));
    expect(inContext.diagnostics.filter((d) => d.code === 'PF401').map((d) => d.range.start.line)).toEqual([arrive]);
  }, 60_000);
});
