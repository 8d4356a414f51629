// The compile flags `phaseflip lint` and `phaseflip sim` share (-I, -D, --compile-commands, --cuda-arch,
// and --launch for kernels launched where the file cannot show): parsed and checked here, handed to the
// engine as core's ExplicitFlags.
import { type ExplicitFlags, parseCudaArch, parseLaunchFlag } from '../core/index';
import { UsageError } from './errors';

export const COMPILE_FLAGS_HELP = `Compile flags (also read from compile_commands.json, compile_flags.txt or .clangd; see
docs/compile-flags.md):
  -I DIR, -IDIR, --include-dir DIR   add an include directory, searched before the discovered ones;
                                     repeatable
  -D NAME[=VALUE], -DNAME[=VALUE]    define a macro (VALUE 1 when left out); repeatable
  --compile-commands FILE|DIR        use this compile_commands.json (or compile_flags.txt) instead of
                                     searching the file's directories for one
  --cuda-arch N                      __CUDA_ARCH__: 900, 1000, or sm_90a, sm_100a (default: the
                                     compile command's -arch/-gencode, else 900)
  --launch KERNEL:block=N[,grid=G,cluster=XxYxZ,smem=BYTES]
                                     lint, ir: how a kernel is launched where the file does not
                                     show it (like the setting phaseflip.launch; KERNEL may be file.cu:name
                                     or name<args>); a launch in the file wins; repeatable. See
                                     docs/launch-shapes.md
  --no-library-models                lint, ir: read library calls (CUTLASS, CuTe, ThunderKittens,
                                     DeepGEMM helpers) through their definitions in the headers, not
                                     Phaseflip's models of them (to check a model, or a library the
                                     models do not fit); see docs/library-models.md`;

// A macro name, optionally with a function-like macro's parameters, then an optional value.
const DEFINE = /^[A-Za-z_]\w*(\([\w\s,.]*\))?(=[\s\S]*)?$/;

/**
 * If `argv[i]` starts a compile flag, records it in `into` and returns how many arguments it used
 * (1 or 2); returns 0 for any other argument. Throws UsageError for a flag without a usable value.
 */
export function takeCompileFlag(argv: readonly string[], i: number, into: ExplicitFlags): number {
  const arg = argv[i]!;
  let flag: string;
  let value: string | undefined;
  if (arg === '-I' || arg === '-D' || arg === '--include-dir' || arg === '--compile-commands' || arg === '--cuda-arch' || arg === '--launch') {
    flag = arg;
    value = argv[i + 1];
    if (value === undefined) throw new UsageError(`${flag} needs a value`);
  } else if (/^--(include-dir|compile-commands|cuda-arch|launch)=/.test(arg)) {
    flag = arg.slice(0, arg.indexOf('='));
    value = arg.slice(flag.length + 1);
  } else if (/^-[ID]./.test(arg)) {
    flag = arg.slice(0, 2);
    value = arg.slice(2);
  } else if (arg === '--no-library-models') {
    into.noLibraryModels = true;
    return 1;
  } else return 0;
  const used = flag === arg ? 2 : 1;

  switch (flag) {
    case '-I':
    case '--include-dir':
      if (!value) throw new UsageError(`${flag} needs a directory`);
      (into.includeDirs ??= []).push(value);
      break;
    case '-D':
      if (!DEFINE.test(value)) throw new UsageError(`-D expects NAME or NAME=VALUE with NAME a macro name, got '${value}'`);
      (into.defines ??= []).push(value);
      break;
    case '--compile-commands':
      if (!value) throw new UsageError('--compile-commands needs a compile_commands.json file or a directory holding one');
      into.compileCommands = value;
      break;
    case '--launch': {
      const setting = parseLaunchFlag(value);
      if (typeof setting === 'string') throw new UsageError(setting);
      (into.launch ??= []).push(setting);
      break;
    }
    default: {
      const arch = parseCudaArch(value);
      if (arch === undefined) throw new UsageError(`--cuda-arch expects an architecture such as 900, 1000, sm_90a or sm_100a, got '${value}'`);
      into.cudaArch = arch;
    }
  }
  return used;
}
