// The store of minimised failing inputs: test/fuzz-reproducers/<surface>/<hash>.<ext> with a small
// JSON beside it saying what happened. The hash is the failure's signature's, so one failure class is
// saved once however often the fuzzer meets it, and a later run does not save it again.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { LaunchDescription } from '../../core/index';
import type { Verdict } from './outcome';
import type { SurfaceName } from './surface';

/** What the JSON beside a reproducer says: enough to replay it and to know where it came from. */
export interface ReproducerRecord {
  surface: SurfaceName;
  /** The input file beside this record (source text, or raw DAP bytes). */
  input: string;
  language?: 'cuda' | 'croqtile';
  verdict: Verdict;
  signature: string;
  detail: string;
  ms: number;
  limitMs: number;
  seed: number;
  /** Mutations applied to the original input, and which file that was. */
  mutations?: string[];
  origin?: string;
  /** sim: the launch (its file name gives the language). */
  launch?: LaunchDescription;
  /** lsp: the request that failed on the document. */
  request?: { method: string; line: number; character: number };
  /** Whether replaying the saved input alone showed the failure again when it was saved. */
  replayed: boolean;
}

export interface SavedReproducer {
  record: ReproducerRecord;
  recordPath: string;
  inputPath: string;
}

export class ReproducerStore {
  private readonly seen = new Set<string>();

  constructor(readonly dir: string) {
    for (const r of loadReproducers(dir)) this.seen.add(r.record.signature);
  }

  /** Whether a failure of this signature is already saved (in this run or an earlier one). */
  has(signature: string): boolean {
    return this.seen.has(signature);
  }

  save(record: Omit<ReproducerRecord, 'input'>, input: string | Buffer, extension: string): string {
    const hash = createHash('sha1').update(record.signature).digest('hex').slice(0, 12);
    const folder = path.join(this.dir, record.surface);
    mkdirSync(folder, { recursive: true });
    const inputName = `${hash}.${extension}`;
    writeFileSync(path.join(folder, inputName), input);
    const full: ReproducerRecord = { ...record, input: inputName, detail: record.detail.slice(0, 2000) };
    writeFileSync(path.join(folder, `${hash}.json`), `${JSON.stringify(full, null, 2)}\n`);
    this.seen.add(record.signature);
    return path.join(folder, inputName);
  }
}

/** Every saved reproducer under `dir`, in a stable order. */
export function loadReproducers(dir: string): SavedReproducer[] {
  if (!existsSync(dir)) return [];
  const out: SavedReproducer[] = [];
  for (const surface of readdirSync(dir).sort()) {
    const folder = path.join(dir, surface);
    if (!statSync(folder).isDirectory()) continue;
    for (const name of readdirSync(folder).filter((n) => n.endsWith('.json')).sort()) {
      const recordPath = path.join(folder, name);
      const record = JSON.parse(readFileSync(recordPath, 'utf8')) as ReproducerRecord;
      out.push({ record, recordPath, inputPath: path.join(folder, record.input) });
    }
  }
  return out;
}
