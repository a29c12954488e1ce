#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/check/kunit-mutants.sh: run slub_kunit's slab parking cases
# (the kernel was booted with kunit.filter_glob=slub_test.test_park_*) on
# the break kernel (tools/kernel/bench-patches/break-parking.patch) booted with
# slub_break_parking=MODE, and check that exactly the cases that test what
# MODE breaks fail.  Runs under busybox sh as /slabpark/run.sh.
#
# Usage: kunit-mutants.sh MODE      (0, or one of the bits 1 2 4 8 16 32 64)

set -u
MODE=${1:?usage: kunit-mutants.sh MODE}
# shellcheck source=tools/guest/guest-lib.sh
. /slabpark/tools/guest/guest-lib.sh
RES=/sys/kernel/debug/kunit/slub_test/results
PARAM=/sys/module/kernel/parameters/slub_break_parking

ALL="test_park_full_slab test_park_frees_keep_parked test_park_alloc_unparks
test_park_bulk_alloc_unparks test_park_empty_min_partial test_park_shrink test_park_destroy
test_park_leak_destroy test_park_work_unparks test_park_empty_deferred
test_park_empty_deferred_far test_park_mode_off test_park_validate"
case $MODE in
0) WANT_FAIL= ;;				# the series as it is
1) WANT_FAIL=$ALL ;;				# never park
2) WANT_FAIL="test_park_alloc_unparks test_park_bulk_alloc_unparks test_park_empty_min_partial" ;;	# no unpark on allocation
4) WANT_FAIL="test_park_empty_min_partial" ;;	# empty slabs kept (v1's leak)
8) WANT_FAIL="test_park_shrink" ;;		# no unpark in shrink
16) WANT_FAIL="test_park_destroy test_park_leak_destroy" ;;	# none in shutdown
32) WANT_FAIL="test_park_mode_off" ;;		# none on switching to park=0
64) WANT_FAIL="test_park_empty_deferred test_park_empty_deferred_far" ;;	# deferred empty slabs kept
*) echo "kunit-mutants.sh: unknown mode '$MODE'" >&2; exit 2 ;;
esac

echo "TAP version 13"
echo "1..1"
bad=0
if [ "$(cat "$PARAM" 2>/dev/null)" != "$MODE" ]; then
	say "slub_break_parking is '$(cat "$PARAM" 2>/dev/null)', want $MODE (not the break kernel?)"
	echo "not ok 1 mode-$MODE"
	exit 1
fi
if [ -f "$S/kunit/kunit.ko" ] && [ ! -d /sys/module/kunit ]; then
	# a modular kunit takes its filter as a module parameter
	insmod "$S/kunit/kunit.ko" filter_glob='slub_test.test_park_*'
fi
insmod "$S/kunit/slub_kunit.ko" || { say "insmod slub_kunit.ko failed"; bad=1; }
[ -r $RES ] || { say "no $RES"; echo "not ok 1 mode-$MODE"; exit 1; }
cp $RES "$OUT/kunit-mode-$MODE.ktap"
ran=$(grep -cE '^[ 	]+(not )?ok [0-9]+ test_' $RES)
other=$(grep -E '^[ 	]+(not )?ok [0-9]+ test_' $RES | grep -vc ' test_park_')
failed=$(sed -n 's/^[ 	]*not ok [0-9]* \(test_[a-z_]*\).*/\1/p' $RES | tr '\n' ' ')
skipped=$(grep -cE '^[ 	]+ok [0-9]+ test_.*# *SKIP' $RES)
say "slub_break_parking=$MODE: $ran cases ran, $skipped skipped, failed: ${failed:-none}"
[ "$ran" = "$KUNIT_PARK_CASES" ] || { say "want the $KUNIT_PARK_CASES parking cases, $ran ran"; bad=1; }
[ "$other" = 0 ] || { say "$other cases other than test_park_* ran (filter_glob?)"; bad=1; }
[ "$skipped" = 0 ] || { say "$skipped cases skipped"; bad=1; }
for c in $ALL; do
	case " $(echo "$WANT_FAIL" | tr '\n' ' ') " in *" $c "*) want=fail ;; *) want=pass ;; esac
	case " $failed " in *" $c "*) got=fail ;; *) got=pass ;; esac
	if [ "$want" != "$got" ]; then
		say "$c: want $want, got $got"
		bad=1
	fi
done
if [ "$bad" = 0 ]; then
	echo "ok 1 mode-$MODE # failed as expected: ${failed:-none}"
else
	grep -B2 -A6 'EXPECTATION\|ASSERTION' $RES | head -n 60 | sed 's/^/#   /'
	echo "not ok 1 mode-$MODE"
fi
[ "$bad" = 0 ]
