#!/bin/bash
# Builds every runnable examples/{good,bugs} kernel with harness.cu and runs it on the local GPU.
# Usage: examples/gpu-check/run.sh [build-dir]   (needs nvcc and an sm_90 GPU; sm_100a kernels are skipped)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/build}"
mkdir -p "$out"
for kind in good bugs; do
  for f in "$here"/../$kind/*.cu; do
    grep -q 'sm_100a' "$f" && continue
    name="${kind}_$(basename "$f" .cu)"
    kernel=$(grep -oP '__global__ void (__launch_bounds__\(\d+\) )?\K\w+' "$f" | head -1)
    block=$(grep -oP '__launch_bounds__\(\K\d+' "$f" | head -1)
    nvcc -std=c++17 -arch=sm_90a -O2 -DKFILE="\"$f\"" -DKERNEL="$kernel" -DBLOCK="$block" \
      "$here/harness.cu" -o "$out/$name" || echo "BUILD FAILED $name"
  done
done
for g in "$out"/good_*; do
  [[ "$g" == *.bin ]] && continue
  printf '%-45s ' "$(basename "$g")"; timeout 20 "$g" "$g.bin"; echo "  rc=$?"
done
for b in "$out"/bugs_*; do
  [[ "$b" == *.bin ]] && continue
  good="$out/good_${b##*/bugs_}"
  printf '%-45s ' "$(basename "$b")"; timeout 15 "$b" "$b.bin"; rc=$?
  printf '  rc=%s' "$rc"
  [ -f "$b.bin" ] && { cmp -s "$b.bin" "$good.bin" && printf ' same-as-good' || printf ' DIFFERS-from-good'; }
  echo
done
