#!/usr/bin/env python3
"""The verdict of make fuzz (scripts/fuzz.sh) on one boot of the property
suites:

    fuzz_verdict.py <kunit.py json> <console log> <iters> <seed> <suite>...

Red when a suite that was expected did not run or has a case that did not
pass, when a property case did not report exactly <iters> cases from
<seed> (a module parameter not applied must not pass fast), when the
console has a kernel report, or when another suite failed.  Prints one
line per check, the inputs per second of each case, then
"N passed, N failed"; exits 1 if any check failed.
"""
import json
import os
import re
import sys
from typing import Any, Iterator

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'e2e', 'lib'))
from e2e.results import find_reports  # noqa: E402

RUN = re.compile(r'# (\w+): seed (\d+), (\d+) cases')
FIGURE = re.compile(r'# (\w+): (\d+) cases \((.*?)\) in (\d+) ms: (\d+)/s')


def cases(group: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every test case of a kunit.py JSON group, nested ones included."""
    yield from group.get('test_cases', [])
    for sub in group.get('sub_groups', []):
        yield from cases(sub)


def judge(doc: dict[str, Any], log: str, iters: int, seed: int,
          suites: list[str]) -> list[tuple[bool, str]]:
    """(ok, what) for each check, in order."""
    checks: list[tuple[bool, str]] = []
    groups = {g['name']: g for g in doc.get('sub_groups', [])}
    for name in suites:
        g = groups.get(name)
        if g is None:
            checks.append((False, f'{name}: did not run'))
            continue
        bad = [c['name'] for c in cases(g) if c.get('status') != 'PASS']
        checks.append((not bad, f'{name}: ' + ('every case passed' if not bad
                                               else 'failed: ' + ', '.join(bad))))
    runs = RUN.findall(log)
    ok = bool(suites) and len(runs) >= len(suites) and \
        all(int(s) == seed and int(n) == iters for _, s, n in runs)
    checks.append((ok, f'every property case ran {iters} cases from seed {seed}: '
                   + (', '.join(f'{c} {n} from {s}' for c, s, n in runs) or 'none reported')))
    reports = find_reports(log)
    checks.append((not reports, 'no kernel report in the log'
                   + ('' if not reports else ': ' + reports[0].strip())))
    other = [n for n, g in groups.items() if n not in suites
             and any(c.get('status') != 'PASS' for c in cases(g))]
    checks.append((not other, 'the other suites passed'
                   + ('' if not other else ': ' + ', '.join(other))))
    return checks


def figures(log: str) -> list[str]:
    """Inputs, time and inputs per second of each property case."""
    return [f'{c}: {n} inputs ({what}) in {int(ms) / 1000:.1f} s, {rate}/s'
            for c, n, what, ms, rate in FIGURE.findall(log)]


def main(argv: list[str]) -> int:
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    jpath, lpath, iters, seed, suites = argv[0], argv[1], int(argv[2]), int(argv[3]), argv[4:]
    checks: list[tuple[bool, str]] = []
    doc: dict[str, Any] = {'sub_groups': []}
    try:
        with open(jpath, encoding='utf-8') as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        checks.append((False, f'kunit.py left no JSON results ({e})'))
    try:
        with open(lpath, encoding='utf-8', errors='replace') as f:
            log = f.read()
    except OSError as e:
        log = ''
        checks.append((False, f'no console log ({e})'))
    checks += judge(doc, log, iters, seed, suites)
    for ok, what in checks:
        print(('ok    ' if ok else 'FAIL  ') + what)
    for line in figures(log):
        print('      ' + line)
    failed = sum(not ok for ok, _ in checks)
    print(f'{len(checks) - failed} passed, {failed} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
