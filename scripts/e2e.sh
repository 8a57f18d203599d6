#!/usr/bin/env bash
# The end-to-end runs of one arch (every executable e2e/<name>/run) on the
# kernel scripts/kunit.sh built last:
#
#   scripts/e2e.sh [--reuse] x86_64|arm64
#
# Each run writes $BUILD/results/e2e-<name>-<arch>.json (removed first, so a
# run that dies leaves no stale results).  Every run counts: the exit code
# is 0 only if every run passed.
#
# --reuse (the gate): a run that passed is reused while nothing it depends
# on changed: the kernel tree less what other suites alone cover
# (kunit/PATHS, scripts/scope.py: a change under fs/overlayfs/ does not
# rerun the virtio-mem run) and less the KUnit sources (these boots run with
# kunit.enable=0), the kernel's .config, the arch's qemu_configs file,
# scripts/lib.sh, the run's own files and e2e/lib.  Failures are never
# reused; FULL=1 (or FRESH=1) reruns every run.
#
# A run that fails is run once more, that run only (E2E_RETRY=0: not):
# failed twice is red; failed then passed is flaky (scripts/flaky.py): red,
# each test that failed named, unless kunit/FLAKY lists it with a reason.  E2E_DIR (default e2e/) is where the
# runs are looked for.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
export BUILD
E2E_DIR=${E2E_DIR:-$REPO/e2e}
reuse=0
if [ "${1:-}" = --reuse ]; then reuse=1; shift; fi
[ "${FRESH:-0}" = 1 ] || [ "${FULL:-0}" = 1 ] && reuse=0
arch=${1:-}
if ! arch_known "$arch"; then
	echo "usage: scripts/e2e.sh [--reuse] ${KGATE_ARCHES// /|}" >&2
	exit 2
fi
results=$BUILD/results
mkdir -p "$results"

n=0 failed=()
for run in "$E2E_DIR"/*/run; do
	[ -x "$run" ] || continue
	name=$(basename "$(dirname "$run")")
	n=$((n + 1))
	rm -f "$results/e2e-$name-$arch.json"
	key=$( { suite_key "e2e_$name" "$arch"
		find "$E2E_DIR/lib" "$E2E_DIR/$name" -type f ! -path '*/__pycache__/*' \
			-exec sha1sum {} + 2>/dev/null | sort; } | sha1sum | cut -d' ' -f1)
	cache=$BUILD/e2e-cache/$name-$arch
	if [ $reuse = 1 ] && [ -f "$cache.json" ] && [ "$(cat "$cache.key" 2>/dev/null)" = "$key" ]; then
		cp "$cache.json" "$results/e2e-$name-$arch.json"
		echo "e2e: $name $arch: reused: passed on a tree the same where it looks (it covers $(suite_claims "e2e_$name")), same config and tests; FULL=1 reruns"
		continue
	fi
	rm -f "$cache.json" "$cache.key"
	t0=$(date +%s)
	echo "e2e: $name $arch"
	json=$results/e2e-$name-$arch.json
	if "$run" "$arch"; then
		mkdir -p "$BUILD/e2e-cache"
		cp "$json" "$cache.json" 2>/dev/null && echo "$key" >"$cache.key"
	elif [ -f "$json" ] && [ "${E2E_RETRY:-1}" = 1 ]; then
		# Once more, this run only: failed twice is red; failed, then
		# passed is flaky, red unless kunit/FLAKY lists each test that
		# failed (scripts/flaky.py)
		mv "$json" "$json.first"
		echo "e2e: $name $arch failed; running it once more"
		if "$run" "$arch" && [ -f "$json" ]; then
			"$REPO/scripts/flaky.py" merge "$json.first" "$json" "$json" --known "${KGATE_FLAKY:-$REPO/kunit/FLAKY}" |
				sed "s/^/e2e: $name $arch: /" || failed+=("$name")
		else
			failed+=("$name")
		fi
		rm -f "$json.first"
	else
		failed+=("$name")
	fi
	echo "e2e: $name $arch took $(( $(date +%s) - t0 )) s"
done

if [ $n -eq 0 ]; then
	echo "e2e: no runs in $E2E_DIR/*/run" >&2
	exit 1
fi
if [ ${#failed[@]} -gt 0 ]; then
	echo "e2e: $arch: $n run(s), failed: ${failed[*]}"
	exit 1
fi
echo "e2e: $arch: $n run(s), all passed"
