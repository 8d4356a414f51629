// flagsForFile on the real file system (a temporary project): discovery, and the cache noticing an
// edited compile_commands.json by its modification time.
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clearCompileFlagsCache, flagsForFile } from '../../../core/index';

const root = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-flags-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('flagsForFile on disk', () => {
  it('finds build/compile_commands.json and re-reads it when it changes', () => {
    clearCompileFlagsCache();
    mkdirSync(path.join(root, 'build'));
    mkdirSync(path.join(root, 'src'));
    const dbPath = path.join(root, 'build', 'compile_commands.json');
    const kernel = path.join(root, 'src', 'k.cu');
    writeFileSync(kernel, '__global__ void k() {}\n');
    const write = (define: string, mtime: number) => {
      writeFileSync(dbPath, JSON.stringify([{ directory: path.join(root, 'build'), file: kernel, command: `nvcc -I../include -D${define} -c ${kernel}` }]));
      utimesSync(dbPath, mtime, mtime);
    };
    write('FIRST', 1_000_000);
    const first = flagsForFile(kernel);
    expect(first.includeDirs).toEqual([path.join(root, 'include')]);
    expect(first.defines).toEqual([['FIRST', '1']]);
    expect(first.source).toBe(`compile_commands.json (${dbPath})`);
    write('SECOND', 2_000_000);
    expect(flagsForFile(kernel).defines).toEqual([['SECOND', '1']]);
    // A relative file name resolves against cwd.
    expect(flagsForFile(path.relative(process.cwd(), kernel)).defines).toEqual([['SECOND', '1']]);
  });
});
