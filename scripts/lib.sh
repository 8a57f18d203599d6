# shellcheck shell=bash
# Shared by the scripts (sourced, not run): the series helpers of
# scripts/tree.sh and scripts/series.sh, and the per-arch and build facts
# every script that builds or boots a kernel uses.  This is the one place
# these facts live; e2e/lib/e2e/arches.py asks arch_cc through bash, and the
# Makefile reads KGATE_ARCHES.

# The patch names of patches/series, in order, one a line.
series_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series" 2>/dev/null || true
}

# What the series produces depends only on base and the patch files: this
# key names that result.
series_key() {
	{
		git -C "$KTREE" rev-parse base
		series_list | while read -r p; do echo "$p"; cat "$PATCHES/$p"; done
	} | sha1sum | cut -d' ' -f1
}

# ---- arches ------------------------------------------------------------------
# The QEMU side of each arch (machine, console, kernel image path) is in
# qemu_configs/<arch>.py, read by kunit.py and by the end-to-end runs.

# The arches the gate covers when none is named.
KGATE_ARCHES="x86_64 arm64"

# arch_known <arch>: true for an arch this project builds and boots.
arch_known() {
	case " $KGATE_ARCHES " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# arch_cross <arch>: the CROSS_COMPILE prefix of arch (empty: native).
arch_cross() {
	case $1 in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) echo "unknown arch '$1' (known: $KGATE_ARCHES)" >&2; return 2 ;;
	esac
}

# arch_cc <arch>: the C compiler of arch (kernel, static guest programs).
arch_cc() {
	local cross
	cross=$(arch_cross "$1") || return
	echo "${cross}gcc"
}

# arch_cc_pkg <arch>: the Debian package that ships arch_cc.
arch_cc_pkg() {
	local cross
	cross=$(arch_cross "$1") || return
	if [ -n "$cross" ]; then echo "gcc-${cross%-}"; else echo gcc; fi
}

# ---- builds ------------------------------------------------------------------

# Builds of all clones on this machine are serialised by this lock: the
# machine has two cores and one kernel build already uses both.
KGATE_LOCK=${KGATE_LOCK:-/tmp/kgate-build.lock}

# kgate_build_env: export the environment of every kernel build.
kgate_build_env() {
	local repo
	repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	# One cache for every clone: paths below CCACHE_BASEDIR are hashed
	# relative to the build directory, and every clone has the same
	# build/ layout.
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$repo")}
	export CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-time_macros}
	# The build's timestamp and user go into init/version.c: pin them so
	# that a rebuild with nothing changed stays a no-op for ccache too.
	export KBUILD_BUILD_TIMESTAMP=${KBUILD_BUILD_TIMESTAMP:-2023-01-01}
	export KBUILD_BUILD_USER=kgate KBUILD_BUILD_HOST=kgate KBUILD_BUILD_VERSION=1
}
