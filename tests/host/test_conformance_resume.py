"""conformance/fstests/host stopped half way and started again: the tests
it finished are kept and not run again, the rest run, and the finished
run is judged (here: written as a baseline) as one that was never stopped.
QEMU is a stand-in that acts out the guest's side: it reads the job,
writes each test's result to the results disk as the guest does, and can
hang after some tests, to be stopped there."""
import os
import signal
import subprocess
import sys
import time

from common import REPO, TempDirTest

HOST = os.path.join(REPO, 'conformance', 'fstests', 'host')

FAKE_QEMU = r'''#!/usr/bin/env python3
import io, os, sys, tarfile, time
args = sys.argv[1:]
drives = {}
for i, a in enumerate(args):
    if a == '-drive':
        opts = dict(kv.split('=', 1) for kv in args[i + 1].split(',') if '=' in kv)
        drives[opts['id']] = opts['file']
with tarfile.open(drives['kgate-job']) as tar:
    todo = tar.extractfile('tests').read().decode().split()
    todo += tar.extractfile('late').read().decode().split()
with open(os.environ['FAKE_RECORD'], 'a') as f:
    f.write(' '.join(todo) + '\n')
hang = int(os.environ.get('FAKE_HANG_AFTER', '0'))
files = {}
for i, t in enumerate(todo, 1):
    bad = t in os.environ.get('FAKE_FAIL', '').split()
    body = '<failure message="output mismatch" />' if bad else ''
    files['result-' + t.replace('/', '_') + '.xml'] = (
        '<testsuite><testcase name="%s" time="1">%s</testcase></testsuite>' % (t, body))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with open(drives['kgate-out'], 'r+b') as f:
        f.write(buf.getvalue())
    print('fstests-job: test %d of %d: %s done (check exit 0)' % (i, len(todo), t), flush=True)
    if i == hang:
        with open(os.environ['FAKE_RECORD'] + '.hung', 'w') as f:
            f.write(t)
        time.sleep(120)
print('e2e-init: poweroff', flush=True)
'''

GROUPS = '001 auto quick\n002 auto quick\n003 auto\n004 auto quick\n005 auto quick\n'
QUICK = ['overlay/001', 'overlay/002', 'overlay/004', 'overlay/005']


class Resume(TempDirTest):
    def setUp(self) -> None:
        super().setUp()
        self.write('bin/qemu-system-x86_64', FAKE_QEMU, 0o755)
        self.write('root/conformance/x86_64/rootfs.img', 'image')
        self.write('root/conformance/x86_64/rootfs.key', 'k1')
        self.write('root/conformance/x86_64/fstests/tests/overlay/group.list', GROUPS)
        self.kernel = self.write('bzImage', 'kernel 1')
        self.record = self.path('record')
        self.known = self.path('known', 'default')

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ('FRESH', 'FSTESTS_GROUP', 'FSTESTS_TESTS', 'KGATE_TREE')}
        env.update(PATH=self.path('bin') + os.pathsep + env['PATH'],
                   KGATE_ROOT=self.path('root'), BUILD=self.path('build'),
                   FAKE_RECORD=self.record, FAKE_FAIL='overlay/004', **extra)
        return env

    def cmd(self) -> list[str]:
        os.makedirs(os.path.dirname(self.known), exist_ok=True)
        return [sys.executable, HOST, 'x86_64', 'default', '--group', 'quick',
                '--kernel', self.kernel, '--out', self.path('out'),
                '--write-known', self.known, '--label', 'test/x86_64']

    def baseline(self, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.cmd(), env=self.env(**extra), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=60, check=False)

    def stop_after(self, n: int) -> None:
        """A run stopped (SIGTERM to it and its QEMU) after n tests."""
        p = subprocess.Popen(self.cmd(), env=self.env(FAKE_HANG_AFTER=str(n)),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
        deadline = time.monotonic() + 30
        while not os.path.exists(self.record + '.hung'):
            self.assertLess(time.monotonic(), deadline, 'the stand-in never hung')
            time.sleep(0.1)
        os.killpg(p.pid, signal.SIGTERM)
        p.communicate(timeout=30)
        os.remove(self.record + '.hung')

    def runs(self) -> list[list[str]]:
        with open(self.record, encoding='utf-8') as f:
            return [ln.split() for ln in f]

    def known_rows(self) -> list[str]:
        with open(self.known, encoding='utf-8') as f:
            return [ln.rstrip() for ln in f if not ln.startswith('#')]

    def test_stopped_run_continues_with_the_rest(self) -> None:
        self.stop_after(2)
        self.assertFalse(os.path.exists(self.known))
        p = self.baseline()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('2 of 4 tests done by an earlier run', p.stdout)
        self.assertIn('test 3 of 4 (overlay/004) done', p.stdout)
        self.assertEqual(self.runs(), [QUICK, ['overlay/004', 'overlay/005']])
        self.assertEqual(self.known_rows(), [
            'overlay/001  pass', 'overlay/002  pass',
            'overlay/004  fail    output mismatch', 'overlay/005  pass'])
        with open(self.known, encoding='utf-8') as f:
            self.assertIn('# group: quick\n', f.read())

    def test_finished_run_runs_nothing_again(self) -> None:
        self.assertEqual(self.baseline().returncode, 0)
        p = self.baseline()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('4 of 4 tests done by an earlier run', p.stdout)
        self.assertEqual(self.runs(), [QUICK])

    def test_fresh_starts_over(self) -> None:
        self.stop_after(2)
        self.assertEqual(self.baseline(FRESH='1').returncode, 0)
        self.assertEqual(self.runs(), [QUICK, QUICK])

    def test_another_kernel_starts_over(self) -> None:
        self.stop_after(2)
        with open(self.kernel, 'w', encoding='utf-8') as f:
            f.write('kernel 2')
        self.assertEqual(self.baseline().returncode, 0)
        self.assertEqual(self.runs(), [QUICK, QUICK])
