#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a NUMA guest under QEMU with a busybox initramfs and run a script.
#
# Usage: tools/vm/run-guest.sh --kernel BUILD_DIR [options] -- SCRIPT [ARGS...]
#
#   --kernel DIR          kernel build directory (arch/x86/boot/bzImage, usr/gen_init_cpio)
#   --stage SRC[:DST]     copy file or directory SRC into the guest at /slabpark/DST
#                         (DST defaults to the basename of SRC); repeatable
#   --append ARGS         extra kernel command line arguments
#   --nodes N             NUMA nodes (default 2; NODES=)
#   --cpus-per-node C     vCPUs per node (default 2; CPUS_PER_NODE=)
#   --mem-per-node MB     memory per node (default 1024; MEM_PER_NODE=)
#   --shape cpuless4      instead of --nodes/--cpus-per-node: 4 nodes, 4 vCPUs,
#                         2 sockets by the distance table (10 local, 11 within
#                         a socket, 21 across): as the guest numbers them
#                         (memory-only nodes last), node 0 (CPU 0) and
#                         node 1 (CPU 1) on socket 0 (SNC-2-like), node 2
#                         (CPUs 2-3) on socket 1, node 3 memory without CPUs;
#                         each vCPU a package of its own (QEMU's LLC is per
#                         package: one split over nodes is a kernel WARNING)
#   --shape smt           2 nodes, one a socket, each socket one core of 2
#                         SMT threads (CPUs 0-1 node 0, 2-3 node 1): local's
#                         freers run on the allocators' sibling threads
#   --shape memless       2 nodes with 2 vCPUs each (CPUs 0-1, 2-3), node 1
#                         without memory (its -numa node has no memdev): a
#                         freer node without normal memory
#   --env NAME=VALUE      export NAME=VALUE to the guest script (the guest's
#                         /init reads /slabpark/env); repeatable
#   --timeout S           give up after S seconds (default 1800; GUEST_TIMEOUT=)
#   --allow REGEX         console lines matching REGEX are not kernel problems
#   --out DIR             where console.log and files/ go (default: a new dir
#                         under $SLABPARK_CACHE/runs)
#   --initramfs FILE      only write the initramfs (script, args, stages) to
#                         FILE and exit 0, booting nothing (the device kit)
#
# SCRIPT runs in the guest as /slabpark/run.sh under busybox sh; what it
# writes under /slabpark/out/ comes back in OUT/files/.  Its output is
# streamed here.  QEMU uses TCG (-accel tcg,thread=multi -cpu max) unless
# KVM=1.  Exit status: 0 ok; 1 the script failed; 2 the kernel reported a
# problem (panic, oops, BUG, WARNING, lockdep, KASAN, hung task, ...);
# 3 timeout or no exit marker; 5 usage or setup error (not 4, which
# callers read as a kselftest SKIP).

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	sed -n '/^# Usage:/,/^# problem/s/^# \{0,1\}//p' "$0" >&2
	echo "(3 timeout or no exit marker; 5 usage or setup error)" >&2
	exit 5
}

kdir=
stages=()
append=
nodes=${NODES:-2}
cpn=${CPUS_PER_NODE:-2}
mem=${MEM_PER_NODE:-1024}
tmo=${GUEST_TIMEOUT:-1800}
allow='^$'
out=
initramfs_only=
shape=
envs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) [ $# -ge 2 ] || usage; kdir=$2; shift 2 ;;
	--stage) [ $# -ge 2 ] || usage; stages+=("$2"); shift 2 ;;
	--append) [ $# -ge 2 ] || usage; append="$append $2"; shift 2 ;;
	--nodes) [ $# -ge 2 ] || usage; nodes=$2; shift 2 ;;
	--cpus-per-node) [ $# -ge 2 ] || usage; cpn=$2; shift 2 ;;
	--mem-per-node) [ $# -ge 2 ] || usage; mem=$2; shift 2 ;;
	--shape) [ $# -ge 2 ] || usage; shape=$2; shift 2 ;;
	--env) [ $# -ge 2 ] || usage; envs+=("$2"); shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage; tmo=$2; shift 2 ;;
	--allow) [ $# -ge 2 ] || usage; allow="$allow|$2"; shift 2 ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--initramfs) [ $# -ge 2 ] || usage; initramfs_only=$2; shift 2 ;;
	--) shift; break ;;
	*) usage ;;
	esac
done
if [ -z "$kdir" ] || [ $# -lt 1 ]; then usage; fi
script=$1
shift
for e in "${envs[@]}"; do
	if ! [[ "$e" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || [[ "$e" == *$'\n'* ]]; then
		echo "run-guest: --env '$e': not NAME=VALUE (one line)" >&2
		exit 5
	fi
done
case "$shape" in
''|cpuless4|smt|memless) ;;
*) echo "run-guest: --shape $shape: unknown (cpuless4, smt, memless)" >&2; exit 5 ;;
esac
for v in "$nodes" "$cpn" "$mem" "$tmo"; do
	case "$v" in ''|*[!0-9]*) echo "run-guest: not a number: '$v'" >&2; usage ;; esac
done
if [ "$nodes" -lt 1 ] || [ "$nodes" -gt 8 ]; then
	echo "run-guest: --nodes must be 1..8" >&2
	exit 5
fi
if [ "$cpn" -lt 1 ] || [ "$cpn" -gt 32 ]; then
	echo "run-guest: --cpus-per-node must be 1..32" >&2
	exit 5
fi

bzimage=$kdir/arch/x86/boot/bzImage
gen_cpio=$kdir/usr/gen_init_cpio
[ -f "$bzimage" ] || { echo "run-guest: no kernel image $bzimage (build it first)" >&2; exit 5; }
[ -x "$gen_cpio" ] || { echo "run-guest: no $gen_cpio (kernel built without BLK_DEV_INITRD?)" >&2; exit 5; }
[ -f "$script" ] || { echo "run-guest: no guest script $script" >&2; exit 5; }
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "run-guest: qemu-system-x86_64 is missing (apt-get install qemu-system-x86)" >&2; exit 5; }
busybox=$(command -v busybox || true)
if [ -z "$busybox" ] || ! file -L "$busybox" | grep -q 'statically linked'; then
	echo "run-guest: a static busybox is needed (apt-get install busybox-static)" >&2
	exit 5
fi

if [ -z "$out" ]; then
	mkdir -p "$SLABPARK_CACHE/runs"
	out=$(mktemp -d "$SLABPARK_CACHE/runs/$(date +%Y%m%d-%H%M%S)-XXXX")
fi
mkdir -p "$out"
rm -rf "$out/files" "$out/initramfs.list" "$out/console.log" "$out/data.b64"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Initramfs: one gen_init_cpio list; the staged trees are listed file by file.
root=$work/root
mkdir -p "$root/slabpark"
cp "$script" "$root/slabpark/run.sh"
: >"$root/slabpark/args"
: >"$root/slabpark/env"
for e in "${envs[@]}"; do printf '%s\n' "$e" >>"$root/slabpark/env"; done
for a in "$@"; do printf '%s\n' "$a" >>"$root/slabpark/args"; done
for s in "${stages[@]}"; do
	src=${s%%:*}
	dst=$(basename "$src")
	[ "$s" != "$src" ] && dst=${s#*:}
	[ -e "$src" ] || { echo "run-guest: --stage $src: no such file" >&2; exit 5; }
	if [ -d "$src" ]; then
		# a directory's contents go to DST (so --stage DIR:. fills /slabpark)
		mkdir -p "$root/slabpark/$dst"
		cp -a "$src/." "$root/slabpark/$dst"
	else
		mkdir -p "$(dirname "$root/slabpark/$dst")"
		cp -a "$src" "$root/slabpark/$dst"
	fi
done
{
	echo "dir /bin 0755 0 0"
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/ttyS1 0600 0 0 c 4 65"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /tmp 1777 0 0"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh /bin/busybox 0777 0 0"
	echo "file /init $SLABPARK_TOP/tools/vm/init 0755 0 0"
	(cd "$root" && find slabpark -mindepth 0 | sort) | while read -r p; do
		if [ -L "$root/$p" ]; then
			echo "slink /$p $(readlink "$root/$p") 0777 0 0"
		elif [ -d "$root/$p" ]; then
			echo "dir /$p 0755 0 0"
		else
			mode=0644
			[ -x "$root/$p" ] && mode=0755
			echo "file /$p $root/$p $mode 0 0"
		fi
	done
} >"$out/initramfs.list"
"$gen_cpio" "$out/initramfs.list" >"$work/initramfs.cpio" ||
	{ echo "run-guest: gen_init_cpio failed (list: $out/initramfs.list)" >&2; exit 5; }
if [ -n "$initramfs_only" ]; then
	cp "$work/initramfs.cpio" "$initramfs_only"
	exit 0
fi

# the -smp topology (sockets, cores a socket, threads a core) and the
# nodes with memory (memless: node 1 has none)
sockets=$nodes cores=$cpn threads=1 memnodes=$nodes
case "$shape" in
cpuless4) nodes=4 cpn=1 sockets=4 cores=1 memnodes=4 ;;
smt) nodes=2 cpn=2 sockets=2 cores=1 threads=2 memnodes=2 ;;
memless) nodes=2 cpn=2 sockets=2 cores=2 memnodes=1 ;;
esac
qemu=(qemu-system-x86_64 -nodefaults -nographic -no-reboot
	-smp "$((nodes * cpn)),sockets=$sockets,cores=$cores,threads=$threads"
	-m "$((memnodes * mem))M"
	-serial stdio -serial "file:$out/data.b64"
	-kernel "$bzimage" -initrd "$work/initramfs.cpio")
if [ "${KVM:-0}" = 1 ]; then
	qemu+=(-accel kvm -cpu host)
else
	qemu+=(-accel "tcg,thread=multi" -cpu max)
fi
if [ "$shape" = cpuless4 ]; then
	# node: its CPUs ("" none) and socket, for the distance table
	shape_cpus=(0 "" 1 2-3) shape_socket=(0 0 0 1)
	for ((n = 0; n < 4; n++)); do
		qemu+=(-object "memory-backend-ram,id=mem$n,size=${mem}M"
			-numa "node,nodeid=$n${shape_cpus[n]:+,cpus=${shape_cpus[n]}},memdev=mem$n")
	done
	for ((n = 0; n < 4; n++)); do
		for ((m = n + 1; m < 4; m++)); do
			d=21
			[ "${shape_socket[n]}" != "${shape_socket[m]}" ] || d=11
			qemu+=(-numa "dist,src=$n,dst=$m,val=$d")
		done
	done
else
	# memless: the nodes from memnodes on have CPUs and no memdev
	for ((n = 0; n < nodes; n++)); do
		memdev=
		if [ "$n" -lt "$memnodes" ]; then
			qemu+=(-object "memory-backend-ram,id=mem$n,size=${mem}M")
			memdev=,memdev=mem$n
		fi
		qemu+=(-numa "node,nodeid=$n,cpus=$((n * cpn))-$((n * cpn + cpn - 1))$memdev")
	done
fi
# no_timer_check: under TCG on a loaded host the IO-APIC timer check can
# fail spuriously and panic the boot.
# loglevel=5 after quiet: warnings (WARN, lockdep, KASAN) reach the console.
# no5lvl with generic KASAN: -cpu max offers LA57, and identify_cpu()
# clears boot_cpu_data's capabilities with interrupts on, before the
# alternatives are patched; an interrupt in that window sees
# pgtable_l5_enabled() false, so KASAN takes a 5-level direct-map address
# for a wild access ("BUG: KASAN: wild-memory-access in rcu_is_watching",
# seen once in ~20 debug boots).  A 7.3 x86 boot race, not a slab one.
if grep -qx 'CONFIG_KASAN_GENERIC=y' "$kdir/.config" 2>/dev/null; then
	append=" no5lvl$append"
fi
# oops=panic: an oops in a kthread that holds a spinlock (as a list
# corruption under list_lock does) leaves the other vCPUs spinning on it and
# the guest hung until --timeout; with oops=panic and panic=-1 the guest
# stops at once (-no-reboot) and the report is the last thing on the console.
cmdline="console=ttyS0 panic=-1 oops=panic quiet loglevel=5 no_timer_check rdinit=/init${append}"
qemu+=(-append "$cmdline")
printf '%q ' "${qemu[@]}" >"$out/qemu.cmd"
echo >>"$out/qemu.cmd"

accel=TCG
[ "${KVM:-0}" != 1 ] || accel=KVM
sp_stage "booting $nodes-node ${shape:+$shape }guest ($((nodes * cpn)) vCPUs, $accel): $(basename "$script") $* (console: $out/console.log)"
set +e
timeout --foreground -k 10 "$tmo" "${qemu[@]}" </dev/null 2>&1 |
	tee "$out/console.log" |
	awk '/SLABPARK-GUEST-START/ { on = 1; sub(/^.*SLABPARK-GUEST-START/, "SLABPARK-GUEST-START") }
	     on { sub(/\r$/, ""); print; fflush() }'
qrc=${PIPESTATUS[0]}
set -e

# Bring the files back.
if grep -q '^SLABPARK-FILES-BEGIN' "$out/data.b64" 2>/dev/null; then
	mkdir -p "$out/files"
	if ! sed -n '/^SLABPARK-FILES-BEGIN/,/^SLABPARK-FILES-END/p' "$out/data.b64" |
	     sed '1d;$d' | tr -d '\r' | base64 -d | tar -C "$out/files" -xzf -; then
		echo "run-guest: could not unpack the guest's files ($out/data.b64)" >&2
	fi
fi

tr -d '\r' <"$out/console.log" >"$out/console.txt"
# The one kernel-problem regex of the project (also the kselftest's).
# Lockdep reports start with "WARNING:".  kmemleak is not in it: its report
# is pr_info, which the console (loglevel=5) never shows, and the debug
# gate's kmemleak test reads /sys/kernel/debug/kmemleak instead (where
# slub_kunit's deliberate leak is expected).
problems=$(cat "$SLABPARK_TOP/selftests/slub_park/splat.ere")
first=$(grep -nE "$problems" "$out/console.txt" | grep -vE "$allow" | head -n 1 | cut -d: -f1 || true)

tail_log() {
	echo "---- last console lines ($out/console.log) ----" >&2
	tail -n 40 "$out/console.txt" >&2
	echo "----" >&2
}
# decode_report FILE: the kernel's scripts/decode_stacktrace.sh on a
# report (symbols to file:line where vmlinux has debug info, the Code:
# line disassembled), when the build has vmlinux and its source tree the
# script; else the report as it is.
decode_report() {
	local src dec
	src=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$kdir/Makefile" 2>/dev/null | head -n 1)
	dec=$src/scripts/decode_stacktrace.sh
	if [ -f "$kdir/vmlinux" ] && [ -x "$dec" ] &&
	   "$dec" "$kdir/vmlinux" "$src" <"$1" >"$1.decoded" 2>/dev/null &&
	   [ -s "$1.decoded" ]; then
		echo "(decoded by scripts/decode_stacktrace.sh; raw: $1)"
		cat "$1.decoded"
	else
		cat "$1"
	fi
}
if [ -n "$first" ]; then
	echo "run-guest: FAIL: the kernel reported a problem at console line $first:" >&2
	# the report: from the first line to the next '---[ end trace' or 60 lines
	# (one awk, no pipe: a sed before it took SIGPIPE when awk stopped
	# early, and set -e ended this script with 141 instead of 2)
	awk -v f="$first" 'NR < f { next } NR > f && /---\[ end trace/ { print; exit }
		{ print } NR >= f + 59 { exit }' "$out/console.txt" >"$out/problem.txt"
	decode_report "$out/problem.txt" >&2
	echo "run-guest: full console: $out/console.log" >&2
	exit 2
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "run-guest: FAIL: guest timed out after ${tmo}s" >&2
	tail_log
	exit 3
fi
rc=$(sed -n 's/^SLABPARK-GUEST-RC=\([0-9]*\).*/\1/p' "$out/console.txt" | tail -n 1)
if [ -z "$rc" ]; then
	echo "run-guest: FAIL: the guest ended without an exit marker (qemu status $qrc)" >&2
	tail_log
	exit 3
fi
if [ "$rc" != 0 ]; then
	echo "run-guest: FAIL: guest script exited with $rc" >&2
	exit 1
fi
sp_stage "guest run passed (output in $out)"
