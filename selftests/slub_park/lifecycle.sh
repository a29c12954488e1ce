#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park lifecycle: destroy and rmmod with slabs parked or a run
# active, the taint the module leaves, and the key=val mode's steps.
# Sourced by slub_park.sh, whose variables these tests share.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# gone PATH...: each PATH is gone after rmmod
gone() {
	gn_ok=0
	for gn_p in "$@"; do
		[ ! -e "$gn_p" ] || { diag "$gn_p still exists after rmmod"; gn_ok=1; }
	done
	return "$gn_ok"
}

# Destroy right after a (parking) run: rmmod at once must be silent; with
# slabs parked, free_partial() must unpark them.
t_destroy_parked() {
	parked=
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		burst_or_skip destroy_parked || return
		note="park=2; run burst done"
		parked=$BURST_PARKED
	else
		note="no parking in this kernel; plain destroy right after a run"
		if [ -e "$PARKDIR/park" ]; then
			note=park=2
			set_park 2 || return 1
		fi
		# shellcheck disable=SC2086 # NODE_ARGS is a list of words
		run_wait destroy_parked $NODE_ARGS duration_ms="$PARK_DUR_MS" || return 1
		note="$note; run $DR_STATE"
		parked=$DR_PARKED
	fi
	PARK_OLD=	# the cache goes away with the module
	unload || return 1
	diag "$note; parked at rmmod: ${parked:-n/a}"
	gone "$SLAB" "$PARKDIR"
}

run_active() {
	[ "$(cat "$DBG/status")" = running ]
}

# rmmod while a run is active is clean.
t_rmmod_mid_run() {
	if ! mod_loaded; then
		load start=1 duration_ms=60000 || return 1
	else
		set_params rmmod_mid_run duration_ms=60000 run=1 || return 1
	fi
	ok=0
	loop_until 50 run_active || { diag "run did not start"; ok=1; }
	nap "$MID_S"
	canary || return 1
	unload || return 1
	gone "$SLAB" "$DBG" "$PARKDIR" || ok=1
	thr=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -E '^(slub_stress|sstress)')
	[ -z "$thr" ] || { diag "threads left after rmmod: $(echo "$thr" | tr '\n' ' ')"; ok=1; }
	return "$ok"
}

# taint_flags MASK: "LETTER(bit N) " for each bit of MASK
taint_flags() {
	awk -v v="$1" -v l="$TAINT_LETTERS" 'BEGIN { for (i = 0; i < 20; i++) {
		if (v % 2) printf "%s(bit %d) ", substr(l, i + 1, 1), i
		v = int(v / 2) } }'
}

t_taint() {
	now=$(cat /proc/sys/kernel/tainted)
	new=$(( now & ~TAINT_BEFORE & ~TAINT_EXPECTED ))
	tt_e=
	[ "$MODSIG" = 1 ] && tt_e=", and E where unsigned (CONFIG_MODULE_SIG: $SIG_ENFORCE_PARAM exists)"
	diag "tainted: before $TAINT_BEFORE, now $now (O and N are expected from the test module$tt_e)"
	[ "$new" -eq 0 ] && return 0
	diag "new taint: $(taint_flags "$new")"
	return 1
}

# key=val mode: one run with the load-time parameters given.
t_manual_load() {
	# shellcheck disable=SC2086 # the parameters are words
	load $MANUAL_PARAMS
}

t_manual_run() {
	if [ "$(cat "$DBG/status")" = idle ] && [ "$(res "$DBG/results" run)" = 0 ]; then
		write_file "$DBG/run" 1 || { diag "run: $WERR"; return 1; }
	fi
	cat "$DBG/wait" > /dev/null
	cat "$DBG/results" > "$TMP/manual.res"
	sed 's/^/#   /' "$TMP/manual.res"
	check_run manual "$(res "$TMP/manual.res" placement)"
}

t_manual_rmmod() {
	unload && gone "$SLAB"
}
