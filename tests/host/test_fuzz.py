"""scripts/fuzz_verdict.py: the verdict of make fuzz."""
import unittest

import common  # noqa: F401  (import paths)
import fuzz_verdict

SUITES = ['overlayfs_params_prop', 'overlayfs_fh_prop']
LOG = """\
    # ovl_params_prop_parse: seed 7, 100000 cases
    # ovl_params_prop_parse: 100000 cases (12 raw, 5 refused) in 2000 ms: 50000/s
    # ovl_fh_prop_check: seed 7, 100000 cases
    # ovl_fh_prop_check: 100000 cases (3 accepted, 1 decoded) in 100 ms: 1000000/s
"""


def doc(*suites: tuple[str, str]) -> dict[str, object]:
    return {'sub_groups': [{'name': n, 'sub_groups': [],
                            'test_cases': [{'name': 'c', 'status': st}]}
                           for n, st in suites]}


GOOD = doc(('overlayfs_params_prop', 'PASS'), ('overlayfs_fh_prop', 'PASS'),
           ('overlayfs_fh', 'PASS'))


class FuzzVerdictTest(unittest.TestCase):
    def failed(self, d: dict[str, object], log: str = LOG,
               iters: int = 100000, seed: int = 7) -> list[str]:
        return [w for ok, w in fuzz_verdict.judge(d, log, iters, seed, SUITES) if not ok]

    def test_green(self) -> None:
        self.assertEqual(self.failed(GOOD), [])
        self.assertEqual(fuzz_verdict.figures(LOG)[1],
                         'ovl_fh_prop_check: 100000 inputs (3 accepted, 1 decoded) in 0.1 s, 1000000/s')

    def test_missing_suite(self) -> None:
        f = self.failed(doc(('overlayfs_params_prop', 'PASS')))
        self.assertIn('overlayfs_fh_prop: did not run', f)

    def test_failed_case(self) -> None:
        f = self.failed(doc(('overlayfs_params_prop', 'FAIL'), ('overlayfs_fh_prop', 'PASS')))
        self.assertEqual(f, ['overlayfs_params_prop: failed: c'])

    def test_count_not_applied(self) -> None:
        # the kernel ran its default count: the parameter was not applied
        f = self.failed(GOOD, LOG.replace('seed 7, 100000', 'seed 7, 2000', 1))
        self.assertEqual(len(f), 1)
        self.assertTrue(f[0].startswith('every property case ran 100000 cases'))
        self.assertEqual(len(self.failed(GOOD, seed=8)), 1)

    def test_no_case_reported(self) -> None:
        self.assertEqual(len(self.failed(GOOD, '')), 1)

    def test_kernel_report(self) -> None:
        f = self.failed(GOOD, LOG + 'BUG: KASAN: slab-out-of-bounds in ovl_check_fb_len+0x1\n')
        self.assertEqual(f, ['no kernel report in the log: BUG: KASAN: slab-out-of-bounds in ovl_check_fb_len+0x1'])

    def test_lockdep_report(self) -> None:
        # lockdep reports without a WARN: panic_on_warn does not stop it
        f = self.failed(GOOD, LOG + '[ 5.0] WARNING: possible recursive locking detected\n'
                        '[ 6.0] BUG: sleeping function called from invalid context\n')
        self.assertEqual(len(f), 1)
        f = self.failed(GOOD, LOG + '[ 5.0] inconsistent lock state\n')
        self.assertEqual(f, ['no kernel report in the log: [ 5.0] inconsistent lock state'])

    def test_other_suite_failed(self) -> None:
        f = self.failed(doc(('overlayfs_params_prop', 'PASS'), ('overlayfs_fh_prop', 'PASS'),
                            ('overlayfs_fh', 'FAIL')))
        self.assertEqual(f, ['the other suites passed: overlayfs_fh'])


if __name__ == '__main__':
    unittest.main()
