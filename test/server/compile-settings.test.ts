// The compile-flag settings the server reads (phaseflip.includePaths, defines, compileCommands,
// cudaArch, launch) into core's ExplicitFlags: nested or dotted keys, bad values reported and dropped.
import { describe, expect, it } from 'vitest';
import { defaultSettings, parseSettings } from '../../server/settings';

function parse(raw: unknown, base = defaultSettings()) {
  const warnings: string[] = [];
  const settings = parseSettings(raw, (m) => warnings.push(m), base);
  return { settings, warnings };
}

describe('compile-flag settings', () => {
  it('absent until one is given', () => {
    expect(parse({ lint: { debounceMs: 10 } }).settings.compile).toBeUndefined();
  });

  it('reads all four, as VS Code sends them', () => {
    const { settings, warnings } = parse({ includePaths: ['${workspaceFolder}/include', 'third_party'], defines: ['NDEBUG', 'STAGES=4'], compileCommands: 'build', cudaArch: 1000 });
    expect(warnings).toEqual([]);
    expect(settings.compile).toEqual({ includeDirs: ['${workspaceFolder}/include', 'third_party'], defines: ['NDEBUG', 'STAGES=4'], compileCommands: 'build', cudaArch: 1000 });
  });

  it('the defaults (empty lists, empty path, null architecture) mean nothing set', () => {
    const { settings, warnings } = parse({ phaseflip: { includePaths: [], defines: [], compileCommands: '', cudaArch: null } });
    expect(warnings).toEqual([]);
    expect(settings.compile).toEqual({ includeDirs: [], defines: [] });
  });

  it('reads dotted keys and architecture names', () => {
    expect(parse({ 'phaseflip.cudaArch': 'sm_90a', 'phaseflip.includePaths': ['/i'] }).settings.compile).toEqual({ cudaArch: 900, includeDirs: ['/i'] });
  });

  it('reports bad values naming the setting and keeps the previous ones', () => {
    const base = { ...defaultSettings(), compile: { includeDirs: ['/keep'], cudaArch: 800 } };
    const { settings, warnings } = parse({ includePaths: '/not/a/list', defines: ['1BAD'], compileCommands: 7, cudaArch: 'hopper' }, base);
    expect(settings.compile).toEqual({ includeDirs: ['/keep'], cudaArch: 800 });
    expect(warnings).toHaveLength(4);
    expect(warnings.join('\n')).toMatch(/phaseflip\.includePaths must be a list of directories/);
    expect(warnings.join('\n')).toMatch(/phaseflip\.defines must be a list of NAME or NAME=VALUE texts, got \["1BAD"\]/);
    expect(warnings.join('\n')).toMatch(/phaseflip\.compileCommands must be a path, got 7/);
    expect(warnings.join('\n')).toMatch(/phaseflip\.cudaArch must be an architecture such as 900/);
  });

  it('phaseflip.launch: launch shapes by kernel key; bad entries reported and left out, the others kept', () => {
    const { settings, warnings } = parse({ launch: { gemm: { block: 128, cluster: [2, 1, 1] }, 'src/a.cu:k': { block: 4096 } } });
    expect(settings.compile?.launch).toEqual([{ key: 'gemm', kernel: 'gemm', block: [128, 1, 1], cluster: [2, 1, 1], origin: 'settings' }]);
    expect(warnings).toEqual(['phaseflip.launch["src/a.cu:k"]: a block has at most 1024 threads, got 4096x1x1; ignoring it']);
    // Not a map at all: reported, the previous value kept; an empty map (the default) clears it.
    const bad = parse({ launch: [1] }, settings);
    expect(bad.settings.compile?.launch).toEqual(settings.compile?.launch);
    expect(bad.warnings[0]).toMatch(/phaseflip\.launch must be an object/);
    expect(parse({ 'phaseflip.launch': {} }, settings).settings.compile?.launch).toBeUndefined();
  });

  it('a later update replaces what it names and clears what it resets', () => {
    const first = parse({ includePaths: ['/a'], compileCommands: 'build', cudaArch: 900 }).settings;
    expect(parse({ compileCommands: '', cudaArch: null }, first).settings.compile).toEqual({ includeDirs: ['/a'] });
  });
});
