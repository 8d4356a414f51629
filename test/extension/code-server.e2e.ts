// Runs the extension tests (test/extension/suite) inside a real VS Code extension host: the
// VS Code 1.139 server that code-server ships, with the repository as the development extension
// and the compiled mocha index as --extensionTestsPath, opened in headless Chromium so the
// extension host starts. The mocha results come back through a results file.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Browser } from '../e2e/harness/browser';
import { type CodeServer, extensionHostErrors, freshStateDir, startTestHost } from '../e2e/harness/code-server';
import { repoRoot } from '../e2e/harness/paths';
import { scratchWorkspace } from '../e2e/harness/workspace';
import type { ExtensionTestResults } from './index';

const compiledIndex = path.join(repoRoot, 'test', 'extension', 'out', 'index.js');
const resultsFile = path.join(repoRoot, 'test', 'extension', 'out', 'results.json');
const RUN_TIMEOUT_MS = 240_000;

function readResults(): ExtensionTestResults | undefined {
  try {
    return JSON.parse(readFileSync(resultsFile, 'utf8')) as ExtensionTestResults;
  } catch {
    return undefined;
  }
}

describe('extension tests in code-server\'s extension host', () => {
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  const scratch: string[] = [];
  let passed = false;

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    // Kept after a failure: the user-data directory holds the extension host's logs.
    if (passed) for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
    else if (scratch.length > 0) console.log(`kept for inspection (logs under user-data/logs): ${scratch.join(', ')}`);
  });

  it('runs every mocha test and all pass', async () => {
    expect(existsSync(path.join(repoRoot, 'dist', 'client.js')), 'dist/client.js missing: run `npm run build`').toBe(true);
    expect(existsSync(compiledIndex), `${compiledIndex} missing: run \`node scripts/e2e/build-extension-tests.mjs\``).toBe(true);
    rmSync(resultsFile, { force: true });
    const folder = scratchWorkspace();
    const stateDir = freshStateDir();
    scratch.push(path.dirname(folder), stateDir);
    server = await startTestHost({
      folder,
      stateDir,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: compiledIndex,
      env: { PHASEFLIP_EXT_TEST_RESULTS: resultsFile },
    });
    browser = await launchBrowser();
    await browser.page.goto(server.url);

    const deadline = Date.now() + RUN_TIMEOUT_MS;
    let results = readResults();
    while (!results?.finished && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      results = readResults();
    }
    const summary = results
      ? [
          ...results.passed.map((t) => `  ✓ ${t}`),
          ...results.failed.map((f) => `  ✗ ${f.title}\n      ${f.error.split('\n').slice(0, 6).join('\n      ')}`),
        ].join('\n')
      : '(no results file: the extension host never ran the tests)';
    console.log(`extension tests:\n${summary}`);
    if (!results?.finished) {
      const errors = extensionHostErrors(server.userDataDir).join('\n');
      throw new Error(`the extension tests did not finish within ${RUN_TIMEOUT_MS} ms\n${summary}\n${errors ? `extension host errors:\n${errors}\n` : ''}server log tail:\n${server.log().slice(-3000)}`);
    }
    expect(results.total, 'mocha found no tests').toBeGreaterThan(0);
    expect(results.failed.map((f) => `${f.title}: ${f.error.split('\n')[0]}`)).toEqual([]);
    expect(results.passed.length).toBe(results.total);
    passed = true;
  });
});
