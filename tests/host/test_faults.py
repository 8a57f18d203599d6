"""make faults on the host side: the kernel log scanner of the guest
programs (e2e/lib/e2e_fault.h, built with the host's compiler and fed
records through a socket, one record per message as /dev/kmsg gives
them), FAULTS_TESTS (e2e/lib/e2e/faults.py, scripts/faults.sh) and the
figures line."""
import os

from common import REPO, TempDirTest, run

from e2e import faults  # noqa: E402

# Feeds each argument as one record to e2e_fault_scan(), then prints what
# it found.
SCAN = r"""
#include "e2e_fault.h"
#include <sys/socket.h>
int main(int argc, char **argv)
{
	struct e2e_fault_points *p = calloc(1, sizeof(*p));
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
		return 2;
	for (int i = 1; i < argc; i++)
		if (write(sv[1], argv[i], strlen(argv[i])) < 0)
			return 2;
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	e2e_fault_scan(sv[0], p);
	printf("logged %u unplaced %u reports %u\n", p->logged, p->unplaced, p->reports);
	for (unsigned int i = 0; i < p->count; i++)
		printf("point %s\n", p->name[i]);
	if (p->reports)
		printf("first report %s\n", p->report);
	return 0;
}
"""

INJECT = '5,100,200,-;FAULT_INJECTION: forcing a failure.'
TRACE = ['4,101,200,-;CPU: 0 PID: 70 Comm: ovl_faults Not tainted 6.1.0 #1',
         '4,102,200,-;Call Trace:', '4,103,200,-; <TASK>',
         '4,104,200,-; dump_stack_lvl+0x45/0x5e',
         '4,105,200,-; should_fail.cold+0x5/0xa',
         '4,106,200,-; should_failslab+0x9/0x10',
         '4,107,200,-; kmem_cache_alloc+0x4b/0x3a0',
         '4,108,200,-; ? ovl_alloc_inode+0x10/0x20',
         '4,109,200,-; ovl_alloc_inode+0x1c/0x60',
         '4,110,200,-; alloc_inode+0x1d/0xb0']


class Scanner(TempDirTest):
    def scan(self, *records: str) -> str:
        self.write('scan.c', SCAN)
        exe = self.path('scan')
        p = run(['gcc', '-Wall', '-Wextra', '-Werror', '-Wno-unused-function',
                 '-Wno-unused-parameter', '-D_GNU_SOURCE',
                 '-I', os.path.join(REPO, 'e2e', 'lib'), 'scan.c', '-o', exe], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout)
        p = run([exe, *records])
        self.assertEqual(p.returncode, 0, p.stdout)
        return p.stdout

    def test_the_point_is_the_first_frame_below_the_allocator(self) -> None:
        out = self.scan(INJECT, *TRACE)
        self.assertIn('logged 1 unplaced 0 reports 0\n', out)
        self.assertIn('point ovl_alloc_inode\n', out)
        self.assertNotIn('point alloc_inode', out)

    def test_a_point_hit_twice_counts_once(self) -> None:
        out = self.scan(INJECT, *TRACE, INJECT, *TRACE)
        self.assertIn('logged 2 unplaced 0 reports 0\n', out)
        self.assertEqual(out.count('point '), 1, out)

    def test_a_failure_without_a_trace_is_unplaced(self) -> None:
        out = self.scan(INJECT, INJECT, *TRACE)
        self.assertIn('logged 2 unplaced 1 reports 0\n', out)

    def test_a_warning_is_a_report(self) -> None:
        out = self.scan(INJECT, *TRACE,
                        '4,120,300,-;WARNING: CPU: 1 PID: 70 at fs/overlayfs/copy_up.c:700 x+0x1/0x2')
        self.assertIn('reports 1\n', out)
        self.assertIn('# kernel report: WARNING: CPU: 1 PID: 70 at fs/overlayfs/copy_up.c:700', out)

    def test_an_allocation_failure_report_is_not_one(self) -> None:
        out = self.scan(INJECT, '4,130,300,-;ovl_faults: page allocation failure: order:0, '
                        'mode:0xcc0(GFP_KERNEL)', *TRACE)
        self.assertIn('logged 1 unplaced 0 reports 0\n', out)


class Select(TempDirTest):
    NAMES = ['alloc_copy_up_data', 'alloc_rename_redirect', 'eio_copy_up']

    def test_empty_is_all(self) -> None:
        self.assertEqual(faults.select(self.NAMES, ' '), self.NAMES)

    def test_exact_and_prefix_in_table_order(self) -> None:
        self.assertEqual(faults.select(self.NAMES, 'eio_copy_up alloc_*'), self.NAMES)
        self.assertEqual(faults.select(self.NAMES, 'alloc_rename_redirect'),
                         ['alloc_rename_redirect'])

    def test_a_name_is_not_a_prefix(self) -> None:
        self.assertEqual(faults.select(self.NAMES, 'alloc'), [])

    def test_figures(self) -> None:
        text = ('# faults: data: 131 steps, 130 failures injected, 58 failure points, '
                '0 without a frame, 95 s\nnoise\n')
        self.assertEqual(faults.figures(text), [
            'data: 131 steps, 130 failures injected, 58 distinct failure points, '
            '0 without a frame, 95 s'])

    def test_faults_sh_refuses_a_name_no_run_has(self) -> None:
        for spec in ('alloc_copy_up_dat', 'nope*', 'alloc_* faults_sbm typo'):
            with self.subTest(spec=spec):
                # (a cell no tree has: should the check let the word
                # through, the run stops there, before any build)
                p = run([os.path.join(REPO, 'scripts', 'faults.sh')],
                        env={'FAULTS_TESTS': spec, 'FAULTS_BUILD': self.path('b'),
                             'CELLS': '0.0/x86_64'})
                self.assertEqual(p.returncode, 2, p.stdout)
                self.assertIn('faults: FAULTS_TESTS: no scenario', p.stdout)
                self.assertFalse(os.path.exists(self.path('b')))
