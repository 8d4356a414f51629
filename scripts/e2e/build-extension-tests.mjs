// Compiles the extension tests (test/extension/index.ts and suite/*.ts) into test/extension/out/
// for a VS Code extension host: CommonJS, `vscode` left to the host, mocha loaded from node_modules
// (one instance shared by the index and the suites, so `describe`/`it` reach the runner).
import { readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const source = path.join(root, 'test', 'extension');
export const outDir = path.join(source, 'out');

// mocha 12 is an ES module whose CommonJS build is lib/mocha.cjs; require that one directly.
const mochaAsCjs = {
  name: 'mocha-cjs',
  setup(build) {
    build.onResolve({ filter: /^mocha$/ }, () => ({ path: 'mocha/lib/mocha.cjs', external: true }));
  },
};

export async function buildExtensionTests() {
  const started = Date.now();
  rmSync(outDir, { recursive: true, force: true });
  const suites = readdirSync(path.join(source, 'suite')).filter((f) => f.endsWith('.ts')).map((f) => path.join(source, 'suite', f));
  await esbuild.build({
    entryPoints: [path.join(source, 'index.ts'), ...suites],
    outdir: outDir,
    outbase: source,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    external: ['vscode'],
    plugins: [mochaAsCjs],
    logLevel: 'warning',
    absWorkingDir: root,
  });
  console.log(`phaseflip: built extension tests into ${path.relative(root, outDir)} in ${Date.now() - started} ms`);
  return path.join(outDir, 'index.js');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildExtensionTests();
}
