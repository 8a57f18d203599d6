#!/usr/bin/env python3
"""Fold uncommitted edits of test files into the series commits they belong to.

    scripts/absorb.py TREE FILE...

TREE is the kernel tree (a git repository whose commits on top of the tag
"base" are the series); each FILE is a path inside it, tracked at HEAD, whose
work-tree content differs from HEAD (scripts/tree.sh installs the edits made
in kunit/ that way).  Every hunk of `git diff -U0 HEAD -- FILE` goes to the
series commit that last touched the lines it changes (git blame); a hunk
that only adds lines goes to the newer of the commits of the lines around
it.  One fixup commit per target, then `git rebase --autosquash base`.

Nothing is lost: if a hunk cannot be placed (its lines come from several
commits, or from base) or the rebase stops, HEAD is put back where it was
and the work tree keeps the edits; the message says what to do by hand
(`git commit --fixup=<commit>` in the tree, then `make series`).

Prints one line per hunk: which commit it went to.  Exit 0 on success,
1 with a message otherwise.
"""
import os
import re
import subprocess
import sys
from typing import Optional

Hunk = tuple[int, int, int, int]

HUNK_RE = re.compile(r'^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


class AbsorbError(Exception):
    pass


def git(tree: str, *args: str, check: bool = True,
        env: Optional[dict[str, str]] = None) -> str:
    p = subprocess.run(['git', '-C', tree, *args], capture_output=True, text=True,
                       env=env)
    if check and p.returncode:
        raise AbsorbError(f'git {" ".join(args)}: {p.stderr.strip()}')
    return p.stdout


def hunks(tree: str, path: str) -> list[Hunk]:
    """[(old_start, old_len, new_start, new_len)] of the diff HEAD -> work tree."""
    out = []
    for line in git(tree, 'diff', '-U0', 'HEAD', '--', path).splitlines():
        m = HUNK_RE.match(line)
        if m:
            old_len = 1 if m.group(2) is None else int(m.group(2))
            new_len = 1 if m.group(4) is None else int(m.group(4))
            out.append((int(m.group(1)), old_len, int(m.group(3)), new_len))
    return out


def blame(tree: str, path: str, first: int, last: int) -> set[str]:
    """The commits of lines first..last (1-based) of path at HEAD."""
    out = git(tree, 'blame', '--porcelain', '-L', f'{first},{last}', 'HEAD', '--', path)
    return {line.split()[0] for line in out.splitlines()
            if re.match(r'^[0-9a-f]{40} \d+ \d+', line)}


def target(tree: str, path: str, hunk: Hunk, series: list[str], nlines: int) -> str:
    """The series commit a hunk belongs to."""
    old_start, old_len, _, _ = hunk
    commits: set[str] = set()
    if old_len:
        commits = blame(tree, path, old_start, old_start + old_len - 1)
    else:
        # Lines added after line old_start: the commits around them.
        around = [n for n in (old_start, old_start + 1) if 1 <= n <= nlines]
        for n in around:
            commits |= blame(tree, path, n, n)
        commits = {max(commits, key=series.index)} if commits <= set(series) and commits else commits
    if len(commits) != 1 or not commits <= set(series):
        names = ', '.join(sorted(c[:12] for c in commits)) or 'none'
        raise AbsorbError(f'{path}: the hunk at line {old_start} touches lines of '
                          f'several commits or of base ({names})')
    return commits.pop()


def apply_hunks(old: list[str], new: list[str], chosen: list[Hunk]) -> list[str]:
    """old's lines with the chosen hunks (old_start, old_len, new_start, new_len)
    replaced by their new lines."""
    out = list(old)
    for os_, ol, ns, nl in sorted(chosen, reverse=True):
        at = os_ - 1 if ol else os_      # a pure insertion goes after line os_
        out[at:at + ol] = new[ns - 1:ns - 1 + nl] if nl else []
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    tree, files = argv[1], argv[2:]
    try:
        series = git(tree, 'rev-list', '--reverse', 'base..HEAD').split()
        head = git(tree, 'rev-parse', 'HEAD').strip()
    except AbsorbError as err:
        print(f'absorb: {err}', file=sys.stderr)
        return 1
    plan: dict[str, list[tuple[str, Hunk]]] = {}      # commit -> [(path, hunk)]
    contents: dict[str, tuple[list[str], list[str]]] = {}  # path -> (old, new)
    try:
        for path in files:
            old = git(tree, 'show', f'HEAD:{path}').splitlines(keepends=True)
            with open(os.path.join(tree, path), encoding='utf-8') as f:
                new = f.read().splitlines(keepends=True)
            contents[path] = (old, new)
            for h in hunks(tree, path):
                plan.setdefault(target(tree, path, h, series, len(old)), []).append((path, h))
    except (AbsorbError, OSError) as err:
        print(f'absorb: {err}', file=sys.stderr)
        print('absorb: nothing was changed; commit the edit in the tree by hand '
              '(git commit --fixup=<commit>; git rebase -i --autosquash base), '
              'then: make series', file=sys.stderr)
        return 1
    if not plan:
        return 0

    subjects = {c: git(tree, 'log', '-1', '--format=%s', c).strip() for c in plan}
    done: dict[str, list[Hunk]] = {p: [] for p in files}
    try:
        # One fixup commit per target, each with its hunks on top of the last.
        for commit in sorted(plan, key=series.index):
            for path, h in plan[commit]:
                done[path].append(h)
                print(f'absorb: {path} @@ -{h[0]},{h[1]} +{h[2]},{h[3]} @@ -> '
                      f'{commit[:12]} {subjects[commit]}')
            for path in {p for p, _ in plan[commit]}:
                old, new = contents[path]
                blob = subprocess.run(
                    ['git', '-C', tree, 'hash-object', '-w', '--stdin'],
                    input=''.join(apply_hunks(old, new, done[path])),
                    capture_output=True, text=True, check=True).stdout.strip()
                mode = git(tree, 'ls-tree', 'HEAD', '--', path).split()[0]
                git(tree, 'update-index', '--cacheinfo', f'{mode},{blob},{path}')
            git(tree, 'commit', '-q', '--no-verify', f'--fixup={commit}')
        env = dict(os.environ, GIT_SEQUENCE_EDITOR=':', GIT_EDITOR=':')
        p = subprocess.run(['git', '-C', tree, 'rebase', '-q', '-i', '--autosquash',
                            '--keep-empty', 'base'], capture_output=True, text=True, env=env)
        if p.returncode:
            git(tree, 'rebase', '--abort', check=False)
            raise AbsorbError(f'the rebase stopped:\n{p.stdout}{p.stderr}')
        # The result must be exactly the edit the user made.
        for path in files:
            if git(tree, 'show', f'HEAD:{path}') != ''.join(contents[path][1]):
                raise AbsorbError(f'{path}: after the rebase HEAD differs from the edit')
    except (AbsorbError, subprocess.CalledProcessError) as err:
        git(tree, 'reset', '-q', '--soft', head, check=False)
        git(tree, 'reset', '-q', check=False)
        for path in files:      # the work tree keeps the edit, whatever happened
            with open(os.path.join(tree, path), 'w', encoding='utf-8') as f:
                f.write(''.join(contents[path][1]))
        print(f'absorb: {err}', file=sys.stderr)
        print(f'absorb: HEAD is back at {head[:12]}, the edits are still in the work tree; '
              'commit them in the tree by hand (git commit --fixup=<commit>; '
              'git rebase -i --autosquash base), then: make series', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
