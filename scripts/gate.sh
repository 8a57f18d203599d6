#!/usr/bin/env bash
# The pre-commit gate: the host selftest, then for each tree its patched
# tree, and for each of its cells (tree x arch) KUnit, the end-to-end runs
# and the conformance sections kunit/SUITES names for the cell (fstests'
# overlay smoke tier, conformance/fstests/smoke), then one verdict
# (scripts/gate.py).  Every cell runs even when an earlier one failed, so
# the summary covers them all.
#
#   [CELLS="6.1/x86_64 ..."|CELLS=all] [TREES=...] [ARCHES=...] scripts/gate.sh
#
# The cells: scripts/lib.sh (kgate_cells; default: every tree on both arches).  Each tree
# works in $BUILD/<tree>/ (its kernel tree, one build dir per arch, its
# results); the host selftest and the verdict in $BUILD/results.
#
# With KGATE_USER_TREE set (make test TREE=<checkout>), the one tree gated
# is that checkout's (scripts/usertree.sh: the series of its version applied
# in the gate's own tree under $BUILD, the checkout never written to), its
# arches ARCHES (default all), and mutants_apply, a property of this
# repository rather than of the checkout, is not judged.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
ROOT=${BUILD:-$REPO/build}
export BUILD=$ROOT
results=$ROOT/results
mkdir -p "$results"
suites=$REPO/kunit/SUITES
trees=()
cells=()
if [ -n "${KGATE_USER_TREE:-}" ]; then
	# Run from a git hook, git's GIT_DIR, GIT_INDEX_FILE... name the
	# user's repository: no git command of the gate may see them.
	# shellcheck disable=SC2046
	unset $(git rev-parse --local-env-vars)
	# One gate at a time on one checkout's build dir (two hooks at once).
	exec 9>"$ROOT/.gate.lock"
	flock -n 9 || { echo "gate: another gate runs on $ROOT; waiting"; flock 9; }
	suites=$ROOT/SUITES
	python3 "$REPO/scripts/suites.py" lines --drop mutants_apply >"$suites" || exit 2
fi
# The cells (bare arches for a checkout of yours): scripts/cells.sh's list.
all=$("$REPO/scripts/cells.sh" list) || exit 2
mapfile -t cells <<<"$all"
if [ -n "${KGATE_USER_TREE:-}" ]; then
	trees=(user)
else
	for c in "${cells[@]}"; do
		case " ${trees[*]} " in *" ${c%%/*} "*) ;; *) trees+=("${c%%/*}") ;; esac
	done
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
		cd "$REPO" && find Makefile .ci scripts tests e2e conformance qemu_configs kunit/SUITES \
			-type f ! -path '*/__pycache__/*' -exec sha1sum {} + | sort
	} | sha1sum | cut -d' ' -f1
}
selftest() {
	local key cache=$ROOT/selftest-cache/host-selftest log=$results/host-selftest.log
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

# conf_suites <cell>: the conformance suites kunit/SUITES expects of
# that cell (kind conf); the fstests ones run the smoke tier, against
# the committed baseline (make conformance runs them all, on the whole
# group).
conf_suites() {
	python3 "$REPO/scripts/suites.py" --file "$suites" conf "$1" | paste -sd' '
}

# tree_arches <tree>: the arches of that tree's cells.
tree_arches() {
	local c
	for c in "${cells[@]}"; do
		if [ "$1" = user ]; then echo "$c"
		elif [ "${c%%/*}" = "$1" ]; then echo "${c#*/}"; fi
	done
}

# A cell's end-to-end and conformance runs go to the background while the
# next cell's kernel builds: they spend much of their time waiting on the
# guest (boots, settling sizes, fstests' shell), which a build fills.  One
# cell's runs at a time; the build beside them runs at a lower priority so
# their timing stays that of an idle machine as far as it can; their output
# is shown as a block when they end.
bg_pid='' bg_log=''
finish_bg() {
	[ -n "$bg_pid" ] || return 0
	wait "$bg_pid"
	cat "$bg_log"
	rm -f "$bg_log"
	bg_pid=''
}

for t in "${trees[@]}"; do
	if [ "$t" = user ]; then
		export BUILD=$ROOT
		prepare=$REPO/scripts/usertree.sh
	else
		export BUILD=$ROOT/$t KGATE_TREE=$t
		unset KTREE
		prepare=$REPO/scripts/tree.sh
	fi
	mapfile -t arches < <(tree_arches "$t")
	# Stale results of an earlier run must never count for this one.
	mkdir -p "$BUILD/results"
	rm -f "$BUILD/results"/tree-*.json
	for arch in "${arches[@]}"; do
		rm -f "$BUILD/results/$arch.json" "$BUILD/results/$arch.rc" "$BUILD/results"/e2e-*-"$arch".json \
			"$BUILD/results"/conf-*-"$arch".json
	done
	if ! "$prepare"; then
		# Its cells stay without results: the verdict names each.
		echo "gate: the patched tree${KGATE_TREE:+ $KGATE_TREE} could not be prepared (above)"
		continue
	fi
	for arch in "${arches[@]}"; do
		cell=${KGATE_TREE:+$KGATE_TREE/}$arch
		t0=$(date +%s)
		echo "gate: kunit $cell"
		# writes $BUILD/results/$arch.{json,rc,log}
		${bg_pid:+nice -n 10} "$REPO/scripts/kunit.sh" --reuse "$arch"
		echo "gate: kunit $cell took $(( $(date +%s) - t0 )) s"
		finish_bg
		bg_log=$(mktemp "$results/.cell-runs.XXXXXX")
		(
			t0=$(date +%s)
			"$REPO/scripts/e2e.sh" --reuse "$arch"
			echo "gate: end-to-end $cell took $(( $(date +%s) - t0 )) s"
			conf=$(conf_suites "$cell")
			if [ -n "$conf" ]; then
				t0=$(date +%s)
				CONF_SUITES=$suites FSTESTS_GROUP=smoke "$REPO/scripts/conformance.sh" --reuse "$arch"
				echo "gate: conformance $cell ($conf) took $(( $(date +%s) - t0 )) s"
			fi
		) </dev/null >"$bg_log" 2>&1 &
		bg_pid=$!
	done
done
finish_bg

wait $selftest_pid
RESULTS=$results SUITES=$suites python3 "$REPO/scripts/gate.py" "${cells[@]}"
