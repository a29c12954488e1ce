#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: tools/report/perf-lock.sh [-t SECONDS] [-E ENTRIES] [--record] [--out DIR] [CACHE...]
#   -t SECONDS   length of the window (default 10)
#   -E ENTRIES   lock entries to show (default 5)
#   --record     use 'perf lock record' even when BPF works (perturbs!)
#   --out DIR    keep perf output (and perf.data in record mode) in DIR
#   CACHE...     also the counters of these caches over the window: their
#                dumps before and after it (slab-before.dump, slab-after.dump
#                in DIR) and 'slabstat split' of the two (needs python3)
#
# Lock contention over the window: 'perf lock con -abl' aggregates in the
# kernel (BPF), with little perturbation; without BPF (no BUILD_BPF_SKEL,
# no BTF, not root) or with --record, 'perf lock record -a' writes every
# event to perf.data.  PERF: the perf binary.  Exit status 1 error, 2 usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PERF=${PERF:-perf}
seconds=10
entries=5
mode=bpf
outdir=
caches=()

usage() {
	sed -n 's/^# \{0,1\}//; /^usage:/,/^$/{/./p}' "$0"
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

while [ $# -gt 0 ]; do
	case $1 in
	-t | -E | --out) [ $# -ge 2 ] || usage_error "$1 needs an argument" ;;&
	-t) seconds=$2 && shift ;;
	-E) entries=$2 && shift ;;
	--out) outdir=$2 && shift ;;
	--record) mode=record reason="--record given" ;;
	-h | --help) usage; exit 0 ;;
	--) shift && caches+=("$@") && break ;;
	-*) usage_error "unknown option '$1'" ;;
	*) caches+=("$1") ;;
	esac
	shift
done
[[ $seconds =~ ^[0-9]+([.][0-9]+)?$ && ! $seconds =~ ^[0.]+$ ]] ||
	usage_error "-t needs a positive number of seconds, not '$seconds'"
[[ $entries =~ ^[1-9][0-9]*$ ]] || usage_error "-E needs a positive integer, not '$entries'"
command -v "$PERF" >/dev/null 2>&1 ||
	die "'$PERF' not found; install perf (Debian package linux-perf: apt-get install linux-perf)"
slabstat() { PYTHONPATH=$HERE/.. python3 -m slabpark slabstat "$@"; }

work=${outdir:-$(mktemp -d)}
[ -n "$outdir" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
[[ $PERF != */* || $PERF == /* ]] || PERF=$PWD/$PERF
cd "$work"

# perf's workload: the window, or slab-dump.sh, the window, slab-dump.sh
window=(sleep "$seconds")
if [ ${#caches[@]} -gt 0 ]; then
	# a wrong cache name or a kernel without statistics: an error now
	{ sh "$HERE/../guest/slab-dump.sh" "${caches[@]}" >slab-check.dump &&
		slabstat snap slab-check.dump >/dev/null; } ||
		die "cannot read the counters of ${caches[*]} (see above)"
	# shellcheck disable=SC2016 # expanded by the sh -c
	dumps='sh "$0" "$@" >slab-before.dump && sleep "$SP_SECONDS" && sh "$0" "$@" >slab-after.dump'
	window=(sh -c "$dumps" "$HERE/../guest/slab-dump.sh" "${caches[@]}")
	export SP_SECONDS=$seconds
fi

if [ "$mode" = bpf ] && ! "$PERF" lock con -ab -E 1 -- true >bpf-probe.log 2>&1; then
	mode=record reason=$(sed -n 's/^[[:space:]]*//; /./{p;q}' bpf-probe.log)
	reason="BPF unavailable: ${reason:-perf lock con -b failed}"
fi
if [ "$mode" = bpf ]; then
	echo "perf-lock: mode: BPF ('$PERF lock con -abl -E $entries'," \
		"in-kernel aggregation, low perturbation), window ${seconds} s"
else
	cat <<EOF
perf-lock: mode: record ('$PERF lock record -a' + '$PERF lock contention'): $reason
perf-lock: WARNING: record mode writes every lock event to perf.data and perturbs the workload
perf-lock:          (the nfs_page report saw NFS throughput halve, ~45 -> ~25 GB/s, and the SLUB
perf-lock:          counter mix change during 'perf lock record'); treat its wait times as inflated
EOF
fi

rc=0
printf '\nperf lock (%s mode):\n' "$mode"
if [ "$mode" = bpf ]; then
	"$PERF" lock con -abl -E "$entries" -- "${window[@]}" 2>&1
elif "$PERF" lock record -a -o perf.data -- "${window[@]}" >perf-record.log 2>&1; then
	"$PERF" lock contention -i perf.data -E "$entries" 2>&1
else
	s=$?
	cat perf-record.log
	exit "$s"
fi | tee perf-lock.txt | sed 's/^/  /' ||
	{ echo "perf-lock: error: perf exited with status $?" >&2; rc=1; }

if [ ${#caches[@]} -gt 0 ]; then
	printf '\nslabstat split of %s (the same window):\n' "${caches[*]}"
	slabstat split slab-before.dump slab-after.dump 2>&1 | tee slabstat.txt | sed 's/^/  /' || {
		echo "perf-lock: error: the counters of ${caches[*]} failed with status $?" >&2
		rc=1
	}
fi
exit "$rc"
