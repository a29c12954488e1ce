#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# slub_park.sh's lifecycle tests: destroy and rmmod, parked or mid-run; taint.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# gone PATH...: each PATH is gone after rmmod
gone() { for gn_p in "$@"; do [ ! -e "$gn_p" ] || fail "$gn_p still exists after rmmod"; done; }

t_destroy_parked() {
	if [ -e "$PARKDIR/parked" ] && [ "$NODE_B" != "$NODE_A" ]; then
		burst_or_skip destroy_parked || return
		note="park=2; run burst done"
		parked=$BURST_PARKED
	else
		note="no parking in this kernel; plain destroy right after a run"
		[ ! -e "$PARKDIR/park" ] || { note=park=2; set_park 2 || return 1; }
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

t_rmmod_mid_run() {
	if ! mod_loaded; then
		load start=1 duration_ms=60000 || return 1
	else
		set_params rmmod_mid_run duration_ms=60000 run=1 || return 1
	fi
	loop_until 50 run_active || fail "run did not start"
	sleep "$MID_S"
	canary || return 1
	unload || return 1
	gone "$SLAB" "$DBG" "$PARKDIR"
	thr=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -E '^(slub_stress|sstress)')
	[ -z "$thr" ] || fail "threads left after rmmod: $(echo "$thr" | xargs)"
}

t_taint() {
	now=$(cat /proc/sys/kernel/tainted)
	new=$(( now & ~TAINT_BEFORE & ~TAINT_EXPECTED ))
	diag "tainted: before $TAINT_BEFORE, now $now (O and N are expected from the test module, E if unsigned on a CONFIG_MODULE_SIG kernel)"
	[ "$new" -eq 0 ] && return
	diag "new taint: $(awk -v v="$new" 'BEGIN { for (i = 0; i < 20; i++) {
		if (v % 2) printf "%s(bit %d) ", substr("PFSRMBUDAWCIOELKXTNJ", i + 1, 1), i
		v = int(v / 2) } }')"
	return 1
}
