#!/usr/bin/env bash
# Install the Debian packages this project needs, skipping what is present.
#
# Usage: scripts/deps.sh
#
# Every make target depends on this (through a stamp file), so a fresh Debian
# machine needs nothing done by hand.  A package that cannot be installed stops
# the run with one line naming it and the command that installs it.
set -euo pipefail

# package            why
PKGS=(
	linux-source-6.1      # the kernel trees the series apply to (patches/<tree>/);
	linux-source-6.12     # 6.12 comes from bookworm-security
	make gcc libc6-dev     # host build
	flex bison bc         # kbuild
	libelf-dev libssl-dev # objtool, certs
	xz-utils git rsync    # tree import, series handling
	python3               # kunit.py, gate, QMP client
	python3-ply python3-git # checkpatch.pl's SPDX check (spdxcheck.py)
	ccache                # cached rebuilds, shared by clones
	qemu-system-x86       # x86_64 guests (ships qboot.rom)
	qemu-system-arm       # arm64 guests
	gcc-aarch64-linux-gnu # arm64 cross compiler
	libc6-dev-arm64-cross # static arm64 guest programs
	cpio                  # initramfs
	e2fsprogs             # ext4 images without mounting them
	mypy                  # make selftest: mypy --strict on the host Python
	debootstrap           # the conformance guest's Debian root (scripts/rootfs.sh)
	autoconf automake libtool pkg-config # fstests' build
	xfslibs-dev uuid-dev libattr1-dev libacl1-dev # fstests' required headers
	libaio-dev liburing-dev libgdbm-dev libcap-dev # fstests' optional programs
)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done

[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}"
sudo=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "deps: missing packages: ${missing[*]}; install them as root: apt-get install ${missing[*]}" >&2
		exit 1
	fi
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	# The package lists may be missing or stale on a fresh machine.
	$sudo apt-get update -q >>"$log" 2>&1 || true
	if ! $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
		tail -n 5 "$log" >&2
		for p in "${missing[@]}"; do
			if ! apt-cache show "$p" >/dev/null 2>&1; then
				echo "deps: package '$p' is not available from apt; enable a Debian 12 (bookworm, and bookworm-security for linux-source-6.12) source and run: apt-get install $p" >&2
				exit 1
			fi
		done
		echo "deps: apt-get could not install: ${missing[*]}; run: apt-get install ${missing[*]}" >&2
		exit 1
	fi
fi
echo "deps: done"
