// The command the tilus Script lenses run: peek at locations the server names in LSP form (a document URI,
// a position, Locations). VS Code's own `editor.action.peekLocations` takes its own types, which a lens's
// JSON arguments cannot carry, so this converts them.
import * as vscode from 'vscode';

/** Must equal server/server.ts's PEEK_LOCATIONS_COMMAND. */
export const PEEK_LOCATIONS_COMMAND = 'phaseflip.peekLocations';

interface LspPosition {
  line: number;
  character: number;
}
interface LspLocation {
  uri: string;
  range: { start: LspPosition; end: LspPosition };
}

const position = (p: LspPosition) => new vscode.Position(p.line, p.character);

export function registerPeekLocations(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(PEEK_LOCATIONS_COMMAND, async (uri?: string, at?: LspPosition, locations?: LspLocation[]) => {
      if (typeof uri !== 'string' || !at || !Array.isArray(locations)) return;
      const converted = locations.map((l) => new vscode.Location(vscode.Uri.parse(l.uri), new vscode.Range(position(l.range.start), position(l.range.end))));
      await vscode.commands.executeCommand('editor.action.peekLocations', vscode.Uri.parse(uri), position(at), converted, 'peek');
    }),
  );
}
