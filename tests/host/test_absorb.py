"""scripts/absorb.py: kunit/ edits folded into the series commits."""
import os
import subprocess
import unittest

from common import TempDirTest

import absorb   # scripts/absorb.py


class ApplyHunks(unittest.TestCase):
    OLD = ['a\n', 'b\n', 'c\n', 'd\n']
    NEW = ['a\n', 'B\n', 'c\n', 'x\n', 'd\n']

    def test_change_only(self) -> None:
        # @@ -2,1 +2,1 @@: line 2 b -> B
        self.assertEqual(absorb.apply_hunks(self.OLD, self.NEW, [(2, 1, 2, 1)]),
                         ['a\n', 'B\n', 'c\n', 'd\n'])

    def test_insertion_only(self) -> None:
        # @@ -3,0 +4,1 @@: x inserted after old line 3
        self.assertEqual(absorb.apply_hunks(self.OLD, self.NEW, [(3, 0, 4, 1)]),
                         ['a\n', 'b\n', 'c\n', 'x\n', 'd\n'])

    def test_both(self) -> None:
        self.assertEqual(absorb.apply_hunks(self.OLD, self.NEW, [(2, 1, 2, 1), (3, 0, 4, 1)]),
                         self.NEW)


class Absorb(TempDirTest):
    """A repository with base + two commits of one file; edits of lines of
    each commit must land in that commit."""

    def git(self, *args: str) -> str:
        return subprocess.run(['git', '-C', self.tmp, '-c', 'user.name=t', '-c',
                               'user.email=t@t', *args], check=True,
                              capture_output=True, text=True).stdout

    def write(self, text: str) -> None:
        with open(os.path.join(self.tmp, 't.c'), 'w', encoding='utf-8') as f:
            f.write(text)

    PAD = ''.join(f'pad{i}\n' for i in range(8))   # keeps the hunks apart

    def setUp(self) -> None:
        super().setUp()
        self.git('init', '-q')
        self.write('base\n' + self.PAD)
        self.git('add', 't.c')
        self.git('commit', '-q', '-m', 'base')
        self.git('tag', 'base')
        self.write('base\none\n' + self.PAD)
        self.git('commit', '-q', '-am', 'first')
        self.write('base\none\n' + self.PAD + 'two\n')
        self.git('commit', '-q', '-am', 'second')

    def test_hunks_go_to_their_commits(self) -> None:
        self.write('base\nONE\n' + self.PAD + 'two\nthree\n')
        self.assertEqual(absorb.main(['absorb', self.tmp, 't.c']), 0)
        self.assertEqual(self.git('log', '--format=%s', 'base..HEAD').split('\n')[:2],
                         ['second', 'first'])
        self.assertEqual(self.git('show', 'HEAD~1:t.c'), 'base\nONE\n' + self.PAD)
        self.assertEqual(self.git('show', 'HEAD:t.c'), 'base\nONE\n' + self.PAD + 'two\nthree\n')
        self.assertEqual(self.git('status', '--porcelain', '--untracked-files=no'), '')

    def assert_unchanged(self, head: str, text: str) -> None:
        self.assertEqual(self.git('rev-parse', 'HEAD'), head)
        with open(os.path.join(self.tmp, 't.c'), encoding='utf-8') as f:
            self.assertEqual(f.read(), text)
        self.assertEqual(self.git('status', '--porcelain', '--untracked-files=no'), ' M t.c\n')

    def test_line_of_base_is_refused_and_nothing_changes(self) -> None:
        head = self.git('rev-parse', 'HEAD')
        text = 'BASE\none\n' + self.PAD + 'two\n'
        self.write(text)
        self.assertEqual(absorb.main(['absorb', self.tmp, 't.c']), 1)
        self.assert_unchanged(head, text)

    def test_rebase_conflict_changes_nothing(self) -> None:
        # Changing "one" (first) next to a line of "second": the fixup of
        # "first" conflicts when it moves before "second".
        self.git('reset', '-q', '--hard', 'base')
        self.write('base\none\n')
        self.git('commit', '-q', '-am', 'first')
        self.write('base\none\ntwo\n')
        self.git('commit', '-q', '-am', 'second')
        head = self.git('rev-parse', 'HEAD')
        text = 'base\nONE\ntwo\nthree\n'
        self.write(text)
        self.assertEqual(absorb.main(['absorb', self.tmp, 't.c']), 1)
        self.assert_unchanged(head, text)


if __name__ == '__main__':
    unittest.main()
