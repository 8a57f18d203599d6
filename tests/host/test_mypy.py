"""mypy --strict on the host Python: e2e/lib, scripts/*.py and the e2e run
scripts (Debian's mypy package, installed by make deps)."""
import glob
import os
import shutil
import unittest

from common import REPO, run

# Each run script is a __main__ of its own: one mypy run for each.
RUN_SCRIPTS = ['e2e/overlayfs/run', 'e2e/virtio_mem/run', 'e2e/virtio_mem/bench',
               'conformance/fstests/host', 'conformance/memhotplug/host',
               'conformance/table']


class MypyStrict(unittest.TestCase):
    def mypy(self, *files: str) -> None:
        if not shutil.which('mypy'):
            self.fail('mypy is not installed; run: make deps (apt-get install mypy)')
        build = os.environ.get('BUILD') or os.path.join(REPO, 'build')
        p = run(['mypy', '--strict', '--no-error-summary',
                 '--cache-dir', os.path.join(build, '.mypy_cache'), *files],
                env={'MYPYPATH': os.pathsep.join(
                    os.path.join(REPO, d) for d in ('e2e/lib', 'e2e/virtio_mem', 'scripts'))},
                timeout=300)
        self.assertEqual(p.returncode, 0, p.stdout)

    def test_library_and_scripts(self) -> None:
        self.mypy('e2e/lib/e2e', 'e2e/virtio_mem/vmem.py',
                  *sorted(os.path.relpath(p, REPO)
                          for p in glob.glob(os.path.join(REPO, 'scripts', '*.py'))))

    def test_run_scripts(self) -> None:
        for script in RUN_SCRIPTS:
            with self.subTest(script=script):
                self.mypy(script)


if __name__ == '__main__':
    unittest.main()
