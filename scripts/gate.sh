#!/usr/bin/env bash
# The pre-commit gate: patched tree, KUnit on every arch, the end-to-end
# runs, then one verdict (scripts/gate.py).  Every arch runs even when an
# earlier one failed, so the summary covers them all.
#
#   scripts/gate.sh [arch...]        (default: KGATE_ARCHES of scripts/lib.sh)
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
BUILD=${BUILD:-$REPO/build}
export BUILD
arches=("$@")
[ ${#arches[@]} -gt 0 ] || read -ra arches <<<"$KGATE_ARCHES"
results=$BUILD/results
mkdir -p "$results"
rm -f "$results/summary" "$results/verdict.json"

if ! "$REPO/scripts/tree.sh"; then
	echo "gate: the patched tree could not be prepared (above)"
	echo "0 passed, 1 failed" | tee "$results/summary"
	exit 1
fi

# Stale results of an earlier run must never count for this one.
for arch in "${arches[@]}"; do
	rm -f "$results/$arch.json" "$results/$arch.rc" "$results"/e2e-*-"$arch".json
done

for arch in "${arches[@]}"; do
	t0=$(date +%s)
	echo "gate: kunit $arch"
	"$REPO/scripts/kunit.sh" "$arch"       # writes $results/$arch.{json,rc,log}
	echo "gate: kunit $arch took $(( $(date +%s) - t0 )) s"
	"$REPO/scripts/e2e.sh" --reuse "$arch"
done

RESULTS=$results SUITES=$REPO/kunit/SUITES python3 "$REPO/scripts/gate.py" "${arches[@]}"
