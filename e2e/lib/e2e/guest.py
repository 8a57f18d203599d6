"""What the guest runs: static C programs (cross-compiled), the initramfs
(a gzip'd newc cpio with e2e/lib/init.c as /init), ext4 disk images (made
by mkfs.ext4 on a file: nothing is mounted on the host)."""
import glob
import gzip
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple, Optional, Union

from . import E2EError, paths
from .arches import compiler
from .host import need_tool, run_host


def _newer(target: str, sources: Iterable[str]) -> bool:
    """Is target there and at least as new as every source?"""
    try:
        t = os.stat(target).st_mtime_ns
    except OSError:
        return False
    return all(os.stat(s).st_mtime_ns <= t for s in sources)


def compile_static(arch: str, sources: Sequence[str], output: str,
                   cflags: Sequence[str] = (), include_dirs: Sequence[str] = (),
                   deps: Sequence[str] = ()) -> str:
    """Compile C sources into a static guest executable output (for arch).

    e2e/lib is on the include path (e2e_test.h, e2e_fault.h).  Rebuilt
    only when a source, a deps file, a header of e2e/lib or this module is
    newer.  Returns output.
    """
    cc = compiler(arch)
    srcs = [os.path.abspath(s) for s in sources]
    watch = srcs + [os.path.abspath(d) for d in deps] + sorted(
        glob.glob(os.path.join(paths.LIB, '*.h'))) + [os.path.abspath(__file__)]
    if _newer(output, watch):
        return output
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    cmd = [cc, '-static', '-O2', '-g0', '-Wall', '-Wextra', '-Wno-unused-parameter',
           '-Wno-unused-function', '-Wno-missing-field-initializers',
           '-D_GNU_SOURCE', '-I', paths.LIB]
    for d in include_dirs:
        cmd += ['-I', d]
    cmd += list(cflags) + ['-o', output + '.tmp'] + srcs
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if proc.returncode != 0:
        raise E2EError(f'compiling {", ".join(map(os.path.basename, srcs))} '
                       f'for {arch} failed:\n{proc.stdout}')
    if proc.stdout.strip():
        sys.stdout.write(proc.stdout)
    os.replace(output + '.tmp', output)
    return output


def build_init(arch: str, outdir: Optional[str] = None) -> str:
    """Compile e2e/lib/init.c for arch; returns the binary's path."""
    outdir = outdir or os.path.join(paths.BUILD, 'e2e', 'lib', arch)
    return compile_static(arch, [os.path.join(paths.LIB, 'init.c')],
                          os.path.join(outdir, 'init'))


# ---- initramfs ---------------------------------------------------------------
# Entries of make_cpio(): guest paths without the leading '/'.

class Dir(NamedTuple):
    name: str
    mode: int


class File(NamedTuple):
    name: str
    mode: int
    data: Union[bytes, str]        # the contents, or a host path to read


class Chr(NamedTuple):
    name: str
    mode: int
    major: int
    minor: int


class Symlink(NamedTuple):
    name: str
    target: str


Entry = Union[Dir, File, Chr, Symlink]

S_IFDIR, S_IFREG, S_IFCHR, S_IFLNK = 0o040000, 0o100000, 0o020000, 0o120000


def _cpio_entry(ino: int, name: str, mode: int, data: bytes = b'',
                rdev: tuple[int, int] = (0, 0)) -> bytes:
    """One newc header (owner root, mtime 0, one link), name and data, each
    padded to 4 bytes."""
    name_b = name.encode() + b'\0'
    hdr = '070701' + ''.join(f'{v:08x}' for v in (
        ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
        len(name_b), 0))
    return b''.join([hdr.encode(), name_b,
                     b'\0' * ((4 - (110 + len(name_b)) % 4) % 4),
                     data, b'\0' * ((4 - len(data) % 4) % 4)])


def cpio_bytes(entries: Iterable[Entry]) -> bytes:
    """A newc cpio archive of entries, in order (parent directories first),
    then the trailer.  Inodes count from 1; owner root, mtime 0."""
    out: list[bytes] = []
    for ino, e in enumerate(entries, start=1):
        name = e.name.lstrip('/')
        if isinstance(e, Dir):
            out.append(_cpio_entry(ino, name, S_IFDIR | e.mode))
        elif isinstance(e, File):
            data = e.data
            if isinstance(data, str):
                with open(data, 'rb') as f:
                    data = f.read()
            out.append(_cpio_entry(ino, name, S_IFREG | e.mode, data))
        elif isinstance(e, Chr):
            out.append(_cpio_entry(ino, name, S_IFCHR | e.mode, rdev=(e.major, e.minor)))
        elif isinstance(e, Symlink):
            out.append(_cpio_entry(ino, name, S_IFLNK | 0o777, e.target.encode()))
        else:
            raise E2EError(f'make_cpio: unknown entry {e!r}')
    out.append(_cpio_entry(0, 'TRAILER!!!', 0))
    return b''.join(out)


def make_cpio(path: str, entries: Iterable[Entry]) -> str:
    """Write a gzip'd newc cpio archive (an initramfs) of entries to path
    (see cpio_bytes).  Returns path."""
    data = gzip.compress(cpio_bytes(entries), compresslevel=6, mtime=0)
    with open(path + '.tmp', 'wb') as f:
        f.write(data)
    os.replace(path + '.tmp', path)
    return path


def initramfs_entries(init: str, programs: Mapping[str, str],
                      files: Optional[Mapping[str, Union[str, bytes]]] = None,
                      dirs: Sequence[str] = ()) -> list[Entry]:
    """The entries of build_initramfs()'s archive (see there)."""
    entries: list[Entry] = [Dir('dev', 0o755), Chr('dev/console', 0o600, 5, 1),
                            Chr('dev/null', 0o666, 1, 3)]
    made = {'dev'}

    def mkdirs(path: str) -> None:
        """path and its parents, each once, parents first."""
        parts = path.strip('/').split('/')
        for i in range(1, len(parts) + 1):
            d = '/'.join(parts[:i])
            if d and d not in made:
                entries.append(Dir(d, 0o755))
                made.add(d)

    for d in ('proc', 'sys', 'tmp', 'mnt', 'tests', *dirs):
        mkdirs(d)
    entries.append(File('init', 0o755, init))
    for guest, host in sorted(programs.items()):
        mkdirs(os.path.dirname(guest))
        entries.append(File(guest.strip('/'), 0o755, host))
    for guest, data in sorted((files or {}).items()):
        mkdirs(os.path.dirname(guest))
        entries.append(File(guest.strip('/'), 0o644, data))
    return entries


def build_initramfs(name: str, arch: str, programs: Mapping[str, str],
                    files: Optional[Mapping[str, Union[str, bytes]]] = None,
                    dirs: Sequence[str] = ()) -> str:
    """$BUILD/e2e/<name>/<arch>/initramfs.cpio.gz with e2e/lib/init as /init.

    programs: {guest path: host path} of executables (e.g. '/tests/foo');
    files: {guest path: host path or bytes} of plain files (mode 0644);
    dirs: extra empty directories.  /dev/console, /dev/null, /proc, /sys,
    /tmp, /mnt, /tests exist; every parent directory is made, mode 0755.
    Returns the archive's path.
    """
    entries = initramfs_entries(build_init(arch), programs, files, dirs)
    return make_cpio(os.path.join(paths.work_dir(name, arch), 'initramfs.cpio.gz'), entries)


# ---- disks ---------------------------------------------------------------------

def make_ext4(path: str, size_mb: int = 64, src_dir: Optional[str] = None,
              label: Optional[str] = None, extra_args: Sequence[str] = ()) -> str:
    """A fresh ext4 image file at path (mkfs.ext4; nothing is mounted)."""
    mkfs = need_tool('mkfs.ext4', 'e2fsprogs')
    if os.path.exists(path):
        os.unlink(path)
    with open(path, 'wb') as f:
        f.truncate(size_mb << 20)
    cmd = [mkfs, '-q', '-F', '-b', '4096']
    if label:
        cmd += ['-L', label]
    if src_dir:
        cmd += ['-d', src_dir]
    cmd += list(extra_args) + [path]
    run_host(cmd)
    return path
