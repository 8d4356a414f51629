// Launch-request validation (core/launch-request.ts), which the CLI, the debugger and the client share:
// each problem names its field, and launch.json's values and the CLI's texts are read alike.
import { describe, expect, it } from 'vitest';
import { LaunchRequestError, isLaunchInteger, toDim3, validateLaunch } from '../../core/index';

function problem(desc: Parameters<typeof validateLaunch>[0]): string {
  try {
    validateLaunch(desc);
  } catch (e) {
    if (e instanceof LaunchRequestError) return e.message;
    throw e;
  }
  return 'valid';
}

describe('validateLaunch', () => {
  const cuda = { file: 'k.cu', grid: 1, block: 32 };

  it('reads dimensions as a number, a list or the CLI text, and parses the SPEC strings', () => {
    const launch = validateLaunch({ ...cuda, grid: '2x1', block: [32, 2], args: ['n=4', 'out=f32[4]:iota'], seed: 7, schedule: 'random', maxSteps: 10 });
    expect(launch).toMatchObject({ file: 'k.cu', language: 'cuda', grid: [2, 1, 1], block: [32, 2, 1], seed: 7, schedule: 'random', maxSteps: 10 });
    expect(launch.args.map((a) => a.name)).toEqual(['n', 'out']);
    expect(toDim3(0)).toBeUndefined();
    expect(toDim3([1, 2, 3, 4])).toBeUndefined();
  });

  it('names the field of every problem', () => {
    expect(problem({ file: 'notes.txt' })).toBe('program: expected a .cu, .cuh or .co file, got notes.txt');
    expect(problem({ file: 'pipeline.py' })).toBe('program: tilus files are linted, not simulated; expected a .cu, .cuh or .co file, got pipeline.py');
    expect(problem({ file: 'kernel.h' })).toBe('program: expected a .cu, .cuh or .co file, got kernel.h');
    expect(problem({ file: 'k.cu', grid: 1 })).toMatch(/^block: required for a CUDA kernel/);
    expect(problem({ ...cuda, grid: 0 })).toBe('grid: expected a positive integer, [x, y, z] or "x,y,z", got 0');
    expect(problem({ ...cuda, block: [64, 32] })).toBe('block: 2048 threads per block exceeds the hardware limit of 1024');
    expect(problem({ ...cuda, dynamicSmem: 1_000_000 })).toMatch(/^dynamicSmem: dynamic shared memory 1000000 bytes is outside/);
    expect(problem({ file: 'p.co', dynamicSmem: 1_000_000 })).toBe('dynamicSmem: expected an integer in 0..232448, got 1000000');
    expect(problem({ ...cuda, args: ['n=1', 'x=f99[4]'] })).toMatch(/^args\[1\]: x=f99\[4\]: unknown element type 'f99'/);
    expect(problem({ ...cuda, args: ['n=1', 'n=2'] })).toBe("args[1]: 'n' is given twice");
    // launch.json takes the same tensormap(…) SPEC as --arg; a bad field is reported on its args entry.
    expect(validateLaunch({ ...cuda, args: ['A=f16[64,64]', 't=tensormap(A, box=[64,8], swizzle=128B)'] }).args[1]).toMatchObject({ kind: 'tensormap', tensor: 'A', box: [64, 8], swizzle: 128 });
    expect(problem({ ...cuda, args: ['A=f16[64,64]', 't=tensormap(A, box=[64,8], oob=inf)'] })).toBe("args[1]: t=tensormap(A, box=[64,8], oob=inf): tensormap field 'oob' must be one of zero, nan, got inf");
    expect(problem({ ...cuda, schedule: 'fast' })).toBe('schedule: expected one of round-robin, random, adversarial, got "fast"');
    expect(problem({ ...cuda, seed: -1 })).toBe('seed: expected an integer in 0..4294967295, got -1');
    expect(problem({ ...cuda, grid: 3, cluster: 2 })).toBe('cluster: grid 3,1,1 is not a whole number of 2x1x1 clusters (gridDim.x = 3 is not divisible by 2)');
    expect(problem({ ...cuda, grid: 32, cluster: 'x' })).toMatch(/^cluster: expected a positive integer/);
    expect(problem({ ...cuda, grid: 32, cluster: 32 })).toMatch(/^cluster: a cluster of 32x1x1 = 32 CTAs exceeds the hardware maximum of 16/);
    expect(validateLaunch({ ...cuda, grid: [4, 2], cluster: '2,2' }).cluster).toEqual([2, 2, 1]);
    expect(problem({ ...cuda, kernel: 'a b' })).toBe('kernel: expected a function name, got "a b"');
    expect(problem({ ...cuda, kernel: 'k<float' })).toBe('kernel: expected a function name, got "k<float"');
    // A template kernel's instantiation is a kernel name the simulator reads.
    for (const kernel of ['k<float, 1024>', 'k< 4 >', 'k<Ring<2>, (kN * 2)>']) expect(validateLaunch({ ...cuda, kernel }).kernel).toBe(kernel);
  });

  it('checks each field before the launch as a whole', () => {
    // A CUDA launch without geometry reports a bad schedule first: the field the user wrote.
    expect(problem({ file: 'k.cu', schedule: 'fair' })).toMatch(/^schedule:/);
    expect(isLaunchInteger('maxSteps', 0)).toBe(false);
  });
});
