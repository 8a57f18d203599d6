#!/usr/bin/env bash
# Export the commits on top of "base" in the kernel tree of $KGATE_TREE as
# patches/<tree>/ (one git format-patch file per commit, stable names and
# content, without the test files), the test files to kunit/ and the list of
# which patch adds which to patches/<tree>/tests (scripts/testsrc.py export).
# The tree is then marked as in sync, so the next "make tree" has nothing to
# do.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env

die() { echo "series: $*" >&2; exit 1; }
[ -d "$KTREE/.git" ] || { echo "series: $KGATE_TREE: no tree at $KTREE yet (make tree TREES=$KGATE_TREE); nothing to export"; exit 0; }
git -C "$KTREE" rev-parse -q --verify base >/dev/null || die "$KTREE has no base tag"
edits=$(git -C "$KTREE" status --porcelain=v1 --untracked-files=no)
[ -z "$edits" ] || die "$KTREE has uncommitted edits: commit them first (test files: edit them in kunit/)"$'\n'"$edits"
# The tree must be made from what patches/ and kunit/ hold now, or the
# export would undo their changes since.
if [ "$(cat "$KTREE/.git/kgate-series-key" 2>/dev/null)" != "$(series_key)" ]; then
	die "patches/$KGATE_TREE/ or kunit/ changed since the tree was made from them; exporting would undo that: run make tree first (FORCE=1 if the tree has commits of its own: it drops them)"
fi

"$REPO/scripts/testsrc.py" export "$KGATE_TREE" "$KTREE" || die "patches/ and kunit/ unchanged"

# Mark the tree as in sync (the same key scripts/tree.sh computes).
series_key >"$KTREE/.git/kgate-series-key"
git -C "$KTREE" update-ref refs/kgate/applied HEAD
(cd "$REPO" && git status --short -- "patches/$KGATE_TREE/" kunit/)
