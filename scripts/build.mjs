// Bundles the three faces (VS Code client, language server, and the CLI from its composition root
// entry/phaseflip.ts) and their code-cache launchers with esbuild and copies the tree-sitter wasm files (runtime, CUDA and Python grammars) next to them.
// Usage: node scripts/build.mjs [--watch] [--minify]
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const require = createRequire(path.join(root, 'package.json'));
const watch = process.argv.includes('--watch');
const minify = process.argv.includes('--minify');

// web-tree-sitter 0.25 is an ES module whose "import" entry reads import.meta.url, which is empty in
// a CommonJS bundle. Its "require" entry (tree-sitter.cjs) uses __dirname instead; force that one.
const webTreeSitterCjs = path.join(path.dirname(require.resolve('web-tree-sitter/tree-sitter.wasm')), 'tree-sitter.cjs');
const webTreeSitterAsCjs = {
  name: 'web-tree-sitter-cjs',
  setup(build) {
    build.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: webTreeSitterCjs }));
  },
};

// The faces reach core through one door (core/index.ts), which re-exports every capability. Our own
// modules do nothing at import time that another module relies on, so tell esbuild that a module
// none of whose exports a bundle uses can be left out: the client then carries the simulator and the
// debugger but not the linter's rules and API documentation tables, as before the door existed.
const ownModulesArePure = {
  name: 'own-modules-are-pure',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData?.pure || args.importer.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const resolved = await build.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: { pure: true } });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      return { ...resolved, sideEffects: false };
    });
  },
};

// The launcher (entry/load-bundle.ts) reads a bundle made only of ASCII as Latin-1, several times faster than
// decoding UTF-8 (6 ms of a 2.9 MB bundle's start on a slow machine) and a one-byte string for V8. esbuild already
// escapes strings and templates; what it leaves are comments and regular-expression literals (`/[,x×]/`), where a
// `\uXXXX` escape means the same character. Columns of the source map shift on those few lines only.
function escapeNonAscii(file) {
  const text = readFileSync(file, 'utf8');
  // Every UTF-16 code unit above 0x7F (surrogates too) becomes its own escape; after a backslash it would not.
  const ascii = text.replace(/\\?[^\x00-\x7f]/g, (c) => {
    if (c.length > 1) throw new Error(`${file}: a backslash before ${c.slice(1)} cannot be made ASCII`);
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
  if (ascii !== text) writeFileSync(file, ascii);
}

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  minify,
  logLevel: 'warning',
  absWorkingDir: root,
  plugins: [webTreeSitterAsCjs, ownModulesArePure],
};

const targets = [
  { entryPoints: ['client/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] },
  { entryPoints: ['server/main.ts'], outfile: 'dist/server-main.js', ascii: true },
  { entryPoints: ['entry/phaseflip.ts'], outfile: 'dist/cli.js', ascii: true },
  // Small launchers that run the two bundles above through a V8 code cache (entry/load-bundle.ts): dist/server.js
  // for editors, dist/load-bundle.js for bin/phaseflip.js.
  { entryPoints: ['entry/server-launcher.ts'], outfile: 'dist/server.js' },
  { entryPoints: ['entry/load-bundle.ts'], outfile: 'dist/load-bundle.js' },
];

function copyWasm() {
  mkdirSync(dist, { recursive: true });
  const files = [
    require.resolve('web-tree-sitter/tree-sitter.wasm'),
    require.resolve('tree-sitter-cuda/tree-sitter-cuda.wasm'),
    require.resolve('tree-sitter-python/tree-sitter-python.wasm'),
  ];
  for (const file of files) copyFileSync(file, path.join(dist, path.basename(file)));
}

copyWasm();
/** esbuild's options for a target, and a plug-in that makes the bundles the launcher runs ASCII after each build. */
function options({ ascii, ...target }) {
  const asciiPlugin = {
    name: 'ascii-bundle',
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length === 0) escapeNonAscii(path.join(root, target.outfile));
      });
    },
  };
  return { ...common, ...target, plugins: ascii ? [...common.plugins, asciiPlugin] : common.plugins };
}

if (watch) {
  for (const t of targets) {
    const ctx = await esbuild.context(options(t));
    await ctx.watch();
  }
  console.log('phaseflip: watching for changes…');
} else {
  const started = Date.now();
  await Promise.all(targets.map((t) => esbuild.build(options(t))));
  console.log(`phaseflip: built ${targets.map((t) => t.outfile).join(', ')} in ${Date.now() - started} ms`);
}
