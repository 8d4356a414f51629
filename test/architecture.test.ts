// Enforces the invariants stated in ARCHITECTURE.md.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEngine } from './helpers/engine';

const root = path.join(__dirname, '..');

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, dir))) {
    const rel = path.join(dir, name);
    if (statSync(path.join(root, rel)).isDirectory()) out.push(...tsFiles(rel));
    else if (name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

describe('architecture', () => {
  it('core/ never imports editor or protocol packages', () => {
    const banned = /from\s+['"](vscode|vscode-languageserver[^'"]*|vscode-languageclient[^'"]*|@vscode\/debugadapter[^'"]*|vscode-jsonrpc)['"]/;
    const offenders = tsFiles('core').filter((f) => banned.test(readFileSync(path.join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('dependencies point one way: core/ never imports a face', () => {
    const face = /from\s+['"](\.\.\/)+(server|client|cli|debugger)\//;
    const offenders = tsFiles('core').filter((f) => face.test(readFileSync(path.join(root, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('every source file opens with a comment saying what it is for', () => {
    const files = ['core', 'server', 'cli', 'client'].flatMap((d) => tsFiles(d));
    const missing = files.filter((f) => !/^\s*(\/\/|\/\*)/.test(readFileSync(path.join(root, f), 'utf8')));
    expect(missing).toEqual([]);
  });

  it('the front end never throws, whatever the input', async () => {
    const engine = await getEngine();
    const inputs = [
      '',
      '\u0000\u0001\u0002binary\uFFFD\uFFFD',
      '__global__ void k( { asm("mbarrier.arrive [%0]" :: "r"(',
      '{'.repeat(3000) + '}'.repeat(3000),
      `__global__ void k(){ ${'if (threadIdx.x) {'.repeat(400)} cuda::ptx::mbarrier_arrive(&b); ${'}'.repeat(400)} }`,
      'template<int S> __global__ void k(){ __shared__ uint64_t b[S]; while(!cuda::ptx::mbarrier_try_wait_parity(&b[S], 0)); }',
    ];
    for (const text of inputs) {
      expect(() => engine.analyze(text, 'cuda')).not.toThrow();
    }
  });
});
