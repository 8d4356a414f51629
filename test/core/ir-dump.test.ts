import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { Parser, loadCudaLanguage } from '../../core/lang/cuda/parser';
import { lowerCudaTree } from '../../core/lang/cuda/frontend';
import { printModule } from '../../core/ir/print';

it.skipIf(!process.env.IR_FILE)('dump', async () => {
  const lang = await loadCudaLanguage();
  const p = new Parser();
  p.setLanguage(lang);
  const r = lowerCudaTree(p.parse(readFileSync(process.env.IR_FILE!, 'utf8'))!);
  console.log(printModule(r.module));
  console.log(r.syntaxProblems);
});
