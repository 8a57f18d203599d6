# kunit.py --qemu_config for arm64 on QEMU's "virt" machine.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
			   # virt puts virtio-pci behind a generic ECAM host
			   # bridge: without PCI_HOST_GENERIC, virtio-mem-pci and
			   # virtio-blk-pci are never probed.
			   kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y
CONFIG_PCI_HOST_GENERIC=y
# What arm64's defaults build for nothing here (kunitconfig has the rest):
# QEMU loads the Image itself (no EFI stub), and cortex-a57 has none of the
# newer CPU features nor the errata whose workarounds are left out.
# CONFIG_EFI is not set
# CONFIG_RELOCATABLE is not set
# CONFIG_ARM64_SVE is not set
# CONFIG_ARM64_MTE is not set
# CONFIG_ARM64_PTR_AUTH is not set
# CONFIG_ARM64_AMU_EXTN is not set
# CONFIG_ARM64_BTI is not set
# CONFIG_ARM64_TLB_RANGE is not set
# CONFIG_ARM64_ERRATUM_843419 is not set
# CONFIG_DEBUG_MEMORY_INIT is not set''',
			   qemu_arch='aarch64',
			   # The uncompressed Image: no gzip step per build.
			   kernel_path='arch/arm64/boot/Image',
			   kernel_command_line='console=ttyAMA0 panic_on_warn=1 panic=-1',
			   # Two CPUs (multi-threaded TCG): KUnit and every
			   # end-to-end boot run with more than one thing at a time.
			   extra_qemu_params=['-machine', 'virt', '-cpu', 'cortex-a57',
					      '-smp', '2'])
