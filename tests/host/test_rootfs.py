"""scripts/rootfs.sh's refusals of a bad UNIONMOUNT_SRC: each stops before
debootstrap with one line that names the source and what is wrong."""
import os
import unittest

from common import REPO, TempDirTest, run

ROOTFS = os.path.join(REPO, 'scripts', 'rootfs.sh')


class UnionmountSource(TempDirTest):

    def rootfs(self, um_src: str) -> tuple[int, str]:
        fst = self.write('fstests/check', '#!/bin/sh\n', 0o755)
        p = run([ROOTFS, 'x86_64'], env={
            'KGATE_ROOT': self.path('root'), 'FSTESTS_SRC': os.path.dirname(fst),
            'UNIONMOUNT_SRC': um_src, 'DEBIAN_MIRROR': 'http://127.0.0.1:9/none'})
        self.assertFalse(os.path.exists(self.path('root', 'conformance', 'x86_64', 'base')))
        return p.returncode, p.stdout

    def test_a_path_that_does_not_exist(self) -> None:
        rc, out = self.rootfs(self.path('nowhere'))
        self.assertEqual(rc, 1)
        self.assertIn(f'rootfs: UNIONMOUNT_SRC={self.path("nowhere")} does not exist', out)

    def test_a_file_that_is_no_tarball(self) -> None:
        bad = self.write('um.tar.gz', 'not gzip\n')
        rc, out = self.rootfs(bad)
        self.assertEqual(rc, 1)
        self.assertIn(f'rootfs: cannot unpack {bad} (UNIONMOUNT_SRC: a checkout or a .tar.gz', out)

    def test_a_checkout_of_something_else(self) -> None:
        self.write('other/README', 'not the suite\n')
        rc, out = self.rootfs(self.path('other'))
        self.assertEqual(rc, 1)
        self.assertIn(f'rootfs: {self.path("other")} holds no unionmount-testsuite '
                      '(no ./run and tests/ at its top)', out)


if __name__ == '__main__':
    unittest.main()
