// False-positive guard for Croqtile: the compiler's own correct pipelines (tests/gpu/end2end and
// tests/gpu/codegen/cute at HEAD) must lint clean. Runs when PHASEFLIP_CROQTILE_REPO points at a
// checkout of LancerLab/croqtile; skips with a reason otherwise.
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEngine } from '../helpers/engine';

const repo = process.env.PHASEFLIP_CROQTILE_REPO;
const DIRS = ['tests/gpu/end2end', 'tests/gpu/codegen/cute'];

describe.skipIf(!repo)('Croqtile compiler pipelines lint clean', () => {
  it('has no finding in tests/gpu/end2end and tests/gpu/codegen/cute', async () => {
    const engine = await getEngine();
    const problems: string[] = [];
    let files = 0;
    for (const dir of DIRS) {
      for (const name of readdirSync(path.join(repo!, dir))) {
        if (!name.endsWith('.co')) continue;
        const text = readFileSync(path.join(repo!, dir, name), 'utf8');
        // Tests that expect the compiler to reject them are not correct pipelines.
        if (/_fail\.co$/.test(name) || /RUN:\s*not\b/.test(text)) continue;
        files++;
        const r = engine.analyze(text, 'croqtile');
        for (const f of r.findings) problems.push(`${dir}/${name}:${f.range.start.line + 1}: ${f.code} ${f.message}`);
        for (const e of r.syntaxProblems) problems.push(`${dir}/${name}:${e.range.start.line + 1}: syntax: ${e.message}`);
      }
    }
    console.log(`croqtile pipelines: ${files} files, ${problems.length} findings`);
    expect(files).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  }, 600_000);
});

if (!repo) console.log('Croqtile pipeline corpus test skipped: set PHASEFLIP_CROQTILE_REPO to a checkout of LancerLab/croqtile');
