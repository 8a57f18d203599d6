#!/usr/bin/env bash
# The gate as a git hook (make install-hook / make uninstall-hook):
#
#   scripts/hook.sh install pre-push|pre-commit <repo> [arch...]
#   scripts/hook.sh uninstall pre-push|pre-commit|all <repo>
#   scripts/hook.sh run pre-push|pre-commit <hook file> [git's hook arguments]
#
# install writes <hooks>/<name> (core.hooksPath respected), a few lines that
# call "scripts/hook.sh run" of this repository.  A hook of the user's
# already there is moved to <name>.kgate-chained and runs first; uninstall
# puts it back.  Nothing else of the repository is written.
#
# run gates what is being committed or pushed, not the work tree:
#  - pre-commit: the staged state (the index git is committing: the
#    GIT_INDEX_FILE git hands the hook);
#  - pre-push: each commit pushed (from the hook's stdin).
# For a kernel checkout that is "make test KERNEL_CHECKOUT=<checkout>" (the checkout is
# never written to; scripts/usertree.sh); for this repository itself, the
# staged or pushed state is checked out in a throwaway copy,
# build/hook-self/kgate, whose own "make test" runs.  Red blocks, names the
# failing tests and prints the one-line bypass (git's --no-verify).  The
# gate's whole output goes to build/hooks/<checkout path>-<hook>.log
# (KGATE_HOOK_LOGS: another folder), its progress lines to the terminal.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
MARK="kgate-hook"
ZERO=0000000000000000000000000000000000000000

die() { echo "kgate: $*" >&2; exit 1; }

hooks_dir() {
	git -C "$1" rev-parse --path-format=absolute --git-path hooks 2>/dev/null ||
		die "$1 is not a git repository"
}
is_ours() { [ -f "$1" ] && grep -q "$MARK" "$1"; }

install() {
	local name=$1 repo=$2 dir hook
	shift 2
	case $name in pre-commit|pre-push) ;; *) die "HOOK=$name: pre-push or pre-commit" ;; esac
	dir=$(hooks_dir "$repo") || exit 1
	hook=$dir/$name
	mkdir -p "$dir"
	if [ -e "$hook" ] && ! is_ours "$hook"; then
		[ -e "$hook.kgate-chained" ] && die "$hook and $hook.kgate-chained both exist; remove one"
		mv "$hook" "$hook.kgate-chained"
		echo "kgate: your $name hook is kept as $hook.kgate-chained; it runs first"
	fi
	cat >"$hook.kgate-tmp" <<EOF
#!/bin/sh
# $MARK: installed by "make install-hook" of $REPO;
# "make uninstall-hook" there removes it (and puts back $name.kgate-chained).
# Bypass once: git ${name#pre-} --no-verify
KGATE_HOOK_ARCHES='${*:-}' exec '$REPO/scripts/hook.sh' run $name "\$0" "\$@"
EOF
	chmod +x "$hook.kgate-tmp"
	mv "$hook.kgate-tmp" "$hook"
	echo "kgate: installed $hook (gates what is $([ "$name" = pre-push ] && echo pushed || echo committed) with $REPO${*:+, arches: $*})"
}

uninstall() {
	local name=$1 repo=$2 dir hook n=0
	dir=$(hooks_dir "$repo") || exit 1
	[ "$name" = all ] && set -- pre-push pre-commit || set -- "$name"
	for name in "$@"; do
		hook=$dir/$name
		is_ours "$hook" || continue
		rm -f "$hook"
		n=$((n + 1))
		if [ -e "$hook.kgate-chained" ]; then
			mv "$hook.kgate-chained" "$hook"
			echo "kgate: removed the $name hook of $repo; your own hook is back in place"
		else
			echo "kgate: removed the $name hook of $repo"
		fi
	done
	[ $n -gt 0 ] || echo "kgate: no kgate hook ($*) in $repo; nothing changed"
}

slug() { realpath -m -- "$1" | sed -e 's|^/||' -e 's|/|-|g'; }

# The throwaway copy of this repository at a state (self_gate): its own
# git directory, borrowing this repository's objects.
self_copy() {
	local copy=$REPO/build/hook-self/kgate idx tree
	mkdir -p "$copy"
	[ -d "$copy/.git" ] || git init -q "$copy"
	echo "$(git -C "$REPO" rev-parse --path-format=absolute --git-common-dir)/objects" \
		>"$copy/.git/objects/info/alternates"
	if [ -n "$1" ]; then
		tree=$(git -C "$REPO" rev-parse "$1^{tree}") || return 1
	else
		idx=$copy/.git/kgate-index
		rm -f "$idx"
		GIT_INDEX_FILE=$staged git -C "$REPO" ls-files -s -z |
			GIT_INDEX_FILE=$idx git -C "$copy" update-index -z --index-info || return 1
		tree=$(GIT_INDEX_FILE=$idx git -C "$copy" write-tree) || return 1
		rm -f "$idx"
	fi
	git -C "$copy" read-tree -u --reset "$tree" && echo "$copy"
}

# gate <commit or "" for the staged state>: the gate's output, the progress
# lines on the terminal, the whole in $log; exit code the gate's.
gate() {
	local rev=$1 copy
	if [ "$self" = 1 ]; then
		copy=$(self_copy "$rev") || { echo "gate: cannot check out the state to gate"; return 1; }
		make -s --no-print-directory -C "$copy" test ${arches:+ARCHES="$arches"}
	elif [ -n "$rev" ]; then
		make -s --no-print-directory -C "$REPO" test KERNEL_CHECKOUT="$top" REV="$rev" ${arches:+ARCHES="$arches"}
	else
		KGATE_USER_INDEX=$staged make -s --no-print-directory -C "$REPO" test KERNEL_CHECKOUT="$top" \
			${arches:+ARCHES="$arches"}
	fi
}

run() {
	local name=$1 file=$2 stdin rc=0 t0 revs=() rev
	shift 2
	t0=$(date +%s)
	stdin=$(mktemp)
	trap 'rm -f "$stdin"' EXIT
	[ "$name" = pre-push ] && cat >"$stdin"
	if [ -x "$file.kgate-chained" ]; then
		"$file.kgate-chained" "$@" <"$stdin" || {
			echo "kgate: your own $name hook ($file.kgate-chained) refused"
			exit 1
		}
	fi
	# What git hands the hook, before the gate drops git's variables.
	top=$(git rev-parse --show-toplevel) || die "not run inside a work tree"
	staged=${GIT_INDEX_FILE:-$(git rev-parse --path-format=absolute --git-path index)}
	case $staged in /*) ;; *) staged=$PWD/$staged ;; esac
	# shellcheck disable=SC2046
	unset $(git rev-parse --local-env-vars) MAKEFLAGS MFLAGS MAKELEVEL
	self=0
	[ "$(realpath "$top")" = "$(realpath "$REPO")" ] && self=1
	arches=${KGATE_HOOK_ARCHES:-}
	logs=${KGATE_HOOK_LOGS:-$REPO/build/hooks}
	mkdir -p "$logs"
	log=$logs/$(slug "$top")-$name.log
	: >"$log"
	if [ "$name" = pre-push ]; then
		while read -r _lref lsha _rref _rsha; do
			[ -n "${lsha:-}" ] && [ "$lsha" != "$ZERO" ] && revs+=("$lsha")
		done <"$stdin"
		[ ${#revs[@]} -gt 0 ] || exit 0        # deletions only
		mapfile -t revs < <(printf '%s\n' "${revs[@]}" | awk '!seen[$0]++')
	else
		revs=("")
	fi
	echo "kgate: $name: gating ${revs[*]:-the staged state} of $top (log: $log)"
	for rev in "${revs[@]}"; do
		gate "$rev" 2>&1 | tee -a "$log" |
			grep --line-buffered -E '^(tree|gate|kunit|e2e): |^[0-9]+ passed, '
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	done
	if [ $rc = 0 ]; then
		echo "kgate: $name: passed in $(( $(date +%s) - t0 )) s"
		exit 0
	fi
	echo "kgate: $name: REFUSED after $(( $(date +%s) - t0 )) s; failing:"
	grep -E '^FAIL |^tree: .*does not apply|build failed|could not be prepared' "$log" | sed 's/^/kgate:   /'
	echo "bypass: git ${name#pre-} --no-verify"
	exit 1
}

cmd=${1:-}
shift || true
case $cmd in
install) [ $# -ge 2 ] || die "usage: scripts/hook.sh install <hook> <repo> [arch...]"; install "$@" ;;
uninstall) [ $# -eq 2 ] || die "usage: scripts/hook.sh uninstall <hook|all> <repo>"; uninstall "$@" ;;
run) [ $# -ge 2 ] || die "usage: scripts/hook.sh run <hook> <hook file> [args]"; run "$@" ;;
*) die "usage: scripts/hook.sh install|uninstall|run ..." ;;
esac
