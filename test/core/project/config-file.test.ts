// The project configuration file `.phaseflip.json` (core/project/config-file.ts): validation naming the file
// and key, the nearest file walking up, exclude globs, and how it layers under the command line and the
// editor's settings in the compile flags (compile-flags.ts) and the rule severities (the engine).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Project, clearCompileFlagsCache, flagsForFile, isExcludedByConfig, loadEngine, parseProjectConfig, projectConfigFor } from '../../../core/index';
import { readFileSync } from 'node:fs';
import { FakeFileSystem } from './fake-fs';

beforeEach(() => clearCompileFlagsCache());

describe('.phaseflip.json: validation', () => {
  it('reads every key, resolving paths against its directory', () => {
    const config = parseProjectConfig(
      JSON.stringify({
        $schema: './node_modules/phaseflip/schemas/phaseflip.schema.json',
        rules: { PF103: 'off', 'arrival-on-one-path': 'error' },
        includePaths: ['include', '/opt/cutlass/include'],
        defines: ['KSTAGES=4', 'NDEBUG'],
        launch: { gemm: { block: 128, cluster: [2, 1, 1] } },
        cudaArch: 'sm_100a',
        compileCommands: 'build',
        exclude: ['third_party/**'],
      }),
      '/p/.phaseflip.json',
    );
    expect(config).toEqual({
      file: '/p/.phaseflip.json',
      dir: '/p',
      rules: { PF103: 'off', 'arrival-on-one-path': 'error' },
      includeDirs: ['/p/include', '/opt/cutlass/include'],
      defines: ['KSTAGES=4', 'NDEBUG'],
      launch: [expect.objectContaining({ key: 'gemm', kernel: 'gemm', block: [128, 1, 1], cluster: [2, 1, 1], origin: 'config file' })],
      cudaArch: 1000,
      compileCommands: '/p/build',
      exclude: ['third_party/**'],
      problems: [],
    });
  });

  it('names the file and the key of every problem, and keeps the rest', () => {
    const config = parseProjectConfig(
      JSON.stringify({ rulez: {}, rules: { PF999: 'off', PF103: 'loud', PF105: 'hint' }, includePaths: 'include', defines: ['1BAD'], cudaArch: 'sm_xx', launch: { gemm: { block: 4096 } }, exclude: [3] }),
      '/p/.phaseflip.json',
    );
    expect(config.problems).toEqual([
      '/p/.phaseflip.json: rulez: unknown key (expected rules, includePaths, defines, launch, cudaArch, compileCommands, exclude)',
      "/p/.phaseflip.json: rules.PF999: no rule has this id or code ('phaseflip rules' lists them)",
      '/p/.phaseflip.json: rules.PF103: must be one of error, warning, information, hint, off, got "loud"',
      '/p/.phaseflip.json: includePaths: must be a list of directories (relative to /p), got "include"',
      '/p/.phaseflip.json: defines: must be a list of "NAME" or "NAME=VALUE" texts, got ["1BAD"]',
      '/p/.phaseflip.json: cudaArch: must be an architecture such as 900, 1000, "sm_90a" or "sm_100a", got "sm_xx"',
      '/p/.phaseflip.json: launch["gemm"]: a block has at most 1024 threads, got 4096x1x1',
      '/p/.phaseflip.json: exclude: must be a list of glob patterns such as ["third_party/**", "*_generated.cu"], got [3]',
    ]);
    expect(config.rules).toEqual({ PF105: 'hint' });
    expect(config.includeDirs).toBeUndefined();
  });

  it('reports JSON syntax errors with their line, and a file that is no object', () => {
    const broken = parseProjectConfig('{\n  "rules": {\n    "PF103": "off",\n  }\n}\n', '/p/.phaseflip.json');
    expect(broken.problems).toHaveLength(1);
    expect(broken.problems[0]).toMatch(/^\/p\/\.phaseflip\.json: not valid JSON \(.* line 4, column 3\); the file is ignored$/);
    expect(parseProjectConfig('[]', '/p/.phaseflip.json').problems).toEqual(['/p/.phaseflip.json: must hold a JSON object such as { "rules": { "PF103": "off" } }, got []; the file is ignored']);
  });

  it('the schema shipped for editors knows exactly the keys the reader knows', () => {
    const schema = JSON.parse(readFileSync(path.join(__dirname, '../../../schemas/phaseflip.schema.json'), 'utf8'));
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).sort()).toEqual(['$schema', 'compileCommands', 'cudaArch', 'defines', 'exclude', 'includePaths', 'launch', 'rules'].sort());
    // The rule severities and launch shapes have the shapes of the settings phaseflip.rules and phaseflip.launch.
    const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../package.json'), 'utf8'));
    const settings = manifest.contributes.configuration.properties;
    expect(schema.properties.rules.additionalProperties.enum).toEqual(settings['phaseflip.rules'].additionalProperties.enum);
    expect(schema.properties.launch.additionalProperties.properties).toEqual(settings['phaseflip.launch'].additionalProperties.properties);
  });
});

describe('.phaseflip.json: finding it and excluding files', () => {
  it('the nearest file walking up governs a file; a change to it is read again', () => {
    const fs = new FakeFileSystem({
      '/p/.phaseflip.json': '{ "defines": ["OUTER"] }',
      '/p/sub/.phaseflip.json': '{ "defines": ["INNER"] }',
      '/p/sub/deep/k.cu': '',
      '/p/k.cu': '',
    });
    expect(projectConfigFor('/p/sub/deep/k.cu', fs)?.file).toBe('/p/sub/.phaseflip.json');
    expect(projectConfigFor('/p/k.cu', fs)?.defines).toEqual(['OUTER']);
    expect(projectConfigFor('/q/k.cu', fs)).toBeUndefined();
    fs.write('/p/sub/.phaseflip.json', '{ "defines": ["CHANGED"] }');
    expect(projectConfigFor('/p/sub/deep/k.cu', fs)?.defines).toEqual(['CHANGED']);
  });

  it('exclude globs: names at any depth, anchored paths, ** and {a,b}, directories excluding what is below', () => {
    const config = { dir: '/p', exclude: ['third_party', 'build/', 'src/gen/**', '**/*_{ref,old}.cu', 'legacy/*.cuh'] };
    const excluded = (f: string) => isExcludedByConfig(f, config);
    expect(excluded('/p/third_party/cutlass/gemm.cuh')).toBe(true);
    expect(excluded('/p/lib/third_party/x.cu')).toBe(true);
    expect(excluded('/p/build/k.cu')).toBe(true);
    expect(excluded('/p/build')).toBe(false);
    expect(excluded('/p/src/gen/a/b.cu')).toBe(true);
    expect(excluded('/p/gen/b.cu')).toBe(false);
    expect(excluded('/p/src/k_ref.cu')).toBe(true);
    expect(excluded('/p/k_old.cu')).toBe(true);
    expect(excluded('/p/k_new.cu')).toBe(false);
    expect(excluded('/p/legacy/a.cuh')).toBe(true);
    expect(excluded('/p/legacy/deeper/a.cuh')).toBe(false);
    expect(excluded('/elsewhere/third_party/a.cu')).toBe(false);
  });
});

describe('.phaseflip.json: layered under the command line and the settings', () => {
  it('its include paths come after the settings and command line ones, its defines and architecture lose to theirs', () => {
    const fs = new FakeFileSystem({
      '/p/.phaseflip.json': JSON.stringify({ includePaths: ['inc'], defines: ['A=config', 'B=config'], cudaArch: 1000, launch: { k: { block: 64 } } }),
      '/p/k.cu': '',
    });
    const alone = flagsForFile('/p/k.cu', { fs });
    expect(alone.includeDirs).toEqual(['/p/inc']);
    expect(alone.defines).toEqual([
      ['A', 'config'],
      ['B', 'config'],
    ]);
    expect(alone.cudaArch).toBe(1000);
    expect(alone.launch?.map((l) => [l.key, l.origin])).toEqual([['k', 'config file']]);
    expect(alone.source).toBe('.phaseflip.json (/p/.phaseflip.json)');
    expect(alone.configFiles).toEqual(['/p/.phaseflip.json']);

    const layered = flagsForFile('/p/k.cu', { fs, settings: { includeDirs: ['/s'], defines: ['A=settings'], cudaArch: 900 }, explicit: { includeDirs: ['/c'], launch: [{ key: 'k', kernel: 'k', block: [32, 1, 1], origin: 'command line' }] } });
    expect(layered.includeDirs).toEqual(['/c', '/s', '/p/inc']);
    expect(Object.fromEntries(layered.defines)).toEqual({ A: 'settings', B: 'config' });
    expect(layered.cudaArch).toBe(900);
    expect(layered.launch?.map((l) => l.origin)).toEqual(['command line', 'config file']);
  });

  it('its compileCommands is used unless the settings or command line name one; its problems reach the flags', () => {
    const fs = new FakeFileSystem({
      '/p/.phaseflip.json': JSON.stringify({ compileCommands: 'out', bogus: 1 }),
      '/p/out/compile_flags.txt': '-DFROM_OUT\n',
      '/p/k.cu': '',
    });
    const flags = flagsForFile('/p/k.cu', { fs });
    expect(flags.defines).toEqual([['FROM_OUT', '1']]);
    expect(flags.problems).toEqual(['/p/.phaseflip.json: bogus: unknown key (expected rules, includePaths, defines, launch, cudaArch, compileCommands, exclude)']);
  });

  describe('rule severities through the engine', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pf-config-rules-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const bug = readFileSync(path.join(__dirname, '../../../examples/bugs/continue_skips_release.cu'), 'utf8');
    const file = path.join(dir, 'k.cu');
    writeFileSync(file, bug);

    it('turn a rule off or change its severity; the caller\'s options (settings, --rule) win, by id or code', async () => {
      const engine = await loadEngine({ project: new Project() });
      expect(engine.analyze(bug, 'cuda', {}, file).findings.map((f) => `${f.code}:${f.severity}`)).toEqual(['PF403:warning']);
      writeFileSync(path.join(dir, '.phaseflip.json'), JSON.stringify({ rules: { 'arrival-on-one-path': 'error' } }));
      clearCompileFlagsCache();
      expect(engine.analyze(bug, 'cuda', {}, file).findings.map((f) => `${f.code}:${f.severity}`)).toEqual(['PF403:error']);
      expect(engine.analyze(bug, 'cuda', { rules: { PF403: 'hint' } }, file).findings.map((f) => `${f.code}:${f.severity}`)).toEqual(['PF403:hint']);
      writeFileSync(path.join(dir, '.phaseflip.json'), JSON.stringify({ rules: { PF403: 'off' } }));
      clearCompileFlagsCache();
      expect(engine.analyze(bug, 'cuda', {}, file).findings).toEqual([]);
      // Without a path, no project file applies.
      expect(engine.analyze(bug, 'cuda', {}).findings.map((f) => f.code)).toEqual(['PF403']);
    });
  });
});

describe('.phaseflip.json: findings located in an excluded header', () => {
  const HEADER = `#pragma once
#include <cstdint>
__device__ __forceinline__ void pf_wait(uint64_t* bar, unsigned parity) {
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(parity));
}
__device__ __forceinline__ void pf_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
}
__device__ __forceinline__ void pf_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count));
}
__device__ void pf_consume(uint64_t* full, int iters) {
  unsigned phase = 0;
  for (int i = 0; i < iters; ++i) {
    if (threadIdx.x == 0) pf_arrive(full);
    pf_wait(full, phase);
  }
}
`;
  const KERNEL = `#include "vendor/barrier.cuh"
__global__ void consumer(float* out) {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) pf_init(&full, 1);
  __syncthreads();
  pf_consume(&full, 8);
}
`;
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-config-exclude-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are dropped, like clang-tidy\'s header filter; without the pattern they are reported', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(path.join(dir, 'vendor'));
    writeFileSync(path.join(dir, 'vendor', 'barrier.cuh'), HEADER);
    writeFileSync(path.join(dir, 'k.cu'), KERNEL);
    const engine = await loadEngine({ project: new Project() });
    const file = path.join(dir, 'k.cu');
    expect(engine.analyze(KERNEL, 'cuda', {}, file).findings.map((f) => [f.code, f.range.file])).toEqual([['PF103', path.join(dir, 'vendor', 'barrier.cuh')]]);
    writeFileSync(path.join(dir, '.phaseflip.json'), JSON.stringify({ exclude: ['vendor/'] }));
    clearCompileFlagsCache();
    expect(engine.analyze(KERNEL, 'cuda', {}, file).findings).toEqual([]);
  });
});
