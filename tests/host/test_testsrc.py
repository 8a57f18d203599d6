"""scripts/testsrc.py: each test file once in kunit/, the patch that adds it,
and "make series" splitting a tree's commits back into the two."""
import os

from common import REPO, TempDirTest, run

import testsrc   # scripts/testsrc.py

GLUE = """\
From: T <t@example.org>
Subject: [PATCH] a: add KUnit tests

---
diff --git a/Kbuild b/Kbuild
new file mode 100644
--- /dev/null
+++ b/Kbuild
@@ -0,0 +1 @@
+obj-y += a_kunit.o
"""
CARRIES = GLUE + """\
diff --git a/a_kunit.c b/a_kunit.c
new file mode 100644
--- /dev/null
+++ b/a_kunit.c
@@ -0,0 +1 @@
+/* test */
"""
DELTA = """\
--- a/b/c_kunit.c
+++ b/b/c_kunit.c
@@ -1,3 +1,3 @@
 one
-two
+2
 three
"""
GIT_ID = ['-c', 'user.name=T', '-c', 'user.email=t@example.org']


class Layout(TempDirTest):
    """A repository layout: patches/t/{series,tests,*.patch}, kunit/."""

    def setUp(self) -> None:
        super().setUp()
        self.write('patches/t/series', '# base\n0001-fix.patch\n0002-tests.patch\n')
        self.write('patches/t/0001-fix.patch', GLUE.replace('Kbuild', 'fix.c'))
        self.write('patches/t/0002-tests.patch', GLUE)
        self.write('patches/t/tests', '# which patch adds which\n0002-tests.patch a_kunit.c b/.kunitconfig\n')
        self.write('kunit/t/a_kunit.c', '/* t */\n')
        self.write('kunit/all/b/.kunitconfig', 'CONFIG_KUNIT=y\n')

    def owners(self) -> list[tuple[str, str, str]]:
        return testsrc.owners('t', self.tmp)

    def refused(self) -> str:
        with self.assertRaises(testsrc.TestSrcError) as e:
            self.owners()
        return str(e.exception)

    def test_owners(self) -> None:
        self.assertEqual(self.owners(), [
            ('0002-tests.patch', 'a_kunit.c', self.path('kunit/t/a_kunit.c')),
            ('0002-tests.patch', 'b/.kunitconfig', self.path('kunit/all/b/.kunitconfig'))])

    def test_a_tree_file_wins_over_all(self) -> None:
        self.write('kunit/t/b/.kunitconfig', 'CONFIG_KUNIT=y\nCONFIG_X=y\n')
        self.assertEqual(testsrc.files('t', self.tmp)['b/.kunitconfig'],
                         self.path('kunit/t/b/.kunitconfig'))

    def test_a_delta_over_all(self) -> None:
        """kunit/t/<path>.patch: the few lines in which t's file differs from
        kunit/all/<path>; the file t gets is written to build/testsrc/t/."""
        self.write('kunit/all/b/c_kunit.c', 'one\ntwo\nthree\n')
        self.write('kunit/t/b/c_kunit.c.patch', DELTA)
        self.write('patches/t/tests', '0002-tests.patch a_kunit.c b/.kunitconfig b/c_kunit.c\n')
        src = self.path('build/testsrc/t/b/c_kunit.c')
        self.assertEqual(self.owners()[2], ('0002-tests.patch', 'b/c_kunit.c', src))
        with open(src, encoding='utf-8') as f:
            self.assertEqual(f.read(), 'one\n2\nthree\n')
        self.assertEqual(testsrc.origin('t', 'b/c_kunit.c', self.tmp), 'kunit/t/b/c_kunit.c.patch')

    def test_a_delta_that_does_not_apply(self) -> None:
        self.write('kunit/all/b/c_kunit.c', 'one\nzwei\nthree\n')
        self.write('kunit/t/b/c_kunit.c.patch', DELTA)
        self.assertIn('kunit/t/b/c_kunit.c.patch does not apply to kunit/all/b/c_kunit.c (error: ',
                      self.refused())

    def test_a_delta_without_its_file(self) -> None:
        self.write('kunit/t/b/c_kunit.c.patch', DELTA)
        self.assertEqual(self.refused(), 'kunit/t/b/c_kunit.c.patch is a change to '
                         'kunit/all/b/c_kunit.c, which does not exist')

    def test_a_delta_and_a_file(self) -> None:
        self.write('kunit/all/b/c_kunit.c', 'one\ntwo\nthree\n')
        self.write('kunit/t/b/c_kunit.c.patch', DELTA)
        self.write('kunit/t/b/c_kunit.c', 'one\n2\nthree\n')
        self.assertEqual(self.refused(), 'kunit/t/b/c_kunit.c and kunit/t/b/c_kunit.c.patch both '
                         'exist: keep one')

    def test_a_file_no_patch_adds(self) -> None:
        self.write('kunit/t/c_kunit.c', '')
        self.assertEqual(self.refused(), 'kunit/t/c_kunit.c is added by no patch: name it in '
                         'patches/t/tests after the patch that builds it')

    def test_a_file_two_patches_add(self) -> None:
        self.write('patches/t/tests', '0001-fix.patch a_kunit.c b/.kunitconfig\n'
                                      '0002-tests.patch a_kunit.c\n')
        self.assertEqual(self.refused(), 'patches/t/tests: a_kunit.c is added by 0001-fix.patch '
                         'and by 0002-tests.patch')

    def test_a_patch_not_in_the_series(self) -> None:
        self.write('patches/t/tests', '0003-gone.patch a_kunit.c b/.kunitconfig\n')
        self.assertEqual(self.refused(), 'patches/t/tests names 0003-gone.patch, which is not '
                         'in patches/t/series')

    def test_a_listed_file_that_is_not_there(self) -> None:
        os.remove(self.path('kunit/t/a_kunit.c'))
        self.assertEqual(self.refused(), 'patches/t/tests: 0002-tests.patch adds a_kunit.c, but '
                         'neither kunit/t/a_kunit.c nor kunit/all/a_kunit.c exists')

    def test_a_listed_path_that_is_no_test_file(self) -> None:
        self.write('patches/t/tests', '0002-tests.patch a_kunit.c b/.kunitconfig fix.c\n')
        self.assertEqual(self.refused(), 'patches/t/tests: fix.c is not a test file '
                         '(*_kunit.c, *_kunit.h, .kunitconfig)')

    def test_a_shared_header_is_a_test_file(self) -> None:
        self.write('kunit/all/b/c_kunit.h', '/* shared */\n')
        self.assertIn('kunit/all/b/c_kunit.h is added by no patch', self.refused())
        self.write('patches/t/tests', '0002-tests.patch a_kunit.c b/.kunitconfig b/c_kunit.h\n')
        self.assertEqual(self.owners()[2], ('0002-tests.patch', 'b/c_kunit.h',
                                            self.path('kunit/all/b/c_kunit.h')))

    def test_a_tree_that_takes_none_of_a_shared_file(self) -> None:
        """'none <path>': a kunit/all/ file the tree's own design has no use for."""
        self.write('kunit/all/b/c_kunit.h', '/* shared */\n')
        self.write('patches/t/tests', '0002-tests.patch a_kunit.c b/.kunitconfig\nnone b/c_kunit.h\n')
        self.assertEqual([o[1] for o in self.owners()], ['a_kunit.c', 'b/.kunitconfig'])
        self.assertNotIn('b/c_kunit.h', testsrc.files('t', self.tmp))

    def test_none_of_a_file_that_is_not_there(self) -> None:
        self.write('patches/t/tests', '0002-tests.patch a_kunit.c b/.kunitconfig\nnone b/c_kunit.h\n')
        self.assertEqual(self.refused(), 'patches/t/tests: "none b/c_kunit.h", but '
                         'kunit/all/b/c_kunit.h does not exist')

    def test_none_of_a_file_the_tree_has(self) -> None:
        self.write('patches/t/tests', '0002-tests.patch b/.kunitconfig\nnone a_kunit.c\n')
        self.write('kunit/all/a_kunit.c', '/* all */\n')
        self.assertEqual(self.refused().splitlines()[0],
                         'patches/t/tests: "none a_kunit.c", but kunit/t/ has it')

    def test_a_patch_that_carries_a_test_file(self) -> None:
        self.write('patches/t/0002-tests.patch', CARRIES)
        self.assertEqual(self.refused(), 'patches/t/0002-tests.patch carries the test file '
                         'a_kunit.c itself: keep it in kunit/ and name it in patches/t/tests')

    def test_command_line(self) -> None:
        p = run([os.path.join(REPO, 'scripts', 'testsrc.py'), 'files', 't'],
                env={'KGATE_REPO': self.tmp})
        self.assertEqual((p.returncode, p.stdout),
                         (0, f'a_kunit.c\t{self.path("kunit/t/a_kunit.c")}\n'
                             f'b/.kunitconfig\t{self.path("kunit/all/b/.kunitconfig")}\n'))
        self.write('kunit/t/c_kunit.c', '')
        p = run([os.path.join(REPO, 'scripts', 'testsrc.py'), 'files', 't'],
                env={'KGATE_REPO': self.tmp})
        self.assertEqual((p.returncode, p.stdout.splitlines()[0][:30]),
                         (1, 'files: kunit/t/c_kunit.c is ad'))


class ThisRepository(TempDirTest):
    def test_every_tree(self) -> None:
        """No committed patch carries a file that kunit/ holds, and each
        file of kunit/ is added by one patch of each tree."""
        for tree in sorted(os.listdir(os.path.join(REPO, 'patches'))):
            if os.path.isfile(os.path.join(REPO, 'patches', tree, 'series')):
                with self.subTest(tree=tree):
                    self.assertTrue(testsrc.owners(tree))


class Export(TempDirTest):
    """testsrc.export: a toy kernel tree's commits back into patches/ and kunit/."""

    def git(self, *args: str) -> str:
        p = run(['git', '-C', self.kt, *GIT_ID, *args])
        self.assertEqual(p.returncode, 0, p.stdout)
        return p.stdout

    def commit(self, msg: str, files: dict[str, str]) -> None:
        for rel, text in files.items():
            self.write(os.path.join('k', rel), text)
        self.git('add', '-A')
        self.git('commit', '-q', '-m', msg)

    def setUp(self) -> None:
        super().setUp()
        self.kt = self.path('k')
        os.makedirs(self.kt)
        self.git('init', '-q')
        self.commit('base', {'Makefile': 'SUBLEVEL = 7\n', 'a.c': 'a\n'})
        self.git('tag', 'base')
        self.commit('a: fix', {'a.c': 'b\n'})
        self.commit('a: add KUnit tests', {'Kbuild': 'obj-y += a_kunit.o\n',
                                           'a_kunit.c': '/* test */\n',
                                           'x/.kunitconfig': 'CONFIG_KUNIT=y\n'})
        self.write('r/kunit/all/x/.kunitconfig', 'CONFIG_KUNIT=y\n')
        self.repo = self.path('r')

    def read(self, rel: str) -> str:
        with open(os.path.join(self.repo, rel), encoding='utf-8') as f:
            return f.read()

    def test_split(self) -> None:
        testsrc.export('t', self.kt, self.repo)
        self.assertEqual(sorted(os.listdir(self.path('r/patches/t'))),
                         ['0001-a-fix.patch', '0002-a-add-KUnit-tests.patch', 'series', 'tests'])
        glue = self.read('patches/t/0002-a-add-KUnit-tests.patch')
        self.assertIn('+obj-y += a_kunit.o', glue)
        self.assertNotIn('a_kunit.c', glue.split('---\n', 1)[1].replace('a_kunit.o', ''))
        self.assertNotIn('.kunitconfig', glue)
        self.assertIn('0002-a-add-KUnit-tests.patch a_kunit.c x/.kunitconfig\n',
                      self.read('patches/t/tests'))
        self.assertIn('# base: linux-source-t t.7\n', self.read('patches/t/series'))
        self.assertEqual(self.read('kunit/t/a_kunit.c'), '/* test */\n')
        # the same content as kunit/all/: stays there, one copy
        self.assertFalse(os.path.exists(self.path('r/kunit/t/x/.kunitconfig')))
        self.assertEqual([o[:2] for o in testsrc.owners('t', self.repo)],
                         [('0002-a-add-KUnit-tests.patch', 'a_kunit.c'),
                          ('0002-a-add-KUnit-tests.patch', 'x/.kunitconfig')])

    def test_a_delta_stays_a_delta(self) -> None:
        """A tree whose file is kunit/all/'s with a .patch gets the .patch
        rewritten, or removed once the file is kunit/all/'s again."""
        self.write('r/kunit/all/a_kunit.c', '/* all */\n')
        self.write('r/kunit/t/a_kunit.c.patch', '--- a/a_kunit.c\n+++ b/a_kunit.c\n'
                   '@@ -1 +1 @@\n-/* all */\n+/* t */\n')
        lines = testsrc.export('t', self.kt, self.repo)
        self.assertIn('kunit/t/a_kunit.c.patch updated from the tree', lines)
        self.assertEqual(self.read('kunit/t/a_kunit.c.patch'), '--- a/a_kunit.c\n+++ b/a_kunit.c\n'
                         '@@ -1 +1 @@\n-/* all */\n+/* test */\n')
        self.assertFalse(os.path.exists(self.path('r/kunit/t/a_kunit.c')))
        self.assertEqual(testsrc.export('t', self.kt, self.repo), ['wrote 2 patch(es) to patches/t/'])
        self.write('r/kunit/all/a_kunit.c', '/* test */\n')
        self.assertIn('kunit/t/a_kunit.c.patch removed (the tree has kunit/all/a_kunit.c)',
                      testsrc.export('t', self.kt, self.repo))
        self.assertFalse(os.path.exists(self.path('r/kunit/t/a_kunit.c.patch')))

    def test_none_lines_are_kept(self) -> None:
        self.write('r/kunit/all/y_kunit.h', '/* not for t */\n')
        self.write('r/patches/t/tests', 'none y_kunit.h\n')
        testsrc.export('t', self.kt, self.repo)
        self.assertTrue(self.read('patches/t/tests').endswith(
            '0002-a-add-KUnit-tests.patch a_kunit.c x/.kunitconfig\nnone y_kunit.h\n'))

    def test_a_later_commit_edits_a_test_file(self) -> None:
        self.commit('a: more', {'a.c': 'c\n', 'a_kunit.c': '/* test 2 */\n'})
        with self.assertRaises(testsrc.TestSrcError) as e:
            testsrc.export('t', self.kt, self.repo)
        self.assertEqual(str(e.exception), '"a: more" changes a_kunit.c ("a: add KUnit tests" '
                         'adds it): a test file is added whole, once; edit it in kunit/ (fold '
                         'this change into that commit)')
        self.assertFalse(os.path.exists(self.path('r/patches')))

    def test_a_commit_of_test_files_only(self) -> None:
        self.commit('b: tests', {'b_kunit.c': '/* b */\n'})
        with self.assertRaises(testsrc.TestSrcError) as e:
            testsrc.export('t', self.kt, self.repo)
        self.assertEqual(str(e.exception), '"b: tests" changes test files only: a test file '
                         'comes with the patch that builds it (its Kconfig, Makefile or #include)')
        self.assertFalse(os.path.exists(self.path('r/patches')))
