#!/usr/bin/env python3
"""Questions to a gate verdict (RESULTS/verdict.json, written by gate.py).

    scripts/verdict.py red <verdict.json> <arch> <expect>...
    scripts/verdict.py green <verdict.json> <arch> <kind>... [--besides <suite>...]

For each expectation ("suite": any of its tests failed; "suite.test": that
test failed, or any parameter of it), prints one line:

    red <expect>: <why>           or           green <expect>

A suite that did not run, ran no test or crashed (kunit.py's unnamed
entry) is red for every expectation on it.  A test that a suite which ran
to its end does not have is no expectation at all (a misspelt name would
count as red): "unknown <expect>", exit code 2.
Exit code 0 when every expectation is red, 1 when one stayed green, 2 on a
missing or unreadable verdict or an unknown test.  scripts/mutants.sh asks
this.

green: every suite of those kinds (kunit, e2e, ...) on arch ran and
passed, and there is at least one of each kind; prints "green <kind>" or
"red <kind>: <why>" per kind.  Exit code 0 when all are green, 1 if not.
A mutant that only one kind of suite may catch says so with it; the
suites after --besides (those its Expect: lines name, which are meant to
go red) are not asked.
"""
import json
import sys
from collections.abc import Sequence
from typing import Any

USAGE = ('usage: scripts/verdict.py red <verdict.json> <arch> <expect>...\n'
         '       scripts/verdict.py green <verdict.json> <arch> <kind>... [--besides <suite>...]')
HOST = 'host'
GOOD = ('PASS', 'SKIP')


class UnknownTest(Exception):
    """An expectation names a test its suite, which ran to its end, does
    not have."""


def red(verdict: dict[str, Any], arch: str, expect: str) -> list[str]:
    """Why expect (suite or suite.test) is red on arch (or among the host
    suites): the failing tests, or the suite's state; [] if it is green."""
    suite, _, test = expect.partition('.')
    results = verdict.get('results', {})
    r = results.get(arch, {}).get(suite) or results.get(HOST, {}).get(suite)
    if r is None or r['state'] == 'MISSING':
        return [f'suite {suite} did not run']
    tests: dict[str, str] = r['tests']
    if not tests:
        return [f'suite {suite} ran no test']
    # kunit.py's unnamed entry: the kernel died inside the suite (a panic,
    # say panic_on_warn); the test it died in is not listed as failed.
    if tests.get('', 'PASS') not in GOOD:
        return [f'suite {suite} crashed ({tests[""]})']
    mine = {name: status for name, status in tests.items()
            if not test or name == test or name.startswith(test + '.')}
    if not mine:
        raise UnknownTest(f'{suite} ran to its end and has no test {test}')
    return [f'{suite}.{name} {status}' for name, status in mine.items() if status not in GOOD]


def not_green(verdict: dict[str, Any], arch: str, kind: str,
              besides: Sequence[str] = ()) -> list[str]:
    """Why the suites of kind on arch, besides those named, are not all
    green ([] if they are)."""
    mine = {name: r for name, r in verdict.get('results', {}).get(arch, {}).items()
            if r.get('kind') == kind and name not in besides}
    if not mine:
        return [f'no {kind} suite ran']
    return [f'{name} {r["state"]}' for name, r in mine.items() if r['state'] != 'ok']


def main(argv: Sequence[str]) -> int:
    if len(argv) < 4 or argv[0] not in ('red', 'green'):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding='utf-8') as f:
            verdict = json.load(f)
    except (OSError, ValueError) as err:
        print(f'verdict: cannot read {argv[1]}: {err}', file=sys.stderr)
        return 2
    if argv[0] == 'green':
        ok = True
        args = list(argv[3:])
        besides = args[args.index('--besides') + 1:] if '--besides' in args else []
        kinds = args[:args.index('--besides')] if '--besides' in args else args
        for kind in kinds:
            why = not_green(verdict, argv[2], kind, besides)
            ok = ok and not why
            print(f'red {kind}: {"; ".join(why[:3])}' if why else f'green {kind}')
        return 0 if ok else 1
    all_red = True
    unknown = False
    for expect in argv[3:]:
        try:
            why = red(verdict, argv[2], expect)
        except UnknownTest as err:
            print(f'unknown {expect}: {err}')
            unknown = True
            continue
        if why:
            print(f'red {expect}: {"; ".join(why[:3])}')
        else:
            all_red = False
            print(f'green {expect}')
    if unknown:
        return 2
    return 0 if all_red else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
