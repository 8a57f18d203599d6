#!/usr/bin/env python3
"""Summarise the gate's results and decide.

    [KINDS="kunit e2e host"] [RESULTS=dir] [SUITES=file] scripts/gate.py arch...

Reads, in RESULTS (default: $BUILD/results, BUILD default <repo>/build),
only the results of the kinds judged (KINDS, default all three):

  kunit  <arch>.json          kunit.py --json output (KernelCI layout)
         <arch>.rc            scripts/kunit.sh's exit code (its one writer)
  e2e    e2e-*-<arch>.json    end-to-end results (same layout, one suite)
  host   host-*.json          arch-independent suites (same layout, one
                              suite), e.g. host-selftest.json

and SUITES (default <repo>/kunit/SUITES), the one list of suites that must
have run.  Prints a per-arch table, the failing tests, the missing suites
and, last, "N passed, N failed, N skipped" (also written to RESULTS/summary).
Writes RESULTS/verdict.json, the same verdict for programs:

  {"verdict": "PASS"|"FAIL", "arches": [...], "kinds": [...],
   "totals": {"passed": N, "failed": N, "skipped": N},
   "results": {<arch or "host">: {<suite>: {"kind": ..., "state":
       "ok"|"FAILED"|"MISSING", "passed": N, "failed": N, "skipped": N,
       "tests": {<test>: "PASS"|"FAIL"|"SKIP"|"ERROR"|...}}}},
   "missing": [{"arch": <arch or "host">, "suite": ...}],
   "problems": ["<arch>: <what>", ...],
   "tree": "tree: <checkout>, ..."}   (make test TREE=<checkout> only)

A file RESULTS/tree (scripts/usertree.sh) names the tree gated: its line is
printed before the verdict.

Exits 1 on any failed, crashed, timed-out, empty or missing suite, on an
arch whose KUnit run left no results or exited non-zero (or left no exit
code), and on a SUITES file it cannot read.
"""
import glob
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ('kunit', 'e2e', 'host')
HOST = 'host'            # the "arch" of the arch-independent (host) suites
COUNTED = ('PASS', 'FAIL', 'SKIP')

Json = dict[str, Any]


def read_suites(path: str) -> list[tuple[str, str, list[str]]]:
    """(suite, kind, [arch...]) of each line "suite kind [arch...]" of a
    SUITES file ('#' comments).  ValueError on a malformed line."""
    out = []
    with open(path, encoding='utf-8') as f:
        for lineno, raw in enumerate(f, 1):
            words = raw.split('#', 1)[0].split()
            if not words:
                continue
            if len(words) < 2 or words[1] not in KINDS:
                raise ValueError(f'{path}:{lineno}: expected "suite kind [arch...]" '
                                 f'with kind one of {", ".join(KINDS)}: {raw.strip()!r}')
            if words[1] == 'host' and len(words) > 2:
                raise ValueError(f'{path}:{lineno}: a host suite runs once, on no arch: '
                                 f'{raw.strip()!r}')
            out.append((words[0], words[1], words[2:]))
    return out


def load_expected(path: str, arches: Sequence[str],
                  kinds: Optional[Sequence[str]] = None) -> dict[str, list[str]]:
    """{arch: [suite, ...], HOST: [suite, ...]} from a SUITES file (see
    read_suites; no arch named: every arch).  Kind host is arch-independent:
    its suites are listed under HOST.  Only the kinds named (all if none)."""
    want: dict[str, list[str]] = {a: [] for a in arches}
    want[HOST] = []
    for suite, kind, on in read_suites(path):
        if kinds and kind not in kinds:
            continue
        if kind == 'host':
            want[HOST].append(suite)
            continue
        for a in arches:
            if not on or a in on:
                want[a].append(suite)
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


def judge(results: str, suites_file: str, arches: Sequence[str],
          kinds: Sequence[str] = ()) -> Json:
    """The verdict (the document of verdict.json) on the results in the
    directory results, against suites_file, for arches and kinds (all
    kinds if empty)."""
    kinds = [k for k in KINDS if not kinds or k in kinds]
    problems: list[str] = []
    try:
        want = load_expected(suites_file, arches, kinds)
        kind_of = {suite: kind for suite, kind, _on in read_suites(suites_file)}
    except (OSError, ValueError) as err:
        want = {a: [] for a in [*arches, HOST]}
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

    for arch in arches:
        found: dict[str, tuple[str, list[tuple[str, str]]]] = {}
        kunit = None
        rc = None
        if 'kunit' in kinds:
            kunit = read_json(os.path.join(results, arch + '.json'))
            rc = read_rc(os.path.join(results, arch + '.rc'))
            if kunit is None:
                total['FAIL'] += 1
                problems.append(f'{arch}: kunit.py left no results (exit {rc}); '
                                f'see {results}/{arch}.log')
            else:
                for s in kunit.get('sub_groups', []):
                    found[s['name']] = ('kunit', list(leaves(s, '')))
        if 'e2e' in kinds:
            for path in sorted(glob.glob(os.path.join(results, f'e2e-*-{arch}.json'))):
                suite = _one_suite(path, problems, arch)
                if suite is not None:
                    found[suite[0]] = ('e2e', suite[1])
        kunit_failed = add(arch, found)
        if kunit is not None and rc != '0' and not kunit_failed:
            # kunit.py failed although every parsed test passed: a crash or
            # timeout after the last result, or a build step that failed.
            total['FAIL'] += 1
            problems.append(f'{arch}: kunit.py exited {rc}; see {results}/{arch}.log')

    if 'host' in kinds:
        found = {}
        for path in sorted(glob.glob(os.path.join(results, 'host-*.json'))):
            suite = _one_suite(path, problems, HOST)
            if suite is not None:
                found[suite[0]] = ('host', suite[1])
        add(HOST, found)

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
    lines = ['', f'{"arch":<8} {"suite":<32} {"pass":>5} {"fail":>5} {"skip":>5}  state']
    for where, suites in verdict['results'].items():
        for name, r in suites.items():
            lines.append(f'{where:<8} {name:<32} {r["passed"]:>5} {r["failed"]:>5} '
                         f'{r["skipped"]:>5}  {r["state"]}')
    if verdict['problems']:
        lines.append('')
        lines += ['FAIL ' + p for p in verdict['problems']]
    lines.append('')
    if verdict.get('tree'):
        lines.append(verdict['tree'])
    lines += ['gate: ' + verdict['verdict'], summary_line(verdict)]
    return '\n'.join(lines)


def write_json(path: str, doc: object) -> None:
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    os.replace(path + '.tmp', path)


def main(argv: Sequence[str]) -> int:
    if not argv:
        print('usage: scripts/gate.py arch...', file=sys.stderr)
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
