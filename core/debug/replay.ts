// Time travel's record: every `Machine.run` call of the debug runtime is a segment (its statement
// count, thread picks, flips, and the thread of a single-thread call), every phase flip and every
// stop a checkpoint with a fingerprint of the machine. Going back rebuilds the program and replays
// the segments (`replaySegment`); the fingerprint check refuses a replay that diverged.
import type { Machine, RunResult, SimThread } from '../sim/machine';
import type { DebugStop } from './types';

/**
 * One `Machine.run` call: the step count it ended at and the quanta it ran (one more than a replay
 * of its statements makes when the line hook stopped its last pick before its first statement: the
 * replay must make that pick too, since under the random policy a pick draws from the generator).
 */
export interface Segment {
  steps: number;
  quanta: number;
  /** `Machine.phaseFlips` at its end: more than before means the call ended at a flip. */
  flips: number;
  /** A single-thread call: the machine thread it ran, and whether that thread ended blocked or done. */
  thread?: number;
  notReady?: boolean;
  /** A single-thread step's call (`run({ thread, frozen })`): async completions landed instead of other threads running. */
  frozen?: boolean;
}

/** The flip a checkpoint was recorded at. */
export interface CheckpointFlip {
  barrier: string;
  block: number;
  completed: number;
  lastArriver?: string;
}

export interface Checkpoint {
  /** Launch the checkpoint is in (0 for the first). */
  launch: number;
  /** Index in that launch's segments of the run call that ended here. */
  segment: number;
  steps: number;
  /** The machine's clock there (the timeline travels by it). */
  cycles: number;
  fingerprint: string;
  stop?: DebugStop;
  flip?: CheckpointFlip;
}

/** Cheap identity of a machine state for replay checks. */
export function fingerprint(m: Machine): string {
  let phases = 0;
  for (const b of m.barriers) phases = (phases * 31 + b.mb.state.phase * 1021 + b.mb.state.pending) >>> 0;
  return `steps ${m.steps}, flips ${m.phaseFlips}, cycles ${m.cycles}, barriers ${m.barriers.length}/${phases}`;
}

/** One recorded `Machine.run` call as a segment. */
export function segmentOf(m: Machine, quantaBefore: number, limits: { thread?: SimThread; frozen?: boolean }): Segment {
  const seg: Segment = { steps: m.steps, quanta: m.quanta - quantaBefore, flips: m.phaseFlips };
  const t = limits.thread;
  if (t) Object.assign(seg, { thread: t.index, notReady: t.status !== 'ready', frozen: limits.frozen === true });
  return seg;
}

/**
 * Replays one recorded `Machine.run` call. A single-thread call runs the same thread for as many
 * statements (`ran`), plus one when it ended at a flip or by blocking (or finishing) in its next
 * statement, which the replay must attempt too (a frozen call delivers the same async completion
 * first: the machine is in the same state, and the completion is the earliest in flight); any other call runs to its step count (one more
 * when it ended at a flip: the flip's pause ends it). When the recording made one more pick (the
 * hook stopped it before its first statement), that pick is repeated with a hook that stops at once.
 */
export function replaySegment(m: Machine, seg: Segment, ran: number, atFlip: boolean, thread: SimThread | undefined): RunResult {
  const quanta = m.quanta;
  let r: RunResult = { status: 'paused' };
  if (thread) {
    const budget = ran + (atFlip || seg.notReady ? 1 : 0);
    if (budget > 0) r = m.run({ thread, budget, frozen: seg.frozen });
  } else r = m.run({ untilSteps: atFlip ? seg.steps + 1 : seg.steps });
  if (r.status === 'paused' && m.quanta - quanta < seg.quanta) {
    m.lineHook = () => true;
    try {
      r = m.run(thread ? { thread, budget: 1, frozen: seg.frozen } : { budget: 1 });
    } finally {
      m.lineHook = undefined;
    }
  }
  return r;
}
