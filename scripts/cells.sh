#!/usr/bin/env bash
# One step of the gate on every tree or cell (tree x arch) of this run, for
# the make targets that are not the whole gate (make, tree, kunit-<arch>,
# e2e-<arch>; scripts/gate.sh runs the whole gate):
#
#   scripts/cells.sh list [arch]           the cells, "<tree>/<arch>" a line
#   scripts/cells.sh sources               fetch the tarball of each tree that
#                                          the machine's apt sources lack
#                                          (scripts/source.sh)
#   scripts/cells.sh tree                  prepare each tree's patched tree
#   scripts/cells.sh kunit|e2e [arch]      scripts/kunit.sh / scripts/e2e.sh
#                                          on each cell (only arch's)
#   scripts/cells.sh conf [arch]           scripts/conformance.sh --reuse on each cell
#   scripts/cells.sh conf-baseline [arch]  the same with --baseline
#   scripts/cells.sh judge <kinds> [arch]  scripts/gate.py on those cells
#   scripts/cells.sh each <script> [args]  scripts/<script> (or a path) on each cell, with
#                                          KGATE_TREE, KGATE_ARCH and BUILD set
#
# The cells: CELLS, TREES, ARCHES (kgate_cells in scripts/lib.sh).  Each tree
# works in $BUILD/<tree>/.  With KGATE_USER_TREE (make ... TREE=<checkout>)
# there is one tree, the checkout's, in $BUILD itself (scripts/usertree.sh
# picks its series), and a cell is a bare arch of ARCHES (default all).
# Every cell runs even when an earlier one failed; the exit code is 1 if any
# did.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
ROOT=${BUILD:-$REPO/build}
step=${1:?usage: scripts/cells.sh list|sources|tree|kunit|e2e|conf|conf-baseline|judge|each ...}
shift

cells() {
	local a
	if [ -n "${KGATE_USER_TREE:-}" ]; then
		for a in ${ARCHES:-$KGATE_ARCHES}; do
			arch_known "$a" || { echo "unknown arch '$a' (known: $KGATE_ARCHES)" >&2; return 2; }
			echo "$a"
		done
	else
		kgate_cells | tr ' ' /
	fi
}
out=$(cells) || exit 2
mapfile -t all <<<"$out"
only=
case $step in
list | kunit | e2e | conf | conf-baseline) only=${1:-} ;;
judge) only=${2:-} ;;
esac
[ "$step" = each ] && [ -z "${1:-}" ] && { echo "cells: each needs a script" >&2; exit 2; }
sel=()
for c in "${all[@]}"; do
	[ -z "$only" ] || [ "${c#*/}" = "$only" ] && sel+=("$c")
done
if [ ${#sel[@]} -eq 0 ]; then
	echo "cells: no cell of this run has arch '$only' (cells: ${all[*]})" >&2
	exit 2
fi

# in_cell <cell> <command...>: the command with that cell's tree set up.
in_cell() {
	local c=$1
	shift
	if [ -n "${KGATE_USER_TREE:-}" ]; then
		BUILD=$ROOT "$@"
	else
		BUILD=$ROOT/${c%%/*} KGATE_TREE=${c%%/*} "$@"
	fi
}

rc=0
case $step in
list) printf '%s\n' "${sel[@]}" ;;
sources)
	[ -n "${KGATE_USER_TREE:-}" ] && exit 0
	for t in $(printf '%s\n' "${sel[@]%%/*}" | sort -u); do
		kgate_source_line "$t" >/dev/null || continue
		"$REPO/scripts/source.sh" "$t" >/dev/null || rc=1
	done
	;;
tree)
	done_trees=" "
	for c in "${sel[@]}"; do
		t=${c%%/*}
		case $done_trees in *" $t "*) continue ;; esac
		done_trees+="$t "
		if [ -n "${KGATE_USER_TREE:-}" ]; then
			in_cell "$c" "$REPO/scripts/usertree.sh" || exit 1
			break
		fi
		in_cell "$c" "$REPO/scripts/tree.sh" || rc=1
	done
	;;
kunit | e2e)
	for c in "${sel[@]}"; do
		in_cell "$c" "$REPO/scripts/$step.sh" "${c#*/}" || rc=1
	done
	;;
conf | conf-baseline)
	mode=--reuse
	[ "$step" = conf-baseline ] && mode=--baseline
	for c in "${sel[@]}"; do
		in_cell "$c" "$REPO/scripts/conformance.sh" $mode "${c#*/}" || rc=1
	done
	;;
each)
	script=$1
	shift
	for c in "${sel[@]}"; do
		echo "== $c"
		case $script in */*) ;; *) script=$REPO/scripts/$script ;; esac
		KGATE_ARCH=${c#*/} in_cell "$c" "$script" "$@" || rc=1
	done
	;;
judge)
	RESULTS=$ROOT/results KINDS=${1:?kinds} python3 "$REPO/scripts/gate.py" "${sel[@]}" || rc=1
	;;
*)
	echo "cells: unknown step '$step'" >&2
	exit 2
	;;
esac
exit $rc
