#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park parking: the switch, the counters and the parked count of the
# series (debugfs park and parked, SLUB_STATS park_slab and unpark_slab).
# Sourced by slub_park.sh, whose variables these tests share.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# set_park MODE: write MODE to the switch, PARK_OLD the value before
set_park() {
	[ -n "$PARK_OLD" ] || PARK_OLD=$(cat "$PARKDIR/park")
	write_file "$PARKDIR/park" "$1" && return 0
	diag "cannot write $1 to $PARKDIR/park: $WERR"
	return 1
}

# restore_park: PARK_OLD back in the switch; 1, said, when it does not
# read back
restore_park() {
	rp_old=$PARK_OLD
	PARK_OLD=
	[ -n "$rp_old" ] || return 0
	write_file "$PARKDIR/park" "$rp_old"
	rp_now=$(cat "$PARKDIR/park")
	[ "$rp_now" = "$rp_old" ] && return 0
	diag "park reads '$rp_now' after restoring '$rp_old'${WERR:+: $WERR}"
	return 1
}

# park_burst NAME: short park=2 cross runs until one ends with slabs still
# parked (BURST_PARKED, read before the unpark work has run), so that the
# caller acts on parked slabs; park=2 left set.  Up to BURST_TRIES: the
# unpark work may beat a burst's end (a make check saw 5 in a row; 3 under
# KASAN, whose quarantine keeps the frees from parking anyway).  1 when
# nothing parked (a skip for frees where the frees were deferred).
BURST_PARKED=0
BURST_TRIES=10
park_burst() {
	set_park 2 || return 1
	pb_try=0
	while [ "$pb_try" -lt "$BURST_TRIES" ]; do
		pb_try=$((pb_try + 1))
		clear_stats	# the counters below are the last burst's
		run_wait "$1" placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
			threads=0 batch=1 inflight=4096 duration_ms=500 || return 1
		BURST_PARKED=$DR_PARKED
		[ "${BURST_PARKED:-0}" -gt 0 ] && return 0
	done
	cat "$DBG/results" > "$TMP/burst.res"
	stat_snapshot "$SLAB" > "$TMP/burst.stats"
	nothing_parked burst "$1: nothing parked at the end of $BURST_TRIES park=2 bursts"
}

# nothing_parked RUN WHAT: a skip for frees (4) when RUN's frees were
# deferred, else a failure (1), saying WHAT
nothing_parked() {
	if np_why=$(frees_deferred "$1"); then
		skip frees "$2 ($np_why)"
		return
	fi
	diag "$2"
	return 1
}

# burst_or_skip NAME: park_burst, and the test's return value if it failed
burst_or_skip() {
	park_burst "$1" && return 0
	bs_rc=$?
	restore_park
	return "$bs_rc"
}

# counters_agree WHO: ps and us, park_slab and unpark_slab, agree; a
# disagreement is said
counters_agree() {
	ps=$(stat_sum park_slab)
	us=$(stat_sum unpark_slab)
	[ "$ps" = "$us" ] && return 0
	diag "$1: park_slab $ps != unpark_slab $us after quiesce"
	return 1
}

# settled WHO: nothing is left parked (left, once settled: up to 2 s) and
# counters_agree; under KASAN, frees leave the quarantine at any time and
# may park between the reads: the counters are read again until they agree
# (1 s)
settled() {
	st_ok=0
	left=$(parked_settle)
	[ "$left" = 0 ] || { diag "$1: $left slabs still parked after quiesce"; st_ok=1; }
	st_tries=1
	[ -z "$KASAN" ] || st_tries=11
	loop_until "$st_tries" counters_agree "$1" || st_ok=1
	return "$st_ok"
}

t_park_counters() {
	ok=0
	set_park 2 || return 1
	do_run park2 placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
		batch=1 duration_ms="$PARK_DUR_MS" || return 1
	check_run park2 cross || ok=1
	ps=$(stat_sum park_slab)
	deferred=
	if [ "${ps:-0}" -le 0 ]; then
		if deferred=$(frees_deferred park2); then
			diag "park=2 cross run: park_slab 0, not checked: $deferred"
		else
			deferred=
			diag "park=2 cross run: park_slab '$ps', expected > 0"
			ok=1
		fi
	fi
	nap "$QUIESCE_S"
	settled park=2 || ok=1
	fap=$(stat_sum free_add_partial)
	diag "park=2: park_slab $ps unpark_slab $us free_add_partial $fap parked $left"
	# A park counts free_add_partial too (full -> partial and full ->
	# empty frees alike), and park=2 parks every first free into a full
	# slab, which is where free_add_partial is counted: equal.
	[ "$ps" = "$fap" ] || { diag "park=2: park_slab $ps != free_add_partial $fap (every first free into a full slab parks, and counts both)"; ok=1; }

	set_park 0 || return 1
	do_run park0 placement=cross duration_ms="$PARK_DUR_MS" || return 1
	check_run park0 cross || ok=1
	ps=$(stat_sum park_slab)
	[ "$ps" = 0 ] || { diag "park=0 cross run: park_slab $ps, expected 0"; ok=1; }

	# 2 -> 0 with slabs parked drains them at once, not by the work: the
	# work may run first (it is due within 100 ms of the burst's end), so
	# switch 5 times, writing and reading in this shell, without a fork.
	for sw in 1 2 3 4 5; do
		burst_or_skip park_counters
		rc=$?
		if [ "$rc" -ne 0 ]; then
			[ "$rc" -eq "$ksft_skip" ] && [ "$ok" -eq 0 ] && return "$ksft_skip"
			return 1
		fi
		if ! echo 0 2>/dev/null > "$PARKDIR/park"; then
			diag "cannot write 0 to $PARKDIR/park"
			return 1
		fi
		read -r after < "$PARKDIR/parked"
		diag "switch 2->0 ($sw/5): parked $BURST_PARKED -> $after"
		[ "$after" = 0 ] || { diag "parked $after right after writing 0 to park"; ok=1; }
	done
	restore_park || ok=1
	if [ "$ok" -eq 0 ] && [ -n "$deferred" ]; then
		skip frees "nothing parked ($deferred); the other invariants held"
		return
	fi
	return "$ok"
}

# Nothing stays parked: the delayed work alone unparks.  A burst leaves
# slabs parked (park_burst: 'parked' > 0 right after the run); then, with
# no other activity and only read-only reads of 'parked', it must fall to 0.
t_park_no_stranded() {
	clear_stats
	burst_or_skip park_no_stranded || return
	settled park_no_stranded
	rc=$?
	restore_park || rc=1
	diag "park_slab $ps unpark_slab $us; parked $BURST_PARKED at the end of the burst, $left after polling"
	return "$rc"
}

# A cache without sheaves takes every allocation from a partial slab under
# list_lock (get_from_partial_node()): one cmpxchg takes the slab's last
# object, remove_partial() follows.  A remote free in between sees a full
# slab still on the partial list; parking it there corrupts the list (an
# oops at LIST_POISON1 in unpark_slabs(), found by 'make soak').  Always
# park (park=2) in cross runs whose allocators drain slabs as the freers
# refill them, both sides on the same few slabs (inflight 16..256; with 4 or
# fewer objects per thread in flight no slab ever fills, nothing parks).
# The cache is shrunk during the runs (DR_SHRINK; not after them, so that
# only the delayed work empties 'parked' then): shrink unparks, and under
# KASAN it flushes the quarantine that holds the frees; there the module
# shrinks too, every PARK_SHRINK_MS (50) ms (shrink_ms): the shell's
# shrinks alone once let 0 of a run's frees reach SLUB under TCG.  Before
# the fix this crashed the kernel within the first two of these runs in 12
# boots out of 12 (2x2 vCPUs, TCG); after it, 940-17,700 parks a run
# (150-480 under KASAN).  The default module, idle, is loaded again at the
# end, on failure too.
nosheaves_restore() {
	DR_SHRINK=0
	restore_park
	if mod_loaded; then
		[ "$(cat "$DBG/status" 2>/dev/null)" = running ] && write_file "$DBG/stop" 1
		unload || return 1
	fi
	load || return 1
	BASE_OBJECTS=$(stat_sum objects)
}

# Reload the module without sheaves; on failure, the default module again.
nosheaves_load() {
	unload || return 1
	load no_sheaves=1 && return 0
	load
	return 1
}

t_park_no_sheaves() {
	nosheaves_load || return 1
	ok=0
	cap=$(cat "$SLAB/sheaf_capacity" 2>/dev/null)
	if [ "$cap" != 0 ]; then
		diag "no_sheaves=1: sheaf_capacity '$cap', expected 0"
		ok=1
	fi
	set_park 2 || { nosheaves_restore; return 1; }
	parks=0
	DR_SHRINK=1	# until nosheaves_restore
	for inf in 16 64 256; do
		if ! do_run "nosheaves$inf" placement=cross alloc_node="$NODE_A" \
			free_node="$NODE_B" threads=0 inflight="$inf" batch=1 \
			duration_ms="$PARK_DUR_MS" shrink_ms="$PARK_SHRINK_MS"; then
			nosheaves_restore
			return 1
		fi
		check_run "nosheaves$inf" cross || ok=1
		nap "$QUIESCE_S"
		settled "inflight $inf" || ok=1
		diag "no sheaves, park=2, inflight $inf: park_slab $ps unpark_slab $us parked at the end ${DR_PARKED:-?}, after quiesce $left; module shrinks $(res "$TMP/nosheaves$inf.res" shrinks) (shrink_ms $PARK_SHRINK_MS)"
		parks=$((parks + ${ps:-0}))
	done
	nosheaves_restore || return 1
	if [ "$parks" -eq 0 ]; then
		deferred=$(frees_deferred nosheaves256)
		diag "no sheaves, park=2: nothing parked in 3 cross runs${deferred:+ ($deferred)}"
		ok=1
	fi
	return "$ok"
}

# Memory held after a burst: in a cross burst with many objects in flight
# (park=2), the freers park slabs and go on freeing into them until many
# are empty, and the allocators unpark them; a short run right after the
# burst allocates again before the unpark work's delay.  Once quiet, the
# node must keep no more slabs than with parking off after the same steps
# (min_partial empty slabs): the first series listed every empty slab it
# unparked for an allocation, and kept 287 and 815 slabs here in two boots
# against 4.  No sheaves, so every allocation uses the partial list.
FP_INFLIGHT=16384
fp_steps() {
	set_park "$1" || return 1
	write_file "$SLAB/shrink" 1 || { diag "shrink: $WERR"; return 1; }
	nap "$QUIESCE_S"
	do_run "fp$1" placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 batch=1 inflight="$FP_INFLIGHT" duration_ms="$PARK_DUR_MS" || return 1
	fp_end=$DR_PARKED
	# at once: the unpark work runs 100 ms after the first park
	run_wait "fp${1}short" inflight=4 duration_ms=1 || return 1
	cat "$DBG/results" > "$TMP/fp${1}short.res"
	check_run "fp$1" cross || return 1
	check_run "fp${1}short" cross || return 1
	nap 2
	FP_PARKS=$(run_stat "fp$1" park_slab)
	FP_LEFT=$(parked_settle)
	FP_SLABS=$(stat_sum slabs)
	diag "park=$1: burst parked ${FP_PARKS:-?} slabs, ${fp_end:-?} at its end; 2 s after the short run: slabs $FP_SLABS ($(cat "$SLAB/slabs")), parked $FP_LEFT"
}

t_park_footprint() {
	nosheaves_load || return 1
	ok=0
	fp_steps 0 || { nosheaves_restore; return 1; }
	base_slabs=$FP_SLABS
	fp_steps 2 || { nosheaves_restore; return 1; }
	minp=$(cat "$SLAB/min_partial")
	tol=$((minp * NR_NODES))
	nosheaves_restore || return 1
	if [ "${FP_PARKS:-0}" -eq 0 ]; then
		nothing_parked fp2 "park=2: nothing parked in the burst"
		return
	fi
	[ "$FP_LEFT" = 0 ] || { diag "park=2: $FP_LEFT slabs still parked"; ok=1; }
	if [ "$FP_SLABS" -gt $((base_slabs + tol)) ]; then
		diag "park=2 keeps $FP_SLABS slabs at rest, park=0 $base_slabs (tolerance: min_partial $minp x $NR_NODES nodes)"
		ok=1
	fi
	return "$ok"
}
