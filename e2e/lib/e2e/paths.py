"""Where the end-to-end runs keep things: the kernel builds and results
under $BUILD, the tree's build dir (default: <repo>/build/<tree>, the tree
$KGATE_TREE, default 6.1), the runs' work dirs below it."""
import os
import time

LIB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # e2e/lib
REPO = os.path.dirname(os.path.dirname(LIB))
BUILD = os.environ.get('BUILD') or os.path.join(REPO, 'build',
                                                os.environ.get('KGATE_TREE') or '6.1')


def work_dir(name: str, arch: str) -> str:
    """$BUILD/e2e/<name>/<arch>/ (created): the run's build products, disks."""
    path = os.path.join(BUILD, 'e2e', name, arch)
    os.makedirs(path, exist_ok=True)
    return path


def results_dir() -> str:
    """$BUILD/results/, or $E2E_RESULTS for a run outside the gate's
    (created)."""
    path = os.environ.get('E2E_RESULTS') or os.path.join(BUILD, 'results')
    os.makedirs(path, exist_ok=True)
    return path


def log_path(name: str, arch: str) -> str:
    """$BUILD/results/e2e-<name>-<arch>.log, the console log of the run."""
    return os.path.join(results_dir(), f'e2e-{name}-{arch}.log')


def results_path(name: str, arch: str) -> str:
    """$BUILD/results/e2e-<name>-<arch>.json, read by scripts/gate.py."""
    return os.path.join(results_dir(), f'e2e-{name}-{arch}.json')


def start_log(name: str, arch: str) -> str:
    """Empty the run's log (log_path) and return its path: boots then
    append to it (append_log=True), so a run of several boots keeps all."""
    path = log_path(name, arch)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(f'e2e-host: {name} {arch} {time.strftime("%Y-%m-%d %H:%M:%S")}\n')
    return path
