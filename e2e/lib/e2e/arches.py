"""Per-arch facts of the end-to-end runs, from the places they live:

  qemu_configs/<arch>.py   (kunit.py's --qemu_config files) the QEMU binary,
                           machine arguments, console and kernel image path;
  scripts/lib.sh           the C compiler (arch_cc) and its package.

The qemu_configs files do "from ..qemu_config import QemuArchParams", an
import that only works inside kunit.py's tree: they are executed here with
a stand-in QemuArchParams of the same fields.
"""
import builtins
import functools
import glob
import os
import sys
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from . import E2EError, paths
from .host import lib_sh, need_tool

CONFIGS = os.path.join(paths.REPO, 'qemu_configs')


@dataclass(frozen=True)
class QemuArchParams:
    """Stand-in for kunit.py's qemu_config.QemuArchParams (Linux 6.1)."""
    linux_arch: str
    kconfig: str
    qemu_arch: str
    kernel_path: str
    kernel_command_line: str
    extra_qemu_params: list[str]


@dataclass(frozen=True)
class Arch:
    """One arch: its name (as kunit.py --arch and $BUILD/<arch>) and its
    qemu_configs/<arch>.py."""
    name: str
    params: QemuArchParams

    @property
    def qemu(self) -> str:
        """The QEMU binary, e.g. qemu-system-aarch64."""
        return f'qemu-system-{self.params.qemu_arch}'

    @property
    def machine_args(self) -> list[str]:
        """QEMU arguments of the machine (-bios qboot.rom, -machine virt ...)."""
        return list(self.params.extra_qemu_params)

    @property
    def console_args(self) -> str:
        """Kernel parameters of the console (console=ttyS0)."""
        return self.params.kernel_command_line

    @property
    def kernel_rel(self) -> str:
        """The kernel image, relative to $BUILD: <arch>/arch/.../bzImage."""
        return os.path.join(self.name, self.params.kernel_path)


def _importer(stand_in: types.ModuleType) -> Any:
    real = builtins.__import__

    def imp(name: str, globs: Optional[Mapping[str, object]] = None,
            locs: Optional[Mapping[str, object]] = None,
            fromlist: Sequence[str] = (), level: int = 0) -> types.ModuleType:
        if name == 'qemu_config' and level > 0:
            return stand_in
        return real(name, globs, locs, fromlist, level)
    return imp


def load_params(path: str) -> QemuArchParams:
    """QEMU_ARCH of a kunit.py --qemu_config file, as a QemuArchParams."""
    stand_in = types.ModuleType('qemu_config')
    setattr(stand_in, 'QemuArchParams', QemuArchParams)
    bins = dict(vars(builtins))
    bins['__import__'] = _importer(stand_in)
    ns: dict[str, Any] = {'__builtins__': bins, '__name__': 'kgate_qemu_config',
                          '__file__': path}
    try:
        with open(path, encoding='utf-8') as f:
            code = compile(f.read(), path, 'exec')
        exec(code, ns)  # pylint: disable=exec-used
    except (OSError, SyntaxError, ImportError, NameError, TypeError) as err:
        raise E2EError(f'cannot read {path}: {err}') from None
    params = ns.get('QEMU_ARCH')
    if not isinstance(params, QemuArchParams):
        raise E2EError(f'{path} defines no QEMU_ARCH = QemuArchParams(...)')
    return params


def names() -> list[str]:
    """The arches that have a qemu_configs/<arch>.py."""
    return sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(CONFIGS, '*.py')))


@functools.lru_cache(maxsize=None)
def get(arch: str) -> Arch:
    """The facts of arch; E2EError for an arch with no qemu_configs file."""
    if arch not in names():
        raise E2EError(f'unknown arch {arch!r} ({", ".join(names())})')
    params = load_params(os.path.join(CONFIGS, arch + '.py'))
    if params.linux_arch != arch:
        raise E2EError(f'qemu_configs/{arch}.py: linux_arch is {params.linux_arch!r}')
    return Arch(arch, params)


def arch_from_argv(argv: Optional[Sequence[str]] = None) -> str:
    """The arch named by a run script's first argument (exits on misuse)."""
    argv = sys.argv if argv is None else argv
    known = names()
    if len(argv) < 2 or argv[1] not in known:
        print(f'usage: {argv[0] if argv else "run"} {"|".join(known)}', file=sys.stderr)
        sys.exit(2)
    return argv[1]


def kernel_image(arch: str) -> str:
    """Path of the arch's kernel built by scripts/kunit.sh; E2EError if none."""
    path = os.path.join(paths.BUILD, get(arch).kernel_rel)
    if not os.path.isfile(path):
        raise E2EError(f'no {arch} kernel at {path}; build it: make kunit-{arch}')
    return path


def compiler(arch: str) -> str:
    """The C compiler for static guest programs of arch (scripts/lib.sh's
    arch_cc), its full path."""
    return need_tool(lib_sh('arch_cc', arch), lib_sh('arch_cc_pkg', arch))


# x86_64 boots QEMU's q35 machine for the runs with PCI devices that boot
# the debug kernel (virtio_mem, the fault runs), not kunit.py's pc.
# virtio-mem-pci has no MSI-X ("vectors" is not one of its properties), so
# its config interrupt, which tells the driver of a new requested-size, is
# PCI INTx, routed by ACPI's _PRT method, which Linux also evaluates when it
# enables any PCI device.  pc's _PRT builds its table in an AML loop of 128
# iterations; on the debug kernel (generic KASAN saves a stack trace for
# each of the interpreter's allocations) under TCG that loop took 33 s, past
# ACPICA's 30 s loop timeout: "AE_AML_LOOP_TIMEOUT", "PCI INT A: no GSI",
# an RCU stall report, 30 s lost per device, and a virtio-mem device that
# never interrupts, so the first request is never served.  q35's _PRT
# returns a static package (0.4 s on the same kernel).
PCI_MACHINE = {'x86_64': ['-machine', 'q35']}


def pci_machine_args(arch: str) -> list[str]:
    """QEMU arguments for the machine of a run with PCI devices on the
    debug kernel (PCI_MACHINE); none where the arch's own is right."""
    return list(PCI_MACHINE.get(arch, []))
