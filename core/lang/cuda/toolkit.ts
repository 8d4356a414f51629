// Where the installed CUDA toolkit keeps its headers, for `#include <cuda/barrier>` and friends: the
// directories nvcc itself searches after the user's, when a toolkit is installed.
import { existsSync } from 'node:fs';
import * as path from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/** Finds an executable on the PATH of `env`; undefined when there is none. */
export type Which = (command: string, env: Env, exists: (p: string) => boolean) => string | undefined;

export const whichOnPath: Which = (command, env, exists) => {
  const windows = process.platform === 'win32';
  const dirs = (env.PATH ?? env.Path ?? '').split(windows ? ';' : ':').filter((d) => d !== '');
  for (const dir of dirs) {
    for (const name of windows ? [`${command}.exe`, command] : [command]) {
      const candidate = path.join(dir, name);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
};

const memo = new WeakMap<(p: string) => boolean, Map<string, string[]>>();

/**
 * The include directories of the first toolkit found among `$CUDA_PATH`, `$CUDA_HOME`, the toolkit of
 * the `nvcc` on PATH (`bin/nvcc` → `include`) and `/usr/local/cuda`: its `include` and, where present,
 * `include/cccl` (CUDA 13 moved CCCL's headers there; nvcc searches it). Empty when no toolkit is
 * installed. Memoised per environment and `exists`: the search runs once per process.
 */
export function cudaToolkitIncludeDirs(env: Env = process.env, exists: (p: string) => boolean = existsSync, which: Which = whichOnPath): string[] {
  const key = [env.CUDA_PATH, env.CUDA_HOME, env.PATH ?? env.Path].join('\0');
  let byEnv = memo.get(exists);
  if (!byEnv) memo.set(exists, (byEnv = new Map()));
  const known = byEnv.get(key);
  if (known) return [...known];

  const roots: string[] = [];
  for (const variable of [env.CUDA_PATH, env.CUDA_HOME]) if (variable) roots.push(variable);
  const nvcc = which('nvcc', env, exists);
  if (nvcc) roots.push(path.resolve(path.dirname(nvcc), '..'));
  roots.push('/usr/local/cuda');

  // One toolkit, as nvcc uses one: mixing the headers of two versions would be worse than either.
  const dirs: string[] = [];
  const include = roots.map((root) => path.resolve(root, 'include')).find((dir) => exists(dir));
  if (include) {
    dirs.push(include);
    const cccl = path.join(include, 'cccl');
    if (exists(cccl)) dirs.push(cccl);
  }
  byEnv.set(key, dirs);
  return [...dirs];
}
