// Extension tests against the vscode API: activation, diagnostics with the right codes for CUDA and
// Croqtile examples, hover documentation and a quick fix that clears its finding. Expected codes
// are the ones `phaseflip lint` reports for the same examples (and their `// expect:` markers).
import * as assert from 'node:assert/strict';
import { after, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { EXTENSION_ID, codeOf, hoverText, open, positionOf, waitForDiagnostics } from './helpers';

const BUGGY_CU = 'bugs/producer_missing_bootstrap.cu';
const BUGGY_CO = 'croqtile/bugs/missing_bootstrap.co';

describe('Phaseflip language features', () => {
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('activates when a CUDA file opens', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension, `extension ${EXTENSION_ID} is not installed in this extension host`);
    await open(BUGGY_CU);
    await extension.activate();
    assert.equal(extension.isActive, true);
  });

  it('reports PF201 on the producer\'s first wait in a missing-bootstrap ring', async () => {
    const editor = await open(BUGGY_CU);
    const wait = positionOf(editor.document, 'bar_wait(&slot_free[stage], phase)');
    const diagnostics = await waitForDiagnostics(editor.document.uri, (ds) => ds.length > 0, `diagnostics for ${BUGGY_CU}`);
    assert.deepEqual(diagnostics.map(codeOf), ['PF201']);
    const [pf201] = diagnostics;
    assert.equal(pf201!.range.start.line, wait.line, 'PF201 sits on the producer\'s wait');
    assert.equal(pf201!.severity, vscode.DiagnosticSeverity.Error);
    assert.match(pf201!.message, /slot_free/);
  });

  it('hovers over a PTX mbarrier instruction with its documentation', async () => {
    const editor = await open(BUGGY_CU);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      editor.document.uri,
      positionOf(editor.document, 'mbarrier.init', 3),
    );
    const text = hoverText(hovers);
    assert.match(text, /mbarrier\.init/, 'the hover shows the instruction\'s syntax');
    assert.match(text, /count/i, 'the hover explains the arrival count');
  });

  it('offers a quick fix for PF201 and applying it clears the finding', async () => {
    const editor = await open(BUGGY_CU);
    const uri = editor.document.uri;
    const [pf201] = await waitForDiagnostics(uri, (ds) => ds.some((d) => codeOf(d) === 'PF201'), 'PF201');
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      uri,
      pf201!.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fix = actions.find((a) => a.title.startsWith('Start `phase` at 1'));
    assert.ok(fix, `no "start the phase at 1" fix among: ${actions.map((a) => a.title).join(' | ') || '(none)'}`);
    assert.ok(fix.edit, 'the fix carries a workspace edit');
    assert.equal(await vscode.workspace.applyEdit(fix.edit), true);
    assert.match(editor.document.lineAt(positionOf(editor.document, 'uint32_t phase = 1;').line).text, /phase = 1/);
    await waitForDiagnostics(uri, (ds) => !ds.some((d) => codeOf(d) === 'PF201'), 'PF201 to disappear after the fix');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('reports PF201 in a Croqtile ring without bootstrap triggers', async () => {
    const editor = await open(BUGGY_CO);
    assert.equal(editor.document.languageId, 'croqtile', '.co files get the croqtile language');
    const wait = positionOf(editor.document, 'wait empty[stage]');
    const diagnostics = await waitForDiagnostics(editor.document.uri, (ds) => ds.length > 0, `diagnostics for ${BUGGY_CO}`);
    const pf201 = diagnostics.find((d) => codeOf(d) === 'PF201');
    assert.ok(pf201, `PF201 expected, got ${diagnostics.map(codeOf).join(', ')}`);
    assert.equal(pf201.range.start.line, wait.line);
  });
});
