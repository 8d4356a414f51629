// Hover provider for Croqtile: the documentation of keywords and sync operations under the cursor,
// and the inferred protocol of an event (who triggers and waits where).
import type { HoverInfo, Position } from '../../api';
import { barrierProtocol } from '../../analysis/barrier-protocol';
import type { KernelModule } from '../../ir/types';
import { findCroqtileDoc, renderCroqtileDoc } from './api-docs';
import { makeLineIndex } from './positions';

export function hoverCroqtile(text: string, position: Position, module: KernelModule | undefined): HoverInfo | null {
  const lines = makeLineIndex(text);
  const offset = lines.offsetAt(position);
  let s = offset;
  let e = offset;
  while (s > 0 && /[\w.]/.test(text[s - 1])) s--;
  while (e < text.length && /[\w]/.test(text[e])) e++;
  if (s === e) return null;
  const word = text.slice(s, e);
  const range = { start: lines.position(s), end: lines.position(e) };
  const doc = findCroqtileDoc(word.replace(/^\./, ''), text.slice(e, e + 24));
  if (doc) return { markdown: renderCroqtileDoc(doc), range };
  if (module) {
    const protocol = barrierProtocol(module, word.split('.')[0], position);
    if (protocol) return { markdown: protocol, range };
  }
  return null;
}
