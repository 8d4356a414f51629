// Files a user names are read only when they are regular files, and never past their size limit: a symlink to
// /dev/zero, a FIFO with no writer or a directory gets an error naming what it is, at once (stat().size is 0
// for them, so a size check before reading would have read without end).
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRegularFile, readRegularText } from '../../core/index';
import { readSource } from '../../cli/files';
import { planLaunch } from '../../debugger/launch-config';

const dir = mkdtempSync(path.join(tmpdir(), 'phaseflip-nonregular-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const zero = path.join(dir, 'zero.cu');
symlinkSync('/dev/zero', zero);
const fifo = path.join(dir, 'fifo.cu');
let haveFifo = true;
try {
  execFileSync('mkfifo', [fifo]);
} catch {
  haveFifo = false;
}
const folder = path.join(dir, 'folder.cu');
mkdirSync(folder);

describe('reading files a user names', () => {
  it('refuses a character device behind a symlink, at once', () => {
    const start = Date.now();
    expect(() => readSource(zero)).toThrow(/not a regular file \(a character device\)/);
    expect(Date.now() - start).toBeLessThan(2000);
  });
  it.skipIf(!haveFifo)('refuses a FIFO without waiting for a writer', () => {
    expect(() => readRegularFile(fifo, 1024)).toThrow(/not a regular file \(a FIFO\)/);
  });
  it('refuses a directory', () => {
    expect(() => readRegularText(folder, 1024)).toThrow(/not a regular file \(a directory\)/);
  });
  it('stops at the limit and reads files within it whole', () => {
    const big = path.join(dir, 'big.cu');
    writeFileSync(big, 'x'.repeat(5000));
    expect(() => readRegularFile(big, 4096)).toThrow(/larger than 4096 bytes/);
    expect(readRegularText(big, 5000)).toHaveLength(5000);
  });
  it('a launch whose program or :file() argument is a device names the field', () => {
    expect(() => planLaunch({ program: zero, kernel: 'k' } as never, dir)).toThrow(/not a regular file/);
    const program = path.join(dir, 'k.cu');
    writeFileSync(program, '__global__ void k(float* a) { a[threadIdx.x] = 1.f; }\n');
    let message = '';
    try {
      planLaunch({ program, kernel: 'k', grid: [1, 1, 1], block: [32, 1, 1], args: ['a=f32[32]:file(/dev/zero)'] } as never, dir);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/not a regular file/);
  });
});
