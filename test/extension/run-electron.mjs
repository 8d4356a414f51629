// Runs the extension tests (test/extension/suite) in desktop VS Code through @vscode/test-electron,
// for contributors with a desktop: `npm run test:extension:electron`. It uses the VS Code named by
// $VSCODE_EXECUTABLE_PATH, or downloads one (cached in .vscode-test/). Where none can be had (no
// network to update.code.visualstudio.com, as on CI), it says why and exits 0 (skipped): CI runs
// the same tests in code-server's extension host instead (`npm run test:extension`).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { download, runTests } from '@vscode/test-electron';
import { buildExtensionTests } from '../../scripts/e2e/build-extension-tests.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOWNLOAD_TIMEOUT_MS = 60_000;

async function vscodeExecutable() {
  const given = process.env.VSCODE_EXECUTABLE_PATH;
  if (given) return given;
  try {
    return await download({ version: process.env.VSCODE_VERSION || 'stable', cachePath: path.join(root, '.vscode-test'), timeout: DOWNLOAD_TIMEOUT_MS });
  } catch (error) {
    console.log(
      `test:extension:electron skipped: no desktop VS Code (download failed: ${error instanceof Error ? error.message : String(error)}).\n` +
        'Set VSCODE_EXECUTABLE_PATH to a VS Code binary to run these tests here, or run them in code-server: npm run test:extension',
    );
    return undefined;
  }
}

const executable = await vscodeExecutable();
if (!executable) process.exit(0);

const extensionTestsPath = await buildExtensionTests();
// The tests open the examples from a scratch copy (quick fixes edit them; the originals stay clean).
const scratch = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-electron-'));
const workspace = path.join(scratch, 'examples');
for (const sub of ['bugs', 'good', 'croqtile']) cpSync(path.join(root, 'examples', sub), path.join(workspace, sub), { recursive: true });

try {
  await runTests({
    vscodeExecutablePath: executable,
    extensionDevelopmentPath: root,
    extensionTestsPath,
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--skip-release-notes',
      `--user-data-dir=${path.join(scratch, 'user-data')}`,
    ],
  });
  console.log('test:extension:electron: all extension tests passed');
} catch (error) {
  console.error(`test:extension:electron failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
