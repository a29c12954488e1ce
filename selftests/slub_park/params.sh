#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park params: the module parameter cases of param_fuzz.txt, at load
# (insmod) and through debugfs.
# POSIX sh (busybox ash); sourced by slub_park.sh, which runs each test t_NAME
# through run_test (its TESTS table).
# The variables are the driver's (slub_park.sh), shared with it.
# shellcheck shell=sh disable=SC2317,SC2034,SC2154

# Parameter fuzz cases: param_fuzz.txt next to this script, shared with the
# debug gate (tools/guest/guest-debug-gate.sh); its header gives the format.

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

# count_cases KIND: how many cases fuzz_cases KIND gives.
count_cases() {
	fuzz_cases "$1" | grep -c .
}

# The load cases of param_fuzz.txt: a refused insmod leaves nothing loaded,
# fails with EINVAL where the case says so, and a pr_err names the
# parameter; an accepted one (ok) loads, then unloads.
t_bad_params_load() {
	if mod_loaded; then
		diag "module already loaded"
		return 1
	fi
	if [ -z "$(fuzz_cases load)" ]; then
		diag "no load cases in $FUZZ_CASES"
		return 1
	fi
	ok=0
	: > "$TMP/refused"
	diag "$(count_cases load) load cases"
	while read -r expect names params; do
		[ -n "$expect" ] || continue
		bp_slab=$SLAB
		case " $params " in
		*" cache_name="*)
			bp_slab=${params#*cache_name=}
			bp_slab=${bp_slab%% *}
			# cache_name= (empty): no directory to look for
			bp_slab=${bp_slab:+/sys/kernel/slab/$bp_slab} ;;
		esac
		case " $params " in
		*" placement="*)
			# With one node, cross and balanced are refused for the
			# placement itself.
			case "$NR_RUN_NODES:$params" in
			[01]:*placement=cross*|[01]:*placement=balanced*)
				names="$names|placement|free_node" ;;
			esac ;;
		esac
		# the chosen nodes first (placement=local too with fewer
		# than two), overridden by the case's own
		params="$NODE_ARGS $params"
		# run_test checks the whole test for splats
		canary nowait
		# shellcheck disable=SC2086
		if ld_err=$(insmod "$KO" $params < /dev/null 2>&1); then
			if [ "$expect" != ok ]; then
				diag "insmod $params: accepted, expected a refusal ($expect)"
				ok=1
			elif [ -n "$bp_slab" ] && [ ! -d "$bp_slab" ]; then
				diag "insmod $params: loaded without $bp_slab"
				ok=1
			fi
			unload || ok=1
			if [ -n "$bp_slab" ] && [ -d "$bp_slab" ]; then
				diag "insmod $params: $bp_slab is left after rmmod"
				ok=1
			fi
			continue
		fi
		if [ "$expect" = ok ]; then
			diag "insmod $params: '$ld_err', expected it to load"
			ok=1
			continue
		fi
		if mod_loaded || { [ -n "$bp_slab" ] && [ -d "$bp_slab" ]; }; then
			diag "insmod $params failed but left the module or $bp_slab behind"
			ok=1
			continue
		fi
		# busybox prints strerror(); kmod's insmod "Invalid parameters"
		case "$expect:$ld_err" in
		einval:*"nvalid argument"*|einval:*"nvalid parameters"*|fail:*) ;;
		*)
			diag "insmod $params: '$ld_err', expected Invalid argument"
			ok=1 ;;
		esac
		# the pr_err is checked below, from one read of dmesg
		echo "$CANARY	$names	$params" >> "$TMP/refused"
	done <<EOF
$(fuzz_cases load)
EOF
	[ -s "$TMP/refused" ] || return "$ok"
	dmesg > "$TMP/dmesg.load"
	bp_bad=$(unnamed_refusals "$TMP/refused" "$TMP/dmesg.load")
	if [ -n "$bp_bad" ]; then
		echo "$bp_bad" | sed 's/^/# /'
		ok=1
	fi
	return "$ok"
}

# unnamed_refusals CASES DMESG: the refused load cases (lines "CANARY<tab>
# NAMES<tab>PARAMS") that no module message after their canary, up to the
# next one, names (one of the '|'-separated NAMES), a line each; a case
# whose canary is not in DMESG (the log wrapped) is one too.
unnamed_refusals() {
	awk -F'\t' -v mod="$MOD" '
		FNR == NR { names[$1] = $2; params[$1] = $3; order[++n] = $1; next }
		{
			line = $0
			sub(/^\[[^]]*\] /, "", line)
			if (index(line, "slub_park kselftest canary ") == 1) {
				cur = (line in names) ? line : ""
				if (cur != "") seen[cur] = 1
				next
			}
			if (cur != "" && index(line, mod))
				msgs[cur] = msgs[cur] line "|"
		}
		END {
			for (i = 1; i <= n; i++) {
				c = order[i]
				if (!(c in seen)) {
					print "insmod " params[c] ": its canary is not in dmesg (log wrapped?)"
					continue
				}
				k = split(names[c], nm, "|")
				found = 0
				for (j = 1; j <= k; j++)
					if (index(msgs[c], nm[j]))
						found = 1
				if (!found)
					print "insmod " params[c] ": no pr_err naming \047" names[c] "\047; got: " msgs[c]
			}
		}' "$1" "$2"
}

# fuzz_combo WHAT FILE VALUE...: writing the values in turn, or then
# starting a run, is refused with EINVAL; the files get their values back.
fuzz_combo() {
	fc_what=$1
	shift
	fc_ok=0
	fc_refused=0
	fc_old=
	while [ $# -ge 2 ]; do
		fc_old="$fc_old $1 $(cat "$DBG/$1")"
		if ! write_file "$DBG/$1" "$2"; then
			case "$WERR" in
			*"Invalid argument"*) ;;
			*) diag "$fc_what: writing '$2' to $1: '$WERR'"; fc_ok=1 ;;
			esac
			fc_refused=1
			break
		fi
		shift 2
	done
	if [ "$fc_refused" -eq 0 ]; then
		if write_file "$DBG/run" 1; then
			diag "$fc_what: a run started, expected Invalid argument"
			fc_ok=1
			write_file "$DBG/stop" 1
			cat "$DBG/wait" > /dev/null
		else
			case "$WERR" in
			*"Invalid argument"*) ;;
			*) diag "$fc_what: run: '$WERR', expected Invalid argument"; fc_ok=1 ;;
			esac
		fi
	fi
	# shellcheck disable=SC2086
	set -- $fc_old
	while [ $# -ge 2 ]; do
		write_file "$DBG/$1" "$2" || { diag "$fc_what: cannot put back $1 $2: $WERR"; fc_ok=1; }
		shift 2
	done
	return "$fc_ok"
}

# The write, combo and busy cases of param_fuzz.txt: refused writes get
# -EINVAL and change nothing, inconsistent combinations cannot start a run,
# writes while a run is active get -EBUSY; stop ends a run with state
# 'stopped'.
t_debugfs_params() {
	if [ -z "$(fuzz_cases write)" ] || [ -z "$(fuzz_cases busy)" ]; then
		diag "no write or busy cases in $FUZZ_CASES"
		return 1
	fi
	ok=0
	diag "$(count_cases write) write, $(count_cases combo) combo, $(count_cases busy) busy cases"
	while read -r expect file val; do
		[ -n "$expect" ] || continue
		# run and stop are write-only
		before=$(cat "$DBG/$file" 2>/dev/null)
		if write_file "$DBG/$file" "$val"; then
			if [ "$expect" != ok ]; then
				diag "writing '$val' to $file succeeded, expected $expect"
				ok=1
			elif [ "$(cat "$DBG/$file")" != "$val" ]; then
				diag "$file reads '$(cat "$DBG/$file")' after writing '$val'"
				ok=1
			fi
			continue
		fi
		case "$expect:$WERR" in
		einval:*"Invalid argument"*|fail:*) ;;
		*) diag "writing '$val' to $file: got '$WERR', expected $expect"; ok=1 ;;
		esac
		after=$(cat "$DBG/$file" 2>/dev/null)
		if [ "$before" != "$after" ]; then
			diag "$file changed from '$before' to '$after' by a refused write"
			ok=1
		fi
	done <<EOF
$(fuzz_cases write)
EOF
	while read -r _ what pairs; do
		[ -n "$what" ] || continue
		# shellcheck disable=SC2086
		fuzz_combo "$what" $pairs || ok=1
	done <<EOF
$(fuzz_cases combo)
EOF
	# EBUSY while running, then stop.
	write_file "$DBG/placement" local || { diag "placement=local: $WERR"; return 1; }
	write_file "$DBG/alloc_node" "$NODE_A"
	write_file "$DBG/duration_ms" 60000 || { diag "duration_ms=60000: $WERR"; return 1; }
	if ! write_file "$DBG/run" 1; then
		diag "cannot start a run: $WERR"
		return 1
	fi
	st=$(cat "$DBG/status")
	[ "$st" = running ] || { diag "status '$st' right after start, expected 'running'"; ok=1; }
	while read -r _ file _; do
		[ -n "$file" ] || continue
		if [ "$file" = run ]; then
			val=1
		else
			val=$(cat "$DBG/$file")
		fi
		expect_write_err "$DBG/$file" "$val" "busy" || ok=1
	done <<EOF
$(fuzz_cases busy)
EOF
	nap 0.2
	if ! write_file "$DBG/stop" 1; then
		diag "stop: $WERR"
		ok=1
	fi
	state=$(cat "$DBG/wait")
	[ "$state" = "state: stopped" ] || { diag "wait after stop: '$state', expected 'state: stopped'"; ok=1; }
	cat "$DBG/results" > "$TMP/stopped.res"
	[ "$(res "$TMP/stopped.res" state)" = stopped ] || { diag "results state '$(res "$TMP/stopped.res" state)' after stop"; ok=1; }
	a=$(res "$TMP/stopped.res" allocs)
	f=$(res "$TMP/stopped.res" frees)
	if [ -z "$a" ] || [ "$a" != "$f" ]; then
		diag "stopped run: allocs '$a' != frees '$f'"
		ok=1
	fi
	write_file "$DBG/duration_ms" "$DUR_MS"
	[ "$(cat "$DBG/status")" = idle ] || { diag "status not idle after stop"; ok=1; }
	return "$ok"
}
