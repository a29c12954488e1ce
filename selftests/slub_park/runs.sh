#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park runs: load the module, run it in each placement, check the
# results, the free paths, shrink and the accounting invariants.  Sourced
# by slub_park.sh, whose variables these tests share.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

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

# run_wait WHO KEY=VALUE...: set_params, start a run, wait for its end;
# DR_STATE is what wait said, DR_PARKED the parked count right then
run_wait() {
	set_params "$@" || return 1
	write_file "$DBG/run" 1 || { diag "$1: cannot start a run: $WERR"; return 1; }
	[ "$DR_SHRINK" = 1 ] && loop_until 100000 shrink_until_idle
	DR_STATE=$(cat "$DBG/wait") || { diag "$1: reading wait failed"; return 1; }
	DR_PARKED=$(parked_now)
}

# shrink_until_idle: false, after a shrink, while the run is on
shrink_until_idle() {
	[ "$(cat "$DBG/status")" = running ] || return 0
	write_file "$SLAB/shrink" 1 || DR_SHRINK_ERR=$WERR
	return 1
}

# do_run NAME key=val...: clear the stat counters, run_wait; the results in
# $TMP/NAME.res, the stat sums in $TMP/NAME.stats.  With DR_SHRINK=1 the
# cache is shrunk every 0.1 s during the run (not after it), and a failed
# shrink fails the run.
DR_SHRINK=0
do_run() {
	clear_stats
	DR_SHRINK_ERR=
	run_wait "$@" || return 1
	if [ -n "$DR_SHRINK_ERR" ]; then
		diag "$1: shrink during the run: $DR_SHRINK_ERR"
		return 1
	fi
	cat "$DBG/results" > "$TMP/$1.res"
	stat_snapshot "$SLAB" > "$TMP/$1.stats"
	diag "$1: $DR_STATE; $(res "$TMP/$1.res" frees) frees, $(res "$TMP/$1.res" ops_per_sec) ops/s, remote $(res "$TMP/$1.res" remote_free_pct)%${DR_PARKED:+, parked at end $DR_PARKED}"
}

run_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$TMP/$1.stats"
}

# free_counts RUN: frees, slow (free_slowpath) and fast (free_fastpath)
# of run RUN, 0 where absent
free_counts() {
	frees=$(res "$TMP/$1.res" frees)
	slow=$(run_stat "$1" free_slowpath)
	fast=$(run_stat "$1" free_fastpath)
	frees=${frees:-0} slow=${slow:-0} fast=${fast:-0}
}

# frees_deferred RUN: the freers' frees did not reach SLUB in the run, so
# nothing could park; prints the reason.  Without KASAN: fastpath + slowpath
# < 50% of the run's frees.  With KASAN always: quarantine_reduce() frees
# what it lets go on whichever CPU allocates next (the allocators' node:
# local frees, which never park).  Needs SLUB_STATS.
frees_deferred() {
	free_counts "$1"
	fd_why="$((fast + slow)) of $frees frees of run $1 reached SLUB (free_fastpath + free_slowpath)"
	if [ -n "$KASAN" ]; then
		echo "KASAN quarantine defers frees and frees them on the allocating CPUs; $fd_why"
		return 0
	fi
	ge_pct $((fast + slow)) "$frees" 50 && return 1
	echo "only $fd_why"
}

# res_is RUN KEY=VALUE...: each KEY of run RUN's results is VALUE
res_is() {
	ri_ok=0
	ri_run=$1
	shift
	for ri_kv in "$@"; do
		ri_v=$(res "$TMP/$ri_run.res" "${ri_kv%%=*}")
		[ "$ri_v" = "${ri_kv#*=}" ] && continue
		diag "$ri_run: ${ri_kv%%=*} '$ri_v', expected '${ri_kv#*=}'"
		ri_ok=1
	done
	return "$ri_ok"
}

# check_run NAME PLACEMENT: the common checks of a finished run.
check_run() {
	cr_f=$TMP/$1.res
	cr_ok=0
	res_is "$1" state=done error=0 placement="$2" alloc_failures=0 || cr_ok=1
	cr_allocs=$(res "$cr_f" allocs)
	cr_frees=$(res "$cr_f" frees)
	if [ "${cr_allocs:-0}" -le 0 ] || [ "${cr_frees:-0}" -le 0 ]; then
		diag "$1: allocs '$cr_allocs' frees '$cr_frees', expected > 0"
		return 1
	fi
	if [ "$cr_allocs" -ne "$cr_frees" ]; then
		diag "$1: allocs $cr_allocs != frees $cr_frees after the run"
		cr_ok=1
	fi
	cr_an=$(res "$cr_f" alloc_thread_nodes)
	cr_fn=$(res "$cr_f" free_thread_nodes)
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
	case $1 in
	cross) tr_alloc=$NODE_A tr_free=$NODE_B ;;
	local) tr_alloc=$NODE_A tr_free=$NODE_A ;;
	balanced) tr_alloc="$NODE_A $NODE_B" tr_free="$NODE_A $NODE_B" ;;
	esac
	do_run "$1" placement="$1" alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 inflight=64 batch=1 duration_ms="$DUR_MS" || return 1
	ok=0
	check_run "$1" "$1" || ok=1
	threads_on "$1" allocators "$(res "$TMP/$1.res" alloc_thread_nodes)" "$tr_alloc" || ok=1
	threads_on "$1" freers "$(res "$TMP/$1.res" free_thread_nodes)" "$tr_free" || ok=1
	if [ "$1" = cross ] && [ "$MODE" = stress ]; then
		do_run cross_bulk placement=cross batch=16 inflight=1024 || return 1
		check_run cross_bulk cross || ok=1
		set_params cross_bulk batch=1 inflight=64
	fi
	return "$ok"
}

t_remote_free_pct() {
	[ -r "$TMP/local.res" ] || { skip run_local "no local run to check"; return; }
	lp=$(res "$TMP/local.res" remote_free_pct)
	if [ -r "$TMP/cross.res" ]; then
		cp=$(res "$TMP/cross.res" remote_free_pct)
		diag "remote_free_pct: cross $cp, local $lp"
	else
		cp=-
		diag "remote_free_pct: local $lp (no cross run: 1 node)"
	fi
	awk -v l="$lp" -v c="$cp" 'BEGIN {
		if (l !~ /^[0-9]+(\.[0-9]+)?$/ || !(l + 0 <= 1))
			{ print "# local: remote_free_pct " l ", expected <= 1"; rc = 1 }
		if (c != "-" && !(c + 0 >= 99))
			{ print "# cross: remote_free_pct " c ", expected >= 99"; rc = 1 }
		exit rc }'
}

# Remote frees skip the per-CPU sheaves: __slab_free() counts free_slowpath.
t_free_path_stats() {
	[ -r "$TMP/local.stats" ] || { skip run_local "no local run to check"; return; }
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
		diag "cross: frees $frees free_slowpath $slow free_fastpath $fast"
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
	diag "local: frees $frees free_slowpath $slow free_fastpath $fast"
	if ! ge_pct "$frees" "$slow" 1000; then
		diag "local: free_slowpath $slow > 10% of $frees frees"
		ok=1
	fi
	return "$ok"
}

# Shrink frees every empty slab, the parked ones too (it unparks first):
# with parking, it acts on a cache with slabs parked right before
# (park_burst); once more, on the empty cache, it succeeds too.  Only 1
# triggers it: 0 is refused with EINVAL.
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
	echo "einval shrink 0" | "$PARAMS_BIN" write "$SLAB" || ok=1
	write_file "$SLAB/shrink" 1 || { diag "second shrink, of an empty cache: $WERR"; ok=1; }
	restore_park || ok=1
	return "$ok"
}

# sysfs_invariants: the cache's counts in sysfs agree: each file's node (N,
# of the five counts) or CPU (C, of the statistics) parts add up to its
# sum; objects <= total_objects, which is slabs x objs_per_slab (<= after
# an order_fallback), and partial <= slabs, on each node too;
# objects_partial <= objects.
sysfs_invariants() {
	for si_f in objs_per_slab slabs objects total_objects partial objects_partial \
		$(stat_files "$SLAB"); do
		echo "$si_f $(cat "$SLAB/$si_f" 2>&1)"
	done | awk -v cache="$CACHE" '
	function bad(m) { print "# " m; rc = 1 }
	function le(a, b) { if (c[a, n] + 0 > c[b, n] + 0)
		bad(at a " " c[a, n] " > " b " " c[b, n]) }
	$2 !~ /^[0-9]+$/ { bad($1 ": not a count: " $0); next }
	{	c[$1, ""] = $2
		pre = $1 ~ /^(slabs|objects|total_objects|partial|objects_partial)$/ ? "N" : "C"
		s = 0
		for (i = 3; i <= NF; i++) {
			if ($i !~ "^" pre "[0-9]+=[0-9]+$") { bad($1 ": not a part: " $i); continue }
			split(substr($i, 2), kv, "=")
			s += kv[2]
			if (pre == "N") { c[$1, kv[1]] = kv[2]; nodes[kv[1]] = 1 }
		}
		if (NF > 2 && s != $2 + 0) bad($1 " " $2 " is not the sum of its parts, " s)
	}
	END {
		per = c["objs_per_slab", ""]
		print "# " cache ": slabs=" c["slabs", ""] " objects=" c["objects", ""] \
			" total_objects=" c["total_objects", ""] " partial=" c["partial", ""] \
			" objs_per_slab=" per
		if (per + 0 <= 0) bad("objs_per_slab " per)
		nodes[""] = 1
		for (n in nodes) {
			at = n == "" ? "" : "node " n ": "
			le("objects", "total_objects")
			le("partial", "slabs")
			full = c["slabs", n] * per
			if (c["total_objects", n] + 0 > full ||
			    (c["order_fallback", ""] + 0 == 0 && c["total_objects", n] + 0 != full))
				bad(at "total_objects " c["total_objects", n] " != slabs " \
				    c["slabs", n] " x " per)
		}
		n = at = ""
		le("objects_partial", "objects")
		exit rc
	}'
}

# Accounting invariants, with slabs parked (sysfs_invariants: the sysfs
# counts do not walk the parked slabs, whose free objects count as in use
# until unparked); then, once settled, the park switch cases of
# param_fuzz.txt; once shrunk, objects back at the baseline.
t_accounting() {
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		burst_or_skip accounting || return
		diag "parked before the checks: $BURST_PARKED"
		restore_park
	fi
	ok=0
	# The files are read one after another: the unpark work may discard
	# the burst's parked slabs between two reads (seen: slabs 137, then
	# total_objects of 7 slabs).  When the parked count moved during the
	# reads, they are made once more, the first ones' findings said.
	for try in 1 2; do
		pk_before=$(parked_now)
		si_out=$(sysfs_invariants) && break
		pk_after=$(parked_now)
		if [ "$try" = 2 ] || [ "$pk_before" = "$pk_after" ]; then
			ok=1
			break
		fi
		echo "$si_out"
		diag "parked moved during the reads ($pk_before -> $pk_after): reading again"
	done
	echo "$si_out"
	if [ -e "$PARKDIR/park" ]; then
		left=$(parked_settle)
		[ "$left" = 0 ] || { diag "$left slabs still parked, idle"; ok=1; }
		set_park 0 || return 1
		fuzz_cases park | "$PARAMS_BIN" write "$PARKDIR" || ok=1
		restore_park || ok=1
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
