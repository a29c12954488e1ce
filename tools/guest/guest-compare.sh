#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make run, and of make run HOST=1 (tools/run-host.sh): the
# same-boot A/B of slab parking.
#   compare.sh RUNS DURATION_MS "PLACEMENTS" LOCKSTAT [SWEEP [MODES [MODARGS]]]
# RUNS rounds of each mode (park=0 1 2, 3 on the measurement kernel, or
# base) per placement, into $OUT/runs/<placement>/park<mode>/<round>.*:
# the dumps before and after, the results with the footprint lines
# (slabpark.record); LOCKSTAT=1: /proc/lock_stat after each run in
# $OUT/lockstat/.  SWEEP=sheaf: park=0 and 1 at 1, 2, 4, 8 x the default
# sheaf_capacity, into <placement>-sc<C>/.  The nodes: topo_choose.

set -eu
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

runs=$1 dur=$2 placements=$3 lockstat=$4 sweep=${5:-} only_modes=${6:-} modargs=${7:-}
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
	echo "# no $PARKDIR/park switch (unpatched, or no CONFIG_SLUB_DEBUG/CONFIG_DEBUG_FS): base numbers only"
fi

# the measurement kernel (measure-parking.patch) has park mode 3 too
if [ "$modes" != base ] && [ -z "$only_modes" ] && echo 3 2>/dev/null >"$PARKDIR/park"; then
	modes="$modes 3"
	echo "# measurement kernel: park=3 (1 + the partial -> empty free without a taken list_lock) too"
fi

# run_placements SUFFIX: every placement's rounds, into P$SUFFIX
run_placements() {
	sfx=$1
	for p in $placements; do
		# one thread per CPU in every placement
		case "$p" in
		cross) threads=$TOPO_THREADS ;;
		*) threads=$TOPO_HALF ;;
		esac
		echo "$p" >"$DBG/placement"
		echo "$threads" >"$DBG/threads"
		for r in $(seq "$runs"); do
			# shellcheck disable=SC2086 # modes are words
			for m in $(in_round_order "$r" $modes); do
				echo "# [$(( $(date +%s) - t0 ))s] placement $p$sfx, round $r/$runs, park=$m"
				[ "$m" = base ] || echo "$m" >"$PARKDIR/park"
				echo 1 >"$SLAB/shrink"
				read -r shrunk _ <"$SLAB/slabs"
				clear_stat_files "$SLAB"
				[ "$lockstat" = 1 ] && echo 0 >/proc/lock_stat
				mkdir -p "$OUT/runs/$p$sfx/park$m" "$OUT/lockstat"
				run=$OUT/runs/$p$sfx/park$m/$r
				sh "$S/tools/guest/slab-dump.sh" "$CACHE" >"$run.before.dump"
				echo 1 >"$DBG/run"
				peak=0
				while [ "$(cat "$DBG/status")" = running ]; do
					read -r n _ <"$SLAB/slabs"
					[ "$n" -gt "$peak" ] && peak=$n
					sleep 0.1
				done
				cat "$DBG/wait" >/dev/null
				sleep 1 # past the unpark delay
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
				[ "$lockstat" = 0 ] || cat /proc/lock_stat >"$OUT/lockstat/$p$sfx-park$m-$r.txt"
				[ "$(rval state)" = "done" ] ||
					{ echo "# run ended in state '$(rval state)':"; cat "$DBG/results"; exit 1; }
			done
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
