#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tools/check/kunit-mutants.sh: run slub_kunit's slab parking
# cases on the break kernel (tools/kernel/bench-patches/break-parking.patch)
# booted with slub_break_parking=MODE, and check that exactly the cases that
# test what MODE breaks fail, and that exactly the cases the mode runs ran.
# Runs under busybox sh as /slabpark/run.sh.
#
# Usage: guest-kunit-mutants.sh MODE      (0, or one of the bits 1 2 4 8 16 32 64)

set -u
MODE=${1:?usage: guest-kunit-mutants.sh MODE}
# shellcheck source=tools/guest/guest-lib.sh
. /slabpark/tools/guest/guest-lib.sh
RES=/sys/kernel/debug/kunit/slub_test/results
PARAM=/sys/module/kernel/parameters/slub_break_parking
GLOB_PARAM=/sys/module/kunit/parameters/filter_glob

# The parking cases of slub_kunit (patch 6 of the series), in suite order
ALL="test_park_full_slab test_park_frees_keep_parked test_park_alloc_unparks
test_park_bulk_alloc_unparks test_park_empty_min_partial
test_park_counts_for_min_partial test_park_shrink test_park_destroy
test_park_leak_destroy test_park_work_unparks test_park_uncontended
test_park_free_under_timer_lock"

# The expectation of each mode: WANT_FAIL, the cases that must fail (all
# others must pass); NOT_RUN, the cases the mode leaves out, and GLOB, the
# kunit filter that leaves them out (checked: the cases that ran must be
# ALL less NOT_RUN).
GLOB='slub_test.test_park_*'
NOT_RUN=
case $MODE in
0)	# the series as it is
	WANT_FAIL= ;;
1)	# never park: every case that parks (test_park_uncontended parks nothing anyway).
	# Not run: the free under the timer base lock, which without parking
	# takes the list_lock there, a spinlock_t under a raw spinlock:
	# lockdep's "Invalid wait context" (PROVE_RAW_LOCK_NESTING) would
	# fail the boot. Glob: see mode 64.
	WANT_FAIL="test_park_full_slab test_park_frees_keep_parked
test_park_alloc_unparks test_park_bulk_alloc_unparks test_park_empty_min_partial
test_park_counts_for_min_partial test_park_shrink test_park_destroy
test_park_leak_destroy test_park_work_unparks"
	NOT_RUN="test_park_free_under_timer_lock"
	GLOB='slub_test.test_park_*[!c]?' ;;
2)	# allocations do not unpark
	WANT_FAIL="test_park_alloc_unparks test_park_bulk_alloc_unparks
test_park_empty_min_partial test_park_counts_for_min_partial" ;;
4)	# unparking keeps every empty slab (v1's leak)
	WANT_FAIL="test_park_empty_min_partial" ;;
8)	# kmem_cache_shrink() does not unpark
	WANT_FAIL="test_park_shrink" ;;
16)	# cache shutdown does not unpark
	WANT_FAIL="test_park_destroy test_park_leak_destroy" ;;
32)	# nr_parked not counted for min_partial
	WANT_FAIL="test_park_counts_for_min_partial" ;;
64)	# the free path arms the delayed work directly, as v5 did: a park with
	# irqs off leaves it pending. Not run: the free under the timer base
	# lock, which would deadlock on that lock and hang the guest. The
	# glob takes every case whose next to last character is not 'c':
	# all but ..._lock.
	WANT_FAIL="test_park_work_unparks"
	NOT_RUN="test_park_free_under_timer_lock"
	GLOB='slub_test.test_park_*[!c]?' ;;
*) echo "guest-kunit-mutants.sh: unknown mode '$MODE'" >&2; exit 2 ;;
esac

# in_list WORD LIST: WORD is one of the words of LIST
in_list() {
	case " $(echo "$2" | tr '\n' ' ') " in *" $1 "*) return 0 ;; esac
	return 1
}

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
	insmod "$S/kunit/kunit.ko" filter_glob="$GLOB"
else
	# no newline: a charp parameter keeps it, and the glob would match
	# no case
	WERR=$( { printf '%s' "$GLOB" > "$GLOB_PARAM"; } 2>&1 )
	if [ "$(cat "$GLOB_PARAM" 2>/dev/null)" != "$GLOB" ]; then
		say "cannot set the kunit filter to '$GLOB' ($WERR): it is '$(cat "$GLOB_PARAM" 2>/dev/null)'"
		echo "not ok 1 mode-$MODE"
		exit 1
	fi
fi
say "kunit filter_glob: $GLOB"
insmod "$S/kunit/slub_kunit.ko" || { say "insmod slub_kunit.ko failed"; bad=1; }
[ -r $RES ] || { say "no $RES"; echo "not ok 1 mode-$MODE"; exit 1; }
cp $RES "$OUT/kunit-mode-$MODE.ktap"
cases=$(sed -n 's/^[ 	]*\(not \)\{0,1\}ok [0-9]* \(test_[a-z_]*\).*/\2/p' $RES | tr '\n' ' ')
failed=$(sed -n 's/^[ 	]*not ok [0-9]* \(test_[a-z_]*\).*/\1/p' $RES | tr '\n' ' ')
skipped=$(grep -cE '^[ 	]+ok [0-9]+ test_.*# *SKIP' $RES)
say "slub_break_parking=$MODE: ran ${cases:-none}; $skipped skipped; failed: ${failed:-none}"
[ "$skipped" = 0 ] || { say "$skipped cases skipped"; bad=1; }
for c in $cases; do
	in_list "$c" "$ALL" || { say "$c ran: not a parking case (filter_glob?)"; bad=1; }
done
for c in $ALL; do
	if in_list "$c" "$NOT_RUN"; then
		if in_list "$c" "$cases"; then
			say "$c: ran, but mode $MODE leaves it out"
			bad=1
		fi
		continue
	fi
	in_list "$c" "$cases" || { say "$c: did not run"; bad=1; continue; }
	if in_list "$c" "$WANT_FAIL"; then want=fail; else want=pass; fi
	if in_list "$c" "$failed"; then got=fail; else got=pass; fi
	if [ "$want" != "$got" ]; then
		say "$c: want $want, got $got"
		bad=1
	fi
done
if [ "$bad" = 0 ]; then
	echo "ok 1 mode-$MODE # failed as expected: ${failed:-none}${NOT_RUN:+; not run: $NOT_RUN}"
else
	grep -B2 -A6 'EXPECTATION\|ASSERTION' $RES | head -n 60 | sed 's/^/#   /'
	echo "not ok 1 mode-$MODE"
fi
[ "$bad" = 0 ]
