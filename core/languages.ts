// The language registry: every language Phaseflip knows, and the calls that pick one by file name,
// editor language id or id. With engine.ts and index.ts, the only place in core outside a language
// folder that imports one; everything else sees the `Language` interface (lang/language.ts).
import type { LanguageId } from './api';
import { croqtile } from './lang/croqtile';
import { cuda } from './lang/cuda';
import { tilus } from './lang/tilus';
import { type InlineValueName, scanInlineValueNames } from './lang/inline-values';
import type { Language } from './lang/language';
import type { LaunchTemplate } from './sim/launch-template';

export const LANGUAGES: readonly Language[] = [cuda, croqtile, tilus];

/** Files whose extension names no language are simulated as CUDA, as `phaseflip sim` always did. */
export const DEFAULT_LANGUAGE: LanguageId = 'cuda';

const BY_ID = new Map(LANGUAGES.map((l) => [l.id, l]));
const BY_EXTENSION = new Map(LANGUAGES.flatMap((l) => l.extensions.map((e): [string, LanguageId] => [e, l.id])));
const BY_EDITOR_ID = new Map(LANGUAGES.flatMap((l) => l.editorLanguageIds.map((e): [string, LanguageId] => [e, l.id])));

export function languageById(id: LanguageId): Language {
  const language = BY_ID.get(id);
  if (!language) throw new Error(`unknown language '${id}' (known: ${LANGUAGES.map((l) => l.id).join(', ')})`);
  return language;
}

/** The language a file's extension names (case-insensitive), if any. */
export function languageForPath(file: string): LanguageId | undefined {
  return BY_EXTENSION.get(extensionOf(file));
}

/** A file's extension, lower case with the dot (`.cu`); empty when it has none. */
function extensionOf(file: string): string {
  const dot = file.lastIndexOf('.');
  return dot < 0 ? '' : file.slice(dot).toLowerCase();
}

const BY_HEADER_EXTENSION = new Map(LANGUAGES.flatMap((l) => l.headerExtensions.map((e): [string, LanguageId] => [e, l.id])));

/** The language whose headers have this file's extension (`.h`, `.hpp` … → CUDA), if any. */
export function languageForHeader(file: string): LanguageId | undefined {
  return BY_HEADER_EXTENSION.get(extensionOf(file));
}

/**
 * The file extensions a directory walk lints: every language's own (`.cu`, `.cuh`, `.co`, ...) and the headers
 * linted when they hold code (`.h`, `.hpp`, ...). A language added to the registry is found by the walk with no
 * change to the faces.
 */
export function lintedExtensions(): { sources: string[]; headers: string[]; conditional: { extensions: readonly string[]; language: string; lacking: string }[] } {
  return {
    sources: LANGUAGES.flatMap((l) => l.extensions),
    // Headers linted when they hold device code; a language whose files must hold its code (tilus) is listed apart.
    headers: LANGUAGES.filter((l) => !l.codeRequired).flatMap((l) => l.headerExtensions),
    conditional: LANGUAGES.filter((l) => l.codeRequired).map((l) => ({ extensions: l.headerExtensions, language: l.id, lacking: l.codeRequired! })),
  };
}

/** Whether `text`, a header of `language`, holds code of that language (so a directory walk lints it). */
export function headerHoldsCode(language: LanguageId, text: string): boolean {
  return languageById(language).holdsCode(text);
}

/**
 * Why `text`, named explicitly as a file of `language`, is not one (a Python file without `import tilus`);
 * undefined when it is, or when the language lints whatever such a file holds (CUDA headers).
 */
export function notOfLanguage(language: LanguageId, text: string): string | undefined {
  const l = languageById(language);
  return l.codeRequired !== undefined && !l.holdsCode(text) ? `not a ${l.id} file (${l.codeRequired}): nothing to lint` : undefined;
}

/** What starts a line comment in `language` (`//`, `#`). */
export function lineComment(language: LanguageId): string {
  return languageById(language).lineComment;
}

/** The language of a VS Code document language id (`cuda-cpp`, `croqtile`), if it is one of ours. */
export function languageForEditorId(languageId: string): LanguageId | undefined {
  return BY_EDITOR_ID.get(languageId);
}

/**
 * Words inline values never show, whatever the language: the union of every language's keywords.
 * One set for all keeps what the editor shows as it was when both languages shared one list (a CUDA
 * variable named like a Croqtile keyword, `block` or `ready`, is not shown).
 */
const NOT_VARIABLES: ReadonlySet<string> = new Set(LANGUAGES.flatMap((l) => [...l.inlineValues.keywords]));

/**
 * Where the editor shows variable values while a debug session is stopped at `stopLine`: identifiers
 * of the stopped function down to that line, clipped to the visible `[fromLine, toLine]`.
 */
export function inlineValueNames(text: string, language: LanguageId, stopLine: number, fromLine = 0, toLine = stopLine): InlineValueName[] {
  return scanInlineValueNames(text, languageById(language).inlineValues.functionStart, NOT_VARIABLES, stopLine, fromLine, toLine);
}

/**
 * Launch templates for every kernel of `text`, in source order. Never throws; unreadable kernels are
 * skipped. `wasmDir` locates the CUDA grammar as in `loadEngine` (loaded once per process).
 */
export async function launchTemplates(text: string, language: LanguageId, file = 'kernel', wasmDir?: string): Promise<LaunchTemplate[]> {
  try {
    return await languageById(language).launchTemplates(text, file, wasmDir);
  } catch {
    return [];
  }
}
