// The jobs the fuzz harness runs in-process on the engine (core/index.ts), and what comes back: the
// same shapes on both sides of the worker boundary (engine-worker.ts runs them, engine-pool.ts sends them).
import type { LaunchDescription, LaunchTemplate } from '../../core/index';
import type { SourceLanguage } from './mutate';

/** Lint one text, as an editor's document without a path (no includes), in one language. */
export interface LintJob {
  kind: 'lint';
  text: string;
  language: SourceLanguage;
}

/** Validate one launch description as launch.json or `sim` would, then simulate it on `text`. */
export interface SimJob {
  kind: 'sim';
  text: string;
  launch: LaunchDescription;
}

/** The ready launches of a file's kernels (what the code lens offers), to launch them and then spoil them. */
export interface TemplatesJob {
  kind: 'templates';
  text: string;
  language: SourceLanguage;
}

export type EngineJob = LintJob | SimJob | TemplatesJob;

export interface EngineReply {
  ms: number;
  /** Messages a user would see (syntax problems, notes, the simulator's message, a refused launch). */
  messages: string[];
  /** An exception that escaped the engine (never expected: the engine answers bad input with messages). */
  thrown?: string;
  templates?: LaunchTemplate[];
}
