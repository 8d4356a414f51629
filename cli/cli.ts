// The command line: `phaseflip lint|rules|ir|sim|lsp|dap|--help|--version`. cli/main.ts runs it.
import * as path from 'node:path';
import { type ExplicitFlags, Project, languageForHeader, languageForPath, loadEngine, notOfLanguage } from '../core/index';
import { version } from '../package.json';
import { COMPILE_FLAGS_HELP, takeCompileFlag } from './compile-args';
import { EXIT_ERROR, EXIT_OK, UsageError } from './errors';
import { readSource } from './files';
import { collectLintTargets, parseLintArgs, runLint } from './lint';
import { formatRules } from './rules';
import { runSim } from './sim';
import type { Streams } from './streams';

export type { Streams } from './streams';

export const HELP = `phaseflip ${version}: finds mbarrier bugs (wrong parity, missing bootstrap, missing commit,
arrival count mismatches) in CUDA kernels.

Usage:
  phaseflip lint [options] PATH...   lint files and directories (recursing over .cu, .cuh, .co and
                                     headers holding device code; node_modules and dot directories
                                     are skipped; a header named explicitly is always linted)
  phaseflip rules [--format json]    list the rules: code, id, family, summary
  phaseflip ir FILE                  print the kernel IR Phaseflip builds for a .cu/.cuh/.co file,
                                     a header or a tilus .py file
  phaseflip sim FILE [options]       run a kernel on the simulator and report whether it completes,
                                     deadlocks, misuses a barrier or races ('phaseflip sim --help')
  phaseflip lsp [--stdio | --node-ipc | --socket=PORT | --pipe=NAME]
                                     run the language server (stdio by default)
  phaseflip dap                      run the debug adapter (Debug Adapter Protocol on stdio)
  phaseflip --version                print the version
  phaseflip --help                   print this help

Lint options:
  -f, --format text|json|sarif       output format (default text)
  -r, --rule ID=SEVERITY             override a rule's severity (error, warning, information,
                                     hint) or turn it off (off); ID is a rule id or code; repeatable
  --notes                            also print information notes: includes not found, barrier
                                     calls not understood (JSON output always has them)

${COMPILE_FLAGS_HELP}

Project configuration: the nearest .phaseflip.json walking up from each file (rules, includePaths,
defines, launch, cudaArch, compileCommands, exclude); the options above override it. A finding is
suppressed on its line (or the line before) with // phaseflip-ignore CODE[, CODE]: reason, in a file
with // phaseflip-ignore-file CODE: reason. See docs/configuration.md and docs/suppressions.md.

Exit status: 0 no warnings or errors, 1 warnings or errors found, 2 usage or I/O error, a PATH
with nothing to lint, or a problem in a .phaseflip.json.
`;

export const DAP_HELP = `Usage: phaseflip dap

Runs Phaseflip's debug adapter on stdin/stdout (Debug Adapter Protocol), for editors other than
VS Code: debug type 'phaseflip', request 'launch', fields program, kernel, grid, block, args,
dynamicSmem, seed, schedule, stopOnEntry, maxSteps, trace, cwd (see docs/debugger.md).
`;

/**
 * The protocol faces behind `phaseflip lsp` and `phaseflip dap`. The CLI imports no other face: the
 * composition root (entry/phaseflip.ts) hands them in.
 */
export interface ProtocolServers {
  /** Serves LSP on the transport named in process.argv (stdio when none is). */
  startLanguageServer: (options: { version: string; wasmDir?: string }) => void;
  /** Serves DAP on stdin/stdout. */
  startDebugAdapter: () => void;
}

/** Runs a command; resolves to the exit status, or undefined for long-running commands (lsp, dap). */
export async function main(argv: readonly string[], io: Streams, servers?: ProtocolServers): Promise<number | undefined> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        io.stderr(HELP);
        return EXIT_ERROR;
      case '-h':
      case '--help':
      case 'help':
        io.stdout(HELP);
        return EXIT_OK;
      case '-v':
      case '--version':
      case 'version':
        io.stdout(`${version}\n`);
        return EXIT_OK;
      case 'rules':
        io.stdout(formatRules(rest));
        return EXIT_OK;
      case 'lsp':
        if (!servers) throw new UsageError('lsp is not part of this build');
        servers.startLanguageServer({ version, wasmDir: bundleDir() });
        return undefined;
      case 'ir': {
        // The same compile flags as lint: the IR is what the translation unit gives.
        const compile: ExplicitFlags = {};
        const files: string[] = [];
        for (let i = 0; i < rest.length; i++) {
          const used = takeCompileFlag(rest, i, compile);
          if (used) i += used - 1;
          else files.push(rest[i]!);
        }
        if (files.length !== 1) throw new UsageError('ir takes exactly one file (and -I/-D/--compile-commands/--cuda-arch flags)');
        const file = files[0]!;
        const language = languageForPath(file) ?? languageForHeader(file);
        if (!language) throw new UsageError(`'${file}' is not a .cu, .cuh or .co file, a C/C++ header or a tilus .py file`);
        let text: string;
        try {
          text = readSource(file);
        } catch (e) {
          io.stderr(`phaseflip: cannot read '${file}': ${e instanceof Error ? e.message : String(e)}\n`);
          return EXIT_ERROR;
        }
        // A Python file without tilus has no IR to show: say so, as lint does.
        const foreign = notOfLanguage(language, text);
        if (foreign) {
          io.stderr(`phaseflip: ${file}: ${foreign}\n`);
          return EXIT_ERROR;
        }
        const engine = await loadEngine({ wasmDir: bundleDir(), project: new Project({ explicit: compile }), languages: [language] });
        io.stdout(`${engine.openDocument(language, text, path.resolve(file)).irText()}\n`);
        return EXIT_OK;
      }
      case 'dap':
        if (rest.includes('-h') || rest.includes('--help')) {
          io.stdout(DAP_HELP);
          return EXIT_OK;
        }
        if (rest.length) throw new UsageError(`dap takes no arguments (got ${rest.join(' ')}): it speaks the Debug Adapter Protocol on stdin/stdout`);
        if (!servers) throw new UsageError('dap is not part of this build');
        servers.startDebugAdapter();
        return undefined;
      case 'sim':
        return runSim(rest, io, { stderrIsTTY: process.stderr.isTTY === true });
      case 'lint': {
        const args = parseLintArgs(rest);
        if (args.help) {
          io.stdout(HELP);
          return EXIT_OK;
        }
        const collected = collectLintTargets(args);
        let engine;
        try {
          // Only the front ends of the files found: a CUDA lint builds nothing of Croqtile's, a Croqtile lint loads no grammar.
          const languages = [...new Set(collected.targets.map((t) => t.language))];
          engine = await loadEngine({ wasmDir: bundleDir(), project: new Project({ explicit: args.compile }), languages });
        } catch (e) {
          io.stderr(`phaseflip: cannot load the CUDA parser: ${e instanceof Error ? e.message : String(e)}\n`);
          return EXIT_ERROR;
        }
        const out = runLint(engine, args, { version, cwd: process.cwd() }, collected);
        io.stdout(out.stdout);
        io.stderr(out.stderr);
        return out.exitCode;
      }
      default:
        throw new UsageError(command.startsWith('-') ? `unknown option '${command}'` : `unknown command '${command}'`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`phaseflip: ${e.message}\nRun 'phaseflip --help' for usage.\n`);
      return EXIT_ERROR;
    }
    throw e;
  }
}

function bundleDir(): string | undefined {
  return typeof __dirname !== 'undefined' ? path.resolve(__dirname) : undefined;
}
