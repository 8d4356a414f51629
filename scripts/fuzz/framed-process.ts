// A child process that speaks Content-Length framed JSON on stdio (the transport of both LSP and DAP),
// for the fuzz harness: sends well-formed messages or raw bytes, collects every message, stderr and
// the exit, and reads the child's peak resident set from /proc where there is one.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type Message = Record<string, unknown>;

export class FramedProcess {
  readonly child: ChildProcess;
  readonly received: Message[] = [];
  stderr = '';
  exit: { code: number | null; signal: string | null } | undefined;
  private buffer = Buffer.alloc(0);
  private waiters: (() => void)[] = [];

  constructor(command: string, args: string[], cwd: string) {
    this.child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => {
      // Keep the tail only: a chatty child must not fill the harness's memory.
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-20_000);
    });
    this.child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      this.wake();
    });
    // Writing to a child that died is reported through its exit, not as an exception here.
    this.child.stdin?.on('error', () => undefined);
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = /Content-Length:\s*(\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString('ascii'));
      if (!length) {
        this.buffer = this.buffer.subarray(headerEnd + 4);
        continue;
      }
      const total = headerEnd + 4 + Number(length[1]);
      if (this.buffer.length < total) return;
      const body = this.buffer.subarray(headerEnd + 4, total).toString('utf8');
      this.buffer = this.buffer.subarray(total);
      try {
        this.received.push(JSON.parse(body) as Message);
      } catch {
        this.received.push({ unparsable: body.slice(0, 200) });
      }
      this.wake();
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  writeRaw(bytes: string | Buffer): void {
    if (this.alive) this.child.stdin?.write(bytes);
  }

  send(message: Message): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.writeRaw(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
  }

  /** Resolves with the first message (from index `from` on) that `match` accepts, or undefined at the deadline or exit. */
  waitFor(match: (m: Message) => boolean, timeoutMs: number, from = 0): Promise<Message | undefined> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve) => {
      let scanned = from;
      const check = () => {
        for (; scanned < this.received.length; scanned++) {
          if (match(this.received[scanned])) return resolve(this.received[scanned]);
        }
        if (!this.alive || Date.now() >= deadline) return resolve(undefined);
        this.waiters.push(check);
      };
      setTimeout(() => this.wake(), timeoutMs + 5);
      check();
    });
  }

  /** Peak resident set of the child in MiB (VmHWM), or 0 where /proc is not available. */
  peakRssMiB(): number {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const kib = /VmHWM:\s*(\d+)/.exec(status);
      return kib ? Number(kib[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGKILL');
    await new Promise<void>((resolve) => {
      if (!this.alive) return resolve();
      this.child.once('exit', () => resolve());
    });
  }
}
