// What a language front end may ask of the project a document belongs to: the current text of other
// files (the editor's copy when open, else the disk's) and the compile flags that apply to a file.
// Language-neutral; the CLI and the language server each give one (core/project/project.ts).
import type { ProjectConfig } from './config-file';
import type { LaunchSetting } from './launch-settings';

/** The compile flags the front end uses (core/project/compile-flags.ts finds them as clangd does). */
export interface UnitFlags {
  quoteDirs: string[];
  includeDirs: string[];
  systemDirs: string[];
  defines: Array<[string, string]>;
  undefines: string[];
  forcedIncludes: string[];
  cudaArch?: number;
  /** Where the flags came from, for notes and hovers ("compile_flags.txt (/p/compile_flags.txt)"). */
  source: string;
  /** Problems met while reading flag files (malformed JSON, ...); shown as information notes. */
  problems?: string[];
  /** Launch shapes the user stated for kernels launched elsewhere (`--launch`, `phaseflip.launch`). */
  launch?: readonly LaunchSetting[];
  /** Library calls are read through their header definitions, not the catalogue's models (`--no-library-models`). */
  noLibraryModels?: boolean;
}

export interface ProjectServices {
  /** The current text of a file, or undefined when it cannot be read (missing, a directory, too big). */
  readFile(path: string): string | undefined;
  /** Whether a regular file exists at `path`. */
  exists(path: string): boolean;
  /** The flags a file is compiled with; `includedBy` names translation units known to include it. */
  compileFlags(path: string, includedBy?: readonly string[]): UnitFlags;
  /**
   * Bumped whenever a file the project may have read or a flag file changes: caches keyed on it
   * (translation units, parsed headers) are then rebuilt.
   */
  readonly generation: number;
  /**
   * Records what a translation unit with main file `main` included: every file of it but the main. A header
   * is then analysed in the translation unit of such a file (see `contextFor`), as the compiler sees it.
   */
  noteInclusions?(main: string, files: readonly string[]): void;
  /**
   * The main file of a translation unit known to include `file`, to analyse `file` in (its macros, the
   * class or namespace it is included into); undefined when none is known. A source file is preferred over
   * a header, a header no known file includes over one that is included.
   */
  contextFor?(file: string): string | undefined;
  /** The `.phaseflip.json` governing `file` (the nearest walking up), if any: its rule severities apply to the file's analysis. */
  projectConfig?(file: string): ProjectConfig | undefined;
}
