#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make device-kit: one tarball that runs the many-CPU comparison on a
# machine with no package registry (a lent 16-core box): QEMU with its
# shared libraries, TCG module and firmware; the base and the patched
# kernel, each with its initramfs (the stress module built for it, the
# guest scripts, busybox, mmap_loop); and run.sh (tools/vm/device-run.sh).
# There: tar xJf slabpark-kit.tar.xz && OUT=/some/dir slabpark-kit/run.sh
# boots base, patched, base, patched as 2 nodes x 8 vCPUs (TCG, a host
# thread per vCPU), each running the cross/local/balanced comparison and
# the mmap1 loop with 16 and 32 tasks (tools/guest/guest-device.sh), about
# 6 min; back here, python3 -m slabpark report OUT.
#
# Usage: tools/vm/device-kit.sh [--test] [--out FILE]
#   --out FILE   the tarball (default $SLABPARK_CACHE/device-kit/slabpark-kit.tar.xz)
#   --test       then unpack it in a temporary directory and run it here as
#                a 2 x 2 guest, one boot of each kernel (the same tarball,
#                only the size differs), and print the report
# The tarball must stay within 60 MiB (what a device run can carry).

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"

usage() {
	sed -n '/^# Usage:/,/^# The tarball/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
test_it=0
tarball=$SLABPARK_CACHE/device-kit/slabpark-kit.tar.xz
while [ $# -gt 0 ]; do
	case "$1" in
	--test) test_it=1; shift ;;
	--out) [ $# -ge 2 ] || usage; tarball=$2; shift 2 ;;
	*) usage ;;
	esac
done
# what each boot runs (tools/guest/guest-device.sh)
DURATION_MS=4000
TASKS="16 32"
MAX_MIB=60

PYTHONPATH=tools python3 -m slabpark deps >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kit=$work/slabpark-kit
mkdir -p "$kit"
for k in base patched; do
	v=()
	[ "$k" = patched ] || v=(--variant base)
	bdir=$(tools/kernel/build-kernel.sh "${v[@]}")
	stage=$(PYTHONPATH=tools python3 -m slabpark vm stage "$bdir")
	mkdir -p "$kit/$k"
	cp "$bdir/arch/x86/boot/bzImage" "$kit/$k/"
	PYTHONPATH=tools python3 -m slabpark vm run --kernel "$bdir" --stage "$stage:." \
		--initramfs "$kit/$k/initramfs.cpio" -- \
		tools/guest/guest-device.sh "$DURATION_MS" "$TASKS"
	echo "$k: $(basename "$bdir")" >>"$work/kernels"
done

# QEMU: the binary, every library it and its TCG module load, the module,
# and the firmware of a -nodefaults PC guest booted with -kernel
q=$kit/qemu
mkdir -p "$q/bin" "$q/lib" "$q/modules" "$q/share"
qbin=$(command -v qemu-system-x86_64)
qmod=/usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so
[ -f "$qmod" ] || sp_die "no $qmod (Debian's qemu-system-x86 has it)"
cp "$qbin" "$q/bin/"
cp "$qmod" "$q/modules/"
sp_copy_libs "$q/lib" "$qbin" "$qmod"
for fw in /usr/share/seabios/bios-256k.bin /usr/share/qemu/linuxboot_dma.bin \
	/usr/share/qemu/kvmvapic.bin; do
	cp -L "$fw" "$q/share/"
done
cp tools/vm/device-run.sh "$kit/run.sh"
{
	echo "slabpark $(git describe --always --dirty), series $(sp_series_hash), built $(date -u +%Y-%m-%dT%H:%MZ)"
	sed 's/^/  /' "$work/kernels"
} >"$kit/VERSION"

mkdir -p "$(dirname "$tarball")"
tar -C "$work" -cJf "$tarball" slabpark-kit
size=$(stat -c %s "$tarball")
mib=$(( (size + 1048575) / 1048576 ))
[ "$mib" -le "$MAX_MIB" ] || sp_die "$tarball is $mib MiB, over $MAX_MIB MiB"
sp_stage "device kit: $tarball ($mib MiB, at most $MAX_MIB)"
echo "$tarball"
[ "$test_it" = 1 ] || exit 0

t=$work/test
mkdir -p "$t"
tar -C "$t" -xJf "$tarball"
sp_stage "device kit test: the tarball as a 2 x 2 guest, one boot of each kernel"
CPUS_PER_NODE=2 MEM_PER_NODE=1024 BOOTS=1 "$t/slabpark-kit/run.sh" "$t/out" >&2
res=$SLABPARK_CACHE/device-kit/test-$(date +%Y%m%d-%H%M%S)
cp -a "$t/out" "$res"
# the kernel problems a guest boot (slabpark.vm) fails on
if grep -lE -f selftests/slub_park/splat.ere "$res"/boot*/console.log >&2; then
	sp_die "device kit test: a kernel reported a problem (the consoles above)"
fi
PYTHONPATH=tools python3 -m slabpark report "$res" >&2
sp_stage "device kit test passed: $res"
