// Reads clangd's project configuration file (.clangd): the `CompileFlags` section (Add, Remove,
// CompilationDatabase) of each YAML document, with its `If: PathMatch/PathExclude` condition. Only
// the YAML clangd configurations use is understood: block and flow mappings and lists, quoted and
// plain scalars, comments, several documents separated by `---`.
import * as path from 'node:path';

/** One document of a .clangd file, as far as compile flags go. */
export interface ClangdFragment {
  /** Regular expressions over the file's path relative to the .clangd directory (forward slashes); any may match. */
  pathMatch: string[];
  /** Likewise; none may match. */
  pathExclude: string[];
  add: string[];
  remove: string[];
  /** `CompilationDatabase:` as written: a directory (relative to the .clangd file), `Ancestors` or `None`. */
  compilationDatabase?: string;
}

type Yaml = string | Yaml[] | { [key: string]: Yaml } | null;

class YamlError extends Error {}

/** The fragments of a .clangd file; a document that cannot be read is skipped with a problem. */
export function parseClangdConfig(text: string, file: string, problems: string[]): ClangdFragment[] {
  const fragments: ClangdFragment[] = [];
  const documents = text.split(/^(?:---|\.\.\.)[ \t]*(?:#.*)?$/m);
  documents.forEach((doc, index) => {
    let value: Yaml;
    try {
      value = parseYamlDocument(doc);
    } catch (e) {
      problems.push(`${file}${documents.length > 1 ? ` (document ${index + 1})` : ''}: ${e instanceof Error ? e.message : String(e)}; it is ignored`);
      return;
    }
    if (value === null) return;
    if (!isMap(value)) {
      problems.push(`${file}${documents.length > 1 ? ` (document ${index + 1})` : ''}: expected a mapping such as "CompileFlags: ..."; it is ignored`);
      return;
    }
    const condition = isMap(value.If) ? value.If : {};
    const flags = isMap(value.CompileFlags) ? value.CompileFlags : {};
    const database = flags.CompilationDatabase;
    fragments.push({
      pathMatch: strings(condition.PathMatch),
      pathExclude: strings(condition.PathExclude),
      add: strings(flags.Add),
      remove: strings(flags.Remove),
      ...(typeof database === 'string' && database ? { compilationDatabase: database } : {}),
    });
  });
  return fragments;
}

/** Whether a fragment's condition holds for `file`; a bad regular expression makes it not apply. */
export function fragmentApplies(fragment: ClangdFragment, configDir: string, file: string, problems: string[]): boolean {
  if (fragment.pathMatch.length === 0 && fragment.pathExclude.length === 0) return true;
  const relative = path.relative(configDir, file).split(path.sep).join('/');
  const matches = (patterns: string[]) =>
    patterns.some((p) => {
      try {
        return new RegExp(`^(?:${p})$`).test(relative);
      } catch {
        problems.push(`.clangd in ${configDir}: PathMatch/PathExclude '${p}' is not a regular expression`);
        return false;
      }
    });
  if (fragment.pathMatch.length > 0 && !matches(fragment.pathMatch)) return false;
  return !matches(fragment.pathExclude);
}

function isMap(v: Yaml | undefined): v is { [key: string]: Yaml } {
  return v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v);
}

/** A scalar or a list of scalars as strings (clangd accepts a single flag where a list is expected). */
function strings(v: Yaml | undefined): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

interface Line {
  indent: number;
  text: string;
  number: number;
}

/** One YAML document: null when it is empty. */
export function parseYamlDocument(doc: string): Yaml {
  const lines: Line[] = [];
  doc.split(/\r?\n/).forEach((raw, i) => {
    if (raw.includes('\t') && /^\s*\t/.test(raw)) throw new YamlError(`line ${i + 1}: tabs cannot indent YAML`);
    const text = stripComment(raw).trimEnd();
    if (text.trim() === '') return;
    lines.push({ indent: text.length - text.trimStart().length, text: text.trim(), number: i + 1 });
  });
  if (lines.length === 0) return null;
  const reader = { lines, at: 0 };
  const value = parseBlock(reader, lines[0]!.indent);
  if (reader.at < lines.length) throw new YamlError(`line ${lines[reader.at]!.number}: unexpected indentation`);
  return value;
}

/** The text before a comment: `#` at the start or after a blank, outside quotes. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) return line.slice(0, i);
  }
  return line;
}

function parseBlock(r: { lines: Line[]; at: number }, indent: number): Yaml {
  const first = r.lines[r.at]!;
  if (first.text === '-' || first.text.startsWith('- ')) return parseBlockList(r, indent);
  const map: { [key: string]: Yaml } = {};
  while (r.at < r.lines.length && r.lines[r.at]!.indent === indent) {
    const line = r.lines[r.at]!;
    const colon = keyColon(line.text);
    if (colon < 0) throw new YamlError(`line ${line.number}: expected "key: value"`);
    const key = unquote(line.text.slice(0, colon).trim());
    const rest = line.text.slice(colon + 1).trim();
    r.at++;
    map[key] = rest !== '' ? parseInline(rest, r, line.number) : parseNested(r, indent);
  }
  return map;
}

/** The value below `key:`: a more indented block, a list at the same indent, or nothing (null). */
function parseNested(r: { lines: Line[]; at: number }, indent: number): Yaml {
  const next = r.lines[r.at];
  if (!next) return null;
  if (next.indent > indent) return parseBlock(r, next.indent);
  if (next.indent === indent && (next.text === '-' || next.text.startsWith('- '))) return parseBlockList(r, indent);
  return null;
}

function parseBlockList(r: { lines: Line[]; at: number }, indent: number): Yaml[] {
  const list: Yaml[] = [];
  while (r.at < r.lines.length) {
    const line = r.lines[r.at]!;
    if (line.indent !== indent || !(line.text === '-' || line.text.startsWith('- '))) break;
    const rest = line.text.slice(1).trim();
    r.at++;
    if (rest === '') list.push(parseNested(r, indent));
    else if (keyColon(rest) >= 0 && !/^["'[{]/.test(rest)) {
      // `- key: value` starts a mapping whose further keys are indented to the key's column.
      const column = indent + line.text.indexOf(rest);
      r.lines.splice(r.at, 0, { indent: column, text: rest, number: line.number });
      list.push(parseBlock(r, column));
    } else list.push(parseInline(rest, r, line.number));
  }
  return list;
}

/** The colon ending a mapping key (followed by a blank or the end of the line), outside quotes and brackets. */
function keyColon(text: string): number {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') return -1;
    else if (c === ':' && (i + 1 === text.length || text[i + 1] === ' ')) return i;
  }
  return -1;
}

/** A value on the key's line: a flow collection (which may continue on the next lines) or a scalar. */
function parseInline(text: string, r: { lines: Line[]; at: number }, number: number): Yaml {
  if (text.startsWith('[') || text.startsWith('{')) {
    let source = text;
    for (;;) {
      const flow = { text: source, at: 0 };
      try {
        const value = parseFlow(flow);
        skipBlanks(flow);
        if (flow.at !== source.length) throw new YamlError(`line ${number}: unexpected text after the closing bracket`);
        return value;
      } catch (e) {
        if (!(e instanceof UnterminatedFlow) || r.at >= r.lines.length) throw e instanceof UnterminatedFlow ? new YamlError(`line ${number}: unclosed bracket`) : e;
        source += ` ${r.lines[r.at++]!.text}`;
      }
    }
  }
  return unquote(text);
}

class UnterminatedFlow extends Error {}

function skipBlanks(f: { text: string; at: number }): void {
  while (f.at < f.text.length && /\s/.test(f.text[f.at]!)) f.at++;
}

function parseFlow(f: { text: string; at: number }): Yaml {
  skipBlanks(f);
  if (f.at >= f.text.length) throw new UnterminatedFlow();
  const open = f.text[f.at]!;
  if (open === '[' || open === '{') {
    const close = open === '[' ? ']' : '}';
    f.at++;
    const list: Yaml[] = [];
    const map: { [key: string]: Yaml } = {};
    for (;;) {
      skipBlanks(f);
      if (f.at >= f.text.length) throw new UnterminatedFlow();
      if (f.text[f.at] === close) {
        f.at++;
        return open === '[' ? list : map;
      }
      if (open === '[') list.push(parseFlow(f));
      else {
        const key = parseFlow(f);
        skipBlanks(f);
        if (f.text[f.at] !== ':') throw new YamlError(`expected ':' in a flow mapping`);
        f.at++;
        map[typeof key === 'string' ? key : JSON.stringify(key)] = parseFlow(f);
      }
      skipBlanks(f);
      if (f.text[f.at] === ',') f.at++;
      else if (f.at < f.text.length && f.text[f.at] !== close) throw new YamlError(`expected ',' or '${close}'`);
    }
  }
  if (open === '"' || open === "'") {
    const end = findQuoteEnd(f.text, f.at);
    if (end < 0) throw new UnterminatedFlow();
    const value = unquote(f.text.slice(f.at, end + 1));
    f.at = end + 1;
    return value;
  }
  const start = f.at;
  while (f.at < f.text.length && !',]}'.includes(f.text[f.at]!) && !(f.text[f.at] === ':' && /\s/.test(f.text[f.at + 1] ?? ' '))) f.at++;
  return f.text.slice(start, f.at).trim();
}

function findQuoteEnd(text: string, start: number): number {
  const q = text[start]!;
  for (let i = start + 1; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

/** A scalar's string: quotes removed with YAML's escapes ('' in single quotes; \" \\ \n \t in double). */
function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith("'") && text.endsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    return text.slice(1, -1).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
  }
  return text;
}
