"""kgate_locked of scripts/lib.sh: the machine's build lock."""
import subprocess
import time

from common import REPO, TempDirTest, run


class BuildLock(TempDirTest):
    """kgate_locked: one line when it has to wait, and how long."""

    def locked(self, lock: str) -> subprocess.CompletedProcess[str]:
        return run(['bash', '-c', f'. {REPO}/scripts/lib.sh && kgate_locked sh -c "echo ran; exit 3"'],
                   env={'KGATE_LOCK': lock})

    def test_free_lock_says_nothing(self) -> None:
        p = self.locked(self.path('lock'))
        self.assertEqual((p.returncode, p.stdout), (3, 'ran\n'))

    def test_held_lock_is_announced(self) -> None:
        lock = self.path('lock')
        holder = subprocess.Popen(['flock', lock, 'sleep', '2'])
        try:
            deadline = time.monotonic() + 5
            while run(['flock', '-n', lock, 'true']).returncode == 0:
                self.assertLess(time.monotonic(), deadline, 'the holder never took the lock')
                time.sleep(0.05)
            p = self.locked(lock)
        finally:
            holder.wait()
        self.assertEqual(p.returncode, 3, p.stdout)
        lines = p.stdout.splitlines()
        self.assertIn('is held by another build of this machine; waiting', lines[0])
        self.assertRegex(lines[1], r'^build lock: waited [0-9]+ s$')
        self.assertEqual(lines[2], 'ran')
