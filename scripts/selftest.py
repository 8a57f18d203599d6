#!/usr/bin/env python3
"""The host side's own tests: tests/host/test_*.py (stdlib unittest; no
QEMU, no kernel; seconds).

    scripts/selftest.py [-v] [--json PATH] [-k PATTERN]

--json PATH: also write the results in the KernelCI layout scripts/gate.py
reads (one suite, host_selftest; the gate writes
$BUILD/results/host-selftest.json).  The last line printed is
"host selftest: N passed, N failed, N skipped"; exit code 0 iff none failed.
"""
import argparse
import os
import sys
import unittest
from types import TracebackType
from typing import Optional, TextIO, Union

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(REPO, 'tests', 'host')
SUITE = 'host_selftest'

sys.path.insert(0, os.path.join(REPO, 'e2e', 'lib'))
from e2e.results import Case, results_doc, write_json  # noqa: E402

ExcInfo = Union[tuple[type[BaseException], BaseException, TracebackType],
                tuple[None, None, None]]


def _why(err: ExcInfo) -> str:
    return '' if err[0] is None else f'{err[0].__name__}: {err[1]}'[:500]


class Recorder(unittest.TextTestResult):
    """A TextTestResult that also keeps each test's status, in order."""

    def __init__(self, stream: TextIO, descriptions: bool, verbosity: int) -> None:
        super().__init__(stream, descriptions, verbosity)
        self.cases: list[Case] = []

    def _add(self, test: unittest.TestCase, status: str, reason: str = '') -> None:
        self.cases.append(Case(test.id(), status, reason))

    def addSuccess(self, test: unittest.TestCase) -> None:
        super().addSuccess(test)
        self._add(test, 'PASS')

    def addFailure(self, test: unittest.TestCase, err: ExcInfo) -> None:
        super().addFailure(test, err)
        self._add(test, 'FAIL', _why(err))

    def addError(self, test: unittest.TestCase, err: ExcInfo) -> None:
        super().addError(test, err)
        self._add(test, 'ERROR', _why(err))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:
        super().addSkip(test, reason)
        self._add(test, 'SKIP', reason)

    def addExpectedFailure(self, test: unittest.TestCase, err: ExcInfo) -> None:
        super().addExpectedFailure(test, err)
        self._add(test, 'PASS', 'expected failure')

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase,
                   err: Optional[ExcInfo]) -> None:
        # A failed subtest fails its test (unittest then never calls
        # addSuccess for it); one that passed is part of its test's pass.
        super().addSubTest(test, subtest, err)
        if err is not None:
            failure = err[0] is not None and issubclass(err[0], test.failureException)
            self._add(subtest, 'FAIL' if failure else 'ERROR', _why(err))

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:
        super().addUnexpectedSuccess(test)
        self._add(test, 'FAIL', 'unexpected success')


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('--json', metavar='PATH')
    ap.add_argument('-k', dest='patterns', action='append', default=[],
                    help='only the tests whose name contains PATTERN')
    args = ap.parse_args(argv)

    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = [f'*{p}*' for p in args.patterns]
    suite = loader.discover(TESTS, pattern='test_*.py', top_level_dir=TESTS)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2 if args.verbose else 1,
                                     resultclass=Recorder, buffer=True)
    result = runner.run(suite)
    assert isinstance(result, Recorder)
    cases = result.cases
    # A test module that does not import is an error of its own (unittest
    # reports it as a test named unittest.loader._FailedTest.<module>).
    counts = {s: sum(c.status == s for c in cases) for s in ('PASS', 'SKIP')}
    failed = len(cases) - counts['PASS'] - counts['SKIP']
    if failed == 0 and not result.wasSuccessful():
        failed = 1      # a way to fail this Recorder does not count: fail anyway
    if args.json:
        write_json(args.json, results_doc(SUITE, None, cases))
    print(f'host selftest: {counts["PASS"]} passed, {failed} failed, {counts["SKIP"]} skipped')
    return 0 if failed == 0 and cases else 1


if __name__ == '__main__':
    sys.exit(main())
