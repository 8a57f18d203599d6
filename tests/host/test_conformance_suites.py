"""conformance/SUITES against the committed baselines: make conformance
expects each fstests section on exactly the cells that have its baseline
file (conformance/known/<tree>/<arch>/<section>), and every section of
conformance/fstests/sections is a suite there."""
import os
import unittest

from common import REPO

import gate     # scripts/gate.py
from test_fstests import load_host

CONF = os.path.join(REPO, 'conformance')


def baselines() -> set[tuple[str, str]]:
    """(suite, cell) of every committed baseline file."""
    out = set()
    known = os.path.join(CONF, 'known')
    for tree in os.listdir(known):
        for arch in os.listdir(os.path.join(known, tree)):
            for sec in os.listdir(os.path.join(known, tree, arch)):
                out.add((f'fstests_overlay_{sec}', f'{tree}/{arch}'))
    return out


def expected(path: str) -> set[tuple[str, str]]:
    """(suite, cell) of every fstests line of a SUITES file."""
    return {(name, cell) for name, kind, cells in gate.read_suites(path)
            if kind == 'conf' and name.startswith('fstests_overlay_') for cell in cells}


class ConformanceSuites(unittest.TestCase):

    def test_every_baseline_is_expected_and_every_expected_has_one(self) -> None:
        want = expected(os.path.join(CONF, 'SUITES'))
        have = baselines()
        self.assertEqual(sorted(want - have), [], 'named in conformance/SUITES, no baseline file')
        self.assertEqual(sorted(have - want), [], 'a baseline file conformance/SUITES does not name')

    def test_every_section_is_a_suite(self) -> None:
        names = {n for n, _ in expected(os.path.join(CONF, 'SUITES'))}
        self.assertEqual(sorted(names), sorted(f'fstests_overlay_{s}' for s in load_host().sections()))


if __name__ == '__main__':
    unittest.main()
