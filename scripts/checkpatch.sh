#!/usr/bin/env bash
# scripts/checkpatch.pl --strict, no --ignore, on every patch of the
# postable series of $KGATE_TREE (default 6.1): scripts/postable.sh,
# patches/<tree>/ with its test files, as it is posted.
# Exits 1 if any patch gets an ERROR, WARNING or CHECK, but for
# FILE_PATH_CHANGES on a patch whose new files a MAINTAINERS section (not
# THE REST) already covers (scripts/get_maintainer.pl -f): said on its line.
#
# A "Fixes: <sha>" or "commit <sha> upstream." line makes checkpatch.pl
# look the id up with git, which a tree imported from a tarball cannot
# answer (UNKNOWN_COMMIT_ID): those lookups, and only those, are left to
# this script, which lists each id ("lookup" lines) and requires it in
# patches/upstream-commits (ids checked against upstream history by hand).
# Backports start with "commit <sha> upstream."; a Link: trailer
# (https://git.kernel.org/linus/<sha>) that cites upstream must be listed too.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
kgate_tree_env

post=$("$REPO/scripts/postable.sh") || exit 1
# covered <patch>: does a MAINTAINERS section of the tree (not THE REST)
# already cover every file the patch adds?  Then checkpatch.pl's "added,
# moved or deleted file(s), does MAINTAINERS need updating?" is answered:
# no.  Prints the files.
covered() {
	local f files
	files=$(awk '/^diff --git / { f = $4; sub(/^b\//, "", f) } /^new file mode/ { print f }' "$1")
	[ -n "$files" ] || return 1
	for f in $files; do
		(cd "$KTREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback -f "$f" 2>/dev/null) |
			grep -v 'THE REST' | grep -qE '\((maintainer|supporter|odd fixer):' || return 1
	done
	echo $files
}

bad=0 n=0 lookups=()
while read -r p; do
	n=$((n + 1))
	ignore=UNKNOWN_COMMIT_ID note=
	if files=$(covered "$post/$p"); then
		ignore+=,FILE_PATH_CHANGES note="new files MAINTAINERS covers already: $files"
	fi
	out=$(cd "$KTREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q \
		--ignore "$ignore" "$post/$p" 2>&1)
	for id in $(sed -n 's|^Link: https://git.kernel.org/linus/\([0-9a-f]*\)$|\1|p' "$post/$p"); do
		grep -q "^$id " "$REPO/patches/upstream-commits" ||
			out+="${out:+$'\n'}upstream id $id is not listed in patches/upstream-commits"
	done
	for id in $(sed -n -e 's/^Fixes: \([0-9a-f]\{12,40\}\) .*/\1/p' \
		-e 's/^commit \([0-9a-f]\{12,40\}\) upstream\.$/\1/p' "$post/$p"); do
		if grep -q "^$id" "$REPO/patches/upstream-commits"; then
			subj=$(grep -m1 "^$id" "$REPO/patches/upstream-commits" | cut -d' ' -f2-)
			lookups+=("lookup  $p: $id ($subj)")
			# What checkpatch.pl would compare with git: the subject quoted.
			grep -q "^Fixes: $id (\"$subj\")$" "$post/$p" || ! grep -q "^Fixes: $id " "$post/$p" ||
				out+="${out:+$'\n'}Fixes: $id does not quote its subject (\"$subj\") as patches/upstream-commits has it"
		else
			out+="${out:+$'\n'}upstream id $id (Fixes: or commit ... upstream.) is not listed in patches/upstream-commits"
		fi
	done
	if [ -n "$out" ]; then
		echo "== $p"; echo "$out"; bad=$((bad + 1))
	else
		echo "ok   $p${note:+ ($note)}"
	fi
done <"$post/series"
[ ${#lookups[@]} -eq 0 ] || printf '%s\n' "${lookups[@]}"
echo "checkpatch: $n patch(es), $bad with findings; ${#lookups[@]} commit id lookup(s) a tarball tree cannot resolve (listed above)"
[ $bad -eq 0 ]
