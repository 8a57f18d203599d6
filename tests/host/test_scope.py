"""scripts/scope.py: which changes of a kernel tree rerun which suite (the
gate's end-to-end and conformance reuse), on a toy tree."""
import os

from common import REPO, TempDirTest, run

import scope  # noqa: E402  (scripts/, on the path through common)

GIT_ID = ['-c', 'user.name=U', '-c', 'user.email=u@example.org']
PATHS = '''# suite  paths
e2e_overlayfs            fs/overlayfs/
fstests_overlay_default  fs/overlayfs/
e2e_virtio_mem           drivers/virtio/ include/uapi/linux/virtio_mem.h
'''
FILES = ('fs/overlayfs/copy_up.c', 'fs/overlayfs/ovl_kunit.c', 'drivers/virtio/virtio_mem.c',
         'include/uapi/linux/virtio_mem.h', 'mm/memory_hotplug.c', 'Makefile')
SUITES = ('e2e_overlayfs', 'fstests_overlay_default', 'e2e_virtio_mem', 'memory_hotplug')


class Scope(TempDirTest):
    def setUp(self) -> None:
        super().setUp()
        for f in FILES:
            self.write(f'linux/{f}', f'{f} 1\n')
        self.git('init', '-q')
        self.git('add', '.')
        self.git(*GIT_ID, 'commit', '-qm', 'base')
        self.claims = scope.read_paths(self.write('PATHS', PATHS))
        self.before = self.keys()

    def git(self, *args: str) -> None:
        p = run(['git', '-C', self.path('linux'), *args])
        self.assertEqual(p.returncode, 0, p.stdout)

    def keys(self) -> dict[str, str]:
        return {s: scope.key(self.path('linux'), s, self.claims,
                             exclude=['fs/overlayfs/ovl_kunit.c']) for s in SUITES}

    def rerun_after(self, path: str, commit: bool = True) -> list[str]:
        """The suites whose key a change of path changes."""
        self.write(f'linux/{path}', f'{path} 2\n')
        if commit:
            self.git(*GIT_ID, 'commit', '-qam', 'change')
        after = self.keys()
        return sorted(s for s in SUITES if after[s] != self.before[s])

    def test_overlayfs_change_reruns_the_overlay_suites_only(self) -> None:
        self.assertEqual(self.rerun_after('fs/overlayfs/copy_up.c'),
                         ['e2e_overlayfs', 'fstests_overlay_default', 'memory_hotplug'])

    def test_uncommitted_change_counts(self) -> None:
        self.assertEqual(self.rerun_after('drivers/virtio/virtio_mem.c', commit=False),
                         ['e2e_virtio_mem', 'memory_hotplug'])

    def test_a_claimed_file_reruns_its_suite(self) -> None:
        self.assertEqual(self.rerun_after('include/uapi/linux/virtio_mem.h'),
                         ['e2e_virtio_mem', 'memory_hotplug'])

    def test_unclaimed_paths_rerun_everything(self) -> None:
        self.assertEqual(self.rerun_after('mm/memory_hotplug.c'), sorted(SUITES))
        self.before = self.keys()
        self.assertEqual(self.rerun_after('Makefile'), sorted(SUITES))

    def test_excluded_test_file_reruns_nothing(self) -> None:
        self.assertEqual(self.rerun_after('fs/overlayfs/ovl_kunit.c'), [])

    def test_committed_paths_file_is_well_formed(self) -> None:
        claims = scope.read_paths(os.path.join(REPO, 'kunit', 'PATHS'))
        suites = run(['awk', '!/^#/ && NF { print $1 }', os.path.join(REPO, 'kunit', 'SUITES')]).stdout
        listed = set(suites.split()) | {f'fstests_overlay_{s}' for s in
                                        ('default', 'uuid_off', 'userxattr', 'nfs_export', 'xfs')}
        self.assertFalse(set(claims) - listed, 'kunit/PATHS names suites that do not exist')
        self.assertIn('fs/overlayfs/', claims['e2e_overlayfs'])

    def test_bad_line_is_refused(self) -> None:
        with self.assertRaisesRegex(scope.ScopeError, r'PATHS2:1: want "suite path\.\.\."'):
            scope.read_paths(self.write('PATHS2', 'e2e_overlayfs /etc/\n'))
