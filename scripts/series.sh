#!/usr/bin/env bash
# Export the commits on top of "base" in the kernel tree of $KGATE_TREE as
# patches/<tree>/ (one git format-patch file per commit, stable names and
# content) and rewrite patches/<tree>/series.  The tree is then marked as in sync with patches/, so the
# next "make tree" has nothing to do.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env

git_t() { git -C "$KTREE" "$@"; }
# shellcheck source=scripts/testfiles.sh
. "$REPO/scripts/testfiles.sh"

die() { echo "series: $*" >&2; exit 1; }
[ -d "$KTREE/.git" ] || { echo "series: $KGATE_TREE: no tree at $KTREE yet (make tree TREES=$KGATE_TREE); nothing to export"; exit 0; }
git -C "$KTREE" rev-parse -q --verify base >/dev/null || die "$KTREE has no base tag"
if [ -n "$(user_edits)" ]; then
	user_edits >&2
	die "$KTREE has uncommitted edits (above): commit them first"
fi

# kunit/ edits made since the last "make tree" are laid over the tree first
# (as scripts/tree.sh does), unless the tree's copy was edited too.
touch "$LIST"
while read -r f; do
	[ -n "$f" ] || continue
	cmp -s "$KUNIT_SRC/$f" "$SHADOW/$f" && continue
	if [ -f "$KTREE/$f" ] && ! cmp -s "$KTREE/$f" "$SHADOW/$f" && ! same_as_head "$f" &&
		! cmp -s "$KTREE/$f" "$KUNIT_SRC/$f"; then
		die "kunit/$KGATE_TREE/$f and $KTREE/$f were both edited; keep one (copy it over the other), then make series"
	fi
	mkdir -p "$(dirname "$KTREE/$f")" "$(dirname "$SHADOW/$f")"
	cp "$KUNIT_SRC/$f" "$KTREE/$f"
	cp "$KUNIT_SRC/$f" "$SHADOW/$f"
	echo "series: laid kunit/$KGATE_TREE/$f over the tree"
done < <(kunit_files)
kunit_files | LC_ALL=C sort -u -o "$LIST" - "$LIST"

# Test files edited in kunit/ (laid over the tree): fold each hunk into the
# commit whose lines it changes.
mapfile -t edited < <(while read -r f; do
	[ -n "$f" ] && is_overlay "$f" && ! same_as_head "$f" && echo "$f"
done <"$LIST")
for f in "${edited[@]}"; do
	git_t cat-file -e "HEAD:$f" 2>/dev/null ||
		die "kunit/$KGATE_TREE/$f is not in the series yet: add it in $KTREE with the patch that builds it (git add $f; git commit --fixup=<commit>; git rebase -i --autosquash base), then make series"
done
if [ ${#edited[@]} -gt 0 ]; then
	python3 "$REPO/scripts/absorb.py" "$KTREE" "${edited[@]}" ||
		die "kunit/ edits not folded in (above); patches/ unchanged"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$KTREE" format-patch -q --zero-commit --no-signature --abbrev=12 \
	-o "$tmp" base..HEAD

sub=$(sed -n 's/^SUBLEVEL = //p' "$KTREE/Makefile")
{
	echo "# Apply in this order on top of $TREE_PKG (see README.md)."
	echo "# base: $TREE_PKG $KGATE_TREE.$sub"
	(cd "$tmp" && ls -1 -- *.patch 2>/dev/null || true)
} >"$tmp/series"

# Replace the old files only once the new ones exist.
mkdir -p "$PATCHES"
find "$PATCHES" -maxdepth 1 -name '*.patch' -delete
if compgen -G "$tmp/*.patch" >/dev/null; then
	mv "$tmp"/*.patch "$PATCHES/"
fi
mv "$tmp/series" "$PATCHES/series"

# kunit/ = the series' test files (also those committed in the tree).
while read -r f; do
	[ -n "$f" ] || continue
	mkdir -p "$KUNIT_SRC/$(dirname "$f")" "$SHADOW/$(dirname "$f")"
	if ! cmp -s <(git_t show "HEAD:$f") "$KUNIT_SRC/$f"; then
		git_t show "HEAD:$f" >"$KUNIT_SRC/$f"
		echo "series: kunit/$KGATE_TREE/$f updated from the series"
	fi
	cp "$KUNIT_SRC/$f" "$SHADOW/$f"
	grep -qxF -- "$f" "$LIST" 2>/dev/null || echo "$f" >>"$LIST"
done < <(series_test_files)
LC_ALL=C sort -u -o "$LIST" "$LIST"

# Mark the tree as in sync (the same key scripts/tree.sh computes).
mapfile -t series < <(series_list)
series_key >"$KTREE/.git/kgate-series-key"
git -C "$KTREE" update-ref refs/kgate/applied HEAD
echo "series: wrote ${#series[@]} patch(es) to patches/$KGATE_TREE/"
(cd "$REPO" && git status --short -- "patches/$KGATE_TREE/" "kunit/$KGATE_TREE/")
