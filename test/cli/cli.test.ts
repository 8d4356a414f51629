// CLI tests: run bin/phaseflip.js (which loads the dist/cli.js bundle) as a user would.
// Tests marked [engine] need the rules from core/ to produce findings.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECTIVE_RULES, RULES } from '../../core/index';
import { CLI_JS, ROOT, requireBuild } from '../server/lsp-client';
import { CLEAN_KERNEL, PF105_KERNEL, PF105_LINE, bigSource, binaryBytes, nestedBraces } from '../server/kernels';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

let dir: string;

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI without blocking the test worker (spawnSync would starve vitest's worker RPC on the
 * slow cases); rejects if it outlives `timeout`.
 */
function phaseflip(args: string[], options: { cwd?: string; timeout?: number } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, ...args], { cwd: options.cwd ?? dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timeout = options.timeout ?? 30_000;
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`phaseflip ${args.join(' ')} did not finish within ${timeout} ms`));
    }, timeout);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

function write(rel: string, content: string | Buffer): string {
  const file = path.join(dir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return rel;
}

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-cli-'));
  write('proj/bugs/discarded.cu', PF105_KERNEL);
  write('proj/clean/ok.cu', CLEAN_KERNEL);
  write('proj/clean/ok.cuh', CLEAN_KERNEL);
  write('proj/clean/readme.txt', 'not cuda');
  write('proj/node_modules/dep/skip.cu', PF105_KERNEL);
  write('proj/.hidden/skip.cu', PF105_KERNEL);
  write('notes.txt', 'not cuda');
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('phaseflip (no lint)', () => {
  it('--help prints usage and exits 0', async () => {
    const r = await phaseflip(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('phaseflip lint');
    expect(r.stdout).toContain('--format text|json|sarif');
  });

  it('--version prints the package version', async () => {
    const r = await phaseflip(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('rules lists every registered rule', async () => {
    const r = await phaseflip(['rules']);
    expect(r.status).toBe(0);
    for (const rule of RULES) {
      expect(r.stdout).toMatch(new RegExp(`^${rule.meta.code}\\s+${rule.meta.id}\\s+${rule.meta.family}\\s+`, 'm'));
    }
    const json = JSON.parse((await phaseflip(['rules', '--format', 'json'])).stdout) as { code: string }[];
    expect(json.map((x) => x.code).sort()).toEqual([...RULES.map((x) => x.meta.code), ...DIRECTIVE_RULES.map((d) => d.code)].sort());
    expect(r.stdout).toMatch(/^PF000\s+unused-suppression\s+suppression\s+/m);
  });

  it('dap --help describes the debug adapter; stray arguments are a usage error (exit 2)', async () => {
    const help = await phaseflip(['dap', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: phaseflip dap\n/);
    expect(help.stdout).toContain('Debug Adapter Protocol');
    const bad = await phaseflip(['dap', 'extra']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^phaseflip: dap takes no arguments \(got extra\)/);
  });

  it('bin/phaseflip.js explains a missing build', async () => {
    const fake = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-nobuild-'));
    try {
      mkdirSync(path.join(fake, 'bin'));
      copyFileSync(CLI_JS, path.join(fake, 'bin', 'phaseflip.js'));
      const r = spawnSync(process.execPath, [path.join(fake, 'bin', 'phaseflip.js'), '--help'], { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('npm run build');
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });
});

describe('usage and I/O errors exit 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['no command', [], /Usage:/],
    ['unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['unknown flag', ['lint', '--frobnicate', 'proj'], /unknown option '--frobnicate'/],
    ['unknown format', ['lint', '--format', 'xml', 'proj'], /unknown format 'xml'/],
    ['missing format value', ['lint', '--format'], /--format needs a value/],
    ['bad --rule', ['lint', '--rule', 'PF105', 'proj'], /--rule expects ID=SEVERITY/],
    ['bad --rule severity', ['lint', '--rule=PF105=loud', 'proj'], /--rule expects ID=SEVERITY/],
    ['no paths', ['lint'], /no paths given/],
    ['missing path', ['lint', 'does/not/exist.cu'], /cannot read does\/not\/exist\.cu: no such file or directory/],
    ['unknown extension', ['lint', 'notes.txt'], /don't know how to lint notes\.txt/],
  ];
  it.each(cases)('%s', async (_name, args, message) => {
    const r = await phaseflip(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('internal error');
  });

  it('an unreadable path still lints the rest, then exits 2', async () => {
    const r = await phaseflip(['lint', '--format', 'json', 'missing', 'proj/clean']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cannot read missing');
    expect(JSON.parse(r.stdout).files).toHaveLength(2);
  });

  it('rejects an unknown rule id once rules are registered [engine]', async () => {
    expect(RULES.length).toBeGreaterThan(0);
    const r = await phaseflip(['lint', '--rule', 'no-such-rule=off', 'proj/clean']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("no rule with id or code 'no-such-rule'");
  });
});

describe('phaseflip lint', () => {
  it('walks directories over .cu/.cuh, skipping node_modules and dot directories', async () => {
    const r = await phaseflip(['lint', '--format', 'json', 'proj']);
    expect([0, 1]).toContain(r.status);
    const paths = (JSON.parse(r.stdout) as { files: { path: string }[] }).files.map((f) => f.path);
    expect(paths).toEqual(['proj/bugs/discarded.cu', 'proj/clean/ok.cu', 'proj/clean/ok.cuh']);
  });

  it('exits 0 with no output on a clean kernel, summary on stderr', async () => {
    const r = await phaseflip(['lint', 'proj/clean']);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('0 findings in 2 files\n');
    expect(r.status).toBe(0);
  });

  it('lints an explicitly named file', async () => {
    const r = await phaseflip(['lint', '--format=json', 'proj/clean/ok.cu']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ version: 1, files: [{ path: 'proj/clean/ok.cu', diagnostics: [] }] });
  });

  it('prints file:line:col: severity CODE message and exits 1 [engine]', async () => {
    const r = await phaseflip(['lint', 'proj/bugs']);
    expect(r.status).toBe(1);
    const line = r.stdout.split('\n').find((l) => l.includes(' PF105 '));
    expect(line, r.stdout).toMatch(new RegExp(`^proj/bugs/discarded\\.cu:${PF105_LINE + 1}:\\d+: (error|warning) PF105 \\S`));
    expect(r.stderr).toMatch(/^[1-9]\d* findings? in 1 file\n$/);
  });

  it('--rule PF105=off silences the finding; =information keeps it but exits 0 [engine]', async () => {
    const off = await phaseflip(['lint', '--rule', 'PF105=off', 'proj/bugs']);
    expect(off.stdout).not.toContain('PF105');
    const info = await phaseflip(['lint', '--rule', 'PF105=information', 'proj/bugs']);
    expect(info.stdout).toMatch(/: information PF105 /);
    const json = JSON.parse((await phaseflip(['lint', '--format', 'json', '--rule', 'PF105=information', 'proj/bugs'])).stdout);
    const diagnostics: { code: string; severity: string }[] = json.files[0].diagnostics;
    expect(diagnostics.filter((d) => d.code === 'PF105').map((d) => d.severity)).toEqual(['information']);
    // Only warnings and errors fail the run.
    const failing = diagnostics.some((d) => d.severity === 'error' || d.severity === 'warning');
    expect(info.status).toBe(failing ? 1 : 0);
  });

  it('JSON output has exactly the documented shape [engine]', async () => {
    const r = await phaseflip(['lint', '--format', 'json', 'proj/bugs', 'proj/clean']);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out).sort()).toEqual(['files', 'version']);
    expect(out.version).toBe(1);
    for (const file of out.files) {
      expect(Object.keys(file).sort()).toEqual(['diagnostics', 'path']);
      for (const d of file.diagnostics) {
        expect(Object.keys(d).sort()).toEqual(['code', 'family', 'message', 'range', 'related', 'severity']);
        expectLspRange(d.range);
        expect(['error', 'warning', 'information', 'hint']).toContain(d.severity);
        expect(['phase', 'bootstrap', 'commit', 'count']).toContain(d.family);
        for (const rel of d.related) {
          expect(Object.keys(rel).sort()).toEqual(['message', 'path', 'range']);
          expect(rel.path).toBe(file.path);
          expectLspRange(rel.range);
        }
      }
    }
    const bug = out.files.find((f: { path: string }) => f.path === 'proj/bugs/discarded.cu');
    const d = bug.diagnostics.find((x: { code: string }) => x.code === 'PF105');
    expect(d).toBeDefined();
    expect(d.range.start.line).toBe(PF105_LINE);
  });

  it('SARIF has the required 2.1.0 fields for the tool and its rules', async () => {
    const r = await phaseflip(['lint', '--format', 'sarif', 'proj/clean']);
    expect(r.status).toBe(0);
    const sarif = JSON.parse(r.stdout);
    expect(sarif.$schema).toMatch(/sarif.*2\.1\.0.*\.json$/);
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs).toHaveLength(1);
    const driver = sarif.runs[0].tool.driver;
    expect(driver).toMatchObject({ name: 'phaseflip', version: pkg.version });
    expect(driver.informationUri).toMatch(/^https:\/\//);
    expect(driver.rules.map((x: { id: string }) => x.id).sort()).toEqual([...RULES.map((x) => x.meta.code), ...DIRECTIVE_RULES.map((d) => d.code)].sort());
    for (const rule of driver.rules) {
      expect(rule.id).toMatch(/^PF\d{3}$/);
      expect(rule.name).toMatch(/^[a-z0-9-]+$/);
      expect(rule.shortDescription.text.length).toBeGreaterThan(0);
      expect(rule.helpUri).toMatch(/^https:\/\//);
      expect(['error', 'warning', 'note']).toContain(rule.defaultConfiguration.level);
    }
    expect(sarif.runs[0].results).toEqual([]);
  });

  it('SARIF results carry rule, level, message and 1-based relative locations [engine]', async () => {
    const r = await phaseflip(['lint', '--format', 'sarif', 'proj/bugs']);
    expect(r.status).toBe(1);
    const run = JSON.parse(r.stdout).runs[0];
    const result = run.results.find((x: { ruleId: string }) => x.ruleId === 'PF105');
    expect(result, r.stdout).toBeDefined();
    expect(run.tool.driver.rules[result.ruleIndex].id).toBe('PF105');
    expect(['error', 'warning']).toContain(result.level);
    expect(result.message.text.length).toBeGreaterThan(0);
    const loc = result.locations[0].physicalLocation;
    expect(loc.artifactLocation.uri).toBe('proj/bugs/discarded.cu');
    expect(loc.region.startLine).toBe(PF105_LINE + 1);
    for (const k of ['startLine', 'startColumn', 'endLine', 'endColumn']) {
      expect(Number.isInteger(loc.region[k]) && loc.region[k] >= 1).toBe(true);
    }
    for (const rel of result.relatedLocations ?? []) {
      expect(rel.physicalLocation.artifactLocation.uri).toBe('proj/bugs/discarded.cu');
      expect(rel.message.text.length).toBeGreaterThan(0);
    }
  });

  it('lints binary, invalid UTF-8 and deeply nested files without crashing', { timeout: 90_000 }, async () => {
    write('bad/binary.cu', binaryBytes(256 * 1024));
    write('bad/invalid-utf8.cu', Buffer.concat([Buffer.from(PF105_KERNEL), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82, 0x0a, 0xf0, 0x9f])]));
    write('bad/bom.cu', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(CLEAN_KERNEL)]));
    write('bad/deep.cu', nestedBraces(5000));
    write('bad/empty.cu', '');
    const r = await phaseflip(['lint', '--format', 'json', 'bad'], { timeout: 60_000 });
    expect(r.stderr).not.toContain('internal error');
    expect([0, 1]).toContain(r.status);
    expect(JSON.parse(r.stdout).files).toHaveLength(5);
  });

  // The bound is generous on purpose: almost all of the time is the engine's (reading and decoding
  // 10 MB takes milliseconds), and CI machines are slow and shared.
  it('lints a 10 MB file in reasonable time', { timeout: 300_000 }, async () => {
    write('huge/huge.cu', bigSource(10 * 1024 * 1024));
    const r = await phaseflip(['lint', '--format', 'json', 'huge'], { timeout: 290_000 });
    expect(r.stderr).not.toContain('internal error');
    expect([0, 1]).toContain(r.status);
    expect(JSON.parse(r.stdout).files).toHaveLength(1);
  });
});

function expectLspRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }) {
  expect(Object.keys(r).sort()).toEqual(['end', 'start']);
  for (const p of [r.start, r.end]) {
    expect(Object.keys(p).sort()).toEqual(['character', 'line']);
    expect(Number.isInteger(p.line) && p.line >= 0).toBe(true);
    expect(Number.isInteger(p.character) && p.character >= 0).toBe(true);
  }
}

describe('phaseflip ir', () => {
  it('prints the kernel IR of a CUDA file', async () => {
    const r = await phaseflip(['ir', 'proj/bugs/discarded.cu']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^kernel \w+/m);
    expect(r.stdout).toMatch(/wait-token bar=bar token=tok \(discarded\)/);
  });
  it('rejects files it does not know, and missing files, with exit 2', async () => {
    write('proj/notes.txt', 'hello');
    const bad = await phaseflip(['ir', 'proj/notes.txt']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/not a \.cu, \.cuh or \.co file/);
    const missing = await phaseflip(['ir', 'proj/missing.cu']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/cannot read 'proj\/missing\.cu'/);
  });
});

describe('headers', () => {
  // Host-only C++: no device code, no barrier API. A directory walk must not read it as a kernel.
  const HOST_ONLY = '#pragma once\n#include <vector>\ninline int twice(int x) { return 2 * x; }\n';

  it('a header named explicitly is linted as CUDA, whatever it holds', async () => {
    write('hdr/explicit/ring.hpp', PF105_KERNEL);
    write('hdr/explicit/host.h', HOST_ONLY);
    const r = await phaseflip(['lint', '--format', 'json', 'hdr/explicit/ring.hpp', 'hdr/explicit/host.h']);
    expect(r.status).toBe(1);
    const files = JSON.parse(r.stdout).files as { path: string; diagnostics: { code: string }[] }[];
    expect(files.map((f) => f.path)).toEqual(['hdr/explicit/ring.hpp', 'hdr/explicit/host.h']);
    expect(files[0].diagnostics.map((d) => d.code)).toContain('PF105');
    expect(files[1].diagnostics).toEqual([]);
  });

  it('a directory walk lints the headers that hold device code and skips host-only ones', async () => {
    write('hdr/tree/include/barrier.h', PF105_KERNEL);
    write('hdr/tree/include/detail/macros.inl', '#define CUTE_DEVICE __forceinline__ __device__\nCUTE_DEVICE int lane() { return threadIdx.x & 31; }\n');
    write('hdr/tree/include/host.hpp', HOST_ONLY);
    write('hdr/tree/src/notes.txt', 'not cuda');
    const r = await phaseflip(['lint', '--format', 'json', 'hdr/tree']);
    const files = JSON.parse(r.stdout).files as { path: string; diagnostics: { code: string }[] }[];
    expect(files.map((f) => f.path).sort()).toEqual(['hdr/tree/include/barrier.h', 'hdr/tree/include/detail/macros.inl']);
    expect(files.find((f) => f.path.endsWith('barrier.h'))!.diagnostics.map((d) => d.code)).toContain('PF105');
    expect(r.status).toBe(1);
  });

  it('phaseflip ir prints the IR of a header', async () => {
    write('hdr/ir/ring.cuh.hpp', PF105_KERNEL);
    const r = await phaseflip(['ir', 'hdr/ir/ring.cuh.hpp']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/wait-token bar=bar token=tok \(discarded\)/);
  });
});
