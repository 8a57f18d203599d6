#!/usr/bin/env bash
# Re-apply each kept mutant (mutants/<tree>/*.patch, and those of
# mutants/all/ whose "Trees:" line names the tree) to that tree's patched
# tree, run the suite it names, and expect red.  A mutant the gate does not
# catch ("survived") fails this target.
#
#   [KGATE_TREE=6.12] scripts/mutants.sh       every mutant of the tree
#                                              (default 6.1)
#   scripts/mutants.sh mutants/6.12/foo.patch ...   these (their folder
#                                              names the tree)
#
# A mutant file starts with a header, then a plain git diff against the
# patched tree (paths relative to the kernel tree root):
#   Mutant: <what is broken>
#   Expect: <suite that must fail>
#   Expect: <suite>.<test that must fail>       (as many Expect: lines as
#                                               must all go red)
#   Green: <kind>                               every suite of that kind
#                                               (kunit, e2e) must stay green
#   Arch: <arch>                                (optional) the only arch it
#                                               runs on; skipped on others
#   Trees: <tree>...                            (mutants/all/ only) the trees
#                                               whose code it fits
#
# Without mutants named, only the stale ones run: those whose last verdict
# is not "killed" on the tree's current content key (FRESH=1: all), the
# cheapest first (KUnit only, then end-to-end, conformance, fault runs).
# MUTANTS_BUDGET=<minutes>: start no mutant once that much time has gone,
# and list the ones left (a later run takes them up: they are still stale).
#
# An Expect: on a conformance suite (fstests_overlay_<section>.<test>) runs
# those fstests tests of that section (conformance/fstests/host) against
# the committed baseline; one on a fault run (e2e_faults_<name>.<scenario>)
# runs those scenarios of make faults (scripts/faults.sh, on the debug
# kernel built with the mutant); Green: e2e runs every end-to-end run.
#
# The tree is always restored, also on ^C.  KGATE_ARCH picks the arch
# (default x86_64; make mutants: the cells' arch, ARCHES=).  Each mutant's results and logs are kept in
# $BUILD/results/mutants/<name>/, and its verdict (killed, survived, broken)
# with the tree's content key in mutants/<tree>/VERDICTS (committed: make
# test counts the kept mutants with no kill on the tree's current code).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
files=()
for f in "$@"; do files+=("$(realpath "$f")"); done
# The tree of the mutants named: their folder, mutants/<tree>/ (one of
# mutants/all/: KGATE_TREE, a tree its Trees: line names).
for f in "${files[@]}"; do
	t=$(basename "$(dirname "$f")")
	if [ "$t" = all ]; then
		t=${KGATE_TREE:-}
		[ -n "$t" ] && sed -n 's/^Trees: //p' "$f" | tr ' ' '\n' | grep -qxF "$t" || {
			echo "mutants: $f is shared: name one of its trees ($(sed -n 's/^Trees: //p' "$f")) with KGATE_TREE" >&2
			exit 2
		}
	fi
	tree_known "$t" || { echo "mutants: $f is not in mutants/<tree>/ or mutants/all/ (trees: $KGATE_TREES)" >&2; exit 2; }
	[ -z "${KGATE_TREE:-}" ] || [ "$KGATE_TREE" = "$t" ] ||
		{ echo "mutants: $f is a mutant of $t, not of $KGATE_TREE: one tree per run" >&2; exit 2; }
	KGATE_TREE=$t
done
kgate_tree_env
arch=${KGATE_ARCH:-x86_64}
arch_known "$arch" || { echo "mutants: unknown arch '$arch' ($KGATE_ARCHES)" >&2; exit 2; }
results=$BUILD/results
export BUILD

named=${#files[@]}
[ ${#files[@]} -gt 0 ] || mapfile -t files < <("$REPO/scripts/mutants_check.py" list "$REPO/mutants/$KGATE_TREE")
[ ${#files[@]} -gt 0 ] && [ -e "${files[0]}" ] ||
	{ echo "mutants: no mutants/$KGATE_TREE/*.patch and none of mutants/all/ for $KGATE_TREE"; echo "0 passed, 1 failed"; exit 1; }

if [ -n "$(git -C "$KTREE" status --porcelain --untracked-files=no)" ]; then
	echo "mutants: $KTREE has uncommitted edits; commit or drop them first" >&2
	exit 1
fi

# The content key of the tree the mutants run on (HEAD, kunit/ and the
# kunitconfig do not change while they run: each mutant is a work-tree edit).
key=$("$REPO/scripts/mutants_check.py" key "$KTREE" --tests "$KGATE_TREE" --config "$REPO/kunitconfig") || exit 2
verdict() { "$REPO/scripts/mutants_check.py" record "$REPO/mutants/$KGATE_TREE" "$name" "$1" "$arch" "$key"; }

# (minutes, a decimal allowed; in nanoseconds here: "%.0f", as mawk's "%d"
# stops at 2^31 - 1, about two seconds)
budget_ns=$(awk -v m="${MUTANTS_BUDGET:-0}" 'BEGIN { printf "%.0f", m * 60e9 }')
t_start=$(date +%s%N)
until=
[ "$budget_ns" -gt 0 ] &&
	until=", within $MUTANTS_BUDGET min (none starts after $(date -d "@$(( (t_start + budget_ns) / 1000000000 ))" +%H:%M:%S))"

# The run's mutants: those named, else the stale ones of this arch, the
# cheapest first (scripts/mutants_check.py plan).
if [ "$named" = 0 ]; then
	mapfile -t files < <("$REPO/scripts/mutants_check.py" plan "$REPO/mutants/$KGATE_TREE" \
		"$key" "$arch" ${FRESH:+--fresh})
	if [ ${#files[@]} -eq 0 ]; then
		echo "mutants: $KGATE_TREE: nothing stale: every kept mutant for $arch was killed on the tree's current code (FRESH=1 runs them all)"
		echo "0 passed, 0 failed"
		exit 0
	fi
	echo "mutants: $KGATE_TREE: ${#files[@]} to run on $arch, the cheapest first$until"
fi

applied=
restore() {
	if [ -n "$applied" ]; then
		git -C "$KTREE" apply -R "$applied" || echo "mutants: could not revert $applied: fix $KTREE by hand" >&2
		applied=
	fi
}
trap 'restore; exit 130' INT TERM
trap restore EXIT

# Does an Expect: line's suite exist?  A misspelt one would not run, and a
# suite that did not run counts as red: the mutant would look killed.
suite_known() {
	local s=$1
	case $s in
	e2e_faults_*) [ -x "$REPO/e2e/${s#e2e_faults_}/faults" ] ;;
	e2e_*) [ -x "$REPO/e2e/${s#e2e_}/run" ] ;;
	fstests_overlay_*) awk '!/^#/ && NF { print $1 }' "$REPO/conformance/fstests/sections" |
		grep -qxF "${s#fstests_overlay_}" ;;
	*) awk '!/^#/ && NF { print $1 }' "$REPO/kunit/SUITES" | grep -qxF "$s" ;;
	esac
}

killed=0 survived=0 broken=0 left=()
for m in "${files[@]}"; do
	name=$(basename "$m" .patch)
	# (the first always runs: a budget stops the run between two mutants)
	if [ "$budget_ns" -gt 0 ] && [ $((killed + survived + broken)) -gt 0 ] &&
		[ $(( $(date +%s%N) - t_start )) -ge "$budget_ns" ]; then
		left+=("$name")
		continue
	fi
	only=$(sed -n 's/^Arch: //p' "$m" | head -n 1)
	if [ -n "$only" ] && [ "$only" != "$arch" ]; then
		echo "skipped  $name: runs on $only only"
		continue
	fi
	what=$(sed -n 's/^Mutant: //p' "$m" | head -n 1)
	expects=$(sed -n 's/^Expect: //p' "$m")
	greens=$(sed -n 's/^Green: //p' "$m" | tr '\n' ' ')
	if [ -z "$expects" ]; then
		echo "BROKEN   $name: no 'Expect:' line"; broken=$((broken + 1)); verdict broken; continue
	fi
	unknown=$(while read -r e; do
		[[ $e =~ ^[A-Za-z0-9_]+(\.[^[:space:]]+)?$ ]] && suite_known "${e%%.*}" || echo "$e"
	done <<<"$expects" | head -n 1)
	if [ -n "$unknown" ]; then
		echo "BROKEN   $name: 'Expect: $unknown' names no suite (kunit/SUITES, e2e/<run>/run or faults, an fstests section)"
		broken=$((broken + 1)); verdict broken; continue
	fi
	if ! git -C "$KTREE" apply "$m"; then
		echo "BROKEN   $name: does not apply to the patched tree"; broken=$((broken + 1)); verdict broken; continue
	fi
	applied=$m
	rm -f "$results/$arch.json" "$results/$arch.rc" "$results"/e2e-*-"$arch".json \
		"$results"/conf-*-"$arch".json "$results/verdict.json"
	"$REPO/scripts/kunit.sh" "$arch" >/dev/null 2>&1      # writes $arch.{json,rc,log}
	if grep -q "^kunit: $arch build failed" "$results/$arch.log"; then
		restore
		echo "BROKEN   $name: the kernel does not build with it"; broken=$((broken + 1)); verdict broken; continue
	fi
	e2e_suites=$(printf '%s\n' "$expects" | sed -n 's/^\(e2e_[^.]*\).*/\1/p' | sort -u)
	case " $greens " in *" e2e "*)
		e2e_suites=$(for r in "$REPO"/e2e/*/run; do echo "e2e_$(basename "$(dirname "$r")")"; done) ;;
	esac
	for suite in $e2e_suites; do
		e2e=$REPO/e2e/${suite#e2e_}/run
		[ -x "$e2e" ] && "$e2e" "$arch" >/dev/null 2>&1
	done
	# A fault run's suite (e2e_faults_<name>.<scenario>): scripts/faults.sh
	# on the debug kernel, built from the mutated tree, those scenarios only
	ftests=$(printf '%s\n' "$expects" | sed -n 's/^e2e_faults_[^.]*\.//p' | paste -sd' ')
	if printf '%s\n' "$expects" | grep -q '^e2e_faults_'; then
		FAULTS_RESULTS=$results FAULTS_TESTS=$ftests KGATE_TREE=$KGATE_TREE KGATE_ARCH=$arch \
			"$REPO/scripts/faults.sh" --cell >"$results/faults-$arch.log" 2>&1
	fi
	for suite in $(printf '%s\n' "$expects" | sed -n 's/^\(fstests_overlay_[^.]*\).*/\1/p' | sort -u); do
		sec=${suite#fstests_overlay_}
		tests=$(printf '%s\n' "$expects" | sed -n "s|^$suite\\.||p" | paste -sd' ')
		KGATE_ROOT=$(dirname "$BUILD") FSTESTS_TESTS=$tests "$REPO/conformance/fstests/host" "$arch" "$sec" \
			--known "$REPO/conformance/known/$KGATE_TREE/$arch/$sec" \
			--json "$results/conf-$suite-$arch.json" >"$results/conf-$suite-$arch.log" 2>&1
	done
	restore
	# Keep what the runs said, for the record: $BUILD/results/mutants/<name>/
	keep=$results/mutants/$name
	rm -rf "$keep" && mkdir -p "$keep"
	# The verdict on what ran (KUnit, the named end-to-end suites), read
	# from gate.py's verdict.json: suite.test red if that test failed;
	# suite red if any of its tests did; a suite that crashed or did not
	# run is red either way.
	KINDS="kunit e2e conf" RESULTS=$results SUITES=$REPO/kunit/SUITES \
		python3 "$REPO/scripts/gate.py" "$arch" >/dev/null 2>&1
	cp "$results/$arch".{json,log,rc} "$results"/e2e-*-"$arch".{json,log} \
		"$results"/conf-*-"$arch".{json,log} "$results/faults-$arch.log" "$results/verdict.json" "$keep"/ 2>/dev/null
	# shellcheck disable=SC2086  # one word per Expect: line
	out=$(python3 "$REPO/scripts/verdict.py" red "$results/verdict.json" "$arch" $expects 2>&1)
	v=$?
	if [ $v = 0 ] && [ -n "$greens" ]; then
		# (the suites its Expect: lines name are meant to be red)
		mapfile -t besides < <(printf '%s\n' "$expects" | cut -d. -f1 | sort -u)
		# shellcheck disable=SC2086  # one word per kind
		g=$(python3 "$REPO/scripts/verdict.py" green "$results/verdict.json" "$arch" $greens \
			--besides "${besides[@]}" 2>&1)
		if [ $? != 0 ]; then
			broken=$((broken + 1))
			echo "BROKEN   $name: caught, but not only by what it names: $(printf '%s\n' "$g" | grep '^red' | tr '\n' ' ')"
			verdict broken
			continue
		fi
		out+=$'\n'"$(printf '%s\n' "$g" | sed 's/^green /           stays green: /')"
	fi
	case $v in
	0)
		killed=$((killed + 1))
		verdict killed
		echo "killed   $name ($what)"
		printf '%s\n' "$out" | sed 's/^red /           /'
		;;
	1)
		survived=$((survived + 1))
		verdict survived
		echo "SURVIVED $name ($what): stayed green:$(printf '%s\n' "$out" | sed -n 's/^green / /p' | tr -d '\n')"
		;;
	*)
		broken=$((broken + 1))
		verdict broken
		echo "BROKEN   $name: no verdict: $out"
		;;
	esac
done

total=$((killed + survived + broken))
echo "mutants: $killed of $total killed, $survived survived, $broken broken"
if [ ${#left[@]} -gt 0 ]; then
	echo "mutants: the budget of $MUTANTS_BUDGET min is used up after $(( ($(date +%s%N) - t_start) / 60000000000 )) min; ${#left[@]} left, still stale: ${left[*]}"
fi
# The tree is back to the series: the next gate run rebuilds what the
# mutants touched.
echo "$killed passed, $((survived + broken)) failed"
[ $((survived + broken)) -eq 0 ]
