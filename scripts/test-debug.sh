#!/usr/bin/env bash
# make test-debug: the gate's KUnit suites (property suites included) and
# end-to-end runs on a debug kernel: the gate's kunitconfig plus
# debug/kunitconfig (KASAN, UBSAN, lockdep, DEBUG_LIST), booted with
# panic_on_warn=1 like every gate boot.
#
#   [CELLS="6.1/x86_64"|TREES=...|ARCHES=...] [DEBUG_E2E=1] scripts/test-debug.sh
#
# (the cells: kgate_cells, scripts/lib.sh; make test-debug defaults to
# 6.1/x86_64)
#
# Each cell's debug kernel is built from the gate's tree (build/<tree>/linux,
# which make tree prepared) in build/debug/<tree>/<arch>; results in
# build/debug/<tree>/results.  Judged by scripts/gate.py against
# kunit/SUITES (kinds kunit and e2e) plus one more suite,
# debug_kernel_log: no KASAN, UBSAN, lockdep, list-corruption, BUG or
# WARNING report in any console of the run (a report that panics the
# boot already fails its suite; lockdep's do not panic).  Ends with
# "N passed, N failed".
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
root=${DEBUG_BUILD:-$REPO/build/debug}
mkdir -p "$root/results"

# One cell (scripts/cells.sh each runs "test-debug.sh --cell" per cell, with
# KGATE_TREE and KGATE_ARCH set): its debug kernel, KUnit, end-to-end runs.
if [ "${1:-}" = --cell ]; then
	# shellcheck disable=SC2153  # set by scripts/cells.sh each
	tree=$KGATE_TREE arch=$KGATE_ARCH cell=$KGATE_TREE/$KGATE_ARCH
	if [ ! -d "$REPO/build/$tree/linux/.git" ]; then
		echo "test-debug: no tree build/$tree/linux; run: make tree TREES=$tree" >&2
		exit 2
	fi
	BUILD=$REPO/build/$tree DEBUG_BUILD=$root
	unset KTREE
	kgate_debug_env
	results=$BUILD/results
	mkdir -p "$results"
	echo "test-debug: debug kernel in $BUILD/$arch"
	rc=0
	t0=$(date +%s)
	KUNIT_TIMEOUT=${KUNIT_TIMEOUT:-1800} "$REPO/scripts/kunit.sh" "$arch" || rc=1
	echo "test-debug: $cell KUnit: $(( $(date +%s) - t0 )) s"
	logs=("$BUILD/$arch/test.log")
	if [ "${DEBUG_E2E:-1}" = 1 ] && [ -f "$BUILD/$arch/.kgate-built" ]; then
		t0=$(date +%s)
		# KASAN and lockdep slow every boot down under TCG (and
		# memory migration: longer settle windows, vmem.py), and
		# KASAN's shadow of hot-added memory comes from boot memory
		VMEM_BOOT_MEM=${VMEM_BOOT_MEM:-2048} E2E_TIMEOUT=${E2E_TIMEOUT:-2400} \
			VMEM_SETTLE_SCALE=${VMEM_SETTLE_SCALE:-4} \
			"$REPO/scripts/e2e.sh" "$arch" || rc=1
		echo "test-debug: $cell end-to-end: $(( $(date +%s) - t0 )) s"
		for f in "$results"/e2e-*-"$arch".log; do
			[ -f "$f" ] && logs+=("$f")
		done
	elif [ "${DEBUG_E2E:-1}" != 1 ]; then
		# KUnit only: an earlier run's end-to-end results are not
		# this run's (gate.py would count them)
		rm -f "$results"/e2e-*-"$arch".json "$results"/e2e-*-"$arch".log
	fi
	"$REPO/scripts/results_json.py" logs debug_kernel_log "$arch" \
		"$results/e2e-debug_kernel_log-$arch.json" "${logs[@]}" | sed 's/^/test-debug: /'
	exit $rc
fi

# The cells, checked by the one cell parser (kgate_cells, scripts/lib.sh),
# each run by the one cell loop (scripts/cells.sh each).
out=$("$REPO/scripts/cells.sh" list) || exit 2
mapfile -t cell_list <<<"$out"
rc=0
"$REPO/scripts/cells.sh" each test-debug.sh --cell || rc=$?
[ $rc = 2 ] && exit 2

suites=$(mktemp)
trap 'rm -f "$suites"' EXIT
# DEBUG_E2E=0: KUnit only, the end-to-end suites not expected
drop=()
[ "${DEBUG_E2E:-1}" = 1 ] || drop=(--drop-kind e2e)
{
	python3 "$REPO/scripts/suites.py" lines "${drop[@]}" || exit 2
	echo "debug_kernel_log e2e"
} >"$suites"
RESULTS=$root/results SUITES=$suites KINDS="kunit e2e" python3 "$REPO/scripts/gate.py" "${cell_list[@]}" || rc=1
exit $rc
