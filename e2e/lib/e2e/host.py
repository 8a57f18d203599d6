"""Host tools: finding them, running them, asking scripts/lib.sh."""
import functools
import os
import shutil
import subprocess
from collections.abc import Sequence

from . import E2EError
from .paths import REPO

LIB_SH = os.path.join(REPO, 'scripts', 'lib.sh')


def need_tool(tool: str, package: str = '') -> str:
    """Full path of tool; E2EError naming what installs it if missing."""
    path = shutil.which(tool) or shutil.which(tool, path='/usr/sbin:/sbin')
    if not path:
        how = f'apt-get install {package}' if package else 'make deps'
        raise E2EError(f'{tool} not found; install it: {how}')
    return path


def run_host(cmd: Sequence[str], ok_codes: Sequence[int] = (0,)) -> str:
    """Run a host command; its output (stdout and stderr).  E2EError with
    that output if its exit code is not in ok_codes."""
    proc = subprocess.run(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode not in ok_codes:
        raise E2EError(f'{" ".join(cmd)} exited {proc.returncode}:\n{proc.stdout}')
    return proc.stdout


@functools.lru_cache(maxsize=None)
def lib_sh(function: str, *args: str) -> str:
    """The output (stripped) of a function of scripts/lib.sh, the one place
    of the shell-side facts (compilers, cross prefixes)."""
    proc = subprocess.run(['bash', '-c', '. "$0" && "$@"', LIB_SH, function, *args],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, check=False)
    if proc.returncode != 0:
        raise E2EError(f'scripts/lib.sh {function} {" ".join(args)}: '
                       f'{proc.stderr.strip() or f"exit {proc.returncode}"}')
    return proc.stdout.strip()
