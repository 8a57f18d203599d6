"""Shared by the host selftest's modules: where things are, import paths,
temporary directories, subprocesses."""
import os
import subprocess
import sys
import tempfile
import unittest
from typing import Optional

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for sub in ('scripts', os.path.join('e2e', 'virtio_mem'), os.path.join('e2e', 'lib')):
    path = os.path.join(REPO, sub)
    if path not in sys.path:
        sys.path.insert(0, path)


class TempDirTest(unittest.TestCase):
    """A test with a fresh temporary directory, self.tmp."""

    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix='kgate-selftest-')
        self.tmp = self._tmp.name

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def path(self, *parts: str) -> str:
        return os.path.join(self.tmp, *parts)

    def write(self, rel: str, text: str, mode: Optional[int] = None) -> str:
        """Write text to tmp/rel (parents made); chmod mode if given."""
        path = self.path(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        if mode is not None:
            os.chmod(path, mode)
        return path


def run(cmd: list[str], env: Optional[dict[str, str]] = None,
        cwd: Optional[str] = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run cmd (environment: ours, updated with env); output captured."""
    full = dict(os.environ)
    # (the gate's own settings, as make test ARCHES=... TREE=... exports
    # them, are not the test's)
    for k in ('RESULTS', 'SUITES', 'KINDS', 'FRESH', 'E2E_DIR', 'MAKEFLAGS', 'MFLAGS',
              'MAKELEVEL', 'ARCHES', 'TREES', 'CELLS', 'KGATE_TREE', 'KTREE',
              'KGATE_USER_TREE', 'KGATE_REV', 'KGATE_USER_INDEX'):
        full.pop(k, None)
    full.update(env or {})
    return subprocess.run(cmd, env=full, cwd=cwd or REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout,
                          check=False)
