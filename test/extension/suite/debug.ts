// Extension tests for the simulator debugger through the vscode API: a launch of type `phaseflip`
// stops on a phase-flip function breakpoint with the Barriers scope showing the new phase, and a
// deadlocking kernel stops with an exception that names the blocked warps. A DebugAdapterTracker
// observes the adapter's `stopped` events, as the UI would receive them.
import * as assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { waitFor, workspaceFile } from './helpers';

interface StoppedEvent {
  session: vscode.DebugSession;
  body: { reason: string; description?: string; text?: string; threadId?: number; allThreadsStopped?: boolean };
}

const stops: StoppedEvent[] = [];
const DEBUG_TIMEOUT_MS = 60_000;

/** The launch configuration for examples' three-slot ring kernel (good or buggy version). */
function ringLaunch(relative: string, name: string): vscode.DebugConfiguration {
  // 3 slots × 2 rounds of tiles: every slot completes two phases when the ring is correct.
  return {
    type: 'phaseflip',
    request: 'launch',
    name,
    program: workspaceFile(relative).fsPath,
    kernel: 'stream_sum',
    grid: 1,
    block: 160,
    args: ['in=f32[6144]:iota', 'out=f32[128]', 'num_tiles=6'],
  };
}

async function nextStop(session: vscode.DebugSession, seenBefore: number): Promise<StoppedEvent> {
  return waitFor('a stopped event from the phaseflip adapter', () => stops.slice(seenBefore).find((s) => s.session.id === session.id), DEBUG_TIMEOUT_MS);
}

async function start(config: vscode.DebugConfiguration): Promise<vscode.DebugSession> {
  const started = new Promise<vscode.DebugSession>((resolve) => {
    const sub = vscode.debug.onDidStartDebugSession((s) => {
      if (s.configuration.name === config.name) {
        sub.dispose();
        resolve(s);
      }
    });
  });
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.equal(await vscode.debug.startDebugging(folder, config), true, `startDebugging(${config.name}) returned false`);
  return waitFor(`debug session '${config.name}' to start`, () => Promise.race([started, new Promise<undefined>((r) => setTimeout(() => r(undefined), 200))]), DEBUG_TIMEOUT_MS);
}

async function barriersOf(session: vscode.DebugSession, threadId: number): Promise<{ name: string; value: string }[]> {
  const trace = await session.customRequest('stackTrace', { threadId, startFrame: 0, levels: 1 });
  const frame = trace.stackFrames[0];
  assert.ok(frame, `thread ${threadId} has no stack frame at the stop`);
  const { scopes } = await session.customRequest('scopes', { frameId: frame.id });
  const barriers = scopes.find((s: { name: string }) => /barrier/i.test(s.name));
  assert.ok(barriers, `no Barriers scope among: ${scopes.map((s: { name: string }) => s.name).join(', ')}`);
  const { variables } = await session.customRequest('variables', { variablesReference: barriers.variablesReference });
  return variables;
}

describe('Phaseflip simulator debugger', function () {
  this.timeout(2 * DEBUG_TIMEOUT_MS);
  let tracker: vscode.Disposable | undefined;

  before(() => {
    tracker = vscode.debug.registerDebugAdapterTrackerFactory('phaseflip', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (message: { type?: string; event?: string; body?: StoppedEvent['body'] }) => {
          if (message.type === 'event' && message.event === 'stopped' && message.body) stops.push({ session, body: message.body });
        },
      }),
    });
  });

  afterEach(async () => {
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
  });

  after(() => tracker?.dispose());

  it('stops when slot_ready[1] completes its first phase and shows it in the Barriers scope', async () => {
    vscode.debug.addBreakpoints([new vscode.FunctionBreakpoint('slot_ready[1]')]);
    const seen = stops.length;
    const session = await start(ringLaunch('good/producer_missing_bootstrap.cu', 'phase flip'));
    const stop = await nextStop(session, seen);
    assert.equal(stop.body.reason, 'function breakpoint', `stop: ${JSON.stringify(stop.body)}`);
    assert.match(`${stop.body.description ?? ''} ${stop.body.text ?? ''}`, /slot_ready\[1\]/);
    assert.ok(stop.body.threadId, 'the stop names a thread');
    const barriers = await barriersOf(session, stop.body.threadId);
    const slot = barriers.find((v) => v.name.includes('slot_ready[1]'));
    assert.ok(slot, `slot_ready[1] missing from Barriers: ${barriers.map((v) => v.name).join(', ')}`);
    // Initialised for one arrival: right after its first completion it is in phase 1, waiting for 1 of 1.
    assert.match(slot.value, /phase 1\b/);
    assert.match(slot.value, /pending 1\s*\/\s*1\b/);
  });

  it('stops a deadlocking kernel with an exception that names the blocked warps', async () => {
    const seen = stops.length;
    const session = await start(ringLaunch('bugs/producer_missing_bootstrap.cu', 'deadlock'));
    const stop = await nextStop(session, seen);
    assert.equal(stop.body.reason, 'exception', `stop: ${JSON.stringify(stop.body)}`);
    const text = `${stop.body.description ?? ''}\n${stop.body.text ?? ''}`;
    // The producer (warp 0) waits on slot_free[0]; the consumers (warps 1-4) wait on slot_ready[0].
    assert.match(text, /deadlock/i);
    assert.match(text, /warp 0\b[^;\n]*slot_free\[0\]/, `warp 0 waiting on slot_free[0] in: ${text}`);
    for (const warp of [1, 2, 3, 4]) {
      assert.match(text, new RegExp(`warp ${warp}\\b[^;\\n]*slot_ready\\[0\\]`), `warp ${warp} waiting on slot_ready[0] in: ${text}`);
    }
  });
});
