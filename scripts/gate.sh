#!/usr/bin/env bash
# The pre-commit gate: the host selftest, the patched tree, KUnit on every
# arch, the end-to-end runs, then one verdict (scripts/gate.py).  Every arch
# runs even when an earlier one failed, so the summary covers them all.
#
#   scripts/gate.sh [arch...]        (default: KGATE_ARCHES of scripts/lib.sh)
#
# With KGATE_USER_TREE set (make test TREE=<checkout>), the tree gated is
# that checkout's (scripts/usertree.sh: the series applied in the gate's
# own tree under $BUILD, the checkout never written to) instead of the
# tarball's (scripts/tree.sh), and series_sync, a property of this
# repository rather than of the checkout, is not judged.
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
suites=$REPO/kunit/SUITES
prepare=$REPO/scripts/tree.sh
if [ -n "${KGATE_USER_TREE:-}" ]; then
	# Run from a git hook, git's GIT_DIR, GIT_INDEX_FILE... name the
	# user's repository: no git command of the gate may see them.
	# shellcheck disable=SC2046
	unset $(git rev-parse --local-env-vars)
	prepare=$REPO/scripts/usertree.sh
	# One gate at a time on one checkout's build dir (two hooks at once).
	exec 9>"$BUILD/.gate.lock"
	flock -n 9 || { echo "gate: another gate runs on $BUILD; waiting"; flock 9; }
	suites=$BUILD/SUITES
	grep -v '^series_sync[[:space:]]' "$REPO/kunit/SUITES" >"$suites"
fi
rm -f "$results/summary" "$results/verdict.json" "$results"/host-*.json "$results/tree"

# The host side's own tests (scripts/selftest.py: the verdict code, the e2e
# library, the plumbing, mypy) start first, in the background while the
# tree and KUnit run.  Their results count like any suite's (host_selftest
# in kunit/SUITES): no results, no green gate.  A pass is reused while the
# files they test are byte-identical (FRESH=1 reruns), as end-to-end runs are.
selftest_key() {
	{
		python3 --version; mypy --version 2>&1
		cd "$REPO" && find Makefile .ci scripts tests e2e qemu_configs kunit/SUITES \
			-type f ! -path '*/__pycache__/*' -exec sha1sum {} + | sort
	} | sha1sum | cut -d' ' -f1
}
selftest() {
	local key cache=$BUILD/selftest-cache/host-selftest log=$results/host-selftest.log
	key=$(selftest_key)
	if [ "${FRESH:-0}" != 1 ] && [ -f "$cache.json" ] && [ "$(cat "$cache.key" 2>/dev/null)" = "$key" ]; then
		cp "$cache.json" "$results/host-selftest.json"
		echo "gate: host selftest passed before with the same files (cached; FRESH=1 reruns)"
		return
	fi
	rm -f "$cache.json" "$cache.key"
	if python3 "$REPO/scripts/selftest.py" --json "$results/host-selftest.json" >"$log" 2>&1; then
		mkdir -p "$(dirname "$cache")"
		cp "$results/host-selftest.json" "$cache.json" && echo "$key" >"$cache.key"
		echo "gate: $(tail -n 1 "$log")"
	else
		echo "gate: host selftest FAILED ($(tail -n 1 "$log")); see $log"
	fi
}
selftest &
selftest_pid=$!

if ! "$prepare"; then
	wait $selftest_pid
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

wait $selftest_pid
RESULTS=$results SUITES=$suites python3 "$REPO/scripts/gate.py" "${arches[@]}"
