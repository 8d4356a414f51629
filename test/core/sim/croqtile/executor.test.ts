// The Croqtile executor on small inline programs: co-mock's print format, typed arithmetic, tensor
// views, futures, events per era, and clear errors for bad input and unsupported constructs.
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../../core/sim/args';
import { simulateCroqtile } from '../../../../core/lang/croqtile/sim';
import type { SimulateRequest } from '../../../../core/sim/run';

function run(text: string, extra: Partial<SimulateRequest> & { argv?: string[] } = {}) {
  const { argv, ...rest } = extra;
  return simulateCroqtile({ file: 'inline.co', text, language: 'croqtile', args: argv?.map(parseArg), ...rest });
}

function program(body: string, name = 'f'): string {
  return `__co__ void ${name}() {\n${body}\n}\n`;
}

describe('printing and arithmetic', () => {
  it('prints like co-mock: space-separated, %g floats, true/false', () => {
    const r = run(program(`  f32 third = 1.0 / 3.0;\n  f64 big = 1234567.0;\n  println("x =", 7, third, big, 2.5, 3 > 2, 0.0001);`));
    expect(r.status).toBe('completed');
    expect(r.stdout).toBe('x = 7 0.333333 1.23457e+06 2.5 true 0.0001\n');
  });

  it('rounds to the declared type: f16, bf16, s32 wraparound, u8', () => {
    const r = run(program(`  f16 h = 0.1;\n  bf16 b = 0.1;\n  s32 x = 2147483647;\n  s32 y = x + 1;\n  u8 z = 300;\n  println(h, b, y, z);`));
    expect(r.stdout).toBe('0.0999756 0.100098 -2147483648 44\n');
  });

  it('keeps print output in program order across host code and launches', () => {
    const r = run(program(`  s32 [4] a;\n  println("before");\n  parallel p by 4 : block\n    a.at(p) = p * p;\n  println("after", a.at(3));`));
    expect(r.status).toBe('completed');
    expect(r.stdout).toBe('before\nafter 9\n');
  });
});

describe('tensors', () => {
  it('chunkat, subspan(...).at(...) and span select strided tiles', () => {
    const r = run(
      program(`  s32 [4, 6] m;
  foreach {i, j} in [4, 6]
    m.at(i, j) = i * 10 + j;
  with t in 3 {
    foreach t {
      v = m.chunkat(_, t);
      print(v.at(1, 1), v.span(1), "");
    }
  }
  w = m.subspan(2, 3).at(1, 1);
  println(w.at(0, 0), w.at(1, 2));`),
    );
    expect(r.status).toBe('completed');
    expect(r.stdout).toBe('11 2 13 2 15 2 23 35\n');
  });

  it('reports an out-of-bounds index with the tensor and the line', () => {
    const r = run(program(`  s32 [4] a;\n  a.at(4) = 1;`));
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/index 4 is out of bounds for dimension 0 \(extent 4\) of 'a'.*line 3/);
  });

  it('computes MMA products with each operand layout', () => {
    const r = run(
      program(`  s32 [2, 3] a;
  s32 [2, 3] b;
  s32 [2, 2] c;
  foreach {i, k} in [2, 3] {
    a.at(i, k) = i + k;
    b.at(i, k) = i * k + 1;
  }
  acc = mma.fill.s32 1;
  mma.row.row acc, a, b;
  mma.store acc, c;
  println(c.at(0, 0), c.at(0, 1), c.at(1, 0), c.at(1, 1));`),
    );
    // a = [[0,1,2],[1,2,3]], b = [[1,1,1],[1,2,3]]: a·bᵀ = [[3,8],[6,14]], plus the fill value 1.
    expect(r.stdout).toBe('4 9 7 15\n');
  });
});

describe('device execution', () => {
  it('runs async DMA with futures on the machine and waits them', () => {
    const r = run(
      program(`  s32 [2, 8] src;
  s32 [2, 8] dst;
  foreach {i, j} in [2, 8]
    src.at(i, j) = i * 100 + j;
  parallel p by 2 : block {
    f = dma.copy.async src.chunkat(p, _) => shared;
    wait f;
    dma.copy f.data => dst.chunkat(p, _);
  }
  println(dst.at(0, 7), dst.at(1, 3));`),
    );
    expect(r.status).toBe('completed');
    expect(r.stdout).toBe('7 103\n');
    expect(r.cycles).toBeGreaterThanOrEqual(600); // the copy took the bulk-copy latency
  });

  it('reports reading a copy before waiting it as a race', () => {
    const r = run(
      program(`  s32 [64] src;
  s32 [64] dst;
  parallel p by 1 : block {
    f = dma.copy.async src => shared;
    dma.copy f.data => dst;
    wait f;
  }`),
    );
    expect(r.status).toBe('race');
    expect(r.message).toMatch(/data race on shared/);
  });

  it('deadlocks without the bootstrap of a pending empty ring and names the event', () => {
    const text = program(`  s32 [4] data;
  parallel b by 1 : block {
    shared event full[2], empty[2];
    parallel wg by 2 : group-4, t by 128 : thread {
      inthreads.async (wg == 0) {
        foreach {k} in [4] {
          wait empty.at(k);
          trigger full.at(k);
        }
      }
      inthreads.async (wg == 1) {
        foreach {k} in [4] {
          wait full.at(k);
          trigger empty.at(k);
        }
      }
    }
  }`);
    const r = run(text);
    expect(r.status).toBe('deadlock');
    expect(r.report?.blocked?.map((b) => b.barrier).sort()).toEqual(['empty[0]', 'full[0]']);
    expect(r.message).toMatch(/empty\[0\]/);
    // With the generation-0 credits the same protocol completes: 4 full + 4 empty phases.
    const fixed = run(text.replace('shared event full[2], empty[2];', 'shared event full[2], empty[2] = ready;'));
    expect(fixed.status).toBe('completed');
    expect(fixed.phaseFlips).toBe(8);
  });

  it('gives the roles names from the program and counts a warpgroup trigger as 128 arrivals', () => {
    const r = run(
      program(`  parallel b by 1 : block {
    shared event e;
    parallel wg by 2 : group-4, t by 128 : thread {
      inthreads.async (wg == 0) { wait e; }
      inthreads.async (wg == 1) { }
    }
  }`),
    );
    expect(r.status).toBe('deadlock');
    expect(r.report?.blocked?.[0].label).toMatch(/wg == 0/);
    // Nobody triggers `e`: its default count is the 128 threads outside the first warpgroup.
    expect(r.barriers.find((b) => b.label === 'e')?.state.expected).toBe(128);
  });

  it('runs the same protocol to the same result under every schedule', () => {
    const text = program(`  s32 [2] out;
  parallel b by 1 : block {
    shared event full[1], empty[1] = ready;
    shared s32 [1] box;
    parallel wg by 2 : group-4, t by 128 : thread {
      inthreads.async (wg == 0) {
        foreach {k} in [5] {
          wait empty.at(k);
          box.at(0) = k + 1;
          trigger full.at(k);
        }
      }
      inthreads.async (wg == 1) {
        mutable int sum = 0;
        foreach {k} in [5] {
          wait full.at(k);
          sum = sum + box.at(0);
          trigger empty.at(k);
        }
        out.at(0) = sum;
      }
    }
  }
  println(out.at(0));`);
    for (const schedule of ['round-robin', 'random', 'adversarial'] as const) {
      const r = run(text, { schedule, seed: 7 });
      expect(r.status, r.message).toBe('completed');
      expect(r.stdout).toBe('15\n');
    }
  });
});

describe('bad input', () => {
  it('stops at unsupported constructs with the construct and the line', () => {
    const r = run(program(`  s32 x = 1;\n  __cpp__("x++;");`));
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/^not supported by the simulator: inline C\+\+\/asm .* at line 3$/);
  });

  it('reports division by zero, undefined names and syntax errors clearly', () => {
    expect(run(program('  s32 z = 0;\n  s32 y = 4 / z;')).message).toMatch(/integer division by zero \(line 3\)/);
    expect(run(program('  println(nope);')).message).toMatch(/'nope' is not defined \(line 2\)/);
    const bad = run('__co__ void f() {\n  s32 x = ;\n}\n');
    expect(bad.status).toBe('error');
    expect(bad.message).toMatch(/syntax errors, nothing was run\n {2}line 2:/);
  });

  it('stops an endless host loop at the step budget', () => {
    const r = run(program('  mutable int i = 0;\n  while (i >= 0) i = 1;'), { maxSteps: 5000 });
    expect(r.status).toBe('step-limit');
  });

  it('stops an endless device loop at the step budget', () => {
    const r = run(program('  parallel p by 2 : block {\n    mutable int i = 0;\n    while (i >= 0) i = 1;\n  }'), { maxSteps: 5000 });
    expect(r.status).toBe('step-limit');
  });

  it('lists the candidates when the entry point is ambiguous', () => {
    const text = `${program('  println(1);', 'a')}${program('  println(2);', 'b')}`;
    expect(run(text).message).toMatch(/2 __co__ functions \(a, b\): choose one with --kernel/);
    expect(run(text, { kernel: 'b' }).stdout).toBe('2\n');
    expect(run(text, { kernel: 'c' }).message).toMatch(/no __co__ function 'c' \(it has: a, b\)/);
  });

  it('binds symbolic dimensions from the arguments and rejects mismatches', () => {
    const text = `__co__ void g(global s32 [M, K] a, global s32 [N, K] b) {\n  println(M, N, K);\n}\n`;
    expect(run(text, { argv: ['a=s32[2,8]', 'b=s32[3,8]'] }).stdout).toBe('2 3 8\n');
    const bad = run(text, { argv: ['a=s32[2,8]', 'b=s32[3,4]'] });
    expect(bad.status).toBe('error');
    expect(bad.message).toMatch(/dimension 1 of 'b' must be 8 \(K = 8, bound by an earlier argument\), not 4/);
    expect(run(text, { argv: ['a=s32[2,8]'] }).message).toMatch(/needs the argument 'b': give --arg b=s32\[N,K\]/);
    expect(run(text, { argv: ['a=f32[2,8]', 'b=s32[3,8]'] }).message).toMatch(/'a' holds s32, not f32/);
  });
});
