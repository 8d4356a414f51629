// The debugger's reading of simulator errors (debugger/launch-config.ts): a request the file does not
// fit fails the launch naming the launch.json field the simulator says is at fault (kernel, grid,
// block, dynamicSmem, args[i] by the argument's name), never by reading the message.
import { describe, expect, it } from 'vitest';
import { type LaunchField, SimError, type SimulateRequest, createDebugRuntime, validateLaunch } from '../../core/index';
import { validateGeometry } from '../../core/sim/machine';
import { launchConfigField, simErrorAsConfigError } from '../../debugger/launch-config';

const specs = validateLaunch({ file: 'k.cu', grid: 1, block: 32, args: ['n=4', 'out=f32[4]'] }).args;

describe('launchConfigField', () => {
  it('maps every field kind to its launch.json field, an argument by its name', () => {
    const cases: [LaunchField, string][] = [
      [{ kind: 'kernel' }, 'kernel'],
      [{ kind: 'kernel', unknown: { name: 'foo', available: ['k'] } }, 'kernel'],
      [{ kind: 'grid' }, 'grid'],
      [{ kind: 'block' }, 'block'],
      [{ kind: 'dynamicSmem' }, 'dynamicSmem'],
      [{ kind: 'arg', name: 'out' }, 'args[1]'],
      [{ kind: 'arg', name: 'n' }, 'args[0]'],
      [{ kind: 'arg', name: 'absent' }, 'args'],
      [{ kind: 'args' }, 'args'],
    ];
    for (const [field, name] of cases) expect(launchConfigField(field, specs), JSON.stringify(field)).toBe(name);
  });
});

describe('simErrorAsConfigError', () => {
  const cuda = { language: 'cuda' as const, args: specs };

  it('prefixes the message with the field, and blames the program when the error names none', () => {
    expect(simErrorAsConfigError(SimError.ofRequest({ kind: 'arg', name: 'out' }, 'argument is wrong'), cuda, '/x/k.cu').message).toBe('args[1]: argument is wrong');
    expect(simErrorAsConfigError(new SimError('the code is wrong'), cuda, '/x/k.cu').message).toBe('program: the code is wrong');
    expect(simErrorAsConfigError(new Error('anything else'), cuda, '/x/k.cu').message).toBe('program: anything else');
  });

  it('words an unknown CUDA kernel by the file name and the kernels it has; Croqtile keeps its message', () => {
    const unknown = SimError.ofRequest({ kind: 'kernel', unknown: { name: 'foo', available: ['a', 'b'] } }, '/x/k.cu: no __global__ kernel named ...');
    expect(simErrorAsConfigError(unknown, cuda, '/x/k.cu').message).toBe("kernel: no __global__ function 'foo' in k.cu (kernels: a, b)");
    expect(simErrorAsConfigError(unknown, { language: 'croqtile', args: specs }, '/x/k.co').message).toBe('kernel: /x/k.cu: no __global__ kernel named ...');
  });

  it('names grid, block and dynamicSmem for the geometry the machine rejects', () => {
    const field = (o: Parameters<typeof validateGeometry>[0]): string | undefined => {
      try {
        validateGeometry(o);
      } catch (e) {
        return simErrorAsConfigError(e, cuda, '/x/k.cu').field;
      }
      return undefined;
    };
    expect(field({ grid: [0, 1, 1], block: [32, 1, 1] })).toBe('grid');
    expect(field({ grid: [1, 70000, 1], block: [32, 1, 1] })).toBe('grid');
    expect(field({ grid: [1, 1, 1], block: [2048, 1, 1] })).toBe('block');
    expect(field({ grid: [1, 1, 1], block: [1, 1, 128] })).toBe('block');
    expect(field({ grid: [1, 1, 1], block: [32, 1, 1], dynamicSmem: 1 << 20 })).toBe('dynamicSmem');
  });
});

/** The launch.json field and message a request fails its debug launch with. */
async function launchFailure(file: string, text: string, launch: { kernel?: string; args?: string[] }): Promise<string> {
  const request: SimulateRequest = { ...validateLaunch({ file, grid: 1, block: 32, ...launch }), text };
  try {
    await createDebugRuntime(request).start();
  } catch (e) {
    return simErrorAsConfigError(e, request, file).message;
  }
  return 'started';
}

describe('simulator errors of a debug launch, end to end', () => {
  const cu = '__global__ void k(float *out, int n) { out[0] = n; }\n__global__ void other() {}\n';
  const co = '__co__ void f(f32 [N] x, int n) { }\n__co__ void g() { }\n';

  it('CUDA: the kernel and each argument', async () => {
    const args = ['out=f32[4]', 'n=4'];
    expect(await launchFailure('/x/k.cu', cu, { kernel: 'foo', args })).toBe("kernel: no __global__ function 'foo' in k.cu (kernels: k, other)");
    expect(await launchFailure('/x/k.cu', cu, { args })).toMatch(/^kernel: \/x\/k\.cu has 2 kernels; choose one/);
    expect(await launchFailure('/x/k.cu', cu, { kernel: 'k', args: ['out=f32[4]', 'n=4', 'extra=1'] })).toMatch(/^args\[2\]: argument 'extra' is not a parameter of k/);
    expect(await launchFailure('/x/k.cu', cu, { kernel: 'k', args: ['out=f32[4]'] })).toMatch(/^args: missing argument 'n' of k/);
    expect(await launchFailure('/x/k.cu', cu, { kernel: 'k', args: ['n=4', 'out=5'] })).toMatch(/^args\[1\]: argument 'out' is a pointer/);
    expect(await launchFailure('/x/k.cu', cu, { kernel: 'k', args: ['out=f32[4]', 'n=f32[2]'] })).toMatch(/^args\[1\]: argument 'n' is a \w+ scalar, not a buffer/);
    expect(await launchFailure('/x/k.cu', cu, { kernel: 'k', args: ['out=f32[4]', 'n=1.5'] })).toMatch(/^args\[1\]: argument 'n' is an integer/);
    expect(await launchFailure('/x/k.cu', cu, { kernel: 'k', args: ['out=f32[4]', 'n=4294967296'] })).toMatch(/^args\[1\]: argument 'n' = 4294967296 does not fit in s32/);
  });

  it('Croqtile: the function and each argument', async () => {
    expect(await launchFailure('/x/p.co', co, { kernel: 'h', args: [] })).toMatch(/^kernel: \/x\/p\.co has no __co__ function 'h' \(it has: f, g\)/);
    expect(await launchFailure('/x/p.co', co, { kernel: 'f', args: ['x=f32[4]'] })).toMatch(/^args: f needs the argument 'n'/);
    expect(await launchFailure('/x/p.co', co, { kernel: 'f', args: ['n=4', 'x=f32[4]', 'y=1'] })).toMatch(/^args\[2\]: --arg y: f has no parameter 'y'/);
    expect(await launchFailure('/x/p.co', co, { kernel: 'f', args: ['n=4', 'x=5'] })).toMatch(/^args\[1\]: --arg x=5: 'x' is a tensor/);
    expect(await launchFailure('/x/p.co', co, { kernel: 'f', args: ['x=f32[4,4]', 'n=4'] })).toMatch(/^args\[0\]: --arg x=f32\[4,4\]: 'x' has 1 dimensions/);
    expect(await launchFailure('/x/p.co', co, { kernel: 'f', args: ['n=f32[4]', 'x=f32[4]'] })).toMatch(/^args\[0\]: --arg n=f32\[4\]: 'n' is a scalar/);
  });
});
