// Hover provider for tilus: the documentation of the tilus instruction or attribute under the cursor
// (`self.mbarrier.arrive`, `self.tma.global_to_shared`, `producer_initial_phase` …), and the inferred
// protocol of a barrier allocated with `self.mbarrier.alloc` (who arrives and waits where).
import type { HoverInfo, Position } from '../../api';
import { barrierProtocol } from '../../analysis/barrier-protocol';
import { offsetAt } from '../text-offsets';
import type { TilusFile } from './analyze';
import { tilusModule } from './analyze';
import { findTilusDoc, renderTilusDoc } from './api-docs';

export function hoverTilus(text: string, position: Position, file: TilusFile): HoverInfo | null {
  if (!file.tilus) return null;
  const offset = offsetAt(text, position);
  // The dotted chain under the cursor (`self.mbarrier.arrive`), and where the hovered name in it ends.
  let s = offset;
  let e = offset;
  while (s > 0 && /[\w.]/.test(text[s - 1]!)) s--;
  while (e < text.length && /\w/.test(text[e]!)) e++;
  if (s === e) return null;
  let chainEnd = e;
  while (chainEnd < text.length && /[\w.]/.test(text[chainEnd]!)) chainEnd++;
  const chain = text.slice(s, chainEnd);
  const hoveredEnd = e - s;
  // The shortest prefix of the chain that reaches the hovered name and is documented (`self.mbarrier.arrive` from `mbarrier`).
  const ends = [hoveredEnd];
  for (let i = chain.indexOf('.', hoveredEnd + 1); i >= 0; i = chain.indexOf('.', i + 1)) ends.push(i);
  ends.push(chain.length);
  for (const end of ends) {
    const doc = findTilusDoc(chain.slice(0, end).replace(/^\.+/, ''));
    if (doc) return { markdown: renderTilusDoc(doc), range: { start: positionAt(text, s), end: positionAt(text, s + end) } };
  }
  const dotted = text.slice(s, e).replace(/^\.+/, '');
  const range = { start: positionAt(text, s), end: positionAt(text, e) };
  const module = tilusModule(file);
  // A barrier: a local of the kernel (`tma_barriers`), or a field of a tilus.Class instance (`self.full_barriers`
  // inside the class, `pipe.full_barriers` in the kernel), whose IR name is `<instance>.<field>`.
  const parts = dotted.split('.');
  const field = parts.at(-1)!;
  const candidates = [dotted.replace(/^self\./, ''), field];
  for (const k of module.kernels) {
    for (const name of k.decls.keys()) {
      const bare = name.replace(/#\d+$/, '');
      if (candidates.includes(bare) || bare.endsWith(`.${field}`)) {
        const inKernel = position.line >= k.range.start.line && position.line <= k.range.end.line;
        const protocol = barrierProtocol({ ...module, kernels: [k] }, bare, inKernel ? position : k.range.start);
        if (protocol) return { markdown: protocol, range };
      }
    }
  }
  return null;
}

function positionAt(text: string, offset: number): Position {
  let line = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, character: offset - start };
}
