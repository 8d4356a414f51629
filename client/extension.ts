// VS Code client: starts the bundled language server (dist/server.js) over Node IPC and lets
// vscode-languageclient do the rest (diagnostics, hovers, quick fixes, code lenses); registers the
// inline debug adapter, the launch configuration provider, the code lens commands (debug, add to
// launch.json, peek at a tilus Script's barriers or findings), the barrier
// timeline panel and the walkthrough's commands.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerInlineDebugAdapter } from './debug';
import { KernelTemplates, registerDebugging } from './debugging';
import { registerPeekLocations } from './peek-locations';
import { registerTimelinePanel } from './timeline-panel';
import { registerWalkthrough } from './walkthrough';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  // Debugging first: it must work even if the language server fails to start.
  const templates = new KernelTemplates(context.asAbsolutePath('dist'));
  registerInlineDebugAdapter(context);
  registerDebugging(context, templates);
  registerTimelinePanel(context);
  registerWalkthrough(context, templates);
  registerPeekLocations(context);

  const module = context.asAbsolutePath(path.join('dist', 'server.js'));
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const config = vscode.workspace.getConfiguration('phaseflip');
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      // file and untitled only: linting git:/diff views would duplicate every diagnostic.
      { scheme: 'file', language: 'cuda-cpp' },
      { scheme: 'untitled', language: 'cuda-cpp' },
      { scheme: 'file', pattern: '**/*.{cu,cuh}' },
      { scheme: 'file', language: 'croqtile' },
      { scheme: 'untitled', language: 'croqtile' },
      // Python: the server analyses only files that import tilus; other Python files get nothing from it.
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
      // C/C++ headers: the server lints those that hold device code (CUTLASS, DeepGEMM, ThunderKittens keep barrier code there).
      { scheme: 'file', pattern: '**/*.{h,hpp,hh,hxx,inl,ipp}' },
    ],
    synchronize: {
      // Headers, flag files and the project's .phaseflip.json changed on disk (a git checkout, a build regenerating compile_commands.json):
      // translation units that read them are analysed again.
      fileEvents: vscode.workspace.createFileSystemWatcher('**/{compile_commands.json,compile_flags.txt,.clangd,.phaseflip.json,*.h,*.hpp,*.hh,*.hxx,*.inl,*.ipp,*.cuh}'),
    },
    initializationOptions: {
      lint: { debounceMs: config.get<number>('lint.debounceMs') },
      rules: config.get<Record<string, string>>('rules'),
      codeLens: { enabled: config.get<boolean>('codeLens.enabled') },
    },
  };
  // The id 'phaseflip' makes the client honour the `phaseflip.trace.server` setting.
  client = new LanguageClient('phaseflip', 'Phaseflip', serverOptions, clientOptions);
  await client.start();
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  await c?.stop();
}
