// Entry point of dist/cli.js (run by bin/phaseflip.js): the composition root of the `phaseflip`
// command. It wires the command-line face to the language server and the debug adapter for
// `phaseflip lsp` and `phaseflip dap`, so that no face imports another.
// The two faces are imported on demand: their protocol libraries (vscode-jsonrpc and the debug adapter kit)
// load net, crypto, child_process, streams and more at import time, start-up that `phaseflip sim` and
// `phaseflip lint` do not need (esbuild keeps them in the bundle, initialised at the first import()).
import { runCommandLine } from '../cli/main';

void runCommandLine({
  startLanguageServer: (options) => void import('../server/start').then(({ startServer }) => startServer(options)),
  startDebugAdapter: () => void import('../debugger/main').then(({ runDebugAdapter }) => runDebugAdapter()),
});
