"""scripts/tree.sh on a toy tarball: the import names its version, and a
patch that does not apply stops the run with the patch and that version."""
import os
import subprocess

from common import REPO, TempDirTest, run

MAKEFILE = 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 250\nEXTRAVERSION =\n'
PATCH = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: A U Thor <a@example.org>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] a: say hello

---
 a.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/a.c b/a.c
--- a/a.c
+++ b/a.c
@@ -1 +1 @@
-int {old};
+int hello;
--
"""


class Tree(TempDirTest):
    def setUp(self) -> None:
        super().setUp()
        self.write('src/linux-source-6.1/Makefile', MAKEFILE)
        self.write('src/linux-source-6.1/a.c', 'int a;\n')
        self.tarball = self.path('linux-source-6.1.tar.xz')
        subprocess.run(['tar', '-C', self.path('src'), '-cJf', self.tarball, 'linux-source-6.1'],
                       check=True)
        self.write('linux-source-6.1.tar.xz.version', '6.1.250-1\n')
        os.makedirs(self.path('repo', 'kunit'))
        self.write('repo/patches/6.1/tests', '')

    def tree(self, old: str) -> subprocess.CompletedProcess[str]:
        self.write('repo/patches/6.1/series', '# base: linux-source-6.1 6.1.250\n0001-a.patch\n')
        self.write('repo/patches/6.1/0001-a.patch', PATCH.replace('{old}', old))
        return run([os.path.join(REPO, 'scripts', 'tree.sh')],
                   env={'KGATE_TREE': '6.1', 'TARBALL': self.tarball, 'BUILD': self.path('build'),
                        'KGATE_REPO': self.path('repo')})

    def test_names_what_it_imported(self) -> None:
        p = self.tree('a')
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('tree: linux-source-6.1 6.1.250 (6.1.250-1), patches/6.1/ applied\n', p.stdout)
        with open(self.path('build', 'linux', 'a.c'), encoding='utf-8') as f:
            self.assertEqual(f.read(), 'int hello;\n')

    def test_a_patch_that_does_not_apply(self) -> None:
        p = self.tree('b')
        self.assertEqual(p.returncode, 1)
        self.assertIn('tree: patch 0001-a.patch does not apply to linux-source-6.1 6.1.250 '
                      '(6.1.250-1); the tree was not changed\n', p.stdout)
        with open(self.path('build', 'linux', 'a.c'), encoding='utf-8') as f:
            self.assertEqual(f.read(), 'int a;\n')
