#!/usr/bin/env bash
# Prepare the patched kernel tree of $KGATE_TREE (6.1, 6.12, 7.3; default 6.1) in
# $KTREE (default build/<tree>/linux):
#
#  1. import /usr/src/linux-source-<tree>.tar.xz (7.3: build/sources/, see
#     scripts/source.sh) once, as the commit tagged
#     "base" of a git repository inside the tree;
#  2. turn patches/<tree>/series into commits on top of base without touching the
#     work tree (a private index), each with the test files of kunit/ that
#     patches/<tree>/tests gives it (scripts/testsrc.py), then move the work
#     tree to the result: git rewrites only the files that differ, so make
#     rebuilds only those.  The commits are the postable series, tests
#     included (make amcheck posts them); an edit in kunit/ is a new series.
#
# Nothing is lost: a tree with uncommitted edits or with commits that are not
# in patches/ is left alone (run "make series" to export them, or FORCE=1).
# A patch that does not apply stops the run with its name; the tree stays as
# it was.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
FORCE=${FORCE:-0}
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env

die() { echo "tree: $*" >&2; exit 1; }
say() { echo "tree: $*"; }

if kgate_source_line "$KGATE_TREE" >/dev/null; then
	# Not in the machine's apt sources: fetched through the project's own
	# list (a newer backport replaces the tarball, and the tree is
	# re-imported below).
	"$REPO/scripts/source.sh" "$KGATE_TREE" >/dev/null || exit 1
fi
[ -r "$TARBALL" ] || die "$TARBALL not found; install it: apt-get install $TREE_PKG (or run: make deps)"

git_t() { git -C "$KTREE" -c user.name=kgate -c user.email=kgate@localhost "$@"; }

user_edits() { git_t status --porcelain=v1 --untracked-files=no; }

# ---- 1. the base import ---------------------------------------------------
src_id() {
	local v
	v=$(cat "$TARBALL.version" 2>/dev/null ||
		dpkg-query -W -f='${Version}' "$TREE_PKG" 2>/dev/null || echo unknown)
	echo "$(basename "$TARBALL") $v $(stat -c '%s %Y' "$TARBALL")"
}

import_base() {
	local tmp
	say "importing $TARBALL (once; takes about a minute)"
	mkdir -p "$BUILD"
	tmp=$(mktemp -d "$BUILD/.import.XXXXXX")
	tar -C "$tmp" -xf "$TARBALL" || { rm -rf "$tmp"; die "cannot extract $TARBALL"; }
	local top
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -f "$top/Makefile" ] || { rm -rf "$tmp"; die "$TARBALL holds no kernel tree"; }
	git -C "$top" init -q -b series
	git -C "$top" config core.abbrev 12
	git -C "$top" config gc.auto 0
	# The tarball's own .gitignore files hide generated files: keep them.
	git -C "$top" add -A -f . >/dev/null
	local sub
	sub=$(sed -n 's/^SUBLEVEL = //p' "$top/Makefile")
	GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000" \
		git -C "$top" -c user.name=kgate -c user.email=kgate@localhost \
		commit -q -m "Import $TREE_PKG $KGATE_TREE.$sub ($(src_id))"
	git -C "$top" tag base
	src_id >"$top/.git/kgate-source"
	rm -rf "$KTREE"
	mv "$top" "$KTREE"
	rmdir "$tmp"
}

if [ ! -d "$KTREE/.git" ]; then
	import_base
elif [ "$(cat "$KTREE/.git/kgate-source" 2>/dev/null)" != "$(src_id)" ]; then
	if [ "$FORCE" != 1 ] && [ -n "$(user_edits)" ]; then
		die "$TREE_PKG changed, but $KTREE has uncommitted edits; export them (make series) or rerun with FORCE=1"
	fi
	say "$TREE_PKG changed ($(src_id)); re-importing"
	mv "$KTREE" "$KTREE.old.$$"
	import_base
	say "old tree kept at $KTREE.old.$$ (delete it when done)"
fi

# ---- 2. the series ---------------------------------------------------------
tree_sub=$(sed -n 's/^SUBLEVEL = //p' "$KTREE/Makefile")
# What was imported, as the gate's log names it: "7.3.4 (7.3.4-1~bpo13+1)".
kver="$KGATE_TREE.$tree_sub ($(cut -d' ' -f2 "$KTREE/.git/kgate-source" 2>/dev/null))"
series_sub=$(sed -n "s/^# base: .*${KGATE_TREE//./\\.}\\.\\([0-9]*\\).*/\\1/p" "$PATCHES/series" 2>/dev/null | head -n 1)
if [ -n "$series_sub" ] && [ "$series_sub" != "$tree_sub" ]; then
	echo "tree: warning: the series was made on $KGATE_TREE.$series_sub, the installed $TREE_PKG is $KGATE_TREE.$tree_sub; trying anyway" >&2
fi

mapfile -t series < <(series_list)
for p in "${series[@]}"; do
	[ -f "$PATCHES/$p" ] || die "patches/$KGATE_TREE/series names $p, which does not exist"
done
# The test files and the patch that adds each: "<patch> TAB <path> TAB <source>".
owners=$("$REPO/scripts/testsrc.py" owners "$KGATE_TREE" 2>&1) ||
	die "${owners//owners: /}"

want_key=$(series_key)
applied=$(git_t rev-parse -q --verify refs/kgate/applied 2>/dev/null || true)
head=$(git_t rev-parse HEAD)
have_key=$(cat "$KTREE/.git/kgate-series-key" 2>/dev/null || true)

if [ "$want_key" != "$have_key" ] || [ "$head" != "$applied" ]; then
	if [ "$FORCE" != 1 ]; then
		if [ -n "$applied" ] && [ "$head" != "$applied" ]; then
			n=$(git_t rev-list --count "$applied..HEAD" 2>/dev/null || echo some)
			die "$KTREE has $n commit(s) not in patches/ (HEAD moved since the last apply); export them with 'make series', or rerun with FORCE=1 to drop them"
		fi
		if [ -n "$(user_edits)" ]; then
			user_edits | head -n 10 >&2
			die "$KTREE has uncommitted edits (above); commit them and 'make series', or rerun with FORCE=1 to drop them"
		fi
	fi
	idx="$KTREE/.git/kgate-index"
	rm -f "$idx"
	export GIT_INDEX_FILE=$idx
	git_t read-tree base
	parent=$(git_t rev-parse base)
	info=$(mktemp); msg=$(mktemp)
	trap 'rm -f "$info" "$msg" "$idx"' EXIT
	for p in "${series[@]}"; do
		if ! out=$(git_t apply --cached --whitespace=nowarn "$PATCHES/$p" 2>&1); then
			echo "$out" >&2
			unset GIT_INDEX_FILE
			git_t reset -q
			die "patch $p does not apply to $TREE_PKG $kver; the tree was not changed"
		fi
		while IFS=$'\t' read -r _ path src; do
			git_t update-index --add --cacheinfo "100644,$(git_t hash-object -w -- "$src"),$path"
		done < <(awk -F'\t' -v p="$p" '$1 == p' <<<"$owners")
		git mailinfo "$msg" /dev/null <"$PATCHES/$p" >"$info"
		subj=$(sed -n 's/^Subject: //p' "$info")
		[ -n "$subj" ] || die "patch $p has no Subject: line (not a git format-patch file?)"
		tree=$(git_t write-tree)
		parent=$( { printf '%s\n\n' "$subj"; cat "$msg"; } | \
			GIT_AUTHOR_NAME=$(sed -n 's/^Author: //p' "$info") \
			GIT_AUTHOR_EMAIL=$(sed -n 's/^Email: //p' "$info") \
			GIT_AUTHOR_DATE=$(sed -n 's/^Date: //p' "$info") \
			GIT_COMMITTER_NAME=kgate GIT_COMMITTER_EMAIL=kgate@localhost \
			GIT_COMMITTER_DATE=$(sed -n 's/^Date: //p' "$info") \
			git -C "$KTREE" commit-tree "$tree" -p "$parent" -F -)
	done
	unset GIT_INDEX_FILE
	rm -f "$idx"
	git_t reset -q --hard "$parent"
	git_t update-ref refs/kgate/applied "$parent"
	echo "$want_key" >"$KTREE/.git/kgate-series-key"
	say "applied ${#series[@]} patch(es) on base ($(git_t rev-parse --short HEAD))"
fi
say "$TREE_PKG $kver, patches/$KGATE_TREE/ applied"

# ---- 3. the kept mutants still apply -----------------------------------------
# Each mutants/<tree>/*.patch must apply to this tree, or make mutants
# cannot run it: a per-tree suite (mutants_apply, kind tree), seconds.  The
# line after it counts the mutants whose last kill was on other code.
mkdir -p "$BUILD/results"
"$REPO/scripts/mutants_check.py" apply "$KTREE" "$REPO/mutants/$KGATE_TREE" \
	--tests "$KGATE_TREE" --config "$REPO/kunitconfig" --series "$PATCHES/series" \
	--json "$BUILD/results/tree-mutants_apply.json" | sed 's/^/tree: /' || true
