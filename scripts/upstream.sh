#!/usr/bin/env bash
# make upstream: the postable series of $KGATE_TREE (default 7.3, the
# newest stable tree, the one upstream can take patches for) split into
# one posting per topic, as git format-patch writes them for
# git send-email:
#
#   build/upstream/<topic>/0000-cover-letter.patch, 0001-....patch, ...
#
# The topic of a commit is its subject's prefix: mm/... is mm, x86/... is
# x86, virtio-mem: is virtio-mem, ovl: is overlayfs; each topic's commits keep their order
# and apply to base on their own (each posting is cut from base, so a
# topic that needs another's patch does not apply: the run stops).  The
# cover letter's subject and text are patches/<tree>/cover/<topic>; git
# format-patch adds the shortlog and diffstat.  To: the maintainers, Cc:
# the reviewers and lists, both from the tree's scripts/get_maintainer.pl
# over the topic's patches; a patch's own Cc: trailers (stable) stay in it
# for git send-email.  git format-patch, not b4: b4 prep keeps its series
# as a branch with the cover letter in a commit of its own, which this
# tree (commits made from patches/) would have to carry; the files written
# here are what b4 send -o writes, and are sent with
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

topic_of() {
	case $1 in
	mm/* | mm:*) echo mm ;;
	x86/*) echo x86 ;;
	virtio-mem:*) echo virtio-mem ;;
	ovl:*) echo overlayfs ;;
	*) echo "" ;;
	esac
}

mapfile -t commits < <(git -C "$KTREE" rev-list --reverse base..refs/kgate/applied)
declare -A picks=()
order=()
for c in "${commits[@]}"; do
	s=$(git -C "$KTREE" log -1 --format=%s "$c")
	t=$(topic_of "$s")
	[ -n "$t" ] || die "\"$s\": no topic (mm/, x86/, virtio-mem:, ovl:); say where it goes in scripts/upstream.sh"
	[ -f "$covers/$t" ] || die "no cover letter for topic $t: write patches/$KGATE_TREE/cover/$t"
	[ -n "${picks[$t]:-}" ] || order+=("$t")
	picks[$t]+="$c "
done

# Each topic's commits are made again on base in a private index (no work
# tree is touched), under refs/kgate/upstream/<topic> of the tree.
g() { git -C "$KTREE" "$@"; }
idx=$(mktemp)
trap 'rm -f "$idx"; rm -rf "$out.new"' EXIT
rm -rf "$out.new"
mkdir -p "$out.new"
for t in "${order[@]}"; do
	parent=$(g rev-parse base)
	GIT_INDEX_FILE=$idx g read-tree base
	for c in ${picks[$t]}; do
		g diff-tree -p --binary "$c^" "$c" | GIT_INDEX_FILE=$idx g apply --cached 2>/dev/null ||
			die "topic $t: \"$(g log -1 --format=%s "$c")\" does not apply without the patches of another topic"
		tree=$(GIT_INDEX_FILE=$idx g write-tree)
		parent=$(g log -1 --format=%B "$c" |
			GIT_AUTHOR_NAME=$(g log -1 --format=%an "$c") GIT_AUTHOR_EMAIL=$(g log -1 --format=%ae "$c") \
			GIT_AUTHOR_DATE=$(g log -1 --format=%ad "$c") GIT_COMMITTER_NAME=kgate \
			GIT_COMMITTER_EMAIL=kgate@localhost GIT_COMMITTER_DATE=$(g log -1 --format=%cd "$c") \
			g commit-tree "$tree" -p "$parent" -F -)
	done
	g update-ref "refs/kgate/upstream/$t" "$parent"
	# The cover letter is the series author's (the first commit's).
	first=${picks[$t]%% *}
	g -c user.name="$(g log -1 --format=%an "$first")" -c user.email="$(g log -1 --format=%ae "$first")" \
		format-patch -q --zero-commit --no-signature --abbrev=12 --cover-letter --thread=shallow \
		-o "$out.new/$t" "base..refs/kgate/upstream/$t"
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
	echo "upstream: $t: $(find "$out.new/$t" -name '*.patch' ! -name '0000-*' | wc -l) patch(es), To: ${to[*]}"
done
rm -rf "$out"
mv "$out.new" "$out"
echo "upstream: wrote $out/{$(IFS=,; echo "${order[*]}")}/; send one with: git send-email $out/<topic>/*.patch"
