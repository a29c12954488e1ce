#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make run WORKLOAD=...: the workload beside the module in
# each parking mode of one boot (base on a kernel without the switch).
#   guest-workloads.sh mmap1|mmapaddr ROUNDS SECONDS "TASKS" ["MODES"]
# mmap1: bin/mmap_loop (will-it-scale's mmap1); mmapaddr: stress-ng
# --mmapaddr.  Each run of WL_CACHES: shrunk, counters zeroed, snapshot,
# the workload with the slabs sampled every 0.1 s, 1 s of rest, snapshot,
# in $OUT/workloads/<WORKLOAD>-t<TASKS>/park<MODE>/<N>.txt ("result KEY
# VALUE", "before|after CACHE FILE VALUE", "peak CACHE slabs N" lines;
# slabpark.runs).

set -eu
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

# the caches of an mmap/munmap: the VMA and the maple tree nodes
WL_CACHES="vm_area_struct maple_node"

workload=$1 rounds=$2 secs=$3 tasks=$4
SNG=$S/stress-ng

# with the switches, every cache of the workload has its own
has_switch=0
kernel_has_park && has_switch=1
for c in $WL_CACHES; do
	[ $has_switch = 0 ] || [ -f "$SYS/kernel/debug/slab/$c/park" ] ||
		{ echo "guest-workloads: park switches, but not $SYS/kernel/debug/slab/$c/park" >&2; exit 1; }
done
if [ $has_switch = 1 ]; then
	modes=${5:-0 1 2}
else
	modes=${5:-base}
	echo "# no /sys/kernel/debug/slab/<cache>/park: the base numbers only"
fi

snapshot() {
	for c in $WL_CACHES; do
		stat_snapshot "$SYS/kernel/slab/$c" | sed "s/^/$1 $c /"
		for g in slabs objects partial; do
			read -r v _ <"$SYS/kernel/slab/$c/$g"
			echo "$1 $c $g $v"
		done
	done
}

# run_workload TASKS FILE: the workload, its throughput as result lines
run_workload() {
	case $workload in
	mmap1)
		"$S/bin/mmap_loop" "$1" "$secs" >"$2.out" || return 1
		sed -n 's/^\([a-z_]*\): \([0-9.]*\)$/result \1 \2/p' "$2.out"
		;;
	mmapaddr)
		"$SNG/lib/ld-linux-x86-64.so.2" --library-path "$SNG/lib" "$SNG/bin/stress-ng" \
			--mmapaddr "$1" --timeout "${secs}s" --metrics-brief \
			--yaml "$2.yaml" >"$2.out" 2>&1 || { cat "$2.out" >&2; return 1; }
		ops=$(sed -n 's/^ *bogo-ops: //p' "$2.yaml" | head -n 1)
		wall=$(sed -n 's/^ *wall-clock-time: //p' "$2.yaml" | head -n 1)
		if [ -z "$ops" ] || [ -z "$wall" ]; then
			echo "guest-workloads: no bogo-ops or wall-clock-time in stress-ng's YAML" >&2
			return 1
		fi
		echo "result iterations $ops"
		echo "result seconds $wall"
		awk -v o="$ops" -v w="$wall" 'BEGIN { if (w > 0) printf "result ops_per_sec %d\n", o / w }'
		;;
	esac
}

t0=$(date +%s)
for r in $(seq "$rounds"); do
	for t in $tasks; do
		# shellcheck disable=SC2086 # modes are words
		for m in $(in_round_order "$r" $modes); do
			dir=$OUT/workloads/$workload-t$t/park$m
			mkdir -p "$dir"
			n=1
			while [ -e "$dir/$n.txt" ]; do n=$((n + 1)); done
			f=$dir/$n.txt
			echo "# [$(($(date +%s) - t0))s] $workload, $t tasks, round $r/$rounds, park=$m"
			for c in $WL_CACHES; do
				[ "$m" = base ] || echo "$m" >"$SYS/kernel/debug/slab/$c/park"
				echo 1 >"$SYS/kernel/slab/$c/shrink"
				clear_stat_files "$SYS/kernel/slab/$c"
			done
			snapshot before >"$f"
			run_workload "$t" "${f%.txt}" >"$f.result" &
			pid=$!
			peak_m=0 peak_v=0
			while kill -0 "$pid" 2>/dev/null; do
				read -r n _ <"$SYS/kernel/slab/maple_node/slabs"
				read -r v _ <"$SYS/kernel/slab/vm_area_struct/slabs"
				[ "$n" -gt "$peak_m" ] && peak_m=$n
				[ "$v" -gt "$peak_v" ] && peak_v=$v
				sleep 0.1
			done
			wait "$pid" || { echo "# $workload with $t tasks failed"; exit 1; }
			sleep 1
			{
				cat "$f.result"
				echo "peak maple_node slabs $peak_m"
				echo "peak vm_area_struct slabs $peak_v"
				snapshot after
			} >>"$f"
			rm -f "$f.result"
			sed -n 's/^result ops_per_sec /#   ops_per_sec /p' "$f"
		done
	done
done
if [ $has_switch = 1 ]; then
	for c in $WL_CACHES; do echo 1 >"$SYS/kernel/debug/slab/$c/park"; done
fi
echo "# all workload runs done in $(($(date +%s) - t0))s"
