#!/usr/bin/env bash
# The kernel tarball of a tree whose linux-source-<tree> the machine's apt
# sources do not offer (kgate_source_line in scripts/lib.sh names the apt
# line that does, e.g. trixie-backports for 7.3):
#
#   scripts/source.sh <tree>        prints the tarball's path
#
# The package is fetched through an apt list of the project's own,
# $KGATE_SOURCES/apt/sources.list, with its own package lists and cache
# under $KGATE_SOURCES/apt/ (apt-get -o Dir::Etc::SourceList=...
# -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=... -o
# Dir::Cache=...): the system's apt configuration and state are never
# touched, nothing is installed.  The tarball is unpacked from the .deb to
# $KGATE_SOURCES/linux-source-<tree>.tar.xz, its version next to it (.version).
# Backports roll forward: each run asks apt for the current version (the
# package lists are updated once an hour, KGATE_SOURCES_MAX_AGE_MIN=60) and
# fetches it when it changed; offline, the tarball already there is used.
# A package that cannot be had: one line saying so, exit 1.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
tree=${1:?usage: scripts/source.sh <tree>}
line=$(kgate_source_line "$tree") ||
	{ echo "source: no apt line for tree '$tree' (kgate_source_line in scripts/lib.sh)" >&2; exit 2; }
pkg=linux-source-$tree
dir=${KGATE_SOURCES:-$REPO/build/sources}
apt=$dir/apt
tarball=$dir/$pkg.tar.xz
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
echo "$line" >"$apt/sources.list"
opts=(-q -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")

log=$(mktemp)
trap 'rm -f "$log"' EXIT
have=$(cat "$tarball.version" 2>/dev/null || true)
fail() {
	if [ -f "$tarball" ] && [ -n "$have" ]; then
		echo "source: $1; using the $pkg $have already fetched" >&2
		echo "$tarball"
		exit 0
	fi
	echo "source: $pkg cannot be had from \"$line\": $1" >&2
	exit 1
}
# One package list update an hour (make deps and scripts/tree.sh both ask).
stamp=$apt/updated
if [ -z "$(find "$stamp" -mmin -"${KGATE_SOURCES_MAX_AGE_MIN:-60}" 2>/dev/null)" ]; then
	apt-get "${opts[@]}" update >"$log" 2>&1 ||
		fail "apt-get update failed ($(grep -E '^(E|W):' "$log" | tail -n 1))"
	touch "$stamp"
fi
want=$(apt-cache "${opts[@]}" policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: //p')
if [ -z "$want" ] || [ "$want" = "(none)" ]; then fail "no such package there"; fi
if [ "$want" != "$have" ] || [ ! -f "$tarball" ]; then
	tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
	# (apt's _apt user cannot write to a root-owned folder: a warning only)
	if ! (cd "$tmp" && apt-get "${opts[@]}" download "$pkg=$want") >"$log" 2>&1; then
		rm -rf "$tmp"
		fail "apt-get download failed ($(grep -E '^E:' "$log" | tail -n 1))"
	fi
	deb=$(ls "$tmp"/*.deb)
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/src/$pkg.tar.xz" >"$tmp/$pkg.tar.xz"; then
		rm -rf "$tmp"
		fail "$(basename "$deb") holds no usr/src/$pkg.tar.xz"
	fi
	mv "$tmp/$pkg.tar.xz" "$tarball"
	echo "$want" >"$tarball.version"
	rm -rf "$tmp"
	echo "source: fetched $pkg $want" >&2
fi
echo "$tarball"
