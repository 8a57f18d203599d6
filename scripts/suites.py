#!/usr/bin/env python3
"""The suites a SUITES file expects of one cell, of one kind: the one
parser of kunit/SUITES (scripts/gate.py's read_suites and load_expected)
for the shell scripts too.

    scripts/suites.py [--file SUITES] [--suffix S] KIND CELL
    scripts/suites.py lines [--file SUITES] [--drop-kind KIND]... [--drop SUITE]...

KIND: kunit, e2e, conf, tree or host; CELL: <tree>/<arch> or a bare arch.
Prints the names, one a line, in the file's order (--suffix: only those
ending in S, e.g. _prop).  A suite that names no arch runs on every cell.
lines: the file's suites as SUITES lines, less the kinds and suites named
(a SUITES file for a run that does not expect them).
Exit code 2, with the line at fault, on a malformed file.
"""
import argparse
import os
import sys
from typing import Sequence

import gate


def expected(path: str, kind: str, cell: str, suffix: str = '') -> list[str]:
    """The suites of that kind the file expects of cell."""
    want = gate.load_expected(path, [cell], [kind])
    where = {'host': gate.HOST, 'tree': gate.tree_where(gate.split_cell(cell)[0])}.get(kind, cell)
    return [s for s in want.get(where, []) if s.endswith(suffix)]


def lines(path: str, drop_kinds: Sequence[str] = (), drop: Sequence[str] = ()) -> list[str]:
    """The suites of the file as "suite kind [arch...]" lines, less those."""
    return [' '.join([name, kind, *on]) for name, kind, on in gate.read_suites(path)
            if kind not in drop_kinds and name not in drop]


def main(argv: Sequence[str]) -> int:
    listing = argv[:1] == ['lines']
    ap = argparse.ArgumentParser(prog='suites.py lines' if listing else None, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--file', default=os.path.join(gate.REPO, 'kunit', 'SUITES'))
    if listing:
        ap.add_argument('--drop-kind', action='append', default=[], choices=gate.KINDS)
        ap.add_argument('--drop', action='append', default=[])
    else:
        ap.add_argument('--suffix', default='')
        ap.add_argument('kind', choices=gate.KINDS)
        ap.add_argument('cell')
    args = ap.parse_args(argv[1:] if listing else argv)
    try:
        out = (lines(args.file, args.drop_kind, args.drop) if listing
               else expected(args.file, args.kind, args.cell, args.suffix))
    except (OSError, ValueError) as err:
        print(f'suites: {err}', file=sys.stderr)
        return 2
    for line in out:
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
