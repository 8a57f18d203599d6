#!/usr/bin/env bash
# Build (incrementally, through ccache) and run the KUnit kernel of one arch:
#
#   scripts/kunit.sh x86_64|arm64 [extra kunit.py run arguments]
#
# The build directory is $BUILD/<arch>; kunit.py's log goes to
# $BUILD/results/<arch>.log and its JSON results to $BUILD/results/<arch>.json
# (removed first, so a run that dies leaves no stale results behind).
# Builds of all clones on this machine are serialised by one lock: the
# machine has two cores and one kernel build already uses both.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SELF=$REPO/scripts/kunit.sh
BUILD=${BUILD:-$REPO/build}
TREE=${TREE:-$BUILD/linux}
JOBS=${JOBS:-$(nproc)}
arch=${1:?usage: scripts/kunit.sh x86_64|arm64 [kunit.py args]}
shift

case $arch in
x86_64) cross= ; cc=gcc ;;
arm64) cross=aarch64-linux-gnu- ; cc=${cross}gcc ;;
*) echo "kunit: unknown arch '$arch' (x86_64 or arm64)" >&2; exit 2 ;;
esac
command -v "$cc" >/dev/null || {
	echo "kunit: $cc not found; install it: apt-get install $([ -n "$cross" ] && echo gcc-aarch64-linux-gnu || echo gcc) (or run: make deps)" >&2
	exit 1
}

# One cache for every clone: paths below CCACHE_BASEDIR are hashed relative
# to the build directory, and every clone has the same build/ layout.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$REPO")}
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-time_macros}
# The build's timestamp and user go into init/version.c: pin them so that a
# rebuild with nothing changed stays a no-op for ccache too.
export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2023-01-01}
export KBUILD_BUILD_USER=kgate KBUILD_BUILD_HOST=kgate KBUILD_BUILD_VERSION=1

results=$BUILD/results
bdir=$BUILD/$arch
mkdir -p "$bdir" "$results"
rm -f "$results/$arch.json"

common=(
	--arch="$arch"
	--build_dir="$bdir"
	--kunitconfig="$REPO/kunitconfig"
	--qemu_config="$REPO/qemu_configs/$arch.py"
	--make_options="CC=ccache $cc"
)
[ -n "$cross" ] && common+=(--cross_compile="$cross")
build_args=()
exec_args=()
for a in "$@"; do
	case $a in
	--kconfig_add=*|--jobs=*) build_args+=("$a") ;;
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
		while read -r f; do [ -n "$f" ] && echo "$f" && cat "$TREE/$f"; done < <(test_files)
	} 2>/dev/null | sha1sum | cut -d' ' -f1
}
# The test sources: the series' KUnit files and kunit/'s (scripts/tree.sh).
test_files() {
	{
		git -C "$TREE" diff --name-only --diff-filter=A base HEAD |
			grep -E '(_kunit\.c|(^|/)\.kunitconfig)$'
		cat "$TREE/.git/kgate-kunit-files"
	} 2>/dev/null | sort -u
}
# The same without the test sources: what the end-to-end runs depend on
# (they boot with kunit.enable=0, so the KUnit suites never run there).
kernel_key() {
	local ex=()
	mapfile -t ex < <(test_files | sed 's/^/:(exclude)/')
	{
		awk -F'\t' 'NR == FNR { ex[$0] = 1; next } !($2 in ex)' \
			<(test_files) <(git -C "$TREE" ls-tree -r HEAD)
		git -C "$TREE" status --porcelain=v1 --untracked-files=no -- . "${ex[@]}"
		git -C "$TREE" diff HEAD -- . "${ex[@]}"
		cat "$REPO/kunitconfig" "$REPO/qemu_configs/$arch.py" "$SELF"
		printf '%s\n' "${build_args[@]}"
		"$cc" --version | head -n 1
	} 2>/dev/null | sha1sum | cut -d' ' -f1
}

lock=${KGATE_LOCK:-/tmp/kgate-build.lock}
cd "$TREE"
: >"$results/$arch.log"

key=$(inputs_key)
if [ "${FRESH:-0}" != 1 ] && [ -f "$bdir/.kgate-built" ] && [ "$(cat "$bdir/.kgate-built")" = "$key" ]; then
	echo "kunit: $arch kernel is up to date (inputs unchanged), not rebuilding"
else
	rm -f "$bdir/.kgate-built"
	t0=$(date +%s)
	if ! flock "$lock" python3 tools/testing/kunit/kunit.py build "${common[@]}" \
		--jobs="$JOBS" "${build_args[@]}" >>"$results/$arch.log" 2>&1; then
		grep -E 'error|Error|ERROR' "$results/$arch.log" | head -n 20 >&2
		echo "kunit: $arch build failed; see $results/$arch.log" >&2
		exit 1
	fi
	echo "$key" >"$bdir/.kgate-built"
	echo "kunit: $arch kernel built in $(( $(date +%s) - t0 )) s"
fi
kernel_key >"$bdir/.kgate-kernel-key"

set +e
python3 tools/testing/kunit/kunit.py exec "${common[@]}" \
	--timeout="${KUNIT_TIMEOUT:-600}" --json="$results/$arch.json" \
	"${exec_args[@]}" >>"$results/$arch.log" 2>&1
rc=$?
set -e
# kunit.py's own closing lines, for a human reading along.
grep -E '^\[[0-9:]+\] (Testing complete|Elapsed time)' "$results/$arch.log" | tail -n 2 || true
exit $rc
