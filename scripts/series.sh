#!/usr/bin/env bash
# Export the commits on top of "base" in the kernel tree as patches/ (one
# git format-patch file per commit, stable names and content) and rewrite
# patches/series.  The tree is then marked as in sync with patches/, so the
# next "make tree" has nothing to do.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
KTREE=${KTREE:-$BUILD/linux}
PATCHES=$REPO/patches
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"

git_t() { git -C "$KTREE" "$@"; }
# shellcheck source=scripts/testfiles.sh
. "$REPO/scripts/testfiles.sh"

die() { echo "series: $*" >&2; exit 1; }
[ -d "$KTREE/.git" ] || die "no tree at $KTREE; run: make tree"
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
	cmp -s "$REPO/kunit/$f" "$SHADOW/$f" && continue
	if [ -f "$KTREE/$f" ] && ! cmp -s "$KTREE/$f" "$SHADOW/$f" && ! same_as_head "$f" &&
		! cmp -s "$KTREE/$f" "$REPO/kunit/$f"; then
		die "kunit/$f and $KTREE/$f were both edited; keep one (copy it over the other), then make series"
	fi
	mkdir -p "$(dirname "$KTREE/$f")" "$(dirname "$SHADOW/$f")"
	cp "$REPO/kunit/$f" "$KTREE/$f"
	cp "$REPO/kunit/$f" "$SHADOW/$f"
	echo "series: laid kunit/$f over the tree"
done < <(kunit_files)
kunit_files | LC_ALL=C sort -u -o "$LIST" - "$LIST"

# Test files edited in kunit/ (laid over the tree): fold each hunk into the
# commit whose lines it changes.
mapfile -t edited < <(while read -r f; do
	[ -n "$f" ] && is_overlay "$f" && ! same_as_head "$f" && echo "$f"
done <"$LIST")
for f in "${edited[@]}"; do
	git_t cat-file -e "HEAD:$f" 2>/dev/null ||
		die "kunit/$f is not in the series yet: add it in $KTREE with the patch that builds it (git add $f; git commit --fixup=<commit>; git rebase -i --autosquash base), then make series"
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
	echo "# Apply in this order on top of linux-source-6.1 (see README.md)."
	echo "# base: linux-source-6.1 6.1.$sub"
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
	mkdir -p "$REPO/kunit/$(dirname "$f")" "$SHADOW/$(dirname "$f")"
	if ! cmp -s <(git_t show "HEAD:$f") "$REPO/kunit/$f"; then
		git_t show "HEAD:$f" >"$REPO/kunit/$f"
		echo "series: kunit/$f updated from the series"
	fi
	cp "$REPO/kunit/$f" "$SHADOW/$f"
	grep -qxF -- "$f" "$LIST" 2>/dev/null || echo "$f" >>"$LIST"
done < <(series_test_files)
LC_ALL=C sort -u -o "$LIST" "$LIST"

# Mark the tree as in sync (the same key scripts/tree.sh computes).
mapfile -t series < <(series_list)
series_key >"$KTREE/.git/kgate-series-key"
git -C "$KTREE" update-ref refs/kgate/applied HEAD
echo "series: wrote ${#series[@]} patch(es) to patches/"
(cd "$REPO" && git status --short -- patches/ kunit/)
