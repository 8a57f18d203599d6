#!/usr/bin/env python3
"""Summarise the gate's results and decide.

    [KINDS="kunit e2e conf tree host"] [RESULTS=dir] [SUITES=file] scripts/gate.py cell...

A cell is <tree>/<arch> (e.g. 6.12/x86_64): that tree's results are in
RESULTS/../<tree>/results (the tree's build dir, $BUILD/<tree>/results).  A
cell that is a bare <arch> is one tree's arch whose results are in RESULTS
itself (make test TREE=<checkout>, scripts/mutants.sh).

Reads, in each tree's results dir, only the results of the kinds judged
(KINDS, default all five):

  kunit  <arch>.json          kunit.py --json output (KernelCI layout)
         <arch>.rc            scripts/kunit.sh's exit code (its one writer)
  e2e    e2e-*-<arch>.json    end-to-end results (same layout, one suite)
  conf   conf-*-<arch>.json   conformance runs (fstests sections, the
                              memory-hotplug selftest; same layout)
  tree   tree-*.json          per-tree, arch-independent suites (same
                              layout, one suite), e.g. tree-mutants_apply.json

and in RESULTS (default: $BUILD/results, BUILD default <repo>/build):

  host   host-*.json          arch- and tree-independent suites (same
                              layout, one suite), e.g. host-selftest.json

and SUITES (default <repo>/kunit/SUITES), the one list of suites that must
have run; its arch column names arches (x86_64) or cells (6.1/x86_64).
Prints a table (one row per cell or tree and suite), the failing
tests, the missing suites and, last, "N passed, N failed, N skipped" (also
written to RESULTS/summary).  Writes RESULTS/verdict.json, the same verdict
for programs:

  {"verdict": "PASS"|"FAIL", "arches": [<cell>...], "kinds": [...],
   "totals": {"passed": N, "failed": N, "skipped": N},
   "results": {<cell, tree or "host">: {<suite>: {"kind": ..., "state":
       "ok"|"FAILED"|"MISSING", "passed": N, "failed": N, "skipped": N,
       "tests": {<test>: "PASS"|"FAIL"|"SKIP"|"ERROR"|...}}}},
   "missing": [{"arch": <cell, tree or "host">, "suite": ...}],
   "problems": ["<cell>: <what>", ...],
   "tree": "tree: <checkout>, ..."}   (make test TREE=<checkout> only)

A file RESULTS/tree (scripts/usertree.sh) names the tree gated: its line is
printed before the verdict.

Exits 1 on any failed, crashed, timed-out, empty or missing suite, on a
cell whose KUnit run left no results or exited non-zero (or left no exit
code), and on a SUITES file it cannot read.
"""
import glob
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'e2e', 'lib'))
from e2e.results import write_json  # noqa: E402  (the one writer of results JSON)
KINDS = ('kunit', 'e2e', 'conf', 'tree', 'host')
HOST = 'host'            # the "arch" of the arch-independent (host) suites
COUNTED = ('PASS', 'FAIL', 'SKIP')

Json = dict[str, Any]


def read_suites(paths: str) -> list[tuple[str, str, list[str]]]:
    """(suite, kind, [arch...]) of each line "suite kind [arch...]" of a
    SUITES file ('#' comments), or of several joined by ':' (as in PATH).
    ValueError on a malformed line or a suite listed twice."""
    out: list[tuple[str, str, list[str]]] = []
    for path in paths.split(os.pathsep):
        for suite in _read_one(path):
            if suite[0] in [s[0] for s in out]:
                raise ValueError(f'{path}: {suite[0]} is listed twice in {paths}')
            out.append(suite)
    return out


def _read_one(path: str) -> list[tuple[str, str, list[str]]]:
    out = []
    with open(path, encoding='utf-8') as f:
        for lineno, raw in enumerate(f, 1):
            words = raw.split('#', 1)[0].split()
            if not words:
                continue
            if len(words) < 2 or words[1] not in KINDS:
                raise ValueError(f'{path}:{lineno}: expected "suite kind [arch...]" '
                                 f'with kind one of {", ".join(KINDS)}: {raw.strip()!r}')
            if words[1] in ('host', 'tree') and len(words) > 2:
                raise ValueError(f'{path}:{lineno}: a {words[1]} suite runs on no arch: '
                                 f'{raw.strip()!r}')
            out.append((words[0], words[1], words[2:]))
    return out


def split_cell(cell: str) -> tuple[str, str]:
    """(tree, arch) of a cell "<tree>/<arch>"; ('', arch) of a bare arch."""
    tree, _, arch = cell.rpartition('/')
    return tree, arch


def tree_where(tree: str) -> str:
    """Where a tree's per-tree suites are listed: the tree, or HOST for the
    one unnamed tree of bare-arch cells."""
    return tree or HOST


def load_expected(path: str, cells: Sequence[str],
                  kinds: Optional[Sequence[str]] = None) -> dict[str, list[str]]:
    """{cell: [suite, ...], tree: [suite, ...], HOST: [suite, ...]} from a
    SUITES file (see read_suites; no arch named: every arch).  Kind host is
    listed under HOST, kind tree under each tree of the cells (under HOST
    for bare-arch cells).  Only the kinds named (all if none)."""
    want: dict[str, list[str]] = {c: [] for c in cells}
    want[HOST] = []
    trees = sorted({split_cell(c)[0] for c in cells})
    for t in trees:
        want.setdefault(tree_where(t), [])
    for suite, kind, on in read_suites(path):
        if kinds and kind not in kinds:
            continue
        if kind == 'host':
            want[HOST].append(suite)
            continue
        if kind == 'tree':
            for t in trees:
                want[tree_where(t)].append(suite)
            continue
        for c in cells:
            if not on or split_cell(c)[1] in on or c in on:
                want[c].append(suite)
    return want


def leaves(group: Json, prefix: str) -> Iterator[tuple[str, str]]:
    """Yield (test name, status) of every test case under a JSON group; a
    sub-group's cases (a parameterised case) as <sub-group>.<case>."""
    for case in group.get('test_cases', []):
        yield prefix + case['name'], case['status']
    for sub in group.get('sub_groups', []):
        yield from leaves(sub, prefix + sub['name'] + '.')


def read_json(path: str) -> Optional[Json]:
    """The JSON object in path; None if missing or not a JSON object."""
    try:
        with open(path, encoding='utf-8') as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def read_rc(path: str) -> Optional[str]:
    try:
        with open(path, encoding='utf-8') as f:
            return f.read().strip()
    except OSError:
        return None


def _one_suite(path: str, problems: list[str], where: str) -> Optional[tuple[str, list[tuple[str, str]]]]:
    """(suite name, its tests) of a one-suite results file (e2e, host)."""
    doc = read_json(path)
    try:
        if doc is None:
            raise ValueError('not a JSON object')
        return str(doc['name']), list(leaves(doc, ''))
    except (ValueError, KeyError, TypeError) as err:
        problems.append(f'{where}: unreadable {path} ({err})')
        return None


def tree_results(results: str, tree: str) -> str:
    """The results dir of a tree: RESULTS/../<tree>/results; RESULTS itself
    for the unnamed tree of bare-arch cells."""
    if not tree:
        return results
    return os.path.join(os.path.dirname(os.path.abspath(results)), tree, 'results')


def judge(results: str, suites_file: str, arches: Sequence[str],
          kinds: Sequence[str] = ()) -> Json:
    """The verdict (the document of verdict.json) on the results of the
    cells arches ("<tree>/<arch>" or a bare arch, see tree_results) and of
    the host suites in the directory results, against suites_file, for
    kinds (all kinds if empty)."""
    kinds = [k for k in KINDS if not kinds or k in kinds]
    problems: list[str] = []
    try:
        want = load_expected(suites_file, arches, kinds)
        kind_of = {suite: kind for suite, kind, _on in read_suites(suites_file)}
    except (OSError, ValueError) as err:
        want = {a: [] for a in [*arches, HOST]}
        for t in {split_cell(c)[0] for c in arches}:
            want.setdefault(tree_where(t), [])
        kind_of = {}
        problems.append(f'suites: {err}')

    out: dict[str, dict[str, Json]] = {}
    missing: list[dict[str, str]] = []
    total = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}

    def add(where: str, found: dict[str, tuple[str, list[tuple[str, str]]]]) -> int:
        """Judge the suites found at where (an arch or HOST); returns the
        number of failed tests of kind kunit."""
        kunit_failed = 0
        rows = out.setdefault(where, {})
        for name in sorted(found):
            kind, tests = found[name]
            count = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
            for test, status in tests:
                key = status if status in COUNTED else 'FAIL'
                count[key] += 1
                if key == 'FAIL':
                    problems.append(f'{where}: {name}.{test} {status}')
                    kunit_failed += kind == 'kunit'
            if not tests:
                count['FAIL'] += 1
                kunit_failed += kind == 'kunit'
                problems.append(f'{where}: {name} ran no test')
            for k in count:
                total[k] += count[k]
            rows[name] = {'kind': kind, 'state': 'ok' if count['FAIL'] == 0 else 'FAILED',
                          'passed': count['PASS'], 'failed': count['FAIL'],
                          'skipped': count['SKIP'], 'tests': dict(tests)}
        for name in want[where]:
            if name not in found:
                total['FAIL'] += 1
                rows[name] = {'kind': kind_of.get(name, '?'), 'state': 'MISSING',
                              'passed': 0, 'failed': 1, 'skipped': 0, 'tests': {}}
                missing.append({'arch': where, 'suite': name})
                problems.append(f'{where}: expected suite {name} did not run')
        return kunit_failed

    for cell in arches:
        tree, arch = split_cell(cell)
        rdir = tree_results(results, tree)
        found: dict[str, tuple[str, list[tuple[str, str]]]] = {}
        kunit = None
        rc = None
        if 'kunit' in kinds:
            kunit = read_json(os.path.join(rdir, arch + '.json'))
            rc = read_rc(os.path.join(rdir, arch + '.rc'))
            if kunit is None:
                total['FAIL'] += 1
                problems.append(f'{cell}: kunit.py left no results (exit {rc}); '
                                f'see {rdir}/{arch}.log')
            else:
                for s in kunit.get('sub_groups', []):
                    found[s['name']] = ('kunit', list(leaves(s, '')))
        for kind in ('e2e', 'conf'):
            if kind not in kinds:
                continue
            for path in sorted(glob.glob(os.path.join(rdir, f'{kind}-*-{arch}.json'))):
                suite = _one_suite(path, problems, cell)
                if suite is not None:
                    found[suite[0]] = (kind, suite[1])
        kunit_failed = add(cell, found)
        if kunit is not None and rc != '0' and not kunit_failed:
            # kunit.py failed although every parsed test passed: a crash or
            # timeout after the last result, or a build step that failed.
            total['FAIL'] += 1
            problems.append(f'{cell}: kunit.py exited {rc}; see {rdir}/{arch}.log')

    # Per-tree suites (mutants_apply) of every tree of the cells; for the
    # unnamed tree of bare-arch cells they sit with the host suites.
    host_found: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    if 'tree' in kinds:
        for tree in sorted({split_cell(c)[0] for c in arches}):
            found = {}
            for path in sorted(glob.glob(os.path.join(tree_results(results, tree), 'tree-*.json'))):
                suite = _one_suite(path, problems, tree_where(tree))
                if suite is not None:
                    found[suite[0]] = ('tree', suite[1])
            if tree:
                add(tree, found)
            else:
                host_found.update(found)

    if 'host' in kinds:
        for path in sorted(glob.glob(os.path.join(results, 'host-*.json'))):
            suite = _one_suite(path, problems, HOST)
            if suite is not None:
                host_found[suite[0]] = ('host', suite[1])
    if 'host' in kinds or 'tree' in kinds:
        add(HOST, host_found)

    ok = not problems and total['FAIL'] == 0
    return {'verdict': 'PASS' if ok else 'FAIL', 'arches': list(arches), 'kinds': kinds,
            'totals': {'passed': total['PASS'], 'failed': total['FAIL'],
                       'skipped': total['SKIP']},
            'results': out, 'missing': missing, 'problems': problems}


def summary_line(verdict: Json) -> str:
    t = verdict['totals']
    return f"{t['passed']} passed, {t['failed']} failed, {t['skipped']} skipped"


def render(verdict: Json) -> str:
    """The verdict as the gate prints it; its last line is summary_line()."""
    lines = ['', f'{"cell":<12} {"suite":<32} {"pass":>5} {"fail":>5} {"skip":>5}  state']
    for where, suites in verdict['results'].items():
        for name, r in suites.items():
            lines.append(f'{where:<12} {name:<32} {r["passed"]:>5} {r["failed"]:>5} '
                         f'{r["skipped"]:>5}  {r["state"]}')
    if verdict['problems']:
        lines.append('')
        lines += ['FAIL ' + p for p in verdict['problems']]
    lines.append('')
    if verdict.get('tree'):
        lines.append(verdict['tree'])
    lines += ['gate: ' + verdict['verdict'], summary_line(verdict)]
    return '\n'.join(lines)


def main(argv: Sequence[str]) -> int:
    if not argv:
        print('usage: scripts/gate.py cell... (a cell: <tree>/<arch>, or <arch>)', file=sys.stderr)
        return 2
    build = os.environ.get('BUILD') or os.path.join(REPO, 'build')
    results = os.environ.get('RESULTS') or os.path.join(build, 'results')
    suites_file = os.environ.get('SUITES') or os.path.join(REPO, 'kunit', 'SUITES')
    # KINDS=kunit: judge the KUnit suites only (make kunit-<arch>, make all):
    # no other results are even read.
    kinds = os.environ.get('KINDS', '').split()
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        print(f'gate: unknown KINDS {" ".join(unknown)} ({" ".join(KINDS)})', file=sys.stderr)
        return 2
    os.makedirs(results, exist_ok=True)
    verdict = judge(results, suites_file, argv, kinds)
    # make test TREE=<checkout>: the tree gated (scripts/usertree.sh)
    tree = read_rc(os.path.join(results, 'tree'))
    if tree:
        verdict['tree'] = tree
    print(render(verdict))
    write_json(os.path.join(results, 'verdict.json'), verdict)
    with open(os.path.join(results, 'summary'), 'w', encoding='utf-8') as f:
        f.write(summary_line(verdict) + '\n')
    return 0 if verdict['verdict'] == 'PASS' else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
