// Starts and stops code-server (a real VS Code 1.139 server) for the end-to-end suites: fresh
// user-data and extensions directories, a free port, test settings, and a process group that is
// always killed (the extension host and language server are its children).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { e2eTools } from './paths';

/** Settings that keep the workbench quiet and deterministic; trust off so extensions run at once. */
export const TEST_USER_SETTINGS: Record<string, unknown> = {
  'security.workspace.trust.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.enableExperiments': false,
  'workbench.colorTheme': 'Default Dark Modern',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'editor.hover.delay': 200,
  'editor.minimap.enabled': false,
  'window.commandCenter': false,
  'debug.openDebug': 'openOnDebugBreak',
  'debug.toolBarLocation': 'docked',
  'files.autoSave': 'off',
};

export interface CodeServerOptions {
  /** Folder to open. */
  folder: string;
  /** Extra environment for the server and its extension host. */
  env?: Record<string, string>;
  /** Directory for user data and extensions (a fresh temporary one by default). */
  stateDir?: string;
  settings?: Record<string, unknown>;
  startTimeoutMs?: number;
}

export interface CodeServer {
  /** The workbench URL with the folder open. */
  url: string;
  port: number;
  extensionsDir: string;
  userDataDir: string;
  /** Everything the server printed so far (stdout and stderr). */
  log(): string;
  /** Resolves with the exit code when the server process ends. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not allocate a free TCP port'))));
    });
  });
}

export function freshStateDir(prefix = 'phaseflip-e2e-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

function stateDirs(stateDir: string, settings: Record<string, unknown>) {
  const userDataDir = path.join(stateDir, 'user-data');
  const extensionsDir = path.join(stateDir, 'extensions');
  mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  return { userDataDir, extensionsDir };
}

function commonArgs(userDataDir: string, extensionsDir: string): string[] {
  // --config: code-server would otherwise write a default config (with a password) into ~/.config.
  const config = path.join(path.dirname(userDataDir), 'code-server.yaml');
  return ['--config', config, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
}

/** Installs a .vsix into the extensions directory that `startCodeServer` with the same stateDir uses. */
export async function installVsix(stateDir: string, vsix: string, timeoutMs = 120_000): Promise<string> {
  const tools = e2eTools();
  const { userDataDir, extensionsDir } = stateDirs(stateDir, TEST_USER_SETTINGS);
  const args = [tools.codeServerEntry, ...commonArgs(userDataDir, extensionsDir), '--install-extension', vsix, '--force'];
  const child = spawn(tools.node, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`code-server --install-extension ${vsix} failed (exit ${code}):\n${output.trim()}`);
  return output;
}

const running = new Set<ChildProcess>();
// Last resort for a crashed runner: never leave a server (and its extension host) behind.
process.once('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** code-server itself, as users run it: `code-server --auth none … FOLDER`. */
export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const tools = e2eTools();
  const stateDir = options.stateDir ?? freshStateDir();
  const { userDataDir, extensionsDir } = stateDirs(stateDir, { ...TEST_USER_SETTINGS, ...options.settings });
  const port = await freePort();
  const args = [tools.codeServerEntry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, ...commonArgs(userDataDir, extensionsDir), options.folder];
  return launch(tools.node, args, { port, userDataDir, extensionsDir, healthPath: 'healthz', url: `http://127.0.0.1:${port}/`, options });
}

export interface TestHostOptions extends CodeServerOptions {
  extensionDevelopmentPath: string;
  extensionTestsPath: string;
}

/**
 * The VS Code server inside code-server's package (lib/vscode/out/server-main.js), for extension
 * tests. code-server's own command line rejects --extensionDevelopmentPath/--extensionTestsPath,
 * and a built workbench reads them only from the URL's `payload` when the server runs with
 * --enable-smoke-test-driver; so this server gets that flag and `url` carries the payload. The
 * extension host then loads the development extension, calls the tests' run() and exits.
 */
export async function startTestHost(options: TestHostOptions): Promise<CodeServer> {
  const tools = e2eTools();
  const stateDir = options.stateDir ?? freshStateDir();
  const { userDataDir, extensionsDir } = stateDirs(stateDir, { ...TEST_USER_SETTINGS, ...options.settings });
  const port = await freePort();
  const args = [
    tools.vscodeServerMain,
    '--host', '127.0.0.1',
    '--port', String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--disable-telemetry',
    '--user-data-dir', userDataDir,
    '--server-data-dir', path.join(stateDir, 'server-data'),
    '--extensions-dir', extensionsDir,
  ];
  const authority = `127.0.0.1:${port}`;
  const remote = (file: string) => `vscode-remote://${authority}${path.resolve(file)}`;
  const payload = [
    ['extensionDevelopmentPath', remote(options.extensionDevelopmentPath)],
    ['extensionTestsPath', remote(options.extensionTestsPath)],
  ];
  const url = `http://${authority}/?folder=${encodeURIComponent(options.folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return launch(tools.node, args, { port, userDataDir, extensionsDir, healthPath: 'version', url, options });
}

async function launch(
  node: string,
  args: string[],
  how: { port: number; userDataDir: string; extensionsDir: string; healthPath: string; url: string; options: CodeServerOptions },
): Promise<CodeServer> {
  const { port, options } = how;
  // A process group of its own, so stop() also ends the extension host and the language server.
  const child = spawn(node, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${path.dirname(node)}:${process.env.PATH ?? ''}`, ...options.env },
  });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      exitCode = code;
      resolve(code);
    }),
  );

  const stop = async () => {
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    // Children that outlived the server (an orphaned extension host) are still in the group.
    killGroup(child, 'SIGKILL');
  };

  const health = `http://127.0.0.1:${port}/${how.healthPath}`;
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`the server exited (code ${exitCode}) before answering ${health}:\n${output.slice(-4000)}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not answer ${health} within ${timeoutMs} ms:\n${output.slice(-4000)}`);
    }
    try {
      const response = await fetch(health, { signal: AbortSignal.timeout(2000) });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url: how.url, port, extensionsDir: how.extensionsDir, userDataDir: how.userDataDir, log: () => output, exited, stop };
}

/**
 * Error lines about Phaseflip from the extension host logs under `userDataDir` (activation failures,
 * language-server crashes): what a failing scenario prints so the cause is not only a timeout.
 */
export function extensionHostErrors(userDataDir: string): string[] {
  const logs = path.join(userDataDir, 'logs');
  if (!existsSync(logs)) return [];
  const errors: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/exthost\.log$/i.test(entry.name)) {
        const lines = readFileSync(file, 'utf8').split('\n');
        lines.forEach((line, i) => {
          if (/\[error\]/.test(line) && /phaseflip/i.test(line + (lines[i + 1] ?? ''))) errors.push(lines.slice(i, i + 3).join('\n'));
        });
      }
    }
  };
  walk(logs);
  return errors;
}
