// Every input the fuzzer ever saved (test/fuzz-reproducers/<surface>/) is replayed through its surface
// by the harness (`scripts/fuzz.mjs --replay --json`) and must now pass: no internal error, no crash,
// no hang. A reproducer is added by the fuzzer; fixing its bug makes its test pass.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');
const dir = path.join(root, 'test', 'fuzz-reproducers');
const built = existsSync(path.join(root, 'dist', 'cli.js'));

/** The saved inputs, repository-relative, as the harness reports them. */
function savedInputs(): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((surface) =>
      readdirSync(path.join(dir, surface))
        .filter((n) => n.endsWith('.json'))
        .sort()
        .map((n) => path.posix.join('test', 'fuzz-reproducers', surface, (JSON.parse(readFileSync(path.join(dir, surface, n), 'utf8')) as { input: string }).input)),
    );
}

const inputs = savedInputs();

describe('fuzz reproducers replay', () => {
  const results = new Map<string, { verdict: string; ms: number; detail: string }>();
  let output = '';

  beforeAll(() => {
    if (!built || inputs.length === 0) return;
    const run = spawnSync(process.execPath, ['scripts/fuzz.mjs', '--replay', '--json'], { cwd: root, encoding: 'utf8', timeout: 170_000 });
    output = `${run.stdout}${run.stderr}`;
    for (const line of run.stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      const r = JSON.parse(line) as { file: string; verdict: string; ms: number; detail: string };
      results.set(r.file, r);
    }
  }, 180_000);

  if (inputs.length === 0) {
    it('replays the saved reproducers', (ctx) => {
      console.log(`fuzz reproducer replay skipped: no reproducers under ${path.relative(root, dir)}`);
      ctx.skip();
    });
  }
  for (const input of inputs) {
    it(`${input} passes`, (ctx) => {
      if (!built) {
        console.log('fuzz reproducer replay skipped: dist/cli.js is missing (npm test builds it first)');
        ctx.skip();
      }
      const result = results.get(input);
      expect(result, `no replay result for ${input}:\n${output.slice(-2000)}`).toBeDefined();
      expect(result?.verdict, `${input}: ${result?.detail}`).toBe('ok');
    });
  }
});
