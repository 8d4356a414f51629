// Finding the CUDA toolkit's include directories (CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda)
// over a fake file system: no toolkit is needed to run this.
import { describe, expect, it } from 'vitest';
import { cudaToolkitIncludeDirs } from '../../../../core/lang/cuda/toolkit';

/** A fresh `exists` over a set of paths (memoisation is per `exists` function). */
const existsIn = (paths: string[]) => (p: string) => paths.includes(p);

describe('cudaToolkitIncludeDirs', () => {
  it('takes CUDA_PATH first, then CUDA_HOME, then nvcc on PATH, then /usr/local/cuda: one toolkit only', () => {
    const paths = ['/opt/cuda-12.8/include', '/opt/cuda-13.0/include', '/opt/cuda-13.0/include/cccl', '/opt/cuda-13.0/bin/nvcc', '/usr/local/cuda/include'];
    expect(cudaToolkitIncludeDirs({ CUDA_PATH: '/opt/cuda-12.8', CUDA_HOME: '/opt/cuda-13.0' }, existsIn(paths))).toEqual(['/opt/cuda-12.8/include']);
    expect(cudaToolkitIncludeDirs({ CUDA_HOME: '/opt/cuda-13.0' }, existsIn(paths))).toEqual(['/opt/cuda-13.0/include', '/opt/cuda-13.0/include/cccl']);
    expect(cudaToolkitIncludeDirs({ PATH: '/usr/bin:/opt/cuda-13.0/bin' }, existsIn(paths))).toEqual(['/opt/cuda-13.0/include', '/opt/cuda-13.0/include/cccl']);
    expect(cudaToolkitIncludeDirs({ PATH: '/usr/bin' }, existsIn(paths))).toEqual(['/usr/local/cuda/include']);
  });

  it('skips a variable naming a directory without include/, and is empty with no toolkit', () => {
    expect(cudaToolkitIncludeDirs({ CUDA_PATH: '/gone', PATH: '/usr/bin' }, existsIn(['/usr/local/cuda/include']))).toEqual(['/usr/local/cuda/include']);
    expect(cudaToolkitIncludeDirs({ PATH: '/usr/bin' }, existsIn([]))).toEqual([]);
  });

  it('uses the given which, and searches once per environment', () => {
    let searches = 0;
    const exists = existsIn(['/sdk/include']);
    const which = () => {
      searches++;
      return '/sdk/bin/nvcc';
    };
    const env = { PATH: '/anything' };
    expect(cudaToolkitIncludeDirs(env, exists, which)).toEqual(['/sdk/include']);
    expect(cudaToolkitIncludeDirs(env, exists, which)).toEqual(['/sdk/include']);
    expect(searches).toBe(1);
    cudaToolkitIncludeDirs({ PATH: '/elsewhere' }, exists, which);
    expect(searches).toBe(2);
  });
});
