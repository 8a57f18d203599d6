#!/usr/bin/env bash
# The conformance guest of one arch: a Debian bookworm root filesystem with
# fstests built for it, as an ext4 disk image (made with mkfs.ext4 -d: never
# mounted on the host).
#
#   scripts/rootfs.sh x86_64
#
# Writes $ROOT/conformance/<arch>/rootfs.img (ROOT: $BUILD's parent when
# BUILD is a tree's build dir, else <repo>/build).  Three stages, each kept
# and redone only when its inputs change:
#
#   base     debootstrap --variant=minbase with conformance/packages
#            (key: the package list, the arch, the mirror)
#   fstests  FSTESTS_SRC (a checkout or a tarball of xfstests-dev) built
#            with the host's compiler and Debian's -dev packages
#            (key: the source's content)
#   image    base + fstests in /opt/fstests + unionmount-testsuite in
#            /opt/unionmount-testsuite + fstests' users +
#            conformance/guest/init as /kgate/init
#            (key: the stages above, the unionmount source, init)
#
# FSTESTS_SRC and UNIONMOUNT_SRC (a checkout or a tarball of
# unionmount-testsuite: fstests' overlay/100-117 run it) default to the
# snapshots in ../shared/external/ (next to this checkout).  Without one,
# the script stops with one line that says where to get it.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"
arch=${1:?usage: scripts/rootfs.sh x86_64|arm64}
arch_known "$arch" || { echo "rootfs: unknown arch '$arch' ($KGATE_ARCHES)" >&2; exit 2; }
ROOT=${KGATE_ROOT:-$REPO/build}
W=$ROOT/conformance/$arch
mkdir -p "$W"
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
host_arch=$(uname -m)

if [ "$arch" != "$host_arch" ] && ! { [ "$arch" = arm64 ] && [ "$host_arch" = aarch64 ]; }; then
	echo "rootfs: a $arch guest on this $host_arch host is not supported yet (x86_64 only; see README.md, Conformance)" >&2
	exit 2
fi

# suite_src <VAR> <snapshot name> <where to get it>: the checkout or
# tarball a suite comes from, $VAR or the snapshot in ../shared/external/.
suite_src() {
	local var=$1 name=$2 upstream=$3 s
	if [ -n "${!var:-}" ]; then
		[ -e "${!var}" ] || { echo "rootfs: $var=${!var} does not exist" >&2; return 1; }
		echo "${!var}"
		return
	fi
	for s in "$REPO"/../shared/external/"$name"-*.tar.gz; do
		[ -f "$s" ] && { readlink -f "$s"; return; }
	done
	echo "rootfs: no $name: clone $upstream (or a tarball of it) and run with $var=<that dir or tarball>" >&2
	return 1
}
src=$(suite_src FSTESTS_SRC fstests git://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git)
um_src=$(suite_src UNIONMOUNT_SRC unionmount-testsuite https://github.com/amir73il/unionmount-testsuite)
# unionmount-testsuite: python scripts, nothing to build; unpacked (and
# checked) before anything long, copied into the image below.
# (a directory of this run's own: two cells may ask for the image at once)
um=$(mktemp -d "$W/unionmount.XXXXXX")
trap 'rm -rf "$um"' EXIT
if [ -d "$um_src" ]; then
	(cd "$um_src" && tar -cf - --exclude=.git .) | tar -xf - -C "$um"
elif ! tar -xzf "$um_src" -C "$um" --strip-components=1; then
	echo "rootfs: cannot unpack $um_src (UNIONMOUNT_SRC: a checkout or a .tar.gz of unionmount-testsuite)" >&2
	exit 1
fi
if [ ! -x "$um/run" ] || [ ! -d "$um/tests" ]; then
	echo "rootfs: $um_src holds no unionmount-testsuite (no ./run and tests/ at its top)" >&2
	exit 1
fi
um_id=$(cd "$um" && find . -type f -exec sha1sum {} + | sort | sha1sum | cut -d' ' -f1)

stamp_ok() { [ "${FRESH:-0}" != 1 ] && [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }
pkgs() { sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$REPO/conformance/packages" | paste -sd, -; }

# ---- base: debootstrap ---------------------------------------------------------
base_key=$( { pkgs; echo "$arch $MIRROR"; sed -n '/^# ---- base/,/^# ---- fstests/p' "$0"; } | sha1sum | cut -d' ' -f1)
if stamp_ok "$W/base.key" "$base_key" && [ -d "$W/base" ]; then
	echo "rootfs: $arch base system up to date"
else
	rm -rf "$W/base" "$W/base.key"
	echo "rootfs: debootstrap bookworm ($arch, minbase + conformance/packages); takes about 3 min"
	t0=$(date +%s)
	if ! debootstrap --variant=minbase --include="$(pkgs)" bookworm "$W/base.new" "$MIRROR" \
		>"$W/debootstrap.log" 2>&1; then
		tail -n 5 "$W/debootstrap.log" >&2
		echo "rootfs: debootstrap failed; see $W/debootstrap.log (a package name in conformance/packages that bookworm lacks? no route to $MIRROR?)" >&2
		rm -rf "$W/base.new"
		exit 1
	fi
	rm -rf "$W/base.new/var/cache/apt/archives"/*.deb
	mv "$W/base.new" "$W/base"
	echo "$base_key" >"$W/base.key"
	echo "rootfs: base system in $(( $(date +%s) - t0 )) s"
fi

# ---- fstests: built from source --------------------------------------------------
if [ -d "$src" ]; then
	src_id=$(cd "$src" && { git rev-parse HEAD 2>/dev/null; git diff HEAD 2>/dev/null; } || true)
	[ -n "$src_id" ] || src_id=$(cd "$src" && find . -type f ! -path './.git/*' -exec sha1sum {} + | sort)
else
	src_id=$(sha1sum <"$src")
fi
fst_key=$( { echo "$src_id"; gcc --version | head -n 1; sed -n '/^# ---- fstests/,/^# ---- image/p' "$0"; } | sha1sum | cut -d' ' -f1)
if stamp_ok "$W/fstests.key" "$fst_key" && [ -x "$W/fstests/check" ]; then
	echo "rootfs: fstests up to date ($src)"
else
	rm -rf "$W/fstests" "$W/fstests.key" "$W/fstests.new"
	mkdir -p "$W/fstests.new"
	if [ -d "$src" ]; then
		(cd "$src" && tar -cf - --exclude=.git .) | tar -xf - -C "$W/fstests.new"
	elif ! tar -xzf "$src" -C "$W/fstests.new" --strip-components=1; then
		echo "rootfs: cannot unpack $src (FSTESTS_SRC: a checkout or a .tar.gz of fstests)" >&2
		exit 1
	fi
	[ -x "$W/fstests.new/check" ] || { echo "rootfs: $src holds no fstests (no ./check at its top)" >&2; exit 1; }
	echo "rootfs: building fstests from $src"
	t0=$(date +%s)
	if ! make -C "$W/fstests.new" -j"$(nproc)" >"$W/fstests-build.log" 2>&1; then
		grep -E 'error|Error' "$W/fstests-build.log" | head -n 10 >&2 || true
		echo "rootfs: fstests did not build; see $W/fstests-build.log (missing -dev package? make deps installs them)" >&2
		exit 1
	fi
	mv "$W/fstests.new" "$W/fstests"
	echo "$src" >"$W/fstests.src"
	echo "$fst_key" >"$W/fstests.key"
	echo "rootfs: fstests built in $(( $(date +%s) - t0 )) s"
fi

# ---- image: the disk the guest boots ----------------------------------------------
img_key=$( { echo "$base_key $fst_key $um_id"; cat "$REPO/conformance/guest/init"; sed -n '/^# ---- image/,$p' "$0"; } |
	sha1sum | cut -d' ' -f1)
if stamp_ok "$W/rootfs.key" "$img_key" && [ -f "$W/rootfs.img" ]; then
	echo "rootfs: $arch image up to date: $W/rootfs.img"
	exit 0
fi
rm -f "$W/rootfs.key" "$W/rootfs.img"
t0=$(date +%s)
d=$W/image.dir
rm -rf "$d"
cp -a "$W/base" "$d"
cp -a "$W/fstests" "$d/opt/fstests"
mv "$um" "$d/opt/unionmount-testsuite"
install -D -m 0755 "$REPO/conformance/guest/init" "$d/kgate/init"
ln -sf ../proc/self/mounts "$d/etc/mtab"
: >"$d/etc/fstab"
# fstests' users and groups (README: fsgqa, fsgqa2, 123456-fsgqa).
uid=1000
for u in fsgqa fsgqa2 123456-fsgqa; do
	grep -q "^$u:" "$d/etc/passwd" || {
		echo "$u:x:$uid:$uid::/home/$u:/bin/bash" >>"$d/etc/passwd"
		echo "$u:x:$uid:" >>"$d/etc/group"
		echo "$u:!:19000:0:99999:7:::" >>"$d/etc/shadow"
		mkdir -p "$d/home/$u" && chown "$uid:$uid" "$d/home/$u"
	}
	uid=$((uid + 1))
done
# Room for fstests' results and the work of a run (the guest writes to a
# throwaway snapshot of this image, never to the image itself).
size=$(( $(du -sm "$d" | cut -f1) + 1536 ))
if ! mkfs.ext4 -q -F -L kgate-root -d "$d" "$W/rootfs.img.new" "${size}M" >"$W/mkfs.log" 2>&1; then
	cat "$W/mkfs.log" >&2
	echo "rootfs: mkfs.ext4 -d failed" >&2
	exit 1
fi
rm -rf "$d"
mv "$W/rootfs.img.new" "$W/rootfs.img"
echo "$img_key" >"$W/rootfs.key"
echo "$um_src" >"$W/unionmount.src"
echo "rootfs: $arch image in $(( $(date +%s) - t0 )) s: $W/rootfs.img (${size} MiB)"
