// The compile flags of `phaseflip lint` and `phaseflip sim`: -I, -D, --include-dir, --compile-commands,
// --cuda-arch in all their spellings, carried in the parsed arguments; bad values are usage errors.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/errors';
import { parseLintArgs } from '../../cli/lint';
import { parseSimArgs, SIM_HELP } from '../../cli/sim';
import { HELP } from '../../cli/cli';

describe('compile flags on the command line', () => {
  it('lint: every spelling, in order, paths kept apart', () => {
    const args = parseLintArgs(['-I', 'inc', '-Iother', '--include-dir', 'third', '--include-dir=fourth', '-D', 'A', '-DB=2', '-DMAX(a,b)=a', 'k.cu', '--compile-commands', 'build', '--cuda-arch', 'sm_100a', '-f', 'json', 'h.cuh']);
    expect(args.compile).toEqual({ includeDirs: ['inc', 'other', 'third', 'fourth'], defines: ['A', 'B=2', 'MAX(a,b)=a'], compileCommands: 'build', cudaArch: 1000 });
    expect(args.paths).toEqual(['k.cu', 'h.cuh']);
    expect(args.format).toBe('json');
  });

  it('lint: none given is an empty object; after -- everything is a path', () => {
    expect(parseLintArgs(['k.cu']).compile).toEqual({});
    expect(parseLintArgs(['--', '-Ifoo']).paths).toEqual(['-Ifoo']);
  });

  it('sim: the same flags, with the launch flags around them', () => {
    const args = parseSimArgs(['k.cu', '--kernel', 'k', '-I', '../include', '--grid', '1', '-DSTAGES=4', '--cuda-arch=900', '--compile-commands=build/compile_commands.json', '--block', '128']);
    expect(args.compile).toEqual({ includeDirs: ['../include'], defines: ['STAGES=4'], cudaArch: 900, compileCommands: 'build/compile_commands.json' });
    expect(args).toMatchObject({ file: 'k.cu', kernel: 'k', grid: '1', block: '128' });
  });

  it('bad values are usage errors naming the flag', () => {
    const cases: Array<[string[], RegExp]> = [
      [['-I'], /-I needs a value/],
      [['--include-dir='], /--include-dir needs a directory/],
      [['-D', '1X'], /-D expects NAME or NAME=VALUE/],
      [['-D=X'], /-D expects NAME or NAME=VALUE/],
      [['--cuda-arch', 'hopper'], /--cuda-arch expects an architecture such as 900/],
      [['--cuda-arch', '905'], /--cuda-arch expects/],
      [['--compile-commands='], /--compile-commands needs/],
    ];
    for (const [argv, message] of cases) {
      expect(() => parseLintArgs(['k.cu', ...argv]), argv.join(' ')).toThrow(UsageError);
      expect(() => parseLintArgs(['k.cu', ...argv]), argv.join(' ')).toThrow(message);
      expect(() => parseSimArgs(['k.cu', ...argv]), argv.join(' ')).toThrow(message);
    }
  });

  it('--launch: repeatable, in both spellings, parsed into launch settings; bad values and sim are usage errors', () => {
    const args = parseLintArgs(['--launch', 'k:block=128,cluster=2x1x1', '--launch=src/a.cu:g<64>:block=64,1,1,smem=1024', 'k.cu']);
    expect(args.compile.launch).toEqual([
      { key: 'k', kernel: 'k', block: [128, 1, 1], cluster: [2, 1, 1], origin: 'command line' },
      { key: 'src/a.cu:g<64>', kernel: 'g', file: 'src/a.cu', templateArgs: ['64'], block: [64, 1, 1], smem: 1024, origin: 'command line' },
    ]);
    expect(args.paths).toEqual(['k.cu']);
    expect(() => parseLintArgs(['--launch', 'k', 'k.cu'])).toThrow(/--launch expects KERNEL:block=N/);
    expect(() => parseLintArgs(['--launch', 'k:block=4096', 'k.cu'])).toThrow(/at most 1024 threads/);
    expect(() => parseLintArgs(['--launch', 'k:grid=x', 'k.cu'])).toThrow(UsageError);
    expect(() => parseSimArgs(['k.cu', '--launch', 'k:block=128'])).toThrow(/sim takes the launch shape from --grid, --block/);
  });

  it('the help of lint and sim lists the flags', () => {
    for (const help of [HELP, SIM_HELP]) {
      for (const flag of ['-I DIR', '-D NAME[=VALUE]', '--include-dir DIR', '--compile-commands FILE', '--cuda-arch N']) expect(help).toContain(flag);
    }
  });
});
