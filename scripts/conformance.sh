#!/usr/bin/env bash
# The conformance runs of one cell (tree x arch): fstests' overlay group,
# one ./check -overlay per section, judged against the unpatched baseline.
#
#   [CONF_SUITES=file[:file...]] [FSTESTS_GROUP=smoke|quick|all] \
#       scripts/conformance.sh [--reuse] <arch>          the patched kernel
#   [SECTIONS="userxattr ..."] [FSTESTS_GROUP=quick] \
#       scripts/conformance.sh --baseline <arch>
#                                                         refresh the baseline
#
# BUILD and KGATE_TREE name the tree (scripts/cells.sh sets them).  The
# suites run are the kind-conf lines of CONF_SUITES (default
# conformance/SUITES; the gate passes kunit/SUITES) that name this cell or
# arch: fstests_overlay_<section> (conformance/fstests/host, a section of
# conformance/fstests/sections) and memory_hotplug
# (conformance/memhotplug/host).
#
# The patched kernel is the gate's ($BUILD/<arch>, built by
# scripts/kunit.sh).  Each suite writes $BUILD/results/conf-<suite>-<arch>.json;
# an fstests section is judged against conformance/known/<tree>/<arch>/<section>
# and keeps fstests' per-test logs in $BUILD/results/conformance/<arch>/<section>/.
# --reuse: a suite that passed is reused while nothing it depends on
# changed (the kernel tree less what other suites alone cover, kunit/PATHS;
# the config, the guest image, conformance/, the known-results file, the
# group), as end-to-end runs are; FULL=1 (or FRESH=1) reruns.
# CONF_JOBS (default: the number of cores) suites run at once, each guest
# on one CPU.
#
# --baseline: builds the tree at tag base (no patch of ours) with the same
# .config in $BUILD/base-<arch> (a git worktree in $BUILD/linux-base), runs
# every section on it and rewrites the known-results files (keeping the
# reason written for each failure that fails again; a new failure gets
# fstests' message, to be replaced by a one-line reason before commit).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
export BUILD
mode=patched
case ${1:-} in
--reuse) mode=reuse; shift ;;
--baseline) mode=baseline; shift ;;
esac
{ [ "${FRESH:-0}" = 1 ] || [ "${FULL:-0}" = 1 ]; } && [ $mode = reuse ] && mode=patched
arch=${1:-}
if ! arch_known "$arch"; then
	echo "usage: scripts/conformance.sh [--reuse|--baseline] ${KGATE_ARCHES// /|}" >&2
	exit 2
fi
ROOT=$(dirname "$BUILD")
[ -n "${KGATE_USER_TREE:-}" ] && ROOT=$BUILD
export KGATE_ROOT=$ROOT
CONF_SUITES=${CONF_SUITES:-$REPO/conformance/SUITES}
cell=${KGATE_USER_TREE:+$arch}
cell=${cell:-$KGATE_TREE/$arch}
suites=$(python3 "$REPO/scripts/suites.py" --file "$CONF_SUITES" conf "$cell") || exit 2
suites=${suites//$'\n'/ }
if [ $mode = baseline ]; then
	secs=${SECTIONS:-$(sed -e 's/#.*//' "$REPO/conformance/fstests/sections" | awk 'NF { print $1 }')}
	suites=$(for s in $secs; do echo "fstests_overlay_$s"; done | paste -sd' ')
fi
if [ -z "$suites" ]; then
	echo "conformance: $CONF_SUITES names no conf suite for $cell"
	exit 0
fi
# No FSTESTS_GROUP: the group of the section's baseline (its known-results
# file says which), the whole group for a new baseline.
group=${FSTESTS_GROUP:-}
[ -n "$group" ] && export FSTESTS_GROUP=$group
results=$BUILD/results
known_dir=$REPO/conformance/known/$KGATE_TREE/$arch
mkdir -p "$results"

if ! "$REPO/scripts/rootfs.sh" "$arch"; then
	echo "conformance: no guest image for $arch (above)" >&2
	for s in $suites; do rm -f "$results/conf-$s-$arch.json"; done
	exit 1
fi

# ---- the baseline kernel: tag base, the same .config ----------------------------
base_kernel() {
	local cfg=$BUILD/$arch/.config wt=$BUILD/linux-base bdir=$BUILD/base-$arch cross cc img
	[ -f "$cfg" ] || { echo "conformance: no $cfg; build the gate's kernel first (make kunit-$arch)" >&2; return 1; }
	if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
		git -C "$KTREE" worktree prune
		git -C "$KTREE" worktree add -q --detach "$wt" base >/dev/null || return 1
	fi
	git -C "$wt" checkout -q --detach base || return 1
	cross=$(arch_cross "$arch")
	cc=$(arch_cc "$arch")
	kgate_build_env
	mkdir -p "$bdir"
	cp "$cfg" "$bdir/.config"
	echo "conformance: building the baseline kernel (tag base, the gate's .config) in $bdir" >&2
	if ! kgate_locked make -C "$wt" ARCH="$arch" O="$bdir" "CC=ccache $cc" \
		${cross:+CROSS_COMPILE=$cross} olddefconfig >"$bdir/build.log" 2>&1 ||
		! kgate_locked make -C "$wt" ARCH="$arch" O="$bdir" "CC=ccache $cc" \
		${cross:+CROSS_COMPILE=$cross} --jobs="$(nproc)" >>"$bdir/build.log" 2>&1; then
		tail -n 20 "$bdir/build.log" >&2
		echo "conformance: the baseline kernel did not build; see $bdir/build.log" >&2
		return 1
	fi
	img=$(arch_kernel_path "$arch")
	echo "$bdir/$img"
}

# Suites run in the background, CONF_JOBS at a time; a job that fails
# says so in $failed (wait -n has already taken its exit status).
jobs_max=${CONF_JOBS:-$(nproc)}
failed=$(mktemp)
trap 'rm -f "$failed"' EXIT
throttle() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
}
wait_all() {
	wait
	[ ! -s "$failed" ]
}

if [ $mode = baseline ]; then
	kernel=$(base_kernel) || exit 1
	mkdir -p "$known_dir"
	rc=0
	for s in $suites; do
		s=${s#fstests_overlay_}
		out=$BUILD/results/conformance-base/$arch/$s
		throttle
		"$REPO/conformance/fstests/host" "$arch" "$s" --group "${group:-all}" --kernel "$kernel" \
			--out "$out" --write-known "$known_dir/$s" --label "$KGATE_TREE/$arch" ||
			echo "$s" >>"$failed" &
	done
	wait_all || rc=1
	exit $rc
fi

# ---- the patched kernel ----------------------------------------------------------
key_of() {
	{
		case $1 in
		memory_hotplug) suite_key memory_hotplug "$arch" ;;
		*) suite_key "fstests_overlay_$1" "$arch" ;;
		esac
		cat "$ROOT/conformance/$arch/rootfs.key" 2>/dev/null
		echo "$1 $group ${FSTESTS_STRESS:-0}"
		cat "$known_dir/$1" 2>/dev/null
		find "$REPO/conformance" "$REPO/e2e/lib" "$REPO/qemu_configs/$arch.py" \
			"$REPO/scripts/lib.sh" "$REPO/scripts/conformance.sh" -type f \
			! -path '*/__pycache__/*' ! -path "$REPO/conformance/known/*" \
			! -path "$REPO/conformance/table" \
			-exec sha1sum {} + 2>/dev/null | sort
	} | sha1sum | cut -d' ' -f1
}

# run_suite <suite> <json> <key> <cache>: one suite, its cache entry.
run_suite() {
	local suite=$1 json=$2 key=$3 cache=$4 s=${1#fstests_overlay_} t0 run
	case $suite in
	fstests_overlay_*) run=("$REPO/conformance/fstests/host" "$arch" "$s" --known "$known_dir/$s" --json "$json") ;;
	memory_hotplug) run=("$REPO/conformance/memhotplug/host" "$arch" --json "$json") ;;
	*) echo "conformance: unknown conf suite $suite in $CONF_SUITES"; return 1 ;;
	esac
	t0=$(date +%s)
	if "${run[@]}"; then
		mkdir -p "$BUILD/conf-cache"
		cp "$json" "$cache.json" && echo "$key" >"$cache.key"
		echo "conformance: $suite $cell took $(( $(date +%s) - t0 )) s"
	else
		echo "conformance: $suite $cell FAILED after $(( $(date +%s) - t0 )) s"
		return 1
	fi
}

rc=0
for suite in $suites; do
	s=${suite#fstests_overlay_}
	json=$results/conf-$suite-$arch.json
	rm -f "$json"
	key=$(key_of "$s")
	cache=$BUILD/conf-cache/$suite-$arch
	if [ $mode = reuse ] && [ -f "$cache.json" ] && [ "$(cat "$cache.key" 2>/dev/null)" = "$key" ]; then
		cp "$cache.json" "$json"
		echo "conformance: $suite $arch: reused: passed on a tree the same where it looks (it covers $(suite_claims "$suite")), same config, guest and baseline; FULL=1 reruns"
		continue
	fi
	rm -f "$cache.json" "$cache.key"
	throttle
	{ run_suite "$suite" "$json" "$key" "$cache" || echo "$suite" >>"$failed"; } &
done
wait_all || rc=1
exit $rc
