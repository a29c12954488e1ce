#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park runs: load the module, run it in each placement, check the
# results, the free paths, shrink and the accounting invariants.
# POSIX sh (busybox ash); sourced by slub_park.sh, which runs each test t_NAME
# through run_test (its TESTS table).
# The variables are the driver's (slub_park.sh), shared with it.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# Runs.

has_stats() {
	[ -e "$SLAB/free_slowpath" ]
}

# Clear all stat counters together, at a quiescent point: wait (read-only)
# for parked slabs of the previous run to be unparked first, or a late unpark
# would count in unpark_slab without its park_slab.
clear_stats() {
	if [ -e "$PARKDIR/parked" ]; then
		cs_p=$(parked_settle)
		[ "$cs_p" = 0 ] || diag "clear_stats: $cs_p slabs still parked"
	fi
	clear_stat_files "$SLAB"
}

# set_params WHO KEY=VALUE...: write each VALUE to the module's debugfs
# file KEY, in turn; a failure says so, for WHO
set_params() {
	sp_who=$1
	shift
	for sp_kv in "$@"; do
		write_file "$DBG/${sp_kv%%=*}" "${sp_kv#*=}" && continue
		diag "$sp_who: cannot set $sp_kv: $WERR"
		return 1
	done
}

# do_run NAME key=val...: set run parameters through debugfs, clear the
# stat counters, run to completion; results in $TMP/NAME.res, stat sums in
# $TMP/NAME.stats.  Returns 1 when the run could not be done.  With
# DR_SHRINK=1 the cache is shrunk every 0.1 s during the run (under KASAN
# this flushes the quarantine, so that the frees reach the slabs while the
# allocators run); not after it, so that what the run left parked is still
# there for the caller to check.  A failed shrink fails the run.
DR_SHRINK=0
do_run() {
	dr_name=$1
	shift
	set_params "$dr_name" "$@" || return 1
	clear_stats
	if ! write_file "$DBG/run" 1; then
		diag "$dr_name: cannot start run: $WERR"
		return 1
	fi
	dr_shrink_err=
	if [ "$DR_SHRINK" = 1 ]; then
		while [ "$(cat "$DBG/status")" = running ]; do
			write_file "$SLAB/shrink" 1 || dr_shrink_err=$WERR
			nap 0.1
		done
	fi
	if ! dr_state=$(cat "$DBG/wait"); then
		diag "$dr_name: reading wait failed"
		return 1
	fi
	if [ -n "$dr_shrink_err" ]; then
		diag "$dr_name: shrink during the run: $dr_shrink_err"
		return 1
	fi
	# parked count right at the end of the run (read-only)
	DR_PARKED=$(parked_now)
	cat "$DBG/results" > "$TMP/$dr_name.res"
	stat_snapshot "$SLAB" > "$TMP/$dr_name.stats"
	diag "$dr_name: $dr_state; $(res "$TMP/$dr_name.res" frees) frees, $(res "$TMP/$dr_name.res" ops_per_sec) ops/s, remote $(res "$TMP/$dr_name.res" remote_free_pct)%${DR_PARKED:+, parked at end $DR_PARKED}"
	return 0
}

# frees_deferred RUN: the freers' frees did not reach SLUB in the run, so
# nothing could park; prints the reason.  Without KASAN: fastpath + slowpath
# < 50% of the run's frees.  With KASAN always: its quarantine holds the
# frees, and those it lets go are freed in batches by quarantine_reduce() on
# whichever CPU allocates next (the allocators' node: local frees, which
# never park), however many they are.  Needs SLUB_STATS.
frees_deferred() {
	fd_frees=$(res "$TMP/$1.res" frees)
	fd_fast=$(run_stat "$1" free_fastpath)
	fd_slow=$(run_stat "$1" free_slowpath)
	fd_frees=${fd_frees:-0} fd_fast=${fd_fast:-0} fd_slow=${fd_slow:-0}
	fd_why="$((fd_fast + fd_slow)) of $fd_frees frees of run $1 reached SLUB (free_fastpath + free_slowpath)"
	if [ -n "$KASAN" ]; then
		echo "KASAN quarantine defers frees and frees them on the allocating CPUs; $fd_why"
		return 0
	fi
	if ge_pct $((fd_fast + fd_slow)) "$fd_frees" 50; then
		return 1
	fi
	echo "only $fd_why"
	return 0
}

run_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$TMP/$1.stats"
}

# check_run NAME PLACEMENT: the common checks of a finished run.
check_run() {
	cr_f=$TMP/$1.res
	cr_ok=0
	cr_state=$(res "$cr_f" state)
	cr_err=$(res "$cr_f" error)
	cr_allocs=$(res "$cr_f" allocs)
	cr_frees=$(res "$cr_f" frees)
	cr_placement=$(res "$cr_f" placement)
	cr_an=$(res "$cr_f" alloc_thread_nodes)
	cr_fn=$(res "$cr_f" free_thread_nodes)
	if [ "$cr_state" != "done" ]; then
		diag "$1: state '$cr_state', expected 'done'"
		cr_ok=1
	fi
	if [ "$cr_err" != 0 ]; then
		diag "$1: error $cr_err"
		cr_ok=1
	fi
	if [ "$cr_placement" != "$2" ]; then
		diag "$1: placement '$cr_placement', expected '$2'"
		cr_ok=1
	fi
	if [ -z "$cr_allocs" ] || [ -z "$cr_frees" ] || [ "$cr_allocs" -le 0 ] || [ "$cr_frees" -le 0 ]; then
		diag "$1: allocs '$cr_allocs' frees '$cr_frees', expected > 0"
		return 1
	fi
	if [ "$cr_allocs" -ne "$cr_frees" ]; then
		diag "$1: allocs $cr_allocs != frees $cr_frees after the run"
		cr_ok=1
	fi
	cr_fail=$(res "$cr_f" alloc_failures)
	if [ -n "$cr_fail" ] && [ "$cr_fail" != 0 ]; then
		diag "$1: $cr_fail allocation failures"
		cr_ok=1
	fi
	case "$cr_an $cr_fn" in
	*+*)
		diag "$1: a thread ran on several nodes: alloc '$cr_an' free '$cr_fn'"
		cr_ok=1 ;;
	esac
	if [ -z "$cr_an" ] || [ -z "$cr_fn" ]; then
		diag "$1: no thread nodes reported"
		cr_ok=1
	fi
	return "$cr_ok"
}


t_load() {
	# NODE_ARGS: placement=local with fewer than two run nodes
	load || return 1
	if [ -L "$SLAB" ]; then
		skip own_cache "$SLAB is a symlink (merged alias); its counters are shared"
		return
	fi
	ok=0
	st=$(cat "$DBG/status")
	if [ "$st" != idle ]; then
		diag "status '$st' after load, expected 'idle'"
		ok=1
	fi
	BASE_OBJECTS=$(stat_sum objects)
	diag "cache $CACHE: objects=$BASE_OBJECTS objs_per_slab=$(cat "$SLAB/objs_per_slab") order=$(cat "$SLAB/order")"
	return "$ok"
}

# threads_on PLACEMENT WHO NODES WANT: the nodes of WHO's threads (NODES,
# one per thread) are all in WANT, and each node of WANT has a thread.
threads_on() {
	to_ok=0
	[ -n "$3" ] || { diag "$1: no $2 reported"; return 1; }
	for to_n in $3; do
		case " $4 " in
		*" $to_n "*) ;;
		*) diag "$1: $2 on node $to_n, expected only on $4"; to_ok=1 ;;
		esac
	done
	for to_n in $4; do
		case " $3 " in
		*" $to_n "*) ;;
		*) diag "$1: no $2 on node $to_n ('$3')"; to_ok=1 ;;
		esac
	done
	return "$to_ok"
}

# t_run PLACEMENT: one run, its common checks, and the threads where the
# placement puts them:
#   placement  nodes  allocators on   freers on
#   cross      2      NODE_A          NODE_B
#   local      1      NODE_A          NODE_A
#   balanced   2      both            both
# In stress mode, cross also runs with bulk calls (batch 16).
t_run() {
	tr_pl=$1
	case $tr_pl in
	cross) tr_alloc=$NODE_A tr_free=$NODE_B ;;
	local) tr_alloc=$NODE_A tr_free=$NODE_A ;;
	balanced) tr_alloc="$NODE_A $NODE_B" tr_free="$NODE_A $NODE_B" ;;
	*) diag "t_run: unknown placement '$tr_pl'"; return 1 ;;
	esac
	do_run "$tr_pl" placement="$tr_pl" alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 inflight=64 batch=1 duration_ms="$DUR_MS" || return 1
	ok=0
	check_run "$tr_pl" "$tr_pl" || ok=1
	threads_on "$tr_pl" allocators "$(res "$TMP/$tr_pl.res" alloc_thread_nodes)" "$tr_alloc" || ok=1
	threads_on "$tr_pl" freers "$(res "$TMP/$tr_pl.res" free_thread_nodes)" "$tr_free" || ok=1
	if [ "$tr_pl" = cross ] && [ "$MODE" = stress ]; then
		do_run cross_bulk placement=cross batch=16 inflight=1024 || return 1
		check_run cross_bulk cross || ok=1
		write_file "$DBG/batch" 1
		write_file "$DBG/inflight" 64
	fi
	return "$ok"
}

t_remote_free_pct() {
	if [ ! -r "$TMP/local.res" ]; then
		skip run_local "no local run to check"
		return
	fi
	ok=0
	lp=$(res "$TMP/local.res" remote_free_pct)
	if ! cmp_dec "$lp" le 1; then
		diag "local: remote_free_pct $lp, expected <= 1"
		ok=1
	fi
	if [ -r "$TMP/cross.res" ]; then
		cp=$(res "$TMP/cross.res" remote_free_pct)
		if ! cmp_dec "$cp" ge 99; then
			diag "cross: remote_free_pct $cp, expected >= 99"
			ok=1
		fi
		diag "remote_free_pct: cross $cp, local $lp"
	else
		diag "remote_free_pct: local $lp (no cross run: 1 node)"
	fi
	return "$ok"
}

# free_counts RUN: frees, slow (free_slowpath) and fast (free_fastpath)
# of run RUN, 0 where absent
free_counts() {
	frees=$(res "$TMP/$1.res" frees)
	slow=$(run_stat "$1" free_slowpath)
	fast=$(run_stat "$1" free_fastpath)
	frees=${frees:-0} slow=${slow:-0} fast=${fast:-0}
	diag "$1: frees $frees free_slowpath $slow free_fastpath $fast"
}

# Remote frees skip the per-CPU sheaves: __slab_free() counts free_slowpath.
t_free_path_stats() {
	if [ ! -r "$TMP/local.stats" ]; then
		skip run_local "no local run to check"
		return
	fi
	for r in cross local; do
		[ -r "$TMP/$r.stats" ] || continue
		if why=$(frees_deferred "$r"); then
			skip frees "$why"
			return
		fi
	done
	ok=0
	if [ -r "$TMP/cross.stats" ]; then
		free_counts cross
		if ! ge_pct "$slow" "$frees" 90; then
			diag "cross: free_slowpath $slow < 90% of $frees frees"
			ok=1
		fi
		if ! ge_pct "$frees" "$fast" 1000; then
			diag "cross: free_fastpath $fast > 10% of $frees frees"
			ok=1
		fi
	fi
	free_counts local
	if ! ge_pct "$frees" "$slow" 1000; then
		diag "local: free_slowpath $slow > 10% of $frees frees"
		ok=1
	fi
	return "$ok"
}
# Shrink frees every empty slab, the parked ones too (it unparks first):
# with parking, it acts on a cache with slabs parked right before
# (park_burst).
t_shrink() {
	[ "$(cat "$DBG/status")" = idle ] || { diag "module not idle"; return 1; }
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		burst_or_skip shrink || return
		diag "parked before the shrink: $BURST_PARKED"
	fi
	if ! write_file "$SLAB/shrink" 1; then
		diag "shrink: $WERR"
		return 1
	fi
	ok=0
	for f in slabs objects partial total_objects; do
		v=$(stat_sum "$f")
		[ "$v" = 0 ] || { diag "after shrink: $f $v, expected 0 ($(cat "$SLAB/$f"))"; ok=1; }
	done
	if [ -e "$PARKDIR/parked" ]; then
		v=$(parked_now)
		[ "$v" = 0 ] || { diag "after shrink: parked $v"; ok=1; }
	fi
	restore_park
	return "$ok"
}

# Accounting invariants, with slabs parked: the sysfs checker; then, once
# shrunk, objects back at the baseline.  The sysfs counts do not walk the
# parked slabs (their free objects count as in use until unparked); the
# invariants must hold all the same.
t_accounting() {
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		burst_or_skip accounting || return
		diag "parked before the checks: $BURST_PARKED"
		restore_park
	fi
	ok=0
	if [ -x "$SYSFS_BIN" ]; then
		# The files are read one after another: the unpark work may
		# discard the burst's parked slabs between two reads (seen:
		# slabs 137, then total_objects of 7 slabs).  When the parked
		# count moved during the reads, they are made once more.
		for try in 1 2; do
			pk_before=$(parked_now)
			SLUB_PARK_CACHE=$CACHE "$SYSFS_BIN" > "$TMP/sysfs.out" 2>&1
			rc=$?
			pk_after=$(parked_now)
			if [ "$rc" = 0 ] || [ "$try" = 2 ] || [ "$pk_before" = "$pk_after" ]; then
				break
			fi
			diag "parked moved during the reads ($pk_before -> $pk_after): reading again"
		done
		sed 's/^/# /' "$TMP/sysfs.out"
		case $rc in
		0) ;;
		4) skip loaded "slub_park_sysfs skipped everything"; return ;;
		*) diag "slub_park_sysfs failed (rc $rc)"; ok=1 ;;
		esac
	else
		diag "slub_park_sysfs not found next to the script; shell checks only"
		slabs=$(stat_sum slabs)
		tot=$(stat_sum total_objects)
		per=$(cat "$SLAB/objs_per_slab")
		obj=$(stat_sum objects)
		[ "$tot" -eq $((slabs * per)) ] || { diag "total_objects $tot != slabs $slabs x $per"; ok=1; }
		[ "$obj" -le "$tot" ] || { diag "objects $obj > total_objects $tot"; ok=1; }
	fi
	# Once shrunk (the sheaves hold objects until then): back at baseline.
	write_file "$SLAB/shrink" 1 || { diag "shrink: $WERR"; return 1; }
	obj=$(stat_sum objects)
	if [ "$obj" != "${BASE_OBJECTS:-0}" ]; then
		diag "objects $obj after shrink, baseline ${BASE_OBJECTS:-0}"
		ok=1
	fi
	return "$ok"
}
