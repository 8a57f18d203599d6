#!/usr/bin/env bash
# Build (incrementally, through ccache) and run the KUnit kernel of one arch:
#
#   scripts/kunit.sh [--reuse] x86_64|arm64 [extra kunit.py run arguments]
#
# --reuse (the gate): a run that passed is reused while nothing it depends
# on changed: the kernel's inputs (the tree with its test sources, the
# configs, the compiler), this script and the run's arguments.  Failures
# are never reused; FRESH=1 reruns.
#
# The build directory is $BUILD/<arch>; kunit.py's log goes to
# $BUILD/results/<arch>.log and its JSON results to $BUILD/results/<arch>.json
# (removed first, so a run that dies leaves no stale results behind).  Its
# own exit code goes to $BUILD/results/<arch>.rc (this script is the one
# writer of that file; scripts/gate.py judges it).
# Builds of all clones on this machine are serialised by one lock: the
# machine has two cores and one kernel build already uses both.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SELF=$REPO/scripts/kunit.sh
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
JOBS=${JOBS:-$(nproc)}
reuse=0
if [ "${1:-}" = --reuse ]; then reuse=1; shift; fi
[ "${FRESH:-0}" = 1 ] && reuse=0
arch=${1:?usage: scripts/kunit.sh [--reuse] x86_64|arm64 [kunit.py args]}
shift

arch_known "$arch" || { echo "kunit: unknown arch '$arch' ($KGATE_ARCHES)" >&2; exit 2; }
# A fragment <f>.<arch> beside a fragment <f> of KGATE_KUNITCONFIG_EXTRA
# holds what only that arch has (debug/kunitconfig.x86_64).
extra=()
for f in ${KGATE_KUNITCONFIG_EXTRA:-}; do
	extra+=("$f")
	if [ -f "$f.$arch" ]; then extra+=("$f.$arch"); fi
done
KGATE_KUNITCONFIG_EXTRA=${extra[*]}
cross=$(arch_cross "$arch")
cc=$(arch_cc "$arch")

results=$BUILD/results
bdir=$BUILD/$arch
mkdir -p "$bdir" "$results"
rm -f "$results/$arch.json"
# From here on every exit, a failed build too, leaves its code in <arch>.rc.
trap 'echo $? >"$results/$arch.rc"' EXIT

command -v "$cc" >/dev/null || {
	echo "kunit: $cc not found; install it: apt-get install $(arch_cc_pkg "$arch") (or run: make deps)" >&2
	exit 1
}
kgate_build_env

# KGATE_KUNITCONFIG_EXTRA: more kunitconfig fragments over the gate's (make
# test-debug: debug/kunitconfig), in a build dir of their own.  kunit.py
# refuses two fragments that set one option differently, so an option a
# fragment sets replaces the gate's line (the gate leaves KALLSYMS out, the
# debug kernel turns it on): one merged file, $bdir/kunitconfig.
kunitconfig=$REPO/kunitconfig
frags=()
for f in ${KGATE_KUNITCONFIG_EXTRA:-}; do
	[ -f "$f" ] || { echo "kunit: no kunitconfig fragment $f" >&2; exit 2; }
	frags+=("$f")
done
if [ ${#frags[@]} -gt 0 ]; then
	kunitconfig=$bdir/kunitconfig
	awk -v base="$REPO/kunitconfig" '
		function opt(l) { return match(l, /CONFIG_[A-Za-z0-9_]+/) ? substr(l, RSTART, RLENGTH) : "" }
		FILENAME == base { if (opt($0) == "" || !(opt($0) in set)) print; next }
		{ if (opt($0) != "") set[opt($0)] = 1; extra = extra $0 "\n" }
		END { printf "%s", extra }' "${frags[@]}" "$REPO/kunitconfig" >"$kunitconfig.new"
	mv "$kunitconfig.new" "$kunitconfig"
fi
# The make target: the image QEMU boots (kernel_path of qemu_configs/), so
# no build makes what nothing boots (x86_64's bzImage, arm64's Image.gz).
target=$(basename "$(arch_kernel_path "$arch")")
common=(
	--arch="$arch"
	--build_dir="$bdir"
	--kunitconfig="$kunitconfig"
	--qemu_config="$REPO/qemu_configs/$arch.py"
	--make_options="CC=ccache $cc"
)
[ -n "$cross" ] && common+=(--cross_compile="$cross")
build_args=()
exec_args=()
for a in "$@"; do
	case $a in
	--jobs=*) JOBS=${a#--jobs=} ;;
	--kconfig_add=*) build_args+=("$a") ;;
	*) exec_args+=("$a") ;;
	esac
done

# Everything the kernel image depends on, as one key: the tree's content
# (committed and not), the configs, the compiler.  When it matches the last
# successful build, skip kunit.py's build step (a no-op "make" still walks
# the whole tree for ~10 s).  Keyed on content, not commit ids: "make series"
# rewrites commits without changing a byte.
inputs_key() {
	{
		kernel_key
		while read -r f; do echo "$f"; cat "$KTREE/$f" || true; done < <(test_files)
	} 2>/dev/null | sha1sum | cut -d' ' -f1
}
# The test files of the tree (scripts/testsrc.py: kunit/ and the patch
# adding each), paths in the kernel tree.
test_files() {
	"$REPO/scripts/testsrc.py" files "$KGATE_TREE" 2>/dev/null | cut -f1
}
# The same without the test sources: what the end-to-end runs depend on
# (they boot with kunit.enable=0, so the KUnit suites never run there).
kernel_key() {
	local ex=()
	mapfile -t ex < <(test_files | sed 's/^/:(exclude)/')
	{
		awk -F'\t' 'NR == FNR { ex[$0] = 1; next } !($2 in ex)' \
			<(test_files) <(git -C "$KTREE" ls-tree -r HEAD)
		git -C "$KTREE" status --porcelain=v1 --untracked-files=no -- . "${ex[@]}"
		git -C "$KTREE" diff HEAD -- . "${ex[@]}"
		cat "$REPO/kunitconfig" "$REPO/qemu_configs/$arch.py" "$SELF" "$REPO/scripts/lib.sh"
		for f in ${KGATE_KUNITCONFIG_EXTRA:-}; do cat "$f"; done
		printf '%s\n' "${build_args[@]}"
		"$cc" --version | head -n 1
	} 2>/dev/null | sha1sum | cut -d' ' -f1
}

cd "$KTREE"
: >"$results/$arch.log"

# kunit.py build is "make olddefconfig", make, and a check that .config
# holds the kunitconfig.  While nothing that shapes .config changed since
# the last kunit.py build (the configs, every Kconfig file of the tree, the
# compiler, .config itself), the same make without the config steps builds
# the same kernel, about 4 s sooner per arch.  Anything else, and any doubt
# (.config changed by the make), goes through kunit.py.
config_key() {
	{
		cat "$REPO/kunitconfig" "$REPO/qemu_configs/$arch.py" "$SELF"
		for f in ${KGATE_KUNITCONFIG_EXTRA:-}; do cat "$f"; done
		printf '%s\n' "${build_args[@]}"
		git -C "$KTREE" ls-files -s -- '*Kconfig*'
		git -C "$KTREE" diff HEAD -- '*Kconfig*'
		"$cc" --version | head -n 1
		cat "$bdir/.config"
	} 2>/dev/null | sha1sum | cut -d' ' -f1
}
build() {
	local ck
	ck=$(config_key)
	if [ "${FRESH:-0}" != 1 ] && [ ${#build_args[@]} -eq 0 ] && [ -f "$bdir/.kgate-config" ] &&
		[ "$(cat "$bdir/.kgate-config")" = "$ck" ]; then
		echo "kunit: configuration unchanged since the last kunit.py build; make only"
		if kgate_locked make ARCH="$arch" O="$bdir" --jobs="$JOBS" "CC=ccache $cc" \
			${cross:+CROSS_COMPILE=$cross} "$target" >/dev/null && [ "$(config_key)" = "$ck" ]; then
			return 0
		fi
		echo "kunit: make alone failed or changed .config; building through kunit.py"
	fi
	rm -f "$bdir/.kgate-config"
	# kunit.py's config step (olddefconfig, then the check that .config
	# holds the kunitconfig), then make of the one image.  Not "kunit.py
	# build --make_options=<target>": kunit.py passes its make options to
	# olddefconfig too, which then builds the whole kernel without -j.
	kgate_locked python3 tools/testing/kunit/kunit.py config "${common[@]}" \
		"${build_args[@]}" || return
	kgate_locked make ARCH="$arch" O="$bdir" --jobs="$JOBS" "CC=ccache $cc" \
		${cross:+CROSS_COMPILE=$cross} "$target" || return
	config_key >"$bdir/.kgate-config"
}

key=$(inputs_key)
if [ "${FRESH:-0}" != 1 ] && [ -f "$bdir/.kgate-built" ] && [ "$(cat "$bdir/.kgate-built")" = "$key" ]; then
	echo "kunit: $arch kernel is up to date (inputs unchanged), not rebuilding"
else
	rm -f "$bdir/.kgate-built"
	t0=$(date +%s)
	if ! build >>"$results/$arch.log" 2>&1; then
		grep -E 'error|Error|ERROR' "$results/$arch.log" | head -n 20 >&2 || true
		# In the log too: scripts/mutants.sh tells "does not build" from
		# "red" by this line.
		echo "kunit: $arch build failed; see $results/$arch.log" | tee -a "$results/$arch.log" >&2
		exit 1
	fi
	echo "$key" >"$bdir/.kgate-built"
	echo "kunit: $arch kernel built in $(( $(date +%s) - t0 )) s"
fi
kernel_key >"$bdir/.kgate-kernel-key"

# The run's own key: the kernel's (this script included) and its arguments.
run_key=$( { echo "$key"; printf '%s\n' "${exec_args[@]}" "${KUNIT_TIMEOUT:-60}"; } |
	sha1sum | cut -d' ' -f1)
cache=$bdir/.kgate-kunit-passed
if [ $reuse = 1 ] && [ -f "$cache.json" ] && [ "$(cat "$cache.key" 2>/dev/null)" = "$run_key" ]; then
	cp "$cache.json" "$results/$arch.json"
	cp "$cache.log" "$results/$arch.log"
	echo "kunit: $arch: passed before with the same kernel and arguments (cached; FRESH=1 reruns)"
	exit 0
fi
rm -f "$cache.key" "$cache.json" "$cache.log"

set +e
# A KUnit run boots and finishes in seconds (3.5 s on x86_64 and on arm64
# under TCG): one that takes a minute hangs, and is red then, not later.
kgate_tcg "$bdir"
python3 tools/testing/kunit/kunit.py exec "${common[@]}" \
	--timeout="${KUNIT_TIMEOUT:-60}" --json="$results/$arch.json" \
	"${exec_args[@]}" >>"$results/$arch.log" 2>&1
rc=$?
set -e
if [ $rc -eq 0 ] && cp "$results/$arch.json" "$cache.json" && cp "$results/$arch.log" "$cache.log"; then
	echo "$run_key" >"$cache.key"
fi
# kunit.py's own closing lines, for a human reading along.
grep -E '^\[[0-9:]+\] (Testing complete|Elapsed time)' "$results/$arch.log" | tail -n 2 || true
exit $rc
