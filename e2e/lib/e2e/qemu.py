"""One QEMU boot of an end-to-end run: its command line (from the arch's
qemu_configs file), the console (to a log file and kept in memory), waits
and timeouts.  No QEMU outlives the run: each is killed on timeout, when
its `with` block ends, when this Python process exits or is signalled, and
(PR_SET_PDEATHSIG) when it dies."""
import atexit
import ctypes
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from types import FrameType, TracebackType
from typing import Any, Callable, Optional, TextIO

from . import E2EError, say
from .arches import get as arch_get, kernel_image
from .host import need_tool

# What init prints last before it powers the machine off (e2e/lib/init.c).
POWEROFF = 'e2e-init: poweroff'

_live: set['Qemu'] = set()


def _kill_live() -> None:
    for q in list(_live):
        q.kill()


atexit.register(_kill_live)


def _on_signal(signum: int, _frame: Optional[FrameType]) -> None:
    _kill_live()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_signal_handlers() -> None:
    if threading.current_thread() is not threading.main_thread():
        return
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        if signal.getsignal(s) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(s, _on_signal)


_PRCTL: Optional[Callable[..., int]]
try:
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent() -> None:
    """In QEMU's child before exec: SIGKILL when the Python process dies."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL, 0, 0, 0)   # PR_SET_PDEATHSIG


def disk_args(path: str, index: int = 0, fmt: str = 'raw') -> list[str]:
    """QEMU arguments for a virtio-blk-pci disk (guest: /dev/vd<a+index>)."""
    return ['-drive', f'file={path},if=none,format={fmt},id=e2edisk{index}',
            '-device', f'virtio-blk-pci,drive=e2edisk{index}']


def serial_disk_args(path: str, serial: str, snapshot: bool = False) -> list[str]:
    """QEMU arguments for a raw virtio-blk-pci disk with a serial (a guest
    with a real userland finds its disks by /sys/block/vd*/serial);
    snapshot: writes go to a throwaway overlay, never to path."""
    snap = ',snapshot=on' if snapshot else ''
    return ['-drive', f'file={path},if=none,format=raw,id={serial}{snap}',
            '-device', f'virtio-blk-pci,drive={serial},serial={serial}']


def without_option(argv: Sequence[str], option: str) -> list[str]:
    """argv without every "option value" pair."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == option:
            skip = True
        else:
            out.append(a)
    return out


# A task blocked this long panics the kernel (panic=-1, -no-reboot: QEMU
# exits), so a kernel that deadlocks is red within about twice this, not at
# a run's timeout.  kunitconfig builds the detector in, off until a boot
# sets its timeout.
HUNG_TASK_S = 30

# The kernel passes init at most MAX_INIT_ARGS (init/main.c: 32) strings,
# its own name among them; one more panics the boot ("Too many boot init
# vars").  A guest program with more tests takes a name prefix ("probe_*").
MAX_INIT_ARGS = 31


def qemu_argv(arch: str, initrd: str, kernel: Optional[str] = None,
              mem: str = '512M', smp: Optional[int] = None, cmdline: str = '',
              init_args: Sequence[str] = (), qemu_args: Sequence[str] = (),
              hung_task_s: Optional[int] = HUNG_TASK_S) -> list[str]:
    """The QEMU command line for one e2e boot of arch.

    The machine, console and kernel come from qemu_configs/<arch>.py, and
    so does the number of CPUs (its "-smp"), unless smp is given.
    cmdline: extra kernel parameters; init_args: init's argv after "--"
    (the program to run and its arguments); qemu_args: extra QEMU arguments
    (disks, devices, "-qmp unix:...,server=on,wait=off", ...).
    initrd '' boots without an initramfs (a root filesystem on a disk:
    root= and init= in cmdline).  hung_task_s: None leaves the hung task
    detector off (a guest whose emulated disks may be that slow).
    """
    if len(init_args) > MAX_INIT_ARGS:
        raise E2EError(f'{len(init_args)} arguments for init, the kernel takes at most '
                       f'{MAX_INIT_ARGS}: name tests by a prefix ("probe_*")')
    info = arch_get(arch)
    qemu = need_tool(info.qemu)
    kernel = kernel or kernel_image(arch)
    # E2E_EPOCH: init sets the guest's clock from it when it is far behind
    # (arm64 "virt" without an RTC driver boots at 1970-01-01 00:00:00, and
    # ext4 takes an inode deleted at time 0 for one never given a dtime).
    # E2E_CMDLINE: kernel parameters added to every boot by hand, to chase
    # a problem (printk.time=1, a debug option)
    hung = (f'hung_task_panic=1 sysctl.kernel.hung_task_timeout_secs={hung_task_s}'
            if hung_task_s else '')
    append = ' '.join(p for p in (
        f'{info.console_args} kunit.enable=0 panic=-1 oops=panic '
        f'E2E_EPOCH={int(time.time())}', hung, cmdline.strip(),
        os.environ.get('E2E_CMDLINE', '').strip()) if p)
    if init_args:
        append += ' -- ' + ' '.join(init_args)
    machine = info.machine_args
    if smp is not None:
        machine = without_option(machine, '-smp') + ['-smp', str(smp)]
    return [qemu, *machine, '-nodefaults', '-display', 'none',
            '-m', str(mem),
            '-kernel', kernel, *(['-initrd', initrd] if initrd else []),
            '-append', append,
            '-serial', 'stdio', '-monitor', 'none', '-no-reboot',
            *qemu_args]


class Qemu:
    """One QEMU process: console to a log file and kept in memory (text).

        with qemu.Qemu(arch, initrd, log, qemu_args=[...]) as vm:
            vm.wait_for(r'ready', timeout=60)   # while it runs
            ... host actions, QMP ...
            vm.wait(timeout=300)
    """

    def __init__(self, arch: str, initrd: str, log: str, append_log: bool = False,
                 *, kernel: Optional[str] = None, mem: str = '512M',
                 smp: Optional[int] = None,
                 cmdline: str = '', init_args: Sequence[str] = (),
                 qemu_args: Sequence[str] = (),
                 hung_task_s: Optional[int] = HUNG_TASK_S) -> None:
        self.arch = arch
        self.argv = qemu_argv(arch, initrd, kernel=kernel, mem=mem, smp=smp,
                              cmdline=cmdline, init_args=init_args,
                              qemu_args=qemu_args, hung_task_s=hung_task_s)
        self.log_path = log
        self.append_log = append_log
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.text = ''
        self.timed_out = False
        self.returncode: Optional[int] = None
        self.t_start: Optional[float] = None
        self.t_end: Optional[float] = None
        self._cond = threading.Condition()
        self._reader: Optional[threading.Thread] = None
        self._log: Optional[TextIO] = None
        self._eof = False

    def _started(self) -> subprocess.Popen[bytes]:
        if self.proc is None:
            raise E2EError('QEMU not started')
        return self.proc

    def start(self) -> 'Qemu':
        """Start QEMU (once); returns self."""
        if self.proc is not None:
            return self
        _install_signal_handlers()
        self._log = open(self.log_path, 'a' if self.append_log else 'w',
                         encoding='utf-8', errors='replace')
        self._log.write('$ ' + ' '.join(self.argv) + '\n')
        self._log.flush()
        self.t_start = time.monotonic()
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent)
        _live.add(self)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        proc = self._started()
        assert proc.stdout is not None and self._log is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b''
            if not chunk:
                break
            s = chunk.decode('utf-8', errors='replace').replace('\r', '')
            self._log.write(s)
            self._log.flush()
            with self._cond:
                self.text += s
                self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def __enter__(self) -> 'Qemu':
        return self.start()

    def __exit__(self, exc_type: Optional[type[BaseException]],
                 exc: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.kill()

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_for(self, pattern: str, timeout: float, start: int = 0) -> Optional[re.Match[str]]:
        """Wait until the console (from offset start) matches the regex
        pattern; returns the match, or None on timeout or QEMU's exit."""
        rx = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = rx.search(self.text, start)
                if m or self._eof:
                    return m
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(min(left, 1.0))

    def send(self, text: str) -> None:
        """Type text on the guest's console (its /dev/console input)."""
        stdin = self._started().stdin
        assert stdin is not None
        stdin.write(text.encode())
        stdin.flush()

    def wait(self, timeout: float, poweroff_grace: float = 30) -> Optional[int]:
        """Wait for QEMU to exit, at most timeout seconds (then kill it and
        set timed_out).  If init said "poweroff" but QEMU lingers for
        poweroff_grace s, it is killed too (not a timeout).  Returns the
        exit code (None if killed)."""
        proc = self._started()
        deadline = time.monotonic() + timeout
        off_at = None
        while proc.poll() is None:
            now = time.monotonic()
            if now >= deadline:
                self.timed_out = True
                break
            if off_at is None and POWEROFF in self.text:
                off_at = now
            if off_at is not None and now - off_at > poweroff_grace:
                self._log_note(f'QEMU still running {poweroff_grace} s after '
                               'power-off; killed')
                break
            time.sleep(0.1)
        if proc.poll() is None:
            if self.timed_out:
                self._log_note(f'timed out after {timeout} s; killed')
            self.kill()
        else:
            self._finish()
        return self.returncode

    def _log_note(self, msg: str) -> None:
        with self._cond:
            self.text += f'\ne2e-host: {msg}\n'
        if self._log is not None and not self._log.closed:
            self._log.write(f'\ne2e-host: {msg}\n')
            self._log.flush()

    def kill(self) -> None:
        """Stop QEMU (SIGTERM, then SIGKILL) if it runs; idempotent."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    pass
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        self._finish()

    def _finish(self) -> None:
        if self.t_end is not None:
            return
        proc = self._started()
        proc.wait()
        self.t_end = time.monotonic()
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        self.returncode = proc.returncode
        if self._reader:
            self._reader.join(10)
        _live.discard(self)
        if self._log is not None:
            self._log.close()

    @property
    def seconds(self) -> float:
        """Wall time from QEMU's start to its exit (or now)."""
        if self.t_start is None:
            return 0.0
        return (self.t_end or time.monotonic()) - self.t_start

    @property
    def powered_off(self) -> bool:
        """Did the guest end by itself, through init's power-off?"""
        return (not self.timed_out and self.returncode == 0 and
                POWEROFF in self.text)

    def summary(self) -> str:
        """"<arch> boot took N s", with what went wrong."""
        return (f'{self.arch} boot took {self.seconds:.1f} s'
                + (' (TIMED OUT)' if self.timed_out else '')
                + ('' if self.powered_off else ' (no clean power-off)'))


def boot(arch: str, initrd: str, log: str, timeout: float = 300,
         append_log: bool = False, **kw: Any) -> Qemu:
    """Boot once and wait for the end (kw: Qemu's keyword arguments).
    Returns the finished Qemu (text, timed_out, seconds, powered_off)."""
    vm = Qemu(arch, initrd, log, append_log, **kw)
    with vm:
        vm.wait(timeout)
    say(vm.summary())
    return vm
