#!/usr/bin/env bash
# make upstream: the postable series of $KGATE_TREE (default 7.3, the
# newest stable tree, the one upstream can take patches for) split into
# postings as git format-patch writes them for git send-email:
#
#   build/upstream/<topic>/0000-cover-letter.patch, 0001-....patch, ...
#
# Fixes and tests go apart.  The series puts every fix first; the commits
# from the first one that adds a test file (patches/<tree>/tests) on are
# the tests and what they need.  A commit's subsystem is its subject's
# prefix (mm/... and kasan: are mm, x86/... is x86, virtio-mem: is virtio-mem, ovl:
# is overlayfs), so the postings are one fix series per maintainer tree
# (mm, x86, virtio-mem, overlayfs) and one test series per subsystem
# (<subsystem>-tests).  A fix series is cut from base on its own (a fix
# that needs another topic's patch stops the run); a test series is cut
# on top of its subsystem's fixes, and its cover letter names them
# (git format-patch --base: base-commit and a prerequisite-patch-id per
# fix).  The cover letter's subject and text are patches/<tree>/cover/<topic>;
# git format-patch adds the shortlog and diffstat.  To: the maintainers,
# Cc: the reviewers and lists, both from the tree's get_maintainer.pl over
# the topic's patches; a patch's own Cc: trailers (stable) stay in it.
#
# The postings carry the sender's identity, never the series' own (the
# project's): UPSTREAM_FROM="Name <address>", else git config user.name
# and user.email.  It becomes each patch's author and replaces the
# series' Signed-off-by:.  Without one, or with the series' own, the run
# stops with one line.  What a maintainer must not be sent stops it too:
# a maintainer added to MAINTAINERS, or a message naming this project's
# make targets or the distribution the trees come from.
#
# git format-patch, not b4: b4 prep keeps its series as a branch with the
# cover letter in a commit of its own, which this tree (commits made from
# patches/) would have to carry; the files written here are what b4 send
# -o writes, and are sent with
#
#   git send-email build/upstream/<topic>/*.patch
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
KGATE_TREE=${KGATE_TREE:-7.3}
kgate_tree_env

die() { echo "upstream: $*" >&2; exit 1; }
out=${UPSTREAM_OUT:-$(dirname "$BUILD")/upstream}
covers=$PATCHES/cover
[ -d "$KTREE/.git" ] || die "no tree at $KTREE yet: make tree TREES=$KGATE_TREE"
[ "$(cat "$KTREE/.git/kgate-series-key" 2>/dev/null)" = "$(series_key)" ] ||
	die "$KTREE is not made from patches/$KGATE_TREE/ and kunit/ as they are: make tree TREES=$KGATE_TREE"
g() { git -C "$KTREE" "$@"; }

mapfile -t commits < <(g rev-list --reverse base..refs/kgate/applied)
[ ${#commits[@]} -gt 0 ] || die "the series of $KGATE_TREE is empty"

# The sender.  git config is asked in this repository (its local config,
# then the global one), not in the kernel tree.
from=${UPSTREAM_FROM:-}
if [ -z "$from" ]; then
	name=$(git -C "${KGATE_REPO:-$REPO}" config user.name || true)
	email=$(git -C "${KGATE_REPO:-$REPO}" config user.email || true)
	[ -n "$name" ] && [ -n "$email" ] && from="$name <$email>"
fi
[ -n "$from" ] || die "no sender identity: set git config user.name and user.email, or UPSTREAM_FROM='Name <address>'"
[[ $from =~ ^([^\<\>]*[^\<\>\ ])\ \<([^\<\>@\ ]+@[^\<\>@\ ]+)\>$ ]] ||
	die "sender identity '$from' is not 'Name <address>'"
from_name=${BASH_REMATCH[1]} from_email=${BASH_REMATCH[2]}
series_id=$(g log -1 --format='%an <%ae>' "${commits[0]}")
series_email=$(g log -1 --format='%ae' "${commits[0]}")
[ "${from_email,,}" != "${series_email,,}" ] ||
	die "sender identity '$from' is the series' own, not a person's: set git config user.name and user.email, or UPSTREAM_FROM='Name <address>'"

subsystem_of() {
	case $1 in
	mm/* | mm:* | kasan:*) echo mm ;;
	x86/*) echo x86 ;;
	virtio-mem:*) echo virtio-mem ;;
	ovl:*) echo overlayfs ;;
	*) echo "" ;;
	esac
}

# The first patch that adds a test file starts the tests part.
first_test=$(awk '!/^#/ && NF { print $1; exit }' "$PATCHES/tests")
mapfile -t names < <(series_list)
[ ${#names[@]} -eq ${#commits[@]} ] || die "patches/$KGATE_TREE/series names ${#names[@]} patches, the tree has ${#commits[@]} commits: make tree TREES=$KGATE_TREE"

declare -A picks=() parent_topic=()
order=()
part=fixes
for i in "${!commits[@]}"; do
	c=${commits[$i]}
	[ "${names[$i]}" = "$first_test" ] && part=tests
	s=$(g log -1 --format=%s "$c")
	sub=$(subsystem_of "$s")
	[ -n "$sub" ] || die "\"$s\": no topic (mm/, x86/, virtio-mem:, ovl:); say where it goes in scripts/upstream.sh"
	if [ $part = fixes ]; then
		t=$sub
	else
		t=$sub-tests
		parent_topic[$t]=$sub
	fi
	[ -f "$covers/$t" ] || die "no cover letter for topic $t: write patches/$KGATE_TREE/cover/$t"
	[ -n "${picks[$t]:-}" ] || order+=("$t")
	picks[$t]+="$c "
done

# What a posting must not carry: checked in each commit message and cover
# letter (this project's words) and each diff (MAINTAINERS).
banned='Debian|linux-source|make (test|faults|mutants|conformance|upstream|tree|series|fuzz|soak|bench|amcheck|buildcheck|checkpatch|test-debug)\b|\bCELLS=|kgate'
for c in "${commits[@]}"; do
	s=$(g log -1 --format=%s "$c")
	w=$(g log -1 --format=%B "$c" | grep -oiE "$banned" | head -n 1) || true
	[ -z "$w" ] || die "\"$s\": its message names '$w', which means nothing upstream"
	! g diff-tree -p "$c" -- MAINTAINERS | grep -q '^+M:' ||
		die "\"$s\": it adds a maintainer to MAINTAINERS; a posting names no maintainer of its own"
done
for t in "${order[@]}"; do
	w=$(grep -oiE "$banned" "$covers/$t" | head -n 1) || true
	[ -z "$w" ] || die "patches/$KGATE_TREE/cover/$t names '$w', which means nothing upstream"
done

# Each topic's commits are made again in a private index (no work tree is
# touched), under refs/kgate/upstream/<topic> of the tree: the author is
# the sender, and so is the Signed-off-by: that was the series'.
idx=$(mktemp)
trap 'rm -f "$idx"; rm -rf "$out.new"' EXIT
rm -rf "$out.new"
mkdir -p "$out.new"
for t in "${order[@]}"; do
	pt=${parent_topic[$t]:-}
	if [ -n "$pt" ] && [ -n "${picks[$pt]:-}" ]; then
		start=$(g rev-parse "refs/kgate/upstream/$pt")
	else
		start=$(g rev-parse base)
	fi
	parent=$start
	GIT_INDEX_FILE=$idx g read-tree "$start"
	for c in ${picks[$t]}; do
		g diff-tree -p --binary "$c^" "$c" | GIT_INDEX_FILE=$idx g apply --cached 2>/dev/null ||
			die "topic $t: \"$(g log -1 --format=%s "$c")\" does not apply without the patches of another topic"
		tree=$(GIT_INDEX_FILE=$idx g write-tree)
		parent=$(g log -1 --format=%B "$c" |
			SERIES_ID=$series_id FROM="$from" python3 -c '
import os, sys
text = sys.stdin.read()
print(text.replace("Signed-off-by: " + os.environ["SERIES_ID"], "Signed-off-by: " + os.environ["FROM"]), end="")' |
			GIT_AUTHOR_NAME=$from_name GIT_AUTHOR_EMAIL=$from_email \
			GIT_AUTHOR_DATE=$(g log -1 --format=%ad "$c") GIT_COMMITTER_NAME=$from_name \
			GIT_COMMITTER_EMAIL=$from_email GIT_COMMITTER_DATE=$(g log -1 --format=%cd "$c") \
			g commit-tree "$tree" -p "$parent" -F -)
	done
	g update-ref "refs/kgate/upstream/$t" "$parent"
	g -c user.name="$from_name" -c user.email="$from_email" \
		format-patch -q --zero-commit --no-signature --abbrev=12 --cover-letter --thread=shallow \
		--base="$(g rev-parse base)" -o "$out.new/$t" "$start..refs/kgate/upstream/$t"
	mapfile -t pp < <(find "$out.new/$t" -name '*.patch' ! -name '0000-*' | sort)
	gm() { (cd "$KTREE" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-fixes \
		--no-rolestats "$@" "${pp[@]}"); }
	mapfile -t to < <(gm --m --no-r --no-l)
	mapfile -t cc < <(gm --no-m --r --l)
	[ ${#to[@]} -gt 0 ] || die "topic $t: get_maintainer.pl named no maintainer"
	python3 - "$out.new/$t" "$covers/$t" "$(IFS=,; echo "${to[*]}")" "$(IFS=,; echo "${cc[*]}")" <<'EOF'
import os, sys
d, cover, to, cc = sys.argv[1:5]
with open(cover, encoding='utf-8') as f:
    subject, _, blurb = f.read().partition('\n')
header = 'To: ' + to.replace(',', ',\n    ') + '\n' + 'Cc: ' + cc.replace(',', ',\n    ') + '\n'
for name in sorted(os.listdir(d)):
    p = os.path.join(d, name)
    with open(p, encoding='utf-8') as f:
        text = f.read()
    head, sep, body = text.partition('\n\n')
    head += '\n' + header.rstrip('\n')
    if name.startswith('0000-'):
        head = head.replace('*** SUBJECT HERE ***', subject.strip())
        body = body.replace('*** BLURB HERE ***', blurb.strip())
    with open(p, 'w', encoding='utf-8') as f:
        f.write(head + sep + body)
EOF
	echo "upstream: $t: $(find "$out.new/$t" -name '*.patch' ! -name '0000-*' | wc -l) patch(es)${pt:+ on top of $pt}, To: ${to[*]}"
done
rm -rf "$out"
mv "$out.new" "$out"
echo "upstream: wrote $out/{$(IFS=,; echo "${order[*]}")}/ as $from; send one with: git send-email $out/<topic>/*.patch"
