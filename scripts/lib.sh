# shellcheck shell=bash
# Shared by the scripts (sourced, not run): the series helpers of
# scripts/tree.sh and scripts/series.sh, and the per-arch and build facts
# every script that builds or boots a kernel uses.  This is the one place
# these facts live; e2e/lib/e2e/arches.py asks arch_cc through bash, and the
# Makefile reads KGATE_ARCHES.

# ---- trees -------------------------------------------------------------------
# The kernel trees, each named by its Debian package linux-source-<tree>.
# A tree has its series in patches/<tree>/ (the patches and their series
# file, and tests: which patch adds which test file), its test files in kunit/<tree>/
# or kunit/all/ (scripts/testsrc.py), its mutants in mutants/<tree>/, and
# its own build dir $BUILD/<tree>/ (kernel tree, one build dir per arch,
# results), so each cell (tree x arch) can run alone.
KGATE_TREES="6.1 6.12 7.3"
# The trees of the cells when none is named (CELLS=all: every tree).  7.3
# is left out: its two cells would take a cold gate past its budget
# (README, "Figures").
KGATE_DEFAULT_TREES="6.1 6.12"

# kgate_source_line <tree>: the apt line that offers linux-source-<tree>,
# for a tree whose package the machine's own apt sources do not carry
# (scripts/source.sh fetches it through a list of the project's own);
# status 1 for a tree installed from the system's sources.
kgate_source_line() {
	case $1 in
	7.3) echo "deb http://deb.debian.org/debian trixie-backports main" ;;
	*) return 1 ;;
	esac
}

# tree_known <tree>: true for a tree this project has a series for.
tree_known() {
	case " $KGATE_TREES " in *" $1 "*) return 0 ;; *) return 1 ;; esac
}

# kgate_tree_env: the facts of the tree $KGATE_TREE (default: the first of
# KGATE_TREES): PATCHES, TREE_PKG, TARBALL (installed by make deps, or for
# a tree of kgate_source_line fetched by scripts/source.sh into
# KGATE_SOURCES, default build/sources) and, unless set,
# BUILD ($REPO/build/<tree>) and KTREE ($BUILD/linux).  Needs REPO.
# shellcheck disable=SC2034,SC2153  # set for the scripts that source this
kgate_tree_env() {
	KGATE_TREE=${KGATE_TREE:-${KGATE_TREES%% *}}
	if ! tree_known "$KGATE_TREE"; then
		echo "unknown tree '$KGATE_TREE' (known: $KGATE_TREES)" >&2
		exit 2
	fi
	export KGATE_TREE
	# KGATE_REPO: another repository's patches/ and kunit/ (host tests).
	PATCHES=${KGATE_REPO:-$REPO}/patches/$KGATE_TREE
	TREE_PKG=linux-source-$KGATE_TREE
	if kgate_source_line "$KGATE_TREE" >/dev/null; then
		TARBALL=${TARBALL:-${KGATE_SOURCES:-$REPO/build/sources}/$TREE_PKG.tar.xz}
	else
		TARBALL=${TARBALL:-/usr/src/$TREE_PKG.tar.xz}
	fi
	BUILD=${BUILD:-$REPO/build/$KGATE_TREE}
	KTREE=${KTREE:-$BUILD/linux}
}

# kgate_cells: the cells to run, one "tree arch" a line.  CELLS (words
# tree/arch, or "all") wins; else, when TREES or ARCHES is set, every tree of
# TREES (default all) with every arch of ARCHES (default all); else every
# default tree (KGATE_DEFAULT_TREES) on both arches, as users run kunit.py
# (--arch=x86_64 and --arch=arm64); CELLS=all: every tree on both arches.
# An unknown tree, arch or cell: a message and status 2.
kgate_cells() {
	local c t a cells=()
	local trees=${TREES:-$KGATE_DEFAULT_TREES}
	[ "${CELLS:-}" = all ] && trees=$KGATE_TREES
	if [ -n "${CELLS:-}" ] && [ "$CELLS" != all ]; then
		read -ra cells <<<"$CELLS"
	else
		for t in $trees; do
			for a in ${ARCHES:-$KGATE_ARCHES}; do cells+=("$t/$a"); done
		done
	fi
	for c in "${cells[@]}"; do
		t=${c%%/*} a=${c#*/}
		if [ "$c" = "$t" ] || ! tree_known "$t" || ! arch_known "$a"; then
			echo "unknown cell '$c' (a cell is tree/arch; trees: $KGATE_TREES; arches: $KGATE_ARCHES)" >&2
			return 2
		fi
		echo "$t $a"
	done
}

# The patch names of patches/<tree>/series, in order, one a line.
series_list() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$PATCHES/series" 2>/dev/null || true
}

# What the series produces depends only on base and the patch files: this
# key names that result.
series_key() {
	{
		git -C "$KTREE" rev-parse base
		series_list | while read -r p; do echo "$p"; cat "$PATCHES/$p"; done
		"$REPO/scripts/testsrc.py" owners "$KGATE_TREE" 2>&1 |
			while IFS=$'\t' read -r p f src; do echo "$p $f"; cat "$src" 2>/dev/null; done
	} | sha1sum | cut -d' ' -f1
}

# kgate_debug_env: switch a script of the cell $KGATE_TREE (BUILD: its
# build/<tree>) to the debug kernel of make test-debug: built from the same
# tree in build/debug/<tree>/ with debug/kunitconfig over the gate's config;
# on x86_64 booted as bzImage (qemu_configs/x86_64.py).
kgate_debug_env() {
	KTREE=${KTREE:-$BUILD/linux}
	BUILD=${DEBUG_BUILD:-$(dirname "$BUILD")/debug}/$KGATE_TREE
	export KTREE BUILD KGATE_KUNITCONFIG_EXTRA=$REPO/debug/kunitconfig
	export KGATE_X86_64_IMAGE=arch/x86/boot/bzImage
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

# arch_kernel_path <arch>: the image QEMU boots, relative to the build dir
# (kernel_path of qemu_configs/<arch>.py, read through e2e/lib/e2e/arches.py).
KGATE_E2E_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib" && pwd)
arch_kernel_path() {
	python3 -c "import sys; sys.path.insert(0, sys.argv[1])
from e2e import arches; print(arches.get(sys.argv[2]).params.kernel_path)" \
		"$KGATE_E2E_LIB" "$1"
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

# kgate_tcg <dir>: QEMU under TCG only for the rest of the script, whatever
# kunit.py asks for: links named like QEMU's binaries to scripts/qemu-tcg in
# <dir>/.kgate-qemu, first on PATH.
kgate_tcg() {
	local d=$1/.kgate-qemu q
	mkdir -p "$d"
	for q in qemu-system-x86_64 qemu-system-aarch64; do
		ln -sfn "$KGATE_E2E_LIB/../../scripts/qemu-tcg" "$d/$q"
	done
	export PATH="$d:$PATH"
}

# ---- builds ------------------------------------------------------------------

# Builds of all clones on this machine are serialised by this lock: the
# machine has two cores and one kernel build already uses both.
KGATE_LOCK=${KGATE_LOCK:-/tmp/kgate-build.lock}

# kgate_locked <command...>: run the command holding KGATE_LOCK.  When
# another build holds it, say so on stderr first, and how long the wait
# was once it is over, so that a timing taken meanwhile is not silently
# another build's.  The command runs without the lock's descriptor: a
# process it leaves behind does not keep the lock.
kgate_locked() {
	local fd t0 rc
	exec {fd}>>"$KGATE_LOCK"
	if ! flock -n "$fd"; then
		echo "build lock: $KGATE_LOCK is held by another build of this machine; waiting" >&2
		t0=$(date +%s)
		flock "$fd"
		echo "build lock: waited $(( $(date +%s) - t0 )) s" >&2
	fi
	"$@" {fd}>&-
	rc=$?
	exec {fd}>&-
	return $rc
}

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

# kgate_need_kernel <who> <arch>: build (or reuse) $BUILD/<arch>'s KUnit
# kernel through scripts/kunit.sh (whose own KUnit pass is judged elsewhere:
# only a note here), then exit 1 with "0 passed, 1 failed" if there is none.
kgate_need_kernel() {
	local who=$1 arch=$2
	"$REPO/scripts/kunit.sh" "$arch" >/dev/null 2>&1 ||
		echo "$who: note: the KUnit pass on $KGATE_TREE/$arch was not green ($BUILD/results/$arch.log)"
	[ -f "$BUILD/$arch/.kgate-built" ] || {
		echo "$who: no KUnit kernel for $KGATE_TREE/$arch; see $BUILD/results/$arch.log" >&2
		echo "0 passed, 1 failed"
		exit 1
	}
}

# suite_key <suite> <arch>: what an end-to-end or conformance suite's last
# green result stands for on the cell: the kernel tree less the paths other
# suites alone claim and less the test files (scripts/scope.py, kunit/PATHS),
# the kernel's .config and the files that shape the build.  The suite's own
# files are the caller's to add.  (BUILD, KTREE and KGATE_TREE set.)
suite_key() {
	local suite=$1 arch=$2 ex=()
	mapfile -t ex < <("$REPO/scripts/testsrc.py" files "$KGATE_TREE" 2>/dev/null | cut -f1 |
		sed 's/^/--exclude=/')
	{
		"$REPO/scripts/scope.py" key "$KTREE" "$suite" "${ex[@]}" || date +%s%N
		cat "$BUILD/$arch/.config" 2>/dev/null || date +%s%N
		cat "$REPO/kunitconfig" "$REPO/kunit/PATHS" "$REPO/qemu_configs/$arch.py" \
			"$REPO/scripts/lib.sh" "$REPO/scripts/scope.py"
		"$(arch_cc "$arch")" --version 2>/dev/null | head -n 1
	} | sha1sum | cut -d' ' -f1
}

# suite_claims <suite>: its kunit/PATHS paths on one line ("the whole tree"
# if none), for the gate's messages.
suite_claims() {
	local c
	c=$("$REPO/scripts/scope.py" claims "$1" 2>/dev/null | paste -sd' ')
	echo "${c:-the whole tree}"
}
