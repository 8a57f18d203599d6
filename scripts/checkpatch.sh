#!/usr/bin/env bash
# scripts/checkpatch.pl --strict (no --ignore) on every patch of
# patches/series, test code included: the series carries its tests.
#
# Every finding fails the patch, with two exceptions that checkpatch cannot
# judge in a tree imported from a tarball; each is checked here instead and
# printed as "waived", never hidden:
#  - UNKNOWN_COMMIT_ID for an upstream commit cited by "commit <sha>
#    upstream." or "Fixes: <sha> (...)": the tree has no upstream history.
#    The id must be listed in patches/upstream-commits, and a Fixes: tag's
#    subject must match the subject listed there.
#  - FILE_PATH_CHANGES ("does MAINTAINERS need updating?") on a patch that
#    adds files which a MAINTAINERS section other than THE REST already
#    covers (scripts/get_maintainer.pl -f).
# Exits 1 if any patch has another ERROR, WARNING or CHECK.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
TREE=${TREE:-$BUILD/linux}
PATCHES=$REPO/patches
UPSTREAM=$PATCHES/upstream-commits
. "$REPO/scripts/lib.sh"

# The subject patches/upstream-commits lists for an id (any length >= 12).
upstream_subject() {
	local id=$1
	awk -v id="$id" '!/^#/ && NF && index($1, id) == 1 {
		sub(/^[^ \t]+[ \t]+/, ""); print; exit }' "$UPSTREAM" 2>/dev/null
}

# Prints "waived: ..." lines for the findings this script checks itself and
# the other findings verbatim (blocks of checkpatch's output); returns 1 if
# any other finding is left.
judge() {
	local patch=$1 out=$2 rest=0 block id subj want files f sect
	while IFS= read -r -d $'\x1e' block; do
		[ -n "${block//[$'\n ']/}" ] || continue
		case $block in
		total:*|*"NOTE: For some of the reported defects"*) continue ;;
		esac
		if [[ $block =~ Unknown\ commit\ id\ \'([0-9a-f]+)\' ]]; then
			id=${BASH_REMATCH[1]}
			want=$(upstream_subject "$id")
			if [ -z "$want" ]; then
				echo "$block"; echo "  (not in patches/upstream-commits)"; rest=1; continue
			fi
			subj=$(sed -n "s/^Fixes: ${id:0:12}[0-9a-f]* (\"\(.*\)\")\$/\1/p" "$patch" | head -n 1)
			if [ -n "$subj" ] && [ "$subj" != "$want" ]; then
				echo "$block"; echo "  (Fixes: subject \"$subj\" but patches/upstream-commits says \"$want\")"; rest=1; continue
			fi
			echo "waived: upstream commit ${id:0:12} (\"$want\") is not in this tree's history"
		elif [[ $block == *"does MAINTAINERS need updating?"* ]]; then
			mapfile -t files < <(git -C "$TREE" apply --numstat --summary "$patch" 2>/dev/null |
				sed -n 's/^ create mode [0-9]* //p')
			for f in "${files[@]}"; do
				sect=$(cd "$TREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
					--no-rolestats --sections -f "$f" 2>/dev/null | head -n 1)
				if [ -z "$sect" ] || [ "$sect" = "THE REST" ]; then
					echo "$block"; echo "  ($f is not covered by a MAINTAINERS section)"; rest=1; continue 2
				fi
				echo "waived: new file $f is covered by MAINTAINERS section \"$sect\""
			done
		else
			echo "$block"; rest=1
		fi
	done < <(printf '%s\n' "$out" | awk 'BEGIN { RS = ""; ORS = "\x1e" } { print }')
	return $rest
}

bad=0 n=0 waived=0
while read -r p; do
	n=$((n + 1))
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q "$PATCHES/$p" 2>&1)
	if [ -z "$out" ]; then
		echo "ok   $p"
		continue
	fi
	verdict=$(judge "$PATCHES/$p" "$out")
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "ok   $p"
		printf '%s\n' "$verdict" | sed 's/^/     /'
		waived=$((waived + $(printf '%s\n' "$verdict" | grep -c '^waived:')))
	else
		echo "== $p"; printf '%s\n' "$verdict"; bad=$((bad + 1))
	fi
done < <(series_list)
echo "checkpatch: $n patch(es), $bad with findings, $waived finding(s) waived (see above)"
[ $bad -eq 0 ]
