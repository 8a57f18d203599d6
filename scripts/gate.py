#!/usr/bin/env python3
"""Summarise the gate's results and decide.

Reads, for every arch named on the command line:
  build/results/<arch>.json   kunit.py --json output (KernelCI layout)
  build/results/<arch>.rc     kunit.py's exit code
  build/results/e2e-*-<arch>.json   end-to-end results (same layout, one suite)
and kunit/SUITES, the one list of suites that must have run.

Prints a per-arch table, the failing tests, the missing suites and, last,
"N passed, N failed, N skipped".  Exits 1 on any failed, crashed, timed-out
or missing suite, and on an arch whose run produced no results.
"""
import glob
import json
import os
import sys


def load_expected(path, arches, kinds=None):
    """{arch: [suite, ...]} from kunit/SUITES ("suite kind arch...")."""
    want = {a: [] for a in arches}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].split()
            if not line:
                continue
            suite, kind, *on = line
            if kinds and kind not in kinds:
                continue
            for a in arches:
                if not on or a in on:
                    want[a].append(suite)
    return want


def leaves(group, prefix):
    """Yield (test name, status) of every test case under a JSON group."""
    for case in group.get('test_cases', []):
        yield prefix + case['name'], case['status']
    for sub in group.get('sub_groups', []):
        # A parameterised case is a group of its own: name it suite.case.param
        yield from leaves(sub, prefix + sub['name'] + '.')


def read_json(path):
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    results = os.environ.get('RESULTS', 'build/results')
    suites_file = os.environ.get('SUITES', 'kunit/SUITES')
    arches = sys.argv[1:] or ['x86_64', 'arm64']
    # KINDS=kunit: judge the KUnit suites only (make kunit-<arch>, make all)
    kinds = os.environ.get('KINDS', '').split()
    want = load_expected(suites_file, arches, kinds)

    rows, problems = [], []
    total = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    for arch in arches:
        suites = {}
        kunit = read_json(os.path.join(results, arch + '.json'))
        rc_path = os.path.join(results, arch + '.rc')
        rc = open(rc_path).read().strip() if os.path.exists(rc_path) else None
        if kunit is None:
            problems.append(f'{arch}: kunit.py left no results (exit {rc}); '
                            f'see {results}/{arch}.log')
        else:
            for s in kunit.get('sub_groups', []):
                suites[s['name']] = list(leaves(s, ''))
        for path in sorted(glob.glob(os.path.join(results, f'e2e-*-{arch}.json'))):
            e2e = read_json(path)
            if e2e is None:
                problems.append(f'{arch}: unreadable {path}')
                continue
            suites[e2e['name']] = list(leaves(e2e, ''))

        crashed_run = kunit is not None and rc not in (None, '0')
        for name in sorted(suites):
            count = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
            for test, status in suites[name]:
                key = status if status in count else 'FAIL'
                count[key] += 1
                if key == 'FAIL':
                    problems.append(f'{arch}: {name}.{test} {status}')
            if not suites[name]:
                count['FAIL'] += 1
                problems.append(f'{arch}: {name} ran no test')
            for k in count:
                total[k] += count[k]
            state = 'ok' if count['FAIL'] == 0 else 'FAILED'
            rows.append((arch, name, count['PASS'], count['FAIL'], count['SKIP'], state))
        for name in want[arch]:
            if name not in suites:
                total['FAIL'] += 1
                rows.append((arch, name, 0, 1, 0, 'MISSING'))
                problems.append(f'{arch}: expected suite {name} did not run')
        if kunit is None:
            total['FAIL'] += 1
        elif crashed_run and not any(p.startswith(arch + ':') for p in problems):
            # kunit.py failed although every parsed test passed: a crash or
            # timeout after the last result, or a build step that failed.
            total['FAIL'] += 1
            problems.append(f'{arch}: kunit.py exited {rc}; see {results}/{arch}.log')

    print()
    print(f'{"arch":<8} {"suite":<32} {"pass":>5} {"fail":>5} {"skip":>5}  state')
    for r in rows:
        print(f'{r[0]:<8} {r[1]:<32} {r[2]:>5} {r[3]:>5} {r[4]:>5}  {r[5]}')
    if problems:
        print()
        for p in problems:
            print('FAIL', p)
    print()
    ok = not problems and total['FAIL'] == 0
    print('gate: ' + ('PASS' if ok else 'FAIL'))
    line = f"{total['PASS']} passed, {total['FAIL']} failed, {total['SKIP']} skipped"
    print(line)
    with open(os.path.join(results, 'summary'), 'w', encoding='utf-8') as f:
        f.write(line + '\n')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
