// Runs engine jobs in a worker thread with a per-input time limit: a job over the limit terminates
// the worker (a synchronous hang cannot be interrupted otherwise) and the next job gets a fresh one.
// The worker's stack is the main thread's default size, so a recursion too deep for the CLI or the
// language server is too deep here as well.
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EngineJob, EngineReply } from './engine-jobs';
import { type Outcome, internalErrorIn } from './outcome';

/** The bundled worker beside the bundled harness (scripts/fuzz.mjs builds both into one folder). */
const WORKER_FILE = path.join(__dirname, 'engine-worker.cjs');

export interface EngineRun extends Outcome {
  /** The process's resident set after the job, in MiB (the worker shares it). */
  rssMiB: number;
  reply?: EngineReply;
}

export class EnginePool {
  private worker: Worker | undefined;

  /** The engine's own limits: memory beyond this is reported as a crash, as in a real process. */
  constructor(private readonly maxOldGenerationMiB = 2048) {}

  /** A worker with the engine loaded: its start-up (WebAssembly, grammars) is not charged to an input. */
  private async ready(): Promise<Worker> {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE, { resourceLimits: { stackSizeMb: 1, maxOldGenerationSizeMb: this.maxOldGenerationMiB } });
    this.worker = worker;
    for (const language of ['cuda', 'croqtile'] as const) await this.send(worker, { kind: 'lint', text: '', language }, 60_000);
    return worker;
  }

  async run(job: EngineJob, timeoutMs: number): Promise<EngineRun> {
    return this.send(await this.ready(), job, timeoutMs);
  }

  private send(worker: Worker, job: EngineJob, timeoutMs: number): Promise<EngineRun> {
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: Outcome, discard: boolean, reply?: EngineReply) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        if (discard) {
          this.worker = undefined;
          void worker.terminate();
        }
        resolve({ ...outcome, rssMiB: process.memoryUsage.rss() / 2 ** 20, reply });
      };
      const onMessage = (reply: EngineReply) => {
        const internal = reply.thrown ?? internalErrorIn(reply.messages);
        finish(internal ? { verdict: 'internal-error', ms: reply.ms, detail: internal } : { verdict: 'ok', ms: reply.ms, detail: '' }, false, reply);
      };
      const onError = (e: Error) => finish({ verdict: 'crash', ms: performance.now() - started, detail: `worker died: ${e.name}: ${e.message}` }, true);
      const onExit = (code: number) => finish({ verdict: 'crash', ms: performance.now() - started, detail: `worker exited with code ${code}` }, true);
      const timer = setTimeout(() => finish({ verdict: 'hang', ms: performance.now() - started, detail: `no answer within ${timeoutMs} ms` }, true), timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
