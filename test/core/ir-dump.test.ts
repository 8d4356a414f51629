import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { Parser, loadCudaLanguage } from '../../core/lang/cuda/parser';
import { lowerCudaNodes } from '../../core/lang/cuda/frontend';
import { printModule } from '../../core/ir/print';

it.skipIf(!process.env.IR_FILE)('dump', async () => {
  const lang = await loadCudaLanguage();
  const p = new Parser();
  p.setLanguage(lang);
  const text = readFileSync(process.env.IR_FILE!, 'utf8');
  const tree = p.parse(text)!;
  const r = lowerCudaNodes(tree.rootNode.namedChildren.filter((n): n is NonNullable<typeof n> => !!n), text);
  console.log(printModule(r.module));
  console.log(r.syntaxProblems);
});
