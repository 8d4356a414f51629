// The compiled-program cache: a debugging session launches the same kernel again and again (restart,
// a relaunch after a breakpoint change, the debugger's replays for time travel, the language server's
// runs), so a process keeps the last few compiles and a request whose inputs are unchanged reuses one
// instead of parsing and compiling again (and V8 keeps the closures it already optimised). Compiled
// code holds no state a run writes (runtime.ts RunStorage), so one compile serves any number of runs,
// alive together or one after another.
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { SimulateRequest } from '../../../sim/run';
import type { CudaUnit } from '../unit';

/** How many compiles of each kind a process keeps (the least recently used one goes first). */
const MAX_COMPILED = 4;

/** A bounded least-recently-used map from compile keys to compiles, with hit and miss counts. */
export class CompileCache<T> {
  private readonly entries = new Map<string, T>();
  hits = 0;
  misses = 0;

  get(key: string): T | undefined {
    const e = this.entries.get(key);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(key);
    this.entries.set(key, e);
    return e;
  }

  set(key: string, value: T): void {
    this.entries.set(key, value);
    while (this.entries.size > MAX_COMPILED) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * What a compile of `req` reads, as one digest: what is compiled (`what`: a kernel's name with its
 * template arguments, or the whole program), the file's name, the compile options, and the text of every
 * file of the translation unit as read now (the file, then each header, written and preprocessed), so an
 * edited header or define compiles again.
 */
export function compileKey(what: string, req: SimulateRequest, unit: CudaUnit): string {
  const h = createHash('sha256');
  const part = (s: string | undefined) => {
    h.update(s === undefined ? '\u0001' : `${s.length}:`);
    if (s !== undefined) h.update(s);
  };
  part(what);
  part(req.file ? path.resolve(req.file) : undefined);
  part(JSON.stringify(req.compile ?? null));
  for (const f of unit.tu.files) {
    part(f.path);
    part(f.text);
    part(f.pre.parseText);
    part(f.pre.beforeGrammarGaps);
  }
  part(unit.parseText);
  part(JSON.stringify(unit.tu.missing));
  return h.digest('hex');
}
