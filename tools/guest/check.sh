#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of 'make check' (runs under busybox sh as /slabpark/run.sh).
#
# Usage: check.sh SUITE...
#   kselftest        run_kselftest.sh -c slub_park (smoke mode)
#   slabstat-window  tools/guest-window.sh: slabstat per-node split on a cross run
#   race-widen       tools/guest/race-widen.sh (widen kernel only)
#
# Each suite prints KTAP; the exit status is non-zero if any suite failed.

set -u
S=/slabpark
rc=0

run_suite() {
	name=$1
	shift
	echo "# suite: $name"
	"$@"
	src=$?
	echo "SLABPARK-SUITE $name rc=$src"
	# 4 is the kselftest SKIP code: a skipped suite is not a failure.
	if [ "$src" != 0 ] && [ "$src" != 4 ]; then
		rc=1
	fi
}

[ $# -gt 0 ] || { echo "usage: check.sh SUITE..." >&2; exit 2; }
for suite in "$@"; do
	case "$suite" in
	kselftest)
		run_suite kselftest sh -c "cd $S/kselftest && ./run_kselftest.sh -c slub_park"
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
