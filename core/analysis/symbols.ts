// Barrier declarations for the document outline: every variable some barrier operation uses.
import type { BarrierSymbol } from '../api';
import type { KernelModule } from '../ir/types';
import { visitStmts } from './facts';

export function barrierSymbols(module: KernelModule): BarrierSymbol[] {
  const out: BarrierSymbol[] = [];
  const seen = new Set<string>();
  for (const k of module.kernels) {
    const bases = new Set<string>();
    visitStmts(k.body, (s) => {
      if (s.kind === 'op' && s.op.barrier) bases.add(s.op.barrier.base);
    });
    for (const b of bases) {
      const d = k.decls.get(b);
      if (!d || d.space === 'param') continue;
      const key = `${d.nameRange.start.line}:${d.nameRange.start.character}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const name = d.name.replace(/#\d+$/, '');
      out.push({
        name,
        detail: `${d.space === 'shared' ? '__shared__ ' : ''}${d.type}${d.length !== undefined ? `[${d.length}]` : ''} · ${k.name}`,
        range: d.range,
        selectionRange: d.nameRange,
      });
    }
  }
  return out;
}
