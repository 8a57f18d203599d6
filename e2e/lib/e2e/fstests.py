"""fstests' results and the committed baseline they are judged against.

  parse_xunit()   fstests' result.xml (./check -R xunit): {test: Result}
  read_known()    a known-results file, conformance/known/<tree>/<arch>/<section>
  format_known()  the same file's text, from a baseline run's results
  judge()         the cases of a patched run, against the baseline

A known-results file has one line per test of the baseline run (the
unpatched kernel, tag base, same config):

    # comments
    overlay/001  pass
    overlay/005  notrun  <fstests' reason>
    overlay/031  fail    <a one-line reason, written by whoever refreshed it>

Only regressions count: a test that fails here and failed on the baseline
is SKIP ("known failure"), one that fails here and did not on the baseline
is FAIL, one that the baseline ran and passed but that is notrun or absent
here is FAIL too (lost coverage); a known failure that passes here is PASS
and named as fixed by the series.
"""
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import NamedTuple

from .results import Case

STATES = ('pass', 'fail', 'notrun')
_TEST_RE = re.compile(r'^[a-z0-9_-]+/[0-9A-Za-z_-]+$')


class Result(NamedTuple):
    """One fstests test's outcome: state pass, fail or notrun, and why."""
    state: str
    reason: str = ''


class KnownError(ValueError):
    """A malformed known-results file or result.xml."""


def _one_line(text: str, limit: int = 200) -> str:
    line = ' '.join(text.split())
    return line if len(line) <= limit else line[:limit - 3] + '...'


def parse_xunit(text: str) -> dict[str, Result]:
    """{test: Result} of an fstests xunit report (result.xml).  KnownError
    if it is not one."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as err:
        raise KnownError(f'result.xml: {err}') from None
    if root.tag != 'testsuite':
        raise KnownError(f'result.xml: root element {root.tag!r}, not testsuite')
    out: dict[str, Result] = {}
    for tc in root.iter('testcase'):
        name = tc.get('name', '')
        if not _TEST_RE.match(name):
            raise KnownError(f'result.xml: bad test name {name!r}')
        failure = tc.find('failure')
        skipped = tc.find('skipped')
        if failure is not None:
            out[name] = Result('fail', _one_line(failure.get('message', '')))
        elif skipped is not None:
            out[name] = Result('notrun', _one_line(skipped.get('message', '')))
        else:
            out[name] = Result('pass')
    return out


def read_known(text: str, where: str = 'known-results file') -> dict[str, Result]:
    """{test: Result} of a known-results file.  KnownError on a malformed
    line, an unknown state, a test named twice, or a fail without reason."""
    out: dict[str, Result] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith('#'):
            continue
        words = line.split(None, 2)
        if len(words) < 2 or not _TEST_RE.match(words[0]) or words[1] not in STATES:
            raise KnownError(f'{where}:{lineno}: expected "<test> pass|fail|notrun [reason]": '
                             f'{raw.strip()!r}')
        name, state = words[0], words[1]
        reason = words[2].strip() if len(words) > 2 else ''
        if name in out:
            raise KnownError(f'{where}:{lineno}: {name} listed twice')
        if state == 'fail' and not reason:
            raise KnownError(f'{where}:{lineno}: {name}: a known failure needs a reason')
        out[name] = Result(state, reason)
    return out


def known_group(text: str) -> str:
    """The fstests group a known-results file is the baseline of (its
    header line "# group: <name>"), or '' when it names none."""
    m = re.search(r'^# group: (\S+)\s*$', text, re.M)
    return m.group(1) if m else ''


def format_known(results: Mapping[str, Result], header: str,
                 reasons: Mapping[str, str]) -> str:
    """The text of a known-results file: header (comment lines), then each
    test and its state; a failure's reason is reasons[test] when given,
    else fstests' own message."""
    lines = [f'# {h}' if h else '#' for h in header.splitlines()]
    width = max((len(t) for t in results), default=0)
    for name in sorted(results):
        r = results[name]
        reason = reasons.get(name, r.reason) if r.state == 'fail' else r.reason
        lines.append(f'{name:<{width}}  {r.state:<6}  {reason}'.rstrip())
    return '\n'.join(lines) + '\n'


class Judged(NamedTuple):
    """The cases of a run and what the counts say."""
    cases: list[Case]
    counts: dict[str, int]       # pass, fail, notrun (raw), known, regressions
    fixed: list[str]             # known failures that pass here
    regressions: list[str]


def judge(got: Mapping[str, Result], known: Mapping[str, Result]) -> Judged:
    """The cases of a patched run's results (got) against the baseline's
    (known), one per test of either, sorted by name."""
    cases: list[Case] = []
    counts = {s: 0 for s in STATES}
    counts.update(known=0, regressions=0)
    fixed: list[str] = []
    regressions: list[str] = []
    for name in sorted(set(got) | set(known)):
        g = got.get(name)
        k = known.get(name)
        if g is not None:
            counts[g.state] += 1
        if g is None:
            if k is not None and k.state == 'pass':
                case = Case(name, 'FAIL', 'did not run here; passed on the baseline')
            else:
                continue        # not run here, and nothing lost
        elif g.state == 'pass':
            if k is not None and k.state == 'fail':
                fixed.append(name)
                case = Case(name, 'PASS', f'fixed: failed on the baseline ({k.reason})')
            else:
                case = Case(name, 'PASS')
        elif g.state == 'notrun':
            if k is not None and k.state == 'pass':
                case = Case(name, 'FAIL', f'notrun here ({g.reason}); passed on the baseline')
            else:
                case = Case(name, 'SKIP', f'notrun: {g.reason}')
        elif k is not None and k.state == 'fail':
            counts['known'] += 1
            case = Case(name, 'SKIP', f'known failure (baseline): {k.reason}')
        else:
            was = k.state if k is not None else 'not in the baseline'
            case = Case(name, 'FAIL', f'regression ({was} on the baseline): {g.reason}')
        if case.status == 'FAIL':
            counts['regressions'] += 1
            regressions.append(name)
        cases.append(case)
    return Judged(cases, counts, fixed, regressions)
