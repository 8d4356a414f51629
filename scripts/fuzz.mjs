// Fuzz harness launcher: `npm run fuzz -- [options]` or `node scripts/fuzz.mjs [options]` (docs/fuzzing.md).
// Bundles the TypeScript harness (scripts/fuzz/) and its engine worker with esbuild into .fuzz/, as
// scripts/bench/sim.mjs does for its engine, then runs it. The lsp and dap surfaces start dist/cli.js,
// so `npm run build` must have run (npm run fuzz does it first).
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, '.fuzz');
const require = createRequire(path.join(root, 'package.json'));

async function bundle() {
  mkdirSync(outDir, { recursive: true });
  const webTreeSitterCjs = path.join(path.dirname(require.resolve('web-tree-sitter/tree-sitter.wasm')), 'tree-sitter.cjs');
  const result = await esbuild.build({
    entryPoints: { main: 'scripts/fuzz/main.ts', 'engine-worker': 'scripts/fuzz/engine-worker.ts' },
    outdir: outDir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'warning',
    absWorkingDir: root,
    plugins: [{ name: 'wts', setup: (b) => b.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: webTreeSitterCjs })) }],
  });
  // Written beside and renamed into place: two harnesses started at once (the smoke and the replay
  // tests) must never load a half-written bundle.
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}

if (!existsSync(path.join(root, 'dist', 'cli.js'))) {
  console.error('fuzz: dist/cli.js is missing; run "npm run build" first');
  process.exit(2);
}
await bundle();
const { main } = require(path.join(outDir, 'main.cjs'));
try {
  process.exitCode = await main(root, process.argv.slice(2));
} catch (e) {
  console.error(`fuzz: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 2;
}
