# kunit.py --qemu_config for arm64 on QEMU's "virt" machine.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   # virt puts virtio-pci behind a generic ECAM host
			   # bridge: without PCI_HOST_GENERIC, virtio-mem-pci and
			   # virtio-blk-pci are never probed.
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_PCI_HOST_GENERIC=y''',
			   qemu_arch='aarch64',
			   kernel_path='arch/arm64/boot/Image.gz',
			   kernel_command_line='console=ttyAMA0 panic_on_warn=1 panic=-1',
			   # Two CPUs (multi-threaded TCG): KUnit and every
			   # end-to-end boot run with more than one thing at a time.
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'cortex-a57',
					      '-smp', '2'])
