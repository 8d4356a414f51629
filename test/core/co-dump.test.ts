import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { getEngine } from '../helpers/engine';
import { parseCroqtile } from '../../core/lang/croqtile/parser';
import { lowerCroqtile } from '../../core/lang/croqtile/lower';
import { makeLineIndex } from '../../core/lang/croqtile/positions';
import { printModule } from '../../core/ir/print';

it.skipIf(!process.env.CO_FILE)('dump croqtile', async () => {
  const text = readFileSync(process.env.CO_FILE!, 'utf8');
  const file = parseCroqtile(text);
  console.log(file.errors);
  const m = lowerCroqtile(file, text, makeLineIndex(text));
  console.log('era', m.era);
  console.log(printModule(m));
  const r = (await getEngine()).analyze(text, 'croqtile');
  console.log(r.findings.map((f) => `${f.range.start.line + 1}: ${f.code} ${f.message}`).join('\n'));
});
