"""e2e/lib/e2e: TAP parsing, the cases of a run, the initramfs writer, the
per-arch facts, the QMP client."""
import gzip
import json
import os
import shutil
import socket
import subprocess
import threading
import unittest
from typing import Optional
from unittest import mock

from common import REPO, TempDirTest, run

from e2e import E2EError, arches, guest, host, paths, qemu, results
from e2e.guest import Chr, Dir, File, Symlink
from e2e.qmp import Qmp, QmpError
from e2e.results import Case

CONSOLE = """\
e2e-init: running /tests/t
ok 1 - unpriv_mount
not ok 2 - uuid_off_copy # mount: EINVAL
ok 3 - fileattr_flags # SKIP no chattr
# host: ok 0 4 (a diagnostic, not a result)
[   12.345678] virtio_mem virtio5: plugged ok 4 - cut_in
not ok 5 - twice # first
ok 5 - twice
ok 6 no_dash
e2e-init: poweroff
"""


class ParseTap(unittest.TestCase):
    def test_console(self) -> None:
        self.assertEqual(results.parse_tap(CONSOLE), {
            'unpriv_mount': ('PASS', ''),
            'uuid_off_copy': ('FAIL', 'mount: EINVAL'),
            'fileattr_flags': ('SKIP', 'SKIP no chattr'),
            'cut_in': ('PASS', ''),
            'twice': ('FAIL', 'first'),
            'no_dash': ('PASS', ''),
        })

    def test_nothing(self) -> None:
        self.assertEqual(results.parse_tap('Booting Linux\nok\nnot ok\n'), {})


class GuestPart(unittest.TestCase):
    KUNIT = ('[    1.5]     ok 1 overlayfs_params_test_userxattr\n'
             '[    1.6] ok 1 overlayfs_params\n'
             '[    1.7] not ok 2 overlayfs_fh\n')

    def test_kunit_before_init_is_no_result(self) -> None:
        text = self.KUNIT + 'e2e-init: start\n' + CONSOLE
        self.assertEqual(results.guest_part(text), 'e2e-init: start\n' + CONSOLE)
        self.assertNotIn('overlayfs_params', results.parse_tap(results.guest_part(text)))
        self.assertNotIn('overlayfs_fh', results.parse_tap(results.guest_part(text)))

    def test_a_console_without_init_is_taken_whole(self) -> None:
        self.assertEqual(results.guest_part('ok 1 - a\n'), 'ok 1 - a\n')


class FindSplats(unittest.TestCase):
    def test_splats(self) -> None:
        text = ('[    1.0] Run /init as init process\n'
                '[    2.0] WARNING: CPU: 0 PID: 1 at mm/memory_hotplug.c:1 f+0x1/0x2\n'
                '[    2.1] Call Trace:\n'
                '[    3.0] virtio_mem virtio5: plugged 1024 MiB\n'
                '  Kernel panic - not syncing: oops  \n')
        self.assertEqual(results.find_splats(text), [
            '[    2.0] WARNING: CPU: 0 PID: 1 at mm/memory_hotplug.c:1 f+0x1/0x2',
            '[    2.1] Call Trace:',
            'Kernel panic - not syncing: oops'])

    def test_debug_reports(self) -> None:
        text = ('[ 1.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc.\n'
                '[ 2.0] WARNING: possible circular locking dependency detected\n'
                '[ 3.0] inconsistent lock state\n'
                '[ 4.0] virtio_mem virtio5: plugged 1024 MiB\n')
        self.assertEqual(results.find_splats(text),
                         ['[ 2.0] WARNING: possible circular locking dependency detected'])
        self.assertEqual(results.find_reports(text), [
            '[ 2.0] WARNING: possible circular locking dependency detected',
            '[ 3.0] inconsistent lock state'])


class FakeBoot:
    def __init__(self, text: str, timed_out: bool = False,
                 returncode: Optional[int] = 0) -> None:
        self.text = text
        self.timed_out = timed_out
        self.returncode = returncode
        self.seconds = 1.5

    @property
    def powered_off(self) -> bool:
        return (not self.timed_out and self.returncode == 0
                and 'e2e-init: poweroff' in self.text)


class Evaluate(unittest.TestCase):
    def test_two_boots(self) -> None:
        b1 = FakeBoot('ok 1 - a\nnot ok 2 - b # boom\nok 3 - extra\ne2e-init: poweroff\n')
        b2 = FakeBoot('ok 1 - c\nok 2 - b\n[ 1.0] WARNING: at foo\n',
                      timed_out=True, returncode=None)
        self.assertEqual(
            results.evaluate(['a', 'b', 'c', 'd'], [b1, b2], [Case('host_step', 'PASS', 'note')]),
            [Case('a', 'PASS', ''),
             Case('b', 'FAIL', 'boom'),          # a FAIL in one boot stays
             Case('c', 'PASS', ''),
             Case('d', 'FAIL', 'did not run'),
             Case('extra', 'PASS', ''),          # reported although not expected
             Case('host_step', 'PASS', 'note'),
             Case('kernel_log_clean', 'FAIL', '[ 1.0] WARNING: at foo'),
             Case('run_complete', 'FAIL', 'boot 2: timed out')])

    def test_bail_out(self) -> None:
        """After a guest's "Bail out!", the tests of a boot that never came
        say why they did not run."""
        b1 = FakeBoot('ok 1 - a\nnot ok 2 - b # precondition (size == 0)\n'
                      'not ok 3 - c # not run: stopped by b\nBail out! b: precondition (size == 0)\n'
                      'e2e-init: poweroff\n')
        self.assertEqual(results.evaluate(['a', 'b', 'c', 'd'], [b1])[2:4], [
            Case('c', 'FAIL', 'not run: stopped by b'),
            Case('d', 'FAIL', 'not run: the run stopped (b: precondition (size == 0))')])

    def test_unclean_exit(self) -> None:
        self.assertEqual(
            results.evaluate(['a'], [FakeBoot('ok 1 - a\n', returncode=1)]),
            [Case('a', 'PASS', ''), Case('kernel_log_clean', 'PASS', ''),
             Case('run_complete', 'FAIL', 'boot 1: no clean power-off (exit 1)')])

    def test_no_boot(self) -> None:
        self.assertEqual(results.evaluate(['a'], []), [
            Case('a', 'FAIL', 'did not run'), Case('kernel_log_clean', 'PASS', ''),
            Case('run_complete', 'FAIL', 'no boot')])

    def test_all_good(self) -> None:
        self.assertEqual(results.evaluate(['a'], [FakeBoot('ok 1 - a\ne2e-init: poweroff\n')]), [
            Case('a', 'PASS', ''), Case('kernel_log_clean', 'PASS', ''),
            Case('run_complete', 'PASS', '')])


class ResultsFiles(TempDirTest):
    def test_finish_and_fail_all(self) -> None:
        with mock.patch.object(paths, 'BUILD', self.tmp), \
                mock.patch('sys.stdout'):
            rc = results.finish('demo', 'x86_64', ['a', 'b'], [
                FakeBoot('ok 1 - a\nnot ok 2 - b # why\ne2e-init: poweroff\n')])
            self.assertEqual(rc, 1)
            with open(self.path('results', 'e2e-demo-x86_64.json'), encoding='utf-8') as f:
                self.assertEqual(json.load(f), {
                    'name': 'e2e_demo', 'arch': 'x86_64', 'sub_groups': [], 'test_cases': [
                        {'name': 'a', 'status': 'PASS'},
                        {'name': 'b', 'status': 'FAIL', 'log': 'why'},
                        {'name': 'kernel_log_clean', 'status': 'PASS'},
                        {'name': 'run_complete', 'status': 'PASS'}]})
            self.assertEqual(results.finish('demo', 'x86_64', ['a'], [
                FakeBoot('ok 1 - a\ne2e-init: poweroff\n')]), 0)
            self.assertEqual(results.fail_all('demo', 'arm64', ['a'], 'no kernel'), 1)
            with open(self.path('results', 'e2e-demo-arm64.json'), encoding='utf-8') as f:
                self.assertEqual(json.load(f)['test_cases'], [
                    {'name': 'a', 'status': 'FAIL', 'log': 'no kernel'},
                    {'name': 'kernel_log_clean', 'status': 'FAIL', 'log': 'no kernel'},
                    {'name': 'run_complete', 'status': 'FAIL', 'log': 'no kernel'}])
            with open(self.path('results', 'e2e-demo-arm64.log'), encoding='utf-8') as f:
                self.assertEqual(f.read(), '\ne2e-host: FAILED: no kernel\n')


def parse_newc(data: bytes) -> list[tuple[int, str, int, int, int, int, int, int, int, bytes]]:
    """(ino, name, mode, uid, gid, nlink, mtime, rdevmajor, rdevminor, data)
    of each entry of a newc archive, the trailer included; checks the
    magic and the 4-byte alignment of names and data."""
    out = []
    pos = 0
    while True:
        assert pos % 4 == 0, pos
        hdr = data[pos:pos + 110]
        assert hdr[:6] == b'070701', hdr[:6]
        f = [int(hdr[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        ino, mode, uid, gid, nlink, mtime, size = f[:7]
        rmaj, rmin, namesize = f[9], f[10], f[11]
        name = data[pos + 110:pos + 110 + namesize]
        assert name.endswith(b'\0'), name
        pos += 110 + namesize
        pos += (4 - pos % 4) % 4
        body = data[pos:pos + size]
        pos += size
        pos += (4 - pos % 4) % 4
        out.append((ino, name[:-1].decode(), mode, uid, gid, nlink, mtime, rmaj, rmin, body))
        if name == b'TRAILER!!!\0':
            assert pos == len(data), (pos, len(data))
            return out


class MakeCpio(TempDirTest):
    def entries(self) -> list[guest.Entry]:
        motd = self.write('motd', 'hello')
        return [Dir('dev', 0o755), Chr('dev/console', 0o600, 5, 1),
                File('init', 0o755, b'#!/bin/sh\n'), File('etc/motd', 0o644, motd),
                Symlink('bin/sh', '/init'), Dir('/tests', 0o700)]

    def test_archive(self) -> None:
        path = guest.make_cpio(self.path('i.cpio.gz'), self.entries())
        with open(path, 'rb') as f:
            gz = f.read()
        self.assertEqual(gz[:2], b'\x1f\x8b')
        self.assertEqual(gz[4:8], b'\0\0\0\0')            # gzip mtime 0
        data = gzip.decompress(gz)
        self.assertEqual(len(data), 864)    # 116+124+128+128+128+116+124, by hand
        self.assertEqual(data[:110], b'070701' b'00000001' b'000041ed' b'00000000'
                         b'00000000' b'00000001' b'00000000' b'00000000' b'00000000'
                         b'00000000' b'00000000' b'00000000' b'00000004' b'00000000')
        self.assertEqual(parse_newc(data), [
            (1, 'dev', 0o40755, 0, 0, 1, 0, 0, 0, b''),
            (2, 'dev/console', 0o20600, 0, 0, 1, 0, 5, 1, b''),
            (3, 'init', 0o100755, 0, 0, 1, 0, 0, 0, b'#!/bin/sh\n'),
            (4, 'etc/motd', 0o100644, 0, 0, 1, 0, 0, 0, b'hello'),
            (5, 'bin/sh', 0o120777, 0, 0, 1, 0, 0, 0, b'/init'),
            (6, 'tests', 0o40700, 0, 0, 1, 0, 0, 0, b''),
            (0, 'TRAILER!!!', 0, 0, 0, 1, 0, 0, 0, b''),
        ])

    @unittest.skipUnless(shutil.which('cpio'), 'cpio not installed (make deps)')
    def test_cpio_reads_it(self) -> None:
        """GNU cpio, another reader of the format, lists the same."""
        data = guest.cpio_bytes(self.entries())
        p = subprocess.run(['cpio', '-i', '-t', '-v', '--quiet'], input=data,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True,
                           env={**os.environ, 'TZ': 'UTC', 'LC_ALL': 'C'})
        lines = p.stdout.decode().splitlines()
        self.assertEqual([(ln.split()[0], ln.split(' 1970 ', 1)[1]) for ln in lines], [
            ('drwxr-xr-x', 'dev'), ('crw-------', 'dev/console'), ('-rwxr-xr-x', 'init'),
            ('-rw-r--r--', 'etc/motd'), ('lrwxrwxrwx', 'bin/sh -> /init'),
            ('drwx------', 'tests')])

    def test_initramfs_entries(self) -> None:
        self.assertEqual(guest.initramfs_entries(
            '/h/init', {'/tests/sub/prog': '/h/prog'}, files={'/etc/conf': b'x=1\n'},
            dirs=('/var/log',)), [
            Dir('dev', 0o755), Chr('dev/console', 0o600, 5, 1), Chr('dev/null', 0o666, 1, 3),
            Dir('proc', 0o755), Dir('sys', 0o755), Dir('tmp', 0o755), Dir('mnt', 0o755),
            Dir('tests', 0o755), Dir('var', 0o755), Dir('var/log', 0o755),
            File('init', 0o755, '/h/init'),
            Dir('tests/sub', 0o755), File('tests/sub/prog', 0o755, '/h/prog'),
            Dir('etc', 0o755), File('etc/conf', 0o644, b'x=1\n')])


class Arches(TempDirTest):
    """The facts come from qemu_configs/<arch>.py and scripts/lib.sh."""

    def test_names(self) -> None:
        self.assertEqual(arches.names(), ['arm64', 'x86_64'])

    def test_x86_64(self) -> None:
        a = arches.get('x86_64')
        self.assertEqual((a.qemu, a.machine_args, a.console_args, a.kernel_rel), (
            'qemu-system-x86_64', ['-bios', 'qboot.rom', '-smp', '2'],
            'console=ttyS0 panic_on_warn=1 panic=-1', 'x86_64/vmlinux'))

    def test_x86_64_debug_kernel_boots_bzimage(self) -> None:
        """The debug kernel (scripts/lib.sh kgate_debug_env) boots as
        bzImage: qboot's PVH boot of its vmlinux ends before the console."""
        p = run(['bash', '-c', '. scripts/lib.sh; REPO=$PWD KGATE_TREE=6.1 BUILD=/b/6.1; '
                 'kgate_debug_env; echo "$BUILD $KTREE $KGATE_KUNITCONFIG_EXTRA"; '
                 'arch_kernel_path x86_64; arch_kernel_path arm64'])
        self.assertEqual(p.stdout.splitlines(), [
            f'/b/debug/6.1 /b/6.1/linux {REPO}/debug/kunitconfig',
            'arch/x86/boot/bzImage', 'arch/arm64/boot/Image'])
        with mock.patch.dict(os.environ, {'KGATE_X86_64_IMAGE': 'arch/x86/boot/bzImage'}):
            self.assertEqual(arches.load_params(os.path.join(REPO, 'qemu_configs', 'x86_64.py'))
                             .kernel_path, 'arch/x86/boot/bzImage')

    def test_arm64(self) -> None:
        a = arches.get('arm64')
        self.assertEqual((a.qemu, a.machine_args, a.console_args, a.kernel_rel), (
            'qemu-system-aarch64', ['-machine', 'virt', '-cpu', 'cortex-a57', '-smp', '2'],
            'console=ttyAMA0 panic_on_warn=1 panic=-1', 'arm64/arch/arm64/boot/Image'))

    def test_unknown(self) -> None:
        with self.assertRaises(E2EError):
            arches.get('riscv')

    def test_lib_sh(self) -> None:
        self.assertEqual(host.lib_sh('arch_cc', 'arm64'), 'aarch64-linux-gnu-gcc')
        self.assertEqual(host.lib_sh('arch_cc', 'x86_64'), 'gcc')
        self.assertEqual(host.lib_sh('arch_cross', 'x86_64'), '')
        with self.assertRaises(E2EError):
            host.lib_sh('arch_cc', 'riscv')

    def test_bad_config(self) -> None:
        path = self.write('bad.py', 'from ..qemu_config import QemuArchParams\nX = 1\n')
        with self.assertRaises(E2EError):
            arches.load_params(path)
        path = self.write('worse.py', 'import nosuchmodule_kgate\n')
        with self.assertRaises(E2EError):
            arches.load_params(path)

    def test_qemu_argv(self) -> None:
        with mock.patch.object(qemu, 'need_tool', lambda tool: '/usr/bin/' + tool), \
                mock.patch('time.time', lambda: 1700000000.5), \
                mock.patch.dict(os.environ, {'E2E_CMDLINE': ''}):
            argv = qemu.qemu_argv('arm64', '/i.cpio.gz', kernel='/Image.gz', mem='1G',
                                  cmdline='foo=1', init_args=['/tests/t', 'a'],
                                  qemu_args=qemu.disk_args('/d.img', 1))
        self.assertEqual(argv, [
            '/usr/bin/qemu-system-aarch64', '-machine', 'virt', '-cpu', 'cortex-a57',
            '-smp', '2', '-nodefaults', '-display', 'none', '-m', '1G',
            '-kernel', '/Image.gz', '-initrd', '/i.cpio.gz', '-append',
            'console=ttyAMA0 panic_on_warn=1 panic=-1 kunit.enable=0 panic=-1 oops=panic E2E_EPOCH=1700000000 '
            'hung_task_panic=1 sysctl.kernel.hung_task_timeout_secs=30 foo=1 -- /tests/t a',
            '-serial', 'stdio', '-monitor', 'none', '-no-reboot',
            '-drive', 'file=/d.img,if=none,format=raw,id=e2edisk1',
            '-device', 'virtio-blk-pci,drive=e2edisk1'])

    def test_qemu_argv_too_many_init_args(self) -> None:
        # the kernel panics on a 32nd init argument ("Too many boot init vars")
        with mock.patch.object(qemu, 'need_tool', lambda tool: '/usr/bin/' + tool):
            argv = qemu.qemu_argv('x86_64', '/i', kernel='/k',
                                  init_args=['/t'] + ['t%d' % i for i in range(30)])
            self.assertIn('t29', argv[argv.index('-append') + 1])
            with self.assertRaisesRegex(E2EError, '32 arguments for init, the kernel takes at most 31'):
                qemu.qemu_argv('x86_64', '/i', kernel='/k',
                               init_args=['/t'] + ['t%d' % i for i in range(31)])

    def test_qemu_argv_e2e_cmdline(self) -> None:
        # E2E_CMDLINE goes after the run's own parameters, before init's argv
        with mock.patch.object(qemu, 'need_tool', lambda tool: '/usr/bin/' + tool), \
                mock.patch('time.time', lambda: 1700000000.5), \
                mock.patch.dict(os.environ, {'E2E_CMDLINE': ' printk.time=1 '}):
            argv = qemu.qemu_argv('x86_64', '/i', kernel='/k', cmdline='foo=1',
                                  init_args=['/t'])
            bare = qemu.qemu_argv('x86_64', '/i', kernel='/k', init_args=['/t'])
        self.assertEqual(argv[argv.index('-append') + 1],
                         'console=ttyS0 panic_on_warn=1 panic=-1 kunit.enable=0 '
                         'panic=-1 oops=panic E2E_EPOCH=1700000000 hung_task_panic=1 '
                         'sysctl.kernel.hung_task_timeout_secs=30 foo=1 printk.time=1 -- /t')
        self.assertEqual(bare[bare.index('-append') + 1],
                         'console=ttyS0 panic_on_warn=1 panic=-1 kunit.enable=0 '
                         'panic=-1 oops=panic E2E_EPOCH=1700000000 hung_task_panic=1 '
                         'sysctl.kernel.hung_task_timeout_secs=30 printk.time=1 -- /t')

    def test_qemu_argv_hung_task_off(self) -> None:
        """The conformance guest boots without the hung task panic."""
        with mock.patch.object(qemu, 'need_tool', lambda tool: '/usr/bin/' + tool), \
                mock.patch('time.time', lambda: 1700000000.5), \
                mock.patch.dict(os.environ, {'E2E_CMDLINE': ''}):
            argv = qemu.qemu_argv('x86_64', '', kernel='/k', cmdline='root=/dev/vda',
                                  hung_task_s=None)
        self.assertEqual(argv[argv.index('-append') + 1],
                         'console=ttyS0 panic_on_warn=1 panic=-1 kunit.enable=0 '
                         'panic=-1 oops=panic E2E_EPOCH=1700000000 root=/dev/vda')

    def test_vmem_machine(self) -> None:
        # virtio-mem runs boot q35 on x86_64 (see arches.PCI_MACHINE), the
        # configured machine elsewhere
        import vmem  # e2e/virtio_mem, on the path by common
        self.assertEqual(vmem.qemu_args('/q.sock', 'x86_64')[:3],
                         ['-machine', 'q35', '-qmp'])
        self.assertEqual(vmem.qemu_args('/q.sock', 'arm64')[0], '-qmp')

    def test_qemu_argv_smp(self) -> None:
        # two CPUs from qemu_configs/, unless a run asks for another count:
        # then exactly one -smp, the run's
        with mock.patch.object(qemu, 'need_tool', lambda tool: '/usr/bin/' + tool):
            two = qemu.qemu_argv('x86_64', '/i', kernel='/k')
            one = qemu.qemu_argv('x86_64', '/i', kernel='/k', smp=1)
        self.assertEqual(two[1:5], ['-bios', 'qboot.rom', '-smp', '2'])
        self.assertEqual(one[1:5], ['-bios', 'qboot.rom', '-smp', '1'])
        self.assertEqual(one.count('-smp'), 1)
        self.assertEqual(qemu.without_option(['-a', '1', '-smp', '2', '-b'], '-smp'),
                         ['-a', '1', '-b'])

    def test_kernel_image(self) -> None:
        with mock.patch.object(paths, 'BUILD', self.tmp):
            with self.assertRaises(E2EError):
                arches.kernel_image('x86_64')
            self.write('x86_64/vmlinux', '')
            self.assertEqual(arches.kernel_image('x86_64'), self.path('x86_64/vmlinux'))


class FakeQmpServer(threading.Thread):
    """A QMP server for one connection on a unix socket: greets, answers
    qmp_capabilities, and for each command the scripted reply lines."""

    def __init__(self, path: str, script: dict[str, list[dict[str, object]]]) -> None:
        super().__init__(daemon=True)
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.script = script
        self.got: list[dict[str, object]] = []

    def run(self) -> None:
        conn, _ = self.srv.accept()
        with conn, conn.makefile('rwb') as f:
            f.write(b'{"QMP": {"version": {}, "capabilities": []}}\n')
            f.flush()
            for line in f:
                msg = json.loads(line)
                self.got.append(msg)
                for reply in self.script.get(str(msg['execute']), [{'return': {}}]):
                    f.write(json.dumps(reply).encode() + b'\n')
                f.flush()
        self.srv.close()


class QmpClient(TempDirTest):
    def test_commands_events_errors(self) -> None:
        path = self.path('qmp.sock')
        ev = {'event': 'MEMORY_DEVICE_SIZE_CHANGE', 'data': {'id': 'vm0', 'size': 2}}
        ev1 = {'event': 'MEMORY_DEVICE_SIZE_CHANGE', 'data': {'id': 'vm1', 'size': 0}}
        srv = FakeQmpServer(path, {
            'query-x': [ev, ev1, {'return': [1, 2]}],
            'bad': [{'error': {'class': 'GenericError', 'desc': 'no such thing'}}],
            'reset': [{'return': {}}, {'event': 'RESET', 'data': {}}],
        })
        srv.start()
        with Qmp(path, timeout=5) as q:
            self.assertEqual(q.cmd('query-x', n=1), [1, 2])
            self.assertEqual(q.events, [ev, ev1])
            with self.assertRaises(QmpError) as cm:
                q.cmd('bad')
            self.assertEqual(cm.exception.desc, 'no such thing')
            self.assertEqual(q.clear_events(lambda e: e['data']['id'] == 'vm1'), [ev1])
            self.assertEqual(q.events, [ev])
            self.assertEqual(q.wait_event('MEMORY_DEVICE_SIZE_CHANGE', 1), ev)
            self.assertEqual(q.events, [])
            q.cmd('reset')
            self.assertEqual(q.wait_event('RESET', 5), {'event': 'RESET', 'data': {}})
            self.assertIsNone(q.wait_event('RESET', 0.05))
            q.events.append(ev)
            self.assertEqual(q.clear_events(), [ev])
            self.assertEqual(q.events, [])
        self.assertEqual(q.sock.fileno(), -1)          # closed by the with block
        srv.join(5)
        self.assertEqual(srv.got, [{'execute': 'qmp_capabilities'},
                                   {'execute': 'query-x', 'arguments': {'n': 1}},
                                   {'execute': 'bad'}, {'execute': 'reset'}])

    def test_qemu_gone(self) -> None:
        """Writing to a QMP socket whose QEMU exited: an E2EError naming the
        connection, not a BrokenPipeError traceback."""
        path = self.path('qmp.sock')
        srv = FakeQmpServer(path, {})
        srv.start()
        with Qmp(path, timeout=5) as q:
            real = q.sock

            class Gone:
                def sendall(self, data: bytes) -> None:
                    raise BrokenPipeError(32, 'Broken pipe')

                def close(self) -> None:
                    real.close()
            q.sock = Gone()  # type: ignore[assignment]
            with self.assertRaisesRegex(E2EError, r'^QMP connection: .*Broken pipe'):
                q.cmd('query-status')

    def test_no_server(self) -> None:
        with self.assertRaises(E2EError):
            Qmp(self.path('none.sock'), timeout=0.2)


if __name__ == '__main__':
    unittest.main()
