#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of 'make check' (runs under busybox sh as /slabpark/run.sh).
#
# Usage: check.sh KERNEL SUITE...
#   KERNEL           patched or base: the kselftest outcome to expect
#                    (ksft_expect in lib.sh)
#   kselftest        run_kselftest.sh -c slub_park (smoke mode)
#   slabstat-window  tools/guest-window.sh: slabstat per-node split on a cross run
#   race-widen       tools/guest/race-widen.sh (widen kernel only)
#   bootparam        booted with slab_park=7: refused, every cache at 1
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

[ $# -gt 1 ] || { echo "usage: check.sh patched|base SUITE..." >&2; exit 2; }
kernel=$1
shift
case "$kernel" in
patched|base) ;;
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
