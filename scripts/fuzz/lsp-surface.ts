// Fuzz surface "lsp": the language server (`node dist/cli.js lsp --stdio`) under edit storms: per
// language, one document receives random incremental edits while hover, code action, symbol and code
// lens requests arrive; every request must be answered within the limit, the server must stay up and
// log no exception. A failure is saved as the document's text and the request that failed.
import * as path from 'node:path';
import type { SeedFile } from './corpus';
import { FramedProcess, type Message } from './framed-process';
import { minimiseText } from './minimise';
import { type SourceLanguage, mutate } from './mutate';
import { type Outcome, internalErrorIn, signatureOf } from './outcome';
import type { Random } from './random';
import { type SurfaceContext, type SurfaceStats, count, emptyStats } from './surface';

export const LSP_METHODS = ['textDocument/hover', 'textDocument/codeAction', 'textDocument/documentSymbol', 'textDocument/codeLens'] as const;

export interface LspProbe {
  method: string;
  line: number;
  character: number;
}

/** A language server session with the answers a client must give to the server's own requests. */
export class LspSession {
  readonly process: FramedProcess;
  private nextId = 1;
  private answered = 0;

  constructor(root: string) {
    this.process = new FramedProcess(process.execPath, [path.join(root, 'dist', 'cli.js'), 'lsp', '--stdio'], root);
  }

  /** Answers what the server asks (configuration, registrations, refreshes) so it never waits on us. */
  private answerServerRequests(): void {
    const received = this.process.received;
    for (; this.answered < received.length; this.answered++) {
      const m = received[this.answered];
      if (typeof m.method === 'string' && m.id !== undefined) {
        const items = (m.params as { items?: unknown[] } | undefined)?.items;
        this.process.send({ jsonrpc: '2.0', id: m.id, result: m.method === 'workspace/configuration' ? (items ?? []).map(() => null) : null });
      }
    }
  }

  async request(method: string, params: unknown, timeoutMs: number): Promise<Message | undefined> {
    const id = this.nextId++;
    const from = this.process.received.length;
    this.answerServerRequests();
    this.process.send({ jsonrpc: '2.0', id, method, params });
    return this.process.waitFor((m) => {
      this.answerServerRequests();
      return m.id === id && m.method === undefined;
    }, timeoutMs, from);
  }

  notify(method: string, params: unknown): void {
    this.answerServerRequests();
    this.process.send({ jsonrpc: '2.0', method, params });
  }

  async initialize(timeoutMs: number): Promise<boolean> {
    const reply = await this.request('initialize', { processId: process.pid, rootUri: null, capabilities: { textDocument: { codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } } } } }, timeoutMs);
    this.notify('initialized', {});
    return reply !== undefined;
  }

  /** Exceptions the server logged (its handlers are guarded: they log and answer a fallback). */
  loggedInternalError(): string | undefined {
    const logs = this.process.received.filter((m) => m.method === 'window/logMessage' || m.method === 'window/showMessage').map((m) => String((m.params as { message?: unknown })?.message ?? ''));
    return internalErrorIn(logs) ?? internalErrorIn([this.process.stderr]);
  }

  /** Drops the messages read so far (an edit storm produces one diagnostics notification per edit). */
  forget(): void {
    this.answerServerRequests();
    this.process.received.length = 0;
    this.answered = 0;
  }
}

function positionAt(text: string, offset: number): { line: number; character: number } {
  let line = 0;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, character: offset - lineStart };
}

function probeParams(method: string, uri: string, at: { line: number; character: number }): unknown {
  const range = { start: at, end: at };
  if (method === 'textDocument/codeAction') return { textDocument: { uri }, range, context: { diagnostics: [] } };
  if (method === 'textDocument/hover') return { textDocument: { uri }, position: at };
  return { textDocument: { uri } };
}

/** Sends one probe and judges the answer: none within the limit is a hang, a dead server a crash. */
export async function probe(session: LspSession, uri: string, p: LspProbe, limitMs: number): Promise<Outcome> {
  const started = performance.now();
  const reply = await session.request(p.method, probeParams(p.method, uri, p), limitMs);
  const ms = performance.now() - started;
  if (!session.process.alive) return { verdict: 'crash', ms, detail: `server exited (${JSON.stringify(session.process.exit)}): ${session.process.stderr.slice(-400)}` };
  if (!reply) return { verdict: 'hang', ms, detail: `no answer to ${p.method} within ${limitMs} ms` };
  const logged = session.loggedInternalError();
  if (logged) return { verdict: 'internal-error', ms, detail: logged };
  if (reply.error) return { verdict: 'internal-error', ms, detail: `${p.method} answered an error: ${JSON.stringify(reply.error).slice(0, 400)}` };
  return { verdict: 'ok', ms, detail: '' };
}

/** Replays a saved document and request on a fresh server. */
export async function replayLsp(root: string, text: string, language: SourceLanguage, p: LspProbe, limitMs: number): Promise<Outcome> {
  const session = new LspSession(root);
  try {
    if (!(await session.initialize(30_000))) return { verdict: 'crash', ms: 0, detail: `server did not initialise: ${session.process.stderr.slice(-400)}` };
    const uri = `file:///fuzz/replay.${language === 'cuda' ? 'cu' : 'co'}`;
    session.notify('textDocument/didOpen', { textDocument: { uri, languageId: language === 'cuda' ? 'cuda-cpp' : 'croqtile', version: 1, text } });
    return await probe(session, uri, p, limitMs);
  } finally {
    await session.process.close();
  }
}

/** One random edit: a replacement of a short range by a snippet (often a whole mutation's worth). */
function randomEdit(text: string, rng: Random, language: SourceLanguage, donor: string): { start: number; end: number; insert: string } {
  const start = rng.int(text.length + 1);
  const end = Math.min(text.length, start + (rng.chance(0.5) ? 0 : rng.int(40)));
  const choice = rng.int(4);
  let insert = '';
  if (choice === 0) insert = rng.pick(['{', '}', ';', '\n', ' ', '(', ')', 'a', '0', 'mbar', '__syncthreads();', 'foreach ', '"']);
  else if (choice === 1) {
    const at = rng.int(donor.length + 1);
    insert = donor.slice(at, at + rng.int(120));
  } else if (choice === 2) insert = mutate(text.slice(start, end), language, rng, { maxRepeat: 4 }).text.slice(0, 2000);
  return { start, end, insert };
}

export async function fuzzLsp(ctx: SurfaceContext, seeds: readonly SeedFile[]): Promise<SurfaceStats> {
  const stats = emptyStats('lsp');
  let totalEdits = 0;
  for (const language of ['cuda', 'croqtile'] as const) {
    const pool = seeds.filter((s) => s.language === language);
    const session = new LspSession(ctx.root);
    try {
      if (!(await session.initialize(30_000))) throw new Error(`fuzz lsp: the server did not initialise: ${session.process.stderr.slice(-400)}`);
      let documents = 0;
      let text = '';
      let uri = '';
      let version = 1;
      const open = () => {
        if (uri) session.notify('textDocument/didClose', { textDocument: { uri } });
        text = ctx.rng.pick(pool).text;
        uri = `file:///fuzz/storm-${++documents}.${language === 'cuda' ? 'cu' : 'co'}`;
        session.notify('textDocument/didOpen', { textDocument: { uri, languageId: language === 'cuda' ? 'cuda-cpp' : 'croqtile', version: ++version, text } });
      };
      open();
      let edits = 0;
      const perLanguageSeconds = ctx.budget.seconds / 2;
      const languageStarted = Date.now();
      while (edits < ctx.budget.count && Date.now() - languageStarted < perLanguageSeconds * 1000 && session.process.alive) {
        // A fresh document now and then, so that the storm does not drift far from real code.
        if (edits > 0 && edits % 400 === 0) open();
        const edit = randomEdit(text, ctx.rng, language, ctx.rng.pick(pool).text);
        const range = { start: positionAt(text, edit.start), end: positionAt(text, edit.end) };
        text = text.slice(0, edit.start) + edit.insert + text.slice(edit.end);
        session.notify('textDocument/didChange', { textDocument: { uri, version: ++version }, contentChanges: [{ range, text: edit.insert }] });
        edits++;
        if (edits % 10 !== 0) continue;
        session.forget();
        const p: LspProbe = { method: ctx.rng.pick(LSP_METHODS), ...positionAt(text, ctx.rng.int(text.length + 1)) };
        const outcome = await probe(session, uri, p, ctx.budget.limitMs);
        const failed = count(stats, outcome, session.process.peakRssMiB());
        if (!failed) continue;
        ctx.log(`lsp: ${outcome.verdict} on ${p.method} after ${edits} ${language} edits: ${outcome.detail.split('\n')[0].slice(0, 160)}`);
        const signature = signatureOf('lsp', language, outcome);
        if (!ctx.store.has(signature)) {
          const sameFailure = async (candidate: string) => {
            const again = await replayLsp(ctx.root, candidate, language, p, ctx.budget.limitMs);
            return again.verdict === outcome.verdict;
          };
          const replayed = await sameFailure(text);
          const minimal = replayed ? await minimiseText(text, sameFailure, { tests: 60, deadline: Date.now() + ctx.minimiseSeconds * 1000 }) : text;
          const file = ctx.store.save(
            { surface: 'lsp', language, verdict: outcome.verdict, signature, detail: outcome.detail, ms: Math.round(outcome.ms), limitMs: ctx.budget.limitMs, seed: ctx.seed, request: p, replayed },
            minimal,
            language === 'cuda' ? 'cu' : 'co',
          );
          stats.saved.push(file);
          ctx.log(`lsp: saved ${file}${replayed ? '' : ' (the document alone did not fail again: the edit history matters)'}`);
        }
        // A stuck or dead server answers nothing more: the storm of this language ends here.
        if (!session.process.alive || outcome.verdict === 'hang') break;
      }
      totalEdits += edits;
      stats.maxRssMiB = Math.max(stats.maxRssMiB, session.process.peakRssMiB());
    } finally {
      await session.process.close();
    }
  }
  // Inputs tried are edits here; a probe request follows every tenth.
  stats.tried = totalEdits;
  return stats;
}
