// Delta debugging (Zeller's ddmin, complement steps) for the fuzz harness: shrinks a failing input
// first by lines, then by characters, keeping every step that still fails the same way.

/** How many candidate runs minimisation may spend, and until when (a hang costs its whole limit per run). */
export interface MinimiseBudget {
  tests: number;
  deadline: number;
}

function within(budget: MinimiseBudget): boolean {
  return budget.tests > 0 && Date.now() < budget.deadline;
}

/** Removes chunks of `units` while `stillFails` holds, halving the chunk size when none can go. */
export async function ddmin<T>(units: T[], stillFails: (candidate: T[]) => Promise<boolean>, budget: MinimiseBudget): Promise<T[]> {
  let current = units;
  let granularity = 2;
  while (current.length >= 2 && within(budget)) {
    const chunk = Math.ceil(current.length / granularity);
    let reduced = false;
    for (let start = 0; start < current.length && within(budget); start += chunk) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)];
      budget.tests--;
      if (candidate.length > 0 && (await stillFails(candidate))) {
        current = candidate;
        granularity = Math.max(granularity - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (granularity >= current.length) break;
      granularity = Math.min(granularity * 2, current.length);
    }
  }
  return current;
}

/** Shrinks a failing text: lines first (cheap, large steps), then characters. */
export async function minimiseText(text: string, stillFails: (candidate: string) => Promise<boolean>, budget: MinimiseBudget): Promise<string> {
  const lines = await ddmin(text.split('\n'), (c) => stillFails(c.join('\n')), budget);
  const byLines = lines.join('\n');
  const chars = await ddmin([...byLines], (c) => stillFails(c.join('')), budget);
  return chars.join('');
}
