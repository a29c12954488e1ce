#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make run HOST=1': the comparison of 'make run' on this machine, a 2-node
# box already booted into the patched kernel, without a VM.  Checks the
# prerequisites, builds the module for the running kernel (KDIR), runs
# tools/guest/guest-compare.sh here, and writes the report of make run
# (python3 -m slabpark run --report) to RESULTS_DIR, the raw data and logs
# to its host/ directory.  The report needs python3; without it (make
# check's busybox guest) the runs stay in host/, with the knobs they ran
# with (host/knobs), for 'python3 -m slabpark run --report' elsewhere.
#
# Usage: tools/run-host.sh [--check-only]
#                     (make run HOST=1: python3 -m slabpark run resolves and
#                     checks the knobs, tools/slabpark/config.py, and runs this)
#   --check-only      check the prerequisites, say so, and stop
#
# The prerequisites, in this order, before anything is built or loaded
# (the first that fails: one line "slabpark: error: ..." on stderr, exit
# status 1): root; 2 online NUMA nodes; CONFIG_SLUB_STATS; debugfs
# mounted; the series' park switch /sys/kernel/debug/slab/<cache>/park
# (unless HOST_BASE_ONLY=1); /proc/lock_stat if LOCKSTAT=1; the commands;
# KDIR, or HOST_MODULE built for the running kernel; slub_stress not
# loaded; the nodes (topo_choose in tools/guest/guest-lib.sh).
#
# Environment: make run's RUNS DURATION_MS PLACEMENTS LOCKSTAT MEASURE
# SWEEP RESULTS_DIR, all set (MEASURE=1 with the measurement kernel
# booted), and:
#   KDIR=DIR            build tree of the running kernel
#                       (default /lib/modules/$(uname -r)/build)
#   HOST_MODULE=KO      a slub_stress.ko built for the running kernel,
#                       instead of building one into RESULTS/host/module-build/
#   HOST_BASE_ONLY=1    accept a kernel without the park switch: base
#                       numbers only
#   ALLOC_NODE=N FREE_NODE=N  the nodes of the allocators and the remote
#                       freers (default: two nodes with CPUs and normal
#                       memory, the farthest pair from the first by distance)
#   SLABPARK_SYSFS=DIR  TEST ONLY (make check's step host-refusals): the prerequisite
#                       checks read DIR instead of /sys; only with --check-only
#
# A trap removes the module on every exit, interrupt included; the
# comparison runs in a process group of its own, which the trap ends first.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$SLABPARK_TOP"

MOD=slub_stress

usage() {
	echo "usage: $0 [--check-only]   (make run HOST=1, with its knobs set)" >&2
	exit 2
}

check_only=0
case "$#:${1:-}" in
0:) ;;
1:--check-only) check_only=1 ;;
*) usage ;;
esac
# the knobs, as python3 -m slabpark run resolved and checked them
for v in RUNS DURATION_MS PLACEMENTS LOCKSTAT MEASURE RESULTS_DIR; do
	[ -n "${!v:-}" ] || usage
done
: "${SWEEP=}"

sys=/sys
if [ -n "${SLABPARK_SYSFS:-}" ]; then
	[ "$check_only" = 1 ] ||
		sp_die "SLABPARK_SYSFS=$SLABPARK_SYSFS is for the tests of the prerequisite checks:" \
			"only with --check-only"
	sys=$SLABPARK_SYSFS
fi
base_only=${HOST_BASE_ONLY:-0}
case "$base_only" in 0|1) ;; *) sp_die "HOST_BASE_ONLY=$base_only: must be 0 or 1" ;; esac
kver=$(uname -r)
kdir=${KDIR:-/lib/modules/$kver/build}
module=${HOST_MODULE:-}

# the online NUMA nodes: how many ids node/online names ("0-1", "0,2-3")
online=$(cat "$sys/devices/system/node/online" 2>/dev/null) || online=
nodes=0
IFS=, read -ra ranges <<<"$online"
for r in "${ranges[@]}"; do
	[[ $r =~ ^[0-9]+(-[0-9]+)?$ ]] ||
		sp_die "$sys/devices/system/node/online: '$online' is not a list of node ranges"
	nodes=$((nodes + 10#${r#*-} - 10#${r%-*} + 1))
done
# the series' debugfs switch of any cache (debug caches have none)
switch="park switch"
compgen -G "$sys/kernel/debug/slab/*/park" >/dev/null || switch="no park switch (base only)"

[ "$(id -u)" = 0 ] ||
	sp_die "make run HOST=1 loads a module and writes /sys/kernel/slab and /sys/kernel/debug:" \
		"run it as root (sudo make run HOST=1)"
[ "$nodes" -ge 2 ] ||
	sp_die "this machine has $nodes online NUMA node(s) ($sys/devices/system/node/online)," \
		"make run HOST=1 needs 2 (a 2-socket box; make run without HOST=1 uses a 2-node guest)"
compgen -G "$sys/kernel/slab/*/alloc_fastpath" >/dev/null ||
	sp_die "kernel $kver has no SLUB counters (no $sys/kernel/slab/*/alloc_fastpath):" \
		"build it with CONFIG_SLUB_STATS=y"
[ -n "$(ls -A "$sys/kernel/debug" 2>/dev/null)" ] ||
	sp_die "debugfs is not mounted at $sys/kernel/debug" \
		"(CONFIG_DEBUG_FS=y; mount -t debugfs none /sys/kernel/debug)"
[ "$switch" = "park switch" ] || [ "$base_only" = 1 ] ||
	sp_die "kernel $kver has no park switch (no $sys/kernel/debug/slab/*/park): it is unpatched" \
		"(or built without CONFIG_SLUB_DEBUG, or every cache has SLUB debug flags);" \
		"boot the patched kernel, or rerun with HOST_BASE_ONLY=1 for base-only numbers"
[ "$LOCKSTAT" != 1 ] || [ -r /proc/lock_stat ] ||
	sp_die "LOCKSTAT=1: kernel $kver has no /proc/lock_stat (build it with CONFIG_LOCK_STAT=y)"
cmds=(insmod rmmod awk sed sort tr)
# make and a compiler for the module, unless it is given
[ -n "$module" ] || cmds+=(make gcc)
sp_need_cmds "${cmds[@]}"
if [ -n "$module" ]; then
	[ -f "$module" ] || sp_die "HOST_MODULE=$module: no such file"
	# the .modinfo string, as busybox's modinfo reads a module only
	# through modules.dep
	vermagic=$(tr '\0' '\n' <"$module" | sed -n 's/^vermagic=//p' | head -n 1) || true
	[ "${vermagic%% *}" = "$kver" ] ||
		sp_die "HOST_MODULE=$module was built for kernel '${vermagic%% *}', this is $kver"
else
	[ -f "$kdir/Makefile" ] ||
		sp_die "no build tree for the running kernel $kver at $kdir:" \
			"install linux-headers-$kver, or set KDIR=DIR"
fi
[ ! -e "$sys/module/$MOD" ] ||
	sp_die "$MOD is already loaded: unload it (rmmod $MOD) and rerun; a run starts from a fresh module"
# the nodes by the topology helpers guest-compare.sh uses: three lines,
# the pair ("nodes A -> B"), the threads, the warnings
need_free=0
for p in $PLACEMENTS; do [ "$p" = local ] || need_free=1; done
topo=$(SLABPARK_DIR=$SLABPARK_TOP SLABPARK_OUT=$(mktemp -d) SLABPARK_SYSFS=$sys \
	sh -c '. tools/guest/guest-lib.sh || exit 1; rm -rf "$OUT"
		topo_choose "$1" || { echo "$TOPO_ERR"; exit 1; }
		printf "nodes %s -> %s\n%s\n%s\n" "$TOPO_ALLOC" "${TOPO_FREE:-none}" \
			"$TOPO_THREADS" "$TOPO_WARN"' \
	sh "$need_free") || sp_die "$topo"
{ read -r pair; read -r threads; read -r warn || true; } <<<"$topo"
if [ "$check_only" = 1 ]; then
	echo "slabpark: prerequisites ok: $nodes nodes, SLUB counters, $switch, kernel $kver," \
		"$pair, $threads threads${warn:+ (warning: $warn)}"
	exit 0
fi

mkdir -p "$RESULTS_DIR/host"
results=$(cd "$RESULTS_DIR" && pwd)
data=$results/host
if [ -z "$module" ]; then
	sp_stage "building the stress module for kernel $kver ($kdir)"
	# outside the clone (kbuild's MO=), in the results: no root-owned
	# build files in the checkout after sudo
	sp_run_logged "$data/module-build.log" "building the stress module against $kdir" \
		make -C "$kdir" M="$SLABPARK_TOP" MO="$data/module-build" modules
	module=$data/module-build/mm/$MOD.ko
fi
module=$(realpath "$module")

# From here on the module may be loaded: whatever ends this script, the
# comparison's process group is ended, the module removed and the
# results given to the sudo user (a later --report as that user writes
# into them).
compare_pid=
cleanup() {
	local rc=$? i
	trap - EXIT INT TERM HUP
	if [ -n "$compare_pid" ]; then
		kill -TERM -- "-$compare_pid" 2>/dev/null || true
		wait "$compare_pid" 2>/dev/null || true
	fi
	if [ -e "/sys/module/$MOD" ]; then
		# a run in progress holds the module until it ends: stop it
		echo 1 >"/sys/kernel/debug/$MOD/stop" 2>/dev/null || true
		for ((i = 0; i < 50; i++)); do
			rmmod "$MOD" 2>/dev/null && break
			sleep 0.2
		done
		[ ! -e "/sys/module/$MOD" ] ||
			{ echo "slabpark: error: could not remove the module: rmmod $MOD" >&2; rc=1; }
	fi
	if [ -n "${SUDO_UID:-}" ] && [ -n "${SUDO_GID:-}" ]; then
		chown -R "$SUDO_UID:$SUDO_GID" "$results" 2>/dev/null || true
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# the shape: the CPUs of the smaller of the two nodes (the threads); no
# host name in the report
shape="$nodes nodes x $threads CPUs, $pair, kernel $kver"
sp_stage "comparing on this host ($shape): RUNS=$RUNS DURATION_MS=$DURATION_MS" \
	"PLACEMENTS=\"$PLACEMENTS\" (log: $data/compare.log)"
printf '%s\n' "RUNS=$RUNS" "DURATION_MS=$DURATION_MS" "PLACEMENTS=$PLACEMENTS" \
	"LOCKSTAT=$LOCKSTAT" "MEASURE=$MEASURE" "SWEEP=$SWEEP" "SHAPE=$shape" >"$data/knobs"
# In a process group of its own (set -m), so that the trap can end all of
# it: a run in progress has a child blocked in the module's 'wait' file.
set -m
(
	SLABPARK_DIR=$SLABPARK_TOP SLABPARK_KO=$module SLABPARK_OUT=$data \
		sh tools/guest/guest-compare.sh "$RUNS" "$DURATION_MS" "$PLACEMENTS" "$LOCKSTAT" "$SWEEP" \
		</dev/null 2>&1 | tee "$data/compare.log"
) &
compare_pid=$!
set +m
crc=0
wait "$compare_pid" || crc=$?
compare_pid=
[ "$crc" = 0 ] || sp_die "the comparison failed with status $crc (log: $data/compare.log)"
[ -d "$data/runs" ] || sp_die "the comparison left no run data in $data"

if ! command -v python3 >/dev/null 2>&1; then
	echo "slabpark: no python3 here: the runs are in $data; for the report run" \
		"'PYTHONPATH=tools python3 -m slabpark run --report $results' where python3 is"
	exit 0
fi
PYTHONPATH=$SLABPARK_TOP/tools python3 -m slabpark run --report "$results"
