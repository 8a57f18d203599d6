"""scripts/upstream.sh (make upstream) on a toy tree: fix postings per
subsystem cut from base, test postings on top of their subsystem's fixes,
cover letters, To/Cc from the tree's get_maintainer.pl (a stand-in here),
the sender's identity in place of the series' own, and the refusals."""
import os
import subprocess
from typing import Optional

from common import REPO, TempDirTest, run

SERIES_ID = 'Pro Ject <project@example.org>'
SENDER = 'Jane Sender <jane@example.org>'
GIT_ID = ['-c', 'user.name=Pro Ject', '-c', 'user.email=project@example.org']
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

    def commit(self, subject: str, path: str, text: str, test_file: bool = False,
               body: str = 'Body.') -> None:
        """A commit of the series and its patch name in series (and in
        tests, for a commit that adds a test file)."""
        self.write(os.path.join('build', '7.3', 'linux', path), text)
        self.git('add', '-A')
        self.git('commit', '-q', '-m', f'{subject}\n\n{body}\n\nSigned-off-by: {SERIES_ID}')
        self.n += 1
        name = f'{self.n:04d}-{subject.replace(" ", "-").replace(":", "").replace("/", "-")}.patch'
        with open(self.path('repo/patches/7.3/series'), 'a', encoding='utf-8') as f:
            f.write(name + '\n')
        self.write(f'repo/patches/7.3/{name}', subject + '\n')
        if test_file:
            with open(self.path('repo/patches/7.3/tests'), 'a', encoding='utf-8') as f:
                f.write(f'{name} {path}\n')
            self.write(f'repo/kunit/all/{path}', text)

    def setUp(self) -> None:
        super().setUp()
        self.n = 0
        self.kt = self.path('build', '7.3', 'linux')
        os.makedirs(self.kt)
        self.git('init', '-q')
        self.write('build/7.3/linux/scripts/get_maintainer.pl', GET_MAINTAINER, 0o755)
        self.write('build/7.3/linux/mm/a.c', 'a\n')
        self.write('build/7.3/linux/fs/overlayfs/b.c', 'b\n')
        self.write('build/7.3/linux/MAINTAINERS', 'OVERLAYFS\nF:\tfs/overlayfs/\n\n')
        self.git('add', '-A')
        self.git('commit', '-q', '-m', 'base')
        self.git('tag', 'base')
        self.write('repo/patches/7.3/series', '')
        self.write('repo/patches/7.3/tests', '# comment\n')
        os.makedirs(self.path('repo', 'kunit'))
        run(['git', 'init', '-q', self.path('repo')])
        for t in ('mm', 'overlayfs', 'overlayfs-tests', 'x86'):
            self.write(f'repo/patches/7.3/cover/{t}', f'{t}: the subject\n\nWhat was found in {t}.\n')

    def upstream(self, sender: Optional[str] = SENDER,
                 git_id: Optional[tuple[str, str]] = None) -> subprocess.CompletedProcess[str]:
        """Run it with UPSTREAM_FROM=sender, or with git config git_id
        (name, email) in the repository and nothing else to go by."""
        self.git('update-ref', 'refs/kgate/applied', 'HEAD')
        env = {'KGATE_TREE': '7.3', 'KGATE_REPO': self.path('repo'), 'BUILD': self.path('build', '7.3'),
               'HOME': self.tmp, 'GIT_CONFIG_NOSYSTEM': '1', 'GIT_CONFIG_GLOBAL': os.devnull}
        key = run(['bash', '-c', f'. {REPO}/scripts/lib.sh; REPO={REPO}; kgate_tree_env; series_key'],
                  env=env).stdout
        self.write('build/7.3/linux/.git/kgate-series-key', key)
        if sender is not None:
            env['UPSTREAM_FROM'] = sender
        if git_id is not None:
            for k, v in zip(('user.name', 'user.email'), git_id):
                run(['git', '-C', self.path('repo'), 'config', k, v])
        return run([os.path.join(REPO, 'scripts', 'upstream.sh')], env=env)

    def read(self, rel: str) -> str:
        with open(self.path('build', 'upstream', rel), encoding='utf-8') as f:
            return f.read()

    def listing(self, topic: str) -> list[str]:
        return sorted(os.listdir(self.path('build', 'upstream', topic)))

    def series(self) -> None:
        self.commit('ovl: fix b', 'fs/overlayfs/b.c', 'b2\n')
        self.commit('mm/a: fix a', 'mm/a.c', 'a2\n')
        self.commit('ovl: test b', 'fs/overlayfs/b_kunit.c', 't\n', test_file=True)

    def test_fixes_and_tests_apart(self) -> None:
        self.series()
        p = self.upstream()
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertEqual(self.listing('overlayfs'), ['0000-cover-letter.patch', '0001-ovl-fix-b.patch'])
        self.assertEqual(self.listing('overlayfs-tests'), ['0000-cover-letter.patch', '0001-ovl-test-b.patch'])
        self.assertEqual(self.listing('mm'), ['0000-cover-letter.patch', '0001-mm-a-fix-a.patch'])
        self.assertIn('upstream: overlayfs-tests: 1 patch(es) on top of overlayfs', p.stdout)
        cover = self.read('overlayfs/0000-cover-letter.patch')
        self.assertIn('Subject: [PATCH 0/1] overlayfs: the subject\n', cover)
        self.assertIn('What was found in overlayfs.', cover)
        fix = self.read('mm/0001-mm-a-fix-a.patch')
        self.assertIn('To: Maint Ainer <m@example.org>\nCc: list@example.org\n', fix)
        self.assertIn('+a2', fix)
        self.assertNotIn('fs/overlayfs', fix)

    def test_every_cover_letter_names_its_base_and_a_test_series_its_fixes(self) -> None:
        self.series()
        p = self.upstream()
        self.assertEqual(p.returncode, 0, p.stdout)
        base = self.git('rev-parse', 'base').strip()
        for t in ('mm', 'overlayfs', 'overlayfs-tests'):
            self.assertIn(f'base-commit: {base}\n', self.read(f'{t}/0000-cover-letter.patch'))
        self.assertNotIn('prerequisite-patch-id', self.read('overlayfs/0000-cover-letter.patch'))
        self.assertEqual(self.read('overlayfs-tests/0000-cover-letter.patch').count('prerequisite-patch-id: '), 1)

    def test_the_sender_is_author_and_signs_off(self) -> None:
        self.series()
        p = self.upstream()
        self.assertEqual(p.returncode, 0, p.stdout)
        for t in ('mm', 'overlayfs', 'overlayfs-tests'):
            for name in self.listing(t):
                text = self.read(f'{t}/{name}')
                self.assertIn(f'From: {SENDER}\n', text, name)
                self.assertNotIn('project@example.org', text, name)
                if not name.startswith('0000-'):
                    self.assertIn(f'\nSigned-off-by: {SENDER}\n', text, name)

    def test_the_sender_from_git_config(self) -> None:
        self.series()
        p = self.upstream(sender=None, git_id=('Jo Config', 'jo@example.org'))
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('From: Jo Config <jo@example.org>\n', self.read('mm/0001-mm-a-fix-a.patch'))
        self.assertIn('Signed-off-by: Jo Config <jo@example.org>\n', self.read('mm/0001-mm-a-fix-a.patch'))

    def test_no_sender_identity(self) -> None:
        self.series()
        p = self.upstream(sender=None)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout.strip().splitlines(), [
            "upstream: no sender identity: set git config user.name and user.email, "
            "or UPSTREAM_FROM='Name <address>'"])
        self.assertFalse(os.path.exists(self.path('build', 'upstream')))

    def test_the_series_own_identity_is_no_sender(self) -> None:
        self.series()
        p = self.upstream(sender=None, git_id=('Pro Ject', 'project@example.org'))
        self.assertEqual(p.returncode, 1)
        self.assertIn("upstream: sender identity 'Pro Ject <project@example.org>' is the series' own, "
                      "not a person's", p.stdout)
        self.assertFalse(os.path.exists(self.path('build', 'upstream')))

    def test_a_sender_that_is_no_identity(self) -> None:
        self.series()
        p = self.upstream(sender='jane@example.org')
        self.assertEqual(p.returncode, 1)
        self.assertIn("upstream: sender identity 'jane@example.org' is not 'Name <address>'", p.stdout)

    def test_a_message_that_names_our_make_target(self) -> None:
        self.commit('mm/a: fix a', 'mm/a.c', 'a2\n', body='Found by make faults.')
        p = self.upstream()
        self.assertEqual(p.returncode, 1)
        self.assertIn('upstream: "mm/a: fix a": its message names \'make faults\', which means nothing '
                      'upstream', p.stdout)

    def test_a_message_that_names_the_distribution(self) -> None:
        self.commit('mm/a: fix a', 'mm/a.c', 'a2\n', body='Seen on linux-source-7.3 7.3.4.')
        p = self.upstream()
        self.assertEqual(p.returncode, 1)
        self.assertIn("its message names 'linux-source'", p.stdout)

    def test_a_cover_letter_that_names_a_cell(self) -> None:
        self.commit('mm/a: fix a', 'mm/a.c', 'a2\n')
        self.write('repo/patches/7.3/cover/mm', 'mm: fix\n\nRun make test CELLS=7.3/x86_64.\n')
        p = self.upstream()
        self.assertEqual(p.returncode, 1)
        self.assertIn("upstream: patches/7.3/cover/mm names 'make test'", p.stdout)

    def test_a_maintainer_added_to_maintainers(self) -> None:
        self.commit('ovl: add tests', 'MAINTAINERS',
                    'OVERLAYFS\nF:\tfs/overlayfs/\n\nOVERLAYFS TESTS\nM:\tPro Ject <project@example.org>\n',
                    test_file=True)
        p = self.upstream()
        self.assertEqual(p.returncode, 1)
        self.assertIn('upstream: "ovl: add tests": it adds a maintainer to MAINTAINERS', p.stdout)

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
