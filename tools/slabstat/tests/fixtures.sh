#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Fixture trees for tests/run.sh, in the formats of Linux 7.3
# (mm/slub.c show_stat(), show_slab_objects(), SLAB_ATTR modes):
#   stat files     "<sum> C<cpu>=<n> ..." (non-zero CPUs only), mode 0600
#   object files   "<sum> N<node>=<n> ..." (non-zero nodes only), mode 0400
#   facts          "<n>", mode 0400 (min_partial 0600)
# Sourced by run.sh, never executed.  Files written with stat_file,
# node_file or scalar_file outside mk_box get their mode from fix_modes.

# Per-CPU unit deltas of every counter on the 2-node 4-CPU box
# (CPUs 0-1 node 0, CPUs 2-3 node 1): a tree built with scale K holds
# K times these values.
FIX_COUNTERS="
alloc_fastpath 1000000 1000000 0 0
alloc_slowpath 0 0 0 0
alloc_slab 2500 0 0 0
alloc_node_mismatch 0 0 0 0
barn_get 10 0 0 0
barn_get_fail 3 0 0 0
barn_put 0 0 7 0
barn_put_fail 0 0 4000 500
free_add_partial 0 0 60000 40000
free_fastpath 750000 750000 0 0
free_rcu_sheaf 0 0 0 0
free_rcu_sheaf_fail 0 0 0 0
free_remove_partial 0 0 1500 500
free_slab 0 0 2000 0
free_slowpath 62500 62500 187500 187500
order_fallback 0 0 0 0
sheaf_alloc 5 5 5 5
sheaf_flush 0 0 300000 0
sheaf_free 5 5 5 5
sheaf_prefill_fast 0 0 0 0
sheaf_prefill_oversize 0 0 0 0
sheaf_prefill_slow 0 0 0 0
sheaf_refill 600000 0 0 0
sheaf_return_fast 0 0 0 0
sheaf_return_slow 0 0 0 0
"

# Counters of the parking series (patches/), same format.
FIX_PARK_COUNTERS="
park_slab 0 0 50000 25000
unpark_slab 74500 0 0 0
"

# Files waiting for their mode; fix_modes sets them with one chmod each
# (a chmod per file made the fixtures slow on a loaded machine).
FIX_MODE_0400=()
FIX_MODE_0600=()
FIX_MODE_0644=()

fix_modes() {
	[ ${#FIX_MODE_0400[@]} -eq 0 ] || chmod 0400 "${FIX_MODE_0400[@]}"
	[ ${#FIX_MODE_0600[@]} -eq 0 ] || chmod 0600 "${FIX_MODE_0600[@]}"
	[ ${#FIX_MODE_0644[@]} -eq 0 ] || chmod 0644 "${FIX_MODE_0644[@]}"
	FIX_MODE_0400=()
	FIX_MODE_0600=()
	FIX_MODE_0644=()
}

# set_mode FILE MODE (0400, 0600 or 0644), applied by fix_modes
set_mode() {
	case $2 in
	0400) FIX_MODE_0400+=("$1") ;;
	0600) FIX_MODE_0600+=("$1") ;;
	*) FIX_MODE_0644+=("$1") ;;
	esac
}

# per_cpu_or_node FILE LETTER MODE V0 V1 ...: "<sum> <LETTER><i>=<Vi> ..."
# for the non-zero Vi, mode MODE
per_cpu_or_node() {
	local f=$1 letter=$2 mode=$3 sum=0 i=0 parts="" v
	shift 3
	for v in "$@"; do
		sum=$((sum + v))
		[ "$v" -eq 0 ] || parts+=" $letter$i=$v"
		i=$((i + 1))
	done
	printf '%s%s\n' "$sum" "$parts" >"$f"
	set_mode "$f" "$mode"
}

# stat_file FILE V0 V1 ...: a SLUB stat file, per CPU
stat_file() {
	local f=$1
	shift
	per_cpu_or_node "$f" C 0600 "$@"
}

# node_file FILE N0 N1 ...: a per-node count file
node_file() {
	local f=$1
	shift
	per_cpu_or_node "$f" N 0400 "$@"
}

scalar_file() {
	printf '%s\n' "$2" >"$1"
	set_mode "$1" "${3:-0400}"
}

# The non-statistics files of a 7.3 cache directory.
cache_misc() {
	local d=$1
	scalar_file "$d/object_size" 96
	scalar_file "$d/slab_size" 128
	scalar_file "$d/align" 64
	scalar_file "$d/objs_per_slab" 32
	scalar_file "$d/order" 0
	scalar_file "$d/sheaf_capacity" 60
	scalar_file "$d/min_partial" 5 0600
	scalar_file "$d/cpu_partial" 0 0600
	scalar_file "$d/remote_node_defrag_ratio" 100 0600
	scalar_file "$d/aliases" 0
	scalar_file "$d/hwcache_align" 1
	scalar_file "$d/reclaim_account" 0
	scalar_file "$d/destroy_by_rcu" 0
	scalar_file "$d/poison" 0
	scalar_file "$d/red_zone" 0
	scalar_file "$d/sanity_checks" 0
	scalar_file "$d/store_user" 0
	scalar_file "$d/trace" 0
	scalar_file "$d/cpu_slabs" 0
	scalar_file "$d/slabs_cpu_partial" "0(0)"
	: >"$d/ctor"
	set_mode "$d/ctor" 0400
	: >"$d/validate"
	set_mode "$d/validate" 0600
	: >"$d/shrink"
	set_mode "$d/shrink" 0600
}

# proc_stat FILE K: per-CPU lines of /proc/stat at scale K
#   cpu0: idle 100*K busy 300*K     cpu1: idle 200*K busy 200*K
#   cpu2: idle 400*K busy 0         cpu3: idle 300*K busy 100*K
proc_stat() {
	local f=$1 k=$2
	{
		echo "cpu  $((600 * k)) 0 0 $((1000 * k)) 0 0 0 0 0 0"
		echo "cpu0 $((200 * k)) 0 $((100 * k)) $((100 * k)) 0 0 0 0 0 0"
		echo "cpu1 $((200 * k)) 0 0 $((150 * k)) $((50 * k)) 0 0 0 0 0"
		echo "cpu2 0 0 0 $((400 * k)) 0 0 0 0 0 0"
		echo "cpu3 $((50 * k)) 0 0 $((300 * k)) 0 $((25 * k)) $((25 * k)) 0 0 0"
		echo "intr 0"
		echo "ctxt 0"
		echo "btime 0"
	} >"$f"
}

# mk_box ROOT K PATCHED [NCPU]: a 2-node 4-CPU box (NCPU=4) or a 1-node
# 2-CPU box (NCPU=2, CPUs 0-1 only) with the cache nfs_page_test at
# scale K; PATCHED=1 adds the parking counters and the series' debugfs
# files (sys/kernel/debug/slab/nfs_page_test/{park,parked}: one number
# each, debugfs_create_file() modes 0600 and 0400).
mk_box() {
	local root=$1 k=$2 patched=$3 ncpu=${4:-4}
	local d=$root/sys/kernel/slab/nfs_page_test name c0 c1 c2 c3
	local counters=$FIX_COUNTERS
	mkdir -p "$d" "$root/proc/sys/kernel" "$root/sys/devices/system/node/node0"
	echo "7.3.4-fixture" >"$root/proc/sys/kernel/osrelease"
	proc_stat "$root/proc/stat" "$k" "$ncpu"
	if [ "$ncpu" -eq 2 ]; then
		sed -i '/^cpu[23] /d' "$root/proc/stat"
		echo "0-1" >"$root/sys/devices/system/node/node0/cpulist"
	else
		mkdir -p "$root/sys/devices/system/node/node1"
		echo "0-1" >"$root/sys/devices/system/node/node0/cpulist"
		echo "2-3" >"$root/sys/devices/system/node/node1/cpulist"
	fi
	echo "0-1" >"$root/sys/devices/system/node/online"
	cache_misc "$d"
	[ "$patched" != 1 ] || counters+=$FIX_PARK_COUNTERS
	while read -r name c0 c1 c2 c3; do
		[ -n "$name" ] || continue
		if [ "$ncpu" -eq 2 ]; then
			stat_file "$d/$name" $((k * c0)) $((k * c1))
		else
			stat_file "$d/$name" $((k * c0)) $((k * c1)) $((k * c2)) $((k * c3))
		fi
	done <<<"$counters"
	# before the window nothing failed a cmpxchg; afterwards CPU 2 did
	if [ "$k" -ge 3 ] && [ "$ncpu" -eq 4 ]; then
		stat_file "$d/cmpxchg_double_fail" 0 0 1234 0
	else
		stat_file "$d/cmpxchg_double_fail" 0 0 0 0
	fi
	if [ "$ncpu" -eq 2 ]; then
		node_file "$d/slabs" $((20 * k))
		node_file "$d/objects" $((600 * k))
		node_file "$d/partial" $((4 * k))
		node_file "$d/objects_partial" $((100 * k))
		node_file "$d/total_objects" $((640 * k))
	else
		node_file "$d/slabs" $((12 * k)) $((8 * k))
		node_file "$d/objects" $((400 * k)) $((200 * k))
		node_file "$d/partial" $((3 * k)) $((1 * k))
		node_file "$d/objects_partial" $((60 * k)) $((40 * k))
		node_file "$d/total_objects" $((384 * k)) $((256 * k))
	fi
	if [ "$patched" = 1 ]; then
		mkdir -p "$root/sys/kernel/debug/slab/nfs_page_test"
		scalar_file "$root/sys/kernel/debug/slab/nfs_page_test/parked" $((2 * k))
		scalar_file "$root/sys/kernel/debug/slab/nfs_page_test/park" 1 0600
	fi
	fix_modes
}
