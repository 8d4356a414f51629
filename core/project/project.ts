// The project a document belongs to, as the engine's front ends see it (services.ts): files read from
// disk once per generation (the editor's copy of an open file wins), and compile flags found the way
// clangd finds them (compile-flags.ts). The CLI makes one per run; the language server one per session,
// telling it when open documents change and when files or settings change on disk.
import * as fs from 'node:fs';
import { readRegularText } from './bounded-read';
import { type ExplicitFlags, clearCompileFlagsCache, flagsForFile, projectConfigFor } from './compile-flags';
import type { ProjectConfig } from './config-file';
import type { ProjectServices, UnitFlags } from './services';

export interface ProjectOptions {
  /** Flags given on the command line: added first (`-I`, `-D`, `--compile-commands`). */
  explicit?: ExplicitFlags;
  /** Flags from the editor's settings (`phaseflip.includePaths`, `phaseflip.defines`, `phaseflip.compileCommands`). */
  settings?: ExplicitFlags;
  /** Workspace folders: flag files are looked for up to and including them. */
  workspaceRoots?: string[];
}

/** Headers above this size are not read (a generated table, not code the analysis could use). */
const MAX_HEADER_BYTES = 16 * 1024 * 1024;

export class Project implements ProjectServices {
  private generationValue = 0;
  private readonly overlay = new Map<string, string>();
  private readonly reads = new Map<string, string | undefined>();
  private readonly existing = new Map<string, boolean>();
  private readonly flags = new Map<string, UnitFlags>();
  /** Every path a translation unit asked for in this generation, open or not: the dependency set. */
  private readonly asked = new Set<string>();
  /** Header -> the main file of a translation unit that included it (see noteInclusions). Kept across generations: a hint, checked when used. */
  private readonly contexts = new Map<string, string>();

  constructor(private options: ProjectOptions = {}) {}

  get generation(): number {
    return this.generationValue;
  }

  readFile(path: string): string | undefined {
    this.asked.add(path);
    const open = this.overlay.get(path);
    if (open !== undefined) return open;
    if (this.reads.has(path)) return this.reads.get(path);
    let text: string | undefined;
    try {
      // Only regular files, and never without a bound: a FIFO or /dev/zero named by an include must not hang.
      text = readRegularText(path, MAX_HEADER_BYTES);
    } catch {
      text = undefined;
    }
    this.reads.set(path, text);
    return text;
  }

  exists(path: string): boolean {
    this.asked.add(path);
    if (this.overlay.has(path)) return true;
    let known = this.existing.get(path);
    if (known === undefined) {
      try {
        known = fs.statSync(path).isFile();
      } catch {
        known = false;
      }
      this.existing.set(path, known);
    }
    return known;
  }

  compileFlags(path: string, includedBy?: readonly string[]): UnitFlags {
    const key = includedBy?.length ? `${path}\u0001${includedBy.join('\u0001')}` : path;
    let flags = this.flags.get(key);
    if (!flags) {
      flags = flagsForFile(path, { explicit: this.options.explicit, settings: this.options.settings, workspaceRoots: this.options.workspaceRoots, includedBy: includedBy ? [...includedBy] : undefined });
      this.flags.set(key, flags);
    }
    return flags;
  }

  projectConfig(file: string): ProjectConfig | undefined {
    return projectConfigFor(file);
  }

  noteInclusions(main: string, files: readonly string[]): void {
    for (const file of files) {
      if (file === main) continue;
      const known = this.contexts.get(file);
      if (known === main) continue;
      if (known === undefined || contextRank(main, this.contexts) > contextRank(known, this.contexts)) this.contexts.set(file, main);
    }
  }

  contextFor(file: string): string | undefined {
    // A header included by a header included by a source: the source's unit holds both.
    let at = this.contexts.get(file);
    const seen = new Set([file]);
    while (at !== undefined && !seen.has(at)) {
      seen.add(at);
      const up = this.contexts.get(at);
      if (up === undefined || seen.has(up)) return at;
      at = up;
    }
    return at;
  }

  /**
   * The editor's text of an open file (undefined when it is closed). A change to a file some
   * translation unit read starts a new generation; other documents' edits leave the caches alone.
   */
  setOpenText(path: string, text: string | undefined): void {
    const before = this.overlay.get(path);
    if (text === undefined) this.overlay.delete(path);
    else this.overlay.set(path, text);
    if (before !== text && this.asked.has(path)) {
      this.reads.delete(path);
      this.existing.delete(path);
      this.generationValue++;
    }
  }

  /** Whether a translation unit of this generation read `path` (it is some document's dependency). */
  wasRead(path: string): boolean {
    return this.asked.has(path);
  }

  /** Files or flag files changed on disk (or settings changed): everything is read again. */
  invalidate(): void {
    this.asked.clear();
    this.reads.clear();
    this.existing.clear();
    this.flags.clear();
    clearCompileFlagsCache();
    this.generationValue++;
  }

  /** New settings or workspace folders; the next analysis reads everything again. */
  configure(options: ProjectOptions): void {
    this.options = options;
    this.invalidate();
  }
}

/** Whether a file is compiled as a translation unit of its own (a source, a Croqtile program); anything else is a header. */
export function isSourceFile(file: string): boolean {
  return /\.(cu|cpp|cc|cxx|c|co)$/i.test(file);
}

/** How good a translation unit's main file is as a header's context: a source, then a header nothing is known to include. */
function contextRank(main: string, contexts: ReadonlyMap<string, string>): number {
  if (isSourceFile(main)) return 2;
  return contexts.has(main) ? 0 : 1;
}
