#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the parking race test on the widen kernel
# (tools/kernel/bench-patches/widen-park-races.patch, whose header names
# the windows its delays widen):  guest-race-widen.sh [SECONDS_PER_RUN]
# Cross runs without sheaves, more threads than vCPUs, park 2 and 1,
# inflight 4, 16, 64.  Fails when nothing parked, a window saw no delay,
# no re-add in 3 rounds, or an invariant broke (a splat: oops=panic).

set -u
# shellcheck source=tools/guest/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"
ktap_load

PARAMS=/sys/module/kernel/parameters
DUR_S=${1:-2}

param() { cat "$PARAMS/slub_widen_$1"; }

ktap_print_header
ktap_set_plan 1
[ -f "$PARAMS/slub_widen_races" ] || { echo "not ok 1 race_widen # this kernel has no $PARAMS/slub_widen_races (not the widen variant)"; exit 1; }
insmod "$KO" no_sheaves=1 placement=cross alloc_node=0 free_node=1 threads=4 ||
	{ echo "not ok 1 race_widen # insmod failed"; exit 1; }

tp_begin
write_file "$PARAMS/slub_widen_races" 1 || bad "enable the delays: $WERR"
refill0=$(param hits_refill)
decide0=$(param hits_decide)
park0=$(param hits_park)
readds0=$(param readds)
total_parks=0
round=0
while :; do
	round=$((round + 1))
	for mode in 2 1; do
		write_file "$PARKDIR/park" "$mode" || bad "park=$mode: $WERR"
		for inf in 4 16 64; do
			what="round $round park=$mode inflight=$inf"
			clear_stat_files "$SLAB"
			obj=$(sum_of "$SLAB/objects")
			write_file "$DBG/inflight" "$inf" || bad "$what: $WERR"
			write_file "$DBG/duration_ms" $((DUR_S * 1000)) || bad "$what: $WERR"
			write_file "$DBG/run" 1 || bad "$what: cannot start: $WERR"
			state=$(cat "$DBG/wait")
			[ "$state" = "state: done" ] || bad "$what: run ended '$state'"
			[ "$(rval allocs)" = "$(rval frees)" ] || bad "$what: allocs $(rval allocs) != frees $(rval frees)"
			check_after_run "$what" "$obj"
			say "$what: $(rval frees) frees, park_slab $PS"
			total_parks=$((total_parks + PS))
		done
	done
	readds=$(( $(param readds) - readds0 ))
	[ "$readds" -gt 0 ] || [ "$round" -ge 3 ] || continue
	break
done
write_file "$PARAMS/slub_widen_races" 0
refill=$(( $(param hits_refill) - refill0 ))
decide=$(( $(param hits_decide) - decide0 ))
parkw=$(( $(param hits_park) - park0 ))
say "$round round(s): parks $total_parks; delays: refill $refill, park decision $decide, slab_park $parkw; re-adds $readds"
[ "$total_parks" -gt 0 ] || bad "nothing parked: the race was not exercised"
[ "$refill" -gt 0 ] || bad "no delay between remove_partial() and the cmpxchg in get_from_partial_node()"
[ "$decide" -gt 0 ] || bad "no delay between the park decision and the parking cmpxchg"
[ "$parkw" -gt 0 ] || bad "no delay in park_slab()"
[ "$readds" -gt 0 ] || bad "no slab listed again after a failed cmpxchg in $round rounds: the race was not hit"
write_file "$PARKDIR/park" 1 || bad "park=1: $WERR"
rmmod "$MOD" || bad "rmmod: failed"

tp_end race_widen "$total_parks parks, $readds re-adds"
[ "$KTAP_CNT_FAIL" = 0 ]
