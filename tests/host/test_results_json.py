"""scripts/results_json.py: the results JSON of
debug_kernel_log (test-debug.sh) and the soak's debug_reports (soak.sh),
through the one writer e2e.results.write_json."""
import json
import os
from typing import Any

from common import REPO, TempDirTest, run

SCRIPT = os.path.join(REPO, 'scripts', 'results_json.py')


class ResultsJson(TempDirTest):
    def load(self, path: str) -> Any:
        with open(path, encoding='utf-8') as f:
            return json.load(f)

    def test_logs(self) -> None:
        clean = self.write('e2e-overlayfs-x86_64.log',
                           'boot\n[ 0.1] Lock dependency validator: Copyright\nok 1 - a\n')
        bad = self.write('e2e-virtio_mem-x86_64.log',
                         'ok 1 - a\n[ 3.2] WARNING: possible circular locking dependency detected\n')
        out = self.path('out.json')
        p = run([SCRIPT, 'logs', 'debug_kernel_log', 'x86_64', out, clean, bad,
                 self.path('gone.log')])
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn('report in', p.stdout)
        self.assertEqual(self.load(out)['test_cases'], [
            {'name': 'e2e_overlayfs_x86_64_log', 'status': 'PASS'},
            {'name': 'e2e_virtio_mem_x86_64_log', 'status': 'FAIL',
             'log': '[ 3.2] WARNING: possible circular locking dependency detected'},
            {'name': 'gone.log', 'status': 'FAIL', 'log': 'missing'}])
        self.assertEqual(self.load(out)['arch'], 'x86_64')

    def test_add_reports(self) -> None:
        doc = {'name': 'e2e_virtio_mem_soak', 'sub_groups': [],
               'test_cases': [{'name': 'soak', 'status': 'PASS'}]}
        js = self.write('soak.json', json.dumps(doc))
        log = self.write('soak.log', 'cycle 1\n')
        p = run([SCRIPT, 'add-reports', js, log])
        self.assertEqual((p.returncode, p.stdout.splitlines()[-1]), (0, '2 passed, 0 failed'))
        self.write('soak.log', 'cycle 1\n[ 9.9] BUG: KASAN: use-after-free in x\n')
        self.write('soak.json', json.dumps(doc))
        p = run([SCRIPT, 'add-reports', js, log])
        self.assertEqual((p.returncode, p.stdout.splitlines()[-1]), (1, '1 passed, 1 failed'))
        self.assertEqual(self.load(js)['test_cases'][-1],
                         {'name': 'debug_reports', 'status': 'FAIL',
                          'log': '[ 9.9] BUG: KASAN: use-after-free in x'})

    def test_bad_use(self) -> None:
        self.assertEqual(run([SCRIPT, 'frob']).returncode, 2)
        self.assertEqual(run([SCRIPT, 'sync', self.path('none'), self.path('o')]).returncode, 2)
