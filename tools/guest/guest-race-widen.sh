#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the parking race test: only on the widen kernel
# (tools/kernel/build-kernel.sh --variant widen, tools/kernel/bench-patches/widen-park-races.patch),
# whose delays widen three windows of series v6: in get_from_partial_node()
# between remove_partial() and the cmpxchg that takes the slab's last object
# (a lockless free then makes the cmpxchg fail, and the slab is listed
# again: a re-add), in __slab_free() between the decision to park and the
# parking cmpxchg, and in park_slab() between that cmpxchg and llist_add()
# and between llist_add() and arming the unpark work.  A series that lets a
# free park a slab that is still on the partial list (v6 without its patch
# 3: the slab full on its cmpxchg, removed only after it) corrupts that
# list within seconds then: llnode overlays slab_list, so remove_partial()
# runs list_del() on a parked slab (oops, or an invariant below breaks).
#
# Usage: guest-race-widen.sh [SECONDS_PER_RUN]   (default 2)
#
# Cross runs, cache without sheaves (every allocation takes a slab from the
# partial list), 4 allocator and 4 freer threads per node (more threads than
# vCPUs, so that a freer is preempted inside its window), park 2 and 1,
# inflight 4, 16 and 64.  Fails when the test did not test: nothing parked,
# no delay in one of the windows, or no re-add in 3 rounds; when an
# invariant breaks after a run (allocs == frees; once quiet, after the
# unpark work and again after a shrink: nothing parked, park_slab ==
# unpark_slab, and the cache's objects back to what they were before the
# run); or (seen by slabpark.vm, the guest boots with oops=panic) on any
# splat.  KTAP on stdout; exit 0 pass, 1 fail.

set -u
# shellcheck source=tools/guest/guest-lib.sh
. "$(dirname "$0")/guest-lib.sh"

PARAMS=/sys/module/kernel/parameters
# series v6: the park mode and the parked count are in debugfs
PARK=/sys/kernel/debug/slab/$CACHE/park
PARKED=/sys/kernel/debug/slab/$CACHE/parked
DUR_S=${1:-2}
case "$DUR_S" in
''|*[!0-9]*) echo "usage: $0 [SECONDS_PER_RUN]" >&2; exit 2 ;;
esac

bad() { tp_bad "$@"; }
param() { cat "$PARAMS/slub_widen_$1"; }

# The unpark work runs 100 ms after a park; wait with slack for parked 0
rw_quiesce() {
	sleep 0.5
	i=0
	while [ "$(cat "$PARKED")" != 0 ] && [ $i -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# rw_check WHAT WHEN: nothing parked, every park unparked; sets PS
rw_check() {
	p=$(cat "$PARKED")
	[ "$p" = 0 ] || bad "$1: parked is $p $2, want 0"
	PS=$(sum_of "$SLAB/park_slab")
	US=$(sum_of "$SLAB/unpark_slab")
	[ "$PS" = "$US" ] || bad "$1: park_slab $PS != unpark_slab $US $2"
}

echo "TAP version 13"
echo "1..1"
tp_begin
[ -f "$PARAMS/slub_widen_races" ] || { echo "not ok 1 race_widen # this kernel has no $PARAMS/slub_widen_races (not the widen variant)"; exit 1; }
[ "$NNODES" -ge 2 ] || { echo "not ok 1 race_widen # needs 2 NUMA nodes, have $NNODES"; exit 1; }
insmod "$KO" no_sheaves=1 placement=cross alloc_node=0 free_node=1 threads=4 ||
	{ echo "not ok 1 race_widen # insmod failed"; exit 1; }
if [ ! -f "$PARK" ] || [ ! -f "$PARKED" ] || ! has_stats; then
	echo "not ok 1 race_widen # $CACHE has no debugfs park or parked, or no park_slab stat"
	exit 1
fi

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
		write_file "$PARK" "$mode" || bad "park=$mode: $WERR"
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
			rw_quiesce
			rw_check "$what" "after quiescence"
			write_file "$SLAB/shrink" 1 || bad "$what: shrink: $WERR"
			rw_quiesce
			rw_check "$what" "after shrink"
			o=$(sum_of "$SLAB/objects")
			[ "$o" = "$obj" ] || bad "$what: objects is $o after the run and shrink, $obj before"
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
write_file "$PARK" 1 || bad "park=1: $WERR"
rmmod "$MOD" || bad "rmmod: failed"

tp_end race_widen "$total_parks parks, $readds re-adds"
[ "$NFAIL" = 0 ]
