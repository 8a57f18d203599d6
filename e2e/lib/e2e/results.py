"""What a run found: the TAP results and kernel splats of its consoles, its
cases (every expected test, kernel_log_clean, run_complete) and the
results JSON that scripts/gate.py reads ($BUILD/results/e2e-<name>-<arch>.json,
KernelCI layout as kunit.py --json writes)."""
import json
import os
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple, Optional, Protocol

from . import paths, say

# Lines of a console log that mean the kernel is unwell.
SPLAT_RE = re.compile(
    r'WARNING:|BUG:|Oops|KASAN|UBSAN|possible circular locking|'
    r'[Kk]ernel panic|Call Trace|general protection fault|'
    r'INFO: task .* blocked for more than|stack-protector|'
    r'list_(add|del) corruption|RCU detected stall|soft lockup|hard LOCKUP')

# A TAP result line: "ok 3 - name", "not ok 4 - name # reason".  Searched
# (not matched at line start) so that a kernel message cut into the line
# does not hide the result.
TAP_RE = re.compile(r'(?:^|\s)(not ok|ok) (\d+)(?: -)? ([^\s#]+)\s*(?:#\s?(.*))?$')

STATUSES = ('PASS', 'FAIL', 'SKIP', 'ERROR')

# A guest program that stopped its run (e2e_test.h's E2E_REQUIRE).
BAIL_RE = re.compile(r'^Bail out! ?(.*)$', re.M)


class Case(NamedTuple):
    """One result of a run: status PASS, FAIL, SKIP or ERROR."""
    name: str
    status: str
    reason: str = ''


class Boot(Protocol):
    """What evaluate() needs of a finished boot (a qemu.Qemu)."""
    @property
    def text(self) -> str: ...
    @property
    def timed_out(self) -> bool: ...
    @property
    def returncode(self) -> Optional[int]: ...
    @property
    def powered_off(self) -> bool: ...
    @property
    def seconds(self) -> float: ...


def parse_tap(text: str) -> dict[str, tuple[str, str]]:
    """{name: (status, reason)} from the TAP result lines in text.
    status: PASS, FAIL or SKIP.  A name seen twice keeps a FAIL."""
    out: dict[str, tuple[str, str]] = {}
    for line in text.splitlines():
        if line.lstrip().startswith('#'):
            continue        # a diagnostic, e.g. "# ... host: ok 0 4"
        m = TAP_RE.search(line)
        if not m:
            continue
        verdict, _num, name, directive = m.groups()
        directive = (directive or '').strip()
        if verdict == 'ok':
            status = 'SKIP' if directive.upper().startswith('SKIP') else 'PASS'
        else:
            status = 'FAIL'
        if out.get(name, ('',))[0] == 'FAIL':
            continue
        out[name] = (status, directive)
    return out


def guest_part(text: str) -> str:
    """The console from the guest's init on ("e2e-init: start"): its TAP results.
    What the kernel printed before, KUnit's own KTAP lines of a boot that
    runs suites before init included, is no result of the run.  A console
    without that line is taken whole."""
    i = text.find('e2e-init: start')
    return text[text.rfind('\n', 0, i) + 1:] if i >= 0 else text


def find_splats(text: str) -> list[str]:
    """The console lines that show a kernel splat (SPLAT_RE)."""
    return [ln.strip() for ln in text.splitlines() if SPLAT_RE.search(ln)]


# What a debug kernel (debug/kunitconfig) reports without a WARN, so that
# panic_on_warn does not stop it: lockdep and RCU lockdep.
DEBUG_RE = re.compile(
    r'possible (circular|recursive) locking|inconsistent lock state|'
    r'suspicious RCU usage|sleeping function called')


def find_reports(text: str) -> list[str]:
    """The console lines of any kernel report a debug run must not have:
    a splat (SPLAT_RE) or a debug-only report (DEBUG_RE)."""
    return [ln.strip() for ln in text.splitlines()
            if SPLAT_RE.search(ln) or DEBUG_RE.search(ln)]


def evaluate(expected: Sequence[str], boots: Sequence[Boot],
             extra_cases: Iterable[Case] = ()) -> list[Case]:
    """The cases of a run: every expected TAP test (missing: FAIL "did not
    run", or "not run: the run stopped (...)" after a guest's "Bail out!"
    line), a TAP test not in expected, extra_cases (host-side checks), then
    kernel_log_clean (FAIL on any splat) and run_complete (FAIL unless
    every boot powered off by itself in time; FAIL with no boot)."""
    tap: dict[str, tuple[str, str]] = {}
    bail = ''
    for vm in boots:
        for k, v in parse_tap(guest_part(vm.text)).items():
            if tap.get(k, ('',))[0] != 'FAIL':
                tap[k] = v
        m = BAIL_RE.search(vm.text)
        if m and not bail:
            bail = m.group(1).strip()
    missing = ('FAIL', f'not run: the run stopped ({bail})' if bail else 'did not run')
    cases: list[Case] = []
    for name in expected:
        status, reason = tap.get(name, missing)
        cases.append(Case(name, status, reason))
    for name, (status, reason) in tap.items():
        if name not in expected:
            cases.append(Case(name, status, reason))
    cases.extend(extra_cases)
    splats = [s for vm in boots for s in find_splats(vm.text)]
    cases.append(Case('kernel_log_clean', 'FAIL' if splats else 'PASS',
                      '; '.join(splats[:5])))
    bad = [f'boot {i + 1}: ' + ('timed out' if vm.timed_out else
                                f'no clean power-off (exit {vm.returncode})')
           for i, vm in enumerate(boots) if not vm.powered_off]
    cases.append(Case('run_complete', 'FAIL' if bad or not boots else 'PASS',
                      '; '.join(bad) or ('' if boots else 'no boot')))
    return cases


def results_doc(suite: str, arch: Optional[str], cases: Iterable[Case]) -> dict[str, object]:
    """A results document in the KernelCI layout of kunit.py --json: one
    suite, its cases (a reason, if any, as "log")."""
    tcs: list[dict[str, str]] = []
    for c in cases:
        tc = {'name': c.name, 'status': c.status}
        if c.reason:
            tc['log'] = c.reason
        tcs.append(tc)
    doc: dict[str, object] = {'name': suite}
    if arch is not None:
        doc['arch'] = arch
    doc.update({'sub_groups': [], 'test_cases': tcs})
    return doc


def write_json(path: str, doc: object) -> str:
    """Write doc to path as JSON, atomically (no half-written results)."""
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        json.dump(doc, f, indent=2)
        f.write('\n')
    os.replace(path + '.tmp', path)
    return path


def write_results(name: str, arch: str, cases: Iterable[Case]) -> str:
    """Write $BUILD/results/e2e-<name>-<arch>.json (suite e2e_<name>)."""
    return write_json(paths.results_path(name, arch),
                      results_doc(f'e2e_{name}', arch, cases))


def finish(name: str, arch: str, expected: Sequence[str], boots: Sequence[Boot],
           extra_cases: Iterable[Case] = ()) -> int:
    """evaluate(), write the results JSON, print a summary; returns the run
    script's exit code (0: all passed or skipped)."""
    cases = evaluate(expected, boots, extra_cases)
    path = write_results(name, arch, cases)
    failed = [c for c in cases if c.status not in ('PASS', 'SKIP')]
    for c in cases:
        print(f'  {c.status:<5} {c.name}'
              + (f'  # {c.reason}' if c.status != 'PASS' and c.reason else ''))
    times = ', '.join(f'{vm.seconds:.1f} s' for vm in boots)
    say(f'{name} {arch}: {len(cases) - len(failed)} passed, {len(failed)} failed'
        f' (boots: {times}); {path}')
    return 1 if failed else 0


def fail_all(name: str, arch: str, expected: Sequence[str], reason: str) -> int:
    """Results for a run that could not start or finish (a host-side
    E2EError): every case FAIL, the reason at the end of the log.
    Returns 1 (the run script's exit code)."""
    cases = [Case(n, 'FAIL', reason) for n in expected]
    cases += [Case('kernel_log_clean', 'FAIL', reason), Case('run_complete', 'FAIL', reason)]
    write_results(name, arch, cases)
    with open(paths.log_path(name, arch), 'a', encoding='utf-8') as f:
        f.write(f'\ne2e-host: FAILED: {reason}\n')
    say(f'{name} {arch}: FAILED: {reason}')
    return 1
