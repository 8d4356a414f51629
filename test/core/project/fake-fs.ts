// An in-memory file system for the compile-flags tests: files by absolute path, directories implied
// by them, modification times that advance on every write (so the mtime cache can be exercised).
import * as path from 'node:path';
import type { FlagsFileSystem } from '../../../core/index';

export class FakeFileSystem implements FlagsFileSystem {
  private files = new Map<string, { text: string; mtimeMs: number }>();
  private clock = 1;
  reads: string[] = [];

  constructor(files: Record<string, string> = {}, private withStat = true) {
    for (const [p, text] of Object.entries(files)) this.write(p, text);
    if (!withStat) this.stat = undefined;
  }

  write(file: string, text: string): void {
    this.files.set(path.resolve(file), { text, mtimeMs: this.clock++ });
  }

  delete(file: string): void {
    this.files.delete(path.resolve(file));
  }

  readFile(file: string): string | undefined {
    this.reads.push(file);
    return this.files.get(path.resolve(file))?.text;
  }

  exists(p: string): boolean {
    const abs = path.resolve(p);
    if (this.files.has(abs)) return true;
    const prefix = abs.endsWith(path.sep) ? abs : abs + path.sep;
    for (const f of this.files.keys()) if (f.startsWith(prefix)) return true;
    return false;
  }

  stat?: (file: string) => { mtimeMs: number; size: number } | undefined = (file) => {
    const f = this.files.get(path.resolve(file));
    return f ? { mtimeMs: f.mtimeMs, size: f.text.length } : undefined;
  };
}
