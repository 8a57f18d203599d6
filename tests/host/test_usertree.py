"""make test TREE=<checkout>: scripts/usertree.sh on a toy "kernel" checkout
with a toy series, the Makefile's TREE mapping.  No kernel, no QEMU."""
import os
import stat
import subprocess

from common import REPO, TempDirTest, run

MAKEFILE = 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\nEXTRAVERSION =\n'
A_C = 'int a(void)\n{\n\treturn 1;\n}\n'
PATCH_1 = """\
From: T <t@example.org>
Subject: [PATCH 1/2] a: return 2

---
diff --git a/a.c b/a.c
--- a/a.c
+++ b/a.c
@@ -1,4 +1,4 @@
 int a(void)
 {
-\treturn 1;
+\treturn 2;
 }
"""
PATCH_2 = """\
From: T <t@example.org>
Subject: [PATCH 2/2] a: add a test

---
diff --git a/Kbuild b/Kbuild
new file mode 100644
--- /dev/null
+++ b/Kbuild
@@ -0,0 +1 @@
+obj-y += a.o a_kunit.o
"""
PATCH_3 = """\
From: T <t@example.org>
Subject: [PATCH 3/3] a: return 3, tested

---
diff --git a/a.c b/a.c
--- a/a.c
+++ b/a.c
@@ -1,4 +1,4 @@
 int a(void)
 {
-\treturn 2;
+\treturn 3;
 }
diff --git a/Kbuild b/Kbuild
--- a/Kbuild
+++ b/Kbuild
@@ -1 +1 @@
-obj-y += a.o a_kunit.o
+obj-y += a.o a_kunit.o # v2
"""
GIT_ID = ['-c', 'user.name=U', '-c', 'user.email=u@example.org']


def git(repo: str, *args: str, env: dict[str, str] | None = None) -> str:
    p = run(['git', '-C', repo, *GIT_ID, *args], env=env)
    if p.returncode != 0:
        raise AssertionError(f'git {" ".join(args)}: {p.stdout}')
    return p.stdout


def changed(a: dict[str, tuple[int, int, int]], b: dict[str, tuple[int, int, int]]) -> list[str]:
    """The paths whose entries differ between two snapshots, less objects
    whose mtime alone changed: git "freshens" an object it is asked to
    write when an alternate already has it (its pruning protection)."""
    def freshened(k: str) -> bool:
        return (k.startswith('.git/objects/') and k in a and k in b
                and a[k][1:] == b[k][1:] and stat.S_ISREG(a[k][2]))
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k) and not freshened(k))


def snapshot(top: str) -> dict[str, tuple[int, int, int]]:
    """(mtime_ns, size, mode) of every file and directory below top, .git
    included: anything written there changes it."""
    out = {}
    for d, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            out[os.path.relpath(p, top)] = (st.st_mtime_ns, st.st_size, st.st_mode)
    return out


class UserTree(TempDirTest):
    """scripts/usertree.sh: the series on the user's checkout, in the
    gate's own tree; the checkout is never written to."""

    def setUp(self) -> None:
        super().setUp()
        self.ut = self.path('linux')
        os.makedirs(self.ut)
        git(self.ut, 'init', '-q', '-b', 'mywork')
        self.write('linux/Makefile', MAKEFILE)
        self.write('linux/a.c', A_C)
        self.write('linux/Documentation/Kconfig', 'menu "Documentation"\nendmenu\n')
        self.write('linux/Documentation/a.rst', 'a\n')
        self.write('linux/MAINTAINERS', 'A\n')
        git(self.ut, 'add', '-A')
        git(self.ut, 'commit', '-q', '-m', 'base')
        git(self.ut, 'tag', 'v6.1.192')
        self.write('linux/b.c', '/* mine */\n')
        git(self.ut, 'add', 'b.c')
        git(self.ut, 'commit', '-q', '-m', 'my commit')
        # The series and its test file, laid out as this repository has them
        # (scripts/testsrc.py: the test file in kunit/, the patch adding it
        # in patches/6.1/tests).
        self.write('patches/series', '# base: 6.1.192\n0001-a.patch\n0002-t.patch\n')
        self.write('patches/0001-a.patch', PATCH_1)
        self.write('patches/0002-t.patch', PATCH_2)
        self.write('patches/tests', '0002-t.patch a_kunit.c\n')
        self.write('kunit/6.1/a_kunit.c', '/* test of a() */\n')
        os.makedirs(self.path('repo', 'patches'))
        os.symlink(self.path('patches'), self.path('repo', 'patches', '6.1'))
        os.symlink(self.path('kunit'), self.path('repo', 'kunit'))
        self.build = self.path('build')
        self.ktree = os.path.join(self.build, 'linux')

    def usertree(self, **env: str) -> subprocess.CompletedProcess[str]:
        return run([os.path.join(REPO, 'scripts', 'usertree.sh')],
                   env={'BUILD': self.build, 'KGATE_USER_TREE': self.ut,
                        'PATCHES': self.path('patches'), 'KGATE_REPO': self.path('repo'),
                        **env})

    def gated(self, path: str) -> str:
        with open(os.path.join(self.ktree, path), encoding='utf-8') as f:
            return f.read()

    def test_applies_and_leaves_the_checkout_alone(self) -> None:
        self.write('linux/untracked.txt', 'x\n')
        self.write('linux/a.c', A_C + '/* not committed */\n')   # a work tree edit
        status = git(self.ut, 'status', '--porcelain')
        before = snapshot(self.ut)
        p = self.usertree()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('patches/6.1/: 2 applied, 0 already there', p.stdout)
        self.assertIn('Linux 6.1.192 + 1 commit(s) over v6.1.192', p.stdout)
        self.assertIn(f'tree: {self.ut}, HEAD on mywork (', p.stdout)
        self.assertEqual(changed(snapshot(self.ut), before), [])
        self.assertEqual(git(self.ut, 'status', '--porcelain'), status)
        # The committed state (not the work tree's edit), patched.
        self.assertEqual(self.gated('a.c'), A_C.replace('1;', '2;'))
        self.assertEqual(self.gated('b.c'), '/* mine */\n')
        self.assertEqual(self.gated('a_kunit.c'), '/* test of a() */\n')
        with open(os.path.join(self.build, 'results', 'tree'), encoding='utf-8') as f:
            self.assertEqual(f.read(), p.stdout.splitlines()[-1] + '\n')

    def test_the_hook_environment_does_not_leak(self) -> None:
        """Run from a git hook (GIT_DIR, GIT_INDEX_FILE of the user's
        repository in the environment): still nothing written there."""
        before = snapshot(self.ut)
        gitdir = os.path.join(self.ut, '.git')
        p = self.usertree(GIT_DIR=gitdir, GIT_INDEX_FILE=os.path.join(gitdir, 'index'),
                          GIT_WORK_TREE=self.ut)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(changed(snapshot(self.ut), before), [])

    def test_already_there(self) -> None:
        git(self.ut, 'apply', '--index', self.path('patches', '0001-a.patch'))
        git(self.ut, 'commit', '-q', '-m', 'the first patch, by hand')
        p = self.usertree()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('patches/6.1/: 1 applied, 1 already there', p.stdout)
        self.assertEqual(self.gated('a.c'), A_C.replace('1;', '2;'))

    def test_already_there_with_its_own_tests(self) -> None:
        """A tree that carries the series with a test file of its own
        version: the series is there, the tree's test is the one tested."""
        for p in ('0001-a.patch', '0002-t.patch'):
            git(self.ut, 'apply', '--index', self.path('patches', p))
        self.write('linux/a_kunit.c', '/* test of a(), edited */\n')
        git(self.ut, 'add', 'a_kunit.c')
        git(self.ut, 'commit', '-q', '-am', 'the series, a test edited')
        p = self.usertree()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('patches/6.1/: 0 applied, 2 already there', p.stdout)
        self.assertEqual(self.gated('a_kunit.c'), '/* test of a(), edited */\n')

    def test_a_later_patch_changes_what_an_earlier_one_added(self) -> None:
        """Patch 3 edits a.c and the Kbuild patch 2 adds: a tree carrying 1-2
        takes 3; one carrying 1-3 has all three (checked in reverse order,
        not one by one against the final state)."""
        self.write('patches/0003-t2.patch', PATCH_3)
        self.write('patches/series', '0001-a.patch\n0002-t.patch\n0003-t2.patch\n')
        for p in ('0001-a.patch', '0002-t.patch'):
            git(self.ut, 'apply', '--index', self.path('patches', p))
        git(self.ut, 'commit', '-q', '-m', '1-2')
        p = self.usertree()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('patches/6.1/: 1 applied, 2 already there', p.stdout)
        self.assertEqual(self.gated('Kbuild'), 'obj-y += a.o a_kunit.o # v2\n')
        git(self.ut, 'apply', '--index', self.path('patches', '0003-t2.patch'))
        git(self.ut, 'commit', '-q', '-am', '3')
        p = self.usertree()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('patches/6.1/: 0 applied, 3 already there', p.stdout)
        self.assertEqual(self.gated('a.c'), A_C.replace('1;', '3;'))

    def test_does_not_apply(self) -> None:
        self.write('linux/a.c', A_C.replace('1;', '3;'))
        self.write('linux/Makefile', MAKEFILE.replace('192', '250'))
        git(self.ut, 'commit', '-q', '-am', 'newer')
        p = self.usertree()
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertEqual(p.stdout.splitlines(),
                         [f'tree: patches/6.1/0001-a.patch does not apply to {self.ut} (Linux 6.1.250)'])

    def test_a_version_with_no_series(self) -> None:
        """The series is picked by the tree's VERSION.PATCHLEVEL; another
        version stops with one line."""
        self.write('linux/Makefile', MAKEFILE.replace('PATCHLEVEL = 1', 'PATCHLEVEL = 10'))
        git(self.ut, 'commit', '-q', '-am', '6.10')
        p = run([os.path.join(REPO, 'scripts', 'usertree.sh')],
                env={'BUILD': self.build, 'KGATE_USER_TREE': self.ut})
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertEqual(p.stdout.splitlines(),
                         [f'tree: {self.ut} at HEAD is Linux 6.10.192; this project has '
                          'a series for 6.1 6.12 7.3 only'])

    def test_rev(self) -> None:
        p = self.usertree(KGATE_REV='HEAD~1')
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.ktree, 'b.c')))
        self.assertEqual(self.usertree(KGATE_REV='nosuchrev').returncode, 1)

    def test_staged_state(self) -> None:
        """KGATE_USER_INDEX: what is staged, not the work tree, not HEAD."""
        self.write('linux/b.c', '/* staged */\n')
        git(self.ut, 'add', 'b.c')
        self.write('linux/b.c', '/* work tree only */\n')
        before = snapshot(self.ut)
        p = self.usertree(KGATE_USER_INDEX=os.path.join(self.ut, '.git', 'index'))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('the staged state on mywork', p.stdout)
        self.assertEqual(self.gated('b.c'), '/* staged */\n')
        self.assertEqual(changed(snapshot(self.ut), before), [])

    def test_documentation_only_change_gives_the_same_tree(self) -> None:
        self.assertEqual(self.usertree().returncode, 0)
        tree1 = git(self.ktree, 'rev-parse', 'HEAD^{tree}')
        self.assertEqual(self.gated('Documentation/Kconfig'), 'menu "Documentation"\nendmenu\n')
        self.assertFalse(os.path.exists(os.path.join(self.ktree, 'Documentation', 'a.rst')))
        self.assertFalse(os.path.exists(os.path.join(self.ktree, 'MAINTAINERS')))
        self.write('linux/Documentation/a.rst', 'a, edited\n')
        git(self.ut, 'commit', '-q', '-am', 'doc')
        self.assertEqual(self.usertree().returncode, 0)
        self.assertEqual(git(self.ktree, 'rev-parse', 'HEAD^{tree}'), tree1)
        self.write('linux/b.c', '/* changed */\n')
        git(self.ut, 'commit', '-q', '-am', 'code')
        self.assertEqual(self.usertree().returncode, 0)
        self.assertNotEqual(git(self.ktree, 'rev-parse', 'HEAD^{tree}'), tree1)
        self.assertEqual(git(self.ktree, 'status', '--porcelain'), '')

    def test_not_a_checkout(self) -> None:
        os.makedirs(self.path('plain'))
        p = run([os.path.join(REPO, 'scripts', 'usertree.sh')],
                env={'BUILD': self.build, 'KGATE_USER_TREE': self.path('plain'),
                     'PATCHES': self.path('patches'), 'GIT_CEILING_DIRECTORIES': self.tmp})
        self.assertEqual(p.returncode, 1)
        self.assertIn('is not a git checkout', p.stdout)


class MakeTree(TempDirTest):
    def test_tree_is_mapped_not_passed(self) -> None:
        """make ... KERNEL_CHECKOUT=<checkout>: its own build dir,
        KGATE_USER_TREE for the scripts, and neither name in their
        environment."""
        p = run(['make', '-s', 'KERNEL_CHECKOUT=/x/y', f'BUILD={self.path("b")}', '--eval',
                 'envtest: ; @echo "$$BUILD|$$KGATE_USER_TREE|$${KERNEL_CHECKOUT-unset}"',
                 'envtest'])
        self.assertEqual(p.stdout, f'{self.path("b")}/tree-x-y|/x/y|unset\n')
        # Without KERNEL_CHECKOUT, a stray KGATE_USER_TREE in the environment changes nothing.
        p = run(['make', '-s', f'BUILD={self.path("b")}', '--eval',
                 'envtest: ; @echo "$${KGATE_USER_TREE-unset}"', 'envtest'],
                env={'KGATE_USER_TREE': '/x/y'})
        self.assertEqual(p.stdout, 'unset\n')
        p = run(['make', '-n', 'series', 'KERNEL_CHECKOUT=/x/y'])
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('KERNEL_CHECKOUT=<checkout> is for make test', p.stdout)

    def test_old_name_refused_with_the_new_one(self) -> None:
        """TREE= (the old name, too close to TREES=) stops make with one
        line naming KERNEL_CHECKOUT=; TREE in the environment is ignored."""
        p = run(['make', '-n', 'test', 'TREE=/x/y'])
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('TREE= is now KERNEL_CHECKOUT= (a kernel checkout of yours to gate), not to be '
                      'confused with TREES= (6.1, 6.12, 7.3): make test KERNEL_CHECKOUT=/x/y', p.stdout)
        p = run(['make', '-s', f'BUILD={self.path("b")}', '--eval',
                 'envtest: ; @echo "$$BUILD|$${KGATE_USER_TREE-unset}"', 'envtest'],
                env={'TREE': '/x/y'})
        self.assertEqual(p.stdout, f'{self.path("b")}|unset\n')
