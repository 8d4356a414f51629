// How much parsed document text a front end keeps as syntax trees. A tree costs about 30 bytes of WASM
// memory per character of text, and WASM memory never shrinks: with many files open, the trees of those
// not used lately are freed and parsed again when next used (a keystroke in the open editor never waits
// for that; switching to a long-unused file costs one parse).
import type { ChunkedTree } from './chunks';

/** Characters of text kept parsed across the documents of a front end, besides the one in use. */
export const DEFAULT_TREE_BUDGET_CHARS = 256 * 1024;

export class TreeBudget {
  /** Awake trees, least recently used first (a Map iterates in insertion order). */
  private readonly awake = new Map<ChunkedTree, true>();

  constructor(private readonly budgetChars = DEFAULT_TREE_BUDGET_CHARS) {}

  /** How many documents' trees it tracks. */
  get size(): number {
    return this.awake.size;
  }

  /**
   * Marks `tree` as just used and puts the least recently used others to sleep while the total is over
   * budget. Call it before reading nodes of `tree` and when no other tree's nodes are held.
   */
  use(tree: ChunkedTree): void {
    this.awake.delete(tree);
    this.awake.set(tree, true);
    // The tree in use counts as awake: its reader is about to parse it if it sleeps.
    let total = 0;
    for (const t of this.awake.keys()) total += t.isAwake || t === tree ? t.size : 0;
    for (const t of this.awake.keys()) {
      if (total <= this.budgetChars + tree.size || t === tree) break;
      if (t.isAwake) total -= t.size;
      t.sleep();
      this.awake.delete(t);
    }
  }

  /** A disposed tree is no longer counted. */
  forget(tree: ChunkedTree): void {
    this.awake.delete(tree);
  }
}
