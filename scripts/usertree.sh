#!/usr/bin/env bash
# Prepare the gate's kernel tree from a checkout of the user's
# (make test KERNEL_CHECKOUT=<checkout>), never writing to that checkout:
#
#   KGATE_USER_TREE=<checkout> [KGATE_REV=<commit>] [KGATE_USER_INDEX=<index>] \
#   BUILD=<dir> scripts/usertree.sh
#
#  1. $KTREE (default $BUILD/linux) is a git repository of the gate's own
#     whose object store borrows the checkout's (objects/info/alternates):
#     nothing is copied into, or written to, the checkout's repository;
#  2. the state gated is KGATE_REV (default HEAD) of the checkout, or, with
#     KGATE_USER_INDEX, the staged state that index file holds (the
#     pre-commit hook); it is read with read-only git commands (rev-parse,
#     ls-files, cat-file) and rebuilt in a private index here;
#  3. each patch of the series of its version (patches/6.1/ for a 6.1
#     tree, patches/6.12/ for 6.12) is applied to it when it applies, found
#     already there when it applies in reverse, and otherwise stops the run
#     with one line naming the patch and the tree's version; the test files
#     of kunit/ are added;
#  4. paths that never reach the kernel build (Documentation/ less its
#     Kconfig files, LICENSES/, MAINTAINERS, ...) are left out, so that a
#     commit touching only those gives the same tree, and the same kernel;
#  5. $KTREE's work tree is moved to the result with "git reset --hard",
#     which rewrites only the files that differ: make rebuilds only those.
#
# Writes $BUILD/results/tree, the line naming the tree gated (scripts/gate.py
# prints it with the verdict).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
BUILD=${BUILD:?BUILD must be set}
KTREE=${KTREE:-$BUILD/linux}
UT=${KGATE_USER_TREE:?KGATE_USER_TREE must name a kernel checkout}
REV=${KGATE_REV:-HEAD}
UINDEX=${KGATE_USER_INDEX:-}

die() { echo "tree: $*" >&2; exit 1; }
say() { echo "tree: $*"; }

# A git hook runs with GIT_DIR, GIT_INDEX_FILE and the like set for the
# user's repository: none of them may reach a git command below, or the
# gate's own operations would land in the user's index.
# shellcheck disable=SC2046
unset $(git rev-parse --local-env-vars)
# Read-only access to the user's repository; no optional locks (no index
# refresh written behind our back).
export GIT_OPTIONAL_LOCKS=0
ug() { git -C "$UT" "$@"; }
gk() { git -C "$KTREE" -c user.name=kgate -c user.email=kgate@localhost "$@"; }

[ -d "$UT" ] || die "$UT: no such directory"
top=$(ug rev-parse --show-toplevel 2>/dev/null) || die "$UT is not a git checkout"
UT=$top
common=$(ug rev-parse --path-format=absolute --git-common-dir)
case $(realpath -m "$KTREE")/ in
"$(realpath -m "$UT")"/*) die "the gate's tree $KTREE would be inside $UT; set BUILD elsewhere" ;;
esac

# ---- 1. the gate's repository, borrowing the user's objects -----------------
if [ ! -d "$KTREE/.git" ]; then
	mkdir -p "$KTREE"
	git init -q "$KTREE"
	gk config core.abbrev 12
	gk config gc.auto 0
fi
echo "$common/objects" >"$KTREE/.git/objects/info/alternates"
echo "$UT" >"$KTREE/.git/kgate-user-tree"

# ---- 2. the state gated -----------------------------------------------------
idx=$KTREE/.git/kgate-index
rm -f "$idx"
trap 'rm -f "$idx"' EXIT
head=$(ug rev-parse -q --verify HEAD 2>/dev/null || true)
branch=$(ug symbolic-ref -q --short HEAD 2>/dev/null || echo "detached HEAD")
if [ -n "$UINDEX" ]; then
	[ -f "$UINDEX" ] || die "$UINDEX: no such index file"
	if [ -n "$(GIT_INDEX_FILE=$UINDEX ug ls-files -u | head -n 1)" ]; then
		die "$UT has unmerged paths in its index; resolve them first"
	fi
	# HEAD's tree plus what the index changes (read-only: diff-index
	# --cached), so that write-tree writes only the trees along changed
	# paths; with no HEAD yet, every entry of the index.
	if [ -n "$head" ]; then
		GIT_INDEX_FILE=$idx gk read-tree "$head"
		GIT_INDEX_FILE=$UINDEX ug diff-index --cached --raw -z --no-renames HEAD |
		while IFS= read -r -d '' meta && IFS= read -r -d '' path; do
			read -r _om nm _os ns st <<<"${meta#:}"
			if [ "$st" = D ]; then printf '0 %s\t%s\0' "${ns//?/0}" "$path"
			else printf '%s %s\t%s\0' "$nm" "$ns" "$path"; fi
		done | GIT_INDEX_FILE=$idx gk update-index -z --index-info
	else
		GIT_INDEX_FILE=$UINDEX ug ls-files -s -z |
			GIT_INDEX_FILE=$idx gk update-index -z --index-info
	fi
	user_tree=$(GIT_INDEX_FILE=$idx gk write-tree) || die "cannot read the staged state of $UT"
	user_commit=$(echo "staged state of $UT" |
		GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000" \
		gk commit-tree "$user_tree" ${head:+-p "$head"})
	what="the staged state on $branch${head:+ ($(ug rev-parse --short=12 HEAD))}"
	rm -f "$idx"
else
	user_commit=$(ug rev-parse -q --verify "$REV^{commit}") || die "$REV: no such commit in $UT"
	user_tree=$(ug rev-parse "$user_commit^{tree}")
	what="$REV${branch:+ on $branch} ($(ug rev-parse --short=12 "$user_commit") $(ug log -1 --format=%s "$user_commit" | cut -c1-50))"
fi

# The tree's version, from its top Makefile.
mk=$(gk cat-file -p "$user_tree:Makefile" 2>/dev/null | head -n 8 || true)
mkv() { sed -n "s/^$1 = *//p" <<<"$mk" | head -n 1; }
version="Linux $(mkv VERSION).$(mkv PATCHLEVEL).$(mkv SUBLEVEL)$(mkv EXTRAVERSION)"
[ "$version" != "Linux .." ] || die "$UT at $REV holds no kernel tree (no VERSION in its Makefile)"
# The series of the tree's version: patches/<VERSION.PATCHLEVEL>/.
KGATE_TREE=$(mkv VERSION).$(mkv PATCHLEVEL)
tree_known "$KGATE_TREE" || die "$UT at $REV is $version; this project has a series for $KGATE_TREES only"
PATCHES=${PATCHES:-$REPO/patches/$KGATE_TREE}
P_NAME=patches/$KGATE_TREE
# "+ N commits" over the nearest tag, when there is one.
plus=""
if [ -z "$UINDEX" ] && d=$(ug describe --tags --long "$user_commit" 2>/dev/null); then
	n=${d%-g*}; n=${n##*-}; tag=${d%-*-g*}
	plus=" + $n commit(s) over $tag"
fi

# ---- 3. the series -----------------------------------------------------------
mapfile -t series < <(series_list)
[ ${#series[@]} -gt 0 ] || die "$P_NAME/series lists no patch"
export GIT_INDEX_FILE=$idx
gk read-tree "$user_tree"
applied=0 present=0
n=${#series[@]}
for p in "${series[@]}"; do
	[ -f "$PATCHES/$p" ] || die "$P_NAME/series names $p, which does not exist"
done
P=("${series[@]/#/$PATCHES/}")
# The files the series adds (its tests, .kunitconfig): a tree that carries
# the series may have its own version of them, the one then tested.
mapfile -t created < <(for f in "${P[@]}"; do gk apply --summary "$f"; done |
	sed -n 's/^ create mode [0-7]* //p' | LC_ALL=C sort -u)
excl=("${created[@]/#/--exclude=}")
# there <k>: the tree holds patches 1..k: they come off in reverse order,
# less the files they add, every one of which the tree has.
there() {
	local i f scratch=$idx.there rc=0
	for ((i = 0; i < $1; i++)); do
		while read -r f; do
			gk cat-file -e ":$f" 2>/dev/null || return 1
		done < <(gk apply --summary "${P[i]}" | sed -n 's/^ create mode [0-7]* //p')
	done
	cp "$idx" "$scratch"
	for ((i = $1 - 1; i >= 0; i--)); do
		GIT_INDEX_FILE=$scratch gk apply --cached --reverse --whitespace=nowarn \
			"${excl[@]}" "${P[i]}" 2>/dev/null || { rc=1; break; }
	done
	rm -f "$scratch"
	return $rc
}
# The common case first, in one git apply: the whole series applies.
if gk apply --cached --whitespace=nowarn "${P[@]}" 2>/dev/null; then
	applied=$n
else
	# The tree carries patches 1..k (k as large as can be) and the rest
	# applies on top; else the first patch that does not apply is named.
	for ((k = n; k >= 0; k--)); do
		if [ $k = 0 ] || there $k; then
			for ((i = k; i < n; i++)); do
				gk apply --cached --whitespace=nowarn "${P[i]}" 2>/dev/null || break
			done
			if [ $i = $n ]; then present=$k applied=$((n - k)); break; fi
			[ $k = 0 ] && die "$P_NAME/${series[i]} does not apply to $UT ($version)"
			gk read-tree "$user_tree"
		fi
	done
fi

# The test files of the series (scripts/testsrc.py: each lives in kunit/),
# where the checkout has none of its own (a tree carrying the series may
# have its own version of them, the one then tested).
srcs=$("$REPO/scripts/testsrc.py" files "$KGATE_TREE" 2>&1) || die "${srcs//files: /}"
while IFS=$'\t' read -r path src; do
	[ -n "$path" ] && ! gk cat-file -e ":$path" 2>/dev/null || continue
	gk update-index --add --cacheinfo "100644,$(gk hash-object -w -- "$src"),$path"
done <<<"$srcs"

# ---- 4. what never reaches the kernel build ------------------------------------
gk rm -r -q --cached --ignore-unmatch -- \
	':(glob)Documentation/**' ':(exclude,glob)Documentation/**/Kconfig*' \
	LICENSES MAINTAINERS CREDITS README COPYING .mailmap tools/testing/selftests
tree=$(gk write-tree)
unset GIT_INDEX_FILE
rm -f "$idx"

# ---- 5. the work tree ----------------------------------------------------------
gk tag -f base "$user_commit" >/dev/null
gated=$(echo "kgate: $UT + $P_NAME/ ($applied applied, $present already there)" |
	GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000" gk commit-tree "$tree" -p "$user_commit")
gk reset -q --hard "$gated"

label="tree: $UT, $what: $version$plus; $P_NAME/: $applied applied, $present already there"
mkdir -p "$BUILD/results"
echo "$label" >"$BUILD/results/tree"
echo "$label"
