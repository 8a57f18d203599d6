#!/usr/bin/env bash
# Build the kernel at every patch of the series, one after the other, so
# that each patch is known to build on its own (bisectable series).
#
# Runs in its own worktree ($BUILD/buildcheck/linux) and build directory,
# with the gate's x86_64 .config (every test option on), so the gate's tree
# and builds are not touched.  The tests come from the patches alone (the
# series carries them; kunit/ is not copied in), so a patch that builds a
# test file without adding it breaks here.  KGATE_ARCH=arm64 (make
# buildcheck ARCHES=arm64) checks arm64 instead.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
arch=${KGATE_ARCH:-x86_64}
arch_known "$arch" || { echo "buildcheck: unknown arch $arch (known: $KGATE_ARCHES)" >&2; exit 2; }
cross=$(arch_cross "$arch")
cc=$(arch_cc "$arch")
cfg=$BUILD/$arch/.config
[ -f "$cfg" ] || { echo "buildcheck: no $cfg yet; run: make kunit-$arch" >&2; exit 1; }

wt=$BUILD/buildcheck/linux
out=$BUILD/buildcheck/$arch
if [ ! -d "$wt" ]; then
	git -C "$KTREE" worktree add -q --detach "$wt" base
fi
mkdir -p "$out"

kgate_build_env

fail=0 n=0
for c in $(git -C "$KTREE" rev-list --reverse base..refs/kgate/applied); do
	n=$((n + 1))
	subj=$(git -C "$KTREE" log -1 --format=%s "$c")
	git -C "$wt" checkout -q -f --detach "$c"
	cp "$cfg" "$out/.config"
	t0=$(date +%s)
	if kgate_locked make -s -C "$wt" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="ccache $cc" -j"$(nproc)" olddefconfig all >"$out/build-$n.log" 2>&1 &&
		! grep -q 'warning:' "$out/build-$n.log"; then
		echo "builds    $n $subj ($(( $(date +%s) - t0 )) s)"
	else
		echo "BREAKS    $n $subj: see $out/build-$n.log"
		grep -E 'error|warning' "$out/build-$n.log" | head -n 5
		fail=$((fail + 1))
	fi
done
echo "buildcheck: $n patch(es), $fail did not build cleanly ($arch)"
[ $fail -eq 0 ]
