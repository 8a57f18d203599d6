"""Host side of the virtio-mem end-to-end run (run) and benchmark (bench).

One QEMU boot with two virtio-mem-pci devices, each with a 4 GiB region
(memory-backend-ram, requested-size=0 at start):

    vm0  block-size=2M   the driver uses Sub Block Mode (SBM)
    vm1  block-size=1G   larger than the guest's 128 MiB memory block: BBM

The guest program (vmem_test.c) asks for every host action on its console
("e2e-sync: vm <pid>.<n> <command> #<checksum>", sent again every 5 s until
answered); Host.serve() acts once per request and answers: it changes
requested-size with qom-set, polls query-memory-devices until size reaches
it (and, if asked, waits for the MEMORY_DEVICE_SIZE_CHANGE event), reports
QEMU's error text when qom-set refuses, and resets the machine through QMP
(set-action reboot=reset, system_reset) for the reboot scenario.
"""
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
from e2e import E2EError, arches, guest, paths, say  # noqa: E402
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
# VMEM_BOOT_MEM (a size in MiB, default 512): more for a KASAN kernel, whose
# shadow of hot-added memory (1/8 of it) comes from boot memory: with 512M
# the OOM killer ends the first test.  maxmem keeps the same room above it.
BOOT_MIB = int(os.environ.get('VMEM_BOOT_MEM', '512'))
MEM = f'{BOOT_MIB}M,maxmem={BOOT_MIB + 8704}M'
# The kernel onlines what virtio-mem adds, to ZONE_MOVABLE: only movable
# allocations land there, so the driver can always migrate them away and
# unplug (in ZONE_NORMAL unmovable kernel allocations would pin memory and
# make unplug fail at random).
#
# virtio_mem.bbm_safe_unplug=0: an operator's old setting of a module
# parameter 6.1 still has; patch 0006 removes it (bbm_pinned_unplug shows
# why: with it, unplug in Big Block Mode can loop forever).  A kernel with
# the patch ignores it, and so does 6.12 (upstream's f504e15b94eb).
CMDLINE = 'memhp_default_state=online_movable virtio_mem.bbm_safe_unplug=0'

BOOT1 = ['sbm_grow_shrink', 'bbm_grow_shrink', 'unplug_under_use', 'cycles',
         'bad_requests', 'bbm_pinned_unplug', 'bbm_offline_error',
         'sbm_offline_error', 'sbm_request_changes', 'race_resize',
         'race_bbm_sysfs', 'reboot_prepare']
BOOT2 = ['reboot_replug']
HOST_CASE = 'reset_unplugs_all'
SPLAT_GRACE = 20


DEVICE_IDS = tuple(dev for dev, _block in DEVICES)


# VMEM_SETTLE_SCALE (default 1): how much longer a "settle" request waits
# for the size to stop moving.  The debug kernel (scripts/test-debug.sh,
# soak.sh: 4) migrates so slowly under load that the driver can go 5 s
# between two unplugged subblocks while it still works through pinned
# memory; the guest then checks a size that is still moving.
SETTLE_SCALE = float(os.environ.get('VMEM_SETTLE_SCALE', '1'))

# A "set ... stall" request gives up once the size has not moved for this
# long (times SETTLE_SCALE): a driver that makes no progress on an idle
# machine is waiting for its retry timer (50 s and more), which a healthy
# kernel never needs there.  A broken unplug is then red in seconds, not at
# the request's timeout.
STALL_S = 20.0



def qemu_args(qmp_path: str, arch: str) -> list[str]:
    """The machine (arches.pci_machine_args: q35 on x86_64), QMP on a unix
    socket, the two virtio-mem-pci devices."""
    args = [*arches.pci_machine_args(arch),
            '-qmp', f'unix:{qmp_path},server=on,wait=off']
    for i, (dev, block) in enumerate(DEVICES):
        args += ['-object', f'memory-backend-ram,id=mem{i},size={REGION}',
                 '-device', f'virtio-mem-pci,id={dev},memdev=mem{i},'
                 f'block-size={block},requested-size=0']
    return args


def build(arch: str) -> str:
    """Compile the guest program and its initramfs; returns the initramfs."""
    wd = paths.work_dir(NAME, arch)
    prog = guest.compile_static(arch, [os.path.join(HERE, 'vmem_test.c')],
                                os.path.join(wd, 'vmem_test'))
    return guest.build_initramfs(NAME, arch, {'/tests/vmem_test': prog})


# ---- the guest's requests ----------------------------------------------------
# A request is the words after "e2e-sync: vm <pid>.<n> ": a command name and
# its arguments (vmem_test.c's header lists them).  COMMANDS (after Host) is
# the one table of what is accepted: a request that does not fit it (unknown
# command, wrong argument count, an argument that does not parse) is answered
# "error bad request ..."; a handler that fails otherwise is a bug of the
# host side and stops the run.

class BadRequest(Exception):
    """A request that does not fit COMMANDS."""


def device(word: str) -> str:
    """A device id argument: vm0 or vm1."""
    if word not in DEVICE_IDS:
        raise ValueError(f'no device {word!r} ({", ".join(DEVICE_IDS)})')
    return word


Parser = Callable[[str], Any]


@dataclass(frozen=True)
class Command:
    """handler(host, *parsed arguments, *flags): the answer, or None for
    no answer.  args: one parser per (required) argument; flags: the
    words allowed after them, in any number."""
    handler: Callable[..., Optional[str]]
    args: tuple[Parser, ...] = ()
    flags: frozenset[str] = frozenset()


def parse_request(commands: dict[str, Command],
                  words: Sequence[str]) -> tuple[Command, list[Any]]:
    """The command of a request and its parsed arguments; BadRequest if
    the request does not fit commands."""
    if not words:
        raise BadRequest('empty request')
    name, rest = words[0], list(words[1:])
    cmd = commands.get(name)
    if cmd is None:
        raise BadRequest(f'unknown command {name!r}')
    n = len(cmd.args)
    if len(rest) < n or (len(rest) > n and not cmd.flags):
        raise BadRequest(f'{name} takes {n} argument(s)'
                         + (f' and flags {" ".join(sorted(cmd.flags))}' if cmd.flags else '')
                         + f', got {len(rest)}')
    extra = [w for w in rest[n:] if w not in cmd.flags]
    if extra:
        raise BadRequest(f'{name}: unknown flag(s) {" ".join(extra)}')
    parsed: list[Any] = []
    for parse, word in zip(cmd.args, rest):
        try:
            parsed.append(parse(word))
        except ValueError as err:
            raise BadRequest(f'{name}: {err}') from None
    return cmd, parsed + rest[n:]


def fnv1a(text: str) -> int:
    """FNV-1a, 32 bits, of text's bytes: the checksum of a sync line
    (e2e_fnv1a() in e2e_test.h)."""
    h = 2166136261
    for b in text.encode():
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


class Host:
    """Answers the guest's requests.  plan: the test names of each boot
    (a list per boot; '+reboot' in one: reset the machine after it)."""

    def __init__(self, vm: Qemu, qmp: Qmp, plan: Sequence[Sequence[str]]) -> None:
        self.vm = vm
        self.q = qmp
        self.plan = plan
        self.boot = 0
        self.baseline: Optional[int] = None
        self.cases: dict[str, tuple[str, str]] = {}   # host-side cases: name -> (status, note)
        self.notes: list[str] = []
        self.splat: Optional[str] = None              # the first kernel splat seen

    def devices(self) -> dict[str, dict[str, Any]]:
        return {d['data']['id']: d['data'] for d in self.q.cmd('query-memory-devices')
                if d.get('type') == 'virtio-mem'}

    def size(self, dev: str) -> int:
        return int(self.devices()[dev]['size'])

    def dispatch(self, words: Sequence[str]) -> Optional[str]:
        """The answer to one request (None: no answer).  A request that
        does not fit COMMANDS: "error bad request ..."; a host-side
        problem (E2EError, e.g. QMP gone): "error ...".  Anything else a
        handler raises is a bug here: it propagates."""
        try:
            cmd, args = parse_request(COMMANDS, words)
        except BadRequest as err:
            return f'error bad request {" ".join(words)!r}: {err}'
        try:
            return cmd.handler(self, *args)
        except E2EError as err:
            return f'error {err}'

    def serve(self, timeout: float) -> None:
        """Answer requests until QEMU exits or timeout.  A kernel splat
        on the console fails the run anyway: then stop SPLAT_GRACE s later
        (self.splat set) instead of waiting for the tests to time out."""
        deadline = time.monotonic() + timeout
        rx = (r'^e2e-sync: (?P<tag>vm \S+ (?P<cmd>[^\n]*?)) #(?P<sum>[0-9a-f]{8})\n|(?P<splat>'
              + SPLAT_RE.pattern + ')')
        pos = 0
        answered: dict[str, Optional[str]] = {}
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
            tag = m.group('tag')
            if fnv1a(tag) != int(m.group('sum'), 16):
                continue        # the kernel printed into the line: it comes again
            words = m.group('cmd').split()
            if tag in answered:
                answer = answered[tag]      # a resend: answer again, do not act
            else:
                answer = self.dispatch(words)
                if words[:1] == ['reboot']:
                    answered.clear()        # the next boot's tags start again
                else:
                    answered[tag] = answer
            if answer is None:
                continue
            try:
                self.vm.send(f'e2e-reply: {m.group("tag")} {answer}\n')
            except OSError:
                return

    # ---- the commands (see COMMANDS) ----

    def cmd_info(self) -> str:
        return ' '.join(f'{d} {v["memaddr"]} {v["max-size"]} {v["block-size"]}'
                        for d, v in sorted(self.devices().items()))

    def cmd_hello(self, memtotal_kb: int) -> str:
        boot = self.boot
        self.boot += 1
        if boot == 0:
            sizes = [v['size'] for v in self.devices().values()]
            if any(sizes):
                return f'error devices not empty at the first boot: {sizes}'
            self.baseline = memtotal_kb
        tests = self.plan[boot] if boot < len(self.plan) else []
        say(f'boot {boot + 1}: guest MemTotal {memtotal_kb} kB; runs {" ".join(tests)}')
        return f'{self.baseline or 0} ' + ' '.join(tests)

    def cmd_query(self, dev: str) -> str:
        d = self.devices()[dev]
        return f'{d["size"]} {d["requested-size"]}'

    def _set(self, dev: str, value: int) -> Optional[str]:
        """qom-set requested-size; None or QEMU's error text."""
        try:
            self.q.cmd('qom-set', path=f'/machine/peripheral/{dev}',
                       property='requested-size', value=value)
        except QmpError as err:
            say(f'qom-set {dev} requested-size={value}: refused: {err.desc}')
            self.notes.append(f'{dev} {value}: {err.desc}')
            return err.desc
        return None

    def cmd_set(self, dev: str, value: int, timeout: float, *flags: str) -> str:
        """qom-set requested-size, then wait until size reaches it: "ok
        <size> <ms>" (flag ev: and the MEMORY_DEVICE_SIZE_CHANGE event,
        " ev=<ms>" or " ev=none"), "timeout <size> <ms>", "error <QEMU's text>";
        flag stall: "stalled <size> <ms>" once size stood still for STALL_S."""
        self.q.clear_events(lambda e: bool(e.get('data', {}).get('id') == dev))
        t0 = time.monotonic()
        err = self._set(dev, value)
        if err is not None:
            return f'error {err}'
        stall = STALL_S * SETTLE_SCALE if 'stall' in flags else None
        size = self.size(dev)
        last, moved = size, t0
        while size != value and time.monotonic() - t0 < timeout:
            time.sleep(0.02)
            size = self.size(dev)
            now = time.monotonic()
            if size != last:
                last, moved = size, now
            elif stall is not None and now - moved >= stall:
                return f'stalled {size} {(now - t0) * 1e3:.0f}'
        ms = (time.monotonic() - t0) * 1e3
        if size != value:
            return f'timeout {size} {ms:.0f}'
        answer = f'ok {size} {ms:.0f}'
        if 'ev' in flags:
            ev = self.q.wait_event(
                'MEMORY_DEVICE_SIZE_CHANGE', 5,
                lambda e: bool(e['data'].get('id') == dev and e['data'].get('size') == value))
            answer += (f' ev={(time.monotonic() - t0) * 1e3:.0f}' if ev else ' ev=none')
        return answer

    def cmd_request(self, dev: str, value: int) -> str:
        """qom-set requested-size and answer at once: "ok", or "error"
        and QEMU's text."""
        err = self._set(dev, value)
        return 'ok' if err is None else f'error {err}'

    def cmd_settle(self, dev: str, value: int, timeout: float, stable: float) -> str:
        """Like set, for a request the guest cannot fully meet: "settled
        <size> <ms>" once size stopped moving for stable seconds (times
        SETTLE_SCALE, at most the timeout)."""
        stable = min(stable * SETTLE_SCALE, timeout)
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

    def cmd_wait(self, dev: str, timeout: float) -> str:
        """Wait until size reaches requested-size."""
        t0 = time.monotonic()
        while True:
            d = self.devices()[dev]
            ms = (time.monotonic() - t0) * 1e3
            if d['size'] == d['requested-size']:
                return f'ok {d["size"]} {ms:.0f}'
            if ms > timeout * 1e3:
                return f'timeout {d["size"]} {ms:.0f}'
            time.sleep(0.05)

    def cmd_reboot(self) -> None:
        """Reset the machine (a hard reset, QMP system_reset).  The run's
        QEMU has -no-reboot (a reset ends it): set-action turns resets
        back into resets.  Checks that QEMU unplugged everything on reset
        and kept requested-size.  The guest gets no answer."""
        before = self.devices()
        self.q.cmd('set-action', reboot='reset')
        self.q.clear_events()
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


# The requests the guest may make (vmem_test.c's header): name -> handler
# and argument parsers.
COMMANDS: dict[str, Command] = {
    'hello': Command(Host.cmd_hello, (int,)),
    'info': Command(Host.cmd_info),
    'query': Command(Host.cmd_query, (device,)),
    'set': Command(Host.cmd_set, (device, int, float), frozenset({'ev', 'stall'})),
    'request': Command(Host.cmd_request, (device, int)),
    'settle': Command(Host.cmd_settle, (device, int, float, float)),
    'wait': Command(Host.cmd_wait, (device, float)),
    'reboot': Command(Host.cmd_reboot),
}


def boot(arch: str, plan: Sequence[Sequence[str]], log: str,
         timeout: float, cmdline: str = '') -> tuple[Qemu, Host]:
    """One QEMU boot running plan, cmdline added to CMDLINE; returns
    (finished Qemu, Host)."""
    initrd = build(arch)
    qmp_path = os.path.join(paths.work_dir(NAME, arch), 'qmp.sock')
    if os.path.exists(qmp_path):
        os.unlink(qmp_path)
    vm = Qemu(arch, initrd, log, append_log=True, mem=MEM,
              cmdline=f'{CMDLINE} {cmdline}'.strip(),
              init_args=['/tests/vmem_test'],
              qemu_args=qemu_args(qmp_path, arch))
    with vm, Qmp(qmp_path) as qmp:
        host = Host(vm, qmp, plan)
        try:
            host.serve(timeout)
        except BaseException:
            vm.kill()          # a bug of the host side: no waiting for the guest
            raise
        if host.splat is not None and vm.running():
            vm.kill()          # run_complete: no clean power-off
        else:
            vm.wait(max(5, timeout - vm.seconds))
    say(vm.summary())
    return vm, host
