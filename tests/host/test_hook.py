"""The gate as a git hook: scripts/hook.sh install, chain, uninstall, and
run under a real git commit / push with a stand-in make.  No kernel."""
import os
import stat
import subprocess

from common import REPO, TempDirTest, run
from test_usertree import GIT_ID, git, snapshot

HOOK = os.path.join(REPO, 'scripts', 'hook.sh')
FAKE_MAKE = """\
#!/bin/sh
# a stand-in make: records its arguments and environment, says what $KG_SAY holds
echo "$@" >>"{tmp}/make.args"
echo "index=$KGATE_USER_INDEX gitdir=$GIT_DIR gitindex=$GIT_INDEX_FILE" >>"{tmp}/make.args"
printf '%b' "$KG_SAY"
exit "$KG_RC"
"""


class Hook(TempDirTest):
    """scripts/hook.sh: install, chain, uninstall; run with a stand-in make."""

    def setUp(self) -> None:
        super().setUp()
        self.repo = self.path('repo')
        os.makedirs(self.repo)
        git(self.repo, 'init', '-q', '-b', 'main')
        self.write('repo/a.c', 'a\n')
        git(self.repo, 'add', 'a.c')
        git(self.repo, 'commit', '-q', '-m', 'a')
        self.hooks = os.path.join(self.repo, '.git', 'hooks')

    def hook(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run([HOOK, *args])

    def test_install_uninstall(self) -> None:
        before = snapshot(os.path.join(self.repo, '.git'))
        p = self.hook('install', 'pre-commit', self.repo, 'x86_64')
        self.assertEqual(p.returncode, 0, p.stdout)
        path = os.path.join(self.hooks, 'pre-commit')
        self.assertTrue(os.stat(path).st_mode & stat.S_IXUSR)
        with open(path, encoding='utf-8') as f:
            text = f.read()
        self.assertIn('kgate-hook', text)
        self.assertIn(f"'{HOOK}' run pre-commit", text)
        self.assertIn("KGATE_HOOK_ARCHES='x86_64'", text)
        self.assertEqual(self.hook('install', 'pre-commit', self.repo).returncode, 0)  # again
        self.assertFalse(os.path.exists(path + '.kgate-chained'))
        p = self.hook('uninstall', 'all', self.repo)
        self.assertIn('removed the pre-commit hook', p.stdout)
        self.assertEqual(set(snapshot(os.path.join(self.repo, '.git'))), set(before))
        p = self.hook('uninstall', 'all', self.repo)
        self.assertIn('nothing changed', p.stdout)
        self.assertEqual(self.hook('install', 'post-merge', self.repo).returncode, 1)

    def test_an_existing_hook_is_chained_and_put_back(self) -> None:
        mine = self.write('repo/.git/hooks/pre-push', '#!/bin/sh\necho mine\n', 0o755)
        p = self.hook('install', 'pre-push', self.repo)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('kept as', p.stdout)
        with open(mine + '.kgate-chained', encoding='utf-8') as f:
            self.assertEqual(f.read(), '#!/bin/sh\necho mine\n')
        self.hook('uninstall', 'pre-push', self.repo)
        with open(mine, encoding='utf-8') as f:
            self.assertEqual(f.read(), '#!/bin/sh\necho mine\n')
        self.assertFalse(os.path.exists(mine + '.kgate-chained'))

    def test_core_hooks_path(self) -> None:
        git(self.repo, 'config', 'core.hooksPath', 'myhooks')
        self.assertEqual(self.hook('install', 'pre-commit', self.repo).returncode, 0)
        self.assertTrue(os.path.exists(os.path.join(self.repo, 'myhooks', 'pre-commit')))
        self.assertFalse(os.path.exists(os.path.join(self.hooks, 'pre-commit')))

    def commit(self, rc: int, say: str) -> subprocess.CompletedProcess[str]:
        os.makedirs(self.path('bin'), exist_ok=True)
        self.write('bin/make', FAKE_MAKE.format(tmp=self.tmp), 0o755)
        self.write('repo/a.c', 'a, changed\n')
        git(self.repo, 'add', 'a.c')
        self.write('repo/a.c', 'a, not staged\n')
        return run(['git', '-C', self.repo, *GIT_ID, 'commit', '-q', '-m', 'c'],
                   env={'PATH': self.path('bin') + os.pathsep + os.environ['PATH'],
                        'KG_RC': str(rc), 'KG_SAY': say,
                        'KGATE_HOOK_LOGS': self.path('logs')})

    def test_run_red_blocks_the_commit(self) -> None:
        self.write('repo/.git/hooks/pre-commit',
                   f'#!/bin/sh\necho mine >"{self.tmp}/mine.ran"\n', 0o755)
        self.hook('install', 'pre-commit', self.repo)
        head = git(self.repo, 'rev-parse', 'HEAD')
        p = self.commit(1, 'gate: kunit x86_64\\n'
                        'FAIL x86_64: overlayfs_fh.encode_uuid_off FAIL\\n'
                        '1 passed, 1 failed, 0 skipped\\n')
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertEqual(git(self.repo, 'rev-parse', 'HEAD'), head)
        self.assertTrue(os.path.exists(self.path('mine.ran')))     # the chained hook ran
        self.assertIn('kgate: pre-commit: REFUSED', p.stdout)
        self.assertIn('kgate:   FAIL x86_64: overlayfs_fh.encode_uuid_off FAIL', p.stdout)
        self.assertEqual(p.stdout.rstrip().splitlines()[-1], 'bypass: git commit --no-verify')
        with open(self.path('make.args'), encoding='utf-8') as f:
            args = f.read()
        # The staged state of this checkout, git's own variables gone.
        self.assertIn(f'test KERNEL_CHECKOUT={self.repo}', args)
        self.assertIn(f'index={self.repo}/.git/index gitdir= gitindex=\n', args)

    def test_run_green_commits(self) -> None:
        self.hook('install', 'pre-commit', self.repo)
        p = self.commit(0, '5 passed, 0 failed, 0 skipped\\n')
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('kgate: pre-commit: passed in', p.stdout)
        self.assertEqual(git(self.repo, 'log', '-1', '--format=%s'), 'c\n')

    def test_run_pre_push_gates_each_pushed_commit(self) -> None:
        self.hook('install', 'pre-push', self.repo)
        os.makedirs(self.path('bin'))
        self.write('bin/make', FAKE_MAKE.format(tmp=self.tmp), 0o755)
        remote = self.path('remote.git')
        run(['git', 'init', '-q', '--bare', remote])
        head = git(self.repo, 'rev-parse', 'HEAD').strip()
        p = run(['git', '-C', self.repo, 'push', '-q', remote, 'main'],
                env={'PATH': self.path('bin') + os.pathsep + os.environ['PATH'],
                     'KG_RC': '1', 'KG_SAY': 'FAIL arm64: x.y FAIL\\n',
                     'KGATE_HOOK_LOGS': self.path('logs')})
        self.assertNotEqual(p.returncode, 0, p.stdout)
        self.assertIn('bypass: git push --no-verify', p.stdout)
        with open(self.path('make.args'), encoding='utf-8') as f:
            self.assertIn(f'test KERNEL_CHECKOUT={self.repo} REV={head}', f.read())
        self.assertNotEqual(run(['git', '-C', remote, 'rev-parse', 'main']).returncode, 0)


class SelfHook(TempDirTest):
    """The hook in this repository itself: the staged state checked out in
    build/hook-self/kgate, whose make test runs (a stand-in make here)."""

    def test_staged_state_in_a_throwaway_copy(self) -> None:
        clone = self.path('kgate')
        self.assertEqual(run(['git', 'clone', '-q', '--no-hardlinks', REPO, clone]).returncode, 0)
        hook = os.path.join(clone, 'scripts', 'hook.sh')
        with open(HOOK, encoding='utf-8') as src, open(hook, 'w', encoding='utf-8') as dst:
            dst.write(src.read())           # this one, edits not committed included
        self.assertEqual(run([hook, 'install', 'pre-commit', clone]).returncode, 0)
        os.makedirs(self.path('bin'))
        self.write('bin/make', FAKE_MAKE.format(tmp=self.tmp), 0o755)
        with open(os.path.join(clone, 'README.md'), 'a', encoding='utf-8') as f:
            f.write('staged line\n')
        git(clone, 'add', 'README.md')
        with open(os.path.join(clone, 'README.md'), 'a', encoding='utf-8') as f:
            f.write('not staged\n')
        p = run(['git', '-C', clone, *GIT_ID, 'commit', '-q', '-m', 'c'],
                env={'PATH': self.path('bin') + os.pathsep + os.environ['PATH'],
                     'KG_RC': '0', 'KG_SAY': '1 passed, 0 failed, 0 skipped\\n',
                     'KGATE_HOOK_LOGS': self.path('logs')})
        self.assertEqual(p.returncode, 0, p.stdout)
        copy = os.path.join(clone, 'build', 'hook-self', 'kgate')
        with open(self.path('make.args'), encoding='utf-8') as f:
            self.assertIn(f'-C {copy} test', f.read())
        with open(os.path.join(copy, 'README.md'), encoding='utf-8') as f:
            self.assertTrue(f.read().endswith('staged line\n'))
