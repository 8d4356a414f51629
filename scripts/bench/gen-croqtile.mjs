// Generates Croqtile (.co) files of a given length for the benches and tests: warp-specialised 1P1C
// `__co__` pipelines in current syntax, each with distinct names.

/** One warp-specialised 1P1C pipeline per function (current era), with distinct names. */
function pipeline(i) {
  const stages = 2 + (i % 3);
  return `// Pipeline ${i}: one producer warpgroup fills a ${stages}-slot ring, one consumer warpgroup reduces it.
__co__ void pipe_${i}(global f16 [M, K] lhs, global f16 [N, K] rhs, global f16 [M, N] output) {
  parallel {block_m, block_n} by [cdiv(M, 64), cdiv(N, 64)] : block {
    shared event full[${stages}], empty[${stages}] = ready;
    shared f16 [64, 64] lhs_s[${stages}];
    shared f16 [64, 64] rhs_s[${stages}];
    shared f16 [64, 64] out_s;
    parallel p by 2 : group-4, t by 128 : thread {
      inthreads.async (p == 0) {
        foreach {iv_k} in [cdiv(K, 64)] {
          stage = iv_k % ${stages};
          wait empty.at(iv_k);
          la = tma.copy.async lhs.chunkat(block_m, iv_k) => lhs_s[stage];
          lb = tma.copy.async rhs.chunkat(block_n, iv_k) => rhs_s[stage];
          trigger full.at(iv_k) after la, lb;
        }
      }
      inthreads.async (p == 1) {
        acc = mma.fill.f16 0.0f;
        foreach {iv_k} in [cdiv(K, 64)] {
          stage = iv_k % ${stages};
          wait full.at(iv_k);
          mma.row.row acc, lhs_s[stage], rhs_s[stage];
          trigger empty.at(iv_k);
        }
        mma.store acc, out_s;
        dma.copy out_s => output.subspan(64, 64).at(block_m, block_n);
      }
    }
  }
}

`;
}

export function generateCroqtile(lines, seed = 0) {
  let text = '#include "choreo.h"\n\n';
  let n = 3;
  for (let i = seed; n < lines; i++) {
    const chunk = pipeline(i);
    text += chunk;
    n += chunk.split('\n').length - 1;
  }
  return text;
}
