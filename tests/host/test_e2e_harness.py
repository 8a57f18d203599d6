"""The guest programs' TAP harness (e2e/lib/e2e_test.h), built with the
host's compiler and run here: a failed precondition stops the run."""
import os

from common import REPO, TempDirTest, run

from e2e.results import parse_tap  # noqa: E402

PROG = r"""
#include "e2e_test.h"
static void t_ok(void) { }
static void t_fails(void) { E2E_ASSERT(0, "a check"); }
static void t_stops(void) { E2E_REQUIRE(1 == 2, "vm0 still at %d MiB", 128); }
static void t_later(void) { e2e_diag("later ran"); }
static const struct e2e_test tests[] = {
	{ "first", t_ok, 10 }, { "fails", t_fails, 10 }, { "stops", t_stops, 10 },
	{ "later", t_later, 10 }, { "last", t_later, 10 },
};
int main(int argc, char **argv)
{
	return e2e_main(argc, argv, tests, E2E_COUNT(tests), NULL, NULL);
}
"""


class Harness(TempDirTest):
    def run_prog(self, *names: str) -> tuple[int, str]:
        self.write('t.c', PROG)
        exe = self.path('t')
        p = run(['gcc', '-Wall', '-Wextra', '-Werror', '-Wno-unused-function',
                 '-I', os.path.join(REPO, 'e2e', 'lib'), 't.c', '-o', exe], cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout)
        p = run([exe, *names])
        return p.returncode, p.stdout

    def test_require_stops_the_run(self) -> None:
        rc, out = self.run_prog()
        self.assertEqual(rc, 5, out)                      # E2E_EXIT_BAIL
        tap = parse_tap(out)
        self.assertEqual(tap['first'], ('PASS', ''))
        self.assertEqual(tap['fails'][0], 'FAIL')         # an assert: the run goes on
        self.assertEqual(tap['stops'], ('FAIL', 't.c:5: precondition (1 == 2) vm0 still at 128 MiB'))
        for name in ('later', 'last'):
            self.assertEqual(tap[name], ('FAIL', 'not run: stopped by stops: t.c:5: '
                                         'precondition (1 == 2) vm0 still at 128 MiB'))
        self.assertNotIn('later ran', out)
        self.assertIn('\nBail out! stops: ', out)

    def test_without_a_stop_every_test_runs(self) -> None:
        rc, out = self.run_prog('first', 'fails', 'later')
        self.assertEqual(rc, 1, out)
        self.assertIn('later ran', out)
        self.assertNotIn('Bail out!', out)

    def test_prefix_names_every_match(self) -> None:
        """"la*" names every test starting with "la", in table order; an
        unknown name is "not ok" by its own name, also after a prefix."""
        rc, out = self.run_prog('la*', 'nosuch', 'first')
        self.assertEqual(rc, 1, out)
        self.assertIn('1..4\n', out)
        lines = [ln for ln in out.splitlines() if ln.startswith(('ok ', 'not ok '))]
        self.assertEqual(lines, ['ok 1 - later', 'ok 2 - last',
                                 'not ok 3 - nosuch # no such test', 'ok 4 - first'])
        self.assertIn("unknown test 'nosuch'", out)
        rc, out = self.run_prog('zz*')
        self.assertEqual(rc, 1, out)
        self.assertIn('not ok 1 - zz* # no such test', out)
