#!/usr/bin/env python3
"""What an end-to-end or conformance suite depends on in a kernel tree:

    scripts/scope.py key KTREE SUITE [--paths FILE] [--exclude PATH]...
    scripts/scope.py claims SUITE [--paths FILE]

key: one SHA-1 of the tree's content (HEAD's tree and the uncommitted
changes of tracked files) less the files that other suites alone claim in
kunit/PATHS (--paths) and less --exclude (the test files: these boots run
with KUnit off).  A file the suite claims, a file several suites claim and
a file no suite claims all count; so a change under fs/overlayfs/ leaves
the key of e2e_virtio_mem as it was, and a change under mm/ changes every
key.  A suite kunit/PATHS does not name claims nothing and depends on the
whole tree.

claims: the paths of SUITE, one a line (none: nothing printed).
"""
import argparse
import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATHS = os.path.join(REPO, 'kunit', 'PATHS')


class ScopeError(Exception):
    """A malformed kunit/PATHS."""


def read_paths(path: str = PATHS) -> dict[str, list[str]]:
    """{suite: [path, ...]} of a PATHS file."""
    out: dict[str, list[str]] = {}
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except OSError as err:
        raise ScopeError(f'cannot read {path}: {err}') from None
    for n, raw in enumerate(lines, 1):
        words = raw.split('#', 1)[0].split()
        if not words:
            continue
        if len(words) < 2 or any(p.startswith('/') or '..' in p.split('/') for p in words[1:]):
            raise ScopeError(f'{path}:{n}: want "suite path..." with paths inside the tree: '
                             f'{raw.strip()!r}')
        if words[0] in out:
            raise ScopeError(f'{path}:{n}: {words[0]} named twice')
        out[words[0]] = words[1:]
    return out


def covers(claim: str, path: str) -> bool:
    """Does claim (a file, or a directory ending in /) cover path?"""
    return path.startswith(claim) if claim.endswith('/') else path == claim


def others_only(suite: str, claims: dict[str, list[str]], path: str) -> bool:
    """Is path claimed by other suites and not by suite?  Never, for a
    suite that claims nothing: it depends on the whole tree."""
    if suite not in claims or any(covers(c, path) for c in claims[suite]):
        return False
    return any(covers(c, path) for s, cs in claims.items() if s != suite for c in cs)


def git(tree: str, *args: str) -> str:
    return subprocess.run(['git', '-C', tree, *args], check=True, stdout=subprocess.PIPE,
                          text=True, errors='surrogateescape').stdout


def key(tree: str, suite: str, claims: dict[str, list[str]],
        exclude: Sequence[str] = ()) -> str:
    """The suite's key of tree (see the module's doc)."""
    skip = set(exclude)

    def wanted(path: str) -> bool:
        return path not in skip and not others_only(suite, claims, path)

    h = hashlib.sha1()
    for line in git(tree, 'ls-tree', '-r', '-z', 'HEAD').split('\0'):
        if line and wanted(line.split('\t', 1)[1]):
            h.update(line.encode('utf-8', errors='surrogateescape') + b'\n')
    # tracked files changed and not committed: their content
    changed = [p for p in git(tree, 'diff', '--name-only', '-z', 'HEAD').split('\0') if p]
    for p in sorted(p for p in changed if wanted(p)):
        h.update(f'changed {p}\n'.encode('utf-8', errors='surrogateescape'))
        try:
            with open(os.path.join(tree, p), 'rb') as f:
                h.update(f.read())
        except OSError:
            h.update(b'(deleted)')
    return h.hexdigest()


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    k = sub.add_parser('key')
    k.add_argument('tree')
    k.add_argument('suite')
    k.add_argument('--paths', default=PATHS)
    k.add_argument('--exclude', action='append', default=[])
    c = sub.add_parser('claims')
    c.add_argument('suite')
    c.add_argument('--paths', default=PATHS)
    args = ap.parse_args(argv)
    try:
        claims = read_paths(args.paths)
    except ScopeError as err:
        print(f'scope: {err}', file=sys.stderr)
        return 2
    if args.cmd == 'claims':
        for p in claims.get(args.suite, []):
            print(p)
        return 0
    try:
        print(key(args.tree, args.suite, claims, args.exclude))
    except subprocess.CalledProcessError as err:
        print(f'scope: {err}', file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
