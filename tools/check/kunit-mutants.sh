#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Show that slub_kunit's slab parking cases (patch 6 of the series) fail
# when parking is broken, each for what it tests: build the debug kernel
# with the bench-only tools/kernel/bench-patches/break-parking.patch (--variant break;
# never in patches/) and boot it once per slub_break_parking= mode; the
# guest (tools/guest/guest-kunit-mutants.sh, which holds the expectations as
# data next to each mode) runs the 12 parking cases:
#
#   0  the series as it is: every parking case passes
#   1  never park: every case but test_park_uncontended fails;
#      test_park_free_under_timer_lock is not run (the free would take
#      the list_lock under the timer base lock: a lockdep splat)
#   2  the allocation paths do not unpark: test_park_alloc_unparks,
#      test_park_bulk_alloc_unparks, test_park_empty_min_partial and
#      test_park_counts_for_min_partial fail, and only they
#   4  unparking keeps every empty slab (the leak of the first series):
#      test_park_empty_min_partial fails, and only it
#   8  kmem_cache_shrink() does not unpark: test_park_shrink fails
#  16  cache shutdown does not unpark: test_park_destroy and
#      test_park_leak_destroy fail
#  32  nr_parked is not counted for min_partial:
#      test_park_counts_for_min_partial fails
#  64  the free path arms the unpark work directly, as v5 did:
#      test_park_work_unparks fails; test_park_free_under_timer_lock is
#      not run (it would deadlock on the timer base lock and hang the guest)
#
# Usage: tools/check/kunit-mutants.sh [--kernel BUILD_DIR] [--modes 0,1,2,4,8,16,32,64]
# Output: KTAP, one test point per mode (its subtest: the guest's).  Exit status 0 when every mode
# gave exactly the expected failures.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"

usage() {
	sed -n '/^# Usage:/,/^# Output/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

kdir=
modes=0,1,2,4,8,16,32,64
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) [ $# -ge 2 ] || usage; kdir=$2; shift 2 ;;
	--modes) [ $# -ge 2 ] || usage; modes=$2; shift 2 ;;
	*) usage ;;
	esac
done
IFS=, read -r -a modelist <<<"$modes"
[ ${#modelist[@]} -gt 0 ] || sp_die "--modes: no mode given"
for m in "${modelist[@]}"; do
	case "$m" in 0|1|2|4|8|16|32|64) ;; *) sp_die "--modes: unknown mode '$m' (0 1 2 4 8 16 32 64)" ;; esac
done

[ -n "$kdir" ] || kdir=$(tools/kernel/build-kernel.sh --variant break --config debug)
stage=$(tools/vm/stage-guest.sh "$kdir")
[ -f "$stage/kunit/slub_kunit.ko" ] ||
	sp_die "no slub_kunit.ko in $kdir: the kernel needs CONFIG_SLUB_KUNIT_TEST=m (--config debug)"

echo "TAP version 13"
echo "1..${#modelist[@]}"
n=0 failed=0
for m in "${modelist[@]}"; do
	n=$((n + 1))
	out=$SLABPARK_CACHE/runs/kunit-mutant-$m
	echo "    KTAP version 1"
	echo "    # Subtest: break-mode-$m"
	set +e
	tools/vm/run-guest.sh --kernel "$kdir" --stage "$stage/tools:tools" --stage "$stage/kunit:kunit" \
		--stage "$stage/kselftest/slub_park/slub_park_lib.sh:kselftest/slub_park/slub_park_lib.sh" \
		--append "slub_break_parking=$m kunit.filter_glob=slub_test.test_park_*" \
		--timeout "${GUEST_TIMEOUT:-900}" --out "$out" -- tools/guest/guest-kunit-mutants.sh "$m" 2>&1 | sed -u 's/^/    /'
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" = 0 ]; then
		echo "ok $n break-mode-$m"
	else
		echo "not ok $n break-mode-$m # run-guest status $rc, console: $out/console.log"
		failed=$((failed + 1))
	fi
done
echo "kunit-mutants: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
