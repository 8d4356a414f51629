// Debug adapter protocol test on a whole program (a CUDA file with main() and no `kernel` in the
// launch configuration): `phaseflip dap` as a real process. Host code is one thread, `host`, with
// main's frames and locals; stepping over a kernel launch stops as the kernel's warps appear; a
// breakpoint in the kernel stops a warp; host code resumes after the kernel and the program's
// output (host printf) reaches the client. Lines are found by the text on them.
import * as path from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, collectOutput, frames, launch, lineOf, scope, startAdapter, stopAfter } from './dap-client';

const file = path.join(ROOT, 'test', 'fixtures', 'sim', 'programs', 'tma_ring_program.cu');

let dc: DebugClient | undefined;

afterEach(async () => {
  await dc?.stop();
  dc = undefined;
});

describe('phaseflip dap on a whole program', () => {
  it('steps host code into a launch, stops in the kernel, and resumes host code after it', async () => {
    const c = (dc = await startAdapter());
    const output = collectOutput(c);
    const launchLine = lineOf(file, 'tma_ring<<<');
    const kernelLine = lineOf(file, 'acc += tiles[s]');
    let stop = await launch(c, { program: file }, (d) => d.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: launchLine }, { line: kernelLine }] }));

    // Host code: one thread, `host`, stopped in main at the launch.
    expect(stop?.body).toMatchObject({ reason: 'breakpoint', threadId: 1 });
    expect((await c.threadsRequest()).body.threads.map((t) => t.name)).toEqual(['host']);
    const host = await frames(c, 1);
    expect(host.map((f) => [f.name, f.line])).toEqual([['main', launchLine]]);
    const locals = await scope(c, host[0].id, 'Locals');
    expect(locals.map((v) => v.name)).toEqual(expect.arrayContaining(['h_in', 'h_out', 'h_ref', 'd_in', 'd_out']));
    // d_in points at the device allocation cudaMalloc made for it.
    expect(locals.find((v) => v.name === 'd_in')?.value).toBe('&d_in');

    // Stepping over the launch: the kernel's warps appear (2 blocks × 3 warps).
    stop = await stopAfter(c, () => c.nextRequest({ threadId: 1 }));
    expect(stop?.body.description).toMatch(/kernel tma_ring \(launched at line \d+\)/);
    const warps = (await c.threadsRequest()).body.threads.map((t) => t.name);
    expect(warps).toHaveLength(6);
    expect(warps[0]).toMatch(/^block 0 · warp 0/);

    // A breakpoint inside the kernel stops a consumer warp there.
    stop = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    expect(stop?.body.reason).toBe('breakpoint');
    const warp = stop!.body.threadId!;
    expect((await frames(c, warp))[0]).toMatchObject({ name: 'tma_ring', line: kernelLine });

    // Host code resumes after the kernel: a breakpoint there stops `host` again.
    const after = lineOf(file, 'int errors = 0;');
    await c.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: after }] });
    stop = await stopAfter(c, () => c.continueRequest({ threadId: warp }));
    expect(stop?.body).toMatchObject({ reason: 'breakpoint', threadId: 1 });
    expect((await c.threadsRequest()).body.threads.map((t) => t.name)).toEqual(['host']);
    expect((await frames(c, 1))[0]).toMatchObject({ name: 'main', line: after });

    const terminated = c.waitForEvent('terminated');
    await c.continueRequest({ threadId: 1 });
    await terminated;
    const text = output.filter((o) => o.category === 'stdout').map((o) => o.output).join('');
    expect(text).toContain('kernel: no error\n');
    expect(text).toContain('128/128 correct\nPASSED\n');
  }, 60_000);
});
