// Fuzz surface "dap": the debug adapter (`node dist/cli.js dap`) fed frame garbage (malformed JSON,
// requests without fields or with fields of the wrong type, bad headers) and hostile launches. After
// every frame a `threads` request must be answered: the adapter answers bad input with an error
// response or event and keeps serving. A failure is saved as the raw bytes that led to it.
import * as path from 'node:path';
import { FramedProcess, type Message } from './framed-process';
import { ddmin } from './minimise';
import { type Outcome, internalErrorIn, signatureOf } from './outcome';
import type { Random } from './random';
import { type SurfaceContext, type SurfaceStats, budgetLeft, count, emptyStats } from './surface';

/** The probe sent after each case: any response to it shows the adapter still serves. */
const PROBE_SEQ_BASE = 1_000_000;

export function frame(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

const request = (command: unknown, args?: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ seq: 7, type: 'request', command, ...(args === undefined ? {} : { arguments: args }), ...extra });
const INITIALIZE = request('initialize', { adapterID: 'phaseflip', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });

/** Bodies that are not valid requests: each must be refused, never crash the adapter. */
const BAD_BODIES = [
  '{"a":', 'null', '[]', '42', '"x"', 'true', '{}', '', ' ', '\ufeff{}', '{"type":"request"}', '{"type":"request","seq":1}', '{"seq":1,"command":"threads"}',
  request(42), request(null), request('nope'), request(''), request('__proto__'), request('constructor'), request('toString'),
  request('initialize', {}), request('initialize', null), request('initialize', 'x'), request('initialize', { adapterID: 'x' }),
  request('launch'), request('launch', null), request('launch', {}), request('launch', { program: 42 }), request('launch', { program: '' }),
  request('setBreakpoints', {}), request('setBreakpoints', { source: {}, breakpoints: [{ line: -1 }] }), request('setBreakpoints', { source: { path: 42 }, breakpoints: 'x' }),
  request('setFunctionBreakpoints', { breakpoints: [{}] }), request('setExceptionBreakpoints', { filters: 'x' }), request('evaluate', { expression: 42 }), request('evaluate', {}),
  request('variables', { variablesReference: -1 }), request('variables', {}), request('stackTrace', { threadId: 'x' }), request('scopes', { frameId: 1e300 }), request('continue', {}), request('next', { threadId: null }),
  request('stepBack', {}), request('reverseContinue', {}), request('pause', {}), request('disconnect', null), request('source', { sourceReference: -1 }), request('readMemory', { memoryReference: 'x', count: -1 }),
  request('threads', undefined, { seq: 'x' }), request('threads', undefined, { seq: -1 }), request('threads', undefined, { arguments: [] }),
  JSON.stringify({ type: 'response', request_seq: 999, success: true }), JSON.stringify({ type: 'event', event: 'x' }), JSON.stringify({ __proto__: { command: 'threads' }, type: 'request', seq: 3 }),
];
/** Header blocks without a body that a reader should skip (over-long lengths are left out: waiting for the rest of the body is right). */
const BAD_HEADERS = ['Content-Length: abc\r\n\r\n', 'Content-Length: -5\r\n\r\n', 'X-Other: 1\r\n\r\n', 'content-length: 3\r\n\r\n', 'Content-Length:\r\n\r\n', '\r\n\r\n', 'Content-Type: x\r\nContent-Length: 0\r\n\r\n'];
const HOSTILE_LAUNCHES: Record<string, unknown>[] = [
  { grid: 0 }, { block: 0 }, { block: 4096 }, { grid: 'x' }, { grid: [1, 2, 3, 4] }, { block: [] }, { args: 'x' }, { args: [42] }, { args: ['x=f32[-1]'] }, { args: ['x=f32[1e12]'] }, { args: ['x=f33[1]'] },
  { kernel: 42 }, { kernel: 'nope' }, { maxSteps: 0 }, { seed: -1 }, { schedule: 'x' }, { dynamicSmem: -1 }, { program: '/nonexistent.cu' }, { program: 'README.md' }, { program: '/dev/null' }, { cwd: 42 }, { trace: 42 },
];

/** One garbage case: bytes to send (one or more frames, or a header block). */
function garbageCase(rng: Random, root: string): Buffer {
  const choice = rng.int(6);
  if (choice === 0) return Buffer.from(rng.pick(BAD_HEADERS), 'ascii');
  if (choice === 1) {
    const launch = { type: 'phaseflip', request: 'launch', program: path.join(root, 'examples', 'seeds', 'producer_consumer_cuda_ptx.cu'), grid: 1, block: 128, ...rng.pick(HOSTILE_LAUNCHES) };
    return frame(request('launch', launch));
  }
  if (choice === 2) {
    // A valid request with a few characters spoiled.
    const chars = [...rng.pick(BAD_BODIES.filter((b) => b.startsWith('{"seq"')))];
    for (let i = rng.range(1, 3); i > 0; i--) chars[rng.int(chars.length)] = rng.pick(['"', '{', '}', ':', ',', '\\', '\u0000', 'x', ']']);
    return frame(chars.join(''));
  }
  if (choice === 3 && rng.chance(0.3)) {
    const depth = rng.pick([1000, 10_000, 100_000]);
    return frame(rng.chance(0.5) ? `${'['.repeat(depth)}${']'.repeat(depth)}` : request('evaluate', { expression: `${'('.repeat(depth)}1${')'.repeat(depth)}` }));
  }
  if (choice === 4 && rng.chance(0.3)) return frame(Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x7b]));
  return frame(rng.pick(BAD_BODIES));
}

/** What a DAP message says to a user: a response's error text (the exception itself, when it carries one) or an event's output. */
function describeDapMessage(m: Message): string {
  const body = (m.body ?? {}) as { error?: { format?: string; variables?: Record<string, string> }; output?: string };
  const error = body.error ? (body.error.variables?._exception ?? body.error.format ?? '') : '';
  return [m.message, error, body.output].filter((t) => typeof t === 'string' && t.length > 0).join(': ');
}

/** Sends `cases` to a fresh adapter after `initialize`, a probe after each; the first failure, or ok. */
export async function runDapCases(root: string, cases: readonly Buffer[], limitMs: number): Promise<Outcome & { rssMiB: number; at: number }> {
  const adapter = new FramedProcess(process.execPath, [path.join(root, 'dist', 'cli.js'), 'dap'], root);
  try {
    adapter.writeRaw(frame(INITIALIZE));
    let maxMs = 0;
    for (let i = 0; i < cases.length; i++) {
      const from = adapter.received.length;
      const started = performance.now();
      adapter.writeRaw(cases[i]);
      const seq = PROBE_SEQ_BASE + i;
      adapter.writeRaw(frame(request('threads', undefined, { seq })));
      const reply = await adapter.waitFor((m) => m.type === 'response' && m.request_seq === seq, limitMs, from);
      const ms = performance.now() - started;
      maxMs = Math.max(maxMs, ms);
      const rssMiB = adapter.peakRssMiB();
      if (!adapter.alive) return { verdict: 'crash', ms, detail: `adapter exited (${JSON.stringify(adapter.exit)}): ${adapter.stderr.slice(-600)}`, rssMiB, at: i };
      if (!reply) return { verdict: 'hang', ms, detail: `no answer to threads within ${limitMs} ms`, rssMiB, at: i };
      const said = adapter.received.slice(from).map(describeDapMessage);
      const internal = internalErrorIn([...said, adapter.stderr]);
      if (internal) return { verdict: 'internal-error', ms, detail: internal.slice(0, 1000), rssMiB, at: i };
    }
    return { verdict: 'ok', ms: maxMs, detail: '', rssMiB: adapter.peakRssMiB(), at: cases.length };
  } finally {
    await adapter.close();
  }
}

/** Splits saved bytes back into the cases they were made of (one per frame or header block). */
export function dapBytes(cases: readonly Buffer[]): Buffer {
  return Buffer.concat(cases as Buffer[]);
}

export async function fuzzDap(ctx: SurfaceContext): Promise<SurfaceStats> {
  const stats = emptyStats('dap');
  const started = Date.now();
  // Batches of cases share one adapter, which is what "keeps serving" means; a failure ends the batch.
  while (budgetLeft(stats, ctx.budget, started)) {
    const batch = Array.from({ length: Math.min(25, ctx.budget.count - stats.tried) }, () => garbageCase(ctx.rng, ctx.root));
    const result = await runDapCases(ctx.root, batch, ctx.budget.limitMs);
    const tried = result.verdict === 'ok' ? batch.length : result.at + 1;
    for (let i = 0; i < tried - 1; i++) count(stats, { verdict: 'ok', ms: 0, detail: '' }, result.rssMiB);
    count(stats, result, result.rssMiB);
    if (result.verdict === 'ok') continue;
    const signature = signatureOf('dap', 'dap', result);
    ctx.log(`dap: ${result.verdict} after case ${result.at + 1}: ${result.detail.split('\n')[0].slice(0, 200)}`);
    if (ctx.store.has(signature)) continue;
    const failing = batch.slice(0, result.at + 1);
    const sameFailure = async (candidate: Buffer[]) => {
      const again = await runDapCases(ctx.root, candidate, ctx.budget.limitMs);
      return again.verdict === result.verdict && signatureOf('dap', 'dap', again) === signature;
    };
    // The last case alone usually fails: try that first, then delta debugging over the cases.
    const last = [failing[failing.length - 1]];
    const minimal = (await sameFailure(last)) ? last : await ddmin(failing, sameFailure, { tests: 40, deadline: Date.now() + ctx.minimiseSeconds * 1000 });
    // A failure that the saved bytes alone do not show again (it hung on timing) would be a test that cannot fail.
    if (!(await sameFailure(minimal))) {
      ctx.log('dap: not saved: the minimised frames alone did not fail again');
      continue;
    }
    const replayed = true;
    const file = ctx.store.save(
      { surface: 'dap', verdict: result.verdict, signature, detail: result.detail, ms: Math.round(result.ms), limitMs: ctx.budget.limitMs, seed: ctx.seed, replayed },
      dapBytes(minimal),
      'dap',
    );
    stats.saved.push(file);
    ctx.log(`dap: saved ${file} (${minimal.length} of ${failing.length} frames)`);
  }
  return stats;
}
