#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of 'make check' (runs under busybox sh as /slabpark/run.sh).
#
# Usage: check.sh KERNEL SUITE...
#   KERNEL           patched, base, rt or uma: the kselftest outcome to
#                    expect (ksft_expect in lib.sh)
#   kselftest        run_kselftest.sh -c slub_park (smoke mode)
#   slabstat-window  tools/guest-window.sh: slabstat per-node split on a cross run
#   race-widen       tools/guest/race-widen.sh (widen kernel only)
#   bootparam        booted with slab_park=7: refused, every cache at 1
#   kunit            slub_kunit (staged as kunit/slub_kunit.ko): every case
#                    passes, the 12 slab parking cases and the slow
#                    kmalloc_nolock() kprobe case among them; only the perf
#                    event case may skip (TCG has no hardware PMU)
#
# Each suite prints KTAP; the exit status is non-zero if any suite failed.

set -u
# shellcheck source=tools/guest/lib.sh
. "$(dirname "$0")/tools/guest/lib.sh"
rc=0

bad() { say "FAIL: $*"; rc=1; }

# Every suite must pass: a SKIP (exit 4) of a whole suite is a failure here,
# as every suite's prerequisites are part of the guest.
run_suite() {
	name=$1
	shift
	echo "# suite: $name"
	"$@"
	src=$?
	echo "SLABPARK-SUITE $name rc=$src"
	[ "$src" = 0 ] || bad "suite $name exited with $src"
}

# The guest is booted with slab_park=7 (tools/check.sh): the kernel must
# refuse it with a warning that names it and keep the default, 1.
# shellcheck disable=SC2317 # called through run_suite
check_bootparam() {
	grep -q 'slab_park=7' /proc/cmdline || { say "FAIL: not booted with slab_park=7"; return 1; }
	if ! dmesg | grep -q 'invalid slab_park=7'; then
		say "FAIL: no warning about slab_park=7 in dmesg"
		return 1
	fi
	dmesg | grep 'slab_park' | sed 's/^/# dmesg: /'
	n=0
	for f in /sys/kernel/slab/*/park; do
		[ -L "${f%/park}" ] && continue
		[ "$(cat "$f")" = 1 ] || { say "FAIL: $f is $(cat "$f"), want the default 1"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { say "FAIL: no /sys/kernel/slab/*/park"; return 1; }
	say "slab_park=7 refused; park is 1 in all $n caches"
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
	kunit_results "$KUNIT_RES"
	say "slub_kunit in $(($(date +%s) - t0)) s: $KUNIT_PASS passed ($KUNIT_PARK slab parking cases), $KUNIT_FAIL failed, $KUNIT_SKIP skipped"
	ok=0
	[ "$KUNIT_FAIL" = 0 ] || { say "FAIL: $KUNIT_FAIL case(s) failed"; ok=1; }
	[ "$KUNIT_SUITE" = ok ] || { say "FAIL: suite line '$KUNIT_SUITE'"; ok=1; }
	[ "$KUNIT_PARK" = "$KUNIT_PARK_CASES" ] ||
		{ say "FAIL: $KUNIT_PARK slab parking cases passed, want $KUNIT_PARK_CASES"; ok=1; }
	grep -q '^[ 	]*ok [0-9]* test_kmalloc_nolock_and_friends_kprobe$' "$KUNIT_RES" ||
		{ say "FAIL: the kmalloc_nolock() kprobe case did not run and pass"; ok=1; }
	skips=$(sed -n 's/^[ 	]*ok [0-9]* \(test_[a-z_]*\) *# *SKIP.*/\1/p' "$KUNIT_RES" |
		grep -v '^test_kmalloc_nolock_and_friends_perf$' | tr '\n' ' ')
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
	kselftest)
		# streamed, and kept for ksft_expect
		run_suite kselftest sh -c "set -o pipefail; cd $S/kselftest && ./run_kselftest.sh -c slub_park 2>&1 | tee $OUT/kselftest.txt"
		ksft_expect "$OUT/kselftest.txt" "$kernel"
		;;
	bootparam)
		run_suite bootparam check_bootparam
		;;
	kunit)
		run_suite kunit check_kunit
		;;
	race-widen)
		run_suite race-widen sh "$S/tools/guest/race-widen.sh"
		;;
	slabstat-window)
		run_suite slabstat-window sh "$S/tools/guest-window.sh"
		;;
	*)
		echo "check.sh: unknown suite '$suite'" >&2
		rc=2
		;;
	esac
done
exit $rc
