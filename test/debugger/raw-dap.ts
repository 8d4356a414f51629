// Test helper: `phaseflip dap` as a child process spoken to in raw Content-Length frames, for tests that
// need byte-level control over what the adapter reads (malformed frames) or that check its exit.
import { spawn } from 'node:child_process';
import { CLI_JS, requireBuild } from '../server/lsp-client';

export interface Message {
  type: 'response' | 'event';
  seq?: number;
  request_seq?: number;
  command?: string;
  event?: string;
  success?: boolean;
  message?: string;
  body?: Record<string, unknown>;
}

/** A minimal DAP client over a child's stdio: send requests, wait for messages by predicate. */
export function adapterProcess() {
  requireBuild();
  const child = spawn(CLI_JS, ['dap'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const messages: Message[] = [];
  const waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  let buffer = Buffer.alloc(0);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buffer = Buffer.concat([buffer, d]);
    for (;;) {
      const header = buffer.indexOf('\r\n\r\n');
      if (header < 0) return;
      const length = Number(/Content-Length: (\d+)/.exec(buffer.subarray(0, header).toString())?.[1]);
      if (buffer.length < header + 4 + length) return;
      const m = JSON.parse(buffer.subarray(header + 4, header + 4 + length).toString('utf8')) as Message;
      buffer = buffer.subarray(header + 4 + length);
      messages.push(m);
      for (const w of waiters.filter((x) => x.match(m))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  });
  let seq = 1;
  const send = (command: string, args?: unknown) => {
    const json = JSON.stringify({ seq: seq++, type: 'request', command, arguments: args });
    child.stdin.write(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
    return seq - 1;
  };
  /** Writes bytes as they are: malformed headers and bodies. */
  const raw = (bytes: string | Buffer) => child.stdin.write(bytes);
  /** One frame around `body` (any text, JSON or not), with a correct Content-Length. */
  const frame = (body: string) => raw(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  const wait = (match: (m: Message) => boolean) =>
    new Promise<Message>((resolve) => {
      const seen = messages.find(match);
      if (seen) resolve(seen);
      else waiters.push({ match, resolve });
    });
  const response = (command: string) => wait((m) => m.type === 'response' && m.command === command);
  const event = (name: string) => wait((m) => m.type === 'event' && m.event === name);
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const responseTo = (requestSeq: number) => wait((m) => m.type === 'response' && m.request_seq === requestSeq);
  const kill = () => child.kill();
  return { send, raw, frame, response, responseTo, event, wait, exit, kill, messages, stderr: () => stderr, exitCode: () => child.exitCode };
}

