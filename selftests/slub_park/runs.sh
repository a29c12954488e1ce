#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# slub_park.sh's runs: load, a run per placement, free paths, shrink, accounting.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# clear_stats: the counters zeroed once the last run's slabs are unparked
# (a late unpark would count in unpark_slab without its park_slab).  Under
# KASAN frees leave the quarantine and park at any time, also during the
# clear (a make check saw unpark_slab 51 ahead): park_slab and unpark_slab
# are cleared again until their difference is the parked count.
clear_stats() {
	[ ! -e "$PARKDIR/parked" ] || cs_p=$(parked_settle)
	[ ! -e "$PARKDIR/parked" ] || [ "$cs_p" = 0 ] || diag "clear_stats: $cs_p slabs still parked"
	clear_stat_files "$SLAB"
	{ [ -e "$PARKDIR/parked" ] && [ -e "$SLAB/park_slab" ]; } || return 0
	loop_until 10 park_counts_cleared ||
		diag "clear_stats: park_slab - unpark_slab is not the parked count after 10 clears"
}

# park_counts_cleared: park_slab - unpark_slab = parked right after their
# clear and 0.1 s later (an unpark batch counts after its slabs left)
park_counts_cleared() {
	echo 0 > "$SLAB/park_slab"
	echo 0 > "$SLAB/unpark_slab"
	park_off_zero && sleep 0.1 && park_off_zero
}

park_off_zero() {
	pc_off=$(($(stat_sum park_slab) - $(stat_sum unpark_slab) - $(parked_now)))
	[ "$pc_off" = 0 ] && return
	diag "clear_stats: park_slab - unpark_slab - parked is $pc_off after the clear: clearing again"
	return 1
}

# set_params WHO KEY=VALUE...: each VALUE written to the debugfs file KEY
set_params() {
	sp_who=$1
	shift
	for sp_kv in "$@"; do
		write_file "$DBG/${sp_kv%%=*}" "${sp_kv#*=}" || { diag "$sp_who: cannot set $sp_kv: $WERR"; return 1; }
	done
}

# run_wait WHO KEY=VALUE...: set_params, a run to its end; DR_STATE, what
# wait said, DR_PARKED the parked count right then.  With DR_SHRINK=1 the
# cache is shrunk every 0.1 s during the run.
DR_SHRINK=0
run_wait() {
	set_params "$@" || return 1
	write_file "$DBG/run" 1 || { diag "$1: cannot start a run: $WERR"; return 1; }
	[ "$DR_SHRINK" = 0 ] || loop_until 100000 shrink_until_idle
	DR_STATE=$(cat "$DBG/wait") || { diag "$1: reading wait failed"; return 1; }
	DR_PARKED=$(parked_now)
}

shrink_until_idle() {
	run_active || return 0
	write_file "$SLAB/shrink" 1 || DR_SHRINK_ERR=$WERR
	return 1
}

# do_run NAME KEY=VALUE...: run_wait on cleared counters; the results in
# $TMP/NAME.res, the counters in $TMP/NAME.stats
do_run() {
	clear_stats
	DR_SHRINK_ERR=
	run_wait "$@" || return 1
	[ -z "$DR_SHRINK_ERR" ] || { diag "$1: shrink during the run: $DR_SHRINK_ERR"; return 1; }
	cat "$DBG/results" > "$TMP/$1.res"
	stat_snapshot "$SLAB" > "$TMP/$1.stats"
	diag "$1: $DR_STATE; $(res "$TMP/$1.res" frees) frees, $(res "$TMP/$1.res" ops_per_sec) ops/s, remote $(res "$TMP/$1.res" remote_free_pct)%${DR_PARKED:+, parked at end $DR_PARKED}"
}

run_stat() { awk -v k="$2" '$1 == k { print $2 }' "$TMP/$1.stats"; }

# free_counts RUN: frees, slow (free_slowpath) and fast (free_fastpath)
free_counts() {
	frees=$(res "$TMP/$1.res" frees)
	slow=$(run_stat "$1" free_slowpath)
	fast=$(run_stat "$1" free_fastpath)
	frees=${frees:-0} slow=${slow:-0} fast=${fast:-0}
}

# frees_deferred RUN: 0, saying why, when the frees did not reach SLUB in
# the run: under 50% of them counted; always under KASAN, whose quarantine
# frees them on the allocating CPUs (local frees, which never park)
frees_deferred() {
	free_counts "$1"
	fd_why="$((fast + slow)) of $frees frees of run $1 reached SLUB (free_fastpath + free_slowpath)"
	if [ -n "$KASAN" ]; then
		echo "KASAN quarantine defers frees and frees them on the allocating CPUs; $fd_why"
	elif ! ge_pct $((fast + slow)) "$frees" 50; then
		echo "only $fd_why"
	else
		return 1
	fi
}

# res_is RUN KEY=VALUE...: each KEY of RUN's results is VALUE
res_is() {
	ri_run=$1
	shift
	for ri_kv in "$@"; do
		ri_v=$(res "$TMP/$ri_run.res" "${ri_kv%%=*}")
		[ "$ri_v" = "${ri_kv#*=}" ] || fail "$ri_run: ${ri_kv%%=*} '$ri_v', expected '${ri_kv#*=}'"
	done
}

# check_run RUN PLACEMENT: the checks of every finished run
check_run() {
	res_is "$1" state=done error=0 placement="$2" alloc_failures=0
	cr_n="$(res "$TMP/$1.res" alloc_thread_nodes) / $(res "$TMP/$1.res" free_thread_nodes)"
	case "$cr_n" in
	*+*|" / "*|*" / ") fail "$1: thread nodes (alloc / free) '$cr_n': none, or on several" ;;
	esac
	cr_a=$(res "$TMP/$1.res" allocs)
	cr_f=$(res "$TMP/$1.res" frees)
	{ [ "${cr_a:-0}" -gt 0 ] && [ "$cr_a" = "$cr_f" ]; } ||
		fail "$1: allocs '$cr_a' frees '$cr_f', expected equal and > 0"
}

# threads_on RUN KEY NODES: the threads of KEY ran on each of NODES, only
threads_on() {
	to_got=$(res "$TMP/$1.res" "$2" | tr ' ' '\n' | sort -u | xargs)
	to_want=$(echo "$3" | tr ' ' '\n' | sort -u | xargs)
	[ "$to_got" = "$to_want" ] || fail "$1: $2 on nodes '$to_got', expected '$to_want'"
}

t_load() {
	load || return 1
	[ ! -L "$SLAB" ] || { skip own_cache "$SLAB is a symlink (merged alias)"; return; }
	st=$(cat "$DBG/status")
	[ "$st" = idle ] || fail "status '$st' after load, expected 'idle'"
	BASE_OBJECTS=$(stat_sum objects)
	diag "cache $CACHE: objects=$BASE_OBJECTS objs_per_slab=$(cat "$SLAB/objs_per_slab") order=$(cat "$SLAB/order")"
}

# t_run PLACEMENT: one run; allocators and freers on NODE_A and NODE_B
# (cross), NODE_A (local), both (balanced); in stress mode also bulk calls
t_run() {
	case $1 in
	cross) tr_alloc=$NODE_A tr_free=$NODE_B ;;
	local) tr_alloc=$NODE_A tr_free=$NODE_A ;;
	balanced) tr_alloc="$NODE_A $NODE_B" tr_free="$NODE_A $NODE_B" ;;
	esac
	do_run "$1" placement="$1" alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 inflight=64 batch=1 duration_ms="$DUR_MS" || return 1
	check_run "$1" "$1"
	threads_on "$1" alloc_thread_nodes "$tr_alloc"
	threads_on "$1" free_thread_nodes "$tr_free"
	[ "$1" = cross ] && [ "$MODE" = stress ] || return 0
	do_run cross_bulk placement=cross batch=16 inflight=1024 || return 1
	check_run cross_bulk cross
	set_params cross_bulk batch=1 inflight=64
}

t_remote_free_pct() {
	[ -r "$TMP/local.res" ] || { skip run_local "no local run to check"; return; }
	lp=$(res "$TMP/local.res" remote_free_pct)
	cp=-
	[ ! -r "$TMP/cross.res" ] || cp=$(res "$TMP/cross.res" remote_free_pct)
	diag "remote_free_pct: cross $cp, local $lp"
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
		why=$(frees_deferred "$r") && { skip frees "$why"; return; }
	done
	if [ -r "$TMP/cross.stats" ]; then
		free_counts cross
		diag "cross: frees $frees free_slowpath $slow free_fastpath $fast"
		ge_pct "$slow" "$frees" 90 || fail "cross: free_slowpath $slow < 90% of $frees frees"
		ge_pct "$frees" "$fast" 1000 || fail "cross: free_fastpath $fast > 10% of $frees frees"
	fi
	free_counts local
	diag "local: frees $frees free_slowpath $slow free_fastpath $fast"
	ge_pct "$frees" "$slow" 1000 || fail "local: free_slowpath $slow > 10% of $frees frees"
}

t_shrink() {
	[ "$(cat "$DBG/status")" = idle ] || { diag "module not idle"; return 1; }
	if [ -e "$PARKDIR/parked" ] && [ "$NODE_B" != "$NODE_A" ]; then
		burst_or_skip shrink || return
		diag "parked before the shrink: $BURST_PARKED"
	fi
	write_file "$SLAB/shrink" 1 || { diag "shrink: $WERR"; return 1; }
	for f in slabs objects partial total_objects; do
		v=$(stat_sum "$f")
		[ "$v" = 0 ] || fail "after shrink: $f $v, expected 0 ($(cat "$SLAB/$f"))"
	done
	[ ! -e "$PARKDIR/parked" ] || [ "$(parked_now)" = 0 ] || fail "after shrink: parked $(parked_now)"
	echo "einval shrink 0" | "$PARAMS_BIN" write "$SLAB" || ok=1
	write_file "$SLAB/shrink" 1 || fail "second shrink, of an empty cache: $WERR"
	restore_park
}

# sysfs_invariants: the invariants of slub-stress.rst's accounting test
sysfs_invariants() {
	for si_f in objs_per_slab slabs objects total_objects partial objects_partial \
		$(stat_files "$SLAB"); do
		echo "$si_f $(cat "$SLAB/$si_f" 2>&1)"
	done | awk -v cache="$CACHE" '
	function bad(m) { print "# " m; rc = 1 }
	function le(a, b) { if (c[a, n] + 0 > c[b, n] + 0) bad(at a " " c[a, n] " > " b " " c[b, n]) }
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
		print "# " cache ": slabs=" c["slabs", ""] " objects=" c["objects", ""] " total_objects=" \
			c["total_objects", ""] " partial=" c["partial", ""] " objs_per_slab=" per
		if (per + 0 <= 0) bad("objs_per_slab " per)
		nodes[""] = 1
		for (n in nodes) {
			at = n == "" ? "" : "node " n ": "
			le("objects", "total_objects")
			le("partial", "slabs")
			full = c["slabs", n] * per
			if (c["total_objects", n] + 0 > full ||
			    (c["order_fallback", ""] + 0 == 0 && c["total_objects", n] + 0 != full))
				bad(at "total_objects " c["total_objects", n] " != slabs " c["slabs", n] " x " per)
		}
		n = at = ""
		le("objects_partial", "objects")
		exit rc
	}'
}

# cache_moment: parked, slabs and total_objects, to tell whether the cache moved
cache_moment() { echo "$(parked_now) $(stat_sum slabs) $(stat_sum total_objects)"; }

t_accounting() {
	if [ -e "$PARKDIR/parked" ] && [ "$NODE_B" != "$NODE_A" ]; then
		burst_or_skip accounting || return
		diag "parked before the checks: $BURST_PARKED"
		restore_park
	fi
	# the unpark work, or KASAN's quarantine, may free slabs between two
	# reads (seen: slabs 137, then total_objects of 7 slabs; slabs 2009, then
	# objects of 1986 and total_objects of 1936): while the cache moves, again
	ac_tries=5
	while ac_at=$(cache_moment); ! sysfs_invariants; do
		ac_now=$(cache_moment)
		ac_tries=$((ac_tries - 1))
		if [ "$ac_now" = "$ac_at" ] || [ "$ac_tries" = 0 ]; then
			ok=1
			break
		fi
		diag "the cache moved during the reads (parked slabs total_objects $ac_at -> $ac_now): reading again"
	done
	if [ -e "$PARKDIR/park" ]; then
		left=$(parked_settle)
		[ "$left" = 0 ] || fail "$left slabs still parked, idle"
		set_park 0 || return 1
		fuzz_cases park | "$PARAMS_BIN" write "$PARKDIR" || ok=1
		restore_park
	fi
	write_file "$SLAB/shrink" 1 || { diag "shrink: $WERR"; return 1; }
	obj=$(stat_sum objects)
	[ "$obj" = "${BASE_OBJECTS:-0}" ] || fail "objects $obj after shrink, baseline ${BASE_OBJECTS:-0}"
}
