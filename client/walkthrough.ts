// The "Get started with Phaseflip" walkthrough's commands: open the shipped buggy kernel (a fresh
// copy in the extension's storage, so fixing it never edits the installed extension), show its
// finding, apply the quick fix, create the project's .phaseflip.json, and debug the fixed kernel with a
// breakpoint on a phase flip.
import * as vscode from 'vscode';
import { DEBUG_KERNEL_COMMAND, type KernelTemplates } from './debugging';
import { configurationsFor } from './debug-config';

export const WALKTHROUGH_COMMANDS = {
  openExample: 'phaseflip.walkthrough.openExample',
  showFinding: 'phaseflip.walkthrough.showFinding',
  applyFix: 'phaseflip.walkthrough.applyFix',
  debugExample: 'phaseflip.walkthrough.debugExample',
  createProjectConfig: 'phaseflip.createProjectConfig',
} as const;

/** A new .phaseflip.json: every key present and empty, for the schema's completions to fill (docs/configuration.md). */
export const PROJECT_CONFIG_TEMPLATE = `${JSON.stringify({ includePaths: [], defines: [], rules: {}, launch: {}, exclude: [] }, null, 2)}\n`;

const EXAMPLE = 'producer_missing_bootstrap.cu';
/** The barrier whose phase flips the debug step stops at (the ring's first free-slot barrier). */
export const EXAMPLE_BREAKPOINT = 'slot_free[0]';

export function registerWalkthrough(context: vscode.ExtensionContext, templates: KernelTemplates): void {
  const exampleUri = () => vscode.Uri.joinPath(context.globalStorageUri, 'walkthrough', EXAMPLE);

  /** The example's editor, opening (and on `fresh`, re-copying) it as needed. */
  const openExample = async (fresh: boolean): Promise<vscode.TextEditor> => {
    const target = exampleUri();
    let exists = true;
    try {
      await vscode.workspace.fs.stat(target);
    } catch {
      exists = false;
    }
    if (fresh || !exists) {
      const source = vscode.Uri.joinPath(context.extensionUri, 'walkthrough', EXAMPLE);
      await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(target, '..'));
      await vscode.workspace.fs.writeFile(target, await vscode.workspace.fs.readFile(source));
      // An editor still showing an older copy would keep its (possibly fixed) text: revert it.
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
      if (open) {
        await vscode.window.showTextDocument(open);
        await vscode.commands.executeCommand('workbench.action.files.revert');
      }
    }
    const doc = await vscode.workspace.openTextDocument(target);
    return vscode.window.showTextDocument(doc, { preview: false });
  };

  /** Waits (up to 10 s) for the server's findings on `uri`. */
  const findings = async (uri: vscode.Uri): Promise<vscode.Diagnostic[]> => {
    const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'phaseflip');
    for (let i = 0; i < 100 && ours().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    return ours();
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(WALKTHROUGH_COMMANDS.openExample, () => openExample(true)),

    vscode.commands.registerCommand(WALKTHROUGH_COMMANDS.showFinding, async () => {
      const editor = await openExample(false);
      const [first] = await findings(editor.document.uri);
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      if (!first) {
        void vscode.window.showInformationMessage('Phaseflip: no finding in the example: it may be fixed already. Run "Open the buggy example" to start over.');
        return;
      }
      editor.selection = new vscode.Selection(first.range.start, first.range.start);
      editor.revealRange(first.range, vscode.TextEditorRevealType.InCenter);
    }),

    vscode.commands.registerCommand(WALKTHROUGH_COMMANDS.applyFix, async () => {
      const editor = await openExample(false);
      const [first] = await findings(editor.document.uri);
      if (!first) {
        void vscode.window.showInformationMessage('Phaseflip: nothing to fix: the example has no finding.');
        return;
      }
      const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', editor.document.uri, first.range, vscode.CodeActionKind.QuickFix.value)) ?? [];
      const fix = actions.find((a) => a.isPreferred && a.edit) ?? actions.find((a) => a.edit);
      if (!fix?.edit) {
        void vscode.window.showWarningMessage(`Phaseflip: no quick fix offered for ${String(first.code ?? 'the finding')}.`);
        return;
      }
      await vscode.workspace.applyEdit(fix.edit);
      await editor.document.save();
      void vscode.window.showInformationMessage(`Phaseflip: applied "${fix.title}".`);
    }),

    // Opens the first workspace folder's .phaseflip.json, creating it from the template when there is none.
    vscode.commands.registerCommand(WALKTHROUGH_COMMANDS.createProjectConfig, async () => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!folder) {
        void vscode.window.showInformationMessage('Phaseflip: open your project folder first; .phaseflip.json goes at its root.');
        return;
      }
      const file = vscode.Uri.joinPath(folder.uri, '.phaseflip.json');
      try {
        await vscode.workspace.fs.stat(file);
      } catch {
        await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(PROJECT_CONFIG_TEMPLATE));
      }
      await vscode.window.showTextDocument(file);
    }),

    vscode.commands.registerCommand(WALKTHROUGH_COMMANDS.debugExample, async () => {
      const editor = await openExample(false);
      if (editor.document.isDirty) await editor.document.save();
      const [config] = configurationsFor(await templates.of(editor.document.uri.fsPath), editor.document.uri.fsPath);
      if (!config) {
        void vscode.window.showWarningMessage('Phaseflip: the example has no kernel the simulator can launch.');
        return false;
      }
      const present = vscode.debug.breakpoints.some((b) => b instanceof vscode.FunctionBreakpoint && b.functionName === EXAMPLE_BREAKPOINT);
      if (!present) vscode.debug.addBreakpoints([new vscode.FunctionBreakpoint(EXAMPLE_BREAKPOINT)]);
      return vscode.commands.executeCommand(DEBUG_KERNEL_COMMAND, config);
    }),
  );
}
