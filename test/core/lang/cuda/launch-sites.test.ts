// Launch sites in the same file set a CUDA kernel's block size: the linter replays the protocol at the
// launched size (not only at the candidate sizes), and the launch template takes the launched block.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cuda } from '../../../../core/lang/cuda';
import { getEngine, lintCuda } from '../../../helpers/engine';
import { expectations } from '../../examples.test';

const root = path.join(__dirname, '../../../fixtures/cuda/launch-sites');
const files = readdirSync(root).filter((f) => f.endsWith('.cu'));
const read = (f: string): string => readFileSync(path.join(root, f), 'utf8');

describe('launch-site fixtures', () => {
  it.each(files.filter((f) => f.startsWith('bad')))('%s', async (file) => {
    const text = read(file);
    const want = expectations(text).map(([l, c]) => `${l + 1}: ${c}`);
    expect(want.length).toBeGreaterThan(0);
    const got = (await lintCuda(text)).map((f) => `${f.range.start.line + 1}: ${f.code}`);
    expect(got.sort()).toEqual(want.sort());
  });
  it.each(files.filter((f) => f.startsWith('good')))('%s', async (file) => {
    const got = (await lintCuda(read(file))).map((f) => `${f.range.start.line + 1}: ${f.code} ${f.message}`);
    expect(got).toEqual([]);
  });
});

/** The correct two-warp kernel with its launch replaced by `launch` (a statement or nothing). */
function withLaunch(launch: string, file = 'good-two-warps-literal.cu'): string {
  return read(file).replace(/void run\(([^)]*)\)\n\{\n[^}]*\}/, `void run($1)\n{\n  ${launch}\n}`);
}

describe('block sizes the launch sites give', () => {
  it('without a launch site, the kernel is replayed at the candidate sizes and flagged there as an information note only (it is correct at 64)', async () => {
    const found = (await lintCuda(withLaunch(''))).map((f) => `${f.code} ${f.severity}`);
    expect(found).toEqual(['PF401 information']);
  });

  it('a block the front end cannot fold is ignored: the candidate sizes stay', async () => {
    const codes = (await lintCuda(withLaunch('int t = num_tiles > 4 ? 64 : 96; k<<<1, t>>>(in, out, num_tiles);'))).map((f) => f.code);
    expect(codes).toContain('PF401');
  });

  it('a two-dimensional block is ignored (the replay models threadIdx.x only)', async () => {
    const codes = (await lintCuda(withLaunch('k<<<1, dim3(32, 2)>>>(in, out, num_tiles);'))).map((f) => f.code);
    expect(codes).toContain('PF401');
  });

  it('a call other than a cast is not folded (the constant folder would read it as a cast)', async () => {
    const codes = (await lintCuda(withLaunch('k<<<1, threads_for(64)>>>(in, out, num_tiles);'))).map((f) => f.code);
    expect(codes).toContain('PF401');
    expect(await lintCuda(withLaunch('k<<<1, static_cast<int>(64)>>>(in, out, num_tiles);'))).toEqual([]);
  });

  it('a parameter or local that shadows a file constant takes its place', async () => {
    const text = withLaunch('k<<<1, kThreads>>>(in, out, num_tiles);').replace('void run(', 'constexpr int kThreads = 64;\nvoid run(int kThreads, ');
    expect((await lintCuda(text)).map((f) => f.code)).toContain('PF401');
    const local = withLaunch('const int kThreads = 64; k<<<1, kThreads>>>(in, out, num_tiles);').replace('void run(', 'constexpr int kThreads = 96;\nvoid run(');
    expect(await lintCuda(local)).toEqual([]);
  });

  it('a local dim3 built from constants and never changed gives its size', async () => {
    expect(await lintCuda(withLaunch('dim3 block(64, 1); k<<<1, block>>>(in, out, num_tiles);'))).toEqual([]);
  });

  it('a local dim3 that is changed after its declaration is ignored', async () => {
    const codes = (await lintCuda(withLaunch('dim3 block(64); block.x = num_tiles; k<<<1, block>>>(in, out, num_tiles);'))).map((f) => f.code);
    expect(codes).toContain('PF401');
  });

  it('several launch sites: each size is replayed, and a finding must hold at every one (as for the candidates)', async () => {
    const both = 'k<<<1, 64>>>(in, out, num_tiles);\n  k<<<1, 128>>>(in, out, num_tiles);';
    expect((await lintCuda(withLaunch(both, 'bad-two-warps-count-16.cu'))).map((f) => f.code)).toEqual(['PF401']);
    // Wrong at 128 only: not reported, the rule's requirement for every plausible size is unchanged.
    expect(await lintCuda(withLaunch(both))).toEqual([]);
  });

  it('a launch of another kernel of the same name in a namespace still names k (unqualified), once', async () => {
    expect(await lintCuda(withLaunch('::k<<<1, 64>>>(in, out, num_tiles);'))).toEqual([]);
  });
});

describe('launch templates', () => {
  it('take the block from the launch site', async () => {
    const [t] = await cuda.launchTemplates(read('good-two-warps-literal.cu'), 'k.cu');
    expect(t).toMatchObject({ kernel: 'k', block: [64, 1, 1] });
    expect(t!.note ?? '').not.toMatch(/launch/);
  });

  it('take the first of several launched blocks and say so', async () => {
    const [t] = await cuda.launchTemplates(withLaunch('k<<<1, 64>>>(in, out, num_tiles);\n  k<<<1, 96>>>(in, out, num_tiles);'), 'k.cu');
    expect(t!.block).toEqual([64, 1, 1]);
    expect(t!.note).toMatch(/block 64 from the launch on line \d+; other launches use 96/);
  });

  it('keep a launched two-dimensional block whole', async () => {
    const [t] = await cuda.launchTemplates(withLaunch('k<<<1, dim3(32, 2)>>>(in, out, num_tiles);'), 'k.cu');
    expect(t!.block).toEqual([32, 2, 1]);
  });
});

describe('incremental analysis', () => {
  it('an edit to a launch re-analyses the kernel it launches', async () => {
    const text = read('good-two-warps-literal.cu');
    const doc = (await getEngine()).openDocument('cuda', text);
    expect(doc.analyze().findings).toEqual([]);
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('<<<1, 64'));
    const character = lines[line].indexOf('64');
    doc.update([{ range: { start: { line, character }, end: { line, character: character + 2 } }, text: '96' }]);
    expect(doc.analyze().findings.map((f) => f.code)).toEqual(['PF401']);
  });
});
