"""Host side of the end-to-end QEMU runs (Python 3 standard library only).

Modules, by concern:

  e2e.paths    where things live: $BUILD/e2e/<name>/<arch>/, $BUILD/results/
  e2e.host     host tools: need_tool(), run_host(), scripts/lib.sh queries
  e2e.arches   per-arch facts, read from qemu_configs/<arch>.py (the file
               kunit.py reads) and scripts/lib.sh (the compiler)
  e2e.guest    what the guest runs: static C programs, the initramfs (newc
               cpio), ext4 disk images
  e2e.qemu     one QEMU boot: command line, console log, timeouts, no orphan
  e2e.qmp      a QMP client
  e2e.results  TAP parsing, kernel splats, a run's cases, the results JSON

A run script (e2e/<name>/run <arch>) typically:

    from e2e import arches, guest, paths, qemu, results
    arch = arches.arch_from_argv()
    prog = guest.compile_static(arch, ['test.c'], paths.work_dir(NAME, arch) + '/t')
    initrd = guest.build_initramfs(NAME, arch, {'/tests/t': prog})
    log = paths.start_log(NAME, arch)          # console log of every boot
    vm = qemu.boot(arch, initrd, log, timeout=300, append_log=True,
                   init_args=['/tests/t'], qemu_args=qemu.disk_args(img))
    sys.exit(results.finish(NAME, arch, EXPECTED, [vm]))  # results JSON

Guest side: e2e/lib/init.c (the initramfs's /init) and e2e/lib/e2e_test.h
(the TAP harness of the test programs).

The kernel is the one scripts/kunit.sh built: $BUILD/<arch>/... .  Results:
$BUILD/results/e2e-<name>-<arch>.json (KernelCI layout, as kunit.py writes)
and the console log next to it, .log.
"""


class E2EError(Exception):
    """A problem of the host side (missing tool, kernel, ...)."""


def say(msg: str) -> None:
    """A line of the host side's progress, on stdout."""
    print(f'e2e: {msg}', flush=True)
