#!/usr/bin/env bash
# make fuzz: the property suites (kunit/SUITES, names ending in _prop) with
# many cases each, on one cell's KUnit kernel (make fuzz: the debug kernel of
# make test-debug, FUZZ_DEBUG=0 the gate's; built or reused
# by scripts/kunit.sh, which also runs the gate's own KUnit pass first).
#
#   [KGATE_TREE=6.1] [KGATE_ARCH=x86_64] [FUZZ_ITERS=100000] [FUZZ_SEED=1]
#   scripts/fuzz.sh
#
# Every property suite that kunit/SUITES expects on the cell must run, each
# of its cases must report exactly FUZZ_ITERS cases from FUZZ_SEED (a
# module parameter that was not applied is a failure, not a fast pass),
# pass, and leave no kernel report (BUG, WARNING, KASAN, UBSAN, lockdep,
# Oops) in the log.  Prints each case's inputs, time and inputs per
# second, then "N passed, N failed".  Log and JSON in
# $BUILD/results/fuzz-<arch>.{log,json}.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
arch=${KGATE_ARCH:-x86_64}
# The debug kernel of make test-debug (FUZZ_DEBUG=1, the default: its build
# dir beside the gate's, from the gate's tree) or the gate's (FUZZ_DEBUG=0).
[ "${FUZZ_DEBUG:-1}" = 0 ] || kgate_debug_env
iters=${FUZZ_ITERS:-100000}
seed=${FUZZ_SEED:-1}
arch_known "$arch" || { echo "fuzz: unknown arch '$arch' ($KGATE_ARCHES)" >&2; exit 2; }
case $iters$seed in *[!0-9]*|'') echo "fuzz: FUZZ_ITERS and FUZZ_SEED are numbers" >&2; exit 2 ;; esac
cross=$(arch_cross "$arch")
results=$BUILD/results
mkdir -p "$results"

suites=$(python3 "$REPO/scripts/suites.py" --suffix _prop kunit "$KGATE_TREE/$arch") || exit 2
if [ -z "$suites" ]; then
	echo "fuzz: kunit/SUITES names no property suite (*_prop) for $KGATE_TREE/$arch" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

# Build (or reuse) the gate's kernel of the cell; its own KUnit pass is
# judged by the gate, not here.
kgate_need_kernel fuzz "$arch"

args=()
for m in overlay.params_prop overlay.fh_prop virtio_mem.prop; do
	args+=(--kernel_args="${m}_iters=$iters" --kernel_args="${m}_seed=$seed")
done
echo "fuzz: $KGATE_TREE/$arch, suites: $(echo $suites), $iters cases each from seed $seed"
t0=$(date +%s)
kgate_tcg "$BUILD/$arch"
(cd "$KTREE" && python3 tools/testing/kunit/kunit.py exec --arch="$arch" \
	--build_dir="$BUILD/$arch" --kunitconfig="$REPO/kunitconfig" \
	--qemu_config="$REPO/qemu_configs/$arch.py" ${cross:+--cross_compile=$cross} \
	--timeout="${FUZZ_TIMEOUT:-3600}" --json="$results/fuzz-$arch.json" \
	"${args[@]}") >"$results/fuzz-$arch.log" 2>&1
echo "fuzz: kunit.py exit $?, $(( $(date +%s) - t0 )) s"

python3 "$REPO/scripts/fuzz_verdict.py" "$results/fuzz-$arch.json" "$BUILD/$arch/test.log" \
	"$iters" "$seed" $suites
