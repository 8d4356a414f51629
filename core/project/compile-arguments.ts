// Reads the flags that matter to a preprocessor out of a compiler's argument vector (gcc, clang and
// nvcc spellings): include directories, macro definitions, forced includes and the GPU architecture.
// The vectors come from compile_commands.json, compile_flags.txt, .clangd's Add and the user.
import * as path from 'node:path';
import { splitShellWords } from './shell-words';

/** What an option is for; 'value' options matter only so that their value is not misread as a flag. */
export type OptionKind = 'include' | 'system' | 'quote' | 'after' | 'define' | 'undefine' | 'force-include' | 'arch' | 'value' | 'other';

interface OptionSpec {
  kind: OptionKind;
  spellings: string[];
  /** `-Ifoo`: the value may follow the spelling directly. */
  joined: boolean;
  /** `--include-path=foo`, and nvcc's `-I=foo`/`-arch=sm_90a`. */
  equals: boolean;
}

// Synonyms share an entry, so that .clangd's `Remove: [-I]` removes `--include-path=` too.
const OPTION_SPECS: OptionSpec[] = [
  { kind: 'include', spellings: ['-I', '--include-path', '--include-directory'], joined: true, equals: true },
  { kind: 'system', spellings: ['-isystem', '--system-include'], joined: true, equals: true },
  { kind: 'quote', spellings: ['-iquote'], joined: true, equals: true },
  { kind: 'after', spellings: ['-idirafter', '--include-directory-after'], joined: true, equals: true },
  { kind: 'define', spellings: ['-D', '--define-macro'], joined: true, equals: true },
  { kind: 'undefine', spellings: ['-U', '--undefine-macro'], joined: true, equals: true },
  { kind: 'force-include', spellings: ['-include', '--pre-include', '--include'], joined: true, equals: true },
  { kind: 'arch', spellings: ['-arch', '--gpu-architecture'], joined: false, equals: true },
  { kind: 'arch', spellings: ['-gencode', '--generate-code'], joined: false, equals: true },
  { kind: 'arch', spellings: ['-code', '--gpu-code'], joined: false, equals: true },
  { kind: 'arch', spellings: ['--cuda-gpu-arch', '--offload-arch'], joined: false, equals: true },
  // Options whose separate value must not be read as a flag: host-compiler and assembler pass-throughs
  // (`-Xcompiler -I/x` is for the host compiler alone), outputs, languages, sysroots.
  ...[
    ['-Xcompiler', '--compiler-options'],
    ['-Xclang'],
    ['-Xptxas', '--ptxas-options'],
    ['-Xlinker', '--linker-options'],
    ['-Xnvlink', '--nvlink-options'],
    ['-Xcudafe'],
    ['-Xarch_host'],
    ['-Xarch_device'],
    ['-ccbin', '--compiler-bindir'],
    ['-o', '--output-file'],
    ['-x', '--x'],
    ['-MF'],
    ['-MT'],
    ['-MQ'],
    ['-isysroot'],
    ['--sysroot'],
    ['-target', '--target'],
    ['-imacros'],
    ['-iprefix'],
    ['-iwithprefix'],
    ['-include-pch'],
  ].map((spellings): OptionSpec => ({ kind: 'value', spellings, joined: false, equals: spellings.some((s) => s.startsWith('--')) })),
];

/** Every spelling with its entry, longest first, so that `-isystem` is tried before `-I`-like prefixes. */
const SPELLINGS: Array<[string, OptionSpec]> = OPTION_SPECS.flatMap((spec) => spec.spellings.map((s): [string, OptionSpec] => [s, spec])).sort((a, b) => b[0].length - a[0].length);

/** One option as written: its arguments (one, or two with a separate value) and its value. */
export interface CompileOption {
  kind: OptionKind;
  spec?: OptionSpec;
  args: string[];
  value?: string;
}

/** Groups an argument vector into options. Positional arguments (the compiler, the source file) are 'other'. */
export function groupOptions(args: readonly string[]): CompileOption[] {
  const out: CompileOption[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const matched = matchOption(arg);
    if (!matched) {
      out.push({ kind: 'other', args: [arg] });
    } else if (matched.value !== undefined) {
      out.push({ kind: matched.spec.kind, spec: matched.spec, args: [arg], value: matched.value });
    } else if (i + 1 < args.length) {
      out.push({ kind: matched.spec.kind, spec: matched.spec, args: [arg, args[i + 1]!], value: args[i + 1]! });
      i++;
    } else {
      // A flag whose value is missing at the end of the command: keep it, it does nothing.
      out.push({ kind: 'other', args: [arg] });
    }
  }
  return out;
}

/** The option an argument starts, with its value when the value is inside the argument. */
function matchOption(arg: string): { spec: OptionSpec; value?: string } | undefined {
  if (!arg.startsWith('-')) return undefined;
  for (const [spelling, spec] of SPELLINGS) {
    if (arg === spelling) return { spec };
    if (!arg.startsWith(spelling)) continue;
    if (spec.equals && arg[spelling.length] === '=') return { spec, value: arg.slice(spelling.length + 1) };
    // Joined values exist only for the short single-dash spellings (`-Ifoo`, `-isystemfoo`, `-DX`).
    if (spec.joined && !spelling.startsWith('--')) {
      const value = arg.slice(spelling.length);
      return { spec, value: spec.kind === 'define' || spec.kind === 'undefine' ? value : value.replace(/^=/, '') };
    }
  }
  return undefined;
}

/**
 * Removes options the way clangd's `CompileFlags: Remove:` does: `-I` (an option's spelling) removes
 * that option in all its forms and synonyms with their values; `-W*` removes every argument with the
 * prefix (with its separate value); `-DFOO` removes that option with that value, however it is
 * written; anything else removes exactly equal arguments.
 */
export function removeOptions(options: readonly CompileOption[], patterns: readonly string[]): CompileOption[] {
  return options.filter((option) => !patterns.some((pattern) => removes(pattern, option)));
}

function removes(pattern: string, option: CompileOption): boolean {
  if (pattern.endsWith('*')) return option.args[0]!.startsWith(pattern.slice(0, -1));
  const spec = SPELLINGS.find(([s]) => s === pattern)?.[1];
  if (spec) return option.spec === spec;
  const asOption = groupOptions([pattern])[0]!;
  if (asOption.spec && asOption.value !== undefined) return option.spec === asOption.spec && option.value === asOption.value;
  return option.args.length === 1 && option.args[0] === pattern;
}

/** The preprocessor's view of a set of options, in the order the compiler would apply them. */
export interface FlagSet {
  quoteDirs: string[];
  includeDirs: string[];
  systemDirs: string[];
  /** `-idirafter`: searched after the system directories. */
  afterDirs: string[];
  defines: Array<[string, string]>;
  undefines: string[];
  forcedIncludes: string[];
  /** Architectures seen: `sm_` numbers (real GPUs) and `compute_` numbers (virtual, PTX only). */
  smArchs: number[];
  computeArchs: number[];
}

export function emptyFlagSet(): FlagSet {
  return { quoteDirs: [], includeDirs: [], systemDirs: [], afterDirs: [], defines: [], undefines: [], forcedIncludes: [], smArchs: [], computeArchs: [] };
}

/**
 * Adds options to `into` in order. Relative paths resolve against `directory` (the compile command's
 * working directory). `listsSplitOnComma` is nvcc's reading of `-I a,b`. Definitions and
 * undefinitions are kept disjoint, the later one winning, as the compiler applies them in order; a
 * macro defined twice keeps its last value.
 */
export function addOptions(into: FlagSet, options: readonly CompileOption[], directory: string, listsSplitOnComma = false): void {
  for (const option of options) {
    const value = option.value;
    if (value === undefined) continue;
    const dirs = (): string[] => (listsSplitOnComma ? value.split(',') : [value]).filter((d) => d !== '').map((d) => path.resolve(directory, d));
    switch (option.kind) {
      case 'include':
        into.includeDirs.push(...dirs());
        break;
      case 'system':
        into.systemDirs.push(...dirs());
        break;
      case 'quote':
        into.quoteDirs.push(...dirs());
        break;
      case 'after':
        into.afterDirs.push(...dirs());
        break;
      case 'force-include':
        if (value) into.forcedIncludes.push(path.resolve(directory, value));
        break;
      case 'define':
        addDefine(into, value);
        break;
      case 'undefine':
        addUndefine(into, value);
        break;
      case 'arch':
        addArchs(into, value);
        break;
      default:
        break;
    }
  }
}

/** `NAME`, `NAME=VALUE` or `NAME(ARGS)=BODY`; a definition without `=` is `1`, as for the compiler. */
export function addDefine(into: FlagSet, text: string): void {
  const eq = text.indexOf('=');
  const name = (eq < 0 ? text : text.slice(0, eq)).trim();
  if (!name) return;
  const key = macroKey(name);
  into.defines = into.defines.filter(([n]) => macroKey(n) !== key);
  into.undefines = into.undefines.filter((n) => n !== key);
  into.defines.push([name, eq < 0 ? '1' : text.slice(eq + 1)]);
}

function addUndefine(into: FlagSet, name: string): void {
  const key = macroKey(name.trim());
  if (!key) return;
  into.defines = into.defines.filter(([n]) => macroKey(n) !== key);
  if (!into.undefines.includes(key)) into.undefines.push(key);
}

/** The macro's name without a function-like macro's parameter list. */
function macroKey(name: string): string {
  const paren = name.indexOf('(');
  return (paren < 0 ? name : name.slice(0, paren)).trim();
}

function addArchs(into: FlagSet, value: string): void {
  for (const m of value.matchAll(/\b(sm|compute|lto)_(\d+)[a-z]?\b/g)) {
    (m[1] === 'sm' ? into.smArchs : into.computeArchs).push(Number(m[2]) * 10);
  }
}

/**
 * `__CUDA_ARCH__` for the flags seen: the highest real architecture (`sm_90a` → 900, `sm_100a` →
 * 1000), else the highest virtual one when only PTX is generated, else undefined.
 */
export function cudaArchOf(flags: FlagSet): number | undefined {
  const list = flags.smArchs.length > 0 ? flags.smArchs : flags.computeArchs;
  return list.length > 0 ? Math.max(...list) : undefined;
}

/**
 * A user's `--cuda-arch` / `phaseflip.cudaArch`: `sm_90a`, `compute_90`, a `__CUDA_ARCH__` value
 * (`900`, `1000`) or an SM number (`90`, `100`, `120`: below 200 there is no `__CUDA_ARCH__` of a GPU
 * CUDA still supports). Undefined when it is none of these.
 */
export function parseCudaArch(text: string | number): number | undefined {
  const s = String(text).trim();
  const named = /^(?:sm|compute|lto)_(\d+)[a-z]?$/i.exec(s);
  if (named) return Number(named[1]) * 10;
  if (!/^\d+$/.test(s)) return undefined;
  const n = Number(s);
  if (n <= 0) return undefined;
  if (n < 200) return n * 10;
  return n % 10 === 0 ? n : undefined;
}

/** Whether the command's compiler is nvcc, whose list options take comma-separated values. */
export function isNvcc(args: readonly string[]): boolean {
  return args.length > 0 && /(^|[\\/])nvcc(\.exe)?$/i.test(args[0]!);
}

/**
 * Replaces response files by the words they hold, read relative to `directory`: `@file` (gcc, clang)
 * and nvcc's `--options-file FILE` / `-optf FILE` (CMake with Ninja puts nvcc's include directories in
 * one, `--options-file CMakeFiles/k.dir/includes_CUDA.rsp`, even in compile_commands.json). Nesting is
 * followed a few levels deep; an unreadable file is kept as written and reported.
 */
export function expandResponseFiles(args: readonly string[], directory: string, read: (file: string) => string | undefined, problems: string[], depth = 0): string[] {
  if (!args.some((a) => a.startsWith('@') || a.startsWith('--options-file') || a === '-optf')) return [...args];
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    let name: string | undefined;
    let written = [arg];
    if (arg.startsWith('@') && arg.length > 1) name = arg.slice(1);
    else if (arg.startsWith('--options-file=')) name = arg.slice('--options-file='.length);
    else if ((arg === '--options-file' || arg === '-optf') && i + 1 < args.length) {
      name = args[++i]!;
      written = [arg, name];
    }
    if (name === undefined || depth >= 4) {
      out.push(...written);
      continue;
    }
    const text = name.split(',').map((n) => read(path.resolve(directory, n)));
    if (text.some((t) => t === undefined)) {
      problems.push(`cannot read the response file ${path.resolve(directory, name)}`);
      out.push(...written);
      continue;
    }
    out.push(...expandResponseFiles(splitShellWords(text.join('\n')), directory, read, problems, depth + 1));
  }
  return out;
}
