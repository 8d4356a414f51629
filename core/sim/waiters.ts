// The threads blocked on each object (a barrier, a sync point), in the order they blocked: what the
// machine's wake-up walks when the object changes. Lists are reused from phase to phase and filled by
// index with a count, because an array shortened with `length` gets a new, smaller store from V8
// and a barrier's list empties and refills at every phase.
import type { SimThread } from './machine-types';

/** Emptied lists kept for reuse: about one per barrier in flight (a few per resident block). */
const MAX_SPARE_LISTS = 256;

class WaiterList {
  private readonly items: SimThread[] = [];
  length = 0;
  push(t: SimThread): void {
    this.items[this.length++] = t;
  }
  at(i: number): SimThread {
    return this.items[i];
  }
  set(i: number, t: SimThread): void {
    this.items[i] = t;
  }
}

export class WaiterLists {
  private readonly lists = new Map<object, WaiterList>();
  // The first `spares` entries (a count: popping would shrink the array's store).
  private readonly spare: WaiterList[] = [];
  private spares = 0;
  /** Stamps a pass over a list, to drop a thread listed twice (a stale entry and a current one). */
  private pass = 0;

  /** `t` blocked on `on`. */
  add(on: object, t: SimThread): void {
    const ws = this.lists.get(on);
    if (ws) ws.push(t);
    else {
      const list = this.spares ? this.spare[--this.spares] : new WaiterList();
      list.push(t);
      this.lists.set(on, list);
    }
  }

  /** `on` goes away (with its block): its list is dropped (kept for reuse). */
  forget(on: object): void {
    const ws = this.lists.get(on);
    if (!ws) return;
    this.lists.delete(on);
    ws.length = 0;
    this.keep(ws);
  }

  private keep(ws: WaiterList): void {
    if (this.spares < MAX_SPARE_LISTS) this.spare[this.spares++] = ws;
  }

  /**
   * `on` changed: `resume` each thread still blocked on it whose wait is now ready, in the order they
   * blocked; the others stay listed, in order.
   */
  wake(on: object, resume: (t: SimThread) => void): void {
    const ws = this.lists.get(on);
    if (!ws) return;
    const pass = ++this.pass;
    let kept = 0;
    for (let i = 0; i < ws.length; i++) {
      const t = ws.at(i);
      if (t.status !== 'blocked' || t.wait?.on !== on || t.wakePass === pass) continue;
      t.wakePass = pass;
      if (t.wait.ready()) resume(t);
      else ws.set(kept++, t);
    }
    ws.length = kept;
    if (!kept) {
      this.lists.delete(on);
      this.keep(ws);
    }
  }
}
