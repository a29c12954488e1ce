#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# slub_park.sh's parking tests: the switch, the counters, the parked count.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# set_park MODE: MODE in the switch, PARK_OLD the value before
set_park() {
	[ -n "$PARK_OLD" ] || PARK_OLD=$(cat "$PARKDIR/park")
	write_file "$PARKDIR/park" "$1" || { diag "cannot write $1 to $PARKDIR/park: $WERR"; return 1; }
}

# restore_park: PARK_OLD back in the switch (a failure if it does not read back)
restore_park() {
	rp_old=$PARK_OLD
	PARK_OLD=
	[ -n "$rp_old" ] || return 0
	write_file "$PARKDIR/park" "$rp_old"
	rp_now=$(cat "$PARKDIR/park")
	[ "$rp_now" = "$rp_old" ] ||
		fail "park reads '$rp_now' after restoring '$rp_old'${WERR:+: $WERR}"
}

# park_burst NAME: short park=2 cross runs until one ends with slabs
# parked (BURST_PARKED, read before the unpark work runs), park=2 left
# set; BURST_TRIES, as the unpark work may beat a burst's end (5 in a row
# seen).  Else a skip for frees where they were deferred, or a failure.
BURST_PARKED=0
BURST_TRIES=10
park_burst() {
	set_park 2 || return 1
	BURST_WHO=$1
	loop_until "$BURST_TRIES" burst_parked && return "$BURST_RC"
	cat "$DBG/results" > "$TMP/burst.res"
	stat_snapshot "$SLAB" > "$TMP/burst.stats"
	nothing_parked burst "$1: nothing parked at the end of $BURST_TRIES park=2 bursts"
}

# burst_parked: one burst; true when it left slabs parked, or failed (BURST_RC 1)
burst_parked() {
	clear_stats
	BURST_RC=1
	run_wait "$BURST_WHO" placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 batch=1 inflight=4096 duration_ms=500 || return 0
	BURST_RC=0
	BURST_PARKED=$DR_PARKED
	[ "${BURST_PARKED:-0}" -gt 0 ]
}

# nothing_parked RUN WHAT: a skip for frees when RUN's frees were
# deferred, else a failure, saying WHAT
nothing_parked() {
	np_why=$(frees_deferred "$1") && { skip frees "$2 ($np_why)"; return; }
	diag "$2"
	return 1
}

burst_or_skip() {
	park_burst "$1" && return
	bs_rc=$?
	restore_park
	return "$bs_rc"
}

# counters_agree WHO: park_slab (ps) = unpark_slab (us), else said
counters_agree() {
	ps=$(stat_sum park_slab)
	us=$(stat_sum unpark_slab)
	[ "$ps" = "$us" ] || { diag "$1: park_slab $ps != unpark_slab $us after quiesce"; return 1; }
}

# the unpark work runs 100 ms after the first park; with slack
QUIESCE_S=0.5

# settled WHO [S]: after S s, nothing left parked (left, after up to 2 s),
# counters_agree; under KASAN frees leave the quarantine and park at any
# time: 1 s of tries
settled() {
	[ -z "${2:-}" ] || sleep "$2"
	left=$(parked_settle)
	[ "$left" = 0 ] || fail "$1: $left slabs still parked after quiesce"
	st_tries=1
	[ -z "$KASAN" ] || st_tries=11
	loop_until "$st_tries" counters_agree "$1" || ok=1
}

t_park_counters() {
	set_park 2 || return 1
	do_run park2 placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
		batch=1 duration_ms="$PARK_DUR_MS" || return 1
	check_run park2 cross
	ps=$(stat_sum park_slab)
	deferred=
	[ "${ps:-0}" -gt 0 ] || deferred=$(frees_deferred park2) ||
		fail "park=2 cross run: park_slab '$ps', expected > 0"
	[ -z "$deferred" ] || diag "park=2 cross run: park_slab 0, not checked: $deferred"
	settled park=2 "$QUIESCE_S"
	fap=$(stat_sum free_add_partial)
	diag "park=2: park_slab $ps unpark_slab $us free_add_partial $fap parked $left"
	# park=2 parks every first free into a full slab, which counts
	# free_add_partial too
	[ "$ps" = "$fap" ] || fail "park=2: park_slab $ps != free_add_partial $fap"

	set_park 0 || return 1
	do_run park0 placement=cross duration_ms="$PARK_DUR_MS" || return 1
	check_run park0 cross
	ps=$(stat_sum park_slab)
	[ "$ps" = 0 ] || fail "park=0 cross run: park_slab $ps, expected 0"

	# 2 -> 0 with slabs parked drains them at once, not by the work (due
	# within 100 ms): 5 times, written and read in this shell, no fork
	for sw in 1 2 3 4 5; do
		burst_or_skip park_counters || return
		echo 0 2>/dev/null > "$PARKDIR/park" || { diag "cannot write 0 to $PARKDIR/park"; return 1; }
		read -r after < "$PARKDIR/parked"
		diag "switch 2->0 ($sw/5): parked $BURST_PARKED -> $after"
		[ "$after" = 0 ] || fail "parked $after right after writing 0 to park"
	done
	restore_park
	[ -z "$deferred" ] || skip frees "nothing parked ($deferred); the other invariants held"
}

t_park_no_stranded() {
	clear_stats
	burst_or_skip park_no_stranded || return
	settled park_no_stranded
	restore_park
	diag "park_slab $ps unpark_slab $us; parked $BURST_PARKED at the end of the burst, $left after polling"
}

# nosheaves_restore: the default module, idle, loaded again
nosheaves_restore() {
	DR_SHRINK=0
	restore_park
	! mod_loaded || ! run_active || write_file "$DBG/stop" 1
	! mod_loaded || unload || return 1
	load || return 1
	BASE_OBJECTS=$(stat_sum objects)
}

nosheaves_load() { unload || return 1; load no_sheaves=1 && return; load; return 1; }

# Without sheaves a remote free can meet a full slab still on the partial
# list: parking it there corrupted the list (the first series, found by
# make soak).  What it runs: slub-stress.rst.
t_park_no_sheaves() {
	nosheaves_load || return 1
	cap=$(cat "$SLAB/sheaf_capacity" 2>/dev/null)
	[ "$cap" = 0 ] || fail "no_sheaves=1: sheaf_capacity '$cap', expected 0"
	set_park 2 || { nosheaves_restore; return 1; }
	parks=0
	DR_SHRINK=1
	for inf in 16 64 256; do
		do_run "nosheaves$inf" placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
			threads=0 inflight="$inf" batch=1 duration_ms="$PARK_DUR_MS" \
			shrink_ms="$PARK_SHRINK_MS" || { nosheaves_restore; return 1; }
		check_run "nosheaves$inf" cross
		settled "inflight $inf" "$QUIESCE_S"
		diag "no sheaves, park=2, inflight $inf: park_slab $ps unpark_slab $us parked at the end ${DR_PARKED:-?}, after quiesce $left; module shrinks $(res "$TMP/nosheaves$inf.res" shrinks) (shrink_ms $PARK_SHRINK_MS)"
		parks=$((parks + ${ps:-0}))
	done
	nosheaves_restore || return 1
	[ "$parks" -gt 0 ] || fail "no sheaves, park=2: nothing parked in 3 cross runs ($(frees_deferred nosheaves256))"
}

# fp_steps MODE: at park=MODE a cross burst with many objects in flight,
# a short run before the unpark work's delay, 2 s quiet; FP_PARKS,
# FP_LEFT (parked), FP_SLABS then
FP_INFLIGHT=16384
fp_steps() {
	set_park "$1" || return 1
	write_file "$SLAB/shrink" 1 || { diag "shrink: $WERR"; return 1; }
	sleep "$QUIESCE_S"
	do_run "fp$1" placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 batch=1 inflight="$FP_INFLIGHT" duration_ms="$PARK_DUR_MS" || return 1
	fp_end=$DR_PARKED
	run_wait "fp${1}short" inflight=4 duration_ms=1 || return 1
	cat "$DBG/results" > "$TMP/fp${1}short.res"
	check_run "fp$1" cross
	check_run "fp${1}short" cross
	[ "$ok" = 0 ] || return 1
	sleep 2
	FP_PARKS=$(run_stat "fp$1" park_slab)
	FP_LEFT=$(parked_settle)
	FP_SLABS=$(stat_sum slabs)
	diag "park=$1: burst parked ${FP_PARKS:-?} slabs, ${fp_end:-?} at its end; 2 s after the short run: slabs $FP_SLABS ($(cat "$SLAB/slabs")), parked $FP_LEFT"
}

# The first series kept every empty slab it unparked for an allocation
# (287 and 815 against 4).  What it runs: slub-stress.rst.
t_park_footprint() {
	nosheaves_load || return 1
	{ fp_steps 0 && base_slabs=$FP_SLABS && fp_steps 2; } || { nosheaves_restore; return 1; }
	minp=$(cat "$SLAB/min_partial")
	tol=$((minp * NR_NODES))
	nosheaves_restore || return 1
	[ "${FP_PARKS:-0}" -gt 0 ] || { nothing_parked fp2 "park=2: nothing parked in the burst"; return; }
	[ "$FP_LEFT" = 0 ] || fail "park=2: $FP_LEFT slabs still parked"
	[ "$FP_SLABS" -le $((base_slabs + tol)) ] ||
		fail "park=2 keeps $FP_SLABS slabs at rest, park=0 $base_slabs (tolerance: min_partial $minp x $NR_NODES nodes)"
}
