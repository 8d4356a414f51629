// `phaseflip dap` fed malformed input in raw frames (the fuzzing reproducers of issue 14): frames that are
// not JSON or not DAP messages, bad Content-Length headers, oversized frames, unknown commands and
// requests before `initialize` are answered with an error response or an output event, and the adapter
// keeps serving; `initialize` without `pathFormat` succeeds (the spec's default is `path`).
import { afterEach, describe, expect, it } from 'vitest';
import { adapterProcess } from './raw-dap';

type Adapter = ReturnType<typeof adapterProcess>;
const started: Adapter[] = [];

function start(): Adapter {
  const dap = adapterProcess();
  started.push(dap);
  return dap;
}

afterEach(() => {
  for (const dap of started.splice(0)) if (dap.exitCode() === null) dap.kill();
});

/** The next output event on stderr whose text matches. */
function complaint(dap: Adapter, pattern: RegExp) {
  return dap.wait((m) => m.type === 'event' && m.event === 'output' && m.body?.category === 'stderr' && pattern.test(String(m.body.output)));
}

/** The adapter still answers: `threads` gets a successful response. */
async function stillServing(dap: Adapter): Promise<void> {
  const seq = dap.send('threads');
  const r = await dap.responseTo(seq);
  expect(r.success).toBe(true);
  expect(dap.exitCode()).toBeNull();
}

describe('phaseflip dap: malformed input', () => {
  it('initialize without pathFormat succeeds (default path)', async () => {
    const dap = start();
    const seq = dap.send('initialize', { adapterID: 'phaseflip' });
    const r = await dap.responseTo(seq);
    expect(r.success).toBe(true);
    expect(r.body).toMatchObject({ supportsConfigurationDoneRequest: true });
    await stillServing(dap);
  });

  it('frames that are not DAP messages get output events and the adapter serves on', async () => {
    const dap = start();
    dap.send('initialize', { adapterID: 'phaseflip', pathFormat: 'path' });
    await dap.response('initialize');
    dap.frame('{"a":');
    await complaint(dap, /not JSON/);
    dap.frame('null');
    await complaint(dap, /must be a JSON object, got null/);
    dap.frame('[1,2]');
    await complaint(dap, /must be a JSON object, got an array/);
    dap.frame('{"seq":7,"type":"request"}');
    const noCommand = await dap.responseTo(7);
    expect(noCommand.success).toBe(false);
    expect(noCommand.message).toMatch(/needs a command/);
    dap.frame('{"type":"request","command":"threads"}');
    await complaint(dap, /seq must be an integer/);
    dap.frame('{"seq":8,"type":"request","command":"threads","arguments":5}');
    expect((await dap.responseTo(8)).message).toMatch(/arguments of 'threads' must be an object/);
    dap.frame('{"seq":9,"type":"nonsense"}');
    await complaint(dap, /type must be/);
    await stillServing(dap);
  });

  it('bad Content-Length headers and oversized frames are skipped, and the next frame is read', async () => {
    const dap = start();
    dap.send('initialize', { adapterID: 'phaseflip', pathFormat: 'path' });
    await dap.response('initialize');
    dap.raw('Content-Length: abc\r\n\r\n');
    await complaint(dap, /Content-Length must be a number/);
    dap.raw('Content-Type: json\r\n\r\n');
    await complaint(dap, /without Content-Length/);
    dap.raw('Content-Length: -5\r\n\r\n');
    await complaint(dap, /Content-Length must be a number/);
    // A frame announced at 17 MiB: its bytes are discarded as they arrive, never buffered.
    const size = 17 * 1024 * 1024;
    dap.raw(`Content-Length: ${size}\r\n\r\n`);
    await complaint(dap, /over the limit/);
    dap.raw(Buffer.alloc(size, 0x20));
    // A header that never ends is dropped once it passes the header limit.
    dap.raw('X'.repeat(20_000));
    await complaint(dap, /no end of header/);
    dap.raw('\r\n\r\n');
    await stillServing(dap);
  });

  it('unknown commands get an error response naming them; requests before initialize are refused', async () => {
    const dap = start();
    const early = dap.send('threads');
    const refused = await dap.responseTo(early);
    expect(refused.success).toBe(false);
    expect(refused.message).toMatch(/before 'initialize'/);
    dap.send('initialize', { adapterID: 'phaseflip' });
    await dap.response('initialize');
    const unknown = dap.send('fooBar', {});
    const r = await dap.responseTo(unknown);
    expect(r.success).toBe(false);
    expect(r.message).toBe("unknown request 'fooBar'");
    // Arguments the handler cannot use: an error response, not an exit.
    const bad = dap.send('setBreakpoints', { source: 5, breakpoints: 'x' });
    expect((await dap.responseTo(bad)).success).toBe(false);
    await stillServing(dap);
    dap.send('disconnect', {});
    expect(await dap.exit).toBe(0);
  });
});
