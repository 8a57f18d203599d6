#!/usr/bin/env bash
# The series as it is posted, tests included: the commits scripts/tree.sh
# made from patches/<tree>/ and kunit/ (each test file with the patch that
# patches/<tree>/tests names), as git format-patch files in
# $BUILD/postable/ ($BUILD: build/<tree>), with their series file.  Prints
# the directory.  Needs the tree (make tree) in step with patches/ and kunit/.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env

die() { echo "postable: $*" >&2; exit 1; }
[ -d "$KTREE/.git" ] || die "no tree at $KTREE yet: make tree TREES=$KGATE_TREE"
[ "$(cat "$KTREE/.git/kgate-series-key" 2>/dev/null)" = "$(series_key)" ] ||
	die "$KTREE is not made from patches/$KGATE_TREE/ and kunit/ as they are: make tree TREES=$KGATE_TREE"
out=$BUILD/postable
rm -rf "$out.new"
git -C "$KTREE" format-patch -q --zero-commit --no-signature --abbrev=12 -o "$out.new" \
	base..refs/kgate/applied
(cd "$out.new" && ls -1 -- *.patch) >"$out.new/series"
rm -rf "$out"
mv "$out.new" "$out"
echo "$out"
