// The result of one `phaseflip lint` run, as the output formats (cli/format/*) read it. Kept apart
// from cli/lint.ts, which runs the lint and calls the formats, so that neither imports the other back.
import type { AnalysisNote, Finding } from '../core/index';

/**
 * One file's findings. A related location in another file carries that file's path (as shown) in
 * `range.file`; ranges without `file` are in `path`.
 */
export interface FileResult {
  path: string;
  findings: Finding[];
  /** Information notes on what its analysis did not understand (`--notes` shows them). */
  notes?: AnalysisNote[];
}

export interface LintRun {
  files: FileResult[];
  /** I/O and internal errors, one line each. */
  errors: string[];
}
