#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh of make device-kit: BOOTS boots of each of the kit's base and
# patched kernels, 2 nodes of CPUS_PER_NODE vCPUs under its own QEMU (TCG),
# each running tools/guest/guest-device.sh; POSIX sh, coreutils, grep, sed,
# tar and gzip, no python3.
# Usage: ./run.sh [OUT]  (default $OUT, else ./out)
#   CPUS_PER_NODE=8 MEM_PER_NODE=2048 BOOTS=2 BOOT_TIMEOUT=200
# Leaves OUT/boot<NN>-<kernel>/{console.log,files/} and OUT/run.log (python3
# -m slabpark report OUT).  Exit status 0 every boot passed, 1 not, 2 usage.

set -eu
kit=$(cd "$(dirname "$0")" && pwd)
out=${1:-${OUT:-$kit/out}}
cpn=${CPUS_PER_NODE:-8}
mem=${MEM_PER_NODE:-2048}
boots=${BOOTS:-2}
tmo=${BOOT_TIMEOUT:-200}
for v in "$cpn" "$mem" "$boots" "$tmo"; do
	case $v in '' | *[!0-9]* | 0)
		echo "usage: [CPUS_PER_NODE=N MEM_PER_NODE=MB BOOTS=N BOOT_TIMEOUT=S] $0 [OUT]" >&2
		exit 2 ;;
	esac
done
[ $# -le 1 ] || { echo "usage: $0 [OUT]" >&2; exit 2; }
mkdir -p "$out"
log=$out/run.log
say() { echo "device kit: $*" | tee -a "$log"; }
ncpu=$(grep -c ^processor /proc/cpuinfo)
head -n 1 "$kit/VERSION" | sed 's/^/device kit: /' | tee "$log"
sed 1d "$kit/VERSION" | tee -a "$log"
say "host $ncpu CPUs; guest 2 x $cpn vCPUs (TCG), $boots boots of each kernel"
[ "$ncpu" -ge $((2 * cpn)) ] ||
	say "warning: $ncpu host CPUs for $((2 * cpn)) vCPUs: TCG threads will share CPUs"

q=$kit/qemu
export QEMU_MODULE_DIR="$q/modules"
rc=0 n=0
for _ in $(seq "$boots"); do
	for k in base patched; do
		n=$((n + 1))
		d=$out/$(printf 'boot%02d-%s' "$n" "$k")
		rm -rf "$d"
		mkdir -p "$d"
		say "boot $n ($k) -> $d"
		set -- -nodefaults -nographic -no-reboot -L "$q/share" \
			-smp "$((2 * cpn)),sockets=2,cores=$cpn,threads=1" -m "$((2 * mem))M" \
			-serial stdio -serial "file:$d/data.b64" \
			-kernel "$kit/$k/bzImage" -initrd "$kit/$k/initramfs.cpio" \
			-accel tcg,thread=multi -cpu max \
			-object "memory-backend-ram,id=mem0,size=${mem}M" \
			-numa "node,nodeid=0,cpus=0-$((cpn - 1)),memdev=mem0" \
			-object "memory-backend-ram,id=mem1,size=${mem}M" \
			-numa "node,nodeid=1,cpus=$cpn-$((2 * cpn - 1)),memdev=mem1" \
			-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=5 no_timer_check rdinit=/init slabpark_boot=$n"
		timeout -k 10 "$tmo" "$q/lib/ld-linux-x86-64.so.2" --library-path "$q/lib" \
			"$q/bin/qemu-system-x86_64" "$@" </dev/null >"$d/console.log" 2>&1 || true
		grc=$(tr -d '\r' <"$d/console.log" |
			sed -n 's/^SLABPARK-GUEST-RC=\([0-9]*\).*/\1/p' | tail -n 1)
		if grep -q '^SLABPARK-FILES-BEGIN' "$d/data.b64" 2>/dev/null; then
			mkdir -p "$d/files"
			sed -n '/^SLABPARK-FILES-BEGIN/,/^SLABPARK-FILES-END/p' "$d/data.b64" |
				sed '1d;$d' | tr -d '\r' | base64 -d | tar -C "$d/files" -xzf - ||
				say "boot $n: could not unpack its files"
		fi
		if [ "${grc:-x}" != 0 ]; then
			say "boot $n ($k) FAILED (guest status '${grc:-none}'); last lines:"
			tail -n 20 "$d/console.log" | tee -a "$log"
			rc=1
		fi
	done
done
say "done, status $rc; results in $out"
exit $rc
