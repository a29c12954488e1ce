#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the parking race test: only on the widen kernel
# (tools/kernel/build-kernel.sh --variant widen, tools/kernel/bench-patches/widen-park-races.patch),
# whose delays widen two windows: between __slab_free()'s SL_partial test and
# its parking cmpxchg, and between the cmpxchg in get_from_partial_node() that
# takes a slab's last object and remove_partial().  A series that can park a
# slab still on the partial list corrupts that list within seconds then
# (oops on LIST_POISON1 in the unpark path, or in get_from_partial_node());
# the first series did, in 3 boots of 3 (within 11 s).
#
# Usage: race-widen.sh [SECONDS_PER_RUN]   (default 2)
#
# Cross runs, cache without sheaves (every allocation takes a slab from the
# partial list), 4 allocator and 4 freer threads per node (more threads than
# vCPUs, so that a freer is preempted inside its window), park 2 and 1,
# inflight 4, 16 and 64.  Fails when nothing was parked or no delay was
# inserted (the test did not test), when an invariant breaks after a run,
# or (seen by run-guest.sh, the guest boots with oops=panic) on any splat.
# KTAP on stdout; exit 0 pass, 1 fail.

set -u
# shellcheck source=tools/guest/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

PARAMS=/sys/module/kernel/parameters
DUR_S=${1:-2}
case "$DUR_S" in
''|*[!0-9]*) echo "usage: $0 [SECONDS_PER_RUN]" >&2; exit 2 ;;
esac

bad() { tp_bad "$@"; }

echo "TAP version 13"
echo "1..1"
tp_begin
[ -f "$PARAMS/slub_widen_races" ] || { echo "not ok 1 race_widen # this kernel has no $PARAMS/slub_widen_races (not the widen variant)"; exit 1; }
[ "$NNODES" -ge 2 ] || { echo "not ok 1 race_widen # needs 2 NUMA nodes, have $NNODES"; exit 1; }
insmod "$KO" no_sheaves=1 placement=cross alloc_node=0 free_node=1 threads=4 ||
	{ echo "not ok 1 race_widen # insmod failed"; exit 1; }
if ! has_park || ! has_parked || ! has_stats; then
	echo "not ok 1 race_widen # $SLAB has no park, parked or park_slab"
	exit 1
fi

# slub_park_rechecks counts the parks taken back by the SL_partial re-test
# after the cmpxchg: repeat the round until the race was hit at least once,
# up to 3 rounds.
rechecks() { cat "$PARAMS/slub_park_rechecks"; }
write_file "$PARAMS/slub_widen_races" 1 || bad "enable the delays: $WERR"
hits0=$(cat "$PARAMS/slub_widen_hits")
rechecks0=$(rechecks)
total_parks=0
round=0
while :; do
	round=$((round + 1))
	for mode in 2 1; do
		write_file "$SLAB/park" "$mode" || bad "park=$mode: $WERR"
		for inf in 4 16 64; do
			what="round $round park=$mode inflight=$inf"
			zero_stats
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
	rechecked=$(( $(rechecks) - rechecks0 ))
	[ "$rechecked" -gt 0 ] || [ "$round" -ge 3 ] || continue
	break
done
write_file "$PARAMS/slub_widen_races" 0
hits=$(( $(cat "$PARAMS/slub_widen_hits") - hits0 ))
say "$round round(s): parks $total_parks, delays in park windows $hits, parks taken back after the cmpxchg $rechecked"
[ "$total_parks" -gt 0 ] || bad "nothing parked: the race was not exercised"
[ "$hits" -gt 0 ] || bad "no delay was inserted in a park window"
if [ "$rechecked" -eq 0 ]; then
	bad "no park met a slab still on the partial list in $round rounds: the race was not hit"
fi
rmmod "$MOD" || bad "rmmod: failed"

tp_end race_widen "$total_parks parks, $rechecked taken back"
[ "$NFAIL" = 0 ]
