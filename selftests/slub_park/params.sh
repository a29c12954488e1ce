#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park params: the module parameter cases of param_fuzz.txt (its
# header gives the format; shared with tools/guest/guest-debug-gate.sh),
# at load (insmod) and through debugfs, checked by slub_park_params.
# Sourced by slub_park.sh, whose variables these tests share.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

FUZZ_CASES=$SCRIPT_DIR/param_fuzz.txt

# The values of the words the file uses (see its header).
fuzz_words() {
	fz_p=0
	if [ -r /sys/devices/system/node/possible ]; then
		read -r fz_p < /sys/devices/system/node/possible
	fi
	FZ_NODE_IDS=$((${fz_p##*[-,]} + 1))
	# the most threads a run takes: 4 a CPU of the smaller run node
	fz_n=$(node_cpus "$NODE_A")
	FZ_SMALL_NODE=$NODE_A
	if [ "$NODE_B" != "$NODE_A" ] && [ "$(node_cpus "$NODE_B")" -lt "$fz_n" ]; then
		fz_n=$(node_cpus "$NODE_B")
		FZ_SMALL_NODE=$NODE_B
	fi
	[ "$fz_n" -gt 0 ] || fz_n=$(cpulist_count /sys/devices/system/cpu/online)
	FZ_THREADS=$((4 * fz_n))
	FZ_ALL_THREADS1=$((4 * $(grep -c '^processor' /proc/cpuinfo) + 1))
}

# fuzz_cases KIND: the lines of KIND, as "EXPECT NAME ARGS": those marked
# ksft, and in fuzz mode (FUZZ_ALL=1) the gate's too.
FUZZ_ALL=0
fuzz_cases() {
	sed -e 's/#.*//' \
	    -e "s/@NR_NODE_IDS@/$FZ_NODE_IDS/g" \
	    -e "s/@LAST_NODE@/$((FZ_NODE_IDS - 1))/g" \
	    -e "s/@NODE_A@/$NODE_A/g" -e "s/@NODE_B@/$NODE_B/g" \
	    -e "s/@SMALL_NODE@/$FZ_SMALL_NODE/g" \
	    -e "s/@THREADS@/$FZ_THREADS/g" \
	    -e "s/@THREADS+1@/$((FZ_THREADS + 1))/g" \
	    -e "s/@ALL_THREADS+1@/$FZ_ALL_THREADS1/g" "$FUZZ_CASES" |
		awk -v kind="$1" -v all="$FUZZ_ALL" \
			'($1 == "ksft" || all) && $2 == kind { $1 = ""; $2 = ""; print }'
}

count_cases() {
	fuzz_cases "$1" | grep -c .
}

# The load cases, each after the chosen nodes (NODE_ARGS), which its own
# parameters override; with one node, cross and balanced are refused for
# the placement itself.
t_bad_params_load() {
	if mod_loaded; then
		diag "module already loaded"
		return 1
	fi
	fuzz_cases load | awk -v nodes="$NODE_ARGS" -v one=$((NR_RUN_NODES < 2)) '
		NF { if (one && (index($0, "placement=cross") || index($0, "placement=balanced")))
			$2 = $2 "|placement|free_node"
		     $2 = $2 " " nodes; print }' |
		"$PARAMS_BIN" load "$KO" "$MOD" "$CACHE"
}

# The write, combo and busy cases (writes while a run is active: their
# file's value now, 1 for the write-only run); then stop ends the run
# with state 'stopped'.
t_debugfs_params() {
	ok=0
	diag "$(count_cases write) write, $(count_cases combo) combo, $(count_cases busy) busy cases"
	fuzz_cases write | "$PARAMS_BIN" write "$DBG" || ok=1
	fuzz_cases combo | "$PARAMS_BIN" combo "$DBG" || ok=1
	set_params debugfs_params placement=local alloc_node="$NODE_A" duration_ms=60000 \
		run=1 || return 1
	st=$(cat "$DBG/status")
	[ "$st" = running ] || { diag "status '$st' right after start, expected 'running'"; ok=1; }
	fuzz_cases busy | while read -r expect file _; do
		[ "$file" = run ] && echo "$expect run 1" && continue
		echo "$expect $file $(cat "$DBG/$file")"
	done | "$PARAMS_BIN" write "$DBG" || ok=1
	nap 0.2
	write_file "$DBG/stop" 1 || { diag "stop: $WERR"; ok=1; }
	state=$(cat "$DBG/wait")
	[ "$state" = "state: stopped" ] || { diag "wait after stop: '$state', expected 'state: stopped'"; ok=1; }
	cat "$DBG/results" > "$TMP/stopped.res"
	dp_allocs=$(res "$TMP/stopped.res" allocs)
	[ -n "$dp_allocs" ] || { diag "stopped: no allocs line"; ok=1; }
	res_is stopped state=stopped frees="$dp_allocs" || ok=1
	write_file "$DBG/duration_ms" "$DUR_MS"
	[ "$(cat "$DBG/status")" = idle ] || { diag "status not idle after stop"; ok=1; }
	return "$ok"
}
