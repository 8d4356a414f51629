import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { parseCroqtile } from '../../core/lang/croqtile/parser';
import { lowerCroqtile } from '../../core/lang/croqtile/lower';
import { makeLineIndex } from '../../core/lang/croqtile/positions';
import { KernelFacts } from '../../core/analysis/facts';

it.skipIf(!process.env.CO_FILE)('run croqtile', async () => {
  const text = readFileSync(process.env.CO_FILE!, 'utf8');
  const m = lowerCroqtile(parseCroqtile(text), text, makeLineIndex(text));
  const f = new KernelFacts(m.kernels[0], m);
  const runs = f.runs();
  console.log('runs', runs?.length, m.kernels[0].launchBounds);
  for (const r of runs ?? []) {
    console.log('B', r.blockSize, 'uncertain', [...r.uncertain], 'inits', [...r.initializers].map(([k, v]) => `${k}:${v.count}x${v.threads.length}`).join(' '));
    for (const a of r.actors) console.log(a.threads.length, a.threads[0], a.events.map((e) => e.kind + ('key' in e ? e.key : '') + ('parity' in e ? `p${e.parity}` : '')).join(' ').slice(0, 300));
    console.log('deadlock', r.deadlock?.map((d) => `${d.event.key} phase ${d.phase} ${d.pending}/${d.expected} threads ${d.threads.length}`));
  }
});
