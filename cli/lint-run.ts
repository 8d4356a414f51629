// The result of one `phaseflip lint` run, as the output formats (cli/format/*) read it. Kept apart
// from cli/lint.ts, which runs the lint and calls the formats, so that neither imports the other back.
import type { Finding } from '../core/index';

export interface FileResult {
  path: string;
  findings: Finding[];
}

export interface LintRun {
  files: FileResult[];
  /** I/O and internal errors, one line each. */
  errors: string[];
}
