"""The gate's plumbing: make targets, scripts/e2e.sh, scripts/kunit.sh's
exit code file.  Stand-in end-to-end runs (shell scripts), no kernel."""
import glob
import importlib.util
import io
import json
import os
import re
import shlex
import unittest

from common import REPO, TempDirTest, run

FAKE_RUN = """\
#!/bin/sh
# a stand-in end-to-end run: writes its results, exits {rc}
echo run {name} "$1"
printf '{{"name": "e2e_{name}", "sub_groups": [], "test_cases": [{{"name": "t", "status": "{status}"}}]}}' \\
	>"$BUILD/results/e2e-{name}-$1.json"
exit {rc}
"""


class E2ERuns(TempDirTest):
    """scripts/e2e.sh and make e2e-<arch>: every run counts."""

    def setUp(self) -> None:
        super().setUp()
        os.makedirs(self.path('e2e', 'lib'))
        os.makedirs(self.path('build', 'results'))
        self.env = {'BUILD': self.path('build'), 'E2E_DIR': self.path('e2e')}

    def runs(self, **rcs: int) -> None:
        """One stand-in run per name: exit code rc (0: PASS, else FAIL)."""
        for name, rc in rcs.items():
            self.write(f'e2e/{name}/run', FAKE_RUN.format(
                name=name, rc=rc, status='PASS' if rc == 0 else 'FAIL'), 0o755)

    def e2e_sh(self, *args: str) -> tuple[int, str]:
        p = run([os.path.join(REPO, 'scripts', 'e2e.sh'), *args, 'x86_64'], env=self.env)
        return p.returncode, p.stdout

    def test_a_failure_before_the_last_run_counts(self) -> None:
        self.runs(a=1, b=0)                 # the last run (b) passes
        rc, out = self.e2e_sh()
        self.assertEqual(rc, 1, out)
        self.assertIn('e2e: x86_64: 2 run(s), failed: a', out)
        self.assertIn('run b x86_64', out)  # ... and every run ran

    def test_all_pass(self) -> None:
        self.runs(a=0, b=0)
        rc, out = self.e2e_sh()
        self.assertEqual(rc, 0, out)
        self.assertIn('e2e: x86_64: 2 run(s), all passed', out)

    def test_no_runs(self) -> None:
        self.assertEqual(self.e2e_sh()[0], 1)

    def test_stale_results_removed(self) -> None:
        """A run that dies before writing leaves no older results behind."""
        self.write('e2e/c/run', '#!/bin/sh\nexit 3\n', 0o755)
        stale = self.write('build/results/e2e-c-x86_64.json', '{"name": "e2e_c"}')
        self.assertEqual(self.e2e_sh()[0], 1)
        self.assertFalse(os.path.exists(stale))

    def test_reuse(self) -> None:
        """--reuse: a passed run is reused with the same inputs, a failed
        one reruns; a change of the run's files reruns it."""
        self.runs(a=1, b=0)
        # the kernel tree (scripts/scope.py keys it) and its .config
        self.write('build/linux/mm/x.c', 'x 1\n')
        for args in (['init', '-q'], ['add', '.'],
                     ['-c', 'user.name=U', '-c', 'user.email=u@e.org', 'commit', '-qm', 'x']):
            run(['git', '-C', self.path('build', 'linux'), *args])
        self.write('build/x86_64/.config', 'CONFIG_X=y\n')
        self.e2e_sh('--reuse')
        rc, out = self.e2e_sh('--reuse')
        self.assertEqual(rc, 1)
        self.assertIn('run a x86_64', out)
        self.assertNotIn('run b x86_64', out)
        self.assertIn('e2e: b x86_64: reused: passed on a tree the same where it looks (it covers the whole tree)', out)
        with open(self.path('build', 'results', 'e2e-b-x86_64.json'), encoding='utf-8') as f:
            self.assertEqual(json.load(f)['name'], 'e2e_b')
        self.write('e2e/b/data', 'changed')
        self.assertIn('run b x86_64', self.e2e_sh('--reuse')[1])
        self.assertNotIn('run b x86_64', self.e2e_sh('--reuse')[1])
        self.write('build/linux/mm/x.c', 'x 2\n')    # another kernel (not committed)
        self.assertIn('run b x86_64', self.e2e_sh('--reuse')[1])
        self.assertNotIn('run b x86_64', self.e2e_sh('--reuse')[1])
        self.write('build/x86_64/.config', 'CONFIG_X=n\n')      # another config
        self.assertIn('run b x86_64', self.e2e_sh('--reuse')[1])
        self.assertIn('run b x86_64', run([os.path.join(REPO, 'scripts', 'e2e.sh'),
                                           '--reuse', 'x86_64'],
                                          env={**self.env, 'FULL': '1'}).stdout)
        self.assertIn('run b x86_64', run([os.path.join(REPO, 'scripts', 'e2e.sh'),
                                           '--reuse', 'x86_64'],
                                          env={**self.env, 'FRESH': '1'}).stdout)

    FLAKY_RUN = """\
#!/bin/sh
# fails the first {fails} time(s) it runs, then passes
n=$(cat "$BUILD/n" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$BUILD/n"
if [ $n -le {fails} ]; then st=FAIL; rc=1; else st=PASS; rc=0; fi
printf '{{"name": "e2e_a", "sub_groups": [], "test_cases": [{{"name": "t", "status": "%s"}}, {{"name": "u", "status": "PASS"}}]}}' $st \\
	>"$BUILD/results/e2e-a-$1.json"
exit $rc
"""

    def flaky(self, fails: int, known: str = '') -> tuple[int, str, dict[str, str]]:
        self.write('e2e/a/run', self.FLAKY_RUN.format(fails=fails), 0o755)
        self.write('FLAKY', known)
        os.makedirs(self.path('build', 'results'), exist_ok=True)
        p = run([os.path.join(REPO, 'scripts', 'e2e.sh'), 'x86_64'],
                env={**self.env, 'KGATE_FLAKY': self.path('FLAKY')})
        with open(self.path('build', 'results', 'e2e-a-x86_64.json'), encoding='utf-8') as f:
            doc = json.load(f)
        return p.returncode, p.stdout, {tc['name']: tc['status'] for tc in doc['test_cases']}

    def test_fails_then_passes_is_flaky_and_red(self) -> None:
        rc, out, st = self.flaky(1)
        self.assertEqual(rc, 1, out)
        self.assertIn('e2e: a x86_64: flaky e2e_a.t', out)
        self.assertEqual(st, {'t': 'FAIL', 'u': 'PASS'})

    def test_known_flaky_is_green_and_named(self) -> None:
        rc, out, st = self.flaky(1, 'e2e_a.t  a timer that TCG sometimes starves\n')
        self.assertEqual(rc, 0, out)
        self.assertIn('e2e: a x86_64: known flaky e2e_a.t: a timer that TCG sometimes starves', out)
        self.assertEqual(st, {'t': 'PASS', 'u': 'PASS'})

    def test_fails_twice_is_red(self) -> None:
        rc, out, st = self.flaky(2, 'e2e_a.t  listed, but it failed twice\n')
        self.assertEqual(rc, 1, out)
        self.assertIn('running it once more', out)
        self.assertNotIn('flaky', out.replace('listed', ''))
        self.assertEqual(st['t'], 'FAIL')

    def make_e2e(self) -> tuple[int, str]:
        # deps are "installed" in this build dir: the stamp is newer than deps.sh
        self.write('build/.deps-ok', '')
        suites = self.write('SUITES', 'e2e_a e2e\ne2e_b e2e\n')
        p = run(['make', '-s', 'e2e-x86_64', f'BUILD={self.path("build")}',
                 f'SUITES={suites}', 'CELLS=6.1/x86_64'], env=self.env)
        return p.returncode, p.stdout

    def test_make_e2e_every_run_counts(self) -> None:
        self.runs(a=1, b=0)
        rc, out = self.make_e2e()
        self.assertNotEqual(rc, 0, out)
        self.assertIn('FAIL 6.1/x86_64: e2e_a.t FAIL', out)
        self.runs(a=0, b=0)
        rc, out = self.make_e2e()
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.endswith('2 passed, 0 failed, 0 skipped\n'), out)


class MakeCallsGate(TempDirTest):
    def test_every_target_judges_its_kind(self) -> None:
        """make all, kunit-<arch>, e2e-<arch> judge their kind of results on
        the cells of the run (scripts/cells.sh judge), make test runs the
        gate (make -n: nothing runs)."""
        build = self.path('b')
        p = run(['make', '-n', 'all', 'kunit-x86_64', 'kunit-arm64', 'e2e-x86_64',
                 'e2e-arm64', 'test', f'BUILD={build}'])
        self.assertEqual(p.returncode, 0, p.stdout)
        calls = re.findall(r'scripts/cells.sh judge (\S+)( \S+)?', p.stdout)
        self.assertEqual([(k, a.strip()) for k, a in calls],
                         [('kunit', ''), ('kunit', '$a'), ('kunit', '$a'), ('e2e', '$a'),
                          ('e2e', '$a')])
        self.assertIn('\nscripts/gate.sh\n', p.stdout)

    def test_cells_sh_judges_build_results(self) -> None:
        """scripts/cells.sh judge reads $BUILD/results (and each tree's
        $BUILD/<tree>/results), against $SUITES: here both cells of
        6.12 have left nothing, and the verdict names each."""
        build = self.path('b')
        suites = self.write('SUITES', 's kunit\n')
        p = run([os.path.join(REPO, 'scripts', 'cells.sh'), 'judge', 'kunit'],
                env={'BUILD': build, 'SUITES': suites, 'TREES': '6.12'})
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('FAIL 6.12/x86_64: kunit.py left no results (exit None); see '
                      f'{build}/6.12/results/x86_64.log', p.stdout)
        self.assertIn('FAIL 6.12/arm64: kunit.py left no results', p.stdout)
        self.assertTrue(os.path.exists(os.path.join(build, 'results', 'verdict.json')))


class SelftestRecorder(unittest.TestCase):
    """scripts/selftest.py counts a failed subtest as a failure (its exit
    code and its "N failed" are what the gate reads)."""

    def test_failed_subtest_counts(self) -> None:
        spec = importlib.util.spec_from_file_location(
            'selftest', os.path.join(REPO, 'scripts', 'selftest.py'))
        assert spec and spec.loader
        selftest = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(selftest)

        class Sample(unittest.TestCase):
            def test_sub(self) -> None:
                for i in range(3):
                    with self.subTest(i=i):
                        self.assertNotEqual(i, 1)

            def test_plain(self) -> None:
                pass

        result = unittest.TextTestRunner(stream=io.StringIO(), resultclass=selftest.Recorder).run(
            unittest.defaultTestLoader.loadTestsFromTestCase(Sample))
        self.assertEqual(sorted(c.status for c in result.cases), ['FAIL', 'PASS'])
        self.assertIn('(i=1)', [c.name for c in result.cases if c.status == 'FAIL'][0])


class Cells(TempDirTest):
    """scripts/cells.sh list: the cells (tree x arch) of a run."""

    def cells(self, **env: str) -> tuple[int, list[str]]:
        p = run([os.path.join(REPO, 'scripts', 'cells.sh'), 'list'], env=env)
        return p.returncode, p.stdout.splitlines()

    def test_default_is_every_default_tree_on_both_arches(self) -> None:
        """7.3 only when named: its cells do not fit the cold gate's budget."""
        self.assertEqual(self.cells(),
                         (0, ['6.1/x86_64', '6.1/arm64', '6.12/x86_64', '6.12/arm64']))
        self.assertEqual(self.cells(ARCHES='x86_64'), (0, ['6.1/x86_64', '6.12/x86_64']))

    def test_full_matrix_is_one_variable(self) -> None:
        self.assertEqual(self.cells(CELLS='all'),
                         (0, ['6.1/x86_64', '6.1/arm64', '6.12/x86_64', '6.12/arm64',
                              '7.3/x86_64', '7.3/arm64']))
        self.assertEqual(self.cells(TREES='7.3'), (0, ['7.3/x86_64', '7.3/arm64']))

    def test_trees_and_arches_give_their_product(self) -> None:
        self.assertEqual(self.cells(TREES='6.12'), (0, ['6.12/x86_64', '6.12/arm64']))
        self.assertEqual(self.cells(ARCHES='arm64'), (0, ['6.1/arm64', '6.12/arm64']))
        self.assertEqual(self.cells(TREES='6.1', ARCHES='x86_64'), (0, ['6.1/x86_64']))

    def test_one_cell(self) -> None:
        """How a CI matrix runs one cell per job."""
        self.assertEqual(self.cells(CELLS='6.12/arm64'), (0, ['6.12/arm64']))

    def test_a_checkout_has_one_tree(self) -> None:
        """make ... TREE=<checkout>: bare arches, ARCHES (default both)."""
        self.assertEqual(self.cells(KGATE_USER_TREE='/x'), (0, ['x86_64', 'arm64']))
        self.assertEqual(self.cells(KGATE_USER_TREE='/x', ARCHES='arm64'), (0, ['arm64']))

    def test_unknown_cells_are_refused(self) -> None:
        for env, word in [({'CELLS': '6.2/x86_64'}, '6.2/x86_64'),
                          ({'CELLS': '6.1'}, '6.1'),
                          ({'CELLS': '6.1/mips'}, '6.1/mips'),
                          ({'TREES': '5.10'}, '5.10/x86_64'),
                          ({'ARCHES': 'riscv'}, '6.1/riscv')]:
            p = run([os.path.join(REPO, 'scripts', 'cells.sh'), 'list'], env=env)
            self.assertEqual(p.returncode, 2, env)
            self.assertIn(f"unknown cell '{word}' (a cell is tree/arch; trees: 6.1 6.12 7.3; "
                          'arches: x86_64 arm64)', p.stdout)
        p = run([os.path.join(REPO, 'scripts', 'cells.sh'), 'list'],
                env={'KGATE_USER_TREE': '/x', 'ARCHES': 'riscv'})
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown arch 'riscv'", p.stdout)

    def test_debug_cells_use_the_same_parser(self) -> None:
        """make test-debug's CELLS go through kgate_cells too: an unknown
        one stops it before anything is built."""
        p = run([os.path.join(REPO, 'scripts', 'test-debug.sh')],
                env={'CELLS': '6.1/x86_64 7.0/x86_64', 'DEBUG_BUILD': self.path('dbg')})
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown cell '7.0/x86_64' (a cell is tree/arch; trees: 6.1 6.12 7.3; "
                      'arches: x86_64 arm64)', p.stdout)
        self.assertNotIn('==', p.stdout)

    def test_each_cell_gets_its_tree_and_arch(self) -> None:
        """cells.sh each: the one loop of the per-cell targets (mutants,
        fuzz, soak, buildcheck, amcheck): the script once per cell, with
        that cell's KGATE_TREE, KGATE_ARCH and BUILD."""
        p = run([os.path.join(REPO, 'scripts', 'cells.sh'), 'each', 'nonexistent.sh'],
                env={'CELLS': '6.1/x86_64', 'BUILD': self.path('b')})
        self.assertEqual(p.returncode, 1)
        show = self.write('show.sh', '#!/bin/sh\necho "$KGATE_TREE $KGATE_ARCH $BUILD $*"\n',
                          mode=0o755)
        p = run([os.path.join(REPO, 'scripts', 'cells.sh'), 'each', show, 'x'],
                env={'CELLS': '6.12/arm64 6.1/x86_64', 'BUILD': self.path('b')})
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(p.stdout.splitlines(), [
            '== 6.12/arm64', f'6.12 arm64 {self.path("b")}/6.12 x',
            '== 6.1/x86_64', f'6.1 x86_64 {self.path("b")}/6.1 x'])

    def test_old_cell_settings_refused(self) -> None:
        """The per-target cell settings of before are refused, each with
        its new name; the one-cell targets default to 6.1/x86_64."""
        for old, new in [('MUTANT_ARCH=arm64', 'ARCHES='), ('FUZZ_TREE=6.12', 'TREES='),
                         ('FUZZ_ARCH=arm64', 'ARCHES='), ('SOAK_ARCH=arm64', 'ARCHES='),
                         ('DEBUG_CELLS=6.1/arm64', 'CELLS='), ('ARCH=arm64', 'ARCHES=')]:
            with self.subTest(old=old):
                p = run(['make', '-n', 'mutants', old])
                self.assertNotEqual(p.returncode, 0)
                self.assertIn(f'{old.split("=")[0]}= is now {new} (every target takes its cells '
                              'from CELLS=, TREES=, ARCHES=)', p.stdout)
        for target, want in [('soak', '6.1|x86_64'), ('mutants', '|x86_64'), ('test', '|')]:
            with self.subTest(target=target):
                p = run(['make', '-n', target, '--eval', f'{target}: envtest', '--eval',
                         'envtest: ; +@echo "$$TREES|$$ARCHES"'])
                self.assertEqual([ln for ln in p.stdout.splitlines()
                                  if '|' in ln and not ln.startswith('echo')], [want])

    def test_an_arch_no_cell_has(self) -> None:
        p = run([os.path.join(REPO, 'scripts', 'cells.sh'), 'kunit', 'arm64'],
                env={'CELLS': '6.12/x86_64'})
        self.assertEqual(p.returncode, 2)
        self.assertIn("cells: no cell of this run has arch 'arm64' (cells: 6.12/x86_64)",
                      p.stdout)


class ExitCodeFile(TempDirTest):
    def test_kunit_sh_writes_rc_on_an_early_failure(self) -> None:
        """scripts/kunit.sh leaves <arch>.rc on every exit (here: no tree)."""
        build = self.path('build')
        p = run([os.path.join(REPO, 'scripts', 'kunit.sh'), 'x86_64'],
                env={'BUILD': build, 'KTREE': self.path('no-tree')})
        self.assertEqual(p.returncode, 1, p.stdout)
        with open(os.path.join(build, 'results', 'x86_64.rc'), encoding='utf-8') as f:
            self.assertEqual(f.read(), '1\n')

    def test_kunit_sh_logs_a_failed_build(self) -> None:
        """A build that fails says so in <arch>.log, the line scripts/mutants.sh
        reads to call a mutant broken rather than killed (a failed build
        prints no "Error" when, e.g., the linker fails)."""
        build, tree = self.path('build'), self.path('tree')
        os.makedirs(os.path.join(tree, 'tools', 'testing', 'kunit'))
        with open(os.path.join(tree, 'tools', 'testing', 'kunit', 'kunit.py'), 'w',
                  encoding='utf-8') as f:
            f.write('import sys\nprint("ld: something went wrong")\nsys.exit(1)\n')
        p = run([os.path.join(REPO, 'scripts', 'kunit.sh'), 'x86_64'],
                env={'BUILD': build, 'KTREE': tree, 'KGATE_LOCK': self.path('lock')})
        self.assertEqual(p.returncode, 1, p.stdout)
        with open(os.path.join(build, 'results', 'x86_64.log'), encoding='utf-8') as f:
            log = f.read().splitlines()
        self.assertIn('kunit: x86_64 build failed; see '
                      + os.path.join(build, 'results', 'x86_64.log'), log)

    def test_kunit_sh_reuse(self) -> None:
        """--reuse: a passed KUnit run is reused while the kernel's inputs
        and the run's arguments are the same; a failed one, a run without
        --reuse, FRESH=1 and other arguments run again."""
        build, tree = self.path('build'), self.path('tree')
        kunit = self.write('tree/tools/testing/kunit/kunit.py', """\
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
if sys.argv[1] == 'config':
    bdir = [a.split('=', 1)[1] for a in sys.argv if a.startswith('--build_dir=')][0]
    with open(os.path.join(bdir, '.config'), 'w') as f:
        f.write('CONFIG_KUNIT=y\\n')
if sys.argv[1] == 'exec':
    with open(os.path.join(here, 'calls'), 'a') as f:
        f.write('exec\\n')
    out = [a.split('=', 1)[1] for a in sys.argv if a.startswith('--json=')][0]
    with open(out, 'w') as f:
        json.dump({'name': 'k', 'sub_groups': [], 'test_cases': []}, f)
    sys.exit(int(os.environ.get('FAKE_KUNIT_RC', '0')))
""")
        here = os.path.dirname(kunit)
        self.write('tree/Makefile', 'vmlinux:\n\t@true\n')
        for cmd in (['init', '-q'], ['add', '.'], ['-c', 'user.name=t', '-c', 'user.email=t@t',
                                                  'commit', '-qm', 'tree']):
            self.assertEqual(run(['git', '-C', tree, *cmd]).returncode, 0)
        env = {'BUILD': build, 'KTREE': tree, 'KGATE_LOCK': self.path('lock')}

        def execs(*args: str, **more: str) -> int:
            calls = os.path.join(here, 'calls')
            if os.path.exists(calls):
                os.unlink(calls)
            p = run([os.path.join(REPO, 'scripts', 'kunit.sh'), *args], env={**env, **more})
            with open(os.path.join(build, 'results', 'x86_64.log'), encoding='utf-8') as f:
                log = f.read()
            self.assertTrue(os.path.exists(os.path.join(build, 'results', 'x86_64.json')),
                            p.stdout + log)
            if not os.path.exists(calls):
                return 0
            with open(calls, encoding='utf-8') as f:
                return len(f.read().splitlines())

        self.assertEqual(execs('--reuse', 'x86_64'), 1)
        self.assertEqual(execs('--reuse', 'x86_64'), 0)    # reused
        self.assertEqual(execs('x86_64'), 1)               # not asked to reuse
        self.assertEqual(execs('--reuse', 'x86_64', FRESH='1'), 1)
        self.assertEqual(execs('--reuse', 'x86_64', 'foo.*'), 1)   # other arguments
        self.assertEqual(execs('x86_64', FAKE_KUNIT_RC='1'), 1)
        self.assertEqual(execs('--reuse', 'x86_64', FAKE_KUNIT_RC='1'), 1)  # failures rerun
        self.assertEqual(execs('--reuse', 'x86_64'), 1)
        self.assertEqual(execs('--reuse', 'x86_64'), 0)
        with open(os.path.join(build, 'results', 'x86_64.rc'), encoding='utf-8') as f:
            self.assertEqual(f.read(), '0\n')

    def test_kunit_sh_merges_a_fragment_over_the_gate_config(self) -> None:
        """KGATE_KUNITCONFIG_EXTRA (the debug kernel): kunit.py refuses two
        fragments that set one option differently, so kunit.sh passes one
        file, the gate's kunitconfig with the options the fragment sets
        replaced by the fragment's lines."""
        build, tree = self.path('build'), self.path('tree')
        self.write('tree/tools/testing/kunit/kunit.py', """\
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
if sys.argv[1] == 'config':
    cfgs = [a.split('=', 1)[1] for a in sys.argv if a.startswith('--kunitconfig=')]
    with open(os.path.join(here, 'seen'), 'w') as f:
        f.write(f'{len(cfgs)}\\n')
        with open(cfgs[0]) as c:
            f.write(c.read())
sys.exit(1)
""")
        frag = self.write('frag', 'CONFIG_KALLSYMS=y\nCONFIG_KASAN=y\n')
        run([os.path.join(REPO, 'scripts', 'kunit.sh'), 'x86_64'],
            env={'BUILD': build, 'KTREE': tree, 'KGATE_LOCK': self.path('lock'),
                 'KGATE_KUNITCONFIG_EXTRA': frag})
        with open(self.path('tree/tools/testing/kunit/seen'), encoding='utf-8') as f:
            seen = f.read().splitlines()
        self.assertEqual(seen[0], '1')
        self.assertEqual(seen[-2:], ['CONFIG_KALLSYMS=y', 'CONFIG_KASAN=y'])
        self.assertNotIn('# CONFIG_KALLSYMS is not set', seen)
        with open(os.path.join(REPO, 'kunitconfig'), encoding='utf-8') as f:
            gate_lines = f.read().splitlines()
        self.assertIn('# CONFIG_KALLSYMS is not set', gate_lines)
        self.assertEqual(len(seen) - 1, len(gate_lines) - 1 + 2)

    def test_kunit_sh_is_the_one_writer(self) -> None:
        """No other script or make rule writes an .rc file."""
        files = ['Makefile'] + [os.path.join('scripts', f) for f in os.listdir(
            os.path.join(REPO, 'scripts')) if f.endswith('.sh') and f != 'kunit.sh']
        for rel in files:
            with open(os.path.join(REPO, rel), encoding='utf-8') as f:
                for n, line in enumerate(f, 1):
                    if line.lstrip().startswith('#'):
                        continue
                    self.assertIsNone(re.search(r'>\s*\S*\.rc\b', line),
                                      f'{rel}:{n} writes an .rc file: {line.strip()}')


class ConfigFragments(unittest.TestCase):
    """Each config fragment names an option once: of two lines for one
    option the later wins, so a "# CONFIG_X is not set" further down
    silently undoes a CONFIG_X=y added above it (and kunit.py, checking
    .config against the fragment, agrees with the later line)."""

    FRAGMENTS = sorted(['kunitconfig'] +
                       [os.path.relpath(p, REPO) for p in
                        glob.glob(os.path.join(REPO, 'debug', 'kunitconfig*')) +
                        glob.glob(os.path.join(REPO, 'kunit', '**', '.kunitconfig'),
                                  recursive=True)])
    OPTION = re.compile(r'^(?:(CONFIG_\w+)=|# (CONFIG_\w+) is not set$)')

    def test_every_option_once(self) -> None:
        for frag in self.FRAGMENTS:
            seen: dict[str, int] = {}
            with open(os.path.join(REPO, frag), encoding='utf-8') as f:
                for n, line in enumerate(f, 1):
                    m = self.OPTION.match(line.rstrip('\n'))
                    if not m:
                        continue
                    opt = m.group(1) or m.group(2)
                    self.assertFalse(opt in seen, f'{frag}:{n}: {opt} again (first at line {seen.get(opt)})')
                    seen[opt] = n
            self.assertGreater(len(seen), 0, frag)
        self.assertGreaterEqual(len(self.FRAGMENTS), 6, self.FRAGMENTS)


class LibSh(TempDirTest):
    def test_facts(self) -> None:
        p = run(['bash', '-c', '. scripts/lib.sh && echo "$KGATE_ARCHES" && '
                 'for a in $KGATE_ARCHES; do echo "$a [$(arch_cross $a)] $(arch_cc $a) '
                 '$(arch_cc_pkg $a)"; done && ! arch_known riscv && arch_known arm64'])
        self.assertEqual(p.stdout, 'x86_64 arm64\n'
                         'x86_64 [] gcc gcc\n'
                         'arm64 [aarch64-linux-gnu-] aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu\n')
        self.assertEqual(p.returncode, 0)

    def test_build_env(self) -> None:
        p = run(['bash', '-c', '. scripts/lib.sh && kgate_build_env && '
                 'echo "$CCACHE_BASEDIR $CCACHE_NOHASHDIR $KBUILD_BUILD_TIMESTAMP '
                 '$KBUILD_BUILD_USER $KBUILD_BUILD_HOST"'],
                env={k: '' for k in ('CCACHE_BASEDIR', 'KBUILD_BUILD_TIMESTAMP')})
        self.assertEqual(p.stdout, f'{os.path.dirname(REPO)} 1 2023-01-01 kgate kgate\n')


class Syntax(TempDirTest):
    def test_shell(self) -> None:
        scripts = [os.path.join('scripts', f) for f in sorted(os.listdir(
            os.path.join(REPO, 'scripts'))) if f.endswith('.sh')] + ['.ci/run']
        for rel in scripts:
            with self.subTest(script=rel):
                p = run(['bash', '-n', rel])
                self.assertEqual(p.returncode, 0, p.stdout)

    def test_python(self) -> None:
        files = [os.path.join(d, f) for d in ('scripts', 'e2e/lib/e2e', 'e2e/virtio_mem')
                 for f in sorted(os.listdir(os.path.join(REPO, d))) if f.endswith('.py')]
        files += ['e2e/overlayfs/run', 'e2e/virtio_mem/run', 'e2e/virtio_mem/bench']
        code = ('import sys\nfor f in sys.argv[1:]:\n'
                '    compile(open(f, encoding="utf-8").read(), f, "exec")\n')
        p = run(['python3', '-c', code, *files])
        self.assertEqual(p.returncode, 0, p.stdout + ' '.join(map(shlex.quote, files)))
