"""Host side of the virtio-mem end-to-end run (run) and benchmark (bench).

One QEMU boot with two virtio-mem-pci devices, each with a 4 GiB region
(memory-backend-ram, requested-size=0 at start):

    vm0  block-size=2M   the driver uses Sub Block Mode (SBM)
    vm1  block-size=1G   larger than the guest's 128 MiB memory block: BBM

The guest program (vmem_test.c) asks for every host action on its console
("e2e-sync: vm <n> <command>"); Host.serve() answers: it changes
requested-size with qom-set, polls query-memory-devices until size reaches
it (and, if asked, waits for the MEMORY_DEVICE_SIZE_CHANGE event), reports
QEMU's error text when qom-set refuses, and resets the machine through QMP
(set-action reboot=reset, system_reset) for the reboot scenario.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
from e2e import E2EError, guest, paths, say  # noqa: E402
from e2e.qemu import Qemu  # noqa: E402
from e2e.qmp import Qmp, QmpError  # noqa: E402
from e2e.results import SPLAT_RE  # noqa: E402

NAME = 'virtio_mem'
GiB = 1 << 30
REGION = '4G'
DEVICES = (('vm0', '2M'), ('vm1', '1G'))
# 512M of boot memory; maxmem leaves room for both 4 GiB regions (and
# their alignment).  -m ...,slots= is not needed: virtio-mem uses no DIMM
# slot.
MEM = '512M,maxmem=9G'
# The kernel onlines what virtio-mem adds, to ZONE_MOVABLE: only movable
# allocations land there, so the driver can always migrate them away and
# unplug (in ZONE_NORMAL unmovable kernel allocations would pin memory and
# make unplug fail at random).
#
# virtio_mem.bbm_safe_unplug=0: an operator's old setting of a module
# parameter 6.1 still has; patch 0007 removes it (bbm_pinned_unplug shows
# why: with it, unplug in Big Block Mode can loop forever).  A kernel with
# the patch ignores it.
CMDLINE = 'memhp_default_state=online_movable virtio_mem.bbm_safe_unplug=0'

BOOT1 = ['sbm_grow_shrink', 'bbm_grow_shrink', 'unplug_under_use', 'cycles',
         'bad_requests', 'bbm_pinned_unplug', 'bbm_offline_error',
         'sbm_offline_error', 'sbm_request_changes', 'reboot_prepare']
BOOT2 = ['reboot_replug']
HOST_CASE = 'reset_unplugs_all'
SPLAT_GRACE = 20


def qemu_args(qmp_path):
    args = ['-qmp', f'unix:{qmp_path},server=on,wait=off']
    for i, (dev, block) in enumerate(DEVICES):
        args += ['-object', f'memory-backend-ram,id=mem{i},size={REGION}',
                 '-device', f'virtio-mem-pci,id={dev},memdev=mem{i},'
                 f'block-size={block},requested-size=0']
    return args


def build(arch):
    """Compile the guest program and its initramfs; returns the initramfs."""
    wd = paths.work_dir(NAME, arch)
    prog = guest.compile_static(arch, [os.path.join(HERE, 'vmem_test.c')],
                              os.path.join(wd, 'vmem_test'))
    return guest.build_initramfs(NAME, arch, {'/tests/vmem_test': prog})


class Host:
    """Answers the guest's requests.  plan: the test names of each boot
    (a list per boot; '+reboot' in one: reset the machine after it)."""

    def __init__(self, vm, qmp, plan):
        self.vm = vm
        self.q = qmp
        self.plan = plan
        self.boot = 0
        self.baseline = None
        self.cases = {}          # host-side cases: name -> (status, note)
        self.notes = []
        self.splat = None        # the first kernel splat seen

    def devices(self):
        return {d['data']['id']: d['data'] for d in self.q.cmd('query-memory-devices')
                if d.get('type') == 'virtio-mem'}

    def size(self, dev):
        return self.devices()[dev]['size']

    def serve(self, timeout):
        """Answer requests until QEMU exits or timeout.  A kernel splat
        on the console fails the run anyway: then stop SPLAT_GRACE s later
        (self.splat set) instead of waiting for the tests to time out."""
        deadline = time.monotonic() + timeout
        rx = (r'^e2e-sync: (?P<tag>vm \S+ (?P<cmd>[^\n]*))\n|(?P<splat>'
              + SPLAT_RE.pattern + ')')
        pos = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            m = self.vm.wait_for(rx, left, start=pos)
            if not m:
                return
            pos = m.end()
            if m.group('splat'):
                if self.splat is None:
                    self.splat = m.group('splat')
                    say(f'kernel splat on the console ({self.splat!r}): '
                            f'stopping the boot in {SPLAT_GRACE} s')
                    deadline = min(deadline, time.monotonic() + SPLAT_GRACE)
                continue
            tag, words = m.group('tag'), m.group('cmd').split()
            try:
                answer = getattr(self, 'cmd_' + words[0])(*words[1:])
            except E2EError as err:
                answer = f'error {err}'
            except (AttributeError, TypeError, ValueError, KeyError) as err:
                answer = f'error bad request {words}: {err!r}'
            if answer is None:
                continue
            try:
                self.vm.send(f'e2e-reply: {tag} {answer}\n')
            except OSError:
                return

    # ---- the commands ----

    def cmd_info(self):
        return ' '.join(f'{d} {v["memaddr"]} {v["max-size"]} {v["block-size"]}'
                        for d, v in sorted(self.devices().items()))

    def cmd_hello(self, memtotal_kb):
        boot = self.boot
        self.boot += 1
        if boot == 0:
            sizes = [v['size'] for v in self.devices().values()]
            if any(sizes):
                return f'error devices not empty at the first boot: {sizes}'
            self.baseline = int(memtotal_kb)
        tests = self.plan[boot] if boot < len(self.plan) else []
        say(f'boot {boot + 1}: guest MemTotal {memtotal_kb} kB; runs {" ".join(tests)}')
        return f'{self.baseline or 0} ' + ' '.join(tests)

    def cmd_query(self, dev):
        d = self.devices()[dev]
        return f'{d["size"]} {d["requested-size"]}'

    def _set(self, dev, value):
        """qom-set requested-size; None or QEMU's error text."""
        try:
            self.q.cmd('qom-set', path=f'/machine/peripheral/{dev}',
                       property='requested-size', value=value)
        except QmpError as err:
            say(f'qom-set {dev} requested-size={value}: refused: {err.desc}')
            self.notes.append(f'{dev} {value}: {err.desc}')
            return err.desc
        return None

    def cmd_set(self, dev, value, timeout, *flags):
        value, timeout = int(value), float(timeout)
        self.q.events = [e for e in self.q.events
                         if e.get('data', {}).get('id') != dev]
        t0 = time.monotonic()
        err = self._set(dev, value)
        if err is not None:
            return f'error {err}'
        size = self.size(dev)
        while size != value and time.monotonic() - t0 < timeout:
            time.sleep(0.02)
            size = self.size(dev)
        ms = (time.monotonic() - t0) * 1e3
        if size != value:
            return f'timeout {size} {ms:.0f}'
        answer = f'ok {size} {ms:.0f}'
        if 'ev' in flags:
            ev = self.q.wait_event(
                'MEMORY_DEVICE_SIZE_CHANGE', 5,
                lambda e: e['data'].get('id') == dev and e['data'].get('size') == value)
            answer += (f' ev={(time.monotonic() - t0) * 1e3:.0f}' if ev else ' ev=none')
        return answer

    def cmd_request(self, dev, value):
        """qom-set requested-size and answer at once: "ok", or "error"
        and QEMU's text."""
        err = self._set(dev, int(value))
        return 'ok' if err is None else f'error {err}'

    def cmd_settle(self, dev, value, timeout, stable):
        """Like set, for a request the guest cannot fully meet: "settled
        <size> <ms>" once size stopped moving for stable seconds."""
        value, timeout, stable = int(value), float(timeout), float(stable)
        t0 = time.monotonic()
        err = self._set(dev, value)
        if err is not None:
            return f'error {err}'
        last, changed = self.size(dev), t0
        while last != value:
            now = time.monotonic()
            if now - changed >= stable:
                return f'settled {last} {(now - t0) * 1e3:.0f}'
            if now - t0 >= timeout:
                return f'timeout {last} {(now - t0) * 1e3:.0f}'
            time.sleep(0.05)
            size = self.size(dev)
            if size != last:
                last, changed = size, time.monotonic()
        return f'ok {last} {(time.monotonic() - t0) * 1e3:.0f}'

    def cmd_wait(self, dev, timeout):
        """Wait until size reaches requested-size."""
        t0 = time.monotonic()
        while True:
            d = self.devices()[dev]
            ms = (time.monotonic() - t0) * 1e3
            if d['size'] == d['requested-size']:
                return f'ok {d["size"]} {ms:.0f}'
            if ms > float(timeout) * 1e3:
                return f'timeout {d["size"]} {ms:.0f}'
            time.sleep(0.05)

    def cmd_reboot(self):
        """Reset the machine (a hard reset, QMP system_reset).  The run's
        QEMU has -no-reboot (a reset ends it): set-action turns resets
        back into resets.  Checks that QEMU unplugged everything on reset
        and kept requested-size.  The guest gets no answer."""
        before = self.devices()
        self.q.cmd('set-action', reboot='reset')
        self.q.events.clear()
        self.q.cmd('system_reset')
        ev = self.q.wait_event('RESET', 30)
        after = self.devices()
        state = ', '.join(f'{d}: size {before[d]["size"] >> 20}M -> {v["size"] >> 20}M, '
                          f'requested {v["requested-size"] >> 20}M'
                          for d, v in sorted(after.items()))
        ok = ev is not None and all(
            v['size'] == 0 and v['requested-size'] == before[d]['requested-size']
            for d, v in after.items())
        self.cases[HOST_CASE] = ('PASS' if ok else 'FAIL',
                                 state + ('' if ev else '; no RESET event'))
        say(f'system_reset: {state}')
        return None


def boot(arch, plan, log, timeout):
    """One QEMU boot running plan; returns (finished Qemu, Host)."""
    initrd = build(arch)
    qmp_path = os.path.join(paths.work_dir(NAME, arch), 'qmp.sock')
    if os.path.exists(qmp_path):
        os.unlink(qmp_path)
    vm = Qemu(arch, initrd, log, append_log=True, mem=MEM, cmdline=CMDLINE,
                  init_args=['/tests/vmem_test'], qemu_args=qemu_args(qmp_path))
    with vm:
        qmp = Qmp(qmp_path)
        host = Host(vm, qmp, plan)
        try:
            host.serve(timeout)
        finally:
            if host.splat is not None and vm.running():
                vm.kill()      # run_complete: no clean power-off
            else:
                vm.wait(max(5, timeout - vm.seconds))
            qmp.close()
    say(f'{arch} boot took {vm.seconds:.1f} s'
            + (' (TIMED OUT)' if vm.timed_out else '')
            + ('' if vm.powered_off else ' (no clean power-off)'))
    return vm, host
