#!/usr/bin/env bash
# make soak: the virtio-mem soak (e2e/virtio_mem/soak) on one cell's kernel
# (make soak: the debug kernel of make test-debug, SOAK_DEBUG=0 the gate's;
# built or reused by scripts/kunit.sh, which also runs the cell's KUnit
# pass first).
#
#   [KGATE_TREE=6.1] [KGATE_ARCH=x86_64] [SOAK_CYCLES=100] [SOAK_SEED=1]
#   scripts/soak.sh
#
# Red if a step failed (a size not reached, MemTotal off, a block not
# online and movable, a virtio_mem warning), the load's data changed, the
# boot did not end cleanly or its console has a kernel report (BUG,
# WARNING, KASAN, UBSAN, lockdep, Oops).  Prints cycles per minute, then
# "N passed, N failed".  Results in
# $BUILD/results/soak/e2e-virtio_mem_soak-<arch>.{json,log}.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
kgate_tree_env
arch=${KGATE_ARCH:-x86_64}
# The debug kernel of make test-debug (SOAK_DEBUG=1, the default: its build
# dir beside the gate's, from the gate's tree) or the gate's (SOAK_DEBUG=0).
[ "${SOAK_DEBUG:-1}" = 0 ] || kgate_debug_env
arch_known "$arch" || { echo "soak: unknown arch '$arch' ($KGATE_ARCHES)" >&2; exit 2; }
for v in "${SOAK_CYCLES:-100}" "${SOAK_SEED:-1}"; do
	case $v in *[!0-9]*|''|0) echo "soak: SOAK_CYCLES and SOAK_SEED are positive numbers" >&2; exit 2 ;; esac
done
export SOAK_CYCLES=${SOAK_CYCLES:-100} SOAK_SEED=${SOAK_SEED:-1}
# its own results directory: not one the gate judges
results=$BUILD/results/soak
export E2E_RESULTS=$results
mkdir -p "$results"

kgate_need_kernel soak "$arch"

# a debug (KASAN) kernel takes the shadow of hot-added memory from boot
# memory: give it more (see e2e/virtio_mem/vmem.py)
[ -n "${KGATE_KUNITCONFIG_EXTRA:-}" ] && export VMEM_BOOT_MEM=${VMEM_BOOT_MEM:-2048}
t0=$(date +%s)
E2E_TIMEOUT=${E2E_TIMEOUT:-7200} python3 "$REPO/e2e/virtio_mem/soak" "$arch"
echo "soak: $(( $(date +%s) - t0 )) s"
"$REPO/scripts/results_json.py" add-reports "$results/e2e-virtio_mem_soak-$arch.json" \
	"$results/e2e-virtio_mem_soak-$arch.log"
