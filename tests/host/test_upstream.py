"""scripts/upstream.sh (make upstream) on a toy tree: one posting per
topic, cut from base, with its cover letter and To/Cc from the tree's
get_maintainer.pl (a stand-in here)."""
import os
import subprocess

from common import REPO, TempDirTest, run

GIT_ID = ['-c', 'user.name=A U Thor', '-c', 'user.email=a@example.org']
GET_MAINTAINER = """#!/usr/bin/perl
# stand-in: maintainers for --m, lists for --l
my $m = grep { $_ eq '--m' } @ARGV;
if ($m) { print "Maint Ainer <m\\@example.org>\\n"; } else { print "list\\@example.org\\n"; }
"""


class Upstream(TempDirTest):
    def git(self, *args: str) -> str:
        p = run(['git', '-C', self.kt, *GIT_ID, *args])
        self.assertEqual(p.returncode, 0, p.stdout)
        return p.stdout

    def commit(self, subject: str, path: str, text: str) -> None:
        self.write(os.path.join('build', '7.3', 'linux', path), text)
        self.git('add', '-A')
        self.git('commit', '-q', '-m', subject + '\n\nBody.\n\nSigned-off-by: A U Thor <a@example.org>')

    def setUp(self) -> None:
        super().setUp()
        self.kt = self.path('build', '7.3', 'linux')
        os.makedirs(self.kt)
        self.git('init', '-q')
        self.write('build/7.3/linux/scripts/get_maintainer.pl', GET_MAINTAINER, 0o755)
        self.write('build/7.3/linux/mm/a.c', 'a\n')
        self.write('build/7.3/linux/fs/overlayfs/b.c', 'b\n')
        self.git('add', '-A')
        self.git('commit', '-q', '-m', 'base')
        self.git('tag', 'base')
        self.write('repo/patches/7.3/series', '')
        self.write('repo/patches/7.3/tests', '')
        os.makedirs(self.path('repo', 'kunit'))
        for t in ('mm', 'overlayfs'):
            self.write(f'repo/patches/7.3/cover/{t}', f'{t}: the subject\n\nWhat was found in {t}.\n')

    def upstream(self) -> subprocess.CompletedProcess[str]:
        self.git('update-ref', 'refs/kgate/applied', 'HEAD')
        env = {'KGATE_TREE': '7.3', 'KGATE_REPO': self.path('repo'), 'BUILD': self.path('build', '7.3')}
        key = run(['bash', '-c', f'. {REPO}/scripts/lib.sh; REPO={REPO}; kgate_tree_env; series_key'],
                  env=env).stdout
        self.write('build/7.3/linux/.git/kgate-series-key', key)
        return run([os.path.join(REPO, 'scripts', 'upstream.sh')], env=env)

    def read(self, rel: str) -> str:
        with open(self.path('build', 'upstream', rel), encoding='utf-8') as f:
            return f.read()

    def test_one_posting_per_topic(self) -> None:
        self.commit('ovl: fix b', 'fs/overlayfs/b.c', 'b2\n')
        self.commit('mm/a: fix a', 'mm/a.c', 'a2\n')
        self.commit('ovl: test b', 'fs/overlayfs/b_kunit.c', 't\n')
        p = self.upstream()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(sorted(os.listdir(self.path('build', 'upstream', 'overlayfs'))),
                         ['0000-cover-letter.patch', '0001-ovl-fix-b.patch', '0002-ovl-test-b.patch'])
        self.assertEqual(sorted(os.listdir(self.path('build', 'upstream', 'mm'))),
                         ['0000-cover-letter.patch', '0001-mm-a-fix-a.patch'])
        cover = self.read('overlayfs/0000-cover-letter.patch')
        self.assertIn('Subject: [PATCH 0/2] overlayfs: the subject\n', cover)
        self.assertIn('What was found in overlayfs.', cover)
        self.assertIn('From: A U Thor <a@example.org>\n', cover)
        fix = self.read('mm/0001-mm-a-fix-a.patch')
        self.assertIn('To: Maint Ainer <m@example.org>\nCc: list@example.org\n', fix)
        self.assertIn('+a2', fix)
        self.assertNotIn('fs/overlayfs', fix)

    def test_a_commit_with_no_topic(self) -> None:
        self.commit('arm64: something', 'mm/a.c', 'a2\n')
        p = self.upstream()
        self.assertEqual(p.returncode, 1)
        self.assertIn('upstream: "arm64: something": no topic (mm/, x86/, virtio-mem:, ovl:)', p.stdout)

    def test_a_topic_with_no_cover_letter(self) -> None:
        self.commit('virtio-mem: fix', 'mm/a.c', 'a2\n')
        p = self.upstream()
        self.assertEqual(p.returncode, 1)
        self.assertIn('no cover letter for topic virtio-mem: write patches/7.3/cover/virtio-mem', p.stdout)

    def test_a_patch_that_needs_another_topic(self) -> None:
        self.commit('mm/a: fix a', 'mm/a.c', 'a2\n')
        self.commit('ovl: build on the mm fix', 'mm/a.c', 'a3\n')
        p = self.upstream()
        self.assertEqual(p.returncode, 1)
        self.assertIn('topic overlayfs: "ovl: build on the mm fix" does not apply without the patches '
                      'of another topic', p.stdout)
        self.assertFalse(os.path.exists(self.path('build', 'upstream')))
