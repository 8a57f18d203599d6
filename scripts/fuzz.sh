#!/usr/bin/env bash
# make fuzz: the property suites (kunit/SUITES, names ending in _prop) with
# many cases each, on one cell's KUnit kernel (make fuzz: the debug kernel of
# make test-debug, FUZZ_DEBUG=0 the gate's; built or reused
# by scripts/kunit.sh, which also runs the gate's own KUnit pass first).
#
#   [KGATE_TREE=6.1] [FUZZ_ARCH=x86_64] [FUZZ_ITERS=100000] [FUZZ_SEED=1]
#   scripts/fuzz.sh
#
# Every property suite that kunit/SUITES expects on the cell must run, each
# of its cases must report exactly FUZZ_ITERS cases from FUZZ_SEED (a
# module parameter that was not applied is a failure, not a fast pass),
# pass, and leave no kernel report (BUG, WARNING, KASAN, UBSAN, lockdep,
# Oops) in the log.  Prints each case's inputs, time and inputs per
# second, then "N passed, N failed".  Log and JSON in
# $BUILD/results/fuzz-<arch>.{log,json}.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
arch=${FUZZ_ARCH:-x86_64}
iters=${FUZZ_ITERS:-100000}
seed=${FUZZ_SEED:-1}
arch_known "$arch" || { echo "fuzz: unknown arch '$arch' ($KGATE_ARCHES)" >&2; exit 2; }
case $iters$seed in *[!0-9]*|'') echo "fuzz: FUZZ_ITERS and FUZZ_SEED are numbers" >&2; exit 2 ;; esac
cross=$(arch_cross "$arch")
results=$BUILD/results
mkdir -p "$results"

suites=$(awk -v cell="$KGATE_TREE/$arch" -v a="$arch" '
	/^#/ || NF < 2 || $1 !~ /_prop$/ || $2 != "kunit" { next }
	{ on = NF == 2; for (i = 3; i <= NF; i++) if ($i == cell || $i == a) on = 1 }
	on { print $1 }' "$REPO/kunit/SUITES")
if [ -z "$suites" ]; then
	echo "fuzz: kunit/SUITES names no property suite (*_prop) for $KGATE_TREE/$arch" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

# Build (or reuse) the gate's kernel of the cell; its own KUnit pass is
# judged by the gate, not here.
"$REPO/scripts/kunit.sh" "$arch" >/dev/null 2>&1 ||
	echo "fuzz: note: the gate's KUnit pass on $KGATE_TREE/$arch was not green ($BUILD/results/$arch.log)"
[ -f "$BUILD/$arch/.kgate-built" ] || {
	echo "fuzz: no KUnit kernel for $KGATE_TREE/$arch; see $BUILD/results/$arch.log" >&2
	echo "0 passed, 1 failed"
	exit 1
}

args=()
for m in overlay.params_prop overlay.fh_prop; do
	args+=(--kernel_args="${m}_iters=$iters" --kernel_args="${m}_seed=$seed")
done
echo "fuzz: $KGATE_TREE/$arch, suites: $(echo $suites), $iters cases each from seed $seed"
t0=$(date +%s)
(cd "$KTREE" && python3 tools/testing/kunit/kunit.py exec --arch="$arch" \
	--build_dir="$BUILD/$arch" --kunitconfig="$REPO/kunitconfig" \
	--qemu_config="$REPO/qemu_configs/$arch.py" ${cross:+--cross_compile=$cross} \
	--timeout="${FUZZ_TIMEOUT:-3600}" --json="$results/fuzz-$arch.json" \
	"${args[@]}") >"$results/fuzz-$arch.log" 2>&1
echo "fuzz: kunit.py exit $?, $(( $(date +%s) - t0 )) s"

python3 - "$results/fuzz-$arch.json" "$BUILD/$arch/test.log" "$iters" "$seed" $suites <<'EOF'
import json, re, sys

jpath, log, iters, seed, suites = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5:]
passed = failed = 0
def verdict(ok, what):
    global passed, failed
    print(('ok    ' if ok else 'FAIL  ') + what)
    if ok: passed += 1
    else: failed += 1
try:
    tree = json.load(open(jpath))
except (OSError, ValueError) as e:
    tree = {'sub_groups': []}
    verdict(False, f'kunit.py left no JSON results ({e})')
try:
    text = open(log, errors='replace').read()
except OSError:
    text = ''
groups = {g['name']: g for g in tree.get('sub_groups', [])}
def cases(g):
    for c in g.get('test_cases', []):
        yield c
    for s in g.get('sub_groups', []):
        yield from cases(s)
for name in suites:
    g = groups.get(name)
    if g is None:
        verdict(False, f'{name}: did not run')
        continue
    bad = [c['name'] for c in cases(g) if c['status'] != 'PASS']
    verdict(not bad, f'{name}: ' + ('every case passed' if not bad else 'failed: ' + ', '.join(bad)))
runs = re.findall(r'# (\w+): seed (\d+), (\d+) cases', text)
figs = re.findall(r'# (\w+): (\d+) cases \((.*?)\) in (\d+) ms: (\d+)/s', text)
verdict(len(runs) >= len(suites) and all(int(s) == seed and int(n) == iters for _, s, n in runs),
        f'every property case ran {iters} cases from seed {seed}: '
        + ', '.join(f'{c} {n} from {s}' for c, s, n in runs))
for c, n, what, ms, rate in figs:
    print(f'      {c}: {n} inputs ({what}) in {int(ms) / 1000:.1f} s, {rate}/s')
reports = re.findall(r'^.*(?:BUG:|WARNING:|KASAN|UBSAN|Oops|possible circular locking|INFO: task .* blocked).*$', text, re.M)
verdict(not reports, 'no kernel report in the log' + ('' if not reports else ': ' + reports[0].strip()))
other = [g['name'] for g in tree.get('sub_groups', []) if g['name'] not in suites
         and any(c['status'] != 'PASS' for c in cases(g))]
verdict(not other, 'the other suites passed with these parameters' + ('' if not other else ': ' + ', '.join(other)))
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
EOF
