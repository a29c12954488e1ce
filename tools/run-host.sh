#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: tools/run-host.sh [--check-only]
# make run HOST=1 (python3 -m slabpark run checks the knobs, then runs this)
# on a 2-node box booted into the patched kernel, no VM.  The prerequisites,
# in order, each refusal one "slabpark: error:" line and status 1
# (--check-only: only them): root; 2 online NUMA nodes; CONFIG_SLUB_STATS;
# debugfs mounted; the park switch (/sys/kernel/debug/slab/*/park) unless
# HOST_BASE_ONLY=1; /proc/lock_stat if LOCKSTAT=1; the commands; KDIR or
# HOST_MODULE for the running kernel; slub_stress not loaded; the nodes.
# Then the module built against KDIR unless HOST_MODULE is given,
# tools/guest/guest-compare.sh, and make run's report in RESULTS_DIR (raw
# runs, logs, knobs in its host/).  Without python3: this with the knobs
# set by hand, the report made elsewhere (python3 -m slabpark run --report
# RESULTS_DIR).  The knobs: RUNS=N DURATION_MS=MS PLACEMENTS="cross local
# balanced" LOCKSTAT=0|1 MEASURE=0|1 RESULTS_DIR=DIR all required, SWEEP=sheaf;
# KDIR=DIR the running kernel's build tree (/lib/modules/$(uname -r)/build);
# HOST_MODULE=KO a slub_stress.ko built for it; HOST_BASE_ONLY=1 no park
# switch, base numbers only; ALLOC_NODE=N FREE_NODE=N the allocators' and
# the remote freers' nodes (default: the first node with CPUs and normal
# memory, the farthest from it); SLABPARK_SYSFS=DIR: DIR for /sys in the
# tests of the checks, with --check-only only.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$SLABPARK_TOP"

MOD=slub_stress

usage() {
	echo "usage: $0 [--check-only]   (make run HOST=1, with its knobs set)" >&2
	exit 2
}

case "$#:${1:-}" in
0:) check_only=0 ;;
1:--check-only) check_only=1 ;;
*) usage ;;
esac
for v in RUNS DURATION_MS PLACEMENTS LOCKSTAT MEASURE RESULTS_DIR; do
	[ -n "${!v:-}" ] || usage
done
: "${SWEEP=}"

sys=${SLABPARK_SYSFS:-/sys}
[ "$sys" = /sys ] || [ "$check_only" = 1 ] ||
	sp_die "SLABPARK_SYSFS=$sys is for the tests of the prerequisite checks:" \
		"only with --check-only"
base_only=${HOST_BASE_ONLY:-0}
case "$base_only" in 0 | 1) ;; *) sp_die "HOST_BASE_ONLY=$base_only: must be 0 or 1" ;; esac
kver=$(uname -r)
kdir=${KDIR:-/lib/modules/$kver/build}
module=${HOST_MODULE:-}

# the number of node ids in node/online ("0-1", "0,2-3")
online=$(cat "$sys/devices/system/node/online" 2>/dev/null) || online=
nodes=0
IFS=, read -ra ranges <<<"$online"
for r in "${ranges[@]}"; do
	[[ $r =~ ^[0-9]+(-[0-9]+)?$ ]] ||
		sp_die "$sys/devices/system/node/online: '$online' is not a list of node ranges"
	nodes=$((nodes + 10#${r#*-} - 10#${r%-*} + 1))
done
switch="park switch"
compgen -G "$sys/kernel/debug/slab/*/park" >/dev/null || switch="no park switch (base only)"

[ "$(id -u)" = 0 ] ||
	sp_die "make run HOST=1 loads a module: run it as root (sudo make run HOST=1)"
[ "$nodes" -ge 2 ] ||
	sp_die "this machine has $nodes online NUMA node(s) ($sys/devices/system/node/online)," \
		"make run HOST=1 needs 2 (make run without HOST=1: a 2-node guest)"
compgen -G "$sys/kernel/slab/*/alloc_fastpath" >/dev/null ||
	sp_die "kernel $kver has no SLUB counters (no $sys/kernel/slab/*/alloc_fastpath):" \
		"build it with CONFIG_SLUB_STATS=y"
[ -n "$(ls -A "$sys/kernel/debug" 2>/dev/null)" ] ||
	sp_die "debugfs is not mounted at $sys/kernel/debug" \
		"(CONFIG_DEBUG_FS=y; mount -t debugfs none /sys/kernel/debug)"
[ "$switch" = "park switch" ] || [ "$base_only" = 1 ] ||
	sp_die "kernel $kver has no park switch (no $sys/kernel/debug/slab/*/park): it is" \
		"unpatched (or without CONFIG_SLUB_DEBUG, or every cache has SLUB debug flags);" \
		"boot the patched kernel, or rerun with HOST_BASE_ONLY=1 for base-only numbers"
[ "$LOCKSTAT" != 1 ] || [ -r /proc/lock_stat ] ||
	sp_die "LOCKSTAT=1: kernel $kver has no /proc/lock_stat (build it with CONFIG_LOCK_STAT=y)"
if [ -n "$module" ]; then
	sp_need_cmds insmod rmmod awk sed sort tr
	[ -f "$module" ] || sp_die "HOST_MODULE=$module: no such file"
	# the .modinfo string: busybox's modinfo needs modules.dep
	vermagic=$(tr '\0' '\n' <"$module" | sed -n 's/^vermagic=//p' | head -n 1) || true
	[ "${vermagic%% *}" = "$kver" ] ||
		sp_die "HOST_MODULE=$module was built for kernel '${vermagic%% *}', this is $kver"
else
	sp_need_cmds insmod rmmod awk sed sort tr make gcc
	[ -f "$kdir/Makefile" ] ||
		sp_die "no build tree for the running kernel $kver at $kdir:" \
			"install linux-headers-$kver, or set KDIR=DIR"
fi
[ ! -e "$sys/module/$MOD" ] ||
	sp_die "$MOD is already loaded: unload it (rmmod $MOD) and rerun"
# topo_choose of guest-compare.sh: the pair ("nodes A -> B"), threads, warnings
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
	# in the results (kbuild's MO=): no root-owned files in the checkout after sudo
	sp_run_logged "$data/module-build.log" "building the stress module against $kdir" \
		make -C "$kdir" M="$SLABPARK_TOP" MO="$data/module-build" modules
	module=$data/module-build/mm/$MOD.ko
fi
module=$(realpath "$module")

# whatever ends this from here on: the comparison's process group ended,
# the module removed, the results given to the sudo user (for --report)
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

# no host name in the report
shape="$nodes nodes x $threads CPUs, $pair, kernel $kver"
sp_stage "comparing on this host ($shape): RUNS=$RUNS DURATION_MS=$DURATION_MS" \
	"PLACEMENTS=\"$PLACEMENTS\" (log: $data/compare.log)"
printf '%s\n' "RUNS=$RUNS" "DURATION_MS=$DURATION_MS" "PLACEMENTS=$PLACEMENTS" \
	"LOCKSTAT=$LOCKSTAT" "MEASURE=$MEASURE" "SWEEP=$SWEEP" "SHAPE=$shape" >"$data/knobs"
# a process group of its own (set -m), which the trap ends: a run in
# progress has a child blocked in the module's 'wait' file
set -m
(
	SLABPARK_DIR=$SLABPARK_TOP SLABPARK_KO=$module SLABPARK_OUT=$data \
		sh tools/guest/guest-compare.sh "$RUNS" "$DURATION_MS" "$PLACEMENTS" "$LOCKSTAT" \
		"$SWEEP" </dev/null 2>&1 | tee "$data/compare.log"
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
