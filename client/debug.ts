// The debug adapter, inline: VS Code talks DAP to a PhaseflipDebugSession in the extension host
// (no child process), which runs the simulator in the same bundle. Kept in its own file so the
// client's only dependency on debugger/ is this one import.
import * as vscode from 'vscode';
import { PhaseflipDebugSession } from '../debugger/session';
import { DEBUG_TYPE } from './debug-config';

export function registerInlineDebugAdapter(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, {
      createDebugAdapterDescriptor: () => new vscode.DebugAdapterInlineImplementation(new PhaseflipDebugSession()),
    }),
  );
}
