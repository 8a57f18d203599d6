"""The fault runs of make faults (e2e/<name>/faults, scripts/faults.sh):
which scenarios FAULTS_TESTS picks, and the figures a guest program
prints per scenario (e2e_fault.h)."""
import re
from collections.abc import Sequence

# "# faults: <scenario>: N steps, N failures injected, N failure points..."
FIGURES_RE = re.compile(r'^# faults: (\S+): (\d+) steps, (\d+) failures injected, '
                        r'(\d+) failure points(.*)$', re.M)


def matches(word: str, name: str) -> bool:
    """word names name: equal, or "prefix*" and name starts with prefix."""
    return name.startswith(word[:-1]) if word.endswith('*') else name == word


def select(names: Sequence[str], spec: str) -> list[str]:
    """The scenarios of names that the words of spec (FAULTS_TESTS) pick, in
    names' order; all of them for an empty spec.  scripts/faults.sh checks
    beforehand that every word picks a scenario of some run."""
    words = spec.split()
    if not words:
        return list(names)
    return [n for n in names if any(matches(w, n) for w in words)]


def figures(text: str) -> list[str]:
    """One line per scenario of a fault run's console: its steps, failures
    injected and distinct failure points."""
    return [f'{m.group(1)}: {m.group(2)} steps, {m.group(3)} failures injected, '
            f'{m.group(4)} distinct failure points{m.group(5)}'
            for m in FIGURES_RE.finditer(text)]
