#!/usr/bin/env python3
"""Results JSON for the shell scripts, written by the one typed writer
(e2e/lib/e2e/results.py: results_doc, write_json; the layout scripts/gate.py
reads).

    scripts/results_json.py logs SUITE ARCH OUT LOG...
        one case per console log: FAIL on a kernel report (a splat or a
        lockdep/RCU report, e2e.results.find_reports; lockdep's banner at
        boot is none), FAIL "missing" for a log that cannot be read.
    scripts/results_json.py add-reports JSON LOG
        add the case debug_reports (the same reports in LOG) to a results
        file; prints "N passed, N failed" of the whole file; exit 1 if any
        case failed.

Each prints the first report it finds; exit code 0 unless said otherwise.
"""
import json
import os
import re
import sys
from typing import Optional, Sequence

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'e2e', 'lib'))
from e2e.results import Case, find_reports, results_doc, write_json  # noqa: E402

# lockdep's own banner at boot is not a report
BANNER = 'Lock dependency validator'


def reports(text: str) -> list[str]:
    """The kernel reports of a console log, less lockdep's banner."""
    return [h for h in find_reports(text) if BANNER not in h]


def read(path: str) -> Optional[str]:
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except OSError:
        return None


def log_cases(logs: Sequence[str]) -> list[Case]:
    """One case per log, named after the file (non-word characters as _)."""
    cases = []
    for path in logs:
        base = os.path.basename(path)
        text = read(path)
        if text is None:
            cases.append(Case(base, 'FAIL', 'missing'))
            continue
        hits = reports(text)
        if hits:
            print(f'report in {path}: {hits[0]}')
        cases.append(Case(re.sub(r'\W', '_', base), 'FAIL' if hits else 'PASS',
                          hits[0] if hits else ''))
    return cases


def add_reports(json_path: str, log: str) -> int:
    """Add debug_reports to json_path; the exit code of the whole file."""
    with open(json_path, encoding='utf-8') as f:
        doc = json.load(f)
    hits = reports(read(log) or '')
    case = {'name': 'debug_reports', 'status': 'FAIL' if hits else 'PASS'}
    if hits:
        case['log'] = hits[0]
        print(f'kernel report: {hits[0]}')
    doc['test_cases'].append(case)
    write_json(json_path, doc)
    failed = sum(c['status'] not in ('PASS', 'SKIP') for c in doc['test_cases'])
    print(f'{len(doc["test_cases"]) - failed} passed, {failed} failed')
    return 1 if failed else 0


def main(argv: Sequence[str]) -> int:
    if len(argv) >= 4 and argv[0] == 'logs':
        suite, arch, out = argv[1:4]
        write_json(out, results_doc(suite, arch, log_cases(argv[4:])))
        return 0
    if len(argv) == 3 and argv[0] == 'add-reports':
        return add_reports(argv[1], argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
