#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of 'make check' (runs under busybox sh as /slabpark/run.sh).
#
# Usage: check.sh KERNEL SUITE...
#   KERNEL           patched, base, rt or uma: the kselftest outcome to
#                    expect (ksft_expect in lib.sh)
#   kselftest        run_kselftest.sh -c slub_park (smoke mode), from the
#                    collection's own install (install-kselftest.sh)
#   kselftest-intree the same from /slabpark/kselftest-intree, the install of
#                    the kernel tree's kselftest_install.sh
#                    (make check's step kselftest-intree)
#   topology         in a --shape cpuless4 guest (node 3 without CPUs), after
#                    a kselftest suite: the kselftest ran on node 0 and a
#                    node with CPUs ('# nodes:' diagnostic) and failed
#                    nothing; make run HOST=1 --check-only chooses nodes
#                    0 -> 2 (the other socket) and refuses FREE_NODE=3 in one
#                    line (base kernel: with HOST_BASE_ONLY=1)
#   slab-window      tools/guest/slab-dump.sh before and after a 3 s window
#                    inside a cross run, into out/slab-window/ (the host
#                    checks the per-node split: slabpark.guest_out)
#   race-widen       tools/guest/guest-race-widen.sh (widen kernel only)
#   host-mode        make run HOST=1 as a tester runs it (tools/run-host.sh
#                    with make run's knobs, under the staged bash), with the
#                    staged module.  Patched kernel: prerequisites pass, a
#                    loaded module is refused and left alone, SIGTERM mid-run
#                    removes the module, a short run leaves the runs of
#                    park=0/1/2.  Base kernel: refused as unpatched in one
#                    line; with HOST_BASE_ONLY=1 the base runs.  Without
#                    python3 the runs stay in out/host-mode/results/host/
#                    and the host makes and checks their report
#                    (slabpark.guest_out)
#   kunit            slub_kunit (staged as kunit/slub_kunit.ko): every case
#                    passes, the 12 slab parking cases (kunit_park_expect in
#                    guest-lib.sh) and the slow kmalloc_nolock() kprobe case
#                    among them; only the perf event case may skip (TCG has
#                    no hardware PMU)
#
# Output: KTAP (kselftest/ktap_helpers.sh of the kselftest install), one
# subtest per suite ("# Subtest: SUITE" ... "ok N SUITE") holding what the
# suite prints: run_kselftest.sh's own TAP, slub_kunit's debugfs results
# as they are, the suites' test points.  The exit status is non-zero if
# any suite failed.

set -u
# shellcheck source=tools/guest/guest-lib.sh
. "$(dirname "$0")/tools/guest/guest-lib.sh"
# the kselftest install's, staged in the guest (slabpark.vm.stage)
KTAP_HELPERS=$S/kselftest/kselftest/ktap_helpers.sh
[ -r "$KTAP_HELPERS" ] || { echo "guest-check.sh: no $KTAP_HELPERS: the kselftest install is not staged" >&2; exit 2; }
# shellcheck disable=SC1090 # a path of the guest
. "$KTAP_HELPERS"
rc=0

bad() { say "FAIL: $*"; rc=1; }

# run_suite NAME CMD...: one subtest; it fails when CMD exits non-zero
# (a SKIP, exit 4, of a whole suite is a failure here, as every suite's
# prerequisites are part of the guest) or calls bad
run_suite() {
	rs_name=$1
	shift
	rs_rc=$rc
	rc=0
	echo "KTAP version 1"
	echo "# Subtest: $rs_name"
	"$@"
	rs_src=$?
	[ "$rs_src" = 0 ] || bad "suite $rs_name exited with $rs_src"
	if [ "$rc" = 0 ]; then
		ktap_test_pass "$rs_name"
	else
		ktap_test_fail "$rs_name"
	fi
	[ "$rs_rc" = 0 ] || rc=$rs_rc
}

# suite_kselftest DIR: DIR/run_kselftest.sh -c slub_park, streamed, then
# judged by ksft_expect
# shellcheck disable=SC2317 # called through run_suite
suite_kselftest() {
	[ -x "$1/run_kselftest.sh" ] || { say "FAIL: no $1/run_kselftest.sh staged"; return 1; }
	sh -c "set -o pipefail; cd '$1' && ./run_kselftest.sh -c slub_park 2>&1 | tee '$OUT/kselftest.txt'"
	sk_rc=$?
	ksft_expect "$OUT/kselftest.txt" "$kernel"
	return "$sk_rc"
}

# make run HOST=1 (tools/run-host.sh, bash, with the knobs python3 -m
# slabpark run would give it: HOST_KNOBS) with the staged module instead of
# building one; HM_ENV: more NAME=VALUE settings
HOST_KNOBS="RUNS=3 DURATION_MS=4000 LOCKSTAT=0 MEASURE=0 SWEEP= RESULTS_DIR=/tmp/host-mode"
# shellcheck disable=SC2317 # called from check_host_mode
host_run() {
	# shellcheck disable=SC2086 # HOST_KNOBS and HM_ENV are lists of words
	env HOST=1 HOST_MODULE="$KO" $HOST_KNOBS PLACEMENTS="cross local balanced" $HM_ENV bash "$S/tools/run-host.sh" "$@"
}

# expect_runs RESULTS PLACEMENT MODE...: a HOST=1 run's exit status was
# 0 ($hrc), it removed the module, said the report needs python3, and
# left round 1 of each mode of PLACEMENT (dumps and results) in
# RESULTS/host; false otherwise, saying why
# shellcheck disable=SC2317 # called from check_host_mode*
expect_runs() {
	er_r=$1 er_p=$2
	shift 2
	er_ok=0
	[ "$hrc" = 0 ] || { sed 's/^/#   /' "$hm/run.txt" | tail -n 30; er_ok=1; }
	mod_loaded && { say "FAIL: $MOD loaded after the run"; rmmod "$MOD" 2>/dev/null; er_ok=1; }
	grep -q '^slabpark: no python3 here: .*--report' "$hm/run.txt" ||
		{ say "FAIL: make run HOST=1 did not say that the report needs python3"; er_ok=1; }
	for er_f in host/compare.log host/knobs; do
		[ -s "$er_r/$er_f" ] || { say "FAIL: no $er_r/$er_f"; er_ok=1; }
	done
	for er_m in "$@"; do
		for er_f in 1.before.dump 1.after.dump 1.results; do
			er_f=$er_r/host/runs/$er_p/park$er_m/$er_f
			[ -s "$er_f" ] || { say "FAIL: no $er_f"; er_ok=1; }
		done
	done
	return "$er_ok"
}

# leftover_procs: the processes of a HOST=1 comparison still running (the
# bash of run-host.sh, the sh of guest-compare.sh, the module's wait)
# shellcheck disable=SC2317 # called from check_host_mode
leftover_procs() {
	# shellcheck disable=SC2009 # busybox has ps, not pgrep
	ps | grep -E '[r]un-host\.sh|[g]uest-compare\.sh|[s]lub_stress/wait' || true
}

# expect_check_only WHAT ERE: HOST=1 --check-only (HM_ENV) passes and its
# line matches ERE
# shellcheck disable=SC2317 # called from the check_* suites
expect_check_only() {
	if host_run --check-only >"$hm/check-only.txt" 2>&1 &&
	   grep -q "$2" "$hm/check-only.txt"; then
		say "HOST=1 --check-only $1: $(cat "$hm/check-only.txt")"
		return 0
	fi
	say "FAIL: HOST=1 --check-only $1: $(cat "$hm/check-only.txt")"
	return 1
}

# expect_refusal NAME WHEN REGEX: make run HOST=1 must refuse WHEN with
# exactly one line on stderr matching REGEX and nothing on stdout
# (outputs in $hm/NAME.out and .err); false otherwise, saying why.
# shellcheck disable=SC2317 # called from check_host_mode*
expect_refusal() {
	if host_run >"$hm/$1.out" 2>"$hm/$1.err"; then
		say "FAIL: make run HOST=1 ran $2"
		return 1
	fi
	if [ "$(wc -l <"$hm/$1.err")" != 1 ] || [ -s "$hm/$1.out" ] ||
	   ! grep -q "$3" "$hm/$1.err"; then
		say "FAIL: $2, want one refusal line, got: $(cat "$hm/$1.out" "$hm/$1.err")"
		return 1
	fi
	say "refused $2: $(cat "$hm/$1.err")"
}

# shellcheck disable=SC2317 # called through run_suite
check_host_mode() {
	[ -x "$S/bin/bash" ] || { say "FAIL: no $S/bin/bash staged (bash-static)"; return 1; }
	# the scripts start with #!/bin/bash, as on a tester's host
	[ -e /bin/bash ] || ln -s "$S/bin/bash" /bin/bash
	mod_loaded && { say "FAIL: $MOD is loaded before the suite"; return 1; }
	hm=$OUT/host-mode
	mkdir -p "$hm"
	ok=0

	# the patched kernel meets the prerequisites
	HM_ENV=
	expect_check_only "on the patched kernel" \
		'^slabpark: prerequisites ok: 2 nodes, SLUB counters, park switch' || ok=1

	# a module loaded before: refused in one line, and left loaded
	insmod "$KO" || { say "FAIL: insmod $KO"; return 1; }
	expect_refusal loaded "with $MOD loaded" '^slabpark: error: slub_stress is already loaded' || ok=1
	mod_loaded || { say "FAIL: the refusal removed a module it had not loaded"; ok=1; }
	rmmod "$MOD" 2>/dev/null

	# SIGTERM during a run: the trap ends the comparison, removes the module
	# (not through host_run: the signal must reach bash, not a subshell)
	# shellcheck disable=SC2086 # HOST_KNOBS is a list of words
	env HOST=1 HOST_MODULE="$KO" $HOST_KNOBS RUNS=1 DURATION_MS=8000 \
		PLACEMENTS=cross RESULTS_DIR="$hm/interrupted" bash "$S/tools/run-host.sh" >"$hm/interrupted.txt" 2>&1 &
	pid=$!
	i=0
	while [ "$(cat "$DBG/status" 2>/dev/null)" != running ] && [ "$i" -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ "$(cat "$DBG/status" 2>/dev/null)" != running ]; then
		say "FAIL: the interrupted run did not start within 30 s"
		ok=1
	fi
	kill -TERM "$pid"
	wait "$pid"
	trc=$?
	i=0
	while mod_loaded && [ "$i" -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if mod_loaded; then
		say "FAIL: $MOD still loaded 10 s after SIGTERM (exit status $trc)"
		rmmod "$MOD" 2>/dev/null
		ok=1
	elif [ "$trc" = 0 ]; then
		say "FAIL: the interrupted run exited with 0"
		ok=1
	else
		say "SIGTERM mid-run: exit status $trc, module removed"
	fi
	# the check of what SIGTERM left must see a comparison left running:
	# a stand-in with the comparison's file name first, then the real check
	mkdir -p "$hm/leftover/tools/guest"
	echo 'sleep 60' >"$hm/leftover/tools/guest/guest-compare.sh"
	sh "$hm/leftover/tools/guest/guest-compare.sh" &
	standin=$!
	i=0
	while [ -z "$(leftover_procs)" ] && [ "$i" -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -z "$(leftover_procs)" ]; then
		say "FAIL: the leftover-process check does not see a running guest-compare.sh"
		ok=1
	fi
	kill "$standin" 2>/dev/null
	wait "$standin" 2>/dev/null
	left=$(leftover_procs)
	[ -z "$left" ] || { say "FAIL: processes left after SIGTERM: $left"; ok=1; }

	# a short run: the runs of the three modes (the host makes and
	# checks their report: slabpark.guest_out's HOST_MODE_REPORT)
	HM_ENV="RUNS=1 DURATION_MS=1000 RESULTS_DIR=$hm/results"
	export PLACEMENTS="cross local"
	t0=$(date +%s)
	host_run >"$hm/run.txt" 2>&1
	hrc=$?
	unset PLACEMENTS
	say "make run HOST=1 RUNS=1 DURATION_MS=1000 PLACEMENTS=\"cross local\": exit status $hrc in $(($(date +%s) - t0)) s"
	expect_runs "$hm/results" cross 0 1 2 || ok=1
	expect_runs "$hm/results" local 0 1 2 || ok=1
	return "$ok"
}

# The base kernel has no park switch: refused, and with HOST_BASE_ONLY=1
# measured as one group, base.
# shellcheck disable=SC2317 # called through run_suite
check_host_mode_base() {
	[ -x "$S/bin/bash" ] || { say "FAIL: no $S/bin/bash staged (bash-static)"; return 1; }
	[ -e /bin/bash ] || ln -s "$S/bin/bash" /bin/bash
	hm=$OUT/host-mode
	mkdir -p "$hm"
	ok=0
	HM_ENV=
	expect_refusal unpatched "on the base kernel without HOST_BASE_ONLY=1" \
		'^slabpark: error: kernel .* has no park switch .*unpatched.*HOST_BASE_ONLY=1' || ok=1
	mod_loaded && { say "FAIL: $MOD loaded after the refusal"; rmmod "$MOD" 2>/dev/null; ok=1; }

	HM_ENV="HOST_BASE_ONLY=1 RUNS=1 DURATION_MS=1000 PLACEMENTS=cross RESULTS_DIR=$hm/results"
	host_run >"$hm/run.txt" 2>&1
	hrc=$?
	say "make run HOST=1 HOST_BASE_ONLY=1 RUNS=1 DURATION_MS=1000 PLACEMENTS=cross: exit status $hrc"
	expect_runs "$hm/results" cross base || ok=1
	return "$ok"
}

# shellcheck disable=SC2317 # called through run_suite
check_topology() {
	[ -x "$S/bin/bash" ] || { say "FAIL: no $S/bin/bash staged (bash-static)"; return 1; }
	[ -e /bin/bash ] || ln -s "$S/bin/bash" /bin/bash
	hm=$OUT/topology
	mkdir -p "$hm"
	ok=0
	nd=/sys/devices/system/node
	if [ "$(cat "$nd/online")" != 0-3 ] || [ -n "$(cat "$nd/node3/cpulist")" ]; then
		say "FAIL: not a cpuless4 guest: nodes $(cat "$nd/online"), node 3's CPUs '$(cat "$nd/node3/cpulist" 2>/dev/null)'"
		return 1
	fi
	if [ ! -s "$OUT/kselftest.txt" ]; then
		say "FAIL: no kselftest output ($OUT/kselftest.txt): run a kselftest suite first"
		return 1
	fi
	kn=$(sed -n 's/^\(# \)*nodes: //p' "$OUT/kselftest.txt" | head -n 1)
	case "$kn" in
	# node 1 shares node 0's socket (distance 11): the pair is 0 and 2
	"alloc_node=0 free_node=2, distance 21 "*)
		say "kselftest nodes: $kn" ;;
	*)
		say "FAIL: the kselftest's nodes are not 0 and 2 (the CPU node across, distance 21): '$kn'"
		ok=1 ;;
	esac
	kf=$(grep -c '^\(# \)*not ok ' "$OUT/kselftest.txt")
	[ "$kf" = 0 ] || { say "FAIL: the kselftest reported $kf 'not ok' in the cpuless4 guest"; ok=1; }
	HM_ENV=
	[ "$kernel" = base ] && HM_ENV=HOST_BASE_ONLY=1
	expect_check_only "with $HM_ENV, want nodes 0 -> 2 with 1 thread" \
		'^slabpark: prerequisites ok: 4 nodes, .*nodes 0 -> 2, 1 threads' || ok=1
	HM_ENV="$HM_ENV FREE_NODE=3"
	expect_refusal free3 "with FREE_NODE=3 (memory-only)" \
		'^slabpark: error: FREE_NODE=3: node 3 has no online CPUs' || ok=1
	mod_loaded && { say "FAIL: $MOD loaded after the checks"; rmmod "$MOD" 2>/dev/null; ok=1; }
	return "$ok"
}

# slab-window: a cross run of 7 s (allocators on node 0, freers on node
# 1), the cache dumped 1 s and 4 s into it, into out/slab-window/
# before.dump and after.dump; the run must end in state done
# shellcheck disable=SC2317 # called through run_suite
check_slab_window() {
	w=$OUT/slab-window
	mkdir -p "$w"
	mod_loaded && { say "FAIL: $MOD is loaded before the suite"; return 1; }
	insmod "$KO" cache_name="$CACHE" || { say "FAIL: insmod $KO cache_name=$CACHE"; return 1; }
	ok=0
	if echo cross >"$DBG/placement" && echo 7000 >"$DBG/duration_ms" && echo 1 >"$DBG/run"; then
		sleep 1
		sh "$S/tools/guest/slab-dump.sh" "$CACHE" >"$w/before.dump" ||
			{ say "FAIL: slab-dump.sh $CACHE (before) exited with $?"; ok=1; }
		sleep 3
		sh "$S/tools/guest/slab-dump.sh" "$CACHE" >"$w/after.dump" ||
			{ say "FAIL: slab-dump.sh $CACHE (after) exited with $?"; ok=1; }
		state=$(cat "$DBG/wait")
		[ "$state" = "state: done" ] || { say "FAIL: the cross run ended in '$state'"; ok=1; }
	else
		say "FAIL: could not start a cross run"
		ok=1
	fi
	rmmod "$MOD"
	[ "$ok" = 1 ] || say "cross run with a 3 s window dumped: $(grep -c . "$w/after.dump") lines"
	return "$ok"
}

# shellcheck disable=SC2317 # called through run_suite
check_kunit() {
	k=$S/kunit
	[ -f "$k/slub_kunit.ko" ] || { say "FAIL: no $k/slub_kunit.ko staged"; return 1; }
	if [ -f "$k/kunit.ko" ] && [ ! -d /sys/module/kunit ]; then
		insmod "$k/kunit.ko" || { say "FAIL: insmod kunit.ko"; return 1; }
	fi
	# the kprobe case makes 10^6 kmalloc_nolock() calls: minutes under
	# KASAN, seconds on these kernels; no hung task report meanwhile
	hto=/proc/sys/kernel/hung_task_timeout_secs
	[ -w "$hto" ] && echo 0 >"$hto"
	t0=$(date +%s)
	insmod "$k/slub_kunit.ko" || { say "FAIL: insmod slub_kunit.ko"; return 1; }
	[ -r "$KUNIT_RES" ] || { say "FAIL: no $KUNIT_RES"; return 1; }
	cp "$KUNIT_RES" "$OUT/kunit-slub_test.ktap"
	# KUnit's own KTAP, as it is (the host nests it in the suite)
	cat "$KUNIT_RES"
	kunit_results "$KUNIT_RES" >/dev/null
	say "slub_kunit in $(($(date +%s) - t0)) s: $KUNIT_PASS passed ($KUNIT_PARK slab parking cases), $KUNIT_FAIL failed, $KUNIT_SKIP skipped"
	ok=0
	[ "$KUNIT_FAIL" = 0 ] || { say "FAIL: $KUNIT_FAIL case(s) failed"; ok=1; }
	[ "$KUNIT_SUITE" = ok ] || { say "FAIL: suite line '$KUNIT_SUITE'"; ok=1; }
	kp_rc=$rc
	kunit_park_expect "$KUNIT_RES"
	[ "$rc" = "$kp_rc" ] || ok=1
	[ "$KUNIT_PARK" = "$KUNIT_PARK_WANT" ] ||
		{ say "FAIL: $KUNIT_PARK slab parking cases passed, want $KUNIT_PARK_WANT of $KUNIT_PARK_CASES"; ok=1; }
	grep -q '^[ 	]*ok [0-9]* test_kmalloc_nolock_and_friends_kprobe$' "$KUNIT_RES" ||
		{ say "FAIL: the kmalloc_nolock() kprobe case did not run and pass"; ok=1; }
	# the parking cases' skips are kunit_park_expect's to judge
	skips=$(sed -n 's/^[ 	]*ok [0-9]* \(test_[a-z_]*\) *# *SKIP.*/\1/p' "$KUNIT_RES" |
		grep -v -e '^test_kmalloc_nolock_and_friends_perf$' -e '^test_park_' | tr '\n' ' ')
	[ -z "$skips" ] || { say "FAIL: cases skipped: $skips"; ok=1; }
	[ "$ok" = 0 ] || grep -B2 -A8 'EXPECTATION\|ASSERTION' "$KUNIT_RES" | head -n 60 | sed 's/^/#   /'
	rmmod slub_kunit
	return "$ok"
}

[ $# -gt 1 ] || { echo "usage: check.sh patched|base|rt|uma SUITE..." >&2; exit 2; }
kernel=$1
shift
case "$kernel" in
patched|base|rt|uma) ;;
*) echo "check.sh: unknown kernel '$kernel'" >&2; exit 2 ;;
esac
for suite in "$@"; do
	case "$suite" in
	kselftest|kselftest-intree|topology|kunit|host-mode|race-widen|slab-window) ;;
	*) echo "check.sh: unknown suite '$suite'" >&2; exit 2 ;;
	esac
done
ktap_print_header
ktap_set_plan $#
for suite in "$@"; do
	case "$suite" in
	kselftest|kselftest-intree)
		# kselftest-intree: the install of step kselftest-intree
		kd=$S/kselftest
		[ "$suite" = kselftest ] || kd=$S/kselftest-intree
		run_suite "$suite" suite_kselftest "$kd"
		;;
	topology)
		run_suite topology check_topology
		;;
	kunit)
		run_suite kunit check_kunit
		;;
	host-mode)
		if [ "$kernel" = base ]; then
			run_suite host-mode check_host_mode_base
		else
			run_suite host-mode check_host_mode
		fi
		;;
	race-widen)
		run_suite race-widen sh "$S/tools/guest/guest-race-widen.sh"
		;;
	slab-window)
		run_suite slab-window check_slab_window
		;;
	esac
done
ktap_print_totals
exit $rc
