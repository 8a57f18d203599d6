#!/usr/bin/env bash
# make faults: the fault runs (every e2e/<name>/faults) on the debug kernel
# of make test-debug, whose config (debug/kunitconfig) has fault injection:
# overlayfs copy-up and rename under failed allocations, a full and a
# failing upper disk; virtio-mem plug and unplug under failed allocations
# and memory notifier errors.
#
#   [CELLS="6.1/x86_64"|TREES=...|ARCHES=...] [FAULTS_TESTS="alloc_*"] scripts/faults.sh
#
# (make faults defaults to 6.1/x86_64.)  Each cell's debug kernel is built
# or reused by scripts/kunit.sh (its KUnit pass is a note here; make
# test-debug judges it).  Results: build/debug/faults/<tree>/results/
# e2e-faults_<name>-<arch>.{json,log}, judged by scripts/gate.py against
# the runs there are (a run that left no results is a failure); each run
# prints the failure points its scenarios hit.  Ends with "N passed,
# N failed".
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
root=${FAULTS_BUILD:-$REPO/build/debug/faults}
runs=("$REPO"/e2e/*/faults)

# FAULTS_TESTS: every word must pick a scenario of some run (a typo is an
# error here, before any build); a run it picks nothing of does not run.
picks() {	# picks <word> <scenario...>: does word pick one of them?
	local w=$1 s
	shift
	for s in "$@"; do
		case $w in
		*\*) [[ $s == "${w%\*}"* ]] && return 0 ;;
		*) [ "$s" = "$w" ] && return 0 ;;
		esac
	done
	return 1
}
read -ra words <<<"${FAULTS_TESTS:-}"
all=() picked=()	# every scenario; the runs FAULTS_TESTS picks something of
for run in "${runs[@]}"; do
	read -ra names <<<"$("$run" --list)"
	all+=("${names[@]}")
	ok=$(( ${#words[@]} == 0 ))
	for w in "${words[@]}"; do picks "$w" "${names[@]}" && ok=1; done
	[ $ok = 1 ] && picked+=("$run")
done
for w in "${words[@]}"; do
	picks "$w" "${all[@]}" || {
		echo "faults: FAULTS_TESTS: no scenario '$w' (scenarios: ${all[*]}; 'prefix*' picks by prefix)" >&2
		exit 2
	}
done

# One cell (scripts/cells.sh each runs "faults.sh --cell" per cell, with
# KGATE_TREE, KGATE_ARCH and BUILD set).  FAULTS_RESULTS: where its results
# go instead (scripts/mutants.sh: the mutant's results).
if [ "${1:-}" = --cell ]; then
	# shellcheck disable=SC2153  # set by scripts/cells.sh each
	tree=$KGATE_TREE arch=$KGATE_ARCH
	if [ ! -d "$BUILD/linux/.git" ]; then
		echo "faults: no tree $BUILD/linux; run: make tree TREES=$tree" >&2
		exit 2
	fi
	unset KTREE
	kgate_debug_env
	export E2E_RESULTS=${FAULTS_RESULTS:-$root/$tree/results}
	mkdir -p "$E2E_RESULTS"
	rm -f "$E2E_RESULTS"/e2e-faults_*-"$arch".json
	kgate_need_kernel faults "$arch"
	# the debug kernel's boots are slower, and KASAN's shadow of
	# hot-added memory comes from boot memory (as in make test-debug)
	export VMEM_BOOT_MEM=${VMEM_BOOT_MEM:-2048} VMEM_SETTLE_SCALE=${VMEM_SETTLE_SCALE:-4}
	rc=0
	for run in "${picked[@]}"; do
		name=faults_$(basename "$(dirname "$run")")
		t0=$(date +%s)
		echo "faults: $name $tree/$arch"
		E2E_TIMEOUT=${E2E_TIMEOUT:-7200} "$run" "$arch" || rc=1
		"$REPO/scripts/results_json.py" add-reports "$E2E_RESULTS/e2e-$name-$arch.json" \
			"$E2E_RESULTS/e2e-$name-$arch.log" | sed "s/^/faults: $name: /"
		echo "faults: $name $tree/$arch took $(( $(date +%s) - t0 )) s"
	done
	exit $rc
fi

out=$("$REPO/scripts/cells.sh" list) || exit 2
mapfile -t cell_list <<<"$out"
rc=0
"$REPO/scripts/cells.sh" each faults.sh --cell || rc=$?
[ $rc = 2 ] && exit 2

suites=$(mktemp)
trap 'rm -f "$suites"' EXIT
for run in "${picked[@]}"; do
	echo "e2e_faults_$(basename "$(dirname "$run")") e2e"
done >"$suites"
RESULTS=$root/results SUITES=$suites KINDS=e2e python3 "$REPO/scripts/gate.py" "${cell_list[@]}" || rc=1
exit $rc
