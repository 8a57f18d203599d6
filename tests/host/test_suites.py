"""scripts/suites.py: the one parser of kunit/SUITES for the shell scripts
(gate.sh's conformance suites, conformance.sh, fuzz.sh)."""
import os

from common import REPO, TempDirTest, run

SCRIPT = os.path.join(REPO, 'scripts', 'suites.py')
SUITES = """\
# suite   kind  arches or cells
a_prop    kunit
b         kunit
c_prop    kunit arm64
e2e_x     e2e   6.1/x86_64
conf_one  conf  6.1/x86_64      # a comment
conf_two  conf  6.12/x86_64 x86_64
sync      tree
self      host
"""


class Suites(TempDirTest):
    def suites(self, *args: str, text: str = SUITES) -> tuple[int, list[str]]:
        path = self.write('SUITES', text)
        p = run([SCRIPT, '--file', path, *args])
        return p.returncode, p.stdout.split()

    def test_kinds_and_cells(self) -> None:
        for args, want in [
                (('kunit', '6.1/x86_64'), ['a_prop', 'b']),
                (('kunit', '6.12/arm64'), ['a_prop', 'b', 'c_prop']),
                (('--suffix', '_prop', 'kunit', '6.1/arm64'), ['a_prop', 'c_prop']),
                (('e2e', '6.1/x86_64'), ['e2e_x']),
                (('e2e', '6.12/x86_64'), []),
                (('conf', '6.1/x86_64'), ['conf_one', 'conf_two']),   # conf_two: its arch
                (('conf', '6.12/x86_64'), ['conf_two']),
                (('conf', '6.1/arm64'), []),
                (('conf', 'x86_64'), ['conf_two']),                  # a bare arch: a checkout's
                (('tree', '6.12/arm64'), ['sync']),
                (('host', 'x86_64'), ['self'])]:
            with self.subTest(args=args):
                self.assertEqual(self.suites(*args), (0, want))

    def test_malformed_file(self) -> None:
        rc, out = self.suites('kunit', 'x86_64', text='a kunnit\n')
        self.assertEqual(rc, 2)
        self.assertIn('SUITES:1:', ' '.join(out))

    def test_the_real_list(self) -> None:
        p = run([SCRIPT, '--suffix', '_prop', 'kunit', '6.12/arm64'])
        self.assertEqual(p.stdout.split(), ['overlayfs_params_prop', 'overlayfs_fh_prop',
                                            'virtio_mem_prop'])
        p = run([SCRIPT, 'conf', '6.1/x86_64'])
        self.assertEqual(p.stdout.split(), ['fstests_overlay_default', 'fstests_overlay_uuid_off'])

    def test_lines_less_kinds_and_suites(self) -> None:
        """suites.py lines: the SUITES file for a run that does not expect
        some kinds (make test-debug DEBUG_E2E=0) or suites (a checkout of
        yours: mutants_apply)."""
        path = self.write('SUITES', SUITES)
        p = run([SCRIPT, 'lines', '--file', path, '--drop-kind', 'e2e', '--drop', 'sync'])
        self.assertEqual((p.returncode, p.stdout), (0, 'a_prop kunit\nb kunit\nc_prop kunit arm64\n'
                                                        'conf_one conf 6.1/x86_64\n'
                                                        'conf_two conf 6.12/x86_64 x86_64\n'
                                                        'self host\n'))
        p = run([SCRIPT, 'lines', '--file', self.write('BAD', 'a kunnit\n')])
        self.assertEqual(p.returncode, 2)
        self.assertIn('BAD:1:', p.stdout)
