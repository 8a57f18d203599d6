"""conformance/table: the per-section table and its regressions line."""
import json
import unittest

from common import TempDirTest, run


def section(name: str, regressions: int) -> dict[str, object]:
    return {'name': name, 'arch': 'x86_64', 'sub_groups': [], 'test_cases': [],
            'conformance': {'counts': {'pass': 3, 'fail': 1, 'known': 1, 'notrun': 2,
                                       'regressions': regressions},
                            'fixed': [], 'seconds': 12}}


def cases(name: str, *statuses: str) -> dict[str, object]:
    return {'name': name, 'arch': 'x86_64', 'sub_groups': [],
            'test_cases': [{'name': f'c{i}', 'status': s} for i, s in enumerate(statuses)]}


class TableTest(TempDirTest):
    def table(self, *docs: dict[str, object]) -> tuple[int, list[str]]:
        for d in docs:
            self.write(f'6.1/results/conf-{d["name"]}-x86_64.json', json.dumps(d))
        p = run(['conformance/table', self.tmp, '6.1/x86_64'])
        return p.returncode, p.stdout.splitlines()

    def test_sections_and_memory_hotplug(self) -> None:
        rc, out = self.table(section('fstests_overlay_default', 0),
                             cases('memory_hotplug', 'PASS', 'PASS', 'SKIP'))
        self.assertEqual(rc, 0, out)
        self.assertEqual(out[-1], 'conformance: 0 regressions')
        self.assertEqual(out[1].split(), ['6.1/x86_64', 'fstests_overlay_default',
                                          '6', '3', '1', '1', '2', '0', '0', '12'])
        self.assertEqual(out[2].split(), ['6.1/x86_64', 'memory_hotplug',
                                          '3', '2', '0', '-', '1', '0', '-'])

    def test_regressions(self) -> None:
        rc, out = self.table(section('fstests_overlay_default', 2),
                             cases('memory_hotplug', 'PASS', 'FAIL'))
        self.assertEqual(rc, 1, out)
        self.assertEqual(out[-1], 'conformance: 3 regressions')

    def test_suite_without_cases(self) -> None:
        rc, out = self.table(cases('memory_hotplug'))
        self.assertEqual(rc, 1, out)
        self.assertIn('no case reported', out[1])


if __name__ == '__main__':
    unittest.main()
