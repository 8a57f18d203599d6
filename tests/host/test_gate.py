"""scripts/gate.py (the verdict) and scripts/verdict.py (questions to it)."""
import json
import os
import shutil
import unittest

from common import REPO, TempDirTest, run

import gate     # scripts/gate.py
import verdict  # scripts/verdict.py

SUITES = """\
# suite   kind   arches
k_one     kunit
k_two     kunit  x86_64   # x86_64 only
e2e_a     e2e
host_selftest host
"""


def kunit_doc(suites: dict[str, list[tuple[str, str]]]) -> dict[str, object]:
    """A kunit.py --json document (KernelCI layout) with these suites."""
    return {'name': 'KUnit Test Group', 'sub_groups': [
        {'name': s, 'sub_groups': [],
         'test_cases': [{'name': n, 'status': st} for n, st in cases]}
        for s, cases in suites.items()], 'test_cases': []}


def one_suite_doc(name: str, cases: list[tuple[str, str]]) -> dict[str, object]:
    return {'name': name, 'sub_groups': [],
            'test_cases': [{'name': n, 'status': st} for n, st in cases]}


class LoadExpected(TempDirTest):
    def setUp(self) -> None:
        super().setUp()
        self.suites = self.write('SUITES', SUITES)

    def test_every_kind(self) -> None:
        self.assertEqual(gate.load_expected(self.suites, ['x86_64', 'arm64']), {
            'x86_64': ['k_one', 'k_two', 'e2e_a'],
            'arm64': ['k_one', 'e2e_a'],
            'host': ['host_selftest']})

    def test_kinds_filter(self) -> None:
        self.assertEqual(gate.load_expected(self.suites, ['x86_64', 'arm64'], ['kunit']), {
            'x86_64': ['k_one', 'k_two'], 'arm64': ['k_one'], 'host': []})
        self.assertEqual(gate.load_expected(self.suites, ['arm64'], ['host']), {
            'arm64': [], 'host': ['host_selftest']})

    def test_malformed_lines(self) -> None:
        for bad in ('lonely\n', 'x kunnit\n', 'h host x86_64\n'):
            with self.subTest(line=bad):
                path = self.write('BAD', bad)
                with self.assertRaises(ValueError):
                    gate.load_expected(path, ['x86_64'])

    def test_several_files(self) -> None:
        """SUITES=a:b (make conformance: the gate's conf suites and its own):
        the union; a suite in both is an error, not counted twice."""
        a = self.write('A', 'k kunit\nc1 conf 6.1/x86_64\n')
        b = self.write('B', 'c2 conf 6.1/x86_64\n')
        self.assertEqual(gate.load_expected(f'{a}:{b}', ['6.1/x86_64'], ['conf'])['6.1/x86_64'],
                         ['c1', 'c2'])
        self.write('B', 'c1 conf 6.1/x86_64\n')
        with self.assertRaises(ValueError) as e:
            gate.load_expected(f'{a}:{b}', ['6.1/x86_64'])
        self.assertEqual(str(e.exception), f'{b}: c1 is listed twice in {a}:{b}')

    def test_the_real_list_expects_the_selftest(self) -> None:
        """A gate where the host selftest did not run cannot be green."""
        want = gate.load_expected(os.path.join(REPO, 'kunit', 'SUITES'), ['x86_64'])
        self.assertEqual(want['host'], ['host_selftest', 'mutants_apply'])
        self.assertEqual(gate.load_expected(os.path.join(REPO, 'kunit', 'SUITES'),
                                            ['x86_64'], ['kunit'])['host'], [])


class Leaves(unittest.TestCase):
    def test_nested_groups(self) -> None:
        group = {'name': 's', 'test_cases': [{'name': 'a', 'status': 'PASS'}],
                 'sub_groups': [
                     {'name': 'p', 'test_cases': [{'name': 'one', 'status': 'FAIL'},
                                                  {'name': 'two', 'status': 'SKIP'}],
                      'sub_groups': [{'name': 'q', 'test_cases': [
                          {'name': 'deep', 'status': 'ERROR'}]}]}]}
        self.assertEqual(list(gate.leaves(group, '')), [
            ('a', 'PASS'), ('p.one', 'FAIL'), ('p.two', 'SKIP'), ('p.q.deep', 'ERROR')])
        self.assertEqual(list(gate.leaves({'name': 'empty'}, 'x.')), [])


class Judge(TempDirTest):
    """gate.judge() on results written into tmp/results."""

    def setUp(self) -> None:
        super().setUp()
        self.suites = self.write('SUITES', SUITES)
        self.results = self.path('results')
        os.makedirs(self.results)
        # a green gate for x86_64, then each test breaks one thing
        self.kunit({'k_one': [('t1', 'PASS'), ('t2', 'SKIP')],
                    'k_two': [('t3', 'PASS')]})
        self.rc('0')
        self.json('e2e-a-x86_64.json', one_suite_doc('e2e_a', [('boot', 'PASS')]))
        self.json('host-selftest.json', one_suite_doc('host_selftest', [('t.T.test', 'PASS')]))

    def json(self, name: str, doc: object) -> None:
        with open(os.path.join(self.results, name), 'w', encoding='utf-8') as f:
            json.dump(doc, f)

    def kunit(self, suites: dict[str, list[tuple[str, str]]]) -> None:
        self.json('x86_64.json', kunit_doc(suites))

    def rc(self, text: str) -> None:
        with open(os.path.join(self.results, 'x86_64.rc'), 'w', encoding='utf-8') as f:
            f.write(text + '\n')

    def judge(self, kinds: tuple[str, ...] = ()) -> dict[str, object]:
        return gate.judge(self.results, self.suites, ['x86_64'], kinds)

    def test_green(self) -> None:
        v = self.judge()
        self.assertEqual(v['verdict'], 'PASS')
        self.assertEqual(v['totals'], {'passed': 4, 'failed': 0, 'skipped': 1})
        self.assertEqual(v['problems'], [])
        self.assertEqual(v['missing'], [])
        self.assertEqual(v['results'], {
            'x86_64': {
                'e2e_a': {'kind': 'e2e', 'state': 'ok', 'passed': 1, 'failed': 0,
                          'skipped': 0, 'tests': {'boot': 'PASS'}},
                'k_one': {'kind': 'kunit', 'state': 'ok', 'passed': 1, 'failed': 0,
                          'skipped': 1, 'tests': {'t1': 'PASS', 't2': 'SKIP'}},
                'k_two': {'kind': 'kunit', 'state': 'ok', 'passed': 1, 'failed': 0,
                          'skipped': 0, 'tests': {'t3': 'PASS'}}},
            'host': {
                'host_selftest': {'kind': 'host', 'state': 'ok', 'passed': 1, 'failed': 0,
                                  'skipped': 0, 'tests': {'t.T.test': 'PASS'}}}})
        self.assertEqual(gate.render(v).splitlines()[-2:],
                         ['gate: PASS', '4 passed, 0 failed, 1 skipped'])

    def test_failed_and_error_tests(self) -> None:
        self.kunit({'k_one': [('t1', 'FAIL'), ('t2', 'ERROR')], 'k_two': [('t3', 'PASS')]})
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['totals'], {'passed': 3, 'failed': 2, 'skipped': 0})
        self.assertEqual(v['problems'], ['x86_64: k_one.t1 FAIL', 'x86_64: k_one.t2 ERROR'])

    def test_missing_suite(self) -> None:
        os.unlink(os.path.join(self.results, 'e2e-a-x86_64.json'))
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['missing'], [{'arch': 'x86_64', 'suite': 'e2e_a'}])
        self.assertEqual(v['totals'], {'passed': 3, 'failed': 1, 'skipped': 1})
        self.assertEqual(v['results']['x86_64']['e2e_a']['state'], 'MISSING')

    def test_suite_without_tests(self) -> None:
        self.kunit({'k_one': [], 'k_two': [('t3', 'PASS')]})
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['problems'], ['x86_64: k_one ran no test'])
        self.assertEqual(v['totals'], {'passed': 3, 'failed': 1, 'skipped': 0})

    def test_crashed_kunit_with_all_passing(self) -> None:
        self.rc('1')
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['problems'],
                         [f'x86_64: kunit.py exited 1; see {self.results}/x86_64.log'])
        self.assertEqual(v['totals'], {'passed': 4, 'failed': 1, 'skipped': 1})

    def test_no_exit_code(self) -> None:
        os.unlink(os.path.join(self.results, 'x86_64.rc'))
        self.assertEqual(self.judge()['problems'],
                         [f'x86_64: kunit.py exited None; see {self.results}/x86_64.log'])

    def test_no_kunit_results(self) -> None:
        os.unlink(os.path.join(self.results, 'x86_64.json'))
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['problems'][0], 'x86_64: kunit.py left no results (exit 0); '
                         f'see {self.results}/x86_64.log')
        self.assertEqual(v['missing'], [{'arch': 'x86_64', 'suite': 'k_one'},
                                        {'arch': 'x86_64', 'suite': 'k_two'}])

    def test_stale_e2e_results_not_judged_for_kunit(self) -> None:
        """make kunit-<arch> (KINDS=kunit): an old failing e2e result, or a
        failing selftest, is not read."""
        self.json('e2e-a-x86_64.json', one_suite_doc('e2e_a', [('boot', 'FAIL')]))
        self.json('host-selftest.json', one_suite_doc('host_selftest', [('x', 'FAIL')]))
        v = self.judge(('kunit',))
        self.assertEqual(v['verdict'], 'PASS')
        self.assertEqual(list(v['results']), ['x86_64'])
        self.assertEqual(sorted(v['results']['x86_64']), ['k_one', 'k_two'])
        self.assertEqual(v['totals'], {'passed': 2, 'failed': 0, 'skipped': 1})
        # ... and judged when every kind is
        self.assertEqual(self.judge()['verdict'], 'FAIL')

    def test_e2e_only(self) -> None:
        """make e2e-<arch> (KINDS=e2e): no KUnit results needed."""
        os.unlink(os.path.join(self.results, 'x86_64.json'))
        v = self.judge(('e2e',))
        self.assertEqual(v['verdict'], 'PASS')
        self.assertEqual(v['totals'], {'passed': 1, 'failed': 0, 'skipped': 0})

    def test_missing_selftest(self) -> None:
        os.unlink(os.path.join(self.results, 'host-selftest.json'))
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['missing'], [{'arch': 'host', 'suite': 'host_selftest'}])
        self.assertEqual(v['totals'], {'passed': 3, 'failed': 1, 'skipped': 1})

    def test_failing_selftest(self) -> None:
        self.json('host-selftest.json', one_suite_doc(
            'host_selftest', [('a', 'PASS'), ('b', 'ERROR')]))
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['problems'], ['host: host_selftest.b ERROR'])

    def test_host_suite_counted_once_for_two_arches(self) -> None:
        v = gate.judge(self.results, self.suites, ['x86_64', 'arm64'], ('host',))
        self.assertEqual(v['totals'], {'passed': 1, 'failed': 0, 'skipped': 0})
        self.assertEqual(v['verdict'], 'PASS')

    def test_unreadable_e2e_results(self) -> None:
        with open(os.path.join(self.results, 'e2e-a-x86_64.json'), 'w', encoding='utf-8') as f:
            f.write('{"name": "e2e_a", "test_cases": [')
        v = self.judge()
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['missing'], [{'arch': 'x86_64', 'suite': 'e2e_a'}])
        self.assertTrue(v['problems'][0].startswith('x86_64: unreadable '), v['problems'])

    def test_unreadable_suites_file(self) -> None:
        v = gate.judge(self.results, self.path('nope'), ['x86_64'])
        self.assertEqual(v['verdict'], 'FAIL')


class Main(TempDirTest):
    def test_reads_build_results_from_anywhere(self) -> None:
        """Without RESULTS/SUITES, gate.py reads $BUILD/results and the
        repository's kunit/SUITES, wherever it is started (make passes
        both, see test_plumbing)."""
        results = self.path('b', 'results')
        os.makedirs(results)
        os.makedirs(self.path('elsewhere', 'build', 'results'))   # not these
        with open(os.path.join(results, 'x86_64.json'), 'w', encoding='utf-8') as f:
            json.dump(kunit_doc({'overlayfs_fh': [('t', 'PASS')]}), f)
        p = run(['python3', os.path.join(REPO, 'scripts', 'gate.py'), 'x86_64'],
                env={'BUILD': self.path('b'), 'KINDS': 'kunit'}, cwd=self.path('elsewhere'))
        self.assertEqual(p.returncode, 1, p.stdout)   # the other suites are missing
        with open(os.path.join(results, 'verdict.json'), encoding='utf-8') as f:
            v = json.load(f)
        self.assertEqual(v['results']['x86_64']['overlayfs_fh']['tests'], {'t': 'PASS'})
        self.assertIn({'arch': 'x86_64', 'suite': 'overlayfs_xattr'}, v['missing'])
        with open(os.path.join(results, 'summary'), encoding='utf-8') as f:
            self.assertEqual(f.read(), f"{v['totals']['passed']} passed, "
                             f"{v['totals']['failed']} failed, 0 skipped\n")
        self.assertTrue(p.stdout.endswith(f"{v['totals']['passed']} passed, "
                                          f"{v['totals']['failed']} failed, 0 skipped\n"))

    def test_usage(self) -> None:
        self.assertEqual(gate.main([]), 2)


class Red(unittest.TestCase):
    """verdict.red(): what mutants.sh asks of a verdict."""
    V = {'results': {
        'x86_64': {
            'k': {'state': 'FAILED', 'tests': {'a': 'PASS', 'b': 'FAIL',
                                               'p.one': 'PASS', 'p.two': 'ERROR'}},
            'ok': {'state': 'ok', 'tests': {'a': 'PASS', 's': 'SKIP'}},
            'empty': {'state': 'FAILED', 'tests': {}},
            'gone': {'state': 'MISSING', 'tests': {}},
            'crash': {'state': 'FAILED', 'tests': {'a': 'PASS', '': 'ERROR'}}},
        'host': {'host_selftest': {'state': 'ok', 'tests': {'t': 'PASS'}}}}}

    def test_red_and_green(self) -> None:
        cases = {
            'k': ['k.b FAIL', 'k.p.two ERROR'],
            'k.b': ['k.b FAIL'],
            'k.a': [],
            'k.p': ['k.p.two ERROR'],          # a parameterised test: any parameter
            'k.p.one': [],
            'ok': [],
            'ok.s': [],
            'empty.x': ['suite empty ran no test'],
            'gone': ['suite gone did not run'],
            'never_listed.t': ['suite never_listed did not run'],
            'host_selftest': [],
            # the kernel died in crash.b (not listed): every expectation red
            'crash.b': ['suite crash crashed (ERROR)'],
            'crash.a': ['suite crash crashed (ERROR)'],
        }
        for expect, why in cases.items():
            with self.subTest(expect=expect):
                self.assertEqual(verdict.red(self.V, 'x86_64', expect), why)
        self.assertEqual(verdict.red(self.V, 'arm64', 'k'), ['suite k did not run'])

    def test_a_test_the_suite_does_not_have_is_unknown(self) -> None:
        # a misspelt test name would otherwise count as red: a fake kill
        with self.assertRaisesRegex(verdict.UnknownTest, 'ok ran to its end and has no test zz'):
            verdict.red(self.V, 'x86_64', 'ok.zz')


class Green(unittest.TestCase):
    """verdict.not_green(): a mutant's Green: <kind> lines."""
    V = {'results': {'x86_64': {
        'k1': {'kind': 'kunit', 'state': 'ok', 'tests': {'a': 'PASS'}},
        'k2': {'kind': 'kunit', 'state': 'ok', 'tests': {'a': 'SKIP'}},
        'e1': {'kind': 'e2e', 'state': 'ok', 'tests': {'a': 'PASS'}},
        'e2': {'kind': 'e2e', 'state': 'MISSING', 'tests': {}},
        'c1': {'kind': 'conf', 'state': 'FAILED', 'tests': {'overlay/018': 'FAIL'}}}}}

    def test_green_kind(self) -> None:
        self.assertEqual(verdict.not_green(self.V, 'x86_64', 'kunit'), [])

    def test_a_missing_suite_is_not_green(self) -> None:
        self.assertEqual(verdict.not_green(self.V, 'x86_64', 'e2e'), ['e2 MISSING'])

    def test_a_failed_suite_is_not_green(self) -> None:
        self.assertEqual(verdict.not_green(self.V, 'x86_64', 'conf'), ['c1 FAILED'])

    def test_the_suites_a_mutant_expects_red_are_not_asked(self) -> None:
        self.assertEqual(verdict.not_green(self.V, 'x86_64', 'e2e', besides=['e2']), [])
        self.assertEqual(verdict.not_green(self.V, 'x86_64', 'e2e', besides=['e1']), ['e2 MISSING'])

    def test_no_suite_of_the_kind_is_not_green(self) -> None:
        self.assertEqual(verdict.not_green(self.V, 'x86_64', 'tree'), ['no tree suite ran'])
        self.assertEqual(verdict.not_green(self.V, 'arm64', 'kunit'), ['no kunit suite ran'])


if __name__ == '__main__':
    unittest.main()


class MatrixBase(TempDirTest):
    """Results of cells <tree>/<arch>: each tree's results in
    <root>/<tree>/results, the host suites in <root>/results."""

    def setUp(self) -> None:
        super().setUp()
        self.suites = self.write('SUITES', 'k_one kunit\ne2e_a e2e x86_64\n'
                                 'mutants_apply tree\nhost_selftest host\n')
        self.results = self.path('root', 'results')
        self.put('results', 'host-selftest.json',
                 one_suite_doc('host_selftest', [('t.T.test', 'PASS')]))
        for tree in ('6.1', '6.12'):
            self.put(f'{tree}/results', 'tree-mutants_apply.json',
                     one_suite_doc('mutants_apply', [('ovl-x', 'PASS')]))
            for arch in ('x86_64', 'arm64'):
                self.put(f'{tree}/results', f'{arch}.json', kunit_doc({'k_one': [('t1', 'PASS')]}))
                self.put(f'{tree}/results', f'{arch}.rc', '0\n')
            self.put(f'{tree}/results', 'e2e-a-x86_64.json',
                     one_suite_doc('e2e_a', [('boot', 'PASS')]))

    def put(self, where: str, name: str, doc: object) -> None:
        path = self.path('root', where, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            if isinstance(doc, str):
                f.write(doc)
            else:
                json.dump(doc, f)

    CELLS = ['6.1/x86_64', '6.1/arm64', '6.12/x86_64']


class Matrix(MatrixBase):
    """gate.judge() on cells <tree>/<arch>."""

    def test_green_matrix(self) -> None:
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['verdict'], 'PASS', v['problems'])
        self.assertEqual(list(v['results']),
                         ['6.1/x86_64', '6.1/arm64', '6.12/x86_64', '6.1', '6.12', 'host'])
        self.assertEqual(sorted(v['results']['6.12/x86_64']), ['e2e_a', 'k_one'])
        self.assertEqual(sorted(v['results']['6.1/arm64']), ['k_one'])
        self.assertEqual(list(v['results']['6.12']), ['mutants_apply'])
        # 3 cells: k_one 3 + e2e_a 2 (x86_64 only); mutants_apply x 2 trees; host 1
        self.assertEqual(v['totals'], {'passed': 8, 'failed': 0, 'skipped': 0})
        table = gate.render(v).splitlines()
        self.assertIn('6.12/x86_64  e2e_a                                1     0     0  ok',
                      table)

    def test_one_tree_red(self) -> None:
        """A failure in one cell is named with its cell; the other tree's
        same suite stays ok."""
        self.put('6.12/results', 'x86_64.json', kunit_doc({'k_one': [('t1', 'FAIL')]}))
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['problems'], ['6.12/x86_64: k_one.t1 FAIL'])
        self.assertEqual(v['results']['6.1/x86_64']['k_one']['state'], 'ok')

    def test_a_tree_that_ran_nothing(self) -> None:
        """A tree whose patched tree could not be prepared left no results:
        each of its cells and its per-tree suites fail, by name."""
        shutil.rmtree(self.path('root', '6.12'))
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertIn('6.12/x86_64: kunit.py left no results (exit None); see '
                      + self.path('root', '6.12', 'results') + '/x86_64.log', v['problems'])
        self.assertIn({'arch': '6.12/x86_64', 'suite': 'e2e_a'}, v['missing'])
        self.assertIn({'arch': '6.12', 'suite': 'mutants_apply'}, v['missing'])
        self.assertNotIn('6.1', [m['arch'] for m in v['missing']])

    def test_mutants_apply_per_tree(self) -> None:
        self.put('6.1/results', 'tree-mutants_apply.json',
                 one_suite_doc('mutants_apply', [('ovl-x', 'FAIL')]))
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['problems'], ['6.1: mutants_apply.ovl-x FAIL'])

    def test_host_suites_once(self) -> None:
        """host-*.json in a tree's results dir is not read: host suites run
        once, in <root>/results."""
        os.remove(os.path.join(self.results, 'host-selftest.json'))
        self.put('6.1/results', 'host-selftest.json',
                 one_suite_doc('host_selftest', [('t.T.test', 'PASS')]))
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['missing'], [{'arch': 'host', 'suite': 'host_selftest'}])


class Conformance(MatrixBase):
    """Kind conf (conf-*-<arch>.json in a tree's results), expected only on
    the cells the SUITES line names."""

    def setUp(self) -> None:
        super().setUp()
        self.suites = self.write('SUITES', 'k_one kunit\nmutants_apply tree\nhost_selftest host\n'
                                 'fstests_overlay_default conf 6.1/x86_64\n')
        self.put('6.1/results', 'conf-fstests_overlay_default-x86_64.json',
                 one_suite_doc('fstests_overlay_default',
                               [('overlay/001', 'PASS'), ('overlay/005', 'SKIP')]))

    def test_expected_on_the_named_cell_only(self) -> None:
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['verdict'], 'PASS', v['problems'])
        self.assertEqual(v['results']['6.1/x86_64']['fstests_overlay_default']['kind'], 'conf')
        self.assertNotIn('fstests_overlay_default', v['results']['6.12/x86_64'])
        self.assertNotIn('fstests_overlay_default', v['results']['6.1/arm64'])

    def test_missing_on_its_cell_is_red(self) -> None:
        os.remove(self.path('root', '6.1/results', 'conf-fstests_overlay_default-x86_64.json'))
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['verdict'], 'FAIL')
        self.assertEqual(v['missing'], [{'arch': '6.1/x86_64', 'suite': 'fstests_overlay_default'}])

    def test_regression_is_red(self) -> None:
        self.put('6.1/results', 'conf-fstests_overlay_default-x86_64.json',
                 one_suite_doc('fstests_overlay_default', [('overlay/001', 'FAIL')]))
        v = gate.judge(self.results, self.suites, self.CELLS)
        self.assertEqual(v['problems'], ['6.1/x86_64: fstests_overlay_default.overlay/001 FAIL'])

    def test_not_judged_unless_asked(self) -> None:
        """KINDS without conf: neither read nor expected."""
        os.remove(self.path('root', '6.1/results', 'conf-fstests_overlay_default-x86_64.json'))
        v = gate.judge(self.results, self.suites, self.CELLS, ['kunit', 'tree', 'host'])
        self.assertEqual(v['verdict'], 'PASS', v['problems'])
