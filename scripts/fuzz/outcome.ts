// How the fuzz harness judges one input: ok, an internal error (an "internal error" message or a
// RangeError/TypeError reaching the user, an exception escaping the engine, a crashed process), or a
// hang (over the per-input budget); and a short signature so that one failure class is saved once.

export type Verdict = 'ok' | 'internal-error' | 'crash' | 'hang';

export interface Outcome {
  verdict: Verdict;
  ms: number;
  /** What went wrong, for the reproducer's record (empty when ok). */
  detail: string;
}

/** Text that only an engine bug produces: never part of a proper answer to bad input. */
const INTERNAL = /internal (?:front-end |parser |simulator )?error|\b(?:RangeError|TypeError|ReferenceError)\b|Maximum call stack size exceeded|Cannot read propert(?:y|ies) of (?:undefined|null)|is not a function|is not iterable/i;

export function internalErrorIn(messages: readonly string[]): string | undefined {
  return messages.find((m) => INTERNAL.test(m));
}

/**
 * A failure's class: the verdict, the surface and the message with its numbers, quoted text and
 * positions blanked, so that the same bug on different inputs has one signature.
 */
export function signatureOf(surface: string, language: string, outcome: Outcome): string {
  if (outcome.verdict === 'hang') return `${surface}:${language}:hang:${outcome.detail.split('\n')[0].replace(/\d+/g, 'N').slice(0, 80)}`;
  const line = outcome.detail.split('\n').find((l) => INTERNAL.test(l)) ?? outcome.detail.split('\n')[0];
  const normalised = line
    .replace(/'[^']*'|"[^"]*"|`[^`]*`/g, '…')
    .replace(/\(reading [^)]*\)/g, '(reading …)')
    .replace(/\d+/g, 'N')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
  return `${surface}:${language}:${outcome.verdict}:${normalised}`;
}
