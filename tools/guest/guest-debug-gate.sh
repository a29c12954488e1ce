#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the robustness gate (make check's step debug-gate), for the debug
# kernel (tools/kernel/configs/debug.config).  Runs under busybox sh as
# /slabpark/run.sh.
#
# Usage: debug-gate.sh [LABEL [SKIP...]]
#   LABEL   a name for this boot, printed in the summary (default: default);
#           park2 first writes 2 to /sys/kernel/debug/slab/<cache>/park of
#           every cache (the series has no boot parameter for the mode;
#           caches created later, the module's and slub_kunit's, start at
#           the default 1)
#   SKIP    test groups not to run: kunit kselftest stress fuzz rmmod kmemleak;
#           the word kunit-slow instead runs slub_kunit's slow cases too;
#           fuzz-params skips the module and debugfs parameter fuzz only
#
# Tests (KTAP, one test point each):
#   kunit          insmod slub_kunit; every case of
#                  /sys/kernel/debug/kunit/slub_test/results must pass, the
#                  12 slab parking cases of the series among them
#                  (test_park_free_under_timer_lock skips, and must, with
#                  CONFIG_SLUB_RCU_DEBUG, which KASAN_GENERIC turns on;
#                  kunit_park_expect in guest-lib.sh)
#   kselftest      run_kselftest.sh -c slub_park (smoke mode)
#   boot-park      a new cache's debugfs 'park' is the default, 1 (in the
#                  park2 boot too), and in the park2 boot every cache
#                  switched at the start still reads 2
#   stress-P-V     the stress module, placement P, V = park1 (sheaves),
#                  park1-nosheaves, park2-nosheaves, the cache shrunk by
#                  the module every 50 ms of the run (its shrink_ms:
#                  KASAN's quarantine would hold the frees); a run with no
#                  shrink fails, a park=2 run must park; then the
#                  quiescence invariants (parked 0, park_slab ==
#                  unpark_slab, park_slab <= free_add_partial, no objects
#                  left after shrink)
#   park1-parked   the park=1 runs (plus up to 5 more) parked slabs
#   fuzz-params    the kselftest's fuzz mode (slub_park.sh fuzz): every
#                  case of its param_fuzz.txt; each load parameter at, just
#                  outside and beyond its range and as garbage (insmod
#                  fails, leaving nothing, or loads and unloads), each
#                  debugfs parameter file likewise (value unchanged after a
#                  refused write), inconsistent combinations refused,
#                  -EBUSY while running
#   fuzz-park      garbage writes to the debugfs 'park' fail with EINVAL,
#                  value kept; writes to 'parked' fail
#   rmmod-midrun   20 x rmmod while a run is active, cycling placements
#   kmemleak       scan at the end; any leak fails (the leak slub_kunit's
#                  test_leak_destroy makes on purpose is accounted for
#                  right after the kunit test and must be the only one).
#                  Objects of a cache loaded with no_sheaves=1 are not
#                  tracked: the module gets a cache without sheaves
#                  through SLAB_NOLEAKTRACE.
#
# The last line is "SLABPARK-DEBUG-GATE label=... kunit_pass=N ..." for the
# host; the exit status is non-zero if any test failed.

set -u

LABEL=${1:-default}
[ $# -gt 0 ] && shift
SKIPS=" $* "
KUNIT_SLOW=0
case "$SKIPS" in *" kunit-slow "*) KUNIT_SLOW=1 ;; esac
# shellcheck source=tools/guest/guest-lib.sh
. /slabpark/tools/guest/guest-lib.sh

KUNIT_PASS=0
KUNIT_FAIL=0
KUNIT_SKIP=0
KUNIT_PARK=0
FUZZ=0
FUZZ_BAD=0
RMMODS=0
STRESS_RUNS=0
PARKS=0
LEAKS=0
bad() { tp_bad "$@"; }
skipped() { case "$SKIPS" in *" $1 "*) return 0 ;; esac; return 1; }

dmesg_tail() { dmesg | tail -n "${1:-8}" | sed 's/^/#   dmesg: /'; }

unload() {
	mod_loaded || return 0
	if ! timeout 120 rmmod $MOD; then
		bad "rmmod $MOD failed"
		return 1
	fi
	if mod_loaded; then
		bad "$MOD still loaded after rmmod"
		return 1
	fi
	return 0
}

NCPUS=$(grep -c '^processor' /proc/cpuinfo)
say "debug gate '$LABEL': $NNODES nodes, $NCPUS CPUs ($NODE_CPUS on node 0), kernel $(uname -r), cmdline: $(cat /proc/cmdline)"

# The park2 boot: every cache parks on each first free into a full slab,
# from here on (slab_park=2 of the series' earlier versions, a boot
# parameter, is gone; the debugfs switch is per cache).  Test point
# park-all.  BOOT_PARK: the mode the caches that exist now are to read.
BOOT_PARK=
if [ "$LABEL" = park2 ]; then
	tp_begin
	park_all 2
	BOOT_PARK=2
	tp_end park-all "park=2 written to $PARK_ALL_N caches right after boot"
fi

# ------------------------------------------------------------------------
# kmemleak: leaks present before our tests (boot) are reported, then
# cleared, so that the final scan shows only what the tests leaked.

kml_scan() {
	# two scans: an object seen unreferenced in one may be a pointer in
	# flight (register, stack); kmemleak reports it after min_age (5 s)
	echo scan >"$KML" && echo scan >"$KML" && cat "$KML" >"$1"
}
kml_count() { grep -c '^unreferenced object' "$1"; }

if [ -f "$KML" ]; then
	kml_scan "$OUT/kmemleak-boot-$LABEL.txt"
	n=$(kml_count "$OUT/kmemleak-boot-$LABEL.txt")
	say "kmemleak: $n object(s) reported after boot (not ours; kept in out/kmemleak-boot-$LABEL.txt), clearing"
	[ "$n" = 0 ] || head -n 20 "$OUT/kmemleak-boot-$LABEL.txt" | sed 's/^/#   /'
	echo clear >"$KML"
fi

# ------------------------------------------------------------------------
# 1. slub_kunit

t_kunit() {
	tp_begin
	# the point's subtest: slub_kunit's own KTAP (the host nests it)
	echo "KTAP version 1"
	echo "# Subtest: kunit"
	k=$S/kunit
	if [ -f "$k/kunit.ko" ] && [ ! -d /sys/module/kunit ]; then
		insmod "$k/kunit.ko" || bad "insmod kunit.ko failed"
	fi
	if [ ! -f "$k/slub_kunit.ko" ]; then
		bad "no $k/slub_kunit.ko staged (CONFIG_SLUB_KUNIT_TEST=m?)"
		tp_end kunit
		return
	fi
	# Slow cases (test_kmalloc_nolock_and_friends_kprobe: 10^6 kmalloc +
	# kfree with a kprobe in a list_lock section) take more than kunit's
	# 300 s timeout under TCG with KASAN and lockdep; they are reported as
	# skipped unless KUNIT_SLOW=1 (then the hung task timeout is lifted
	# while insmod waits for them).
	kp=/sys/module/kunit/parameters
	hto=/proc/sys/kernel/hung_task_timeout_secs
	hto_old=
	if [ "$KUNIT_SLOW" = 1 ]; then
		[ -w "$hto" ] && hto_old=$(cat "$hto") && echo 0 >"$hto"
	elif [ -w "$kp/filter" ]; then
		# no newline: kunit compares the value to "slow" verbatim; the
		# filter stays for later kunit modules (there are none here)
		printf 'speed>slow' >"$kp/filter"
		printf skip >"$kp/filter_action"
	else
		say "cannot filter slow kunit cases ($kp/filter): they run"
	fi
	# the suite runs inside init_module; a failing case does not fail insmod
	if ! insmod "$k/slub_kunit.ko"; then
		bad "insmod slub_kunit.ko failed"
		dmesg_tail
	fi
	[ -n "$hto_old" ] && echo "$hto_old" >"$hto"
	if [ ! -r "$KUNIT_RES" ]; then
		bad "no $KUNIT_RES (CONFIG_KUNIT_DEBUGFS?)"
	else
		cp "$KUNIT_RES" "$OUT/kunit-slub_test-$LABEL.ktap"
		cat "$KUNIT_RES"
		kunit_results "$KUNIT_RES" >/dev/null
		say "slub_kunit: $KUNIT_PASS passed ($KUNIT_PARK of them slab parking cases), $KUNIT_FAIL failed, $KUNIT_SKIP skipped (suite: ${KUNIT_SUITE:-none})"
		# patch 6 of the series: every parking case runs and passes
		# on the patched kernel (KASAN included: the cases flush its
		# quarantine themselves), but the timer-lock case, which skips
		# with SLUB_RCU_DEBUG (kunit_park_expect)
		if has_park_kernel; then
			kunit_park_expect "$KUNIT_RES"
			[ "$KUNIT_PARK" = "$KUNIT_PARK_WANT" ] ||
				bad "$KUNIT_PARK slab parking cases passed, want $KUNIT_PARK_WANT of $KUNIT_PARK_CASES"
		fi
		[ "$KUNIT_FAIL" = 0 ] || bad "$KUNIT_FAIL slub_kunit case(s) failed (results: out/kunit-slub_test-$LABEL.ktap)"
		[ $((KUNIT_PASS + KUNIT_FAIL)) -gt 0 ] || bad "slub_kunit ran no case"
		[ "$KUNIT_SUITE" = ok ] || [ "$KUNIT_FAIL" != 0 ] || bad "slub_test suite line is '${KUNIT_SUITE:-missing}'"
		if [ "$KUNIT_FAIL" != 0 ]; then
			grep -B2 -A8 'not ok\|EXPECTATION\|ASSERTION' "$KUNIT_RES" | head -n 60 | sed 's/^/#   /'
		fi
	fi
	# test_leak_destroy leaks one object (and its cache) on purpose; the
	# kmemleak report may only hold objects allocated by slub_kunit.  Scan
	# before rmmod, while the module's symbols still resolve in the traces.
	if [ -f "$KML" ]; then
		sleep 6	# kmemleak's minimum object age is 5 s
		kml_scan "$OUT/kmemleak-kunit-$LABEL.txt"
		n=$(kml_count "$OUT/kmemleak-kunit-$LABEL.txt")
		other=$(awk '
			/^unreferenced object/ { if (obj != "" && !kunit) bad++; obj = $0; kunit = 0; next }
			/slub_kunit|test_leak_destroy/ { kunit = 1 }
			END { if (obj != "" && !kunit) bad++; print bad + 0 }
		' "$OUT/kmemleak-kunit-$LABEL.txt")
		say "kmemleak after slub_kunit: $n object(s), $other not from slub_kunit (expected: test_leak_destroy's)"
		if [ "$other" != 0 ]; then
			bad "kmemleak: $other leaked object(s) during slub_kunit not allocated by it"
			head -n 40 "$OUT/kmemleak-kunit-$LABEL.txt" | sed 's/^/#   /'
		fi
		echo clear >"$KML"
	fi
	rmmod slub_kunit 2>/dev/null || bad "rmmod slub_kunit failed"
	tp_end kunit "$KUNIT_PASS passed ($KUNIT_PARK parking), $KUNIT_FAIL failed, $KUNIT_SKIP skipped"
}

# ------------------------------------------------------------------------
# 2. kselftest smoke mode, stress in every placement with park=1 and 2

t_kselftest() {
	tp_begin
	# the point's subtest: run_kselftest.sh's own TAP
	echo "KTAP version 1"
	echo "# Subtest: kselftest"
	if [ ! -x "$S/kselftest/run_kselftest.sh" ]; then
		bad "no $S/kselftest/run_kselftest.sh"
		tp_end kselftest
		return
	fi
	out=$(cd "$S/kselftest" && ./run_kselftest.sh -c slub_park 2>&1)
	rc=$?
	echo "$out"
	echo "$out" >"$OUT/kselftest-$LABEL.txt"
	[ "$rc" = 0 ] || bad "run_kselftest.sh -c slub_park exited with $rc"
	# every test passes, or skips only where ksft_expect allows it
	ksft_expect "$OUT/kselftest-$LABEL.txt" debug
	unload
	tp_end kselftest
}

# objects in the cache before a run (after shrink), the baseline for after
OBJ_BASE=
objects_base() {
	write_file "$SLAB/shrink" 1
	OBJ_BASE=$(sum_of "$SLAB/objects")
}

# stress_run WHAT PLACEMENT MODE [MUSTPARK]: one run of the loaded module
# with park=MODE ("" = leave the switch alone); checks results and
# invariants.  The module shrinks the cache every STRESS_SHRINK_MS during
# the run (its shrink_ms, loaded so by t_stress): under KASAN the
# quarantine holds the frees of a run, a shrink releases them to the slabs,
# where they park.  The shrinks are the module's, not a userspace loop's:
# with every vCPU busy with the run's kthreads, loops on the freeing CPUs
# got no shrink done in whole 3 s runs (0 in 9 of 12 runs of a CI gate,
# 2026-12-02), and the park=2 check failed for want of frees.  RUN_PARKS:
# the slabs parked during the run (park_slab as the run ends, before
# anything of check_after_run).  With MUSTPARK=1 a run that parked nothing
# fails.
RUN_PARKS=0
stress_run() {
	what=$1
	if [ -n "$3" ] && has_park; then
		write_file "$PARKDIR/park" "$3" || bad "$what: echo $3 > $PARKDIR/park: $WERR"
		[ "$(cat "$PARKDIR/park")" = "$3" ] || bad "$what: park reads '$(cat "$PARKDIR/park")', want $3"
	fi
	objects_base
	zero_stats
	if ! write_file "$DBG/run" 1; then
		bad "$what: echo 1 > run: $WERR"
		dmesg_tail
		return
	fi
	st=$(timeout 300 cat "$DBG/wait")
	[ "$st" = "state: done" ] || write_file "$DBG/stop" 1
	RUN_PARKS=0
	has_stats && RUN_PARKS=$(sum_of "$SLAB/park_slab")
	STRESS_RUNS=$((STRESS_RUNS + 1))
	[ "$st" = "state: done" ] || bad "$what: wait says '$st', want 'state: done'"
	[ "$(rval error)" = 0 ] || bad "$what: results error $(rval error)"
	fr=$(rval frees)
	[ "${fr:-0}" -gt 0 ] || bad "$what: no frees"
	nshrink=$(rval shrinks)
	[ "${nshrink:-0}" -gt 0 ] || bad "$what: the module did no shrink during the run (shrinks '$nshrink', shrink_ms $STRESS_SHRINK_MS)"
	say "$what: $(rval frees) frees, $(rval ops_per_sec) ops/s, remote $(rval remote_free_pct)%, alloc_failures $(rval alloc_failures), $nshrink shrinks during the run, parked during the run: $RUN_PARKS slabs (park_slab)"
	if [ "${4:-0}" = 1 ] && has_stats && [ "$RUN_PARKS" = 0 ]; then
		bad "$what: park=$3 and no slab parked during the run (park_slab 0 before the final shrink; $nshrink shrinks during it)"
	fi
	check_after_run "$what" "$OBJ_BASE"
	PARKS=$((PARKS + PS))
}

# Every placement with park=1 with the cache's sheaves and without, and
# park=2 without: the frees reach __slab_free(), and the module's shrinks
# make them do so during the run.  park=2 must park in every run; park=1 parks
# only where the list_lock trylock fails, which is rare at 4 vCPUs: the
# park=1 runs together must park (test point park1-parked), and up to 5
# more sheaf-less local runs are made for that if they did not; without
# sheaves, local frees park as often as remote ones (the allocators hold
# the same node's list_lock).
PARK1_PARKS=0
PARK1_RUNS=0
# Run length of the stress runs, and the module's shrink interval: one
# kmem_cache_shrink() (its sheaf flush on every CPU, the quarantine
# scan) can take a second or more under TCG + KASAN with every CPU busy;
# 3 s runs got 8-25 shrinks each from the module (2026-12-02).
STRESS_MS=3000
STRESS_SHRINK_MS=50
t_stress() {
	for pl in cross local balanced; do
		for v in park1 park1-nosheaves park2-nosheaves; do
			tp_begin
			name=stress-$pl-$v
			m=${v#park}
			m=${m%%-*}
			ns=0
			case $v in *-nosheaves) ns=1 ;; esac
			if ! insmod "$KO" placement=$pl duration_ms=$STRESS_MS shrink_ms=$STRESS_SHRINK_MS no_sheaves=$ns; then
				bad "$name: insmod failed"
				dmesg_tail
				tp_end "$name"
				continue
			fi
			if has_park; then
				stress_run "$name" $pl "$m" $((m - 1))
				if [ "$m" = 1 ]; then
					PARK1_PARKS=$((PARK1_PARKS + RUN_PARKS))
					PARK1_RUNS=$((PARK1_RUNS + 1))
				fi
				note=
			else
				stress_run "$name" $pl ""
				note="parking: no $PARKDIR/park (unpatched kernel); plain run done"
			fi
			unload
			[ -d "$SLAB" ] && bad "$name: $SLAB still exists after rmmod"
			if [ -n "$note" ] && [ "$CASE_BAD" = 0 ]; then
				tp_skip "$name" "$note"
			else
				tp_end "$name" "$RUN_PARKS parked in the run"
			fi
		done
	done
	has_park_kernel || return 0
	if ! has_stats_kernel; then
		tp_skip park1-parked "no park_slab (CONFIG_SLUB_STATS off): parks cannot be counted"
		return 0
	fi
	tp_begin
	extra=0
	while [ "$PARK1_PARKS" = 0 ] && [ $extra -lt 5 ]; do
		extra=$((extra + 1))
		if ! insmod "$KO" placement=local duration_ms=$STRESS_MS shrink_ms=$STRESS_SHRINK_MS no_sheaves=1; then
			bad "park1 extra run $extra: insmod failed"
			break
		fi
		stress_run "stress-local-park1-extra$extra" local 1
		PARK1_PARKS=$((PARK1_PARKS + RUN_PARKS))
		PARK1_RUNS=$((PARK1_RUNS + 1))
		unload
	done
	[ "$PARK1_PARKS" -gt 0 ] || bad "park=1: no slab parked in $PARK1_RUNS runs under the debug kernel"
	tp_end park1-parked "$PARK1_PARKS slabs parked by park=1 runs, $extra extra runs"
}

# A new cache starts at the default, park=1, whatever the other caches'
# switches say; in the park2 boot, the caches switched at its start that
# still exist read 2 (nothing reset them; caches created since start at 1).
t_boot_park() {
	tp_begin
	if ! has_park_kernel; then
		tp_skip boot-park "no debugfs 'park' (unpatched kernel)"
		return
	fi
	n2=0
	if [ -n "$BOOT_PARK" ]; then
		while read -r f; do
			[ -f "$f" ] || continue
			v=$(cat "$f")
			if [ "$v" = "$BOOT_PARK" ]; then
				n2=$((n2 + 1))
			else
				bad "$f reads '$v', want $BOOT_PARK (written after boot)"
			fi
		done <"$OUT/park-all.list"
	fi
	insmod "$KO" || bad "insmod failed"
	got=$(cat "$PARKDIR/park" 2>/dev/null)
	[ "$got" = 1 ] || bad "park of a new cache is '$got', want the default 1"
	unload
	[ -e "$PARKDIR" ] && bad "$PARKDIR still exists after rmmod"
	tp_end boot-park "new cache has park=$got${BOOT_PARK:+; $n2 caches still at $BOOT_PARK}"
}

# A kernel has the switch iff any cache has it; likewise the stats.
has_park_kernel() { ls /sys/kernel/debug/slab/*/park >/dev/null 2>&1; }
has_stats_kernel() { ls /sys/kernel/slab/*/park_slab >/dev/null 2>&1; }

# ------------------------------------------------------------------------
# 3. parameter fuzz
#
# The module and debugfs cases: the kselftest in its fuzz mode runs every
# line of its param_fuzz.txt (the gate's and its own).  Its diagnostics
# say how many cases of each kind ("# N load cases", "# N write, N combo,
# N busy cases").

t_fuzz_params() {
	tp_begin
	out=$OUT/fuzz-params-$LABEL.txt
	sh "$S/kselftest/slub_park/slub_park.sh" fuzz >"$out" 2>&1
	rc=$?
	sed 's/^/#   /' "$out"
	[ "$rc" = 0 ] || bad "slub_park.sh fuzz exited with $rc"
	n=$(awk '/^# [0-9]+ load cases/ { n += $2 }
		/^# [0-9]+ write, [0-9]+ combo, [0-9]+ busy cases/ { n += $2 + $4 + $6 }
		END { print n + 0 }' "$out")
	failed=$(grep -c '^not ok' "$out")
	[ "$n" -gt 0 ] || bad "slub_park.sh fuzz ran no case"
	FUZZ=$((FUZZ + n))
	FUZZ_BAD=$((FUZZ_BAD + failed))
	tp_end fuzz-params "$n cases, $failed failed tests"
}

t_fuzz_park() {
	tp_begin
	f0=$FUZZ
	if ! has_park_kernel; then
		tp_skip fuzz-park "no debugfs 'park' (unpatched kernel)"
		return
	fi
	insmod "$KO" || { bad "insmod failed"; tp_end fuzz-park; return; }
	for base in 0 2 1; do
		FUZZ=$((FUZZ + 1))
		write_file "$PARKDIR/park" $base || bad "echo $base > park: $WERR"
		[ "$(cat "$PARKDIR/park")" = $base ] || bad "park reads '$(cat "$PARKDIR/park")' after writing $base"
		for v in 3 255 256 -1 abc 1x 2.5 0x3 ' ' 99999999999; do
			FUZZ=$((FUZZ + 1))
			if write_file "$PARKDIR/park" "$v"; then
				bad "echo '$v' > park succeeded, want EINVAL"
				FUZZ_BAD=$((FUZZ_BAD + 1))
			else
				case "$WERR" in
				*"nvalid argument"*) ;;
				*) bad "echo '$v' > park: '$WERR', want Invalid argument"; FUZZ_BAD=$((FUZZ_BAD + 1)) ;;
				esac
			fi
			now=$(cat "$PARKDIR/park")
			[ "$now" = $base ] || { bad "refused write '$v' changed park: $base -> '$now'"; FUZZ_BAD=$((FUZZ_BAD + 1)); }
		done
	done
	# read-only files refuse writes
	if [ -f "$PARKDIR/parked" ]; then
		FUZZ=$((FUZZ + 1))
		write_file "$PARKDIR/parked" 0 && { bad "write to read-only parked succeeded"; FUZZ_BAD=$((FUZZ_BAD + 1)); }
	fi
	unload
	tp_end fuzz-park "$((FUZZ - f0)) cases"
}

# ------------------------------------------------------------------------
# 4. rmmod in the middle of a run, 20 times

t_rmmod() {
	tp_begin
	i=0
	while [ $i -lt 20 ]; do
		case $((i % 3)) in 0) pl=cross ;; 1) pl=local ;; *) pl=balanced ;; esac
		b=1
		[ $((i % 2)) = 1 ] && b=16
		ns=$(((i / 3) % 2))
		if ! insmod "$KO" placement=$pl batch=$b no_sheaves=$ns duration_ms=60000; then
			bad "rmmod $i: insmod placement=$pl failed"
			dmesg_tail 3
			i=$((i + 1))
			continue
		fi
		if has_park; then
			write_file "$PARKDIR/park" $((i % 3)) || bad "rmmod $i: echo $((i % 3)) > park: $WERR"
		fi
		write_file "$DBG/run" 1 || bad "rmmod $i: run: $WERR"
		# 0.2 .. 1.1 s into the run
		sleep "$(awk -v i=$i 'BEGIN { printf "%.1f", 0.2 + (i * 7 % 10) / 10 }')"
		[ "$(cat "$DBG/status")" = running ] || bad "rmmod $i: not running before rmmod"
		if timeout 120 rmmod $MOD; then
			RMMODS=$((RMMODS + 1))
		else
			bad "rmmod $i ($pl, batch $b, no_sheaves $ns) failed or hung"
		fi
		mod_loaded && bad "rmmod $i: module still loaded"
		[ -d "$SLAB" ] && bad "rmmod $i: $SLAB still exists"
		[ -d "$PARKDIR" ] && bad "rmmod $i: $PARKDIR still exists"
		i=$((i + 1))
	done
	tp_end rmmod-midrun "$RMMODS rmmods"
}

# ------------------------------------------------------------------------
# 5. kmemleak

t_kmemleak() {
	tp_begin
	if [ ! -f "$KML" ]; then
		tp_skip kmemleak "no $KML (CONFIG_DEBUG_KMEMLEAK)"
		return
	fi
	sleep 6	# min age
	kml_scan "$OUT/kmemleak-end-$LABEL.txt"
	# slub_kunit's test_leak_destroy leaks an object on purpose, so its
	# cache cannot be destroyed; once that cache is dropped, kmemleak
	# reports the cache itself (struct, name, per-cpu stats), allocated by
	# the kunit test thread.  Those are expected; anything else is a leak.
	all=$(kml_count "$OUT/kmemleak-end-$LABEL.txt")
	LEAKS=$(awk '
		/^unreferenced object/ { if (obj != "" && !kunit) n++; obj = $0; kunit = 0; next }
		/comm "kunit_try_catch"/ { kunit = 1 }
		END { if (obj != "" && !kunit) n++; print n + 0 }
	' "$OUT/kmemleak-end-$LABEL.txt")
	[ "$all" = "$LEAKS" ] ||
		say "kmemleak: $((all - LEAKS)) object(s) from slub_kunit's deliberate leak_destroy (expected)"
	if [ "$LEAKS" != 0 ]; then
		bad "kmemleak: $LEAKS suspected leak(s):"
		head -n 80 "$OUT/kmemleak-end-$LABEL.txt" | sed 's/^/#   /'
	fi
	tp_end kmemleak "$LEAKS leaks"
}

# ------------------------------------------------------------------------

echo "TAP version 13"
mod_loaded && rmmod $MOD
for t in kunit kselftest stress fuzz rmmod kmemleak; do
	if skipped $t; then
		say "$t: skipped on request"
		continue
	fi
	case $t in
	kunit) t_kunit ;;
	kselftest) t_kselftest ;;
	stress) t_boot_park; t_stress ;;
	fuzz)
		if skipped fuzz-params; then
			say "fuzz-params: skipped on request (it does not depend on the parking mode)"
		else
			t_fuzz_params
		fi
		t_fuzz_park
		;;
	rmmod) t_rmmod ;;
	kmemleak) t_kmemleak ;;
	esac
done
# backstop for the host's console check: kernel problems in dmesg
tp_begin
dmesg >"$OUT/dmesg-$LABEL.txt"
# the project's one kernel-problem regex, installed with the kselftest
load_splat_re "$S/kselftest/slub_park" || bad "no $S/kselftest/slub_park/splat.ere"
probs=$(grep -cE "$SPLAT_RE" "$OUT/dmesg-$LABEL.txt")
if [ "$probs" != 0 ]; then
	bad "$probs kernel problem line(s) in dmesg:"
	grep -m 5 -A 12 -E "$SPLAT_RE" "$OUT/dmesg-$LABEL.txt" | head -n 40 | sed 's/^/#   /'
fi
tp_end dmesg "$probs problem lines"
echo "1..$TESTNO"
say "debug gate '$LABEL': kunit cases $KUNIT_PASS passed/$KUNIT_FAIL failed/$KUNIT_SKIP skipped," \
	"fuzz $FUZZ cases ($FUZZ_BAD bad), $RMMODS rmmods mid-run, $STRESS_RUNS stress runs ($PARKS slabs parked), $LEAKS leaks"
echo "SLABPARK-DEBUG-GATE label=$LABEL pass=$NPASS fail=$NFAIL failed=${FAILED:-none} skip=$NSKIP kunit_pass=$KUNIT_PASS kunit_park=$KUNIT_PARK kunit_fail=$KUNIT_FAIL kunit_skip=$KUNIT_SKIP fuzz=$FUZZ fuzz_bad=$FUZZ_BAD rmmods=$RMMODS stress_runs=$STRESS_RUNS parks=$PARKS leaks=$LEAKS"
[ "$NFAIL" = 0 ]
