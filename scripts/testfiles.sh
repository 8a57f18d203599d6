# The test sources of the series, shared by scripts/tree.sh and
# scripts/series.sh (sourced, not run; needs KUNIT_SRC, KTREE and git_t).
#
# The test sources: kunit/<tree>/<path> ($KUNIT_SRC) is the editable copy
# of <path>, a file the series adds.  $SHADOW/<path> keeps what was last laid over the tree from
# kunit/, $LIST the paths, $SYNC how kunit/ compares with the series.
SHADOW=$KTREE/.git/kgate-kunit
LIST=$KTREE/.git/kgate-kunit-files
SYNC=$KTREE/.git/kgate-sync
kunit_files() {
	# A tree whose series has no test file yet has no kunit/<tree>/: none.
	[ -d "$KUNIT_SRC" ] || return 0
	(cd "$KUNIT_SRC" && find . -mindepth 2 -type f ! -name '*~' ! -name '.*.swp' |
		sed 's|^\./||' | LC_ALL=C sort)
}
# The test files the series adds (KUnit sources and .kunitconfig files).
series_test_files() {
	git_t diff --name-only --diff-filter=A base HEAD |
		grep -E '(_kunit\.c|(^|/)\.kunitconfig)$' | LC_ALL=C sort || true
}
same_as_head() { git_t cat-file -e "HEAD:$1" 2>/dev/null && cmp -s <(git_t show "HEAD:$1") "$KTREE/$1"; }
is_overlay() { grep -qxF -- "$1" "$LIST" 2>/dev/null && cmp -s "$KTREE/$1" "$SHADOW/$1"; }
# Uncommitted edits of the tree, less the test files laid over it from kunit/.
user_edits() {
	git_t status --porcelain=v1 --untracked-files=no | while IFS= read -r l; do
		is_overlay "${l:3}" || echo "$l"
	done
}
overlay_to_index() {
	local f
	[ -f "$LIST" ] || return 0
	while read -r f; do
		[ -n "$f" ] && is_overlay "$f" && git_t cat-file -e "HEAD:$f" 2>/dev/null &&
			git_t add -f -- "$f"
	done <"$LIST" || true
}
# Keep a test file edited in the tree (not committed) before it is
# overwritten: <file>.local, or <file>.local.N when that exists.
keep_local() {
	local dst=$KTREE/$1 keep n=1
	keep=$dst.local
	while [ -e "$keep" ]; do keep=$dst.local.$n; n=$((n + 1)); done
	cp "$dst" "$keep"
	echo "tree: warning: $1 was edited in the tree; kept as ${keep#"$KTREE"/}; edit kunit/$KGATE_TREE/$1 instead (or commit it there and run make series)" >&2
}
