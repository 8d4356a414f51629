// Reading a file a user names (a source to lint, a `:file(...)` argument, a launch program) without trusting
// stat(): a device, FIFO or /proc file reports size 0 and never ends, so only regular files are read, and
// the read itself stops once it passes the limit.
import * as fs from 'node:fs';

const CHUNK = 1 << 20;

/** The file's bytes; throws an Error naming the problem for a non-regular file or one larger than `limit` bytes. */
export function readRegularFile(file: string, limit: number): Uint8Array {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`not a regular file (${st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() ? 'a character device' : st.isSocket() ? 'a socket' : 'not a plain file'})`);
    const tooLarge = (): Error => new Error(`file is larger than ${limit >= 1 << 20 ? `${limit / (1 << 20)} MB` : `${limit} bytes`}`);
    if (st.size > limit) throw tooLarge();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, limit + 1 - total));
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      chunks.push(buf.subarray(0, n));
      total += n;
      // A file that grows past its stat size while we read (or a /proc-like file) stops here.
      if (total > limit) throw tooLarge();
    }
    return new Uint8Array(Buffer.concat(chunks, total));
  } finally {
    fs.closeSync(fd);
  }
}

/** A regular file as UTF-8 text (invalid bytes become U+FFFD, a BOM is dropped); see readRegularFile. */
export function readRegularText(file: string, limit: number): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(readRegularFile(file, limit));
}
