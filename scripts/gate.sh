#!/usr/bin/env bash
# The pre-commit gate: patched tree, KUnit on every arch, the end-to-end
# runs, then one verdict (scripts/gate.py).  Every arch runs even when an
# earlier one failed, so the summary covers them all.
#
#   scripts/gate.sh [arch...]        (default: x86_64 arm64)
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
export BUILD
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 arm64)
results=$BUILD/results
mkdir -p "$results"
rm -f "$results/summary"

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
	"$REPO/scripts/kunit.sh" "$arch"
	echo $? >"$results/$arch.rc"
	echo "gate: kunit $arch took $(( $(date +%s) - t0 )) s"
	for e2e in "$REPO"/e2e/*/run; do
		[ -x "$e2e" ] || continue
		name=$(basename "$(dirname "$e2e")")
		# A passing end-to-end run is reused while nothing it depends on
		# changed: the kernel's sources and config (KUnit sources aside:
		# these boots run with kunit.enable=0), the run's own files and
		# e2e/lib.  Failures are never reused; FRESH=1 reruns everything.
		key=$( { cat "$BUILD/$arch/.kgate-kernel-key" 2>/dev/null || date +%s%N
			find "$REPO/e2e/lib" "$REPO/e2e/$name" -type f ! -path '*/__pycache__/*' \
				-exec sha1sum {} + | sort; } | sha1sum | cut -d' ' -f1)
		cache=$BUILD/e2e-cache/$name-$arch
		if [ "${FRESH:-0}" != 1 ] && [ -f "$cache.json" ] && [ "$(cat "$cache.key" 2>/dev/null)" = "$key" ]; then
			cp "$cache.json" "$results/e2e-$name-$arch.json"
			echo "gate: $name $arch: passed before with the same kernel and tests (cached; FRESH=1 reruns)"
			continue
		fi
		rm -f "$cache.json" "$cache.key"
		t0=$(date +%s)
		echo "gate: $name $arch"
		if "$e2e" "$arch"; then
			mkdir -p "$BUILD/e2e-cache"
			cp "$results/e2e-$name-$arch.json" "$cache.json" && echo "$key" >"$cache.key"
		fi
		echo "gate: $name $arch took $(( $(date +%s) - t0 )) s"
	done
done

RESULTS=$results SUITES=$REPO/kunit/SUITES python3 "$REPO/scripts/gate.py" "${arches[@]}"
