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
export KBUILD_BUILD_USER=kgate KBUILD_BUILD_HOST=kgate

results=$BUILD/results
mkdir -p "$BUILD/$arch" "$results"
rm -f "$results/$arch.json"

args=(run
	--arch="$arch"
	--build_dir="$BUILD/$arch"
	--kunitconfig="$REPO/kunitconfig"
	--qemu_config="$REPO/qemu_configs/$arch.py"
	--jobs="$JOBS"
	--timeout="${KUNIT_TIMEOUT:-600}"
	--json="$results/$arch.json"
	--make_options="CC=ccache $cc"
)
[ -n "$cross" ] && args+=(--cross_compile="$cross")

lock=${KGATE_LOCK:-/tmp/kgate-build.lock}
cd "$TREE"
set +e
flock "$lock" python3 tools/testing/kunit/kunit.py "${args[@]}" "$@" \
	>"$results/$arch.log" 2>&1
rc=$?
set -e
# The parsed summary kunit.py prints at its end, for a human reading along.
grep -E '^\[[0-9:]+\] (Testing complete|Elapsed time)|Error|error:' "$results/$arch.log" | tail -n 5 || true
exit $rc
