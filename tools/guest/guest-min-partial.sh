#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make run MIN_PARTIAL=1: does parking's lower slab churn
# come from parked slabs not counting in nr_partial?  park=0 at 1, 2, 4, 8
# x the default min_partial against park=1 and 2 at the default, cross,
# in rounds of one boot.
#   guest-min-partial.sh ROUNDS DURATION_MS
# One row per run in $OUT/minpartial.txt (its header names the columns;
# slabpark.runs): churn = alloc_slab + free_slab, peak = most slabs seen,
# rest = 1 s after the run, parked_* = the parked count sampled.

set -eu
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

rounds=$1 dur=$2

insmod "$KO" cache_name=$CACHE duration_ms="$dur"
trap 'rmmod slub_stress 2>/dev/null || true' EXIT
for f in park parked; do
	[ -f "$PARKDIR/$f" ] || { echo "guest-min-partial: no $PARKDIR/$f (a kernel with park-switch.patch is needed)" >&2; exit 1; }
done
[ -f "$SLAB/alloc_slab" ] || { echo "guest-min-partial: no $SLAB/alloc_slab (CONFIG_SLUB_STATS is needed)" >&2; exit 1; }
echo cross >"$DBG/placement"
echo "$NODE_CPUS" >"$DBG/threads"
dflt=$(cat "$SLAB/min_partial")
res=$OUT/minpartial.txt
echo "# default min_partial $dflt, $NODE_CPUS threads per side, $dur ms runs" >"$res"
echo "round mode min_partial ops_per_sec allocs churn alloc_slab peak rest rest_partial parked_max parked_sum parked_samples" >>"$res"
t0=$(date +%s)
for r in $(seq "$rounds"); do
	for cfg in $(in_round_order "$r" "0:$dflt" "0:$((2 * dflt))" "0:$((4 * dflt))" "0:$((8 * dflt))" "1:$dflt" "2:$dflt"); do
		m=${cfg%:*} mp=${cfg#*:}
		echo "# [$(($(date +%s) - t0))s] round $r/$rounds: park=$m min_partial=$mp"
		echo "$m" >"$PARKDIR/park"
		echo "$mp" >"$SLAB/min_partial"
		echo 1 >"$SLAB/shrink"
		clear_stat_files "$SLAB"
		echo 1 >"$DBG/run"
		peak=0 pmax=0 psum=0 pn=0
		while [ "$(cat "$DBG/status")" = running ]; do
			read -r n _ <"$SLAB/slabs"
			[ "$n" -gt "$peak" ] && peak=$n
			read -r p <"$PARKDIR/parked"
			[ "$p" -gt "$pmax" ] && pmax=$p
			psum=$((psum + p)) pn=$((pn + 1))
			sleep 0.1
		done
		cat "$DBG/wait" >/dev/null
		sleep 1
		[ "$(rval state)" = "done" ] || { echo "# run ended in state '$(rval state)'"; cat "$DBG/results"; exit 1; }
		read -r rest _ <"$SLAB/slabs"
		read -r restp _ <"$SLAB/partial"
		read -r as _ <"$SLAB/alloc_slab"
		read -r fs _ <"$SLAB/free_slab"
		echo "$r $m $mp $(rval ops_per_sec) $(rval allocs) $((as + fs)) $as $peak $rest $restp $pmax $psum $pn" >>"$res"
	done
done
echo "$dflt" >"$SLAB/min_partial"
echo 1 >"$PARKDIR/park"
echo "# all min_partial runs done in $(($(date +%s) - t0))s"
