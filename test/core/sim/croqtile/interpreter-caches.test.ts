// The Croqtile interpreter's fast paths keep the language's scoping and the machine's scheduling exact: variable
// reads and writes go through per-site caches of where a name was found (interp.ts, expressions.ts), loop indices and
// small integers are shared scalars, and a loop whose body cannot block runs in a resumable plain function that a
// device thread leaves and re-enters at its budget (interp.ts runLightLoop). Each program below is built so that a
// stale cache or a lost loop position prints a different answer; the expected outputs are worked out by hand.
import { describe, expect, it } from 'vitest';
import { simulateCroqtile } from '../../../../core/lang/croqtile/sim';

function run(text: string) {
  return simulateCroqtile({ file: 'inline.co', text, language: 'croqtile', args: [] });
}

describe('variable caches', () => {
  it('a declaration made after a read in the same loop body shadows the outer variable from then on', () => {
    const r = run(`__co__ void f() {
  mutable s32 x = 1;
  mutable s32 out = 0;
  foreach i in 3 {
    out = out * 10 + x;
    s32 x = 5 + i;
    out = out * 10 + x;
  }
  println(out, x);
}
`);
    expect(r.status, r.message).toBe('completed');
    // Each iteration starts without the inner x: 1 then 5, 1 then 6, 1 then 7; the outer x stays 1.
    expect(r.stdout).toBe('151617 1\n');
  });

  it('an assignment writes the outer variable until a declaration shadows it, then the inner one', () => {
    const r = run(`__co__ void f() {
  mutable s32 y = 0;
  mutable s32 inner = 0;
  foreach i in 3 {
    y = y + 1;
    s32 y = 100 * i;
    y = y + 1;
    inner = inner + y;
  }
  println(y, inner);
}
`);
    expect(r.status, r.message).toBe('completed');
    // The outer y counts the iterations; the inner ones are 1, 101, 201.
    expect(r.stdout).toBe('3 303\n');
  });

  it('an assignment of another type converts to the variable type every time', () => {
    const r = run(`__co__ void f() {
  mutable f32 z = 0.5;
  mutable s32 n = 0;
  foreach i in 4 {
    z = i;
    n = z * 1.5;
  }
  println(z / 2, n);
}
`);
    expect(r.status, r.message).toBe('completed');
    // z holds the f32 value 3 (not the s32 3: 3 / 2 would be 1); n = trunc(4.5) = 4.
    expect(r.stdout).toBe('1.5 4\n');
  });

  it('device threads see the value a host variable has at each launch of the same parallel', () => {
    const r = run(`__co__ void f() {
  global s32 [3, 2] out;
  mutable s32 h = 0;
  foreach r in 3 {
    h = (r + 1) * 10;
    parallel p by 1 : block {
      parallel t by 2 : thread {
        out.at(r, t) = h + t;
      }
    }
  }
  println(out.at(0, 0), out.at(0, 1), out.at(1, 0), out.at(2, 1));
}
`);
    expect(r.status, r.message).toBe('completed');
    expect(r.stdout).toBe('10 11 20 31\n');
  });

  it('threads of one block keep their own locals while they interleave statement by statement', () => {
    // 8 threads × 100 iterations: each thread's loop is suspended at its budget many times, and the
    // variable caches of the loop body's sites switch between the threads' scopes at every resumption.
    const r = run(`__co__ void f() {
  global s32 [8] out;
  parallel p by 1 : block {
    parallel t by 8 : thread {
      mutable s32 acc = t;
      foreach k in 100 {
        acc = acc * 3 + k;
        acc = acc % 1000003;
      }
      out.at(t) = acc;
    }
  }
  println(out.at(0), out.at(5), out.at(7));
}
`);
    expect(r.status, r.message).toBe('completed');
    const expected = [0, 5, 7].map((t) => {
      let acc = t;
      for (let k = 0; k < 100; k++) acc = ((acc * 3 + k) % 1000003) | 0;
      return acc;
    });
    expect(r.stdout).toBe(`${expected.join(' ')}\n`);
    // Every statement of every thread ran once per iteration: 8 × (1 + 1 + 100 × 2 + 1) device statements.
    expect(r.message).toMatch(/ran 1,632 statements/);
  });
});

describe('loops', () => {
  it('a two-dimensional foreach with ranges and steps visits the same indices in the same order', () => {
    const r = run(`__co__ void f() {
  mutable s64 trace = 0;
  mutable s32 count = 0;
  with {a, b} in [4, 7] {
    foreach a(1:), b(-6:6:2) {
      trace = trace * 7 + a * 5 + b;
      count = count + 1;
    }
  }
  println(count, trace);
}
`);
    expect(r.status, r.message).toBe('completed');
    // a in 1..3; b from 7 - 6 = 1 below 6 by 2: 1, 3, 5 (the last dimension fastest).
    let trace = 0;
    let count = 0;
    for (let a = 1; a < 4; a++) {
      for (let b = 1; b < 6; b += 2) {
        trace = trace * 7 + a * 5 + b;
        count++;
      }
    }
    expect(r.stdout).toBe(`${count} ${trace}\n`);
  });

  it('a loop index cast to a float keeps its sign and value (shared index scalars carry no -0)', () => {
    const r = run(`__co__ void f() {
  mutable f64 s = 0;
  foreach i in 3 {
    f64 x = i;
    s = s + x * -1;
  }
  println(s);
}
`);
    expect(r.status, r.message).toBe('completed');
    expect(r.stdout).toBe('-3\n');
  });
});
