// A minimal real LSP client for tests: spawns the bundled server and talks JSON-RPC to it over
// stdio, Node IPC, a socket or a named pipe, through vscode-languageserver-protocol.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import {
  type ClientCapabilities,
  CodeActionRequest,
  type CodeAction,
  type Command,
  ConfigurationRequest,
  type ConfigurationParams,
  type Diagnostic,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentSymbolRequest,
  ExitNotification,
  HoverRequest,
  type Hover,
  InitializeRequest,
  type InitializeResult,
  IPCMessageReader,
  IPCMessageWriter,
  LogMessageNotification,
  type MessageReader,
  type MessageWriter,
  type Position,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  type Range,
  RegistrationRequest,
  ShowMessageNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type TextDocumentContentChangeEvent,
  createClientPipeTransport,
  createClientSocketTransport,
  createProtocolConnection,
  generateRandomPipeName,
} from 'vscode-languageserver-protocol/node';

export const ROOT = path.resolve(__dirname, '..', '..');
export const SERVER_JS = path.join(ROOT, 'dist', 'server.js');
export const CLI_JS = path.join(ROOT, 'bin', 'phaseflip.js');

export function requireBuild(): void {
  if (!existsSync(SERVER_JS) || !existsSync(path.join(ROOT, 'dist', 'cli.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does it)');
  }
}

/** Runs the built CLI (bin/phaseflip.js) in `cwd` without blocking the test worker; resolves with its exit status and output. */
export function runPhaseflip(args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

export type Transport = 'stdio' | 'ipc' | 'socket' | 'pipe';

export interface StartOptions {
  /** Script and arguments before the transport flag; default: dist/server.js. */
  script?: string[];
  transport?: Transport;
  initializationOptions?: unknown;
  capabilities?: ClientCapabilities;
  /** Answers workspace/configuration; when set the client announces configuration support. */
  configuration?: (params: ConfigurationParams) => unknown[];
}

export const DEFAULT_CAPABILITIES: ClientCapabilities = {
  textDocument: {
    synchronization: { dynamicRegistration: false },
    publishDiagnostics: {
      relatedInformation: true,
      versionSupport: true,
      codeDescriptionSupport: true,
      dataSupport: true,
    },
    hover: { contentFormat: ['markdown', 'plaintext'] },
    codeAction: {
      codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } },
      isPreferredSupport: true,
      dataSupport: true,
    },
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
  },
  workspace: { workspaceEdit: { documentChanges: true } },
};

export class TestClient {
  readonly diagnostics: PublishDiagnosticsParams[] = [];
  readonly logs: string[] = [];
  /** window/showMessage notifications: type (1 error, 2 warning, 3 info) and text. */
  readonly messages: { type: number; message: string }[] = [];
  stderr = '';
  configurationRequests: ConfigurationParams[] = [];
  registrations: string[] = [];
  private listeners: (() => void)[] = [];
  private exited = false;

  private constructor(
    readonly process: ChildProcess,
    readonly connection: ProtocolConnection,
  ) {
    process.once('exit', () => {
      this.exited = true;
      this.notify();
    });
    connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      this.diagnostics.push(p);
      this.notify();
    });
    connection.onNotification(LogMessageNotification.type, (p) => this.logs.push(p.message));
    connection.onNotification(ShowMessageNotification.type, (p) => {
      this.messages.push({ type: p.type, message: p.message });
      this.notify();
    });
    connection.onRequest(RegistrationRequest.type, (p) => {
      this.registrations.push(...p.registrations.map((r) => r.method));
    });
  }

  static async start(options: StartOptions = {}): Promise<TestClient> {
    const transport = options.transport ?? 'stdio';
    const script = options.script ?? [SERVER_JS];
    let reader: MessageReader;
    let writer: MessageWriter;
    let child: ChildProcess;
    if (transport === 'stdio') {
      child = spawn(process.execPath, [...script, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
      reader = new StreamMessageReader(child.stdout!);
      writer = new StreamMessageWriter(child.stdin!);
    } else if (transport === 'ipc') {
      child = spawn(process.execPath, [...script, '--node-ipc'], { stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
      reader = new IPCMessageReader(child);
      writer = new IPCMessageWriter(child);
    } else if (transport === 'socket') {
      const port = await freePort();
      const t = await createClientSocketTransport(port);
      child = spawn(process.execPath, [...script, `--socket=${port}`], { stdio: ['pipe', 'pipe', 'pipe'] });
      [reader, writer] = await t.onConnected();
    } else {
      const pipeName = generateRandomPipeName();
      const t = await createClientPipeTransport(pipeName);
      child = spawn(process.execPath, [...script, `--pipe=${pipeName}`], { stdio: ['pipe', 'pipe', 'pipe'] });
      [reader, writer] = await t.onConnected();
    }
    const connection = createProtocolConnection(reader, writer);
    const client = new TestClient(child, connection);
    child.stderr!.on('data', (d: Buffer) => (client.stderr += d.toString()));
    if (options.configuration) {
      const answer = options.configuration;
      connection.onRequest(ConfigurationRequest.type, (p) => {
        client.configurationRequests.push(p);
        return answer(p);
      });
    }
    connection.listen();
    return client;
  }

  async initialize(options: StartOptions = {}): Promise<InitializeResult> {
    const capabilities: ClientCapabilities = structuredClone(options.capabilities ?? DEFAULT_CAPABILITIES);
    if (options.configuration) {
      capabilities.workspace = { ...capabilities.workspace, configuration: true, didChangeConfiguration: { dynamicRegistration: true } };
    }
    const result = await this.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities,
      initializationOptions: options.initializationOptions,
    });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  open(uri: string, text: string, languageId = 'cuda-cpp', version = 1): Promise<void> {
    return this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version, text },
    });
  }

  change(uri: string, version: number, contentChanges: TextDocumentContentChangeEvent[]): Promise<void> {
    return this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges,
    });
  }

  close(uri: string): Promise<void> {
    return this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
  }

  codeActions(uri: string, range: Range, diagnostics: Diagnostic[]): Promise<(Command | CodeAction)[] | null> {
    return this.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range,
      context: { diagnostics },
    });
  }

  documentSymbols(uri: string) {
    return this.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
  }

  /** Resolves with the first publishDiagnostics for `uri` (seen since `from`) that satisfies `accept`. */
  waitForDiagnostics(
    uri: string,
    accept: (p: PublishDiagnosticsParams) => boolean = () => true,
    timeoutMs = 20_000,
    from = 0,
  ): Promise<PublishDiagnosticsParams> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const hit = this.diagnostics.slice(from).find((p) => p.uri === uri && accept(p));
        if (hit) {
          resolve(hit);
          return true;
        }
        if (this.exited) {
          reject(new Error(`server exited while waiting for diagnostics of ${uri}\n${this.stderr}`));
          return true;
        }
        return false;
      };
      if (check()) return;
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== listener);
        const seen = this.diagnostics.filter((p) => p.uri === uri).map((p) => `v${p.version}: ${p.diagnostics.map((d) => d.code).join(',')}`);
        reject(new Error(`no matching diagnostics for ${uri} within ${timeoutMs} ms; seen: [${seen.join(' | ')}]\nlogs: ${this.logs.join('\n')}`));
      }, timeoutMs);
      const listener = () => {
        if (check()) {
          clearTimeout(timer);
          this.listeners = this.listeners.filter((l) => l !== listener);
        }
      };
      this.listeners.push(listener);
    });
  }

  get alive(): boolean {
    return !this.exited;
  }

  async stop(): Promise<number | null> {
    if (!this.exited) {
      try {
        await withTimeout(this.connection.sendRequest(ShutdownRequest.type), 5_000);
        await this.connection.sendNotification(ExitNotification.type);
      } catch {
        // fall through to kill
      }
    }
    const code = await new Promise<number | null>((resolve) => {
      if (this.exited) return resolve(this.process.exitCode);
      const timer = setTimeout(() => {
        this.process.kill();
      }, 5_000);
      this.process.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    this.connection.dispose();
    return code;
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, what = 'request'): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}
