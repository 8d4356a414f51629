#!/usr/bin/env node
'use strict';
// Thin launcher: everything lives in the esbuild bundle dist/cli.js, which dist/load-bundle.js runs through a V8
// code cache (entry/load-bundle.ts).
const path = require('node:path');
const fs = require('node:fs');

const bundle = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundle)) {
  process.stderr.write(
    `phaseflip: ${path.relative(process.cwd(), bundle) || bundle} is missing; run "npm run build" first\n`,
  );
  process.exit(2);
}
// One code cache per command: each caches the functions its own runs compile.
const face = ['sim', 'dap', 'lsp', 'lint'].includes(process.argv[2]) ? process.argv[2] : undefined;
require(path.join(__dirname, '..', 'dist', 'load-bundle.js')).runBundle(bundle, face);
