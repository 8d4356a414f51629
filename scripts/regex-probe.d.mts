// Types of scripts/regex-probe.mjs, for the test that runs it (test/robustness/regex-probe.test.ts).

/** One regular-expression literal in the source: its file (relative to the repository), line, source and flags. */
export interface RegexLiteral {
  file: string;
  line: number;
  source: string;
  flags: string;
}

/** How a pattern's time grew from `base` to 4 x `base` characters on its worst adversarial input. */
export interface ProbeResult {
  superLinear: boolean;
  timedOut?: boolean;
  ratio: number;
  smallMs: number;
  largeMs: number;
  input: string;
}

export function regexLiterals(dirs?: string[]): RegexLiteral[];
export function probeRegex(literal: { source: string; flags: string }, options?: { base?: number; floorMs?: number; ratioLimit?: number }): ProbeResult;
export function slowRegexes(options?: {
  dirs?: string[];
  literals?: RegexLiteral[];
  base?: number;
  timeoutMs?: number;
  onEach?: (literal: RegexLiteral, result: ProbeResult) => void;
}): Promise<(RegexLiteral & ProbeResult)[]>;
