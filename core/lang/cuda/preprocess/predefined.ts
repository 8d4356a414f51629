// The macros nvcc predefines for a device compilation (a modest, documented list), then the -D/-U flags.
import { MacroTable, parseDefine } from './macros';

export interface PreprocessorOptions {
  /** `__CUDA_ARCH__` (default 900, sm_90a). */
  cudaArch?: number;
  /** `-D` flags: name (or `F(x)`) to value; an undefined value means `1` (`-DNAME`), an empty one an empty macro (`-DNAME=`). */
  defines?: ReadonlyMap<string, string> | Record<string, string>;
  /** `-U` flags, applied after the predefined macros and the defines. */
  undefines?: readonly string[];
}

/**
 * What nvcc 12.4 defines in the device pass of `nvcc -arch=sm_90a -std=c++17` on x86-64 Linux with GCC 11 as
 * host compiler, limited to what headers test: the compiler identity (`__CUDACC__`, `__NVCC__`, the version,
 * `__CUDA_ARCH__` and the architecture-specific feature macro that CUTLASS and CuTe check before emitting wgmma
 * and TMA code), the language level (`__cplusplus`), the host compiler (`__GNUC__`, which CCCL and CUTLASS branch
 * on) and the target (`__x86_64__`, `__linux__`, type sizes). CUDA keywords such as `__device__` are left
 * undefined: the toolkit's own headers define them when they are on the include path.
 */
function nvccDefines(arch: number): Array<[string, string]> {
  // sm_100 and later need nvcc 12.8 or newer, and CUTLASS enables its tcgen05 code only under that version.
  const minor = arch >= 1000 ? '8' : '4';
  const list: Array<[string, string]> = [
    ['__CUDACC__', '1'],
    ['__NVCC__', '1'],
    ['__CUDA_ARCH__', String(arch)],
    ['__CUDACC_VER_MAJOR__', '12'],
    ['__CUDACC_VER_MINOR__', minor],
    ['__CUDACC_VER_BUILD__', '131'],
    ['__CUDA_API_VER_MAJOR__', '12'],
    ['__CUDA_API_VER_MINOR__', minor],
    ['__NVCC_DIAG_PRAGMA_SUPPORT__', '1'],
    ['__CUDACC_RELAXED_CONSTEXPR__', '1'],
    ['__CUDACC_EXTENDED_LAMBDA__', '1'],
    ['__cplusplus', '201703L'],
    ['__STDC__', '1'],
    ['__STDC_HOSTED__', '1'],
    ['__GNUC__', '11'],
    ['__GNUC_MINOR__', '4'],
    ['__GNUC_PATCHLEVEL__', '0'],
    ['__x86_64__', '1'],
    ['__x86_64', '1'],
    ['__linux__', '1'],
    ['__linux', '1'],
    ['__unix__', '1'],
    ['__LP64__', '1'],
    ['_LP64', '1'],
    ['__CHAR_BIT__', '8'],
    ['__SIZEOF_INT__', '4'],
    ['__SIZEOF_LONG__', '8'],
    ['__SIZEOF_LONG_LONG__', '8'],
    ['__SIZEOF_POINTER__', '8'],
    ['__SIZEOF_SIZE_T__', '8'],
    ['__ORDER_LITTLE_ENDIAN__', '1234'],
    ['__ORDER_BIG_ENDIAN__', '4321'],
    ['__BYTE_ORDER__', '__ORDER_LITTLE_ENDIAN__'],
  ];
  // sm_90a, sm_100a, ...: the architecture-specific features of the default target.
  if (arch >= 900 && arch % 10 === 0 && arch < 1300) list.push([`__CUDA_ARCH_FEAT_SM${arch / 10}_ALL`, '1']);
  return list;
}

/** A fresh table of the predefined macros for `options`, with its -D and -U flags applied. */
export function predefinedMacros(options: PreprocessorOptions = {}): MacroTable {
  const table = new MacroTable();
  for (const [name, body] of nvccDefines(options.cudaArch ?? 900)) table.define({ name, body, file: '<built-in>' });
  const defines = options.defines instanceof Map ? [...options.defines] : Object.entries(options.defines ?? {});
  for (const [name, value] of defines) {
    const def = parseDefine(`${name} ${value === undefined ? '1' : value}`, '<command line>');
    if (def) table.define(def);
  }
  for (const name of options.undefines ?? []) table.undefine(name);
  return table;
}
