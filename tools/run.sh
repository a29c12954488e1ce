#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make run': build the patched kernel and the stress module, boot the
# NUMA guest, run the cross-node stress with parking off and on in the
# same boot, and print the comparison.
#
# Make variables (environment):
#   RUNS=3             rounds per placement (each round: park=0, 1, 2);
#                      10 with LOCKSTAT=1
#   DURATION_MS=4000   length of one run
#   PLACEMENTS="cross local balanced"
#   NODES=2 CPUS_PER_NODE=2   guest size
#   SWEEP=sheaf        the same at 1x, 2x, 4x and 8x the default sheaf
#                      capacity (module parameter sheaf_capacity), park=0
#                      and 1, cross and local; a table of the sweep
#   LOCKSTAT=1         use a CONFIG_LOCK_STAT kernel and report &n->list_lock:
#                      medians with ranges, call sites, parks against the
#                      waits in __slab_free() (slabpark.comparison)
#   MEASURE=1          use the measurement kernel (the series + the bench-only
#                      tools/kernel/bench-patches/measure-parking.patch): free objects per
#                      unparked slab, refill scan length, the list_lock
#                      acquisitions and waits in __slab_free() by transition,
#                      and park=3, the partial -> empty trylock experiment
#                      (slabpark.comparison); with LOCKSTAT=1 too
#   PATCHES=none       the unpatched base (nothing can be switched)
#   BASE=1 BOOTS=5     the base kernel against the patched one in alternating
#                      boots (base, patched, base, ...; BOOTS each), the same
#                      runs in each (RUNS=1 a boot by default; the patched
#                      boots run MODES, default "0 1"); with LOCKSTAT=1 both
#                      kernels are lock_stat ones
#   WORKLOAD=mmap1     instead of the module: will-it-scale's mmap1 (each task
#                      maps and unmaps 128 MB in a loop; tools/guest/mmap_loop.c)
#   WORKLOAD=mmapaddr  stress-ng --mmapaddr (the regression report's stressor);
#                      both with TASKS="4 8" tasks, DURATION_MS per run, RUNS
#                      rounds, counters of maple_node and vm_area_struct
#   MIN_PARTIAL=1      the min_partial control: park=0 at min_partial D, 2D,
#                      4D, 8D against park=1 and 2 at D (cross, RUNS=5 rounds)
#   FLUSH=1            the flush-driven regime: local frees in bursts of 4096
#                      (module free_burst=1 inflight=4096) that overflow sheaves
#                      and barn, at 1x, 2x, 4x, 8x the sheaf capacity, park=0
#                      and 1 (with BASE=1 the base kernel too)
#   MODES="0 1"        the park modes of a patched boot (default all)
#   KSRC=/path         your own 7.3 tree, built as is
#   RESULTS_DIR=DIR    where tables, CSV/JSON and the plot go
#                      (default: results/<date>-<time> in this directory)
#   ALLOC_NODE=N FREE_NODE=N  the allocators' and the remote freers' nodes
#                      (default: guest-compare.sh's choice, topo_choose in
#                      tools/guest/guest-lib.sh); in the VM numbers below
#                      NODES, checked here before the boot, and handed to
#                      the guest's environment (run-guest.sh --env)
#   HOST=1             no VM: the comparison on this machine, a 2-node box
#                      booted into the patched kernel, as root
#                      (tools/run-host.sh, which has its knobs and checks;
#                      'HOST=1 tools/run.sh --check-only' checks only)

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$SLABPARK_TOP"

LOCKSTAT=${LOCKSTAT:-0}
MEASURE=${MEASURE:-0}
SWEEP=${SWEEP:-}
case "$SWEEP" in ''|sheaf) ;; *) sp_die "SWEEP=$SWEEP: the only sweep is 'sheaf'" ;; esac
# The sheaf sweep: cross and local, park=0 and 1, at 1, 2, 4, 8 times the
# default sheaf capacity (tools/guest/guest-compare.sh)
[ "$SWEEP" = sheaf ] && PLACEMENTS=${PLACEMENTS:-cross local}
# With lock_stat, a run has a few hundred contentions and their count
# varies a lot from run to run: 10 rounds by default, so that the modes
# can be told apart (about 8 min of guest time; local, which does not
# contend, stays for the noise floor).
if [ "${BASE:-0}" = 1 ]; then
	RUNS=${RUNS:-1}	# each boot is a round, with LOCKSTAT=1 too
elif [ "${MIN_PARTIAL:-0}" = 1 ]; then
	RUNS=${RUNS:-5}
elif [ "$LOCKSTAT" = 1 ]; then
	RUNS=${RUNS:-10}
fi
RUNS=${RUNS:-3}
DURATION_MS=${DURATION_MS:-4000}
PLACEMENTS=${PLACEMENTS:-cross local balanced}
NODES=${NODES:-2}
CPUS_PER_NODE=${CPUS_PER_NODE:-2}
for v in RUNS DURATION_MS NODES CPUS_PER_NODE; do
	case "${!v}" in
	''|*[!0-9]*|0) sp_die "$v=${!v}: must be a positive integer" ;;
	esac
done
for p in $PLACEMENTS; do
	case "$p" in cross|local|balanced) ;; *) sp_die "PLACEMENTS: unknown placement '$p' (cross, local, balanced)" ;; esac
done
case "$LOCKSTAT" in 0|1) ;; *) sp_die "LOCKSTAT=$LOCKSTAT: must be 0 or 1" ;; esac
case "$MEASURE" in 0|1) ;; *) sp_die "MEASURE=$MEASURE: must be 0 or 1" ;; esac
if [ "$MEASURE" = 1 ] && [ "${PATCHES:-}" = none ]; then
	sp_die "MEASURE=1 measures the series: not with PATCHES=none"
fi
if [ "$NODES" -lt 2 ] && [[ " $PLACEMENTS " =~ \ (cross|balanced)\  ]]; then
	sp_die "NODES=$NODES: cross and balanced need 2 nodes (use PLACEMENTS=local)"
fi

# the nodes in the VM: node numbers below NODES, two different ones
# (with HOST=1, run-host.sh checks them against this machine's nodes);
# in the guest, guest-compare.sh checks them again (topo_choose)
ALLOC_NODE=${ALLOC_NODE:-}
FREE_NODE=${FREE_NODE:-}
if [ "${HOST:-0}" != 1 ]; then
	for v in ALLOC_NODE FREE_NODE; do
		case "${!v}" in
		'') continue ;;
		*[!0-9]*) sp_die "$v=${!v}: not a node number" ;;
		esac
		[ "${!v}" -lt "$NODES" ] ||
			sp_die "$v=${!v}: the guest has nodes 0..$((NODES - 1)) (NODES=$NODES)"
	done
	if [ -n "$ALLOC_NODE" ] && [ "$ALLOC_NODE" = "$FREE_NODE" ]; then
		sp_die "FREE_NODE=$FREE_NODE: the same node as ALLOC_NODE (cross and balanced free on another node)"
	fi
fi

BASE=${BASE:-0}
[ -z "${BOOTS:-}" ] || [ "$BASE" = 1 ] || sp_die "BOOTS=$BOOTS goes with BASE=1 (alternating boots)"
BOOTS=${BOOTS:-5}
WORKLOAD=${WORKLOAD:-}
TASKS=${TASKS:-4 8}
MIN_PARTIAL=${MIN_PARTIAL:-0}
MODES=${MODES:-}
FLUSH=${FLUSH:-0}
case "$FLUSH" in 0|1) ;; *) sp_die "FLUSH=$FLUSH: must be 0 or 1" ;; esac
case "$BASE" in 0|1) ;; *) sp_die "BASE=$BASE: must be 0 or 1" ;; esac
case "$MIN_PARTIAL" in 0|1) ;; *) sp_die "MIN_PARTIAL=$MIN_PARTIAL: must be 0 or 1" ;; esac
case "$BOOTS" in ''|*[!0-9]*|0) sp_die "BOOTS=$BOOTS: must be a positive integer" ;; esac
case "$WORKLOAD" in ''|mmap1|mmapaddr) ;; *) sp_die "WORKLOAD=$WORKLOAD: unknown (mmap1, mmapaddr)" ;; esac
for t in $TASKS; do
	case "$t" in ''|*[!0-9]*|0) sp_die "TASKS=\"$TASKS\": positive integers" ;; esac
	[ "$t" -le 1024 ] || sp_die "TASKS=\"$TASKS\": at most 1024 tasks"
done
[ -n "${TASKS// /}" ] || sp_die "TASKS is empty"
for m in $MODES; do
	case "$m" in 0|1|2) ;; *) sp_die "MODES=\"$MODES\": modes 0, 1, 2" ;; esac
	[ "$(echo "$MODES" | tr ' ' '\n' | grep -c "^$m\$")" = 1 ] || sp_die "MODES=\"$MODES\": mode $m twice"
done
[ -z "$MODES" ] || [ "$MIN_PARTIAL" = 0 ] || sp_die "MODES goes with the module comparison, WORKLOAD and FLUSH, not MIN_PARTIAL=1 (its own table of modes)"
[ -z "$MODES" ] || [ "${PATCHES:-}" != none ] || sp_die "MODES: PATCHES=none has no park modes"
if [ "$BASE" = 1 ]; then
	[ "${PATCHES:-}" != none ] || sp_die "BASE=1 builds the base kernel itself: not with PATCHES=none"
	[ -z "${KSRC:-}" ] || sp_die "BASE=1 builds base and patched 7.3.4 trees: not with KSRC="
fi
if [ -n "$WORKLOAD" ] || [ "$MIN_PARTIAL" = 1 ] || [ "$BASE" = 1 ] || [ "$FLUSH" = 1 ]; then
	[ "${HOST:-0}" = 0 ] || sp_die "HOST=1 runs the module comparison only (not BASE, WORKLOAD, MIN_PARTIAL or FLUSH)"
	[ -z "$SWEEP" ] || sp_die "SWEEP=$SWEEP goes with the plain module comparison only"
	[ "$MEASURE" = 0 ] || sp_die "MEASURE=1 goes with the plain module comparison only"
	[ -z "$ALLOC_NODE$FREE_NODE" ] ||
		sp_die "ALLOC_NODE and FREE_NODE go with the plain module comparison only (not BASE, WORKLOAD, MIN_PARTIAL or FLUSH)"
fi
experiments=$(( ${#WORKLOAD} > 0 ? 1 : 0 ))
experiments=$((experiments + MIN_PARTIAL + FLUSH))
[ "$experiments" -le 1 ] || sp_die "WORKLOAD, MIN_PARTIAL=1 and FLUSH=1: one at a time"
[ -z "$WORKLOAD" ] || [ "$DURATION_MS" -ge 1000 ] || sp_die "WORKLOAD=$WORKLOAD: DURATION_MS=$DURATION_MS, the workloads run whole seconds (>= 1000)"
[ -z "$WORKLOAD" ] || [ "$LOCKSTAT" = 0 ] || sp_die "WORKLOAD=$WORKLOAD: the workloads report SLUB_STATS counters, not lock_stat (LOCKSTAT=0)"
[ "$MIN_PARTIAL" = 0 ] || [ "$BASE" = 0 ] || sp_die "MIN_PARTIAL=1 needs the parking switch: not with BASE=1"
[ "$MIN_PARTIAL" = 0 ] || [ "${PATCHES:-}" != none ] || sp_die "MIN_PARTIAL=1 needs the parking switch: not with PATCHES=none"

# HOST=1: on this machine (the knobs above apply; NODES and
# CPUS_PER_NODE are the guest's)
HOST=${HOST:-0}
case "$HOST:$#" in
0:0) ;;
1:*)
	export RUNS DURATION_MS PLACEMENTS LOCKSTAT MEASURE SWEEP
	exec tools/run-host.sh "$@"
	;;
0:*) echo "usage: $0   (make run; HOST=1 $0 [--check-only])" >&2; exit 2 ;;
*) sp_die "HOST=$HOST: must be 0 or 1" ;;
esac

tools/install-deps.sh
if [ "$BASE" = 1 ] || [ -n "$WORKLOAD" ] || [ "$MIN_PARTIAL" = 1 ] || [ "$FLUSH" = 1 ]; then
	export RUNS DURATION_MS PLACEMENTS LOCKSTAT NODES CPUS_PER_NODE BASE BOOTS \
		WORKLOAD TASKS MIN_PARTIAL MODES FLUSH
	PYTHONPATH=$SLABPARK_TOP/tools exec python3 -m slabpark experiment
fi
cfg=()
[ "$LOCKSTAT" = 1 ] && cfg=(--config lockstat)
[ "$MEASURE" = 1 ] && cfg+=(--variant measure)
bdir=$(tools/kernel/build-kernel.sh "${cfg[@]}")
stage=$(PYTHONPATH=$SLABPARK_TOP/tools python3 -m slabpark vm stage "$bdir")
sp_stage "module and tools staged for the guest"

results=${RESULTS_DIR:-$SLABPARK_TOP/results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$results"
nplace=$(echo "$PLACEMENTS" | wc -w)
nmodes=3
[ "$MEASURE" = 0 ] || nmodes=4	# the measurement kernel's park=3 too
tmo=$((nplace * RUNS * nmodes * (DURATION_MS / 1000 + 4) + 300))
[ -z "$SWEEP" ] || tmo=$((tmo * 8 / 3))
# the nodes, into guest-compare.sh's environment
genv=()
[ -z "$ALLOC_NODE" ] || genv+=(--env "ALLOC_NODE=$ALLOC_NODE")
[ -z "$FREE_NODE" ] || genv+=(--env "FREE_NODE=$FREE_NODE")
GUEST_TIMEOUT=${GUEST_TIMEOUT:-$tmo} PYTHONPATH=$SLABPARK_TOP/tools python3 -m slabpark vm run --kernel "$bdir" \
	--stage "$stage:." --nodes "$NODES" --cpus-per-node "$CPUS_PER_NODE" "${genv[@]}" \
	--out "$results/guest" -- tools/guest/guest-compare.sh \
	"$RUNS" "$DURATION_MS" "$PLACEMENTS" "$LOCKSTAT" "$SWEEP" "$MODES"
[ -d "$results/guest/files/runs" ] || sp_die "the guest returned no run data ($results/guest)"

sp_report "$results" "TCG guest, $NODES nodes x $CPUS_PER_NODE vCPUs"
