// Launch shapes stated outside the source (`phaseflip.launch`, `--launch`): a kernel launched where the
// translation unit cannot see is analysed at the stated block, so a finding that was only an
// information note (block size unknown) becomes a real finding, or goes away; a launch in the file
// still wins; the hover names the setting; keys name a kernel, a kernel of one file, or an instantiation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../../../core/api';
import { type LaunchSetting, loadEngine, parseLaunchFlag, parseLaunchSettings } from '../../../../core/index';
import { Project } from '../../../../core/project/project';

/** Every thread arrives on a barrier initialised for 64: correct exactly when the block has 64 threads. */
const KERNEL = `#include <cuda/barrier>
__global__ void k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 64);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1.f;
}
`;
const ARRIVE_LINE = 5;

/** The count a template parameter: correct when N equals the block size. */
const TEMPLATE = `#include <cuda/barrier>
template <int N>
__global__ void k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, N);
  __syncthreads();
  bar.arrive_and_wait();
}
`;

// A directory with no flag files: the document's path only matters for `file.cu:kernel` keys.
const dir = mkdtempSync(path.join(tmpdir(), 'pf-launch-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function settingsOf(value: Record<string, unknown>): LaunchSetting[] {
  const parsed = parseLaunchSettings(value);
  expect(parsed.problems).toEqual([]);
  return parsed.settings;
}

/** Lints `text` as `file` of a project whose settings give `launch` (or whose command line does). */
async function lint(text: string, launch: LaunchSetting[], file = 'kernel.cu', from: 'settings' | 'explicit' = 'settings'): Promise<Finding[]> {
  const engine = await loadEngine({ project: new Project({ [from]: { launch } }) });
  return engine.analyze(text, 'cuda', {}, path.join(dir, file)).findings;
}

async function hover(text: string, launch: LaunchSetting[], needle: string): Promise<string> {
  const engine = await loadEngine({ project: new Project({ settings: { launch } }) });
  const doc = engine.openDocument('cuda', text, path.join(dir, 'kernel.cu'));
  doc.analyze();
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  return doc.hover({ line, character: lines[line].indexOf(needle) })?.markdown ?? '';
}

const summary = (fs: Finding[]): string[] => fs.map((f) => `${f.range.start.line}: ${f.code} ${f.severity}`);

describe('phaseflip.launch: the block size of a kernel launched elsewhere', () => {
  it('without it the finding is an information note that names the setting', async () => {
    const [note, ...rest] = await lint(KERNEL, []);
    expect(rest).toEqual([]);
    expect(note).toMatchObject({ code: 'PF401', severity: 'information' });
    expect(note.message).toMatch(/`phaseflip\.launch`/);
    expect(note.message).toMatch(/`--launch KERNEL:block=N`/);
  });

  it('block=128: the note becomes the real error', async () => {
    expect(summary(await lint(KERNEL, settingsOf({ k: { block: 128 } })))).toEqual([`${ARRIVE_LINE}: PF401 error`]);
  });

  it('block=64: the kernel is clean', async () => {
    expect(await lint(KERNEL, settingsOf({ k: { block: [64, 1, 1] } }))).toEqual([]);
  });

  it('a launch in the translation unit wins over the setting', async () => {
    const launched = `${KERNEL}void run(float* out) { k<<<1, 64>>>(out); }\n`;
    expect(await lint(launched, settingsOf({ k: { block: 128 } }))).toEqual([]);
  });

  it('the setting wins over the kernel\'s __launch_bounds__ (the most it is compiled for, not its launch)', async () => {
    const bounded = KERNEL.replace('__global__ void k', '__global__ void __launch_bounds__(64) k');
    expect(await lint(bounded, [])).toEqual([]);
    expect(summary(await lint(bounded, settingsOf({ k: { block: 128 } })))).toEqual([`${ARRIVE_LINE}: PF401 error`]);
  });

  it('a `// phaseflip: block=N` comment on the kernel wins over the setting', async () => {
    const commented = KERNEL.replace('__global__ void k', '// phaseflip: block=64\n__global__ void k');
    expect(await lint(commented, settingsOf({ k: { block: 128 } }))).toEqual([]);
  });

  it('a `file.cu:kernel` key applies to that file only, and wins over a bare name', async () => {
    const settings = settingsOf({ 'other.cu:k': { block: 128 } });
    expect((await lint(KERNEL, settings, 'kernel.cu'))[0]?.severity).toBe('information');
    expect(summary(await lint(KERNEL, settings, 'other.cu'))).toEqual([`${ARRIVE_LINE}: PF401 error`]);
    expect(await lint(KERNEL, settingsOf({ k: { block: 128 }, 'kernel.cu:k': { block: 64 } }))).toEqual([]);
  });

  it('a template-id key binds the template arguments of a kernel the file does not instantiate', async () => {
    expect(await lint(TEMPLATE, settingsOf({ 'k<64>': { block: 64 } }))).toEqual([]);
    const wrong = await lint(TEMPLATE, settingsOf({ 'k<64>': { block: 128 } }));
    expect(summary(wrong)).toEqual(['6: PF401 error']);
  });

  it('a template-id key that does not match the launched instantiation is not used', async () => {
    const launched = `${TEMPLATE}void run(float* out) { k<128><<<1, 128>>>(out); }\n`;
    expect(await lint(launched, settingsOf({ 'k<64>': { block: 64 } }))).toEqual([]);
  });

  it('--launch on the command line works the same way, and wins over the setting at the same key', async () => {
    const flag = parseLaunchFlag('k:block=128');
    if (typeof flag === 'string') throw new Error(flag);
    expect(summary(await lint(KERNEL, [flag], 'kernel.cu', 'explicit'))).toEqual([`${ARRIVE_LINE}: PF401 error`]);
    const engine = await loadEngine({ project: new Project({ explicit: { launch: [flag] }, settings: { launch: settingsOf({ k: { block: 64 } }) } }) });
    expect(summary(engine.analyze(KERNEL, 'cuda', {}, path.join(dir, 'kernel.cu')).findings)).toEqual([`${ARRIVE_LINE}: PF401 error`]);
  });

  it('the hover names the setting as the source of the block, grid and cluster', async () => {
    const text = await hover(KERNEL, settingsOf({ k: { block: 64, grid: 132, cluster: [2, 1, 1] } }), 'k(float');
    expect(text).toMatch(/analysed at a block of 64 threads, from the setting `phaseflip\.launch` \(`"k"`\)/);
    expect(text).toMatch(/- grid: 132, from the setting `phaseflip\.launch`/);
    expect(text).toMatch(/- cluster: \(2, 1, 1\), from the setting `phaseflip\.launch`/);
    const unknown = await hover(KERNEL, [], 'k(float');
    expect(unknown).toMatch(/`phaseflip\.launch`/);
  });
});

describe('parsing launch settings', () => {
  it('reads keys, dimensions and shared memory, and reports what it cannot use', () => {
    const { settings, problems } = parseLaunchSettings({
      'src/gemm.cu:ns::gemm<128, Cfg<2, 3>>': { block: '32x4', grid: [132], smem: 4096 },
      bad: { block: 2048 },
      'not a name': { block: 64 },
      empty: {},
      typo: { blok: 64 },
    });
    expect(settings).toEqual([
      { key: 'src/gemm.cu:ns::gemm<128, Cfg<2, 3>>', kernel: 'gemm', file: 'src/gemm.cu', templateArgs: ['128', 'Cfg<2,3>'], block: [32, 4, 1], grid: [132, 1, 1], smem: 4096, origin: 'settings' },
    ]);
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/at most 1024 threads/);
    expect(problems.join('\n')).toMatch(/unknown field 'blok'/);
    expect(parseLaunchSettings([1]).problems[0]).toMatch(/must be an object/);
  });

  it('--launch: fields separated by commas, a dimension as 128, 32x4 or 128,1,1', () => {
    expect(parseLaunchFlag('C:\\src\\k.cu:k:block=128,1,1,cluster=2x1x1,smem=1024')).toEqual({
      key: 'C:\\src\\k.cu:k',
      kernel: 'k',
      file: 'C:\\src\\k.cu',
      block: [128, 1, 1],
      cluster: [2, 1, 1],
      smem: 1024,
      origin: 'command line',
    });
    expect(parseLaunchFlag('k')).toMatch(/expects KERNEL:block=N/);
    expect(parseLaunchFlag('k:block=0')).toMatch(/block must be a positive integer/);
  });
});
