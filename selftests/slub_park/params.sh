#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# slub_park.sh's parameter tests: the cases of param_fuzz.txt (its header
# gives the format; the debug gate's too), checked by slub_park_params.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

FUZZ_CASES=$SCRIPT_DIR/param_fuzz.txt
FUZZ_ALL=0

# fuzz_cases KIND: KIND's lines as "EXPECT NAME ARGS", those marked ksft
# (in fuzz mode all), one a case
fuzz_cases() {
	sed -e 's/#.*//' \
	    -e "s/@NR_NODE_IDS@/$NR_NODE_IDS/g" \
	    -e "s/@LAST_NODE@/$((NR_NODE_IDS - 1))/g" \
	    -e "s/@NODE_A@/$NODE_A/g" -e "s/@NODE_B@/$NODE_B/g" \
	    -e "s/@SMALL_NODE@/$NODE_SMALL/g" \
	    -e "s/@THREADS@/$((4 * NODE_SMALL_CPUS))/g" \
	    -e "s/@THREADS+1@/$((4 * NODE_SMALL_CPUS + 1))/g" \
	    -e "s/@ALL_THREADS+1@/$((4 * $(grep -c '^processor' /proc/cpuinfo) + 1))/g" "$FUZZ_CASES" |
		awk -v kind="$1" -v all="$FUZZ_ALL" '
		function out(l,  at, len, alt, n, i) {	# a line per alternative of {A,B,..}
			if (!match(l, /[{][^}]*[}]/)) { print l; return }
			at = RSTART; len = RLENGTH
			n = split(substr(l, at + 1, len - 2), alt, ",")
			for (i = 1; i <= n; i++)
				out(substr(l, 1, at - 1) alt[i] substr(l, at + len))
		}
		($1 == "ksft" || all) && $2 == kind { $1 = ""; $2 = ""; out($0) }'
}

# Each load case after the run nodes (NODE_ARGS), which its parameters
# override; with one node, cross and balanced are refused for the placement.
t_bad_params_load() {
	mod_loaded && { diag "module already loaded"; return 1; }
	one=$([ "$NODE_A" = "$NODE_B" ] && echo 1)
	fuzz_cases load | awk -v nodes="$NODE_ARGS" -v one="$one" '
		NF { if (one && (index($0, "placement=cross") || index($0, "placement=balanced")))
			$2 = $2 "|placement|free_node"
		     $2 = $2 " " nodes; print }' |
		"$PARAMS_BIN" load "$KO" "$MOD" "$CACHE"
}

t_debugfs_params() {
	diag "$(fuzz_cases write | grep -c .) write, $(fuzz_cases combo | grep -c .) combo," \
		"$(fuzz_cases busy | grep -c .) busy cases"
	fuzz_cases write | "$PARAMS_BIN" write "$DBG" || ok=1
	fuzz_cases combo | "$PARAMS_BIN" combo "$DBG" || ok=1
	set_params debugfs_params placement=local alloc_node="$NODE_A" duration_ms=60000 run=1 ||
		return 1
	st=$(cat "$DBG/status")
	[ "$st" = running ] || fail "status '$st' right after start, expected 'running'"
	# busy: each file's value now (1 for run), during a run
	fuzz_cases busy | while read -r expect file _; do
		[ "$file" = run ] && echo "$expect run 1" && continue
		echo "$expect $file $(cat "$DBG/$file")"
	done | "$PARAMS_BIN" write "$DBG" || ok=1
	sleep 0.2
	write_file "$DBG/stop" 1 || fail "stop: $WERR"
	state=$(cat "$DBG/wait")
	[ "$state" = "state: stopped" ] || fail "wait after stop: '$state', expected 'state: stopped'"
	cat "$DBG/results" > "$TMP/stopped.res"
	dp_allocs=$(res "$TMP/stopped.res" allocs)
	[ -n "$dp_allocs" ] || fail "stopped: no allocs line"
	res_is stopped state=stopped frees="$dp_allocs"
	write_file "$DBG/duration_ms" "$DUR_MS"
	[ "$(cat "$DBG/status")" = idle ] || fail "status not idle after stop"
}
