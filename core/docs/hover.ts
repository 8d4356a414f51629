// Placeholder wiring; replaced by the hover provider.
import type { HoverInfo, Position } from '../api';
import type { Tree } from '../lang/cuda/parser';

export function hoverCuda(_tree: Tree, _text: string, _position: Position): HoverInfo | null {
  return null;
}
