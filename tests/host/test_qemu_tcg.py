"""scripts/qemu-tcg: kunit.py's QEMU command line without its KVM and HVF
accelerators (kgate_tcg in scripts/lib.sh links it first on PATH)."""
import os

from common import REPO, TempDirTest, run


class QemuTcg(TempDirTest):
    def setUp(self) -> None:
        super().setUp()
        self.write('real/qemu-system-x86_64', '#!/bin/sh\necho "real: $*"\n', 0o755)
        p = run(['bash', '-c', f'. {REPO}/scripts/lib.sh && kgate_tcg {self.path("b")} && '
                 'command -v qemu-system-x86_64 qemu-system-aarch64'],
                env={'PATH': self.path('real') + ':' + os.environ['PATH']})
        self.assertEqual(p.stdout.splitlines(),
                         [self.path('b', '.kgate-qemu', 'qemu-system-x86_64'),
                          self.path('b', '.kgate-qemu', 'qemu-system-aarch64')])

    def qemu(self, *args: str) -> str:
        path = self.path('b', '.kgate-qemu') + ':' + self.path('real') + ':' + os.environ['PATH']
        p = run([os.path.join(self.path('b', '.kgate-qemu'), 'qemu-system-x86_64'), *args],
                env={'PATH': path})
        self.assertEqual(p.returncode, 0, p.stdout)
        return p.stdout

    def test_only_tcg(self) -> None:
        """As kunit.py of 7.3 asks."""
        self.assertEqual(self.qemu('-m', '1024', '-accel', 'kvm', '-accel', 'hvf', '-accel', 'tcg',
                                   '-serial', 'stdio'),
                         'real: -m 1024 -accel tcg -serial stdio\n')

    def test_other_arguments_unchanged(self) -> None:
        """As kunit.py of 6.1 and 6.12 ask: nothing to drop."""
        self.assertEqual(self.qemu('-append', 'a -accel kvm b', '-smp', '2'),
                         'real: -append a -accel kvm b -smp 2\n')
