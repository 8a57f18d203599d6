#!/usr/bin/env bash
# Gate timings on this machine, as figures and as ratios to the bare
# "kunit.py run" with the same kunitconfig, measured in one run (timings on
# these machines are noisy: compare the ratios, not the seconds).
#
#   scripts/bench.sh            no-change and one-file-change figures: a
#                               test file, a file of fs/overlayfs/, one of
#                               drivers/virtio/ (as a last patch of the series)
#   BENCH_COLD=1 scripts/bench.sh   also a cold gate in a scratch build dir
#                               with ccache off (takes 20+ minutes)
#   scripts/bench.sh config <rev>   cold kernel builds, <rev>'s config
#                               against the current one (objects, seconds)
#
# Speed goals live here, never in a timed test.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
# One tree (KGATE_TREE, default the first): its cells, one per arch of ARCHES.
ROOT=${BUILD:-$REPO/build}
KGATE_TREE=${KGATE_TREE:-${KGATE_TREES%% *}}
BUILD=$ROOT/$KGATE_TREE
kgate_tree_env
ARCHES=${ARCHES:-$KGATE_ARCHES}
CELLS=$(for a in $ARCHES; do printf '%s/%s ' "$KGATE_TREE" "$a"; done)
export BUILD CELLS

secs() { local t0; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $t0" | bc; }
gate() { BUILD=$ROOT "$REPO/scripts/gate.sh"; }
bare() {
	# What a developer would type by hand, per arch, same kunitconfig and
	# build dirs (so it sees the same up-to-date build).
	local a cross
	for a in $ARCHES; do
		cross=$(arch_cross "$a")
		kgate_tcg "$BUILD/$a"
		(cd "$KTREE" && python3 tools/testing/kunit/kunit.py run --arch="$a" \
			--build_dir="$BUILD/$a" --kunitconfig="$REPO/kunitconfig" \
			--qemu_config="$REPO/qemu_configs/$a.py" \
			--make_options="CC=ccache $(arch_cc "$a")" \
			${cross:+--cross_compile="$cross"})
	done
}

# scripts/bench.sh config <rev>: the kernel config of <rev> (kunitconfig,
# qemu_configs/) against the current one: each cell's kernel built cold
# (ccache off, scratch build dirs), the old then the new, one after the
# other; objects and seconds of each, and the ratio new/old.
if [ "${1:-}" = config ]; then
	rev=${2:?usage: scripts/bench.sh config <rev>}
	old=$(mktemp -d "$ROOT/.bench-config.XXXXXX")
	trap 'rm -rf "$old"' EXIT
	for f in kunitconfig qemu_configs/x86_64.py qemu_configs/arm64.py; do
		mkdir -p "$old/cfg/$(dirname "$f")"
		git -C "$REPO" show "$rev:$f" >"$old/cfg/$f" ||
			{ echo "bench: no $f at $rev" >&2; exit 2; }
	done
	cold_build() {	# <kunitconfig> <qemu_config> <arch> <build dir>
		local cross
		cross=$(arch_cross "$3")
		(cd "$KTREE" && CCACHE_DISABLE=1 kgate_locked python3 tools/testing/kunit/kunit.py build \
			--arch="$3" --build_dir="$4" --kunitconfig="$1" --qemu_config="$2" \
			--make_options="CC=$(arch_cc "$3")" ${cross:+--cross_compile="$cross"} \
			--jobs="$(nproc)") >"$4.log" 2>&1
	}
	printf '%-22s %8s %8s %8s %8s %7s %7s\n' "cell ($rev)" "old obj" "new obj" "old s" "new s" obj s
	for a in $ARCHES; do
		t0=$(date +%s)
		cold_build "$old/cfg/kunitconfig" "$old/cfg/qemu_configs/$a.py" "$a" "$old/old-$a" ||
			{ echo "bench: old config build failed: $old/old-$a.log" >&2; exit 1; }
		t1=$(date +%s)
		cold_build "$REPO/kunitconfig" "$REPO/qemu_configs/$a.py" "$a" "$old/new-$a" ||
			{ echo "bench: new config build failed: $old/new-$a.log" >&2; exit 1; }
		t2=$(date +%s)
		o=$(find "$old/old-$a" -name '*.o' | wc -l) n=$(find "$old/new-$a" -name '*.o' | wc -l)
		printf '%-22s %8d %8d %8d %8d %7s %7s\n' "$KGATE_TREE/$a" "$o" "$n" $((t1 - t0)) $((t2 - t1)) \
			"$(echo "scale=2; $n / $o" | bc)" "$(echo "scale=2; ($t2 - $t1) / ($t1 - $t0)" | bc)"
		rm -rf "$old/old-$a" "$old/new-$a"
	done
	exit 0
fi

echo "bench: warming up (one gate run)"
gate >/dev/null 2>&1

nochange=$(secs gate)
bare_nochange=$(secs bare)
# bare kunit.py rebuilt nothing, but it ran make: rebuild our stamp too.
gate >/dev/null 2>&1

# One test source changed: append a comment line to the first KUnit source.
f=$(cd "$REPO" && find "kunit/$KGATE_TREE" -name '*.c' | sort | head -n 1)
onefile=n/a bare_onefile=n/a
if [ -n "$f" ]; then
	cp "$REPO/$f" "$BUILD/.bench-orig"
	trap 'cp "$BUILD/.bench-orig" "$REPO/$f"' EXIT
	echo "/* bench $(date +%s%N) */" >>"$REPO/$f"
	onefile=$(secs gate)
	echo "/* bench $(date +%s%N) */" >>"$REPO/$f"
	"$REPO/scripts/tree.sh" >/dev/null
	bare_onefile=$(secs bare)
	cp "$BUILD/.bench-orig" "$REPO/$f"
	trap - EXIT
	gate >/dev/null 2>&1
fi

# One kernel source changed, as a developer's commit would: a comment
# line appended to <path>, as a last patch of the series (removed after).
kernel_onefile() {	# kernel_onefile <path in the kernel tree>: seconds of the gate
	local path=$1 tmp p s
	tmp=$(mktemp -d "$ROOT/.bench-patch.XXXXXX")
	git clone -q --shared "$KTREE" "$tmp/linux" || return 1
	echo "/* bench $(date +%s%N) */" >>"$tmp/linux/$path"
	git -C "$tmp/linux" -c user.name=bench -c user.email=bench@localhost \
		commit -qam "bench: touch $path" || return 1
	p=$PATCHES/9999-bench-touch.patch
	git -C "$tmp/linux" format-patch -q -1 --stdout >"$p"
	cp "$PATCHES/series" "$tmp/series"
	# shellcheck disable=SC2064  # the paths of this call
	trap "cp '$tmp/series' '$PATCHES/series'; rm -f '$p'" EXIT
	echo 9999-bench-touch.patch >>"$PATCHES/series"
	s=$(secs gate)
	cp "$tmp/series" "$PATCHES/series"
	rm -f "$p"
	trap - EXIT
	rm -rf "$tmp"
	gate >/dev/null 2>&1
	echo "$s"
}
ovl=$(kernel_onefile fs/overlayfs/copy_up.c)
virtio=$(kernel_onefile drivers/virtio/virtio_mem.c)

cold=n/a
if [ "${BENCH_COLD:-0}" = 1 ]; then
	scratch=$(mktemp -d "$BUILD/.bench-cold.XXXXXX")
	cold=$(BUILD=$scratch CCACHE_DISABLE=1 secs "$REPO/scripts/gate.sh")
	rm -rf "$scratch"
fi

ratio() { [ "$2" = n/a ] || [ "$1" = n/a ] && { echo n/a; return; }; echo "scale=2; $1 / $2" | bc; }
printf '\n%-28s %10s %14s %8s\n' "case ($KGATE_TREE: $ARCHES)" "gate s" "kunit.py s" "ratio"
printf '%-28s %10.1f %14.1f %8s\n' "no change" "$nochange" "$bare_nochange" "$(ratio "$nochange" "$bare_nochange")"
[ "$onefile" != n/a ] && printf '%-28s %10.1f %14.1f %8s\n' "one test file changed" "$onefile" "$bare_onefile" "$(ratio "$onefile" "$bare_onefile")"
printf '%-28s %10.1f %14s %8s\n' "fs/overlayfs/ file changed" "$ovl" "-" "-"
printf '%-28s %10.1f %14s %8s\n' "drivers/virtio/ file changed" "$virtio" "-" "-"
[ "$cold" != n/a ] && printf '%-28s %10.1f %14s %8s\n' "cold (no ccache)" "$cold" "-" "-"
echo "(gate = tree + KUnit + end-to-end + verdict; kunit.py = bare 'kunit.py run' per arch, KUnit only)"
