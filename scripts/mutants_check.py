#!/usr/bin/env python3
"""The kept mutants of a tree against that tree, in seconds, no build.

    scripts/mutants_check.py apply KTREE MUTANTS_DIR [--json PATH] [--tests TREE] [--config FILE]...
                                 [--series FILE]
    scripts/mutants_check.py key KTREE [--tests TREE] [--config FILE]...
    scripts/mutants_check.py record MUTANTS_DIR NAME VERDICT ARCH KEY
    scripts/mutants_check.py plan MUTANTS_DIR KEY ARCH [--fresh]
    scripts/mutants_check.py list MUTANTS_DIR

MUTANTS_DIR is mutants/<tree>; its mutants are its own *.patch and those of
mutants/all (code the trees share, each written once) whose "Trees:" line
names the tree.

apply: `git apply --check` of every MUTANTS_DIR/*.patch on the patched tree
KTREE (its work tree, as scripts/mutants.sh applies them).  One case per
mutant; a mutant that no longer applies fails, naming the patch of the series
that moved its code: the first commit after the last one of base..HEAD the
mutant still applies to (or "applies to no commit of the series").
--json PATH writes the suite mutants_apply (KernelCI layout, as the gate
reads).  Then one line: how many kept mutants have no verdict of
`make mutants` on the tree's current content key (VERDICTS below), i.e. kill
claims not checked since the tree's code last changed.  Exit code 1 iff a
mutant does not apply.

key: the content key of the tree: its HEAD's tree object, the test files
of the tree (--tests TREE: scripts/testsrc.py files TREE) and the
kernel config fragments it is built with (--config: kunitconfig), one
SHA-1.  The same content gives the same key on every machine.

record: set NAME's line in MUTANTS_DIR/VERDICTS ("<name> <verdict> <arch>
<key>", sorted), the file `make mutants` keeps committed next to the
mutants.

plan: the mutants `make mutants` runs on ARCH, one path a line: those
whose verdict is not "killed" on KEY (--fresh: all), less those whose
"Arch:" line names another arch, the cheapest to judge first (KUnit only,
then end-to-end, conformance, fault runs), by name within each.
"""
import argparse
import glob
import hashlib
import os
import subprocess
import sys
import tempfile
from typing import Optional, Sequence

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'e2e', 'lib'))
from e2e.results import Case, results_doc, write_json  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import testsrc  # noqa: E402

SUITE = 'mutants_apply'
VERDICTS = 'VERDICTS'
VERDICTS_HEAD = ("# The last verdict of `make mutants` on each kept mutant of this tree:\n"
                 "# name, verdict, arch, content key of the tree it ran on\n"
                 "# (scripts/mutants_check.py key).  Written by scripts/mutants.sh.\n")


def git(tree: str, *args: str, env: Optional[dict[str, str]] = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    full = dict(os.environ)
    for k in ('GIT_DIR', 'GIT_INDEX_FILE', 'GIT_WORK_TREE'):
        full.pop(k, None)
    full.update(env or {})
    return subprocess.run(['git', '-C', tree, *args], env=full, text=True, check=check,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def content_key(tree: str, tests: Optional[str], configs: Sequence[str] = (),
                repo: Optional[str] = None) -> str:
    """SHA-1 of HEAD's tree object, of the test files of the tree named
    tests (path, content; kunit/ of repo, default $KGATE_REPO or this
    repository) and of the config fragments (content, in order)."""
    root: str = repo if repo is not None else os.environ.get('KGATE_REPO') or testsrc.REPO
    h = hashlib.sha1()
    h.update(git(tree, 'rev-parse', 'HEAD^{tree}').stdout.strip().encode() + b'\n')
    for rel, src in (testsrc.files(tests, root) if tests else {}).items():
        with open(src, 'rb') as f:
            h.update(rel.encode() + b'\0' + hashlib.sha1(f.read()).hexdigest().encode() + b'\n')
    for cfg in configs:
        with open(cfg, 'rb') as f:
            h.update(b'config\0' + hashlib.sha1(f.read()).hexdigest().encode() + b'\n')
    return h.hexdigest()


def series_names(tree: str, series: Optional[str]) -> list[tuple[str, str]]:
    """(commit, name) of base..HEAD, oldest first; name: the patch file of
    the series file at the same place, else the commit's subject."""
    out = git(tree, 'log', '--reverse', '--format=%H %s', 'base..HEAD').stdout.splitlines()
    commits = [tuple(line.split(' ', 1)) if ' ' in line else (line, '') for line in out]
    files: list[str] = []
    if series and os.path.isfile(series):
        with open(series, encoding='utf-8') as f:
            files = [ln.split('#', 1)[0].strip() for ln in f]
        files = [p for p in files if p]
    if len(files) == len(commits):
        return [(c[0], p) for c, p in zip(commits, files)]
    return [(c[0], f'"{c[1]}"') for c in commits]


def patch_paths(patch: str) -> list[str]:
    """The files a git diff touches (its "--- a/" and "+++ b/" names)."""
    out: list[str] = []
    with open(patch, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith(('--- a/', '+++ b/')):
                p = line[6:].rstrip('\n').split('\t')[0]
                if p not in out:
                    out.append(p)
    return out


def applies_at(tree: str, commit: str, patch: str) -> bool:
    """Does patch apply to commit's files?  Only the files it touches are
    written out, to a scratch directory (seconds for a whole series)."""
    with tempfile.TemporaryDirectory(prefix='kgate-mut-') as d:
        for rel in patch_paths(patch):
            blob = subprocess.run(['git', '-C', tree, 'cat-file', 'blob', f'{commit}:{rel}'],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
            if blob.returncode != 0:
                continue            # not there at that commit
            dst = os.path.join(d, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, 'wb') as f:
                f.write(blob.stdout)
        return subprocess.run(['git', 'apply', '--check', patch], cwd=d, check=False,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def mover(tree: str, patch: str, names: Sequence[tuple[str, str]]) -> str:
    """Why patch no longer applies, in the series' terms."""
    chain = [('base', 'base')] + list(names)
    for i in range(len(chain) - 1, -1, -1):
        if applies_at(tree, chain[i][0], patch):
            if i == len(chain) - 1:
                return 'applies to the series, not to the tree as it is (an edit in the tree?)'
            return (f'its code last matched after {chain[i][1]}; '
                    f'{chain[i + 1][1]} changed it: re-cut the mutant for today\'s code')
    return 'applies to no commit of the series (base..HEAD): re-cut the mutant'


def read_verdicts(mdir: str) -> dict[str, tuple[str, str, str]]:
    """{name: (verdict, arch, key)} of MUTANTS_DIR/VERDICTS."""
    out: dict[str, tuple[str, str, str]] = {}
    path = os.path.join(mdir, VERDICTS)
    if not os.path.isfile(path):
        return out
    with open(path, encoding='utf-8') as f:
        for line in f:
            w = line.split('#', 1)[0].split()
            if len(w) == 4:
                out[w[0]] = (w[1], w[2], w[3])
    return out


def record(mdir: str, name: str, verdict: str, arch: str, key: str) -> None:
    v = read_verdicts(mdir)
    v[name] = (verdict, arch, key)
    path = os.path.join(mdir, VERDICTS)
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(VERDICTS_HEAD)
        for n in sorted(v):
            f.write(f'{n} {" ".join(v[n])}\n')
    os.replace(path + '.tmp', path)


def check(tree: str, mdir: str, tests: Optional[str], series: Optional[str],
          configs: Sequence[str] = ()) -> tuple[list[Case], int]:
    """(one case per mutant, how many have no kill on the current key)."""
    mutants = tree_mutants(mdir)
    names: Optional[list[tuple[str, str]]] = None
    cases = []
    seen: dict[str, str] = {}
    for m in mutants:
        name = os.path.basename(m)[:-len('.patch')]
        if name in seen:
            cases.append(Case(name, 'FAIL', f'named twice: {seen[name]} and {m}'))
            continue
        seen[name] = m
        p = git(tree, 'apply', '--check', m, check=False)
        if p.returncode == 0:
            cases.append(Case(name, 'PASS'))
            continue
        if names is None:
            names = series_names(tree, series)
        first = (p.stderr.strip().splitlines() or ['?'])[0]
        cases.append(Case(name, 'FAIL', f'does not apply ({first}); {mover(tree, m, names)}'))
    key = content_key(tree, tests, configs)
    verdicts = read_verdicts(mdir)
    stale = sum(1 for c in cases if verdicts.get(c.name, ('', '', ''))[::2] != ('killed', key))
    return cases, stale


# What a mutant's Expect: lines cost to judge, cheapest first: KUnit only,
# an end-to-end run, a conformance run, a fault run (a debug kernel build).
COST = (('e2e_faults_', 3), ('fstests_', 2), ('e2e_', 1))


def header(path: str) -> dict[str, list[str]]:
    """The header lines of a mutant file ("Key: value", up to the diff)."""
    out: dict[str, list[str]] = {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if line.startswith('diff --git'):
                break
            k, sep, v = line.partition(': ')
            if sep and k[:1].isupper() and ' ' not in k:
                out.setdefault(k, []).append(v.strip())
    return out


def cost(path: str) -> int:
    """How dear a mutant is to judge (0: KUnit only)."""
    expects = header(path).get('Expect', [])
    return max((c for e in expects for prefix, c in COST if e.startswith(prefix)),
               default=0)


SHARED = 'all'


def tree_mutants(mdir: str) -> list[str]:
    """The kept mutants of the tree whose folder is mdir (mutants/<tree>):
    its own *.patch, and those of mutants/all whose "Trees:" line names
    the tree (a mutant of code the trees share, written once)."""
    tree = os.path.basename(os.path.normpath(mdir))
    own = sorted(glob.glob(os.path.join(mdir, '*.patch')))
    shared_dir = os.path.join(os.path.dirname(os.path.normpath(mdir)), SHARED)
    shared = [m for m in sorted(glob.glob(os.path.join(shared_dir, '*.patch')))
              if tree in ' '.join(header(m).get('Trees', [])).split()]
    return own + shared


def plan(mdir: str, key: str, arch: str, fresh: bool = False) -> list[str]:
    """The mutants of mdir to run on arch: those not killed on key (all if
    fresh), skipping those whose Arch: is another, the cheapest first."""
    verdicts = read_verdicts(mdir)
    out = []
    for m in tree_mutants(mdir):
        name = os.path.basename(m)[:-len('.patch')]
        only = header(m).get('Arch', [])
        if only and only[0] != arch:
            continue
        if not fresh and verdicts.get(name, ('', '', ''))[::2] == ('killed', key):
            continue
        out.append(m)
    return sorted(out, key=lambda m: (cost(m), os.path.basename(m)))


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    a = sub.add_parser('apply')
    a.add_argument('tree')
    a.add_argument('mutants')
    a.add_argument('--json')
    a.add_argument('--tests')
    a.add_argument('--series')
    a.add_argument('--config', action='append', default=[])
    k = sub.add_parser('key')
    k.add_argument('tree')
    k.add_argument('--tests')
    k.add_argument('--config', action='append', default=[])
    r = sub.add_parser('record')
    for arg in ('mutants', 'name', 'verdict', 'arch', 'key'):
        r.add_argument(arg)
    ls = sub.add_parser('list')
    ls.add_argument('mutants')
    pl = sub.add_parser('plan')
    for arg in ('mutants', 'key', 'arch'):
        pl.add_argument(arg)
    pl.add_argument('--fresh', action='store_true')
    args = ap.parse_args(argv)
    if args.cmd == 'list':
        for m in tree_mutants(os.path.abspath(args.mutants)):
            print(m)
        return 0
    if args.cmd == 'plan':
        for m in plan(os.path.abspath(args.mutants), args.key, args.arch, args.fresh):
            print(m)
        return 0
    if args.cmd == 'key':
        print(content_key(args.tree, args.tests, args.config))
        return 0
    if args.cmd == 'record':
        record(args.mutants, args.name, args.verdict, args.arch, args.key)
        return 0
    cases, stale = check(os.path.abspath(args.tree), os.path.abspath(args.mutants),
                         args.tests,
                         args.series and os.path.abspath(args.series), args.config)
    if args.json:
        write_json(args.json, results_doc(SUITE, None, cases))
    bad = [c for c in cases if c.status != 'PASS']
    label = os.path.basename(os.path.normpath(args.mutants))
    for c in bad:
        print(f'mutants: {label}/{c.name}: {c.reason}', file=sys.stderr)
    print(f'mutants: {label}: {len(cases) - len(bad)} of {len(cases)} kept mutants apply; '
          f'{stale} not killed by make mutants since the tree\'s code last changed')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
