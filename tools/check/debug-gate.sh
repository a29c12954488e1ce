#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The robustness gate: boot the patched kernel built with
# tools/kernel/configs/debug.config (lockdep, KASAN, DEBUG_VM/LIST/OBJECTS,
# kmemleak, slub_kunit) twice, once with the default parking mode and once
# with every cache switched to park=2 right after boot (the guest script
# writes 2 to each /sys/kernel/debug/slab/<cache>/park: the series has no
# boot parameter), and run tools/guest/guest-debug-gate.sh in each: slub_kunit,
# the kselftest smoke mode, the stress module in every placement with
# park=1 and 2, parameter fuzz, 20 x rmmod mid-run, a kmemleak scan.
# The guest runner fails on any lockdep/KASAN/BUG/WARNING/ODEBUG/... line.
#
# Usage: tools/check/debug-gate.sh [--kernel BUILD_DIR] [--variant patched|base|break]
#                            [--boots default,park2] [--skip GROUPS]
#                            [--kunit-slow] [--full] [--timeout S] [--out DIR]
#                            [--append ARGS]
#
#   --kernel DIR     use this kernel build (debug config) instead of building
#   --variant V      build tools/kernel/build-kernel.sh --variant V (default patched;
#                    also base, or break: parking broken on purpose)
#   --boots LIST     which boots: default (every cache at its default,
#                    park=1), park2 (every cache at park=2 from the start of
#                    the guest script; caches created later, the module's and
#                    slub_kunit's, start at 1)
#   --skip GROUPS    comma-separated guest groups not to run: kunit,
#                    kselftest, stress, fuzz, rmmod, kmemleak
#   --kunit-slow     also run slub_kunit's slow cases (the kmalloc_nolock
#                    kprobe case: more than 300 s under TCG + KASAN; they
#                    are reported as skipped otherwise)
#   --full           also run the kselftest, the module/debugfs parameter
#                    fuzz and the rmmods in the park2 boot (by
#                    default that boot runs slub_kunit, the stress runs,
#                    the park fuzz and kmemleak)
#   --timeout S      per boot (default 3000; GUEST_TIMEOUT=)
#   --out DIR        results (default $SLABPARK_CACHE/runs/debug-gate-<boot>)
#   --append ARGS    more kernel command line arguments for every boot
#                    (e.g. slub_break_parking=1 with the break kernel of
#                    tools/kernel/build-kernel.sh --variant break --config debug,
#                    to see the gate fail)
#
# KSRC=/path/to/tree builds and tests that tree as is (as build-kernel.sh
# does), e.g. a tree with a deliberate bug to see the gate fail.
# Output: KTAP, one test point per boot (its subtest: the guest's points),
# then a summary line with counts.
# Exit status: 0 when every boot passed.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"

usage() {
	sed -n '/^# Usage:/,/^# Exit status/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

kdir=
variant=patched
boots=default,park2
skip=
slow=0
full=0
tmo=${GUEST_TIMEOUT:-3000}
outbase=
more_append=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) [ $# -ge 2 ] || usage; kdir=$2; shift 2 ;;
	--variant) [ $# -ge 2 ] || usage; variant=$2; shift 2 ;;
	--boots) [ $# -ge 2 ] || usage; boots=$2; shift 2 ;;
	--skip) [ $# -ge 2 ] || usage; skip=$2; shift 2 ;;
	--kunit-slow) slow=1; shift ;;
	--full) full=1; shift ;;
	--timeout) [ $# -ge 2 ] || usage; tmo=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage; outbase=$2; shift 2 ;;
	--append) [ $# -ge 2 ] || usage; more_append=$2; shift 2 ;;
	-h|--help) usage ;;
	*) usage ;;
	esac
done
case "$tmo" in ''|*[!0-9]*) sp_die "--timeout: not a number: $tmo" ;; esac
IFS=, read -r -a bootlist <<<"$boots"
for b in "${bootlist[@]}"; do
	case "$b" in default|park2) ;; *) sp_die "--boots: unknown boot '$b' (default, park2)" ;; esac
done
IFS=, read -r -a skiplist <<<"$skip"
[ "$slow" = 1 ] && skiplist+=(kunit-slow)
for g in "${skiplist[@]}"; do
	case "$g" in kunit|kselftest|stress|fuzz|rmmod|kmemleak|kunit-slow) ;;
	*) sp_die "--skip: unknown group '$g'" ;;
	esac
done

if [ -z "$kdir" ]; then
	t0=$(date +%s)
	kdir=$(tools/kernel/build-kernel.sh --variant "$variant" --config debug)
	sp_stage "debug kernel ready in $(( $(date +%s) - t0 ))s: $kdir"
fi
kdir=$(cd "$kdir" && pwd)
[ -f "$kdir/arch/x86/boot/bzImage" ] || sp_die "$kdir has no bzImage"
grep -q '^CONFIG_DEBUG_KMEMLEAK=y' "$kdir/.config" ||
	sp_die "$kdir is not a debug kernel (no CONFIG_DEBUG_KMEMLEAK; build it with --config debug)"

stage=$(tools/vm/stage-guest.sh "$kdir")
[ -f "$stage/kunit/slub_kunit.ko" ] ||
	sp_die "no slub_kunit.ko in $kdir: the debug kernel needs CONFIG_SLUB_KUNIT_TEST=m"
# every entry of the stage (slub_kunit under kunit/) as /slabpark/<name>
stages=()
for e in "$stage"/*; do
	stages+=(--stage "$e:$(basename "$e")")
done
sp_stage "staged $stage"

echo "TAP version 13"
echo "1..${#bootlist[@]}"
n=0 failed=0
summary=()
for b in "${bootlist[@]}"; do
	n=$((n + 1))
	# (run-guest.sh boots with loglevel=5 after quiet: WARN splats and
	# lockdep reports, KERN_WARNING, reach the console)
	append=()
	[ -z "$more_append" ] || append=(--append "$more_append")
	extra=()
	if [ "$b" = park2 ]; then
		# The guest script switches every cache to park=2 first (its
		# label park2).  The kselftest, the module and debugfs parameter
		# fuzz and the rmmods do not depend on the parking mode: once per
		# gate is enough (time budget of make check).  This boot runs
		# slub_kunit, the stress runs, the park fuzz and kmemleak with
		# every cache of the system parking on each transition.
		[ "$full" = 1 ] || extra=(kselftest fuzz-params rmmod)
	fi
	out=${outbase:+$outbase/$b}
	out=${out:-$SLABPARK_CACHE/runs/debug-gate-$b}
	t0=$(date +%s)
	# the boot's guest output as the subtest of its test point
	echo "    KTAP version 1"
	echo "    # Subtest: debug-gate-$b"
	set +e
	tools/vm/run-guest.sh --kernel "$kdir" "${stages[@]}" \
		"${append[@]}" --timeout "$tmo" --out "$out" \
		-- tools/guest/guest-debug-gate.sh "$b" "${skiplist[@]}" "${extra[@]}" 2>&1 | sed -u 's/^/    /'
	rc=${PIPESTATUS[0]}
	set -e
	dt=$(( $(date +%s) - t0 ))
	line=$(sed -n 's/^SLABPARK-DEBUG-GATE //p' "$out/console.txt" 2>/dev/null | tail -n 1)
	if [ "$rc" = 0 ] && [ -n "$line" ]; then
		echo "ok $n debug-gate-$b # ${dt}s $line"
	else
		echo "not ok $n debug-gate-$b # ${dt}s, run-guest status $rc, ${line:-no summary}; console: $out/console.log"
		failed=$((failed + 1))
	fi
	summary+=("$b: ${line:-no summary (status $rc)}")
done

echo "# debug gate summary ($kdir):"
printf '#   %s\n' "${summary[@]}"
echo "debug-gate: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
