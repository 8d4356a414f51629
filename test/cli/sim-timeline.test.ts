// `phaseflip sim --timeline FILE`: the barrier timeline page of a real run (the examples' ring), next
// to the Perfetto `--trace`; the page embeds the same model core builds, with the source lines.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSim } from '../../cli/sim';
import type { TimelineModel } from '../../core/sim/timeline';

const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-sim-timeline-'));
const at = (name: string) => path.join(dir, name);
const examples = path.join(__dirname, '..', '..', 'examples');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sim(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runSim(argv, { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) });
  return { code, stdout, stderr };
}

const ring = (rel: string) => [path.join(examples, rel), '--kernel', 'stream_sum', '--grid', '1', '--block', '160', '--arg', 'in=f32[6144]:iota', '--arg', 'out=f32[128]', '--arg', 'num_tiles=6'];

function embedded(file: string): TimelineModel {
  const html = readFileSync(file, 'utf8');
  const m = /<script type="application\/json" id="timeline-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no embedded model');
  return JSON.parse(m[1]) as TimelineModel;
}

describe('phaseflip sim --timeline', () => {
  it('writes the timeline page of a deadlocked run next to the Perfetto trace', async () => {
    const r = await sim([...ring('bugs/producer_missing_bootstrap.cu'), '--timeline', at('ring.html'), '--trace', at('ring.json')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^status: deadlock/);
    expect(r.stderr).toMatch(/wrote .*ring\.json: \d+ simulator events/);
    expect(r.stderr).toMatch(/wrote .*ring\.html: the barrier timeline of \d+ simulator events \(open it in a browser\)/);
    const model = embedded(at('ring.html'));
    expect(model.title).toBe('producer_missing_bootstrap.cu · stream_sum');
    expect(model.markers.map((m) => m.kind)).toEqual(['deadlock']);
    expect(model.barriers.map((b) => b.label)).toContain('slot_free[0]');
    // The producer's wait that never woke, with the source line the tooltip quotes.
    const producer = model.warps.find((w) => w.warp === 0)!;
    const wait = producer.waits.at(-1)!;
    expect(wait).toMatchObject({ barrier: '0:slot_free[0]', unfinished: true });
    // The wait is inside the helper bar_wait (its inline PTX).
    expect(model.lines![`:${wait.at!.line}`]).toMatch(/asm volatile/);
    // The Perfetto trace is still written and still parses.
    expect(JSON.parse(readFileSync(at('ring.json'), 'utf8')).traceEvents.length).toBeGreaterThan(0);
  }, 60_000);

  it('--json keeps stdout pure; a missing file name is a usage error; an unwritable path exits 2', async () => {
    const ok = await sim([...ring('good/producer_missing_bootstrap.cu'), '--json', '--timeline', at('good.html')]);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).status).toBe('completed');
    expect(ok.stderr).toBe('');
    expect(embedded(at('good.html')).barriers.length).toBe(6);
    const missing = await sim([...ring('good/producer_missing_bootstrap.cu'), '--timeline']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--timeline/);
    const bad = await sim([...ring('good/producer_missing_bootstrap.cu'), '--timeline', at('no/such/dir/t.html')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/cannot write .*t\.html: no such file or directory/);
  }, 60_000);
});

describe('phaseflip sim: reports inside helpers', () => {
  it('name the call-site chain, the kernel line first', async () => {
    const file = path.join(examples, 'bugs', 'producer_missing_bootstrap.cu');
    const lines = readFileSync(file, 'utf8').split('\n');
    const one = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
    const r = await sim(ring('bugs/producer_missing_bootstrap.cu'));
    expect(r.code).toBe(1);
    const wait = one('asm volatile("{\\n .reg .pred ok;');
    expect(r.stdout).toContain(`waits on slot_free[0] (parity 0) at line ${one('bar_wait(&slot_free[stage], phase);')} ← bar_wait line ${wait}`);
    expect(r.stdout).toContain(`wait on slot_ready[0] (parity 0) at line ${one('bar_wait(&slot_ready[stage], phase);')} ← bar_wait line ${wait}`);
  }, 60_000);
});
