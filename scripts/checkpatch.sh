#!/usr/bin/env bash
# scripts/checkpatch.pl --strict, no --ignore, on every patch of the
# postable series of $KGATE_TREE (default 6.1): scripts/postable.sh,
# patches/<tree>/ with its test files, as it is posted.
# Exits 1 if any patch gets an ERROR, WARNING or CHECK.
#
# Backports cite their upstream commit as a Link: trailer
# (https://git.kernel.org/linus/<sha>): a "commit <sha> upstream." or
# "Fixes: <sha>" line makes checkpatch.pl look the id up with git, which a
# tree imported from a tarball cannot answer.  checkpatch.pl cannot check
# such links, so every linked id must be listed in patches/upstream-commits.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
kgate_tree_env

post=$("$REPO/scripts/postable.sh") || exit 1
bad=0 n=0
while read -r p; do
	n=$((n + 1))
	out=$(cd "$KTREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q "$post/$p" 2>&1)
	for id in $(sed -n 's|^Link: https://git.kernel.org/linus/\([0-9a-f]*\)$|\1|p' "$post/$p"); do
		grep -q "^$id " "$REPO/patches/upstream-commits" ||
			out+="${out:+$'\n'}upstream id $id is not listed in patches/upstream-commits"
	done
	if [ -n "$out" ]; then
		echo "== $p"; echo "$out"; bad=$((bad + 1))
	else
		echo "ok   $p"
	fi
done <"$post/series"
echo "checkpatch: $n patch(es), $bad with findings"
[ $bad -eq 0 ]
