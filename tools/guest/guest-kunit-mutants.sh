#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make check-full's kunit-mutants, as /slabpark/run.sh:
#   guest-kunit-mutants.sh MODE
# slub_kunit's parking cases (the host's kunit.filter_glob) on the break
# kernel booted with slub_break_parking=MODE; the host judges which failed
# (slabpark.guest_judge.mutant).

set -u
MODE=${1:?usage: guest-kunit-mutants.sh MODE}
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

# no plan: the host adds its judgment, mode-MODE-host, beside this subtest
tp_sub "mode-$MODE"
got=$(cat "$SYS/module/kernel/parameters/slub_break_parking" 2>/dev/null)
[ "$got" = "$MODE" ] || bad "slub_break_parking is '$got', want $MODE (not the break kernel?)"
# its results as diagnostics: kunit_parser would count the cases MODE fails on purpose
KUNIT_COMMENTED=1
kunit_run
if [ "$CASE_BAD" = 0 ]; then
	echo "ok 1 mode-$MODE"
else
	echo "not ok 1 mode-$MODE"
	exit 1
fi
