#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-lock.sh: lock contention over a window of SECONDS, measured with
# the least perturbing method available, optionally with the counters of
# the given caches over the same window (perf's workload is
# tools/guest/slab-dump.sh, the sleep, slab-dump.sh again; 'python3 -m
# slabpark slabstat split' of the two dumps).
#
#   tools/report/perf-lock.sh [-t SECONDS] [-E ENTRIES] [--record] [--out DIR] [CACHE...]
#
# 1. 'perf lock con -abl -E 5 -- sleep SECONDS': BPF aggregation in the
#    kernel, no per-event records, low perturbation.
# 2. Fallback when BPF is unavailable (perf built without BUILD_BPF_SKEL,
#    no BTF, not root, ...) or with --record: 'perf lock record -a' and
#    'perf lock contention'.  This writes every lock event to perf.data
#    and perturbs the workload: in the nfs_page report throughput fell
#    from ~45 to ~25 GB/s during 'perf lock record', and the counters
#    changed with it.  The script says which mode it used.
#
# Environment: PERF (perf binary).
# Exit status: 0 ok, 1 error, 2 usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PERF=${PERF:-perf}
seconds=10
entries=5
force_record=0
outdir=

usage() {
	cat <<USAGE
usage: $0 [-t SECONDS] [-E ENTRIES] [--record] [--out DIR] [CACHE...]
  -t SECONDS   length of the window (default 10)
  -E ENTRIES   lock entries to show (default 5)
  --record     use 'perf lock record' even when BPF works (perturbs!)
  --out DIR    keep perf output (and perf.data in record mode) in DIR
  CACHE...     also the counters of these caches over the window: their
               dumps before and after it (slab-before.dump, slab-after.dump
               in DIR) and 'slabstat split' of the two (needs python3)
USAGE
}

usage_error() {
	echo "$0: $*" >&2
	usage >&2
	exit 2
}

die() {
	echo "perf-lock: error: $*" >&2
	exit 1
}

caches=()
while [ $# -gt 0 ]; do
	case $1 in
	-t)
		[ $# -ge 2 ] || usage_error "-t needs SECONDS"
		seconds=$2
		shift 2
		;;
	-E)
		[ $# -ge 2 ] || usage_error "-E needs a number"
		entries=$2
		shift 2
		;;
	--record)
		force_record=1
		shift
		;;
	--out)
		[ $# -ge 2 ] || usage_error "--out needs a directory"
		outdir=$2
		shift 2
		;;
	-h|--help)
		usage
		exit 0
		;;
	--)
		shift
		caches+=("$@")
		break
		;;
	-*)
		usage_error "unknown option '$1'"
		;;
	*)
		caches+=("$1")
		shift
		;;
	esac
done

if [[ ! $seconds =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ $seconds =~ ^0+([.]0+)?$ ]]; then
	usage_error "-t needs a positive number of seconds, not '$seconds'"
fi
[[ $entries =~ ^[1-9][0-9]*$ ]] || usage_error "-E needs a positive integer, not '$entries'"

if ! command -v "$PERF" >/dev/null 2>&1; then
	die "'$PERF' not found; install perf (Debian package linux-perf: apt-get install linux-perf)"
fi

if [ ${#caches[@]} -gt 0 ] && ! command -v python3 >/dev/null 2>&1; then
	die "the counters of ${caches[*]} need python3 (python3 -m slabpark slabstat split)"
fi
slabstat() { PYTHONPATH=$HERE/.. python3 -m slabpark slabstat "$@"; }

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	work=$outdir
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi

# perf's workload: the window, between the caches' two dumps if any
window=(sleep "$seconds")
if [ ${#caches[@]} -gt 0 ]; then
	# a wrong cache name or a kernel without statistics: an error now
	{ sh "$HERE/../guest/slab-dump.sh" "${caches[@]}" >"$work/slab-check.dump" &&
		slabstat snap "$work/slab-check.dump" >/dev/null; } ||
		die "cannot read the counters of ${caches[*]} (see above)"
	# shellcheck disable=SC2016 # expanded by the sh -c
	window=(sh -c 'sh "$0" "$@" >"$SP_WORK/slab-before.dump" || exit 1; sleep "$SP_SECONDS"; sh "$0" "$@" >"$SP_WORK/slab-after.dump"'
		"$HERE/../guest/slab-dump.sh" "${caches[@]}")
fi
export SP_WORK=$work SP_SECONDS=$seconds

mode=bpf
reason=
if [ "$force_record" = 1 ]; then
	mode=record
	reason="--record given"
elif ! "$PERF" lock con -ab -E 1 -- true >"$work/bpf-probe.log" 2>&1; then
	mode=record
	reason=$(grep -m1 -v '^[[:space:]]*$' "$work/bpf-probe.log" || echo "perf lock con -b failed")
	reason="BPF unavailable: ${reason#"${reason%%[![:space:]]*}"}"
fi

if [ "$mode" = bpf ]; then
	echo "perf-lock: mode: BPF ('$PERF lock con -abl -E $entries', in-kernel aggregation, low perturbation), window ${seconds} s"
else
	echo "perf-lock: mode: record ('$PERF lock record -a' + '$PERF lock contention'): $reason"
	echo "perf-lock: WARNING: record mode writes every lock event to perf.data and perturbs the workload"
	echo "perf-lock:          (the nfs_page report saw NFS throughput halve, ~45 -> ~25 GB/s, and the SLUB"
	echo "perf-lock:          counter mix change during 'perf lock record'); treat its wait times as inflated"
fi

rc=0
if [ "$mode" = bpf ]; then
	"$PERF" lock con -abl -E "$entries" -- "${window[@]}" >"$work/perf-lock.txt" 2>&1 || rc=$?
else
	if "$PERF" lock record -a -o "$work/perf.data" -- "${window[@]}" >"$work/perf-record.log" 2>&1; then
		"$PERF" lock contention -i "$work/perf.data" -E "$entries" >"$work/perf-lock.txt" 2>&1 || rc=$?
	else
		rc=$?
		cp "$work/perf-record.log" "$work/perf-lock.txt"
	fi
fi

echo
echo "perf lock ($mode mode):"
sed 's/^/  /' "$work/perf-lock.txt"
[ "$rc" -eq 0 ] || echo "perf-lock: error: perf exited with status $rc" >&2

if [ ${#caches[@]} -gt 0 ]; then
	slab_rc=0
	slabstat split "$work/slab-before.dump" "$work/slab-after.dump" \
		>"$work/slabstat.txt" 2>&1 || slab_rc=$?
	echo
	echo "slabstat split of ${caches[*]} (the same window):"
	sed 's/^/  /' "$work/slabstat.txt"
	if [ "$slab_rc" -ne 0 ]; then
		echo "perf-lock: error: the counters of ${caches[*]} failed with status $slab_rc" >&2
		rc=1
	fi
fi
[ "$rc" -eq 0 ] || exit 1
