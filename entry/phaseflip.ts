// Entry point of dist/cli.js (run by bin/phaseflip.js): the composition root of the `phaseflip`
// command. It wires the command-line face to the language server and the debug adapter for
// `phaseflip lsp` and `phaseflip dap`, so that no face imports another.
import { runCommandLine } from '../cli/main';
import { runDebugAdapter } from '../debugger/main';
import { startServer } from '../server/start';

void runCommandLine({
  startLanguageServer: (options) => void startServer(options),
  startDebugAdapter: () => void runDebugAdapter(),
});
