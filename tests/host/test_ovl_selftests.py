"""e2e/ovl_selftests/run: which programs a tree has, and how a known
failure of the selftest itself is told from a regression."""
import importlib.machinery
import importlib.util
import os
from typing import Any

from common import REPO, TempDirTest

from e2e.results import Case  # noqa: E402


def load_run() -> Any:
    path = os.path.join(REPO, 'e2e', 'ovl_selftests', 'run')
    loader = importlib.machinery.SourceFileLoader('ovl_selftests_run', path)
    spec = importlib.util.spec_from_loader('ovl_selftests_run', loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


LOG = '''# set_layers_via_fds: ok 6 set_layers_via_fds.set_500_layers_via_opath_fds
# set_layers_via_fds: not ok 7 set_layers_via_fds.set_layers_via_detached_mount_fds
# idmapped_mounts: not ok 2 layers.idmapped_lower
'''


class OvlSelftests(TempDirTest):
    def setUp(self) -> None:
        super().setUp()
        self.run_mod = load_run()

    def test_programs_as_the_makefile_lists_them(self) -> None:
        self.write('st/Makefile', 'CFLAGS += -Wall\nTEST_GEN_PROGS := dev_in_maps\n'
                   'TEST_GEN_PROGS += set_layers_via_fds\nTEST_GEN_PROGS += idmapped_mounts\n')
        self.assertEqual(self.run_mod.programs(self.path('st')),
                         ['dev_in_maps', 'set_layers_via_fds', 'idmapped_mounts'])
        self.assertEqual(self.run_mod.programs(self.path('none')), [])

    def test_known_failure_is_skip_other_failure_red(self) -> None:
        known = {'set_layers_via_fds:set_layers_via_fds.set_layers_via_detached_mount_fds':
                 'a bug of the selftest'}
        cases = [Case('set_layers_via_fds', 'FAIL', 'exited 1'),
                 Case('idmapped_mounts', 'FAIL', 'exited 1'), Case('dev_in_maps', 'PASS', '')]
        out = {c.name: c for c in self.run_mod.judge(cases, LOG, known)}
        self.assertEqual(out['set_layers_via_fds'].status, 'SKIP')
        self.assertIn('a bug of the selftest', out['set_layers_via_fds'].reason)
        self.assertEqual(out['idmapped_mounts'].status, 'FAIL')
        self.assertEqual(out['dev_in_maps'].status, 'PASS')

    def test_known_is_per_tree(self) -> None:
        known = self.write('known', '# x\n7.3 a:b.c  why\n6.12 d:e.f  other\n')
        self.assertEqual(self.run_mod.read_known('7.3', known), {'a:b.c': 'why'})
        self.assertEqual(self.run_mod.read_known('6.1', known), {})

    def test_committed_known_file_reads(self) -> None:
        self.assertTrue(self.run_mod.read_known('7.3'))
