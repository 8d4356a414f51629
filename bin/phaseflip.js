#!/usr/bin/env node
'use strict';
// Thin launcher: everything lives in the esbuild bundle dist/cli.js.
const path = require('node:path');
const fs = require('node:fs');

const bundle = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundle)) {
  process.stderr.write(
    `phaseflip: ${path.relative(process.cwd(), bundle) || bundle} is missing; run "npm run build" first\n`,
  );
  process.exit(2);
}
require(bundle);
