"""e2e/lib/e2e/fstests.py: fstests' xunit report, the known-results files
and the judgement of a run against the baseline."""
import importlib.machinery
import importlib.util
import os
import unittest
from typing import Any

from common import REPO, TempDirTest
from e2e.fstests import KnownError, Result, format_known, judge, parse_xunit, read_known

XML = '''<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="xfstests" failures="1" skipped="1" tests="3" time="12">
\t<properties><property name="SECTION" value="default"/></properties>
\t<testcase classname="xfstests.default" name="overlay/001" time="3">
\t</testcase>
\t<testcase classname="xfstests.default" name="overlay/005" time="0">
\t\t<skipped message="xfs_io   falloc  failed (old kernel/wrong fs?)" />
\t</testcase>
\t<testcase classname="xfstests.default" name="overlay/031" time="4">
\t\t<failure message="- output mismatch (see overlay/031.out.bad)" type="TestFail" />
\t\t<system-out><![CDATA[
lots of output
]]></system-out>
\t</testcase>
</testsuite>
'''


class ParseXunit(unittest.TestCase):
    def test_states_and_reasons(self) -> None:
        self.assertEqual(parse_xunit(XML), {
            'overlay/001': Result('pass'),
            'overlay/005': Result('notrun', 'xfs_io falloc failed (old kernel/wrong fs?)'),
            'overlay/031': Result('fail', '- output mismatch (see overlay/031.out.bad)'),
        })

    def test_not_xml(self) -> None:
        with self.assertRaisesRegex(KnownError, 'result.xml'):
            parse_xunit('<testsuite><testcase name="overlay/001">')

    def test_wrong_root(self) -> None:
        with self.assertRaisesRegex(KnownError, 'not testsuite'):
            parse_xunit('<html/>')

    def test_bad_name(self) -> None:
        with self.assertRaisesRegex(KnownError, 'bad test name'):
            parse_xunit('<testsuite><testcase name="../x"/></testsuite>')

    def test_empty_suite(self) -> None:
        self.assertEqual(parse_xunit('<testsuite/>'), {})


KNOWN = '''# fstests overlay, section default
overlay/001  pass
overlay/005  notrun  xfs_io falloc failed
overlay/031  fail    upstream bug: copy-up of # in names
'''


class ReadKnown(unittest.TestCase):
    def test_reads(self) -> None:
        self.assertEqual(read_known(KNOWN), {
            'overlay/001': Result('pass'),
            'overlay/005': Result('notrun', 'xfs_io falloc failed'),
            'overlay/031': Result('fail', 'upstream bug: copy-up of # in names'),
        })

    def test_refuses_unknown_state(self) -> None:
        with self.assertRaisesRegex(KnownError, r'f:2: expected'):
            read_known('overlay/001 pass\noverlay/002 flaky\n', 'f')

    def test_refuses_bad_name(self) -> None:
        with self.assertRaisesRegex(KnownError, 'expected'):
            read_known('001 pass\n')

    def test_refuses_twice(self) -> None:
        with self.assertRaisesRegex(KnownError, 'listed twice'):
            read_known('overlay/001 pass\noverlay/001 fail x\n')

    def test_refuses_failure_without_reason(self) -> None:
        with self.assertRaisesRegex(KnownError, 'needs a reason'):
            read_known('overlay/031 fail\n')

    def test_round_trip(self) -> None:
        got = parse_xunit(XML)
        text = format_known(got, 'header\nline two', {'overlay/031': 'why it fails'})
        self.assertTrue(text.startswith('# header\n# line two\n'))
        self.assertEqual(read_known(text)['overlay/031'], Result('fail', 'why it fails'))
        self.assertEqual(read_known(text)['overlay/005'].state, 'notrun')


class Judge(unittest.TestCase):
    def status(self, got: dict[str, Result], known: dict[str, Result]) -> dict[str, str]:
        return {c.name: c.status for c in judge(got, known).cases}

    def test_same_as_baseline_is_green(self) -> None:
        j = judge(read_known(KNOWN), read_known(KNOWN))
        self.assertEqual({c.name: c.status for c in j.cases},
                         {'overlay/001': 'PASS', 'overlay/005': 'SKIP', 'overlay/031': 'SKIP'})
        self.assertEqual(j.regressions, [])
        self.assertEqual(j.counts, {'pass': 1, 'fail': 1, 'notrun': 1, 'known': 1,
                                    'regressions': 0})

    def test_new_failure_is_a_regression(self) -> None:
        j = judge({'overlay/001': Result('fail', 'output mismatch')}, read_known(KNOWN))
        self.assertEqual(j.regressions, ['overlay/001'])
        self.assertIn('regression (pass on the baseline)', j.cases[0].reason)

    def test_failure_of_a_notrun_or_new_test_is_a_regression(self) -> None:
        self.assertEqual(self.status({'overlay/005': Result('fail', 'x'),
                                      'overlay/099': Result('fail', 'y')},
                                     read_known(KNOWN))['overlay/099'], 'FAIL')
        self.assertEqual(self.status({'overlay/005': Result('fail', 'x')},
                                     read_known(KNOWN))['overlay/005'], 'FAIL')

    def test_lost_coverage_is_red(self) -> None:
        st = self.status({'overlay/001': Result('notrun', 'no user fsgqa')}, read_known(KNOWN))
        self.assertEqual(st['overlay/001'], 'FAIL')
        st = self.status({}, read_known(KNOWN))
        self.assertEqual(st, {'overlay/001': 'FAIL'})

    def test_fixed(self) -> None:
        j = judge({'overlay/031': Result('pass')}, read_known(KNOWN))
        self.assertEqual(j.fixed, ['overlay/031'])
        self.assertEqual(j.cases[-1].status, 'PASS')


if __name__ == '__main__':
    unittest.main()


class SmokeTier(TempDirTest):
    """conformance/fstests/host's "smoke" group: the list in
    conformance/fstests/smoke, each test of which fstests must have."""

    def host(self) -> Any:
        loader = importlib.machinery.SourceFileLoader(
            'fstests_host', os.path.join(REPO, 'conformance', 'fstests', 'host'))
        spec = importlib.util.spec_from_loader('fstests_host', loader)
        assert spec is not None
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return mod

    def group_list(self, *tests: str) -> str:
        self.write('fst/tests/overlay/group.list',
                   ''.join(f'{t} auto quick\n' for t in tests))
        return self.path('fst')

    def test_the_list(self) -> None:
        host = self.host()
        names = host.smoke_list()
        self.assertIn('overlay/018', names)          # kept mutant conf_fstests-index-two-links-not-indexed
        self.assertEqual(len(names), len(set(names)))
        fst = self.group_list(*(n.split('/')[1] for n in names), '001')
        self.assertEqual(host.select(fst, 'smoke'), names)
        self.assertEqual(len(host.select(fst, 'quick')), len(names) + 1)

    def test_a_test_fstests_lacks(self) -> None:
        host = self.host()
        fst = self.group_list('001', '018')
        with self.assertRaisesRegex(host.E2EError, 'names tests this fstests does not have: overlay/014'):
            host.select(fst, 'smoke')
