// Arrays the simulator's hot loops refill on every launch, made with the element kind they will hold.
// V8 gives a fresh `[]` small-integer elements; optimised code that has seen the array holding objects
// or doubles in an earlier launch then deoptimises ("not a Smi") on the first push of each new launch's
// array, and runs 2-4 of a kernel re-optimise the scheduler and the warp loop every time.

/** An empty array whose elements are objects from the start. */
export function objectArray<T extends object>(): T[] {
  const a: unknown[] = [null];
  a.length = 0;
  return a as T[];
}

/** An empty array whose elements are doubles from the start (simulated times pass the small-integer range). */
export function doubleArray(): number[] {
  const a = [0.5];
  a.length = 0;
  return a;
}
