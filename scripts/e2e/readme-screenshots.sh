#!/usr/bin/env bash
# Refreshes the README's screenshots from the end-to-end suite's artifacts (run `npm run test:e2e`
# first): a finding, a hover, a phase-flip stop and a deadlock stop, as a user sees them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
for name in finding hover phase-flip-stop deadlock-stop; do
  src="test/e2e/artifacts/$name.png"
  [[ -f "$src" ]] || { echo "missing $src: run npm run test:e2e first" >&2; exit 1; }
  cp "$src" "docs/images/$name.png"
  echo "docs/images/$name.png"
done
