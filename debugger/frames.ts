// Reading the Debug Adapter Protocol off a byte stream, bounded and forgiving: Content-Length framed
// JSON in, parsed messages or worded problems out. Garbage never ends the session (the adapter library's
// own reader exits the process on a frame that is not JSON) and never grows memory without limit.

/** The largest frame body accepted; a longer one is skipped as it arrives, without being buffered. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** The most header bytes read while looking for the blank line that ends a header. */
export const MAX_HEADER_BYTES = 8 * 1024;

const HEADER_END = Buffer.from('\r\n\r\n');

export interface FrameSink {
  /** A frame whose body is JSON (any JSON value: whether it is a DAP message is the caller's question). */
  message(value: unknown): void;
  /** A frame or header that could not be read, in words; reading goes on after it. */
  problem(text: string): void;
}

/** Splits a DAP byte stream into messages. Feed it every chunk in order. */
export class FrameReader {
  /** Header bytes not yet ending in a blank line (header mode). */
  private header = Buffer.alloc(0);
  /** The body being collected: its announced length and the chunks so far (body mode). */
  private body: { length: number; chunks: Buffer[]; received: number } | undefined;
  /** Bytes of an oversized body still to discard. */
  private skipping = 0;
  /**
   * After a body that was not JSON: its Content-Length was probably wrong, so the body may hold the start of
   * the next frame. Reading goes back to those bytes and resumes at the next `Content-Length` found.
   */
  private resync = false;

  constructor(private readonly sink: FrameSink) {}

  push(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      if (this.skipping > 0) {
        const n = Math.min(this.skipping, data.length);
        this.skipping -= n;
        data = data.subarray(n);
      } else if (this.body) {
        const n = Math.min(this.body.length - this.body.received, data.length);
        this.body.chunks.push(data.subarray(0, n));
        this.body.received += n;
        data = data.subarray(n);
        if (this.body.received === this.body.length) this.finishBody();
      } else {
        data = this.readHeader(data);
      }
    }
  }

  /** Consumes header bytes from `data`; returns what follows the header once it is complete. */
  private readHeader(data: Buffer): Buffer {
    // Only the last 3 bytes kept from before can start the blank line: the search stays linear.
    let from = Math.max(0, this.header.length - 3);
    this.header = Buffer.concat([this.header, data]);
    if (this.resync) {
      const at = this.header.toString('latin1').search(/content-length\s*:/i);
      if (at < 0) {
        // Keep only what could be the start of the word, so the scan stays linear and bounded.
        this.header = Buffer.from(this.header.subarray(Math.max(0, this.header.length - 16)));
        return Buffer.alloc(0);
      }
      if (at > 0) this.sink.problem(`${at} bytes skipped to the next Content-Length`);
      this.header = Buffer.from(this.header.subarray(at));
      this.resync = false;
      from = 0;
    }
    const end = this.header.indexOf(HEADER_END, from);
    if (end < 0) {
      if (this.header.length > MAX_HEADER_BYTES) {
        this.sink.problem(`no end of header (a blank line) within ${MAX_HEADER_BYTES} bytes: ${this.header.length - 3} bytes dropped`);
        this.header = Buffer.from(this.header.subarray(this.header.length - 3));
      }
      return Buffer.alloc(0);
    }
    if (end > MAX_HEADER_BYTES) this.sink.problem(`a header of ${end} bytes (more than ${MAX_HEADER_BYTES}): dropped`);
    else this.startBody(this.header.toString('latin1', 0, end));
    const rest = this.header.subarray(end + HEADER_END.length);
    this.header = Buffer.alloc(0);
    return rest;
  }

  private startBody(header: string): void {
    const lengths = header
      .split('\r\n')
      .map((line) => /^content-length\s*:\s*(.*)$/i.exec(line)?.[1])
      .filter((v): v is string => v !== undefined);
    if (lengths.length !== 1) {
      this.sink.problem(lengths.length === 0 ? `a header without Content-Length: ${quote(header)}` : `a header with ${lengths.length} Content-Length fields: dropped`);
      return;
    }
    const value = lengths[0].trim();
    if (!/^\d{1,15}$/.test(value)) {
      this.sink.problem(`Content-Length must be a number of bytes, got ${quote(value)}`);
      return;
    }
    const length = Number(value);
    if (length > MAX_FRAME_BYTES) {
      this.sink.problem(`a frame of ${length} bytes is over the limit of ${MAX_FRAME_BYTES} bytes: skipped`);
      this.skipping = length;
      return;
    }
    if (length === 0) {
      this.sink.problem('an empty frame (Content-Length: 0)');
      return;
    }
    this.body = { length, chunks: [], received: 0 };
  }

  private finishBody(): void {
    const bytes = Buffer.concat(this.body!.chunks);
    const text = bytes.toString('utf8');
    this.body = undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      this.sink.problem(`a frame that is not JSON (${e instanceof Error ? e.message : String(e)}): ${quote(text)}`);
      // A wrong Content-Length may have swallowed the start of the next frame: read those bytes again.
      this.header = bytes;
      this.resync = true;
      return;
    }
    this.sink.message(value);
  }
}

/** What a parsed message lacks to be a DAP message, in words; undefined when it is one. */
export function messageProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `a message must be a JSON object, got ${describeValue(value)}`;
  const m = value as Record<string, unknown>;
  if (m.type !== 'request' && m.type !== 'response' && m.type !== 'event') return `a message's type must be 'request', 'response' or 'event', got ${describeValue(m.type)}`;
  if (m.type !== 'request') return undefined;
  if (typeof m.seq !== 'number' || !Number.isInteger(m.seq)) return `a request's seq must be an integer, got ${describeValue(m.seq)}`;
  if (typeof m.command !== 'string' || m.command === '') return `a request needs a command (a non-empty string), got ${describeValue(m.command)}`;
  if (m.arguments !== undefined && (m.arguments === null || typeof m.arguments !== 'object' || Array.isArray(m.arguments))) {
    return `the arguments of '${m.command}' must be an object, got ${describeValue(m.arguments)}`;
  }
  return undefined;
}

type FieldType = 'string' | 'number' | 'object' | 'array';

/** Required argument fields of the requests the adapter handles, as the DAP specification types them. */
const REQUIRED: Record<string, Record<string, FieldType>> = {
  evaluate: { expression: 'string' },
  setBreakpoints: { source: 'object' },
  breakpointLocations: { source: 'object', line: 'number' },
  source: { sourceReference: 'number' },
  stackTrace: { threadId: 'number' },
  scopes: { frameId: 'number' },
  variables: { variablesReference: 'number' },
  setVariable: { variablesReference: 'number', name: 'string', value: 'string' },
  continue: { threadId: 'number' },
  next: { threadId: 'number' },
  stepIn: { threadId: 'number' },
  stepOut: { threadId: 'number' },
  stepBack: { threadId: 'number' },
  reverseContinue: { threadId: 'number' },
  pause: { threadId: 'number' },
  goto: { threadId: 'number', targetId: 'number' },
  gotoTargets: { source: 'object', line: 'number' },
  restartFrame: { frameId: 'number' },
  exceptionInfo: { threadId: 'number' },
  setExceptionBreakpoints: { filters: 'array' },
  setFunctionBreakpoints: { breakpoints: 'array' },
  setDataBreakpoints: { breakpoints: 'array' },
  dataBreakpointInfo: { name: 'string' },
  completions: { text: 'string', column: 'number' },
  readMemory: { memoryReference: 'string', count: 'number' },
};

/** What a request's arguments lack that the specification requires, in words; undefined when nothing. */
export function argumentProblem(command: string, args: Record<string, unknown>): string | undefined {
  for (const [name, type] of Object.entries(REQUIRED[command] ?? {})) {
    const v = args[name];
    const ok = type === 'array' ? Array.isArray(v) : type === 'object' ? v !== null && typeof v === 'object' && !Array.isArray(v) : typeof v === type && (type !== 'number' || Number.isFinite(v));
    if (!ok) return `'${command}' needs the argument '${name}' (${type === 'array' ? 'an array' : type === 'object' ? 'an object' : `a ${type}`}), got ${describeValue(v)}`;
  }
  // Elements of the breakpoint lists: each needs its own required field.
  const each: Record<string, [string, string, FieldType]> = {
    setBreakpoints: ['breakpoints', 'line', 'number'],
    setFunctionBreakpoints: ['breakpoints', 'name', 'string'],
    setDataBreakpoints: ['breakpoints', 'dataId', 'string'],
  };
  const list = each[command];
  const items = list ? args[list[0]] : undefined;
  if (list && items !== undefined) {
    if (!Array.isArray(items)) return `'${command}': ${list[0]} must be an array, got ${describeValue(items)}`;
    const bad = items.findIndex((b) => b === null || typeof b !== 'object' || typeof (b as Record<string, unknown>)[list[1]] !== list[2]);
    if (bad >= 0) return `'${command}': ${list[0]}[${bad}] needs '${list[1]}' (a ${list[2]}), got ${describeValue(items[bad])}`;
  }
  const source = args.source as Record<string, unknown> | undefined;
  if (source && typeof source === 'object' && source.path !== undefined && typeof source.path !== 'string') return `'${command}': source.path must be a string, got ${describeValue(source.path)}`;
  return undefined;
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return quote(JSON.stringify(v));
}

/** A bounded quotation of input for a message. */
function quote(text: string): string {
  const cut = text.length > 80 ? `${text.slice(0, 80)}…` : text;
  return JSON.stringify(cut);
}
