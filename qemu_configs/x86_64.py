# kunit.py --qemu_config for x86_64 (QEMU's q35-less default pc machine).
import os

from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   # The serial console, and what x86_64's defaults
			   # build for nothing here (kunitconfig has the rest):
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
# CONFIG_SERIAL_8250_LPSS is not set
# CONFIG_SERIAL_8250_MID is not set
# CONFIG_SERIAL_8250_PERICOM is not set
# Booted as vmlinux through PVH (kernel_path): no bzImage step per build.
CONFIG_HYPERVISOR_GUEST=y
CONFIG_PVH=y
# ACPI's tables and interpreter, none of its drivers: virtio-mem-pci has no
# MSI-X, and only ACPI routes its INTx line (qboot's MP table has no PCI
# entries) and tells Linux where the device memory region lies (without it,
# PCI BARs are placed inside the region).  MSI-X for the other devices.
CONFIG_PCI_MSI=y
# CONFIG_ACPI_SPCR_TABLE is not set
# CONFIG_ACPI_REV_OVERRIDE_POSSIBLE is not set
# CONFIG_ACPI_AC is not set
# CONFIG_ACPI_BATTERY is not set
# CONFIG_ACPI_BUTTON is not set
# CONFIG_ACPI_FAN is not set
# CONFIG_ACPI_PROCESSOR is not set
# CONFIG_ACPI_THERMAL is not set
# CONFIG_ACPI_TABLE_UPGRADE is not set
# CONFIG_ACPI_CONTAINER is not set
# CONFIG_ACPI_HOTPLUG_MEMORY is not set
# QEMU's default CPU (qemu64) is an AMD one, and the guest runs nothing that
# needs the rest of these: firmware tables, machine checks, power and clock
# control, hardening against other users of the machine, old ABIs.
CONFIG_PROCESSOR_SELECT=y
# CONFIG_CPU_SUP_INTEL is not set
# CONFIG_CPU_SUP_HYGON is not set
# CONFIG_CPU_SUP_CENTAUR is not set
# CONFIG_CPU_SUP_ZHAOXIN is not set
# CONFIG_PERF_EVENTS_INTEL_UNCORE is not set
# CONFIG_PERF_EVENTS_INTEL_RAPL is not set
# CONFIG_PERF_EVENTS_INTEL_CSTATE is not set
# CONFIG_PERF_EVENTS_AMD_UNCORE is not set
# CONFIG_X86_MCE is not set
# CONFIG_MTRR is not set
# CONFIG_X86_PLATFORM_DEVICES is not set
# CONFIG_X86_EXTENDED_PLATFORM is not set
# CONFIG_FIRMWARE_MEMMAP is not set
# CONFIG_VGA_CONSOLE is not set
# CONFIG_POWER_SUPPLY is not set
# CONFIG_SCHED_MC_PRIO is not set
# CONFIG_SCHED_CLUSTER is not set
# CONFIG_X86_5LEVEL is not set
# CONFIG_X86_INTEL_MEMORY_PROTECTION_KEYS is not set
# CONFIG_X86_IOPL_IOPERM is not set
# CONFIG_X86_DEBUG_FPU is not set
# CONFIG_RELOCATABLE is not set
# CONFIG_SPECULATION_MITIGATIONS is not set
# CONFIG_CPU_MITIGATIONS is not set
# CONFIG_X86_16BIT is not set
# CONFIG_X86_VSYSCALL_EMULATION is not set
# CONFIG_MODIFY_LDT_SYSCALL is not set
# CONFIG_X86_UMIP is not set
# CONFIG_ISA_DMA_API is not set
# CONFIG_PCSPKR_PLATFORM is not set
# CONFIG_EARLY_PRINTK is not set''',
			   qemu_arch='x86_64',
			   # (the debug kernel: bzImage, KGATE_X86_64_IMAGE; qboot's PVH
			   # boot of its vmlinux ends before the first console line)
			   kernel_path=os.environ.get('KGATE_X86_64_IMAGE', 'vmlinux'),
			   kernel_command_line='console=ttyS0 panic_on_warn=1 panic=-1',
			   # qboot is faster than SeaBIOS and boots a PVH vmlinux;
			   # Debian's qemu-system-x86 ships it.  Two CPUs
			   # (multi-threaded TCG): KUnit and every end-to-end boot
			   # run with more than one thing at a time.
			   extra_qemu_params=['-bios', 'qboot.rom', '-smp', '2'])
