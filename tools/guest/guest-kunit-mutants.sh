#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make check-full's step kunit-mutants: run slub_kunit's slab parking
# cases on the break kernel (tools/kernel/bench-patches/break-parking.patch)
# booted with slub_break_parking=MODE, and check that exactly the cases that
# test what MODE breaks fail, and that exactly the cases the mode runs ran.
# Runs under busybox sh as /slabpark/run.sh.
#
# Usage: guest-kunit-mutants.sh MODE      (0, or one of the bits 1 2 4 8 16 32 64)

set -u
MODE=${1:?usage: guest-kunit-mutants.sh MODE}
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"
PARAM=$TOPO_SYS/module/kernel/parameters/slub_break_parking
GLOB_PARAM=$TOPO_SYS/module/kunit/parameters/filter_glob

# The expectation of each mode is data next to each case, in
# KUNIT_PARK_TABLE (guest-lib.sh): WANT_FAIL, the cases that must fail
# (all others must pass); NOT_RUN, the cases the mode leaves out, and GLOB,
# the kunit filter that leaves them out: the one case ever left out is
# test_park_free_under_timer_lock, whose next to last character is 'c'.
ALL=$(echo "$KUNIT_PARK_TABLE" | awk 'NF { printf "%s ", $1 }')
WANT_FAIL=$(kunit_park_with 2 "$MODE")
# a mode is one of break-parking.patch's bits if some case breaks under it
[ "$MODE" = 0 ] || [ -n "$WANT_FAIL" ] ||
	{ echo "guest-kunit-mutants.sh: unknown mode '$MODE'" >&2; exit 2; }
NOT_RUN=$(kunit_park_with 3 "$MODE")
GLOB='slub_test.test_park_*'
[ -z "$NOT_RUN" ] || GLOB='slub_test.test_park_*[!c]?'

echo "TAP version 13"
echo "1..1"
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
insmod "$S/kunit/slub_kunit.ko" || bad "insmod slub_kunit.ko failed"
[ -r "$KUNIT_RES" ] || { say "no $KUNIT_RES"; echo "not ok 1 mode-$MODE"; exit 1; }
cp "$KUNIT_RES" "$OUT/kunit-mode-$MODE.ktap"
cases=$(sed -n 's/^[ 	]*\(not \)\{0,1\}ok [0-9]* \(test_[a-z_]*\).*/\2/p' "$KUNIT_RES" | tr '\n' ' ')
failed=$(sed -n 's/^[ 	]*not ok [0-9]* \(test_[a-z_]*\).*/\1/p' "$KUNIT_RES" | tr '\n' ' ')
skipped=$(grep -cE '^[ 	]+ok [0-9]+ test_.*# *SKIP' "$KUNIT_RES")
say "slub_break_parking=$MODE: ran ${cases:-none}; $skipped skipped; failed: ${failed:-none}"
[ "$skipped" = 0 ] || bad "$skipped cases skipped"
for c in $cases; do
	topo_has "$c" "$ALL" || bad "$c ran: not a parking case (filter_glob?)"
done
for c in $ALL; do
	if topo_has "$c" "$NOT_RUN"; then
		topo_has "$c" "$cases" && bad "$c: ran, but mode $MODE leaves it out"
		continue
	fi
	topo_has "$c" "$cases" || { bad "$c: did not run"; continue; }
	if topo_has "$c" "$WANT_FAIL"; then want=fail; else want=pass; fi
	if topo_has "$c" "$failed"; then got=fail; else got=pass; fi
	[ "$want" = "$got" ] || bad "$c: want $want, got $got"
done
if [ "$CASE_BAD" = 0 ]; then
	echo "ok 1 mode-$MODE # failed as expected: ${failed:-none}${NOT_RUN:+; not run: $NOT_RUN}"
else
	grep -B2 -A6 'EXPECTATION\|ASSERTION' "$KUNIT_RES" | head -n 60 | sed 's/^/#   /'
	echo "not ok 1 mode-$MODE"
fi
[ "$CASE_BAD" = 0 ]
