#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park lifecycle: destroy and rmmod with slabs parked or a run
# active, the taint the module leaves, and the key=val mode's steps.
# POSIX sh (busybox ash); sourced by slub_park.sh, which runs each test t_NAME
# through run_test (its TESTS table).
# The variables are the driver's (slub_park.sh), shared with it.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# Destroy right after a (parking) run: rmmod at once must be silent.
t_destroy_parked() {
	park_note="park=2"
	if [ -e "$PARKDIR/park" ]; then
		set_park 2 || return 1
	else
		park_note="no parking in this kernel; plain destroy right after a run"
	fi
	if [ "$NR_RUN_NODES" -ge 2 ]; then
		set -- placement=cross alloc_node="$NODE_A" free_node="$NODE_B"
	else
		set -- placement=local
	fi
	set_params destroy_parked "$@" duration_ms="$PARK_DUR_MS" || return 1
	clear_stats
	PARK_OLD=	# the cache goes away with the module
	# canary first, so that rmmod follows the end of the run at once
	canary || return 1
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		# rmmod with slabs parked: free_partial() must unpark them
		burst_or_skip destroy_parked || { rc=$?; PARK_OLD=; return "$rc"; }
		PARK_OLD=
		state="burst done"
		parked=$BURST_PARKED
	else
		write_file "$DBG/run" 1 || { diag "cannot start run: $WERR"; return 1; }
		state=$(cat "$DBG/wait")
		parked=$(parked_now)
	fi
	unload || return 1
	ok=0
	diag "$park_note; run $state; parked at rmmod: ${parked:-n/a}"
	[ ! -e "$SLAB" ] || { diag "$SLAB still exists after rmmod"; ok=1; }
	[ ! -e "$PARKDIR" ] || { diag "$PARKDIR still exists after rmmod"; ok=1; }
	return "$ok"
}

stress_threads() {
	for st_c in /proc/[0-9]*/comm; do
		read -r st_comm < "$st_c" 2>/dev/null || continue
		case "$st_comm" in
		slub_stress*|sstress*) echo "$st_comm" ;;
		esac
	done
}

run_active() {
	[ "$(cat "$DBG/status")" = running ]
}

# rmmod while a run is active is clean.
t_rmmod_mid_run() {
	if ! mod_loaded; then
		if [ "$NR_RUN_NODES" -ge 2 ]; then
			load start=1 placement=cross alloc_node="$NODE_A" free_node="$NODE_B" duration_ms=60000 || return 1
		else
			load start=1 placement=local duration_ms=60000 || return 1
		fi
	else
		write_file "$DBG/duration_ms" 60000
		write_file "$DBG/run" 1 || { diag "run: $WERR"; return 1; }
	fi
	ok=0
	loop_until 50 run_active || { diag "run did not start"; ok=1; }
	nap "$MID_S"
	canary || return 1
	unload || return 1
	[ ! -e "$SLAB" ] || { diag "$SLAB still exists after rmmod"; ok=1; }
	[ ! -e "$DBG" ] || { diag "$DBG still exists after rmmod"; ok=1; }
	[ ! -e "$PARKDIR" ] || { diag "$PARKDIR still exists after rmmod"; ok=1; }
	thr=$(stress_threads)
	[ -z "$thr" ] || { diag "threads left after rmmod: $(echo "$thr" | tr '\n' ' ')"; ok=1; }
	return "$ok"
}

taint_flags() {
	tf_v=$1
	tf_out=
	tf_i=0
	while [ "$tf_i" -lt 20 ]; do
		if [ $(( (tf_v >> tf_i) & 1 )) -eq 1 ]; then
			tf_out="$tf_out$(echo "$TAINT_LETTERS" | cut -c $((tf_i + 1)))(bit $tf_i) "
		fi
		tf_i=$((tf_i + 1))
	done
	echo "$tf_out"
}

t_taint() {
	now=$(cat /proc/sys/kernel/tainted)
	new=$(( now & ~TAINT_BEFORE & ~TAINT_EXPECTED ))
	tt_e=
	[ "$MODSIG" = 1 ] && tt_e=", and E where unsigned (CONFIG_MODULE_SIG: $SIG_ENFORCE_PARAM exists)"
	diag "tainted: before $TAINT_BEFORE, now $now (O and N are expected from the test module$tt_e)"
	if [ "$new" -ne 0 ]; then
		diag "new taint: $(taint_flags "$new")"
		return 1
	fi
	return 0
}

# key=val mode: one run with load-time parameters.
t_manual_load() {
	load "$@"
}

t_manual_run() {
	if [ "$(cat "$DBG/status")" = idle ] && [ "$(res "$DBG/results" run)" = 0 ]; then
		write_file "$DBG/run" 1 || { diag "run: $WERR"; return 1; }
	fi
	state=$(cat "$DBG/wait")
	cat "$DBG/results" > "$TMP/manual.res"
	sed 's/^/#   /' "$TMP/manual.res"
	check_run manual "$(res "$TMP/manual.res" placement)"
}

t_manual_rmmod() {
	unload || return 1
	[ ! -e "$SLAB" ] || { diag "$SLAB still exists after rmmod"; return 1; }
}
