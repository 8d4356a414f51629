// Extension tests for the paths a new user takes: the "Get started" walkthrough's commands
// (open the buggy example, show its finding, apply the quick fix, debug it with a phase-flip
// breakpoint, show the barrier timeline) and the "Debug kernel" code lens, whose derived configuration runs a buggy kernel
// into its deadlock. A DebugAdapterTracker observes the adapter's `stopped` events.
import * as assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { codeOf, open, phaseflipDiagnostics, waitFor, waitForDiagnostics } from './helpers';

interface Stop {
  session: vscode.DebugSession;
  body: { reason: string; description?: string; text?: string };
}

const stops: Stop[] = [];
const TIMEOUT_MS = 60_000;

describe('Phaseflip walkthrough and code lens', function () {
  this.timeout(3 * TIMEOUT_MS);
  let tracker: vscode.Disposable | undefined;

  before(() => {
    tracker = vscode.debug.registerDebugAdapterTrackerFactory('phaseflip', {
      createDebugAdapterTracker: (session) => ({
        onDidSendMessage: (m: { type?: string; event?: string; body?: Stop['body'] }) => {
          if (m.type === 'event' && m.event === 'stopped' && m.body) stops.push({ session, body: m.body });
        },
      }),
    });
  });

  afterEach(async () => {
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
  });

  after(() => tracker?.dispose());

  it('opens the example, shows its finding, fixes it and debugs it to a phase flip', async () => {
    await vscode.commands.executeCommand('phaseflip.walkthrough.openExample');
    const editor = await waitFor('the walkthrough example in the active editor', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.path.endsWith('/walkthrough/producer_missing_bootstrap.cu') ? e : undefined;
    });
    const uri = editor.document.uri;
    const [finding] = await waitForDiagnostics(uri, (ds) => ds.some((d) => codeOf(d) === 'PF201'), 'PF201 on the walkthrough example');

    await vscode.commands.executeCommand('phaseflip.walkthrough.showFinding');
    const shown = vscode.window.activeTextEditor;
    assert.equal(shown?.document.uri.toString(), uri.toString());
    assert.equal(shown?.selection.active.line, finding.range.start.line, 'showFinding puts the cursor on the finding');

    await vscode.commands.executeCommand('phaseflip.walkthrough.applyFix');
    await waitForDiagnostics(uri, (ds) => !ds.some((d) => codeOf(d) === 'PF201'), 'PF201 to disappear after the quick fix');
    assert.equal(editor.document.isDirty, false, 'the fixed example is saved');

    const seen = stops.length;
    await vscode.commands.executeCommand('phaseflip.walkthrough.debugExample');
    const stop = await waitFor('a stop on the walkthrough breakpoint', () => stops.slice(seen)[0], TIMEOUT_MS);
    assert.equal(stop.body.reason, 'function breakpoint', JSON.stringify(stop.body));
    assert.match(`${stop.body.description ?? ''} ${stop.body.text ?? ''}`, /slot_free\[0\]/);

    // The walkthrough's last step: the barrier timeline of the stopped session opens beside the editor.
    await vscode.commands.executeCommand('phaseflip.showTimeline');
    await waitFor('the Barrier Timeline panel', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'Barrier Timeline'));

    // Starting over restores the bug.
    await vscode.debug.stopDebugging();
    await vscode.commands.executeCommand('phaseflip.walkthrough.openExample');
    await waitForDiagnostics(uri, (ds) => ds.some((d) => codeOf(d) === 'PF201'), 'PF201 back after reopening the example');
  });

  it('offers Debug kernel above the kernel, and its configuration runs the buggy ring into its deadlock', async () => {
    const editor = await open('bugs/producer_missing_bootstrap.cu');
    const lenses = await waitFor('code lenses', async () => {
      const got = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
      return got?.some((l) => l.command?.command === 'phaseflip.debugKernel') ? got : undefined;
    });
    const lens = lenses.find((l) => l.command?.command === 'phaseflip.debugKernel')!;
    assert.equal(lens.command?.title, 'Debug kernel');
    assert.match(editor.document.lineAt(lens.range.start.line).text, /__global__/);
    // The findings stay: the lens is an addition, not a replacement.
    assert.ok(phaseflipDiagnostics(editor.document.uri).length > 0);

    const seen = stops.length;
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    const stop = await waitFor('the deadlock stop', () => stops.slice(seen)[0], TIMEOUT_MS);
    assert.equal(stop.body.reason, 'exception', JSON.stringify(stop.body));
    assert.match(`${stop.body.description ?? ''}\n${stop.body.text ?? ''}`, /deadlock/i);
  });
});
