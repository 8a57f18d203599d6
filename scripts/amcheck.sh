#!/usr/bin/env bash
# The series as a maintainer receives it: a clean tree from the tarball,
# "git am" of the postable series (scripts/postable.sh: patches/<tree>/ with
# the test files of kunit/ in the patches that add them), then kunit.py as
# its users type it, with the .kunitconfig files the series adds and nothing
# else from this repository.
#
#   scripts/amcheck.sh [arch]        (default $KGATE_ARCH, else x86_64)
#
# AMCHECK_POST="<dir>...": git am those folders' patches instead, in
# order (postings of make upstream, build/upstream/<topic>/, cover letters
# left out; a test posting after the fix posting it needs), then
# kunit.py with the .kunitconfig files those patches add (none: kunit.py's
# default config, so the posting is built and KUnit's own tests run).
#
# Works in $BUILD/amcheck/ (its own tree and build dir; the gate's are not
# touched; a posting: $BUILD/amcheck-<its folder's name>/).  The kernel config differs from the gate's, so the first build
# is a cold one (about 14 minutes here); later runs reuse the build dir.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
arch=${1:-${KGATE_ARCH:-x86_64}}
arch_known "$arch" || { echo "amcheck: unknown arch '$arch' (known: $KGATE_ARCHES)" >&2; exit 2; }
cross=$(arch_cross "$arch")
[ -r "$TARBALL" ] || { echo "amcheck: $TARBALL not found; install it: apt-get install $TREE_PKG (or run: make deps)" >&2; exit 1; }

top=$BUILD/amcheck${AMCHECK_POST:+-$(basename "${AMCHECK_POST##* }")}
tree=$top/linux
rm -rf "$tree" "$top/.x"
mkdir -p "$top/.x"
echo "amcheck: extracting $TARBALL"
tar -C "$top/.x" -xf "$TARBALL"
mv "$(find "$top/.x" -mindepth 1 -maxdepth 1 -type d | head -n 1)" "$tree"
rmdir "$top/.x"
git -C "$tree" init -q
git -C "$tree" add -A -f .
git -C "$tree" -c user.name=amcheck -c user.email=amcheck@localhost commit -q -m base
# series: the patch files to apply, in order (full paths).
series=()
if [ -n "${AMCHECK_POST:-}" ]; then
	for d in $AMCHECK_POST; do
		post=$(cd "$d" && pwd)
		n=${#series[@]}
		for f in "$post"/*.patch; do
			[ "$(basename "$f")" = 0000-cover-letter.patch ] || series+=("$f")
		done
		[ ${#series[@]} -gt "$n" ] || { echo "amcheck: no patch in $post" >&2; exit 1; }
		echo "\$ git am ${post#"$REPO"/}/*.patch   ($((${#series[@]} - n)) patches)"
	done
else
	post=$("$REPO/scripts/postable.sh")
	mapfile -t names <"$post/series"
	series=("${names[@]/#/$post/}")
	echo "\$ git am ${post#"$REPO"/}/*.patch   (${#series[@]} patches)"
fi
git -C "$tree" -c user.name=amcheck -c user.email=amcheck@localhost am -q "${series[@]}"
git -C "$tree" log --oneline | head -n $((${#series[@]} + 1))

kgate_build_env
kgate_tcg "$top"
args=(run --arch="$arch" --build_dir="$top/$arch" --jobs="$(nproc)")
while read -r k; do
	args+=(--kunitconfig="$k")
done < <(cat "${series[@]}" | sed -n 's|^+++ b/\(.*\)/\.kunitconfig$|\1|p' | sort -u)
[ -n "$cross" ] && args+=(--cross_compile="$cross")
echo "\$ tools/testing/kunit/kunit.py ${args[*]}"
cd "$tree"
kgate_locked python3 tools/testing/kunit/kunit.py "${args[@]}"
