// Test helper: drives `phaseflip dap` (bin/phaseflip.js, the dist/cli.js bundle) as a real Debug
// Adapter Protocol process through @vscode/debugadapter-testsupport's DebugClient, the way an editor
// does: initialize, launch, `initialized`, breakpoints, configurationDone.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CLI_JS, ROOT, requireBuild } from '../server/lsp-client';

export { ROOT };

export const EXAMPLES = path.join(ROOT, 'examples');
export const GPU_FIXTURES = path.join(ROOT, 'test', 'fixtures', 'sim', 'gpu');

const capabilitiesOf = new WeakMap<DebugClient, DebugProtocol.Capabilities>();

/** Starts an adapter process (`phaseflip dap`) and initializes it like VS Code does. */
export async function startAdapter(): Promise<DebugClient> {
  requireBuild();
  // DebugClient spawns `runtime executable`: the launcher script (its shebang runs node) with `dap`.
  const dc = new DebugClient(CLI_JS, 'dap', 'phaseflip');
  dc.defaultTimeout = 20_000;
  await dc.start();
  const r = await dc.initializeRequest({ adapterID: 'phaseflip', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsInvalidatedEvent: true });
  capabilitiesOf.set(dc, r.body ?? {});
  return dc;
}

/** What the adapter answered to `initialize`. */
export function capabilities(dc: DebugClient): DebugProtocol.Capabilities {
  const c = capabilitiesOf.get(dc);
  if (!c) throw new Error('the adapter was not started with startAdapter');
  return c;
}

/** Every event of `kind` from now on (bodies, in order). */
export function collectEvents<T>(dc: DebugClient, kind: string): T[] {
  const out: T[] = [];
  dc.on(kind, (e: { body: T }) => out.push(e.body));
  return out;
}

/**
 * Launches with `args`, lets `configure` set breakpoints between `initialized` and
 * configurationDone, and resolves with the first `stopped` event (or undefined when the session
 * terminated first).
 */
export async function launch(dc: DebugClient, args: Record<string, unknown>, configure?: (dc: DebugClient) => Promise<unknown>): Promise<DebugProtocol.StoppedEvent | undefined> {
  const initialized = dc.waitForEvent('initialized');
  const first = nextStop(dc);
  const launched = dc.launchRequest(args as DebugProtocol.LaunchRequestArguments);
  await initialized;
  await configure?.(dc);
  await dc.configurationDoneRequest();
  await launched;
  return first;
}

/** The next `stopped` event, or undefined if `terminated` comes first. Register before acting. */
export function nextStop(dc: DebugClient): Promise<DebugProtocol.StoppedEvent | undefined> {
  return new Promise((resolve) => {
    const onStopped = (e: DebugProtocol.StoppedEvent) => {
      dc.removeListener('terminated', onTerminated);
      resolve(e);
    };
    const onTerminated = () => {
      dc.removeListener('stopped', onStopped);
      resolve(undefined);
    };
    dc.once('stopped', onStopped);
    dc.once('terminated', onTerminated);
  });
}

/** Runs `action` and waits for the stop it causes. */
export async function stopAfter(dc: DebugClient, action: () => Promise<unknown>): Promise<DebugProtocol.StoppedEvent | undefined> {
  const stop = nextStop(dc);
  await action();
  return stop;
}

/** Every output event until the session terminates. */
export function collectOutput(dc: DebugClient): DebugProtocol.OutputEvent['body'][] {
  const out: DebugProtocol.OutputEvent['body'][] = [];
  dc.on('output', (e: DebugProtocol.OutputEvent) => out.push(e.body));
  return out;
}

export async function frames(dc: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame[]> {
  return (await dc.stackTraceRequest({ threadId })).body.stackFrames;
}

/** The variables of scope `name` (prefix match: `Barriers` matches `Barriers (block 0)`) of a frame. */
export async function scope(dc: DebugClient, frameId: number, name: string): Promise<DebugProtocol.Variable[]> {
  const scopes = (await dc.scopesRequest({ frameId })).body.scopes;
  const s = scopes.find((x) => x.name.startsWith(name));
  if (!s) throw new Error(`no scope '${name}' (scopes: ${scopes.map((x) => x.name).join(', ')})`);
  return (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables;
}

export async function children(dc: DebugClient, v: DebugProtocol.Variable): Promise<Record<string, string>> {
  const vars = (await dc.variablesRequest({ variablesReference: v.variablesReference })).body.variables;
  return Object.fromEntries(vars.map((c) => [c.name, c.value]));
}

/** One-based line of the only line of `file` containing `text`. */
export function lineOf(file: string, text: string): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found = lines.flatMap((l, i) => (l.includes(text) ? [i + 1] : []));
  if (found.length !== 1) throw new Error(`'${text}' is on ${found.length} lines of ${file}`);
  return found[0];
}

/** The error a failed request carries (DebugClient rejects with its message). */
export async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the request succeeded');
}
