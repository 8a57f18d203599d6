"""scripts/source.sh: a tree's kernel tarball through an apt list of the
project's own (stand-in apt-get and apt-cache on PATH; no network)."""
import os
import subprocess

from common import REPO, TempDirTest, run

SCRIPT = os.path.join(REPO, 'scripts', 'source.sh')
APT_GET = """#!/bin/sh
# stand-in apt-get: STUB_UPDATE=fail, STUB_DEB=<.deb to hand out>
for a in "$@"; do
	case $a in
	update) [ "$STUB_UPDATE" = fail ] && { echo "E: Failed to fetch trixie-backports InRelease"; exit 100; }; exit 0 ;;
	download) cp "$STUB_DEB" ./linux-source-7.3_7.3.9-1~bpo13+1_all.deb; exit 0 ;;
	esac
done
exit 1
"""
APT_CACHE = """#!/bin/sh
echo "linux-source-7.3:"
echo "  Installed: (none)"
echo "  Candidate: ${STUB_CANDIDATE:-7.3.9-1~bpo13+1}"
"""


class Source(TempDirTest):
    def setUp(self) -> None:
        super().setUp()
        self.write('bin/apt-get', APT_GET, 0o755)
        self.write('bin/apt-cache', APT_CACHE, 0o755)
        root = self.path('deb')
        self.write('deb/usr/src/linux-source-7.3.tar.xz', 'the 7.3 tarball\n')
        self.write('deb/DEBIAN/control', 'Package: linux-source-7.3\nVersion: 7.3.9-1~bpo13+1\n'
                   'Architecture: all\nMaintainer: x <x@example.org>\nDescription: x\n')
        subprocess.run(['dpkg-deb', '--build', '--root-owner-group', root, self.path('src.deb')],
                       check=True, stdout=subprocess.DEVNULL)
        self.env = {'PATH': self.path('bin') + ':' + os.environ['PATH'],
                    'KGATE_SOURCES': self.path('sources'), 'STUB_DEB': self.path('src.deb'),
                    'KGATE_SOURCES_MAX_AGE_MIN': '0'}

    def source(self, **env: str) -> tuple[int, str]:
        p = run([SCRIPT, '7.3'], env={**self.env, **env})
        return p.returncode, p.stdout

    def test_fetched_once(self) -> None:
        rc, out = self.source()
        tarball = self.path('sources', 'linux-source-7.3.tar.xz')
        self.assertEqual((rc, out.splitlines()[-1]), (0, tarball), out)
        self.assertIn('source: fetched linux-source-7.3 7.3.9-1~bpo13+1', out)
        with open(tarball, encoding='utf-8') as f:
            self.assertEqual(f.read(), 'the 7.3 tarball\n')
        with open(self.path('sources', 'apt', 'sources.list'), encoding='utf-8') as f:
            self.assertEqual(f.read(), 'deb http://deb.debian.org/debian trixie-backports main\n')
        rc, out = self.source()                 # same version: nothing fetched
        self.assertEqual((rc, out), (0, tarball + '\n'))

    def test_update_fails_nothing_fetched(self) -> None:
        rc, out = self.source(STUB_UPDATE='fail')
        self.assertEqual(rc, 1)
        self.assertEqual(out, 'source: linux-source-7.3 cannot be had from "deb http://deb.debian.org/'
                         'debian trixie-backports main": apt-get update failed (E: Failed to fetch '
                         'trixie-backports InRelease)\n')

    def test_no_such_package(self) -> None:
        rc, out = self.source(STUB_CANDIDATE='(none)')
        self.assertEqual(rc, 1)
        self.assertIn('cannot be had from', out)
        self.assertIn(': no such package there', out)

    def test_offline_keeps_what_it_has(self) -> None:
        self.assertEqual(self.source()[0], 0)
        rc, out = self.source(STUB_UPDATE='fail')
        self.assertEqual(rc, 0, out)
        self.assertIn('using the linux-source-7.3 7.3.9-1~bpo13+1 already fetched', out)

    def test_lists_updated_once_an_hour(self) -> None:
        """make deps and scripts/tree.sh both ask: the second asks no mirror."""
        tarball = self.path('sources', 'linux-source-7.3.tar.xz')
        self.assertEqual(self.source(KGATE_SOURCES_MAX_AGE_MIN='60')[0], 0)
        self.assertEqual(self.source(KGATE_SOURCES_MAX_AGE_MIN='60', STUB_UPDATE='fail'),
                         (0, tarball + '\n'))

    def test_cells_fetch_only_their_trees(self) -> None:
        """make deps (scripts/cells.sh sources): the default cells' trees come
        from the system's apt sources; a 7.3 cell fetches its tarball."""
        cells = os.path.join(REPO, 'scripts', 'cells.sh')
        tarball = self.path('sources', 'linux-source-7.3.tar.xz')
        p = run([cells, 'sources'], env=self.env)
        self.assertEqual((p.returncode, p.stdout), (0, ''))
        self.assertFalse(os.path.exists(tarball))
        p = run([cells, 'sources'], env={**self.env, 'CELLS': '7.3/arm64 6.1/x86_64'})
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertTrue(os.path.exists(tarball))
        p = run([cells, 'sources'], env={**self.env, 'CELLS': '7.3/x86_64', 'STUB_CANDIDATE': '(none)',
                                         'KGATE_SOURCES': self.path('none')})
        self.assertEqual(p.returncode, 1)
        self.assertIn(': no such package there', p.stdout)

    def test_unknown_tree(self) -> None:
        p = run([SCRIPT, '6.1'], env=self.env)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no apt line for tree '6.1'", p.stdout)
