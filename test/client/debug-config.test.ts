// The client's launch logic without VS Code: simulator defaults read from settings, configurations
// completed from the program's kernel templates (user values always win), launch.json updates.
import { describe, expect, it } from 'vitest';
import { launchTemplates } from '../../core/index';
import type { LaunchTemplate } from '../../core/sim/launch-template';
import {
  configurationsFor,
  defaultBlock,
  defaultBlockNotice,
  EDIT_BLOCK,
  forLaunchJson,
  launchAllowed,
  MANAGE_TRUST,
  parseBlockSize,
  portableProgram,
  RESTRICTED_MODE_PROMPT,
  readSimulatorDefaults,
  resolveConfiguration,
  SIMULATOR_DEFAULTS,
  withConfiguration,
  withEditedBlock,
} from '../../client/debug-config';

const TEMPLATES: LaunchTemplate[] = [
  { kernel: 'tmpl', language: 'cuda', line: 0, args: [], unsupported: 'kernel is a template' },
  { kernel: 'first', language: 'cuda', line: 2, grid: [1, 1, 1], block: [160, 1, 1], args: ['in=f32[16]:iota', 'n=4'] },
  { kernel: 'second', language: 'cuda', line: 9, grid: [1, 1, 1], block: [64, 2, 1], args: ['out=f32[8]'], dynamicSmem: 4096 },
];

function ctx(activeProgram?: string, seen: string[] = []) {
  return {
    activeProgram,
    templatesOf: async (program: string) => {
      seen.push(program);
      return TEMPLATES;
    },
    defaults: { ...SIMULATOR_DEFAULTS, seed: 9 },
  };
}

describe('readSimulatorDefaults', () => {
  it('uses the settings when valid and the simulator defaults when unset', () => {
    const values: Record<string, unknown> = { 'simulator.schedule': 'adversarial', 'simulator.seed': 7, 'simulator.stopOnEntry': true };
    expect(readSimulatorDefaults((k) => values[k])).toEqual({ schedule: 'adversarial', seed: 7, maxSteps: 50_000_000, stopOnEntry: true });
  });

  it('warns, naming the setting, and falls back on bad values', () => {
    const warnings: string[] = [];
    const values: Record<string, unknown> = { 'simulator.schedule': 'fast', 'simulator.seed': -1, 'simulator.maxSteps': 0.5, 'simulator.stopOnEntry': 'no' };
    expect(readSimulatorDefaults((k) => values[k], (m) => warnings.push(m))).toEqual(SIMULATOR_DEFAULTS);
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/^phaseflip\.simulator\.schedule must be one of round-robin, random, adversarial, got "fast"/);
    expect(warnings[1]).toMatch(/^phaseflip\.simulator\.seed/);
    expect(warnings[2]).toMatch(/^phaseflip\.simulator\.maxSteps/);
    expect(warnings[3]).toMatch(/^phaseflip\.simulator\.stopOnEntry/);
  });
});

describe('resolveConfiguration', () => {
  it('turns F5 without launch.json into a launch of the active file’s first launchable kernel', async () => {
    const r = await resolveConfiguration({}, ctx('/w/k.cu'));
    expect(r.config).toEqual({
      type: 'phaseflip',
      request: 'launch',
      name: 'Debug kernel',
      program: '/w/k.cu',
      kernel: 'first',
      grid: 1,
      block: 160,
      args: ['in=f32[16]:iota', 'n=4'],
      schedule: 'round-robin',
      seed: 9,
      maxSteps: 50_000_000,
      stopOnEntry: false,
    });
  });

  it('runs a whole program (a file with main and no kernel named) from main: no kernel, geometry or args filled', async () => {
    const whole = { ...ctx('/w/harness.cu'), isWholeProgram: async (p: string) => p === '/w/harness.cu' };
    const r = await resolveConfiguration({}, whole);
    expect(r.config).toEqual({ type: 'phaseflip', request: 'launch', name: 'Debug kernel', program: '/w/harness.cu', schedule: 'round-robin', seed: 9, maxSteps: 50_000_000, stopOnEntry: false });
    // Naming a kernel still launches that kernel alone.
    const one = await resolveConfiguration({ program: '/w/harness.cu', kernel: 'second' }, whole);
    expect(one.config).toMatchObject({ kernel: 'second', block: [64, 2, 1] });
  });

  it('says what to do when there is nothing to debug', async () => {
    const r = await resolveConfiguration({}, ctx(undefined));
    expect(r.config).toBeUndefined();
    expect(r.message).toMatch(/open a \.cu or \.co file/);
  });

  it('fills only what is missing, from the named kernel’s template', async () => {
    const seen: string[] = [];
    const r = await resolveConfiguration({ type: 'phaseflip', request: 'launch', name: 'mine', program: '/w/x.cu', kernel: 'second', block: 32, seed: 3 }, ctx('/w/other.cu', seen));
    expect(seen).toEqual(['/w/x.cu']);
    expect(r.config).toMatchObject({ program: '/w/x.cu', kernel: 'second', grid: 1, block: 32, args: ['out=f32[8]'], dynamicSmem: 4096, seed: 3, schedule: 'round-robin' });
  });

  it('never mixes another kernel’s args into a kernel without a template', async () => {
    const r = await resolveConfiguration({ type: 'phaseflip', request: 'launch', name: 'x', program: '/w/x.cu', kernel: 'tmpl' }, ctx());
    expect(r.config?.args).toBeUndefined();
    expect(r.config?.kernel).toBe('tmpl');
  });

  it('leaves a wrong program for the session to report, naming the field', async () => {
    const r = await resolveConfiguration({ type: 'phaseflip', request: 'launch', name: 'x', program: 42 }, ctx());
    expect(r.config?.program).toBe(42);
    expect(r.config?.args).toBeUndefined();
  });
});

describe('launch.json helpers', () => {
  it('offers one configuration per launchable kernel', () => {
    expect(configurationsFor(TEMPLATES, '${workspaceFolder}/k.cu').map((c) => [c.name, c.program, c.block])).toEqual([
      ['Debug first', '${workspaceFolder}/k.cu', 160],
      ['Debug second', '${workspaceFolder}/k.cu', [64, 2, 1]],
    ]);
  });

  it('replaces a configuration of the same name and keeps the others in order', () => {
    const existing = [{ name: 'a', type: 'node' }, { name: 'Debug first', type: 'phaseflip', block: 1 }, 'junk'];
    const next = withConfiguration(existing, { name: 'Debug first', type: 'phaseflip', block: 160 });
    expect(next).toEqual([{ name: 'a', type: 'node' }, { name: 'Debug first', type: 'phaseflip', block: 160 }]);
    expect(withConfiguration(undefined, { name: 'n' })).toEqual([{ name: 'n' }]);
    expect(withConfiguration(next, { name: 'new' }).map((c) => c.name)).toEqual(['a', 'Debug first', 'new']);
  });

  it('writes programs inside the workspace as ${workspaceFolder}/…', () => {
    expect(portableProgram('/w/src/k.cu', '/w')).toBe('${workspaceFolder}/src/k.cu');
    expect(portableProgram('/other/k.cu', '/w')).toBe('/other/k.cu');
    expect(portableProgram('/w2/k.cu', '/w')).toBe('/w2/k.cu');
    expect(portableProgram('C:\\w\\src\\k.cu', 'C:\\w', '\\')).toBe('${workspaceFolder}/src/k.cu');
  });
});

describe('launchAllowed: debugging in Restricted Mode asks for trust', () => {
  const fakeTrust = (trusted: boolean, answer: boolean, trustOnManage: boolean) => {
    const log: string[] = [];
    let isTrusted = trusted;
    return {
      log,
      trust: {
        isTrusted: () => isTrusted,
        ask: async (message: string, button: string) => {
          log.push(`ask: ${button}: ${message}`);
          return answer;
        },
        manage: async () => {
          log.push('manage');
          if (trustOnManage) isTrusted = true;
        },
      },
    };
  };

  it('a trusted workspace launches without a question', async () => {
    const { log, trust } = fakeTrust(true, false, false);
    expect(await launchAllowed(trust)).toBe(true);
    expect(log).toEqual([]);
  });

  it('in Restricted Mode it asks, and launches only once the user has trusted the workspace', async () => {
    const declined = fakeTrust(false, false, false);
    expect(await launchAllowed(declined.trust)).toBe(false);
    expect(declined.log).toEqual([`ask: ${MANAGE_TRUST}: ${RESTRICTED_MODE_PROMPT}`]);
    expect(RESTRICTED_MODE_PROMPT).toMatch(/Restricted Mode.*launch configuration names.*linting, hovers and symbols work without it/);
    const trusted = fakeTrust(false, true, true);
    expect(await launchAllowed(trusted.trust)).toBe(true);
    expect(trusted.log.slice(1)).toEqual(['manage']);
    const openedButNotTrusted = fakeTrust(false, true, false);
    expect(await launchAllowed(openedButNotTrusted.trust)).toBe(false);
  });
});

describe('where the block came from', () => {
  const SOURCED: LaunchTemplate[] = [
    { kernel: 'first', language: 'cuda', line: 2, grid: [1, 1, 1], block: [160, 1, 1], args: [], blockSource: '__launch_bounds__(160)' },
    { kernel: 'third', language: 'cuda', line: 12, grid: [1, 1, 1], block: [128, 1, 1], args: [], blockSource: 'the default of 128 threads', blockDefault: true },
  ];
  const sourced = () => ({ templatesOf: async () => SOURCED, defaults: SIMULATOR_DEFAULTS });
  it('travels with a block taken from the template, not with one the user wrote, and never into launch.json', async () => {
    const fromTemplate = await resolveConfiguration({ type: 'phaseflip', request: 'launch', name: 'a', program: '/w/x.cu', kernel: 'first' }, sourced());
    expect(fromTemplate.config).toMatchObject({ block: 160, blockSource: '__launch_bounds__(160)' });
    expect(fromTemplate.config?.blockDefault).toBeUndefined();
    const written = await resolveConfiguration({ type: 'phaseflip', request: 'launch', name: 'b', program: '/w/x.cu', kernel: 'first', block: 32 }, sourced());
    expect(written.config?.blockSource).toBeUndefined();
    const third = await resolveConfiguration({ type: 'phaseflip', request: 'launch', name: 'c', program: '/w/x.cu', kernel: 'third' }, sourced());
    expect(defaultBlock(third.config!)).toBe(128);
    expect(defaultBlock(fromTemplate.config!)).toBeUndefined();
    const lens = configurationsFor(SOURCED, '/w/x.cu').find((c) => c.kernel === 'third')!;
    expect(lens).toMatchObject({ blockSource: 'the default of 128 threads', blockDefault: true });
    expect(forLaunchJson(lens)).toEqual({ type: 'phaseflip', request: 'launch', name: 'Debug third', program: '/w/x.cu', kernel: 'third', args: [], grid: 1, block: 128 });
  });
});

describe('"Debug kernel" offers to edit a block that is a default', () => {
  const lensConfig = async (text: string) => configurationsFor(await launchTemplates(text, 'cuda', '/w/k.cu'), '/w/k.cu')[0]!;

  it('a kernel whose launch nothing in the file says gets the notice with its button; a derived block does not', async () => {
    const guessed = await lensConfig('__global__ void k(int* out) { out[threadIdx.x] = 1; }\n');
    const block = defaultBlock(guessed);
    expect(block).toBe(128);
    expect(defaultBlockNotice(guessed, block!)).toBe('Phaseflip: k runs with block 128, a default: nothing in the file says how it is launched (no launch, __launch_bounds__ or blockDim check).');
    expect(EDIT_BLOCK).toBe('Edit Block Size…');
    expect(defaultBlockNotice({ type: 'phaseflip', request: 'launch', name: 'n' }, [64, 2, 1])).toContain('the kernel runs with block 64,2,1, a default');
    for (const derived of [
      '__global__ void __launch_bounds__(256) k(int* out) { out[threadIdx.x] = 1; }\n',
      '__global__ void k(int* out) { out[threadIdx.x] = 1; }\nvoid host(int* o) { k<<<1, 64>>>(o); }\n',
      '__global__ void k(int* out) {\n  if (blockDim.x != 96) return;\n  out[threadIdx.x] = 1;\n}\n',
    ]) {
      expect(defaultBlock(await lensConfig(derived)), derived).toBeUndefined();
    }
  });

  it('reads the typed size as X or X,Y,Z of at most 1024 threads, and says what it wants otherwise', () => {
    expect(parseBlockSize('96')).toEqual([96]);
    expect(parseBlockSize(' 64 , 2 ')).toEqual([64, 2]);
    expect(parseBlockSize('32,4,8')).toEqual([32, 4, 8]);
    expect(parseBlockSize('1024')).toEqual([1024]);
    for (const bad of ['', '0', '1025', '32,0', '64,4,8', '1,2,3,4', 'a', '-32', '32.5', '128;']) {
      expect(parseBlockSize(bad), bad).toEqual({ problem: 'a positive size X or X,Y,Z with X·Y·Z ≤ 1024' });
    }
  });

  it('runs again with the typed block, said to be the user\'s, with no second notice and nothing of it in launch.json', async () => {
    const guessed = await lensConfig('__global__ void k(int* out) { out[threadIdx.x] = 1; }\n');
    const one = withEditedBlock(guessed, [96]);
    expect(one).toMatchObject({ kernel: 'k', program: '/w/k.cu', block: 96, blockSource: 'the size you typed', args: guessed.args });
    expect('blockDefault' in one).toBe(false);
    expect(defaultBlock(one)).toBeUndefined();
    expect(withEditedBlock(guessed, [32, 4]).block).toEqual([32, 4]);
    expect(forLaunchJson(one)).toEqual({ type: 'phaseflip', request: 'launch', name: 'Debug k', program: '/w/k.cu', kernel: 'k', args: guessed.args, grid: 1, block: 96 });
    expect(guessed.blockDefault).toBe(true);
  });
});
