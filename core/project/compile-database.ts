// A parsed compile_commands.json (the JSON compilation database CMake, Bear and Meson write): its entries
// by file, and the entry a file without one of its own borrows (clangd's interpolation, simplified).
import * as path from 'node:path';
import { splitShellWords } from './shell-words';

export interface DatabaseEntry {
  /** The command's working directory: relative paths in the command resolve against it. */
  directory: string;
  /** The source file, absolute. */
  file: string;
  /** The command as an argument vector (`arguments`, or `command` split as a shell would). */
  args: string[];
}

export interface CompileDatabase {
  entries: DatabaseEntry[];
  /** Entries by absolute file path; the first entry of a file compiled twice wins, as in clangd. */
  byFile: Map<string, DatabaseEntry>;
  problems: string[];
  /** Nearest-entry answers already computed, by file: headers are looked up again and again. */
  nearest?: Map<string, DatabaseEntry | undefined>;
  byDirectory?: Map<string, DatabaseEntry[]>;
}

/**
 * Parses the text of a compile_commands.json found at `dbPath`. Malformed JSON or entries yield
 * problems, never an exception: a bad entry is skipped, a bad file gives an empty database.
 */
export function parseCompileDatabase(text: string, dbPath: string): CompileDatabase {
  const db: CompileDatabase = { entries: [], byFile: new Map(), problems: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    db.problems.push(`${dbPath} is not valid JSON (${e instanceof Error ? e.message : String(e)}); its flags are not used`);
    return db;
  }
  if (!Array.isArray(json)) {
    db.problems.push(`${dbPath} should hold a JSON array of compile commands; its flags are not used`);
    return db;
  }
  let skipped = 0;
  for (const raw of json) {
    const entry = toEntry(raw, path.dirname(dbPath));
    if (!entry) {
      skipped++;
      continue;
    }
    db.entries.push(entry);
    if (!db.byFile.has(entry.file)) db.byFile.set(entry.file, entry);
  }
  if (skipped > 0) db.problems.push(`${dbPath}: ${skipped} entr${skipped === 1 ? 'y' : 'ies'} without a string "directory", "file" and "command" or "arguments" skipped`);
  return db;
}

function toEntry(raw: unknown, dbDir: string): DatabaseEntry | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.file !== 'string' || typeof r.directory !== 'string') return undefined;
  let args: string[];
  if (Array.isArray(r.arguments) && r.arguments.every((a) => typeof a === 'string')) args = r.arguments as string[];
  else if (typeof r.command === 'string') args = splitShellWords(r.command);
  else return undefined;
  // The format asks for an absolute directory; a relative one is read against the database's own.
  const directory = path.resolve(dbDir, r.directory);
  return { directory, file: path.resolve(directory, r.file), args };
}

/** How a file came by its entry. */
export type EntryMatch = { entry: DatabaseEntry; borrowed: false } | { entry: DatabaseEntry; borrowed: true; from: string };

/**
 * The entry for `file`: its own; else that of a translation unit known to include it (`includedBy`);
 * else the nearest entry: one with the same stem in the same directory (`kernel.cuh` → `kernel.cu`),
 * then any in the same directory, then the one sharing the longest directory prefix.
 */
export function entryFor(db: CompileDatabase, file: string, includedBy: readonly string[] = []): EntryMatch | undefined {
  const own = db.byFile.get(file);
  if (own) return { entry: own, borrowed: false };
  for (const includer of includedBy) {
    const entry = db.byFile.get(path.resolve(includer));
    if (entry) return { entry, borrowed: true, from: entry.file };
  }
  const nearest = nearestEntry(db, file);
  return nearest ? { entry: nearest, borrowed: true, from: nearest.file } : undefined;
}

function nearestEntry(db: CompileDatabase, file: string): DatabaseEntry | undefined {
  db.nearest ??= new Map();
  if (db.nearest.has(file)) return db.nearest.get(file);
  const found = searchNearest(db, file);
  db.nearest.set(file, found);
  return found;
}

function searchNearest(db: CompileDatabase, file: string): DatabaseEntry | undefined {
  db.byDirectory ??= groupByDirectory(db);
  const dir = path.dirname(file);
  const sameDir = db.byDirectory.get(dir);
  if (sameDir) {
    const stem = stemOf(file);
    return sameDir.find((e) => stemOf(e.file) === stem) ?? sameDir[0];
  }
  const dirParts = dir.split(path.sep);
  let best: DatabaseEntry | undefined;
  let bestLength = -1;
  for (const [entryDir, entries] of db.byDirectory) {
    const length = commonPrefixLength(dirParts, entryDir.split(path.sep));
    if (length > bestLength) {
      best = entries[0];
      bestLength = length;
    }
  }
  return best;
}

/** The entries by the directory of their file, in database order. */
function groupByDirectory(db: CompileDatabase): Map<string, DatabaseEntry[]> {
  const out = new Map<string, DatabaseEntry[]>();
  for (const entry of db.byFile.values()) {
    const dir = path.dirname(entry.file);
    const list = out.get(dir);
    if (list) list.push(entry);
    else out.set(dir, [entry]);
  }
  return out;
}

function stemOf(file: string): string {
  const base = path.basename(file);
  const dot = base.indexOf('.');
  return dot <= 0 ? base : base.slice(0, dot);
}

function commonPrefixLength(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}
