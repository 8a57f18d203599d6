#!/usr/bin/env bash
# scripts/checkpatch.pl --strict on every patch of patches/series.
# Exits 1 if any patch gets an ERROR, WARNING or CHECK.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
TREE=${TREE:-$BUILD/linux}
PATCHES=$REPO/patches
. "$REPO/scripts/lib.sh"

bad=0 n=0
while read -r p; do
	n=$((n + 1))
	out=$(cd "$TREE" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict -q "$PATCHES/$p" 2>&1)
	if [ -n "$out" ]; then
		echo "== $p"; echo "$out"; bad=$((bad + 1))
	else
		echo "ok   $p"
	fi
done < <(series_list)
echo "checkpatch: $n patch(es), $bad with findings"
[ $bad -eq 0 ]
