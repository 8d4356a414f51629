// Shared helpers for the extension tests that run inside a VS Code extension host (desktop via
// @vscode/test-electron, or code-server's): the workspace's example files and bounded waits.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export const EXTENSION_ID = 'phaseflip.phaseflip';

/** The workspace the runner opened: a scratch copy of the repository's examples/. */
export function workspaceFile(relative: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'no workspace folder is open: the runner must open a copy of examples/');
  return vscode.Uri.joinPath(folder.uri, relative);
}

/** Polls `probe` until it returns something other than undefined, or fails naming `what`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function codeOf(d: vscode.Diagnostic): string {
  const code = d.code;
  if (code === undefined) return '';
  return typeof code === 'object' ? String(code.value) : String(code);
}

export function phaseflipDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'phaseflip');
}

/** Waits until the language server has published diagnostics that satisfy `accept`. */
export async function waitForDiagnostics(uri: vscode.Uri, accept: (ds: vscode.Diagnostic[]) => boolean, what: string, timeoutMs = 30_000) {
  return waitFor(what, () => {
    const ds = phaseflipDiagnostics(uri);
    return accept(ds) ? ds : undefined;
  }, timeoutMs);
}

export async function open(relative: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(workspaceFile(relative));
  return vscode.window.showTextDocument(doc);
}

/** Position of the first occurrence of `needle` on a line that does not start a comment. */
export function positionOf(doc: vscode.TextDocument, needle: string, offsetInNeedle = 0): vscode.Position {
  for (let line = 0; line < doc.lineCount; line++) {
    const text = doc.lineAt(line).text;
    const at = text.indexOf(needle);
    if (at >= 0 && !text.trimStart().startsWith('//')) return new vscode.Position(line, at + offsetInNeedle);
  }
  throw new Error(`'${needle}' not found in ${doc.uri.fsPath}`);
}

export function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n');
}
