// C++ scalar types of CUDA code: the one table from a type name to its element type (dtype) and the one
// `sizeof` by type name, shared by the front end (constant folding of `sizeof(T)`) and the simulator
// (declared types, memory layout).
import { type DType, sizeOf } from '../../sim/dtypes';

/** Scalar type names as written (after `const` and template arguments are dropped) to their dtype. */
export const SCALAR_DTYPES: Readonly<Record<string, DType>> = {
  int: 's32',
  'signed int': 's32',
  signed: 's32',
  unsigned: 'u32',
  'unsigned int': 'u32',
  short: 's16',
  'short int': 's16',
  'unsigned short': 'u16',
  'unsigned short int': 'u16',
  char: 's8',
  'signed char': 's8',
  'unsigned char': 'u8',
  long: 's64',
  'long int': 's64',
  'long long': 's64',
  'long long int': 's64',
  'unsigned long': 'u64',
  'unsigned long int': 'u64',
  'unsigned long long': 'u64',
  'unsigned long long int': 'u64',
  'signed long long': 's64',
  size_t: 'u64',
  ptrdiff_t: 's64',
  intptr_t: 's64',
  uintptr_t: 'u64',
  int8_t: 's8',
  int16_t: 's16',
  int32_t: 's32',
  int64_t: 's64',
  uint8_t: 'u8',
  uint16_t: 'u16',
  uint32_t: 'u32',
  uint64_t: 'u64',
  uint: 'u32',
  float: 'f32',
  double: 'f64',
  bool: 'bool',
  __half: 'f16',
  half: 'f16',
  __nv_bfloat16: 'bf16',
  nv_bfloat16: 'bf16',
  __mbarrier_t: 'u64',
  __mbarrier_token_t: 'u64',
  arrival_token: 'u64',
  clock_t: 's64',
  'unsigned long long int ': 'u64',
};

/** Sizes of names that are not one scalar: vector types, fp8, and short names kernels use as aliases. */
const OTHER_SIZES: Readonly<Record<string, number>> = {
  __nv_fp8_e4m3: 1,
  __nv_fp8_e5m2: 1,
  fp8: 1,
  f16: 2,
  bf16: 2,
  __half2: 4,
  __nv_bfloat162: 4,
  tf32: 4,
  float2: 8,
  __int64: 8,
  float4: 16,
  int4: 16,
  uint4: 16,
  double2: 16,
};

/** `sizeof` of a type name (`float`, `uint64_t`, `float4`); undefined for anything else. */
export function sizeOfTypeName(name: string): number | undefined {
  if (Object.hasOwn(SCALAR_DTYPES, name)) return sizeOf(SCALAR_DTYPES[name]);
  return Object.hasOwn(OTHER_SIZES, name) ? OTHER_SIZES[name] : undefined;
}
