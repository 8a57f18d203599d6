# kunit.py --qemu_config for x86_64 (QEMU's q35-less default pc machine).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   # i8042.nokbd: no AT keyboard, whose "input: AT Raw Set
			   # 2 keyboard" line comes at a random time after boot
			   # and, between a suite's "KTAP version 1" and its
			   # "# Subtest:" line, makes kunit.py report a crash.
			   kernel_command_line='console=ttyS0 panic_on_warn=1 panic=-1 i8042.nokbd',
			   # qboot is faster than SeaBIOS; Debian's qemu-system-x86
			   # ships it.  Two CPUs (multi-threaded TCG): KUnit and
			   # every end-to-end boot run with more than one thing at
			   # a time.
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', '2'])
