// VS Code glue for launching kernels on the simulator: the `phaseflip` DebugConfigurationProvider
// (F5 without launch.json, initial and dynamic configurations, simulator defaults from settings)
// and the commands the "Debug kernel" / "Add to launch.json" code lenses run. The decisions live
// in ./debug-config (plain functions); this file only reads VS Code state and calls VS Code APIs.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { definesMain, type LaunchTemplate, launchTemplates } from '../core/index';
import {
  configurationsFor,
  DEBUG_TYPE,
  type DebugConfigurationLike,
  defaultBlock,
  defaultBlockNotice,
  EDIT_BLOCK,
  forLaunchJson,
  launchAllowed,
  parseBlockSize,
  portableProgram,
  readSimulatorDefaults,
  resolveConfiguration,
  withConfiguration,
  withEditedBlock,
} from './debug-config';

export const DEBUG_KERNEL_COMMAND = 'phaseflip.debugKernel';
export const ADD_LAUNCH_CONFIGURATION_COMMAND = 'phaseflip.addLaunchConfiguration';

const LANGUAGES: Record<string, 'cuda' | 'croqtile'> = { 'cuda-cpp': 'cuda', cuda: 'cuda', croqtile: 'croqtile' };

function languageOfPath(file: string): 'cuda' | 'croqtile' | undefined {
  return /\.co$/i.test(file) ? 'croqtile' : /\.(cu|cuh)$/i.test(file) ? 'cuda' : undefined;
}

function kernelDocument(editor: vscode.TextEditor | undefined): vscode.TextDocument | undefined {
  const doc = editor?.document;
  if (!doc) return undefined;
  return LANGUAGES[doc.languageId] || languageOfPath(doc.fileName) ? doc : undefined;
}

export class KernelTemplates {
  constructor(private readonly wasmDir: string) {}

  /** Templates of `program`: the open editor's text when it is open (unsaved edits count), else the file. */
  async of(program: string): Promise<LaunchTemplate[]> {
    const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && path.resolve(d.fileName) === path.resolve(program));
    const language = (open && LANGUAGES[open.languageId]) || languageOfPath(program);
    if (!language) return [];
    let text: string;
    try {
      text = open ? open.getText() : await fs.readFile(program, 'utf8');
    } catch {
      return []; // the session reports the missing file, naming the field
    }
    return launchTemplates(text, language, program, this.wasmDir);
  }
}

export class PhaseflipConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly templates: KernelTemplates) {}

  /** Initial (launch.json creation) and dynamic (Run and Debug drop-down) configurations. */
  async provideDebugConfigurations(folder: vscode.WorkspaceFolder | undefined): Promise<vscode.DebugConfiguration[]> {
    const doc = kernelDocument(vscode.window.activeTextEditor);
    if (!doc || doc.uri.scheme !== 'file') {
      return [{ type: DEBUG_TYPE, request: 'launch', name: 'Debug kernel in the current file', program: '${file}' }];
    }
    const program = portableProgram(doc.fileName, folder?.uri.fsPath, path.sep);
    const configs = configurationsFor(await this.templates.of(doc.fileName), program).map(forLaunchJson);
    return configs.length ? configs : [{ type: DEBUG_TYPE, request: 'launch', name: 'Debug kernel in the current file', program: '${file}' }];
  }

  /** F5 with no launch.json: a launch of the active file (its kernel and args come in the next step). */
  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (config.type || config.request || config.name) return config;
    const doc = kernelDocument(vscode.window.activeTextEditor);
    if (!doc) {
      void vscode.window.showInformationMessage('Phaseflip: open a .cu or .co file to debug, or add a "phaseflip" configuration to launch.json.');
      return undefined;
    }
    if (doc.isUntitled) {
      void vscode.window.showInformationMessage('Phaseflip: save the file first; the simulator runs the file on disk.');
      return undefined;
    }
    return { type: DEBUG_TYPE, request: 'launch', name: 'Debug kernel', program: doc.fileName };
  }

  /** After `${file}` and friends are substituted: kernel, geometry and args from the template, settings' defaults. */
  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    config: vscode.DebugConfiguration,
  ): Promise<vscode.DebugConfiguration | undefined> {
    // Every phaseflip launch (launch.json, F5, the code lens) passes here: in Restricted Mode it asks for trust first.
    if (!(await launchAllowed(workspaceTrust))) return undefined;
    const doc = kernelDocument(vscode.window.activeTextEditor);
    const base = typeof config.cwd === 'string' ? config.cwd : folder?.uri.fsPath;
    const settings = vscode.workspace.getConfiguration('phaseflip', folder?.uri);
    const defaults = readSimulatorDefaults((key) => settings.get(key), (m) => void vscode.window.showWarningMessage(m));
    const result = await resolveConfiguration(config as DebugConfigurationLike, {
      activeProgram: doc && !doc.isUntitled ? doc.fileName : undefined,
      templatesOf: (program) => this.templates.of(base && !path.isAbsolute(program) ? path.resolve(base, program) : program),
      isWholeProgram: async (program) => {
        const file = base && !path.isAbsolute(program) ? path.resolve(base, program) : program;
        if (!/\.(cu|cuh|cpp|cc|cxx)$/i.test(file)) return false;
        const open = vscode.workspace.textDocuments.find((d) => d.fileName === file);
        try {
          return definesMain(open ? open.getText() : await fs.readFile(file, 'utf8'));
        } catch {
          return false;
        }
      },
      defaults,
    });
    if (!result.config) {
      void vscode.window.showInformationMessage(result.message);
      return undefined;
    }
    // The session reads the program from disk: unsaved edits would silently not be simulated.
    const program = typeof result.config.program === 'string' ? result.config.program : undefined;
    const dirty = program ? vscode.workspace.textDocuments.find((d) => d.isDirty && d.uri.scheme === 'file' && path.resolve(d.fileName) === path.resolve(base ?? '', program)) : undefined;
    if (dirty) await dirty.save();
    return result.config as vscode.DebugConfiguration;
  }
}

/** VS Code's workspace trust, for launchAllowed: a modal question, then the trust editor. */
const workspaceTrust = {
  isTrusted: () => vscode.workspace.isTrusted,
  ask: async (message: string, button: string) => (await vscode.window.showWarningMessage(message, { modal: true }, button)) === button,
  manage: async () => void (await vscode.commands.executeCommand('workbench.trust.manage')),
};

/** Resolves an `untitled:` program to nothing (with a message) and a path to itself. */
function diskProgram(config: DebugConfigurationLike): string | undefined {
  const program = typeof config.program === 'string' ? config.program : undefined;
  if (!program || /^[a-z][\w+.-]+:/i.test(program) && !/^[a-z]:[\\/]/i.test(program)) {
    void vscode.window.showInformationMessage('Phaseflip: save the file first; the simulator runs the file on disk.');
    return undefined;
  }
  return program;
}

/** Asks which kernel of the active file to use when a command runs without a configuration. */
async function pickConfiguration(templates: KernelTemplates): Promise<DebugConfigurationLike | undefined> {
  const doc = kernelDocument(vscode.window.activeTextEditor);
  if (!doc || doc.isUntitled) {
    void vscode.window.showInformationMessage('Phaseflip: open a saved .cu or .co file to debug one of its kernels.');
    return undefined;
  }
  const configs = configurationsFor(await templates.of(doc.fileName), doc.fileName);
  if (!configs.length) {
    void vscode.window.showInformationMessage(`Phaseflip: no kernel the simulator can launch in ${path.basename(doc.fileName)} (a __global__ or __co__ function that is not a template).`);
    return undefined;
  }
  if (configs.length === 1) return configs[0];
  const picked = await vscode.window.showQuickPick(
    configs.map((c) => ({ label: c.kernel, description: c.args.join(' '), config: c })),
    { placeHolder: 'Kernel to debug' },
  );
  return picked?.config;
}

/** After a launch with a default block: offers to run again with a block the user types. */
async function offerBlockEdit(config: DebugConfigurationLike, folder: vscode.WorkspaceFolder | undefined, block: number | number[]): Promise<void> {
  const choice = await vscode.window.showInformationMessage(defaultBlockNotice(config, block), EDIT_BLOCK);
  if (choice !== EDIT_BLOCK) return;
  const typed = await vscode.window.showInputBox({
    title: 'Threads per block',
    prompt: 'X or X,Y,Z (at most 1024 threads)',
    value: Array.isArray(block) ? block.join(',') : String(block),
    validateInput: (v) => {
      const parsed = parseBlockSize(v);
      return Array.isArray(parsed) ? undefined : parsed.problem;
    },
  });
  if (typed === undefined) return;
  const dims = parseBlockSize(typed);
  if (!Array.isArray(dims)) return;
  const running = vscode.debug.activeDebugSession;
  if (running?.type === DEBUG_TYPE) await vscode.debug.stopDebugging(running);
  await vscode.debug.startDebugging(folder, withEditedBlock(config, dims) as vscode.DebugConfiguration);
}

export function registerDebugging(context: vscode.ExtensionContext, templates: KernelTemplates): void {
  const provider = new PhaseflipConfigurationProvider(templates);
  context.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, provider, vscode.DebugConfigurationProviderTriggerKind.Initial),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, provider, vscode.DebugConfigurationProviderTriggerKind.Dynamic),
    vscode.commands.registerCommand(DEBUG_KERNEL_COMMAND, async (config?: DebugConfigurationLike) => {
      const chosen = config ?? (await pickConfiguration(templates));
      if (!chosen) return false;
      const program = diskProgram(chosen);
      if (!program) return false;
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(program));
      const started = await vscode.debug.startDebugging(folder, chosen as vscode.DebugConfiguration);
      // A block size nothing in the file gave: say so (without holding up the run) and offer to change it.
      const block = defaultBlock(chosen);
      if (started && block !== undefined) void offerBlockEdit(chosen, folder, block);
      return started;
    }),
    vscode.commands.registerCommand(ADD_LAUNCH_CONFIGURATION_COMMAND, async (config?: DebugConfigurationLike) => {
      const chosen = config ?? (await pickConfiguration(templates));
      if (!chosen) return;
      const program = diskProgram(chosen);
      if (!program) return;
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(program));
      if (!folder) {
        void vscode.window.showInformationMessage(`Phaseflip: ${path.basename(program)} is outside the workspace folders, so there is no launch.json to add to. Open its folder first.`);
        return;
      }
      const entry = forLaunchJson({ ...chosen, program: portableProgram(program, folder.uri.fsPath, path.sep) });
      const launch = vscode.workspace.getConfiguration('launch', folder.uri);
      await launch.update('configurations', withConfiguration(launch.get('configurations'), entry), vscode.ConfigurationTarget.WorkspaceFolder);
      const launchJson = vscode.Uri.joinPath(folder.uri, '.vscode', 'launch.json');
      try {
        await vscode.window.showTextDocument(launchJson);
      } catch {
        // launch.json lives in a .code-workspace file: nothing to open
      }
      void vscode.window.showInformationMessage(`Phaseflip: "${entry.name}" is in launch.json; edit its args and press F5.`);
    }),
  );
}
