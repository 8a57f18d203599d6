#!/usr/bin/env python3
"""A run that failed, then passed when run once more:

    scripts/flaky.py merge FIRST.json SECOND.json OUT.json [--known FILE]

FIRST and SECOND are the results of the two attempts (KernelCI layout,
suite e2e_<name>).  OUT gets SECOND's cases, where each test that failed
in FIRST and passed in SECOND is marked: FAIL with "flaky: failed, then
passed on a rerun" (red: the gate does not pass on luck), or, if the
known-flaky list (--known, default kunit/FLAKY: "<suite>.<test>  <reason>"
lines) names it, PASS with "known flaky (<reason>): failed, then passed on
a rerun".  Prints one line per such test ("flaky <suite>.<test>" or
"known flaky <suite>.<test>: <reason>").  Exit code 0 if OUT has no
failure, 1 otherwise.
"""
import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KNOWN = os.path.join(REPO, 'kunit', 'FLAKY')
BAD = ('FAIL', 'ERROR', 'CRASHED', 'TIMEOUT')


def read_known(path: str) -> dict[str, str]:
    """{suite.test: reason} of a known-flaky list; each entry needs a reason."""
    out: dict[str, str] = {}
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return out
    for n, raw in enumerate(lines, 1):
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        words = line.split(None, 1)
        if len(words) < 2 or '.' not in words[0]:
            raise ValueError(f'{path}:{n}: want "<suite>.<test>  <reason>": {raw.strip()!r}')
        out[words[0]] = words[1].strip()
    return out


def statuses(doc: dict[str, Any]) -> dict[str, str]:
    return {tc['name']: tc['status'] for tc in doc.get('test_cases', [])}


def merge(first: dict[str, Any], second: dict[str, Any],
          known: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """(OUT, the lines to print)."""
    suite = second.get('name') or first.get('name', '?')
    before = statuses(first)
    lines = []
    cases = []
    for tc in second.get('test_cases', []):
        tc = dict(tc)
        name = tc['name']
        if before.get(name) in BAD and tc['status'] not in BAD:
            full = f'{suite}.{name}'
            if full in known:
                tc['status'] = 'PASS'
                tc['log'] = f'known flaky ({known[full]}): failed, then passed on a rerun'
                lines.append(f'known flaky {full}: {known[full]}')
            else:
                tc['status'] = 'FAIL'
                tc['log'] = 'flaky: failed, then passed on a rerun'
                lines.append(f'flaky {full}')
        cases.append(tc)
    return {**second, 'test_cases': cases}, lines


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('cmd', choices=['merge'])
    ap.add_argument('first')
    ap.add_argument('second')
    ap.add_argument('out')
    ap.add_argument('--known', default=KNOWN)
    args = ap.parse_args(argv)
    try:
        known = read_known(args.known)
        with open(args.first, encoding='utf-8') as f:
            first = json.load(f)
        with open(args.second, encoding='utf-8') as f:
            second = json.load(f)
    except (OSError, ValueError) as err:
        print(f'flaky: {err}', file=sys.stderr)
        return 2
    out, lines = merge(first, second, known)
    for line in lines:
        print(line)
    with open(args.out + '.tmp', 'w', encoding='utf-8') as f:
        json.dump(out, f, indent=2)
        f.write('\n')
    os.replace(args.out + '.tmp', args.out)
    return 1 if any(tc['status'] in BAD for tc in out['test_cases']) else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
