#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make check (slabpark.steps.guest), as /slabpark/run.sh:
#   check.sh patched|base|rt|uma SUITE...
# KTAP, one subtest per suite holding what it prints; the host judges the
# files it leaves in out/ (slabpark.guest_judge, slabpark.guest_out).

set -u
# shellcheck source=tools/guest/guest-lib.sh
. "$(dirname "$0")/tools/guest/guest-lib.sh"
ktap_load

# run_suite NAME CMD...: one subtest, failed when CMD exits non-zero (a
# SKIP, exit 4, too: every suite's prerequisites are part of the guest)
run_suite() {
	tp_sub "$1"
	rs_name=$1
	shift
	"$@" || bad "suite $rs_name exited with $?"
	tp_end "$rs_name"
}

# host_dir DIR: bash staged as /bin/bash, hm=DIR made
host_dir() {
	[ -x "$S/bin/bash" ] || { bad "no $S/bin/bash staged (bash-static)"; return 1; }
	[ -e /bin/bash ] || ln -s "$S/bin/bash" /bin/bash
	hm=$1
	mkdir -p "$hm"
}

# hm_run NAME [--check-only]: make run HOST=1 (tools/run-host.sh with make
# run's knobs; HM_ENV: more NAME=VALUE settings, HM_PL: PLACEMENTS) with the
# staged module; its stdout, stderr, exit status in $hm/NAME.out, .err, .rc
# (the host judges them: slabpark.guest_out.HOST_RUNS), its output said but
# a run's (NAME run: the host shows it when judged failed)
HOST_KNOBS="RUNS=3 DURATION_MS=4000 LOCKSTAT=0 MEASURE=0 SWEEP= RESULTS_DIR=/tmp/host-mode"
hm_run() {
	hr_n=$1
	shift
	hr_t0=$(date +%s)
	# shellcheck disable=SC2086 # HOST_KNOBS and HM_ENV are lists of words
	env HOST=1 HOST_MODULE="$KO" $HOST_KNOBS PLACEMENTS="${HM_PL:-cross local balanced}" $HM_ENV \
		bash "$S/tools/run-host.sh" "$@" >"$hm/$hr_n.out" 2>"$hm/$hr_n.err"
	echo $? >"$hm/$hr_n.rc"
	hr_d="$HM_ENV${HM_PL:+ PLACEMENTS=\"$HM_PL\"}${*:+ $*}"
	say "make run HOST=1${hr_d:+ ${hr_d# }}: exit status $(cat "$hm/$hr_n.rc") in $(($(date +%s) - hr_t0)) s"
	[ "$hr_n" = run ] || sed 's/^/#   /' "$hm/$hr_n.out" "$hm/$hr_n.err"
}

# leftover_procs: the processes of a HOST=1 comparison still running
leftover_procs() {
	# shellcheck disable=SC2009 # busybox has ps, not pgrep
	ps | grep -E '[r]un-host\.sh|[g]uest-compare\.sh|[s]lub_stress/wait' || true
}
leftover_seen() { [ -n "$(leftover_procs)" ]; }
run_active() { [ "$(cat "$DBG/status" 2>/dev/null)" = running ]; }
mod_gone() { ! mod_loaded; }

# patched: prerequisites pass, a loaded module is refused and left alone,
# SIGTERM mid-run removes the module and leaves no process, a short run
# leaves the runs of park=0/1/2
check_host_mode() {
	[ "$kernel" = base ] && { check_host_mode_base; return; }
	host_dir "$OUT/host-mode" || return 0
	mod_loaded && { bad "$MOD is loaded before the suite"; return; }
	HM_ENV='' HM_PL=''
	hm_run check-only --check-only

	insmod "$KO" || { bad "insmod $KO"; return; }
	hm_run loaded
	mod_loaded || bad "the refusal removed a module it had not loaded"
	rmmod "$MOD" 2>/dev/null

	# not through hm_run: the signal must reach bash, not a subshell
	# shellcheck disable=SC2086 # HOST_KNOBS is a list of words
	env HOST=1 HOST_MODULE="$KO" $HOST_KNOBS RUNS=1 DURATION_MS=8000 \
		PLACEMENTS=cross RESULTS_DIR="$hm/interrupted" bash "$S/tools/run-host.sh" >"$hm/interrupted.txt" 2>&1 &
	pid=$!
	loop_until 300 run_active || bad "the interrupted run did not start within 30 s"
	kill -TERM "$pid"
	wait "$pid"
	trc=$?
	if ! loop_until 100 mod_gone; then
		bad "$MOD still loaded 10 s after SIGTERM (exit status $trc)"
		rmmod "$MOD" 2>/dev/null
	elif [ "$trc" = 0 ]; then
		bad "the interrupted run exited with 0"
	else
		say "SIGTERM mid-run: exit status $trc, module removed"
	fi
	# the leftover check must see a stand-in comparison, then none
	mkdir -p "$hm/leftover/tools/guest"
	echo 'sleep 60' >"$hm/leftover/tools/guest/guest-compare.sh"
	sh "$hm/leftover/tools/guest/guest-compare.sh" &
	standin=$!
	loop_until 50 leftover_seen || bad "the leftover-process check does not see a running guest-compare.sh"
	kill "$standin" 2>/dev/null
	wait "$standin" 2>/dev/null
	left=$(leftover_procs)
	[ -z "$left" ] || bad "processes left after SIGTERM: $left"

	HM_ENV="RUNS=1 DURATION_MS=1000 RESULTS_DIR=$hm/results" HM_PL="cross local"
	hm_run run
	! mod_loaded || { bad "$MOD loaded after the run"; rmmod "$MOD" 2>/dev/null; }
}

# base: refused as unpatched, and with HOST_BASE_ONLY=1 measured as base
check_host_mode_base() {
	host_dir "$OUT/host-mode" || return 0
	HM_ENV='' HM_PL=''
	hm_run unpatched
	mod_loaded && { bad "$MOD loaded after the refusal"; rmmod "$MOD" 2>/dev/null; }

	HM_ENV="HOST_BASE_ONLY=1 RUNS=1 DURATION_MS=1000 RESULTS_DIR=$hm/results" HM_PL=cross
	hm_run run
	! mod_loaded || { bad "$MOD loaded after the run"; rmmod "$MOD" 2>/dev/null; }
}

# in the cpuless4 guest (node 1 on node 0's socket, node 3 without CPUs)
check_topology() {
	host_dir "$OUT/topology" || return 0
	HM_ENV='' HM_PL=''
	[ "$kernel" = base ] && HM_ENV=HOST_BASE_ONLY=1
	hm_run check-only --check-only
	HM_ENV="$HM_ENV FREE_NODE=3"
	hm_run free3
	! mod_loaded || { bad "$MOD loaded after the checks"; rmmod "$MOD" 2>/dev/null; }
}

# a cross run of 7 s, the cache dumped 1 s and 4 s into it
check_slab_window() {
	w=$OUT/slab-window
	mkdir -p "$w"
	mod_loaded && { bad "$MOD is loaded before the suite"; return; }
	insmod "$KO" cache_name="$CACHE" || { bad "insmod $KO cache_name=$CACHE"; return; }
	if echo cross >"$DBG/placement" && echo 7000 >"$DBG/duration_ms" && echo 1 >"$DBG/run"; then
		sleep 1
		sh "$S/tools/guest/slab-dump.sh" "$CACHE" >"$w/before.dump" ||
			bad "slab-dump.sh $CACHE (before) exited with $?"
		sleep 3
		sh "$S/tools/guest/slab-dump.sh" "$CACHE" >"$w/after.dump" ||
			bad "slab-dump.sh $CACHE (after) exited with $?"
		state=$(cat "$DBG/wait")
		[ "$state" = "state: done" ] || bad "the cross run ended in '$state'"
	else
		bad "could not start a cross run"
	fi
	rmmod "$MOD"
	[ "$CASE_BAD" = 1 ] || say "cross run with a 3 s window dumped: $(grep -c . "$w/after.dump") lines"
}

check_kunit() {
	# the kprobe case's 10^6 kmalloc_nolock() calls: no hung task report
	hto=/proc/sys/kernel/hung_task_timeout_secs
	[ -w "$hto" ] && echo 0 >"$hto"
	kunit_run
	rmmod slub_kunit 2>/dev/null || bad "rmmod slub_kunit failed"
}

check_kselftest() { ksft_run "$S/kselftest"; }
check_kselftest_intree() { ksft_run "$S/kselftest-intree"; }
check_race_widen() { sh "$S/tools/guest/guest-race-widen.sh"; }

[ $# -gt 1 ] || { echo "usage: check.sh patched|base|rt|uma SUITE..." >&2; exit 2; }
kernel=$1
shift
ktap_print_header
ktap_set_plan $#
for suite in "$@"; do
	run_suite "$suite" "check_$(echo "$suite" | tr - _)"
done
ktap_print_totals
[ "$KTAP_CNT_FAIL" = 0 ]
