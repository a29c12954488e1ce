#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of 'make run WORKLOAD=...': the workloads of the list, beside
# the module, in each parking mode of one boot (or once, as 'base', on a
# kernel without the switch).
#
# Usage: guest-workloads.sh WORKLOAD ROUNDS SECONDS "TASKS" ["MODES"]
#
#   WORKLOAD  mmap1     bin/mmap_loop TASKS SECONDS (will-it-scale's mmap1:
#                       each task maps and unmaps 128 MB in a loop)
#             mmapaddr  stress-ng --mmapaddr TASKS (the regression report's
#                       stressor), staged under stress-ng/ by make run
#   ROUNDS    rounds; each runs every task count in every mode, in turn
#   TASKS     task counts, e.g. "4 8" (8 > the 4 vCPUs: oversubscribed)
#   MODES     park modes (default "0 1 2"), run in reverse order in even
#             rounds; on a kernel without the switch only 'base', which may
#             be repeated ("base base": two runs a round, at the places
#             of a patched boot's two modes)
#
# Each run, for the caches of WL_CACHES: the mode set, the caches shrunk
# and their counters zeroed, a snapshot, the workload with the slabs
# sampled every 0.1 s, 1 s of rest (past the unpark delay), a snapshot, in
#   $OUT/workloads/<WORKLOAD>-t<TASKS>/park<MODE>/<N>.txt  (N = 1, 2, ...)
# as lines "result KEY VALUE", "before|after CACHE FILE VALUE" and "peak
# CACHE slabs N" (slabpark.runs reads them).

set -eu
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

# the caches of an mmap/munmap: the VMA and the maple tree nodes
WL_CACHES="vm_area_struct maple_node"

usage() {
	echo "usage: guest-workloads.sh mmap1|mmapaddr ROUNDS SECONDS \"TASKS\" [\"MODES\"]" >&2
	exit 2
}
[ $# -eq 4 ] || [ $# -eq 5 ] || usage
workload=$1 rounds=$2 secs=$3 tasks=$4
for v in "$rounds" "$secs" $tasks; do
	case $v in '' | *[!0-9]* | 0) usage ;; esac
done
[ -n "$tasks" ] || usage

case $workload in
mmap1) [ -x "$S/bin/mmap_loop" ] || { echo "guest-workloads: no $S/bin/mmap_loop" >&2; exit 1; } ;;
mmapaddr)
	SNG=$S/stress-ng
	[ -x "$SNG/bin/stress-ng" ] || { echo "guest-workloads: no $SNG/bin/stress-ng (staged by make run)" >&2; exit 1; }
	;;
*) usage ;;
esac

# the kernel has the switches (park-switch.patch) or none: then every
# cache of the workload must have its own
has_switch=0
kernel_has_park && has_switch=1
for c in $WL_CACHES; do
	[ -d "/sys/kernel/slab/$c" ] || { echo "guest-workloads: no /sys/kernel/slab/$c" >&2; exit 1; }
	if [ $has_switch = 1 ] && [ ! -f "/sys/kernel/debug/slab/$c/park" ]; then
		echo "guest-workloads: this kernel has park switches, but not /sys/kernel/debug/slab/$c/park" >&2
		exit 1
	fi
done
if [ $has_switch = 1 ]; then
	modes=${5:-0 1 2}
else
	modes=${5:-base}
	echo "# no /sys/kernel/debug/slab/<cache>/park: the base numbers only"
fi
for m in $modes; do
	case $m in
	0 | 1 | 2) [ $has_switch = 1 ] || { echo "guest-workloads: park=$m on a kernel without the switch" >&2; exit 1; } ;;
	base) [ $has_switch = 0 ] || { echo "guest-workloads: mode 'base' is for a kernel without the switch" >&2; exit 1; } ;;
	*) echo "guest-workloads: unknown mode '$m'" >&2; exit 1 ;;
	esac
done

snapshot() {
	for c in $WL_CACHES; do
		stat_snapshot "/sys/kernel/slab/$c" | sed "s/^/$1 $c /"
		for g in slabs objects partial; do
			read -r v _ <"/sys/kernel/slab/$c/$g"
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
		# the stressors' wall clock, in s
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
r=1
while [ "$r" -le "$rounds" ]; do
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
				[ "$m" = base ] || echo "$m" >"/sys/kernel/debug/slab/$c/park"
				echo 1 >"/sys/kernel/slab/$c/shrink"
				clear_stat_files "/sys/kernel/slab/$c"
			done
			snapshot before >"$f"
			run_workload "$t" "$dir/$r" >"$f.result" &
			pid=$!
			peak_m=0 peak_v=0
			while kill -0 "$pid" 2>/dev/null; do
				read -r n _ </sys/kernel/slab/maple_node/slabs
				read -r v _ </sys/kernel/slab/vm_area_struct/slabs
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
	r=$((r + 1))
done
if [ $has_switch = 1 ]; then
	for c in $WL_CACHES; do echo 1 >"/sys/kernel/debug/slab/$c/park"; done
fi
echo "# all workload runs done in $(($(date +%s) - t0))s"
