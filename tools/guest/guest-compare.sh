#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of 'make run', and of 'make run HOST=1' on the host
# (tools/run-host.sh): the same-boot A/B of slab parking.
#
# Usage: compare.sh RUNS DURATION_MS "PLACEMENTS" LOCKSTAT [SWEEP [MODES [MODARGS]]]
#
# Environment: SLABPARK_DIR, SLABPARK_KO, SLABPARK_OUT (guest-lib.sh; the
# defaults are the guest's paths); ALLOC_NODE, FREE_NODE (topo_choose: the
# facts of the topology go to $SLABPARK_OUT/topology).
#
# For each placement, RUNS rounds of park=0, 1, 2 (MODES, e.g. "0 1", only
# those; in_round_order), MODARGS more module parameters, each run on a
# shrunk cache with zeroed counters.  Each run leaves the cache's dumps
# (slab-dump.sh) before and after it, the module's results in the latter,
# and its results with the footprint lines (shrunk_slabs after the shrink
# before it, peak_slabs sampled every 0.1 s, rest_slabs and rest_partial
# 1 s after it, past the unpark delay, and slab_churn = alloc_slab +
# free_slab; slabpark.record reads them), in
#   $SLABPARK_OUT/runs/<placement>/park<mode>/<round>.before.dump, .after.dump, .results
# and with LOCKSTAT=1 /proc/lock_stat as it was after the run (the host
# reads &n->list_lock from it: slabpark.runs.add_lockstat) in
#   $SLABPARK_OUT/lockstat/<placement>-park<mode>-<round>.txt
# On a kernel without the debugfs park switch the modes collapse to one,
# 'base'.  SWEEP=sheaf: the same with sheaf_capacity D (the cache's
# default), 2D, 4D and 8D, park=0 and 1 only, into <placement>-sc<C>/.

set -eu
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

case $# in 4 | 5 | 6 | 7) ;; *) echo "usage: compare.sh RUNS DURATION_MS PLACEMENTS LOCKSTAT [SWEEP [MODES [MODARGS]]]" >&2; exit 2 ;; esac
runs=$1 dur=$2 placements=$3 lockstat=$4 sweep=${5:-} only_modes=${6:-} modargs=${7:-}
case "$sweep" in ''|sheaf) ;; *) echo "compare.sh: unknown sweep '$sweep'" >&2; exit 2 ;; esac
if [ "$lockstat" = 1 ] && [ ! -w /proc/lock_stat ]; then
	echo "compare.sh: no writable /proc/lock_stat: the kernel lacks CONFIG_LOCK_STAT" \
		"(build it with tools/kernel/build-kernel.sh --config lockstat)" >&2
	exit 1
fi

need_free=0
for p in $placements; do [ "$p" = local ] || need_free=1; done
topo_choose "$need_free" || { echo "compare.sh: $TOPO_ERR" >&2; exit 1; }
topo_write "$OUT/topology"
echo "# topology: allocators on node $TOPO_ALLOC (CPUs $(topo_join "$TOPO_ALLOC_CPUS"))${TOPO_FREE:+, remote freers on node $TOPO_FREE (CPUs $(topo_join "$TOPO_FREE_CPUS")), distance $(topo_dist "$TOPO_ALLOC" "$TOPO_FREE")}; threads: cross $TOPO_THREADS, local and balanced $TOPO_HALF a side; local: $TOPO_LOCAL ($OUT/topology)"
[ -z "$TOPO_WARN" ] || echo "$TOPO_WARN" | tr ';' '\n' | sed 's/^ *//; s/^/# warning: topology: /'

# shellcheck disable=SC2086 # modargs are words
insmod "$KO" cache_name=$CACHE duration_ms="$dur" $modargs
trap 'rmmod slub_stress 2>/dev/null' EXIT
set_nodes() {
	echo "$TOPO_ALLOC" >"$DBG/alloc_node"
	[ -z "$TOPO_FREE" ] || echo "$TOPO_FREE" >"$DBG/free_node"
}
set_nodes

if [ -f "$PARKDIR/park" ]; then
	modes=${only_modes:-0 1 2}
	echo "# parking switch present ($PARKDIR/park): comparing park=$(echo "$modes" | sed "s/ /, /g") (0 off, 1 trylock+park, 2 always park)"
else
	modes=base
	echo "# this kernel has no $PARKDIR/park switch (unpatched, without tools/kernel/bench-patches/park-switch.patch, or no"
	echo "# CONFIG_SLUB_DEBUG/CONFIG_DEBUG_FS): parking cannot be switched, so only the base numbers are measured"
fi

# The measurement kernel (make run MEASURE=1, measure-parking.patch) has
# park mode 3 too: measured in the same boot, after mode 2.
if [ "$modes" != base ] && [ -z "$only_modes" ] &&
   echo 3 2>/dev/null >"${PARKDIR:-/sys/kernel/debug/slab/$CACHE}/park"; then
	modes="$modes 3"
	echo "# measurement kernel: park=3 (1 + the partial -> empty free without a taken list_lock) too"
fi

# run_placements SUFFIX: every placement, RUNS rounds of every mode; the
# runs of placement P go to P$SUFFIX
run_placements() {
	sfx=$1
	for p in $placements; do
		# equal threads per CPU in every placement: one thread per CPU
		case "$p" in
		cross) threads=$TOPO_THREADS ;;
		*) threads=$TOPO_HALF ;;
		esac
		echo "$p" >"$DBG/placement"
		echo "$threads" >"$DBG/threads"
		r=1
		while [ "$r" -le "$runs" ]; do
			# shellcheck disable=SC2086 # modes are words
			for m in $(in_round_order "$r" $modes); do
				echo "# [$(( $(date +%s) - t0 ))s] placement $p$sfx, round $r/$runs, park=$m"
				[ "$m" = base ] || echo "$m" >"$PARKDIR/park"
				# the baseline of the footprint: what a shrink leaves
				echo 1 >"$SLAB/shrink"
				read -r shrunk _ <"$SLAB/slabs"
				zero_stats
				[ "$lockstat" = 1 ] && echo 0 >/proc/lock_stat
				mkdir -p "$OUT/runs/$p$sfx/park$m" "$OUT/lockstat"
				run=$OUT/runs/$p$sfx/park$m/$r
				sh "$S/tools/guest/slab-dump.sh" "$CACHE" >"$run.before.dump"
				echo 1 >"$DBG/run"
				# footprint: the most slabs seen during the run (every 0.1 s)
				peak=0
				while [ "$(cat "$DBG/status")" = running ]; do
					read -r n _ <"$SLAB/slabs"
					[ "$n" -gt "$peak" ] && peak=$n
					sleep 0.1
				done
				cat "$DBG/wait" >/dev/null
				# let the unpark work settle what the last frees parked
				sleep 1
				sh "$S/tools/guest/slab-dump.sh" -r "$DBG/results" "$CACHE" >"$run.after.dump"
				read -r rest _ <"$SLAB/slabs"
				read -r rest_partial _ <"$SLAB/partial"
				churn=
				if [ -f "$SLAB/alloc_slab" ]; then
					read -r as _ <"$SLAB/alloc_slab"
					read -r fs _ <"$SLAB/free_slab"
					churn=$((as + fs))
				fi
				{
					cat "$DBG/results"
					echo "shrunk_slabs: $shrunk"
					echo "peak_slabs: $peak"
					echo "rest_slabs: $rest"
					echo "rest_partial: $rest_partial"
					echo "slab_churn: $churn"
				} >"$run.results"
				if [ "$lockstat" = 1 ]; then
					cat /proc/lock_stat >"$OUT/lockstat/$p$sfx-park$m-$r.txt"
				fi
				state=$(sed -n 's/^state: //p' "$DBG/results")
				if [ "$state" != "done" ]; then
					echo "# run ended in state '$state':"
					cat "$DBG/results"
					exit 1
				fi
			done
			r=$((r + 1))
		done
	done
}

t0=$(date +%s)
if [ -z "$sweep" ]; then
	run_placements ""
else
	[ "$modes" = base ] || modes=${only_modes:-0 1}
	dflt=$(cat "$SLAB/sheaf_capacity")
	[ "$dflt" -gt 0 ] || { echo "# sheaf sweep: the cache has no sheaves (sheaf_capacity $dflt)"; exit 1; }
	for f in 1 2 4 8; do
		rmmod slub_stress
		# shellcheck disable=SC2086 # modargs are words
		insmod "$KO" cache_name=$CACHE duration_ms="$dur" \
			sheaf_capacity=$((f * dflt)) $modargs
		set_nodes
		cap=$(cat "$SLAB/sheaf_capacity")
		echo "# sheaf sweep: ${f}x the default $dflt: sheaf_capacity $cap"
		run_placements "-sc$cap"
	done
fi
[ -f "$PARKDIR/park" ] && echo 1 >"$PARKDIR/park"
echo "# all runs done in $(( $(date +%s) - t0 ))s"
