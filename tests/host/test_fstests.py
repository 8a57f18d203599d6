"""e2e/lib/e2e/fstests.py: fstests' xunit report, the known-results files
and the judgement of a run against the baseline."""
import argparse
import importlib.machinery
import importlib.util
import os
import unittest
from typing import Any

from common import REPO, TempDirTest
from e2e.fstests import (KnownError, Result, format_known, judge, known_group, parse_xunit,
                         read_known)

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

    def test_known_group(self) -> None:
        self.assertEqual(known_group('# written 2026\n# group: quick\noverlay/001  pass\n'),
                         'quick')
        self.assertEqual(known_group('# a baseline from before groups were named\n'), '')


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


def load_host() -> Any:
    """conformance/fstests/host as a module."""
    loader = importlib.machinery.SourceFileLoader(
        'fstests_host', os.path.join(REPO, 'conformance', 'fstests', 'host'))
    spec = importlib.util.spec_from_loader('fstests_host', loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class SmokeTier(TempDirTest):
    """conformance/fstests/host's "smoke" group: the list in
    conformance/fstests/smoke, each test of which fstests must have."""

    def host(self) -> Any:
        return load_host()

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


class SectionsAndBaselineRows(SmokeTier):
    """conformance/fstests/sections (section, base filesystem, options) and
    a baseline run of some tests, which rewrites only their rows."""

    def test_the_committed_sections(self) -> None:
        secs = self.host().sections()
        self.assertEqual(secs['default'], ('ext4', '-'))
        self.assertEqual(secs['uuid_off'], ('ext4', 'index=on,uuid=off'))
        self.assertEqual(secs['xfs'], ('xfs', '-'))

    def test_refuses_an_unknown_base(self) -> None:
        host = self.host()
        path = self.write('sections', '# c\ndefault ext4 - why\nodd btrfs - why\n')
        with self.assertRaisesRegex(host.E2EError, r'sections:3: .*base one of ext4, xfs'):
            host.sections(path)

    def test_refuses_a_row_without_options(self) -> None:
        host = self.host()
        path = self.write('sections', 'default ext4\n')
        with self.assertRaisesRegex(host.E2EError, r'sections:1: want "section base options why"'):
            host.sections(path)

    def write_known(self, tests: str, got: dict[str, Result]) -> str:
        host = self.host()
        host.ROOT = self.tmp
        known = self.write('known', '# old\noverlay/001  pass\n'
                           'overlay/025  fail    no ACLs on tmpfs\n'
                           'overlay/100  notrun  unionmount testsuite required.\n'
                           'overlay/103  notrun  unionmount testsuite required.\n')
        args = argparse.Namespace(tests=tests, section='uuid_off', label='6.1/x86_64',
                                  arch='x86_64', group='all')
        group = ['overlay/001', 'overlay/025', 'overlay/100']    # 103: group rotate
        host.write_known(known, got, args, 12.0, group)
        with open(known, encoding='utf-8') as f:
            return f.read()

    def test_some_tests_rewrite_their_rows_and_drop_what_the_group_left(self) -> None:
        text = self.write_known('overlay/025 overlay/100', {
            'overlay/025': Result('pass'), 'overlay/100': Result('fail', 'output mismatch')})
        rows = [ln.split()[:2] for ln in text.splitlines() if not ln.startswith('#')]
        self.assertEqual(rows, [['overlay/001', 'pass'], ['overlay/025', 'pass'],
                                ['overlay/100', 'fail']])
        self.assertIn('12 s, 2 of its rows', text)
        self.assertEqual(known_group(text), 'all')

    def test_a_rerun_keeps_the_whole_runs_figure(self) -> None:
        host = self.host()
        host.ROOT = self.tmp
        known = self.write('known', '# Written by make conformance-baseline (2026-12-01, 2482 s); '
                           'a reason\noverlay/001  pass\noverlay/100  fail  output mismatch\n')
        args = argparse.Namespace(tests='overlay/100', section='uuid_off', label='6.1/x86_64',
                                  arch='x86_64', group='all')
        host.write_known(known, {'overlay/100': Result('pass')}, args, 33.0,
                         ['overlay/001', 'overlay/100'])
        with open(known, encoding='utf-8') as f:
            line = [ln for ln in f if ln.startswith('# Written by')][0]
        self.assertRegex(line, r'^# Written by make conformance-baseline \(2026-12-01, 2482 s; '
                               r'overlay/100 rerun \d{4}-\d\d-\d\d, 33 s\); ')

    def test_the_whole_group_rewrites_the_file(self) -> None:
        text = self.write_known('', {'overlay/025': Result('fail', 'setfacl failed')})
        rows = [ln for ln in text.splitlines() if not ln.startswith('#')]
        self.assertEqual(rows, ['overlay/025  fail    no ACLs on tmpfs'])

    def test_rotate_runs_in_default_only(self) -> None:
        host = self.host()
        self.write('fst/tests/overlay/group.list',
                   '019 auto stress\n100 auto quick union samefs\n103 auto union rotate samefs\n')
        fst = self.path('fst')
        self.assertEqual(host.select(fst, 'all', 'default'), ['overlay/100', 'overlay/103'])
        self.assertEqual(host.select(fst, 'all', 'uuid_off'), ['overlay/100'])
        self.assertEqual(host.select(fst, 'rotate', 'uuid_off'), ['overlay/103'])
