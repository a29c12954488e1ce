#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make check's debug-gate on the patched debug kernel, as
# /slabpark/run.sh:  debug-gate.sh [LABEL [SKIP...]]
#   LABEL   this boot's name; park2 first writes 2 to every cache's park
#   SKIP    groups not to run: kunit kselftest stress fuzz rmmod kmemleak
#           fuzz-params; kunit-slow runs slub_kunit's slow cases too
# KTAP, a test point each; the last line "SLABPARK-DEBUG-GATE label=..."
# is the host's.  The host judges kunit's and kselftest's output
# (slabpark.guest_judge).

set -u

LABEL=${1:-default}
[ $# -gt 0 ] && shift
SKIPS=" $* "
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"
ktap_load
ktap_print_header

skipped() { case "$SKIPS" in *" $1 "*) return 0 ;; esac; return 1; }

say "debug gate '$LABEL': $NNODES nodes, $(grep -c '^processor' /proc/cpuinfo) CPUs ($NODE_CPUS on node 0), kernel $(uname -r), cmdline: $(cat /proc/cmdline)"

# park2: every cache that exists now parks on each first free into a
# full slab (a merged alias has no switch, debug caches neither)
BOOT_PARK=
if [ "$LABEL" = park2 ]; then
	tp_begin
	BOOT_PARK=2
	: >"$OUT/park-all.list"
	for pa_f in /sys/kernel/debug/slab/*/park; do
		[ -f "$pa_f" ] || continue
		if write_file "$pa_f" 2; then
			echo "$pa_f" >>"$OUT/park-all.list"
		else
			bad "echo 2 > $pa_f: $WERR"
		fi
	done
	n=$(grep -c . "$OUT/park-all.list")
	[ "$n" -gt 0 ] || bad "no /sys/kernel/debug/slab/*/park"
	tp_end park-all "park=2 written to $n caches right after boot"
fi

kml_boot

t_kunit() {
	tp_sub kunit
	# the slow kprobe case outlasts kunit's 300 s timeout under TCG with
	# KASAN: skipped unless kunit-slow, which lifts the hung task timeout
	kp=/sys/module/kunit/parameters
	hto=/proc/sys/kernel/hung_task_timeout_secs
	hto_old=
	if skipped kunit-slow; then
		[ -w "$hto" ] && hto_old=$(cat "$hto") && echo 0 >"$hto"
	elif [ -w "$kp/filter" ]; then
		# no newline: kunit compares the value to "slow" verbatim
		printf 'speed>slow' >"$kp/filter"
		printf skip >"$kp/filter_action"
	else
		say "cannot filter slow kunit cases ($kp/filter): they run"
	fi
	kunit_run
	[ -n "$hto_old" ] && echo "$hto_old" >"$hto"
	# scanned before rmmod, while the module's symbols resolve in traces
	n=$(kml_scan "$OUT/kmemleak-kunit.txt") || bad "kmemleak scan failed"
	say "kmemleak: ${n:-?} object(s) after slub_kunit"
	echo clear >"$KML"
	rmmod slub_kunit 2>/dev/null || bad "rmmod slub_kunit failed"
	tp_end kunit
}

t_kselftest() {
	tp_sub kselftest
	ksft_run "$S/kselftest"
	unload
	tp_end kselftest
}

# stress_run WHAT MODE [MUSTPARK]: one run with park=MODE, then
# check_after_run; RUN_PARKS: park_slab as it ends (MUSTPARK=1: not 0).
# The module shrinks every STRESS_SHRINK_MS: a shrink releases KASAN's
# quarantine to the slabs, where frees park (a userspace loop's shrinks
# got no CPU).
stress_run() {
	what=$1
	RUN_PARKS=0
	write_file "$PARKDIR/park" "$2" || bad "$what: echo $2 > $PARKDIR/park: $WERR"
	[ "$(cat "$PARKDIR/park")" = "$2" ] || bad "$what: park reads '$(cat "$PARKDIR/park")', want $2"
	write_file "$SLAB/shrink" 1
	obj_base=$(sum_of "$SLAB/objects")
	clear_stat_files "$SLAB"
	if ! write_file "$DBG/run" 1; then
		bad "$what: echo 1 > run: $WERR"
		dmesg_tail
		return
	fi
	st=$(timeout 300 cat "$DBG/wait")
	[ "$st" = "state: done" ] || write_file "$DBG/stop" 1
	RUN_PARKS=$(sum_of "$SLAB/park_slab")
	[ "$st" = "state: done" ] || bad "$what: wait says '$st', want 'state: done'"
	[ "$(rval error)" = 0 ] || bad "$what: results error $(rval error)"
	[ "$(rval frees)" -gt 0 ] 2>/dev/null || bad "$what: no frees"
	nshrink=$(rval shrinks)
	[ "${nshrink:-0}" -gt 0 ] || bad "$what: the module did no shrink during the run (shrinks '$nshrink', shrink_ms $STRESS_SHRINK_MS)"
	say "$what: $(rval frees) frees, $(rval ops_per_sec) ops/s, remote $(rval remote_free_pct)%, alloc_failures $(rval alloc_failures), $nshrink shrinks during the run, parked during the run: $RUN_PARKS slabs (park_slab)"
	if [ "${3:-0}" = 1 ] && [ "$RUN_PARKS" = 0 ]; then
		bad "$what: park=$2 and no slab parked during the run (park_slab 0 before the final shrink; $nshrink shrinks during it)"
	fi
	check_after_run "$what" "$obj_base"
}

# Every placement with park=1 with sheaves and without, park=2 without.
# park=2 must park in every run; park=1 only where the trylock fails, rare
# at 4 vCPUs: the park=1 runs together must park, with up to 5 more
# sheaf-less local runs.
STRESS_MS=3000
STRESS_SHRINK_MS=50
stress_load() {
	insmod "$KO" placement="$1" duration_ms=$STRESS_MS shrink_ms=$STRESS_SHRINK_MS no_sheaves="$2"
}
t_stress() {
	t_boot_park
	park1_parks=0
	park1_runs=0
	for pl in cross local balanced; do
		for v in park1 park1-nosheaves park2-nosheaves; do
			tp_begin
			name=stress-$pl-$v
			m=${v#park}
			m=${m%%-*}
			ns=0
			case $v in *-nosheaves) ns=1 ;; esac
			if ! stress_load $pl $ns; then
				bad "$name: insmod failed"
				dmesg_tail
				tp_end "$name"
				continue
			fi
			stress_run "$name" "$m" $((m - 1))
			if [ "$m" = 1 ]; then
				park1_parks=$((park1_parks + RUN_PARKS))
				park1_runs=$((park1_runs + 1))
			fi
			unload
			[ -d "$SLAB" ] && bad "$name: $SLAB still exists after rmmod"
			tp_end "$name" "$RUN_PARKS parked in the run"
		done
	done
	tp_begin
	extra=0
	while [ "$park1_parks" = 0 ] && [ $extra -lt 5 ]; do
		extra=$((extra + 1))
		stress_load local 1 || { bad "park1 extra run $extra: insmod failed"; break; }
		stress_run "stress-local-park1-extra$extra" 1
		park1_parks=$((park1_parks + RUN_PARKS))
		park1_runs=$((park1_runs + 1))
		unload
	done
	[ "$park1_parks" -gt 0 ] || bad "park=1: no slab parked in $park1_runs runs under the debug kernel"
	tp_end park1-parked "$park1_parks slabs parked by park=1 runs, $extra extra runs"
}

# A new cache starts at park=1; in park2, the caches switched at the
# start read 2.
t_boot_park() {
	tp_begin
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

# the kselftest's fuzz mode: every line of its param_fuzz.txt (fuzz-params
# does not depend on the parking mode: park2 skips it)
t_fuzz() {
	skipped fuzz-params || t_fuzz_params
	t_fuzz_park
}
t_fuzz_params() {
	tp_begin
	out=$OUT/fuzz-params-$LABEL.txt
	sh "$S/kselftest/slub_park/slub_park.sh" fuzz >"$out" 2>&1 || bad "slub_park.sh fuzz exited with $?"
	sed 's/^/#   /' "$out"
	n=$(awk '/^# [0-9]+ load cases/ { n += $2 }
		/^# [0-9]+ write, [0-9]+ combo, [0-9]+ busy cases/ { n += $2 + $4 + $6 }
		END { print n + 0 }' "$out")
	[ "$n" -gt 0 ] || bad "slub_park.sh fuzz ran no case"
	tp_end fuzz-params "$n cases, $(grep -c '^not ok' "$out") failed tests"
}

# garbage writes to park fail with EINVAL, the value kept; parked is ro
t_fuzz_park() {
	tp_begin
	insmod "$KO" || { bad "insmod failed"; tp_end fuzz-park; return; }
	n=0
	for base in 0 2 1; do
		n=$((n + 1))
		write_file "$PARKDIR/park" $base || bad "echo $base > park: $WERR"
		[ "$(cat "$PARKDIR/park")" = $base ] || bad "park reads '$(cat "$PARKDIR/park")' after writing $base"
		for v in 3 255 256 -1 abc 1x 2.5 0x3 ' ' 99999999999; do
			n=$((n + 1))
			if write_file "$PARKDIR/park" "$v"; then
				bad "echo '$v' > park succeeded, want EINVAL"
			else
				case "$WERR" in
				*"nvalid argument"*) ;;
				*) bad "echo '$v' > park: '$WERR', want Invalid argument" ;;
				esac
			fi
			now=$(cat "$PARKDIR/park")
			[ "$now" = $base ] || bad "refused write '$v' changed park: $base -> '$now'"
		done
	done
	if [ -f "$PARKDIR/parked" ]; then
		n=$((n + 1))
		write_file "$PARKDIR/parked" 0 && bad "write to read-only parked succeeded"
	fi
	unload
	tp_end fuzz-park "$n cases"
}

# rmmod 0.2 .. 1.1 s into a run, 20 times, cycling the parameters
t_rmmod() {
	tp_begin
	rmmods=0
	for i in $(seq 0 19); do
		case $((i % 3)) in 0) pl=cross ;; 1) pl=local ;; *) pl=balanced ;; esac
		b=1
		[ $((i % 2)) = 1 ] && b=16
		ns=$(((i / 3) % 2))
		if ! insmod "$KO" placement=$pl batch=$b no_sheaves=$ns duration_ms=60000; then
			bad "rmmod $i: insmod placement=$pl failed"
			dmesg_tail 3
			continue
		fi
		write_file "$PARKDIR/park" $((i % 3)) || bad "rmmod $i: echo $((i % 3)) > park: $WERR"
		write_file "$DBG/run" 1 || bad "rmmod $i: run: $WERR"
		sleep "$(awk -v i="$i" 'BEGIN { printf "%.1f", 0.2 + (i * 7 % 10) / 10 }')"
		[ "$(cat "$DBG/status")" = running ] || bad "rmmod $i: not running before rmmod"
		if timeout 120 rmmod $MOD; then
			rmmods=$((rmmods + 1))
		else
			bad "rmmod $i ($pl, batch $b, no_sheaves $ns) failed or hung"
		fi
		mod_loaded && bad "rmmod $i: module still loaded"
		[ -d "$SLAB" ] && bad "rmmod $i: $SLAB still exists"
		[ -d "$PARKDIR" ] && bad "rmmod $i: $PARKDIR still exists"
	done
	tp_end rmmod-midrun "$rmmods rmmods"
}

t_kmemleak() {
	tp_begin
	n=$(kml_scan "$OUT/kmemleak-end.txt") || bad "kmemleak scan failed"
	tp_end kmemleak "${n:-?} objects"
}

mod_loaded && rmmod $MOD
for t in kunit kselftest stress fuzz rmmod kmemleak; do
	if skipped $t; then
		say "$t: skipped on request"
	else
		"t_$t"
	fi
done
# backstop of the host's console check, by the kselftest's splat regex
tp_begin
dmesg >"$OUT/dmesg-$LABEL.txt"
load_splat_re "$S/kselftest/slub_park" || bad "no $S/kselftest/slub_park/splat.ere"
probs=$(grep -cE "$SPLAT_RE" "$OUT/dmesg-$LABEL.txt")
if [ "$probs" != 0 ]; then
	bad "$probs kernel problem line(s) in dmesg:"
	grep -m 5 -A 12 -E "$SPLAT_RE" "$OUT/dmesg-$LABEL.txt" | head -n 40 | sed 's/^/#   /'
fi
tp_end dmesg "$probs problem lines"
echo "1..$((KTAP_TESTNO - 1))"
echo "SLABPARK-DEBUG-GATE label=$LABEL pass=$KTAP_CNT_PASS fail=$KTAP_CNT_FAIL failed=${FAILED:-none} skip=$KTAP_CNT_SKIP"
[ "$KTAP_CNT_FAIL" = 0 ]
