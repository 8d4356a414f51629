// `phaseflip dap` standalone, the way a non-VS Code editor runs it: spawn the command, speak raw DAP
// (Content-Length framed JSON) on its stdin/stdout, and check that it answers, runs a kernel to
// the end, writes the Chrome trace it was asked for, and exits cleanly on disconnect.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from './dap-client';
import { adapterProcess } from './raw-dap';

describe('phaseflip dap (stdio)', () => {
  it('initializes, runs the seed to completion, writes the trace and exits 0 on disconnect', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-dap-'));
    const dap = adapterProcess();
    dap.send('initialize', { adapterID: 'phaseflip', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    const init = await dap.response('initialize');
    expect(init.success).toBe(true);
    expect(init.body).toMatchObject({ supportsConfigurationDoneRequest: true, supportsStepBack: true, supportsFunctionBreakpoints: true, supportsDataBreakpoints: true });
    expect((init.body!.exceptionBreakpointFilters as { filter: string; default: boolean }[]).map((f) => `${f.filter}:${f.default}`)).toEqual(['phase-flip:false', 'deadlock:true', 'misuse:true', 'race:true']);

    dap.send('launch', {
      program: path.join(EXAMPLES, 'seeds', 'producer_consumer_cuda_barrier.cu'),
      grid: '1',
      block: [128],
      dynamicSmem: 512,
      args: ['N=1024', 'buffer_len=64', 'in=f32[1024]:iota', 'out=f32[1024]'],
      trace: 'seed.trace.json',
      cwd: dir,
    });
    await dap.event('initialized');
    dap.send('configurationDone');
    expect((await dap.response('launch')).success).toBe(true);
    const exited = await dap.event('exited');
    expect(exited.body).toEqual({ exitCode: 0 });
    await dap.event('terminated');
    const trace = JSON.parse(readFileSync(path.join(dir, 'seed.trace.json'), 'utf8')) as { traceEvents: { name?: string }[] };
    // Each of the four barriers flips once per iteration (16): the trace holds at least those events.
    expect(trace.traceEvents.length).toBeGreaterThan(16);
    const lines = dap.messages.filter((m) => m.event === 'output').map((m) => String(m.body!.output));
    expect(lines.some((line) => /^Phaseflip: completed: /.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith(`Phaseflip: wrote the trace to ${path.join(dir, 'seed.trace.json')}`))).toBe(true);

    dap.send('disconnect', {});
    expect((await dap.response('disconnect')).success).toBe(true);
    expect(await dap.exit).toBe(0);
    expect(dap.stderr()).toBe('');
    expect(existsSync(path.join(dir, 'seed.trace.json'))).toBe(true);
  });

  it('a launch without a program fails with a message for the user, and the adapter answers on', async () => {
    const dap = adapterProcess();
    dap.send('initialize', { adapterID: 'phaseflip', pathFormat: 'path' });
    await dap.response('initialize');
    dap.send('launch', { grid: 1, block: 32 });
    const r = await dap.response('launch');
    expect(r.success).toBe(false);
    expect(r.message).toMatch(/^program: missing: give the \.cu or \.co file to debug/);
    expect((r.body!.error as { showUser: boolean }).showUser).toBe(true);
    dap.send('threads');
    expect((await dap.response('threads')).body).toEqual({ threads: [] });
    dap.send('disconnect', {});
    expect(await dap.exit).toBe(0);
  });
});
