"""scripts/mutants_check.py (the mutants_apply suite, the content key, the
verdict record), on a toy tree with a toy series.  No kernel, no QEMU."""
import glob
import json
import os
import re
import shutil
import subprocess
import time

from common import REPO, TempDirTest, run

import mutants_check  # noqa: E402  (scripts/, on the path through common)

A_C = 'int a(void)\n{\n\tint x = 1;\n\n\treturn x;\n}\n'
MUTANT = """\
Mutant: a() returns 0
Expect: a_test

diff --git a/a.c b/a.c
--- a/a.c
+++ b/a.c
@@ -1,7 +1,7 @@
 /* a */
 int a(void)
 {
 \tint x = 1;
 
-\treturn x;
+\treturn 0;
 }
"""
GIT_ID = ['-c', 'user.name=U', '-c', 'user.email=u@example.org']
SCRIPT = os.path.join(REPO, 'scripts', 'mutants_check.py')


class MutantsApply(TempDirTest):
    """A toy patched tree: base (a.c), then two series commits; one kept
    mutant of a.c."""

    def git(self, *args: str) -> str:
        p = run(['git', '-C', self.path('linux'), *GIT_ID, *args])
        self.assertEqual(p.returncode, 0, p.stdout)
        return p.stdout

    def commit(self, msg: str, text: str) -> None:
        self.write('linux/a.c', text)
        self.git('commit', '-qam', msg)

    def setUp(self) -> None:
        super().setUp()
        self.write('linux/a.c', A_C)
        self.git('init', '-q')
        self.git('add', '.')
        self.git('commit', '-qm', 'import')
        self.git('tag', 'base')
        self.commit('a: a comment', '/* a */\n' + A_C)
        self.write('linux/b.c', '/* b */\n')
        self.git('add', 'b.c')
        self.git('commit', '-qm', 'b: another file')
        self.write('series', '0001-a-a-comment.patch\n0002-b-another-file.patch\n')
        self.write('mutants/a_test-returns-zero.patch', MUTANT)
        self.write('kunit/t/a_kunit.c', '/* test */\n')

    def check(self) -> tuple[int, str, dict[str, object]]:
        out = self.path('out.json')
        p = run([SCRIPT, 'apply', self.path('linux'), self.path('mutants'),
                 '--tests', 't', '--series', self.path('series'),
                 '--json', out], env={'KGATE_REPO': self.tmp})
        with open(out, encoding='utf-8') as f:
            return p.returncode, p.stdout, json.load(f)

    def test_applies(self) -> None:
        rc, out, doc = self.check()
        self.assertEqual(rc, 0, out)
        self.assertEqual(doc['name'], 'mutants_apply')
        self.assertEqual(doc['test_cases'], [{'name': 'a_test-returns-zero', 'status': 'PASS'}])
        self.assertIn('1 of 1 kept mutants apply; 1 not killed', out)

    def test_moved_context_is_red_and_names_the_patch(self) -> None:
        """A series patch that rewrites the mutant's lines: red, naming
        the mutant and that patch (the third of the series here)."""
        self.commit('c: x is two', '/* a */\n' + A_C.replace('x = 1', 'x = 2'))
        self.write('series', '0001-a-a-comment.patch\n0002-b-another-file.patch\n'
                   '0003-c-x-is-two.patch\n')
        rc, out, doc = self.check()
        self.assertEqual(rc, 1, out)
        case = doc['test_cases'][0]
        self.assertEqual((case['name'], case['status']), ('a_test-returns-zero', 'FAIL'))
        self.assertIn('its code last matched after 0002-b-another-file.patch; '
                      '0003-c-x-is-two.patch changed it', case['log'])
        self.assertIn('a_test-returns-zero', out)
        self.assertIn('0 of 1 kept mutants apply', out)

    def test_no_commit_has_the_code(self) -> None:
        self.write('mutants/a_test-returns-zero.patch', MUTANT.replace('int x = 1', 'int y = 1'))
        rc, _out, doc = self.check()
        self.assertEqual(rc, 1)
        self.assertIn('applies to no commit of the series', doc['test_cases'][0]['log'])

    def test_subject_without_a_series_file(self) -> None:
        self.commit('c: x is two', '/* a */\n' + A_C.replace('x = 1', 'x = 2'))
        rc, _out, doc = self.check()      # the series file names 2 of 3 commits
        self.assertEqual(rc, 1)
        self.assertIn('"b: another file"; "c: x is two" changed it', doc['test_cases'][0]['log'])

    def test_key_follows_the_code_and_the_tests(self) -> None:
        k1 = mutants_check.content_key(self.path('linux'), 't', repo=self.tmp)
        self.assertEqual(k1, mutants_check.content_key(self.path('linux'), 't', repo=self.tmp))
        self.write('kunit/t/a_kunit.c', '/* test, v2 */\n')
        k2 = mutants_check.content_key(self.path('linux'), 't', repo=self.tmp)
        self.commit('c: x is two', '/* a */\n' + A_C.replace('x = 1', 'x = 2'))
        k3 = mutants_check.content_key(self.path('linux'), 't', repo=self.tmp)
        cfg = self.write('kunitconfig', 'CONFIG_A=y\n')
        k4 = mutants_check.content_key(self.path('linux'), 't', [cfg], self.tmp)
        self.write('kunitconfig', 'CONFIG_A=y\nCONFIG_B=y\n')
        k5 = mutants_check.content_key(self.path('linux'), 't', [cfg], self.tmp)
        self.assertEqual(len({k1, k2, k3, k4, k5}), 5)

    def test_stale_count(self) -> None:
        """0 once make mutants recorded a kill on this key; 1 again after
        the code changed, and for a survivor."""
        key = mutants_check.content_key(self.path('linux'), 't', repo=self.tmp)
        p = run([SCRIPT, 'record', self.path('mutants'), 'a_test-returns-zero', 'killed',
                 'x86_64', key])
        self.assertEqual(p.returncode, 0, p.stdout)
        _rc, out, _doc = self.check()
        self.assertIn('; 0 not killed', out)
        with open(self.path('mutants', 'VERDICTS'), encoding='utf-8') as f:
            self.assertIn(f'a_test-returns-zero killed x86_64 {key}\n', f.read())
        self.commit('c: a comment below', '/* a */\n' + A_C + '/* end */\n')
        _rc, out, _doc = self.check()
        self.assertIn('; 1 not killed', out)
        key = mutants_check.content_key(self.path('linux'), 't', repo=self.tmp)
        mutants_check.record(self.path('mutants'), 'a_test-returns-zero', 'survived', 'x86_64', key)
        _rc, out, _doc = self.check()
        self.assertIn('; 1 not killed', out)


class MutantNames(TempDirTest):
    def test_no_patch_number_in_a_name(self) -> None:
        """A kept mutant is named by what it breaks or by the upstream
        commit it reverts, never by a patch number, which changes when a
        series is reordered (revert-0013 on 6.1 was revert-0011 on 6.12)."""
        for path in glob.glob(os.path.join(REPO, 'mutants', '*', '*.patch')):
            with self.subTest(mutant=os.path.relpath(path, REPO)):
                self.assertIsNone(re.search(r'-\d{4}-', os.path.basename(path)))


class ToyRepo(TempDirTest):
    """A copy of scripts/ and what mutants.sh reads, and a toy kernel tree
    with one commit: scripts/mutants.sh runs, but builds nothing as long as
    every mutant is refused before it is applied."""

    def setUp(self) -> None:
        super().setUp()
        self.repo = self.path('repo')
        for rel in ('scripts', os.path.join('e2e', 'lib')):
            shutil.copytree(os.path.join(REPO, rel), os.path.join(self.repo, rel),
                            ignore=shutil.ignore_patterns('__pycache__'))
        for rel in ('kunitconfig', os.path.join('kunit', 'SUITES'),
                    os.path.join('conformance', 'fstests', 'sections')):
            os.makedirs(os.path.dirname(os.path.join(self.repo, rel)), exist_ok=True)
            shutil.copy(os.path.join(REPO, rel), os.path.join(self.repo, rel))
        self.write('linux/f', 'f\n')
        for args in (['init', '-q'], ['add', 'f'], [*GIT_ID, 'commit', '-qm', 'base']):
            run(['git', '-C', self.path('linux'), *args])

    def mutant(self, name: str, header: str) -> str:
        return self.write(f'repo/mutants/6.1/{name}.patch', header + '\ndiff --git a/f b/f\n')

    def mutants_sh(self, *args: str, **env: str) -> 'subprocess.CompletedProcess[str]':
        return run([os.path.join(self.repo, 'scripts', 'mutants.sh'), *args],
                   env={'KTREE': self.path('linux'), 'BUILD': self.path('build'), **env},
                   cwd=self.repo)

    def key(self) -> str:
        return run([os.path.join(self.repo, 'scripts', 'mutants_check.py'), 'key',
                    self.path('linux'), '--tests', '6.1', '--config',
                    os.path.join(self.repo, 'kunitconfig')]).stdout.strip()


class MutantsExpectNamesASuite(ToyRepo):
    """scripts/mutants.sh refuses a mutant whose Expect: names no suite
    (a misspelt suite would not run, and a suite that did not run counts
    as red): BROKEN, recorded, before anything is applied or built."""

    def test_unknown_suite_is_broken(self) -> None:
        self.mutant('typo', 'Mutant: x\nExpect: overlayfs_fh\nExpect: virtio_mem_unplugg.a_case\n')
        p = self.mutants_sh('mutants/6.1/typo.patch')
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("BROKEN   typo: 'Expect: virtio_mem_unplugg.a_case' names no suite", p.stdout)
        self.assertTrue(p.stdout.rstrip().endswith('0 passed, 1 failed'), p.stdout)
        with open(os.path.join(self.repo, 'mutants', '6.1', 'VERDICTS'), encoding='utf-8') as f:
            self.assertRegex(f.read(), r'(?m)^typo broken x86_64 ')


class MutantsPlan(ToyRepo):
    """make mutants runs the stale mutants only, the cheapest first, within
    a budget; a mutant of another arch is not its business."""

    def setUp(self) -> None:
        super().setUp()
        self.mutant('c_faults', 'Mutant: c\nExpect: e2e_faults_virtio_mem.faults_sbm\n')
        self.mutant('a_e2e', 'Mutant: a\nExpect: e2e_virtio_mem\n')
        self.mutant('b_kunit', 'Mutant: b\nExpect: virtio_mem_conv\n')
        self.mutant('d_arm64', 'Mutant: d\nExpect: e2e_faults_virtio_mem.faults_pgtable\n'
                    'Arch: arm64\n')
        self.mdir = os.path.join(self.repo, 'mutants', '6.1')

    def plan(self, key: str, arch: str = 'x86_64', fresh: bool = False) -> list[str]:
        return [os.path.basename(m) for m in mutants_check.plan(self.mdir, key, arch, fresh)]

    def test_cheapest_first_and_arch(self) -> None:
        self.assertEqual(self.plan('k1'), ['b_kunit.patch', 'a_e2e.patch', 'c_faults.patch'])
        self.assertEqual(self.plan('k1', 'arm64'),
                         ['b_kunit.patch', 'a_e2e.patch', 'c_faults.patch', 'd_arm64.patch'])

    def test_killed_on_this_key_is_not_stale(self) -> None:
        mutants_check.record(self.mdir, 'b_kunit', 'killed', 'x86_64', 'k1')
        mutants_check.record(self.mdir, 'a_e2e', 'survived', 'x86_64', 'k1')
        mutants_check.record(self.mdir, 'c_faults', 'killed', 'x86_64', 'k0')
        self.assertEqual(self.plan('k1'), ['a_e2e.patch', 'c_faults.patch'])
        self.assertEqual(self.plan('k1', fresh=True),
                         ['b_kunit.patch', 'a_e2e.patch', 'c_faults.patch'])

    def test_nothing_stale_says_so_at_once(self) -> None:
        key = self.key()
        for name in ('a_e2e', 'b_kunit', 'c_faults'):
            mutants_check.record(self.mdir, name, 'killed', 'x86_64', key)
        p = self.mutants_sh()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('nothing stale', p.stdout)
        self.assertTrue(p.stdout.rstrip().endswith('0 passed, 0 failed'), p.stdout)

    def test_budget_stops_and_lists_the_rest(self) -> None:
        # every toy mutant is refused (its diff does not apply): a few ms
        # each; a budget of 6 ms is used up after the first
        p = self.mutants_sh(MUTANTS_BUDGET='0.0001')
        self.assertIn('3 to run on x86_64', p.stdout)
        self.assertRegex(p.stdout, r'BROKEN   b_kunit: does not apply')
        self.assertNotIn('BROKEN   a_e2e', p.stdout)
        self.assertIn('2 left, still stale: a_e2e c_faults', p.stdout)

    def test_budget_of_minutes_lasts_minutes(self) -> None:
        # MUTANTS_BUDGET=10: no mutant starts after ten minutes from now,
        # so every toy mutant runs (mawk's printf "%d" once made it 2 s)
        t0 = time.time()
        p = self.mutants_sh(MUTANTS_BUDGET='10')
        m = re.search(r'3 to run on x86_64, the cheapest first, within 10 min '
                      r'\(none starts after (\d\d):(\d\d):(\d\d)\)', p.stdout)
        self.assertIsNotNone(m, p.stdout)
        assert m is not None
        lt = time.localtime(t0)
        until = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
        now = lt.tm_hour * 3600 + lt.tm_min * 60 + lt.tm_sec
        self.assertIn((until - now) % 86400, range(599, 602), p.stdout)
        for name in ('b_kunit', 'a_e2e', 'c_faults'):
            self.assertIn(f'BROKEN   {name}: ', p.stdout)
        self.assertNotIn('left, still stale', p.stdout)

    def test_other_arch_named_is_skipped(self) -> None:
        p = self.mutants_sh('mutants/6.1/d_arm64.patch')
        self.assertIn('skipped  d_arm64: runs on arm64 only', p.stdout)
        self.assertTrue(p.stdout.rstrip().endswith('0 passed, 0 failed'), p.stdout)


class SharedMutants(TempDirTest):
    """mutants/all/: a mutant of code several trees share, written once;
    each tree whose Trees: line names it takes it."""

    def test_a_tree_takes_its_own_and_the_shared_that_name_it(self) -> None:
        self.write('m/6.12/own.patch', 'Mutant: o\nExpect: virtio_mem_conv\n\ndiff --git a/f b/f\n')
        self.write('m/all/both.patch', 'Mutant: b\nExpect: virtio_mem_conv\nTrees: 6.12 7.3\n\n'
                   'diff --git a/f b/f\n')
        self.write('m/all/other.patch', 'Mutant: x\nExpect: virtio_mem_conv\nTrees: 6.1\n\n'
                   'diff --git a/f b/f\n')
        self.write('m/all/none.patch', 'Mutant: n\nExpect: virtio_mem_conv\n\ndiff --git a/f b/f\n')
        names = [os.path.relpath(m, self.path('m'))
                 for m in mutants_check.tree_mutants(self.path('m', '6.12'))]
        self.assertEqual(names, ['6.12/own.patch', 'all/both.patch'])
        names = [os.path.relpath(m, self.path('m')) for m in mutants_check.tree_mutants(
            self.path('m', '6.1'))]
        self.assertEqual(names, ['all/other.patch'])

    def test_the_committed_shared_mutants_name_trees(self) -> None:
        for m in glob.glob(os.path.join(REPO, 'mutants', 'all', '*.patch')):
            trees = ' '.join(mutants_check.header(m).get('Trees', [])).split()
            self.assertTrue(trees, f'{m}: no Trees: line')
            self.assertFalse(set(trees) - {'6.1', '6.12', '7.3'}, m)
            for t in trees:
                self.assertFalse(os.path.exists(os.path.join(REPO, 'mutants', t,
                                                             os.path.basename(m))),
                                 f'{m} is also in mutants/{t}/')


class SharedMutantNamed(ToyRepo):
    def test_needs_a_tree_it_names(self) -> None:
        self.write('repo/mutants/all/s.patch', 'Mutant: s\nExpect: virtio_mem_conv\n'
                   'Trees: 6.12 7.3\n\ndiff --git a/f b/f\n')
        p = self.mutants_sh('mutants/all/s.patch')
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn('is shared: name one of its trees (6.12 7.3) with KGATE_TREE', p.stdout)
        p = self.mutants_sh('mutants/all/s.patch', KGATE_TREE='6.1')
        self.assertEqual(p.returncode, 2, p.stdout)
