// A finding located in a header, derived from a kernel and a launch in the including file, carries them
// as related information (the header's line alone does not say which kernel, launched how, has the
// problem); the same header line reached by two kernels at two block sizes is one finding that keeps
// the other wording. Fixtures: test/fixtures/projects/launch-shapes (src/*shapes-*.cu).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../../core/api';
import { findingKey, loadEngine, mergeDuplicateFinding } from '../../../../core/index';
import { Project } from '../../../../core/project/project';
import { ROOT } from '../../../server/lsp-client';

const PROJECT = path.join(ROOT, 'test', 'fixtures', 'projects', 'launch-shapes');
const HEADER = path.join(PROJECT, 'include', 'all_arrive', 'body.cuh');
const ARRIVE_LINE = readFileSync(HEADER, 'utf8').split('\n').findIndex((l) => l.includes('pf::mbar_arrive(&bar)'));

async function lintUnit(name: string): Promise<{ findings: Finding[]; text: string; file: string }> {
  const file = path.join(PROJECT, 'src', name);
  const text = readFileSync(file, 'utf8');
  const engine = await loadEngine({ project: new Project() });
  return { findings: engine.analyze(text, 'cuda', {}, file).findings, text, file };
}

/** `line:character message` of a related location in the document (file undefined), or `file:...` in another. */
const where = (f: Finding): string[] => f.related.map((r) => `${r.range.file ? `${path.basename(r.range.file)}:` : ''}${r.range.start.line}:${r.range.start.character} ${r.message.replace(/ as: (\d+) threads.*/, ' as: $1 threads…')}`);

describe('header findings: related information', () => {
  it('names the kernel it was reached from and the launch that gave the block size', async () => {
    const { findings, text } = await lintUnit('shapes-64.cu');
    expect(findings.map((f) => `${path.basename(f.range.file ?? '')}:${f.range.start.line}: ${f.code} ${f.severity}`)).toEqual([`body.cuh:${ARRIVE_LINE}: PF401 error`]);
    const lines = text.split('\n');
    const kernelLine = lines.findIndex((l) => l.startsWith('__global__ void all_arrive_64'));
    const launchLine = lines.findIndex((l) => l.includes('<<<1, 64>>>'));
    expect(where(findings[0])).toEqual([
      `${kernelLine}:${lines[kernelLine].indexOf('all_arrive_64')} reached from kernel 'all_arrive_64'`,
      `${launchLine}:0 'all_arrive_64' launched here with a block of 64 threads`,
    ]);
    // The launch's whole line, so an editor can show it.
    expect(findings[0].related[1].range.end.character).toBe(lines[launchLine].length);
  });

  it('two kernels of one translation unit at 64 and 96 threads: one finding, both kernels, both launches, the other wording', async () => {
    const { findings, text } = await lintUnit('shapes-both.cu');
    expect(findings).toHaveLength(1);
    const [f] = findings;
    expect(f.message).toMatch(/^64 threads execute this arrive/);
    const lines = text.split('\n');
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    expect(where(f)).toEqual([
      `${at('void all_arrive_a')}:16 reached from kernel 'all_arrive_a'`,
      `${at('all_arrive_a<<<')}:2 'all_arrive_a' launched here with a block of 64 threads`,
      `${at('void all_arrive_b')}:16 also reached from kernel 'all_arrive_b' as: 96 threads…`,
      `${at('all_arrive_b<<<')}:2 'all_arrive_b' launched here with a block of 96 threads`,
    ]);
  });

  it('the clean twin at 32 threads has no finding', async () => {
    expect((await lintUnit('good-shapes-32.cu')).findings).toEqual([]);
  });
});

describe('findingKey and mergeDuplicateFinding', () => {
  const finding = (message: string, kernel: string, line: number): Finding => ({
    code: 'PF401',
    ruleId: 'arrival-count-mismatch',
    family: 'count',
    severity: 'error',
    message,
    range: { file: '/p/h.cuh', start: { line: 3, character: 4 }, end: { line: 3, character: 20 } },
    related: [{ range: { file: `/p/${kernel}.cu`, start: { line, character: 0 }, end: { line, character: 5 } }, message: `reached from kernel '${kernel}'` }],
    docsUrl: '',
    fixes: [],
  });

  it('the same rule at the same range of the same file is one finding, whatever its wording', () => {
    expect(findingKey(finding('64 threads', 'a', 1))).toBe(findingKey(finding('96 threads', 'b', 2)));
    const elsewhere = finding('64 threads', 'a', 1);
    elsewhere.range = { ...elsewhere.range, end: { line: 3, character: 21 } };
    expect(findingKey(elsewhere)).not.toBe(findingKey(finding('64 threads', 'a', 1)));
    expect(findingKey({ ...finding('64 threads', 'a', 1), code: 'PF402' })).not.toBe(findingKey(finding('64 threads', 'a', 1)));
  });

  it('merging keeps every kernel once, and a different wording once', () => {
    const kept = finding('64 threads', 'a', 1);
    mergeDuplicateFinding(kept, finding('64 threads', 'a', 1));
    expect(kept.related.map((r) => r.message)).toEqual(["reached from kernel 'a'"]);
    mergeDuplicateFinding(kept, finding('64 threads', 'c', 7));
    mergeDuplicateFinding(kept, finding('96 threads', 'b', 2));
    mergeDuplicateFinding(kept, finding('96 threads', 'b', 2));
    expect(kept.message).toBe('64 threads');
    expect(kept.related.map((r) => `${r.range.file}:${r.range.start.line} ${r.message}`)).toEqual([
      "/p/a.cu:1 reached from kernel 'a'",
      "/p/c.cu:7 reached from kernel 'c'",
      "/p/b.cu:2 also reached from kernel 'b' as: 96 threads",
    ]);
  });
});
