"""Host side of the end-to-end QEMU runs (Python 3 standard library only).

A run script (e2e/<name>/run <arch>) typically:

    import e2e
    arch = e2e.arch_from_argv()
    prog = e2e.compile_static(arch, ['test.c'], e2e.work_dir(NAME, arch) + '/t')
    initrd = e2e.build_initramfs(NAME, arch, {'/tests/t': prog})
    log = e2e.start_log(NAME, arch)            # console log of every boot
    boot = e2e.boot(arch, initrd, log, timeout=300, append_log=True,
                    init_args=['/tests/t'], qemu_args=e2e.disk_args(img))
    e2e.finish(NAME, arch, EXPECTED, [boot])   # results JSON, exit code

Guest side: e2e/lib/init.c (the initramfs's /init) and e2e/lib/e2e_test.h
(the TAP harness of the test programs).

The kernel is the one scripts/kunit.sh built: $BUILD/<arch>/... .  Results:
$BUILD/results/e2e-<name>-<arch>.json (KernelCI layout, as kunit.py writes)
and the console log next to it, .log.
"""
import atexit
import ctypes
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

LIB = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(LIB))
BUILD = os.environ.get('BUILD') or os.path.join(REPO, 'build')

ARCHES = {
    'x86_64': {
        'cc': 'gcc',
        'cc_pkg': 'gcc libc6-dev',
        'qemu': 'qemu-system-x86_64',
        'qemu_pkg': 'qemu-system-x86',
        'kernel': 'x86_64/arch/x86/boot/bzImage',
        'console': 'ttyS0',
        # qboot boots much faster than SeaBIOS; qemu-system-x86 ships it.
        'machine': ['-bios', 'qboot.rom'],
    },
    'arm64': {
        'cc': 'aarch64-linux-gnu-gcc',
        'cc_pkg': 'gcc-aarch64-linux-gnu libc6-dev-arm64-cross',
        'qemu': 'qemu-system-aarch64',
        'qemu_pkg': 'qemu-system-arm',
        'kernel': 'arm64/arch/arm64/boot/Image.gz',
        'console': 'ttyAMA0',
        'machine': ['-machine', 'virt', '-cpu', 'cortex-a57'],
    },
}

# Lines of a console log that mean the kernel is unwell.
SPLAT_RE = re.compile(
    r'WARNING:|BUG:|Oops|KASAN|UBSAN|possible circular locking|'
    r'[Kk]ernel panic|Call Trace|general protection fault|'
    r'INFO: task .* blocked for more than|stack-protector|'
    r'list_(add|del) corruption|RCU detected stall|soft lockup|hard LOCKUP')

# A TAP result line: "ok 3 - name", "not ok 4 - name # reason".  Searched
# (not matched at line start) so that a kernel message cut into the line
# does not hide the result.
TAP_RE = re.compile(r'(?:^|\s)(not ok|ok) (\d+)(?: -)? ([^\s#]+)\s*(?:#\s?(.*))?$')


class E2EError(Exception):
    """A problem of the host side (missing tool, kernel, ...)."""


class QmpError(E2EError):
    """A QMP command's error reply: .error is its "error" object
    ({'class': ..., 'desc': ...}), .desc QEMU's message."""

    def __init__(self, name, error):
        super().__init__(f'QMP {name}: {error}')
        self.error = error
        self.desc = error.get('desc', '') if isinstance(error, dict) else str(error)


def say(msg):
    print(f'e2e: {msg}', flush=True)


# ---- arches, paths, tools ---------------------------------------------------

def arch_from_argv(argv=None):
    """The arch named by a run script's first argument (exits on misuse)."""
    argv = sys.argv if argv is None else argv
    if len(argv) < 2 or argv[1] not in ARCHES:
        print(f'usage: {argv[0]} {"|".join(ARCHES)}', file=sys.stderr)
        sys.exit(2)
    return argv[1]


def arch_info(arch):
    """The per-arch facts of ARCHES (KeyError-free: E2EError)."""
    try:
        return ARCHES[arch]
    except KeyError:
        raise E2EError(f'unknown arch {arch!r} ({", ".join(ARCHES)})') from None


def kernel_image(arch):
    """Path of the arch's kernel built by scripts/kunit.sh; E2EError if none."""
    path = os.path.join(BUILD, arch_info(arch)['kernel'])
    if not os.path.isfile(path):
        raise E2EError(f'no {arch} kernel at {path}; build it: make kunit-{arch}')
    return path


def work_dir(name, arch):
    """$BUILD/e2e/<name>/<arch>/ (created): the run's build products, disks."""
    path = os.path.join(BUILD, 'e2e', name, arch)
    os.makedirs(path, exist_ok=True)
    return path


def results_dir():
    path = os.path.join(BUILD, 'results')
    os.makedirs(path, exist_ok=True)
    return path


def log_path(name, arch):
    """$BUILD/results/e2e-<name>-<arch>.log, the console log of the run."""
    return os.path.join(results_dir(), f'e2e-{name}-{arch}.log')


def start_log(name, arch):
    """Empty the run's log (log_path) and return its path: boots then
    append to it (append_log=True), so a run of several boots keeps all."""
    path = log_path(name, arch)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(f'e2e-host: {name} {arch} {time.strftime("%Y-%m-%d %H:%M:%S")}\n')
    return path


def results_path(name, arch):
    """$BUILD/results/e2e-<name>-<arch>.json, read by scripts/gate.py."""
    return os.path.join(results_dir(), f'e2e-{name}-{arch}.json')


def need_tool(tool, package):
    """Full path of tool; E2EError naming the Debian package if missing."""
    path = shutil.which(tool) or shutil.which(tool, path='/usr/sbin:/sbin')
    if not path:
        raise E2EError(f'{tool} not found; install it: apt-get install {package}')
    return path


def compiler(arch):
    """The C compiler for static guest programs of arch."""
    info = arch_info(arch)
    return need_tool(info['cc'], info['cc_pkg'])


def _newer(target, sources):
    try:
        t = os.stat(target).st_mtime_ns
    except OSError:
        return False
    return all(os.stat(s).st_mtime_ns <= t for s in sources)


def compile_static(arch, sources, output, cflags=(), include_dirs=(), deps=()):
    """Compile C sources into a static guest executable output (for arch).

    e2e/lib is on the include path (e2e_test.h).  Rebuilt only when a
    source, a deps file or e2e_test.h is newer.  Returns output.
    """
    cc = compiler(arch)
    sources = [os.path.abspath(s) for s in sources]
    watch = sources + [os.path.abspath(d) for d in deps] + [
        os.path.join(LIB, 'e2e_test.h'), os.path.abspath(__file__)]
    if _newer(output, watch):
        return output
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    cmd = [cc, '-static', '-O2', '-g0', '-Wall', '-Wextra', '-Wno-unused-parameter',
           '-Wno-unused-function', '-Wno-missing-field-initializers',
           '-D_GNU_SOURCE', '-I', LIB]
    for d in include_dirs:
        cmd += ['-I', d]
    cmd += list(cflags) + ['-o', output + '.tmp'] + sources
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode != 0:
        raise E2EError(f'compiling {", ".join(map(os.path.basename, sources))} '
                       f'for {arch} failed:\n{proc.stdout}')
    if proc.stdout.strip():
        sys.stdout.write(proc.stdout)
    os.replace(output + '.tmp', output)
    return output


def build_init(arch, outdir=None):
    """Compile e2e/lib/init.c for arch; returns the binary's path."""
    outdir = outdir or os.path.join(BUILD, 'e2e', 'lib', arch)
    return compile_static(arch, [os.path.join(LIB, 'init.c')],
                          os.path.join(outdir, 'init'))


# ---- initramfs ---------------------------------------------------------------

def _cpio_entry(out, ino, name, mode, data=b'', rdev=(0, 0), uid=0, gid=0):
    name_b = name.encode() + b'\0'
    hdr = '070701' + ''.join(f'{v:08x}' for v in (
        ino, mode, uid, gid, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
        len(name_b), 0))
    out.write(hdr.encode())
    out.write(name_b)
    out.write(b'\0' * ((4 - (110 + len(name_b)) % 4) % 4))
    out.write(data)
    out.write(b'\0' * ((4 - len(data) % 4) % 4))


def make_cpio(path, entries):
    """Write a gzip'd newc cpio archive (an initramfs) to path.

    entries: list of tuples, guest paths without the leading '/':
      ('dir', name, mode)
      ('file', name, mode, host_path_or_bytes)
      ('chr', name, mode, major, minor)
      ('symlink', name, target)
    Parent directories must come first.  Owner root, mtime 0.
    """
    tmp = path + '.tmp'
    with gzip.GzipFile(tmp, 'wb', compresslevel=6, mtime=0) as out:
        ino = 1
        for e in entries:
            kind, name = e[0], e[1].lstrip('/')
            if kind == 'dir':
                _cpio_entry(out, ino, name, 0o040000 | e[2])
            elif kind == 'file':
                data = e[3]
                if isinstance(data, str):
                    with open(data, 'rb') as f:
                        data = f.read()
                _cpio_entry(out, ino, name, 0o100000 | e[2], data)
            elif kind == 'chr':
                _cpio_entry(out, ino, name, 0o020000 | e[2], rdev=(e[3], e[4]))
            elif kind == 'symlink':
                _cpio_entry(out, ino, name, 0o120777, e[2].encode())
            else:
                raise E2EError(f'make_cpio: unknown entry kind {kind!r}')
            ino += 1
        _cpio_entry(out, 0, 'TRAILER!!!', 0)
    os.replace(tmp, path)
    return path


def build_initramfs(name, arch, programs, files=None, dirs=()):
    """$BUILD/e2e/<name>/<arch>/initramfs.cpio.gz with e2e/lib/init as /init.

    programs: {guest path: host path} of executables (e.g. '/tests/foo');
    files: {guest path: host path or bytes} of plain files (mode 0644);
    dirs: extra empty directories.  /dev/console, /proc, /sys, /dev, /tmp,
    /mnt exist.  Returns the archive's path.
    """
    init = build_init(arch)
    entries = [('dir', 'dev', 0o755), ('chr', 'dev/console', 0o600, 5, 1),
               ('chr', 'dev/null', 0o666, 1, 3)]
    made = {'dev'}
    for d in ('proc', 'sys', 'tmp', 'mnt', 'tests') + tuple(dirs):
        d = d.strip('/')
        if d not in made:
            entries.append(('dir', d, 0o755))
            made.add(d)

    def parents(guest):
        parts = guest.strip('/').split('/')[:-1]
        for i in range(1, len(parts) + 1):
            d = '/'.join(parts[:i])
            if d not in made:
                entries.append(('dir', d, 0o755))
                made.add(d)

    entries.append(('file', 'init', 0o755, init))
    for guest, host in sorted(programs.items()):
        parents(guest)
        entries.append(('file', guest.strip('/'), 0o755, host))
    for guest, host in sorted((files or {}).items()):
        parents(guest)
        entries.append(('file', guest.strip('/'), 0o644, host))
    return make_cpio(os.path.join(work_dir(name, arch), 'initramfs.cpio.gz'),
                     entries)


# ---- disks ---------------------------------------------------------------------

def make_ext4(path, size_mb=64, src_dir=None, label=None, extra_args=()):
    """A fresh ext4 image file at path (mkfs.ext4; nothing is mounted)."""
    mkfs = need_tool('mkfs.ext4', 'e2fsprogs')
    if os.path.exists(path):
        os.unlink(path)
    with open(path, 'wb') as f:
        f.truncate(size_mb << 20)
    cmd = [mkfs, '-q', '-F', '-b', '4096']
    if label:
        cmd += ['-L', label]
    if src_dir:
        cmd += ['-d', src_dir]
    cmd += list(extra_args) + [path]
    run_host(cmd)
    return path


def run_host(cmd, ok_codes=(0,)):
    """Run a host command; E2EError with its output if it fails."""
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode not in ok_codes:
        raise E2EError(f'{" ".join(cmd)} exited {proc.returncode}:\n{proc.stdout}')
    return proc.stdout


def disk_args(path, index=0, fmt='raw'):
    """QEMU arguments for a virtio-blk-pci disk (guest: /dev/vd<a+index>)."""
    return ['-drive', f'file={path},if=none,format={fmt},id=e2edisk{index}',
            '-device', f'virtio-blk-pci,drive=e2edisk{index}']


# ---- QEMU ----------------------------------------------------------------------

_live = set()


def _kill_live():
    for q in list(_live):
        q.kill()


atexit.register(_kill_live)


def _on_signal(signum, _frame):
    _kill_live()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_signal_handlers():
    if threading.current_thread() is not threading.main_thread():
        return
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        if signal.getsignal(s) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(s, _on_signal)


try:
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent():
    """In QEMU's child before exec: SIGKILL when the Python process dies."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL, 0, 0, 0)   # PR_SET_PDEATHSIG


def qemu_argv(arch, initrd, kernel=None, mem='512M', smp=1, cmdline='',
              init_args=(), qemu_args=()):
    """The QEMU command line for one e2e boot of arch.

    cmdline: extra kernel parameters; init_args: init's argv after "--"
    (the program to run and its arguments); qemu_args: extra QEMU arguments
    (disks, devices, "-qmp unix:...,server=on,wait=off", ...).
    """
    info = arch_info(arch)
    qemu = need_tool(info['qemu'], info['qemu_pkg'])
    kernel = kernel or kernel_image(arch)
    # E2E_EPOCH: init sets the guest's clock from it when it is far behind
    # (arm64 "virt" without an RTC driver boots at 1970-01-01 00:00:00, and
    # ext4 takes an inode deleted at time 0 for one never given a dtime).
    append = (f'console={info["console"]} kunit.enable=0 panic=-1 '
              f'oops=panic E2E_EPOCH={int(time.time())} {cmdline}').strip()
    if init_args:
        append += ' -- ' + ' '.join(init_args)
    return [qemu, *info['machine'], '-nodefaults', '-display', 'none',
            '-m', str(mem), '-smp', str(smp),
            '-kernel', kernel, '-initrd', initrd, '-append', append,
            '-serial', 'stdio', '-monitor', 'none', '-no-reboot',
            *qemu_args]


class Qemu:
    """One QEMU process: console to a log file and kept in memory.

        with e2e.Qemu(arch, initrd, log, qemu_args=[...]) as vm:
            vm.wait_for(r'ready', timeout=60)   # while it runs
            ... host actions, QMP ...
            vm.wait(timeout=300)

    The process is killed on timeout, on leaving the with block, when this
    Python process exits or is signalled, and (PR_SET_PDEATHSIG) when it
    dies: no orphan QEMU.
    """

    def __init__(self, arch, initrd, log, append_log=False, **kw):
        self.arch = arch
        self.argv = qemu_argv(arch, initrd, **kw)
        self.log_path = log
        self.append_log = append_log
        self.proc = None
        self.text = ''
        self.timed_out = False
        self.returncode = None
        self.t_start = self.t_end = None
        self._cond = threading.Condition()
        self._reader = None
        self._eof = False

    def start(self):
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

    def _read(self):
        fd = self.proc.stdout.fileno()
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

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.kill()

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def wait_for(self, pattern, timeout, start=0):
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

    def send(self, text):
        """Type text on the guest's console (its /dev/console input)."""
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def sync(self, tag, timeout, action=None):
        """The host side of e2e_host_sync() (e2e_test.h): wait until the
        guest prints "e2e-sync: <tag>", run action() (a host step: QMP
        commands, ...), then answer the guest with the string it returned
        (or "ok").  Returns that answer; None if the guest never asked
        (timeout, QEMU exited): then nothing is answered."""
        m = self.wait_for(r'^e2e-sync: ' + re.escape(tag) + r'$', timeout)
        if not m:
            return None
        answer = action() if action else 'ok'
        answer = 'ok' if answer is None else str(answer)
        self.send(f'e2e-reply: {tag} {answer}\n')
        return answer

    def wait(self, timeout, poweroff_grace=30):
        """Wait for QEMU to exit, at most timeout seconds (then kill it and
        set timed_out).  If init said "poweroff" but QEMU lingers for
        poweroff_grace s, it is killed too (not a timeout).  Returns the
        exit code (None if killed)."""
        deadline = time.monotonic() + timeout
        off_at = None
        while self.proc.poll() is None:
            now = time.monotonic()
            if now >= deadline:
                self.timed_out = True
                break
            if off_at is None and 'e2e-init: poweroff' in self.text:
                off_at = now
            if off_at is not None and now - off_at > poweroff_grace:
                self._log_note(f'QEMU still running {poweroff_grace} s after '
                               'power-off; killed')
                break
            time.sleep(0.1)
        if self.proc.poll() is None:
            if self.timed_out:
                self._log_note(f'timed out after {timeout} s; killed')
            self.kill()
        else:
            self._finish()
        return self.returncode

    def _log_note(self, msg):
        with self._cond:
            self.text += f'\ne2e-host: {msg}\n'
        self._log.write(f'\ne2e-host: {msg}\n')
        self._log.flush()

    def kill(self):
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

    def _finish(self):
        if self.t_end is not None:
            return
        self.proc.wait()
        self.t_end = time.monotonic()
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        self.returncode = self.proc.returncode
        if self._reader:
            self._reader.join(10)
        _live.discard(self)
        self._log.flush()
        self._log.close()

    @property
    def seconds(self):
        """Wall time from QEMU's start to its exit (or now)."""
        if self.t_start is None:
            return 0.0
        return (self.t_end or time.monotonic()) - self.t_start

    @property
    def powered_off(self):
        """Did the guest end by itself, through init's power-off?"""
        return (not self.timed_out and self.returncode == 0 and
                'e2e-init: poweroff' in self.text)


def boot(arch, initrd, log, timeout=300, append_log=False, **kw):
    """Boot once and wait for the end (see Qemu, qemu_argv for kw).
    Returns the finished Qemu (text, timed_out, seconds, powered_off)."""
    vm = Qemu(arch, initrd, log, append_log=append_log, **kw)
    with vm:
        vm.wait(timeout)
    say(f'{arch} boot took {vm.seconds:.1f} s'
        + (' (TIMED OUT)' if vm.timed_out else '')
        + ('' if vm.powered_off else ' (no clean power-off)'))
    return vm


class Qmp:
    """A minimal QMP client: qemu_args += ['-qmp', f'unix:{path},server=on,wait=off']
    then Qmp(path).cmd('query-memory-devices')."""

    def __init__(self, path, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise E2EError(f'cannot connect to QMP socket {path}') from None
                time.sleep(0.1)
        self.sock.settimeout(timeout)
        self._buf = b''
        self.events = []
        self._recv()                       # greeting
        self.cmd('qmp_capabilities')

    def _recv(self):
        while b'\n' not in self._buf:
            data = self.sock.recv(65536)
            if not data:
                raise E2EError('QMP connection closed')
            self._buf += data
        line, self._buf = self._buf.split(b'\n', 1)
        return json.loads(line)

    def cmd(self, name, **args):
        """Execute a command; returns its "return" value, QmpError (an
        E2EError) on an error reply."""
        msg = {'execute': name}
        if args:
            msg['arguments'] = args
        self.sock.sendall(json.dumps(msg).encode() + b'\n')
        while True:
            reply = self._recv()
            if 'event' in reply:
                self.events.append(reply)
                continue
            if 'error' in reply:
                raise QmpError(name, reply['error'])
            return reply.get('return')

    def wait_event(self, name, timeout, match=None):
        """Wait for an event called name (and, if given, match(event) true),
        among those already received (self.events) and then new ones.
        Removes it from self.events and returns it; None on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev.get('event') == name and (match is None or match(ev)):
                    return self.events.pop(i)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            old = self.sock.gettimeout()
            self.sock.settimeout(left)
            try:
                msg = self._recv()
            except socket.timeout:
                return None
            finally:
                self.sock.settimeout(old)
            if 'event' in msg:
                self.events.append(msg)

    def close(self):
        self.sock.close()


# ---- results -------------------------------------------------------------------

def parse_tap(text):
    """{name: (status, reason)} from the TAP result lines in text.
    status: PASS, FAIL or SKIP.  A name seen twice keeps a FAIL."""
    out = {}
    for line in text.splitlines():
        if line.lstrip().startswith('#'):
            continue        # a diagnostic, e.g. "# ... host: ok 0 4"
        m = TAP_RE.search(line)
        if not m:
            continue
        verdict, _num, name, directive = m.groups()
        directive = (directive or '').strip()
        if verdict == 'ok':
            status = 'SKIP' if directive.upper().startswith('SKIP') else 'PASS'
        else:
            status = 'FAIL'
        if out.get(name, ('',))[0] == 'FAIL':
            continue
        out[name] = (status, directive)
    return out


def find_splats(text):
    """The console lines that show a kernel splat (SPLAT_RE)."""
    return [ln.strip() for ln in text.splitlines() if SPLAT_RE.search(ln)]


def write_results(name, arch, cases):
    """Write $BUILD/results/e2e-<name>-<arch>.json.  cases: list of
    (case name, status[, reason]); status PASS/FAIL/SKIP/ERROR."""
    tcs = []
    for c in cases:
        tc = {'name': c[0], 'status': c[1]}
        if len(c) > 2 and c[2]:
            tc['log'] = c[2]
        tcs.append(tc)
    doc = {'name': f'e2e_{name}', 'arch': arch, 'sub_groups': [],
           'test_cases': tcs}
    path = results_path(name, arch)
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=2)
        f.write('\n')
    os.replace(path + '.tmp', path)
    return path


def evaluate(expected, boots, extra_cases=()):
    """The cases of a run: every expected TAP test (missing: FAIL "did not
    run"), then kernel_log_clean (FAIL on any splat) and run_complete (FAIL
    unless every boot powered off by itself in time).  A TAP test not in
    expected is reported too.  boots: finished Qemu objects."""
    tap = {}
    for vm in boots:
        for k, v in parse_tap(vm.text).items():
            if tap.get(k, ('',))[0] != 'FAIL':
                tap[k] = v
    cases = []
    for name in expected:
        status, reason = tap.get(name, ('FAIL', 'did not run'))
        cases.append((name, status, reason))
    for name in tap:
        if name not in expected:
            cases.append((name, tap[name][0], tap[name][1]))
    cases.extend(extra_cases)
    splats = [s for vm in boots for s in find_splats(vm.text)]
    cases.append(('kernel_log_clean', 'FAIL' if splats else 'PASS',
                  '; '.join(splats[:5])))
    bad = [f'boot {i + 1}: ' + ('timed out' if vm.timed_out else
                                f'no clean power-off (exit {vm.returncode})')
           for i, vm in enumerate(boots) if not vm.powered_off]
    cases.append(('run_complete', 'FAIL' if bad or not boots else 'PASS',
                  '; '.join(bad) or ('' if boots else 'no boot')))
    return cases


def finish(name, arch, expected, boots, extra_cases=()):
    """evaluate(), write the results JSON, print a summary; returns the run
    script's exit code (0: all passed or skipped)."""
    cases = evaluate(expected, boots, extra_cases)
    path = write_results(name, arch, cases)
    failed = [c for c in cases if c[1] not in ('PASS', 'SKIP')]
    for c in cases:
        print(f'  {c[1]:<5} {c[0]}' + (f'  # {c[2]}' if c[1] != 'PASS' and c[2] else ''))
    times = ', '.join(f'{vm.seconds:.1f} s' for vm in boots)
    say(f'{name} {arch}: {len(cases) - len(failed)} passed, {len(failed)} failed'
        f' (boots: {times}); {path}')
    return 1 if failed else 0


def fail_all(name, arch, expected, reason):
    """Results for a run that could not start or finish (a host-side
    E2EError): every case FAIL, the reason at the end of the log."""
    cases = [(n, 'FAIL', reason) for n in expected]
    cases += [('kernel_log_clean', 'FAIL', reason), ('run_complete', 'FAIL', reason)]
    write_results(name, arch, cases)
    with open(log_path(name, arch), 'a', encoding='utf-8') as f:
        f.write(f'\ne2e-host: FAILED: {reason}\n')
    say(f'{name} {arch}: FAILED: {reason}')
    return 1
