// Worker thread of the fuzz harness: loads the engine once and runs lint and simulate jobs sent by
// engine-pool.ts, answering with the messages a user would see or the exception that escaped. A job
// that hangs is ended from outside by terminating this thread.
import { parentPort } from 'node:worker_threads';
import { type Engine, LaunchRequestError, SimError, launchTemplates, loadEngine, simulate, validateLaunch } from '../../core/index';
import type { EngineJob, EngineReply } from './engine-jobs';

let engine: Promise<Engine> | undefined;

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}\n${(e.stack ?? '').split('\n').slice(1, 6).join('\n')}` : String(e);
}

async function run(job: EngineJob): Promise<EngineReply> {
  const started = performance.now();
  const messages: string[] = [];
  try {
    if (job.kind === 'lint') {
      engine ??= loadEngine();
      const result = (await engine).analyze(job.text, job.language);
      messages.push(...result.syntaxProblems.map((p) => p.message), ...(result.notes ?? []).map((n) => n.message));
    } else if (job.kind === 'templates') {
      return { ms: performance.now() - started, messages, templates: await launchTemplates(job.text, job.language) };
    } else {
      let request;
      try {
        request = validateLaunch(job.launch);
      } catch (e) {
        if (!(e instanceof LaunchRequestError)) throw e;
        messages.push(e.message);
      }
      if (request) {
        try {
          const result = await simulate({ ...request, text: job.text });
          messages.push(result.message);
        } catch (e) {
          // A SimError is the simulator's answer to what it cannot run: an error message, not a crash.
          if (!(e instanceof SimError)) throw e;
          messages.push(e.message);
        }
      }
    }
  } catch (e) {
    return { ms: performance.now() - started, messages, thrown: describeError(e) };
  }
  return { ms: performance.now() - started, messages };
}

parentPort?.on('message', (job: EngineJob) => {
  void run(job).then((reply) => parentPort?.postMessage(reply));
});
