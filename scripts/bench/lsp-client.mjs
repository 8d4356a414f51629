// A small LSP client over stdio for the benches: spawns dist/server.js and times publishDiagnostics.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(root, 'package.json'));
const rpc = require('vscode-languageserver-protocol/node');
export const SERVER = path.join(root, 'dist', 'server.js');

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

export class Client {
  constructor(child, connection) {
    this.child = child;
    this.connection = connection;
    this.waiters = [];
    this.published = new Map(); // uri -> last params
    this.stderr = '';
    child.stderr.on('data', (d) => (this.stderr += d.toString()));
    connection.onNotification(rpc.PublishDiagnosticsNotification.type, (p) => {
      const now = performance.now();
      this.published.set(p.uri, p);
      for (const w of [...this.waiters]) {
        if (w.uri === p.uri && (w.version === undefined || p.version === w.version)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(now);
        }
      }
    });
  }

  /** `env` is added to this process's environment (e.g. PHASEFLIP_CODE_CACHE=off for a first start). */
  static start({ env = {} } = {}) {
    // PHASEFLIP_BENCH_CPU_PROF=DIR: each server writes a V8 CPU profile there when it exits (to see where an edit goes).
    const profile = process.env.PHASEFLIP_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PHASEFLIP_BENCH_CPU_PROF}`] : [];
    const child = spawn(process.execPath, [...profile, SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
    connection.listen();
    return new Client(child, connection);
  }

  /** `debounceMs` is the server's lint debounce (0 times the analysis itself; the editor's default is 150). */
  async initialize(rootUri = null, { debounceMs = 0 } = {}) {
    await this.connection.sendRequest(rpc.InitializeRequest.type, {
      processId: process.pid,
      rootUri,
      capabilities: { textDocument: { publishDiagnostics: { versionSupport: true }, documentSymbol: { hierarchicalDocumentSymbolSupport: true } } },
      initializationOptions: { lint: { debounceMs } },
    });
    await this.connection.sendNotification(rpc.InitializedNotification.type, {});
  }

  /** Resolves with performance.now() at the publishDiagnostics for `uri` (and `version`). */
  diagnostics(uri, version, timeoutMs = 120_000) {
    return new Promise((resolve, reject) => {
      const w = { uri, version, resolve };
      const timer = setTimeout(() => reject(new Error(`no diagnostics for ${uri} v${version}\n${this.stderr}`)), timeoutMs);
      w.resolve = (t) => {
        clearTimeout(timer);
        resolve(t);
      };
      this.waiters.push(w);
    });
  }

  open(uri, text, version = 1, languageId = uri.endsWith('.co') ? 'croqtile' : 'cuda-cpp') {
    const done = this.diagnostics(uri, version);
    void this.connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version, text },
    });
    return done;
  }

  change(uri, version, contentChanges) {
    const done = this.diagnostics(uri, version);
    void this.connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges });
    return done;
  }

  /** Sends a request and resolves with its result. */
  request(method, params) {
    return this.connection.sendRequest(method, params);
  }

  /** Sends a notification without waiting for anything. */
  notify(method, params) {
    return this.connection.sendNotification(method, params);
  }

  /** CPU time (user + system) the server process has used so far, in ms (clock-tick resolution). */
  cpuMs() {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }

  rssMiB() {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  }

  async stop() {
    try {
      await Promise.race([this.connection.sendRequest(rpc.ShutdownRequest.type), sleep(5_000)]);
      await this.connection.sendNotification(rpc.ExitNotification.type);
    } catch {
      // killed below
    }
    await Promise.race([new Promise((r) => this.child.once('exit', r)), sleep(5_000)]);
    if (this.child.exitCode === null) this.child.kill();
    this.connection.dispose();
  }
}
