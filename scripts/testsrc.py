#!/usr/bin/env python3
"""The test files of a tree, the one copy each, and the patch that adds each.

    scripts/testsrc.py files TREE            <path> TAB <source>, one a line
    scripts/testsrc.py owners TREE           <patch> TAB <path> TAB <source>
    scripts/testsrc.py export TREE KTREE     rewrite patches/TREE/ and kunit/ from KTREE

A test file (a KUnit source or a .kunitconfig) lives once in the repository:
kunit/TREE/<path>, or kunit/all/<path> when every tree has the same file
(a file of kunit/TREE/ wins over kunit/all/), or, for a tree whose file
differs from kunit/all/<path> in a few lines (an API that changed),
kunit/all/<path> and those lines as kunit/TREE/<path>.patch, a unified
diff against it.  The file such a tree gets is written to
build/testsrc/TREE/<path> (KGATE_TESTSRC_CACHE), the source named for it.  The series in patches/TREE/
holds no test file; patches/TREE/tests names, for each test file, the patch
that adds it with its build glue (Kconfig, Makefile, #include), and the
kunit/all/ files the tree has no use for:

    <patch file of the series>  <path> [<path>...]
    none  <path> [<path>...]

scripts/tree.sh applies the series and adds each file with the patch the list
names, so the tree's commits are the postable series, tests included.

files, owners: refuse (status 1, one line per problem) a .patch that does not
apply to its kunit/all/ file or has none, a test file no patch adds or two
patches add, a listed patch not in the series, a listed path
with no file, a path listed that is no test file, and a patch of the series
that carries a test file itself.

export: the inverse, for "make series": the commits base..HEAD of KTREE
become patches/TREE/*.patch without their test files, each test file goes
to kunit/ (kunit/all/ stays where it holds the same content, a .patch
stays a .patch) and
patches/TREE/tests is rewritten.  A test file may be added once and not
touched by a later commit (edit it in kunit/ instead), and a commit must
change more than test files; otherwise nothing is written.
"""
import os
import re
import subprocess
import sys
import tempfile
from typing import Optional, Sequence

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEST_RE = re.compile(r'(_kunit\.[ch]|(^|/)\.kunitconfig)$')
ALL = 'all'
DELTA = '.patch'


class TestSrcError(Exception):
    pass


def is_test_file(path: str) -> bool:
    return bool(TEST_RE.search(path))


def _walk(top: str, suffix: str = '') -> list[str]:
    """The test files below top (with suffix: those named <test file><suffix>,
    without it)."""
    out = []
    for root, _dirs, files in os.walk(top):
        for f in files:
            rel = os.path.relpath(os.path.join(root, f), top)
            if rel.endswith(suffix) and is_test_file(rel[:len(rel) - len(suffix)]):
                out.append(rel[:len(rel) - len(suffix)])
    return out


def cache_dir(tree: str, repo: str) -> str:
    top = os.environ.get('KGATE_TESTSRC_CACHE') or os.path.join(os.path.abspath(repo), 'build', 'testsrc')
    return os.path.join(top, tree)


def _unified(old: bytes, new: bytes, path: str) -> bytes:
    """A unified diff of path from old to new (git apply reads it)."""
    import difflib
    a = old.decode('utf-8', errors='surrogateescape').splitlines(keepends=True)
    b = new.decode('utf-8', errors='surrogateescape').splitlines(keepends=True)
    text = ''.join(difflib.unified_diff(a, b, f'a/{path}', f'b/{path}'))
    return text.encode('utf-8', errors='surrogateescape')


def apply_delta(tree: str, rel: str, repo: str) -> str:
    """Write kunit/all/<rel> with kunit/<tree>/<rel>.patch applied to the
    cache; its path.  TestSrcError when that cannot be done."""
    base = os.path.join(repo, 'kunit', ALL, rel)
    delta = os.path.join('kunit', tree, rel + DELTA)
    if not os.path.isfile(base):
        raise TestSrcError(f'{delta} is a change to kunit/{ALL}/{rel}, which does not exist')
    out = os.path.join(cache_dir(tree, repo), rel)
    with tempfile.TemporaryDirectory(prefix='kgate-testsrc-') as tmp:
        os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
        with open(os.path.join(tmp, rel), 'wb') as f:
            f.write(_content(base) or b'')
        # (outside any repository: git apply then patches paths below cwd)
        env = {**os.environ, 'GIT_CEILING_DIRECTORIES': os.path.dirname(tmp)}
        p = subprocess.run(['git', 'apply', '--whitespace=nowarn',
                            os.path.abspath(os.path.join(repo, delta))],
                           cwd=tmp, env=env, capture_output=True)
        if p.returncode:
            why = p.stderr.decode(errors='replace').strip().splitlines()
            raise TestSrcError(f'{delta} does not apply to kunit/{ALL}/{rel}'
                               f'{" (" + why[0] + ")" if why else ""}')
        data = _content(os.path.join(tmp, rel)) or b''
    if _content(out) != data:
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out + '.tmp', 'wb') as f:
            f.write(data)
        os.replace(out + '.tmp', out)
    return out


def origin(tree: str, rel: str, repo: str = REPO) -> str:
    """The repository file that test file rel of tree comes from."""
    for f in (os.path.join('kunit', tree, rel), os.path.join('kunit', tree, rel + DELTA)):
        if os.path.isfile(os.path.join(repo, f)):
            return f
    return os.path.join('kunit', ALL, rel)


def files(tree: str, repo: str = REPO) -> dict[str, str]:
    """{path in the kernel tree: its one source file}, kunit/<tree>/ over
    kunit/<tree>/<path>.patch over kunit/all/."""
    out: dict[str, str] = {}
    top = os.path.join(repo, 'kunit', ALL)
    skip = set(excluded(tree, repo))
    for rel in _walk(top):
        if rel not in skip:
            out[rel] = os.path.join(top, rel)
    top = os.path.join(repo, 'kunit', tree)
    for rel in _walk(top, DELTA):
        if os.path.isfile(os.path.join(top, rel)):
            raise TestSrcError(f'kunit/{tree}/{rel} and kunit/{tree}/{rel}{DELTA} both exist: '
                               'keep one')
        out[rel] = apply_delta(tree, rel, repo)
    for rel in _walk(top):
        out[rel] = os.path.join(top, rel)
    return dict(sorted(out.items()))


def series(tree: str, repo: str = REPO) -> list[str]:
    """The patch names of patches/<tree>/series, in order."""
    path = os.path.join(repo, 'patches', tree, 'series')
    if not os.path.isfile(path):
        return []
    with open(path, encoding='utf-8') as f:
        return [ln.split('#', 1)[0].strip() for ln in f if ln.split('#', 1)[0].strip()]


NONE = 'none'


def _tests_lines(tree: str, repo: str) -> list[list[str]]:
    path = os.path.join(repo, 'patches', tree, 'tests')
    if not os.path.isfile(path):
        return []
    with open(path, encoding='utf-8') as f:
        return [w for w in (ln.split('#', 1)[0].split() for ln in f) if w]


def manifest(tree: str, repo: str = REPO) -> list[tuple[str, list[str]]]:
    """[(patch, [path...])] of patches/<tree>/tests, in file order."""
    return [(w[0], w[1:]) for w in _tests_lines(tree, repo) if w[0] != NONE]


def excluded(tree: str, repo: str = REPO) -> list[str]:
    """The kunit/all/ files the tree does not take: "none <path>..." lines
    of patches/<tree>/tests (a file its own design has no use for)."""
    return [p for w in _tests_lines(tree, repo) if w[0] == NONE for p in w[1:]]


def patch_test_files(patch: str) -> list[str]:
    """The test files a patch file's diffs touch."""
    out = []
    with open(patch, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = re.match(r'^diff --git a/(\S+) b/(\S+)', line)
            if m:
                out += [p for p in {m.group(1), m.group(2)} if is_test_file(p) and p not in out]
    return out


def owners(tree: str, repo: str = REPO) -> list[tuple[str, str, str]]:
    """[(patch, path, source)] in series order; TestSrcError with every
    problem found, one a line."""
    srcs = files(tree, repo)
    ser = series(tree, repo)
    problems = []
    owner: dict[str, str] = {}
    for p in excluded(tree, repo):
        if not os.path.isfile(os.path.join(repo, 'kunit', ALL, p)):
            problems.append(f'patches/{tree}/tests: "{NONE} {p}", but kunit/{ALL}/{p} does not exist')
        elif os.path.isfile(os.path.join(repo, 'kunit', tree, p)) or \
                os.path.isfile(os.path.join(repo, 'kunit', tree, p + DELTA)):
            problems.append(f'patches/{tree}/tests: "{NONE} {p}", but kunit/{tree}/ has it')
    for patch, paths in manifest(tree, repo):
        if patch not in ser:
            problems.append(f'patches/{tree}/tests names {patch}, which is not in patches/{tree}/series')
        for p in paths:
            if not is_test_file(p):
                problems.append(f'patches/{tree}/tests: {p} is not a test file (*_kunit.c, *_kunit.h, .kunitconfig)')
            elif p not in srcs:
                problems.append(f'patches/{tree}/tests: {patch} adds {p}, but neither kunit/{tree}/{p} '
                                f'nor kunit/{ALL}/{p} exists')
            elif p in owner:
                problems.append(f'patches/{tree}/tests: {p} is added by {owner[p]} and by {patch}')
            else:
                owner[p] = patch
    for p in srcs:
        if p not in owner:
            problems.append(f'{origin(tree, p, repo)} is added by no patch: name it in '
                            f'patches/{tree}/tests after the patch that builds it')
    for patch in ser:
        pf = os.path.join(repo, 'patches', tree, patch)
        if os.path.isfile(pf):
            for p in patch_test_files(pf):
                problems.append(f'patches/{tree}/{patch} carries the test file {p} itself: '
                                f'keep it in kunit/ and name it in patches/{tree}/tests')
    if problems:
        raise TestSrcError('\n'.join(problems))
    order = {p: i for i, p in enumerate(ser)}
    out = [(owner[p], p, srcs[p]) for p in srcs]
    return sorted(out, key=lambda t: (order[t[0]], t[1]))


def git(ktree: str, *args: str) -> str:
    env = dict(os.environ)
    for k in ('GIT_DIR', 'GIT_INDEX_FILE', 'GIT_WORK_TREE'):
        env.pop(k, None)
    p = subprocess.run(['git', '-C', ktree, *args], capture_output=True, env=env)
    if p.returncode:
        raise TestSrcError(f'git {" ".join(args)}: {p.stderr.decode(errors="replace").strip()}')
    return p.stdout.decode('utf-8', errors='surrogateescape')


def _content(path: str) -> Optional[bytes]:
    if not os.path.isfile(path):
        return None
    with open(path, 'rb') as f:
        return f.read()


def export(tree: str, ktree: str, repo: str = REPO) -> list[str]:
    """Write patches/<tree>/ and kunit/ from the commits base..HEAD of
    ktree; the lines to print."""
    commits = git(ktree, 'rev-list', '--reverse', 'base..HEAD').split()
    none = excluded(tree, repo)
    added: dict[str, str] = {}         # test path -> the commit adding it
    problems = []
    subject = {c: git(ktree, 'log', '-1', '--format=%s', c).strip() for c in commits}
    for c in commits:
        out = git(ktree, 'diff-tree', '--no-commit-id', '-r', '--name-status', '--no-renames', c)
        for line in out.splitlines():
            st, path = line.split('\t', 1)
            if not is_test_file(path):
                continue
            if st == 'A' and path not in added:
                added[path] = c
            else:
                first = f'"{subject[added[path]]}" adds it' if path in added else 'base has it'
                problems.append(f'"{subject[c]}" changes {path} ({first}): a test file is added '
                                f'whole, once; edit it in kunit/ (fold this change into that commit)')
    if problems:
        raise TestSrcError('\n'.join(problems))
    excl = [f':(exclude,literal){p}' for p in added]
    with tempfile.TemporaryDirectory(prefix='kgate-series-') as tmp:
        git(ktree, 'format-patch', '-q', '--zero-commit', '--no-signature', '--abbrev=12',
            '-o', tmp, 'base..HEAD', '--', '.', *excl)
        names = sorted(n for n in os.listdir(tmp) if n.endswith('.patch'))
        if len(names) != len(commits):
            only = [f'"{subject[c]}"' for c in commits
                    if not [p for p in git(ktree, 'diff-tree', '--no-commit-id', '-r', '--name-only',
                                           c).split() if not is_test_file(p)]]
            raise TestSrcError(f'{", ".join(only)} changes test files only: a test file comes with '
                               'the patch that builds it (its Kconfig, Makefile or #include)')
        pdir = os.path.join(repo, 'patches', tree)
        os.makedirs(pdir, exist_ok=True)
        with open(os.path.join(ktree, 'Makefile'), encoding='utf-8', errors='replace') as mk:
            sub = re.search(r'^SUBLEVEL = (\S+)', mk.read(), re.M)
        for n in os.listdir(pdir):
            if n.endswith('.patch'):
                os.unlink(os.path.join(pdir, n))
        for n in names:
            os.replace(os.path.join(tmp, n), os.path.join(pdir, n))
    with open(os.path.join(pdir, 'series'), 'w', encoding='utf-8') as f:
        f.write(f'# Apply in this order on top of linux-source-{tree} (see README.md);\n'
                f'# patches/{tree}/tests adds the test files of kunit/ to them.\n'
                f'# base: linux-source-{tree} {tree}.{sub.group(1) if sub else "?"}\n')
        f.writelines(n + '\n' for n in names)
    by_commit = {c: n for c, n in zip(commits, names)}
    with open(os.path.join(pdir, 'tests'), 'w', encoding='utf-8') as f:
        f.write(f'# The test files each patch adds, from kunit/{tree}/<path> or, where that\n'
                f'# has none, kunit/{ALL}/<path>: "<patch> <path>..." (scripts/testsrc.py).\n')
        for c in commits:
            paths = sorted(p for p in added if added[p] == c)
            if paths:
                f.write(f'{by_commit[c]} {" ".join(paths)}\n')
        kept = [p for p in none if p not in added]
        if kept:
            f.write(f'{NONE} {" ".join(kept)}\n')
    lines = [f'wrote {len(names)} patch(es) to patches/{tree}/']
    mine = os.path.join(repo, 'kunit', tree)
    have = set(_walk(mine)) | set(_walk(mine, DELTA))
    for p in sorted(added):
        data = git(ktree, 'show', f'HEAD:{p}').encode('utf-8', errors='surrogateescape')
        common = os.path.join(repo, 'kunit', ALL, p)
        own = os.path.join(repo, 'kunit', tree, p)
        if os.path.exists(own + DELTA):
            try:
                if _content(apply_delta(tree, p, repo)) == data:
                    continue
            except TestSrcError:
                pass
            if _content(common) == data:
                os.unlink(own + DELTA)
                lines.append(f'kunit/{tree}/{p}{DELTA} removed (the tree has kunit/{ALL}/{p})')
                continue
            with open(own + DELTA, 'wb') as f:
                f.write(_unified(_content(common) or b'', data, p))
            apply_delta(tree, p, repo)
            lines.append(f'kunit/{tree}/{p}{DELTA} updated from the tree')
            continue
        if not os.path.exists(own) and _content(common) == data:
            continue
        if _content(own) == data:
            continue
        os.makedirs(os.path.dirname(own), exist_ok=True)
        with open(own, 'wb') as f:
            f.write(data)
        lines.append(f'kunit/{tree}/{p} updated from the tree')
    for p in sorted(have):
        if p in added:
            continue
        for name in (p, p + DELTA):
            if os.path.isfile(os.path.join(mine, name)):
                os.unlink(os.path.join(mine, name))
                lines.append(f'kunit/{tree}/{name} removed (no commit adds it)')
    return lines


def main(argv: Sequence[str]) -> int:
    if len(argv) < 2 or argv[0] not in ('files', 'owners', 'export') or \
            (argv[0] == 'export') != (len(argv) == 3) or len(argv) > 3:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    cmd, tree = argv[0], argv[1]
    repo = os.environ.get('KGATE_REPO', REPO)
    try:
        if cmd == 'files':
            owners(tree, repo)
            for p, src in files(tree, repo).items():
                print(f'{p}\t{src}')
        elif cmd == 'owners':
            for patch, p, src in owners(tree, repo):
                print(f'{patch}\t{p}\t{src}')
        else:
            for line in export(tree, argv[2], repo):
                print(f'series: {line}')
    except TestSrcError as e:
        for line in str(e).splitlines():
            print(f'{cmd}: {line}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
