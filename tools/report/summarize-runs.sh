#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Summarize the module's per-run results of 'make run': summary.csv with one
# row per run, the placement table at equal threads per CPU (cross/local
# ops ratio with parking off and on: the nfs_page report's question), and
# the footprint table (slabs at peak and at rest, median and min-max).
#
# Usage: tools/report/summarize-runs.sh RUNS_DIR RESULTS_DIR
#   RUNS_DIR/<placement>/park<mode>/<round>.results  (slub_stress results files)

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ $# -ne 2 ] || [ ! -d "$1" ]; then
	echo "usage: $0 RUNS_DIR RESULTS_DIR" >&2
	exit 2
fi
runs=$1 results=$2
csv=$results/summary.csv
keys=(ops_per_sec threads_per_cpu alloc_threads free_threads remote_free_pct
	free_lat_p50_ns free_lat_p99_ns alloc_lat_p50_ns alloc_lat_p99_ns allocs frees
	shrunk_slabs peak_slabs rest_slabs rest_partial slab_churn)

{
	printf 'placement,mode,round'
	printf ',%s' "${keys[@]}"
	echo
	for f in "$runs"/*/park*/*.results; do
		[ -f "$f" ] || continue
		round=$(basename "$f" .results)
		mode=$(basename "$(dirname "$f")")
		place=$(basename "$(dirname "$(dirname "$f")")")
		printf '%s,%s,%s' "$place" "${mode#park}" "$round"
		for k in "${keys[@]}"; do
			printf ',%s' "$(sed -n "s/^$k: //p" "$f" | head -n 1)"
		done
		echo
	done
} >"$csv"

# One pass over the runs: the median ops/s per placement and mode with the
# cross/local ratio, then the footprint, median (min-max) of the slabs at
# the peak and at rest, the partial slabs at rest and the slab churn.
awk -F, -v park_modes="$SP_PARK_MODES" "$SP_AWK_STATS"'
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		k = $1 SUBSEP $2; places[$1] = 1; present[$2] = 1; tpc[$1] = $col["threads_per_cpu"]
		ops[k] = ops[k] " " $col["ops_per_sec"]
		sh[k] = sh[k] " " $col["shrunk_slabs"]
		pk[k] = pk[k] " " $col["peak_slabs"]; rs[k] = rs[k] " " $col["rest_slabs"]
		rp[k] = rp[k] " " $col["rest_partial"]; ch[k] = ch[k] " " $col["slab_churn"]
		if ($col["slab_churn"] != "" && $col["allocs"] > 0)
			cpm[k] = cpm[k] " " $col["slab_churn"] * 1e6 / $col["allocs"]
	}
	# modecol(m): the column of park mode m, "park=1 on"; "base" for a base kernel
	function modecol(m) {
		return (m ~ /^[0-9]+$/) ? "park=" m " " names[m] : names[m]
	}
	# footprint_row(PLACE, LABEL, WHAT, VALUES): one row of the footprint
	# table, for PLACE, labelled LABEL (the placement on its first row)
	function footprint_row(p, label, what, v,   i) {
		printf "%-10s %-13s", label, what
		for (i = 1; i <= nm; i++) if (order[i] in present) printf " %22s", fmt(v[p SUBSEP order[i]], 0, 0)
		print ""
	}
	END {
		nm = modes(order, names)
		print ""
		print "== placements at equal threads per CPU (median ops/s of the runs; threads_per_cpu shown)"
		printf "%-10s %8s", "placement", "thr/cpu"
		for (i = 1; i <= nm; i++) if (order[i] in present) printf " %15s", modecol(order[i])
		print ""
		for (p in places) {
			printf "%-10s %8s", p, tpc[p]
			for (i = 1; i <= nm; i++) if (order[i] in present) {
				m[p, order[i]] = q(ops[p SUBSEP order[i]], 0, 0.5)
				printf " %15.0f", m[p, order[i]]
			}
			print ""
		}
		if (("cross" in places) && ("local" in places)) {
			printf "%-19s", "cross/local ratio"
			for (i = 1; i <= nm; i++) if (order[i] in present) {
				l = m["local", order[i]]
				printf " %15s", (l > 0) ? sprintf("%.3f", m["cross", order[i]] / l) : "n/a"
			}
			print ""
		}
		print ""
		print "== footprint, median (min-max) of the runs: slabs of the cache after the shrink before a run"
		print "   (the baseline), at the peak of the run (sampled every 0.1 s) and at rest 1 s after it (no"
		print "   shrink), partial slabs at rest, and the slab churn of the run (alloc_slab + free_slab up"
		print "   to rest; n/a without CONFIG_SLUB_STATS), also per million objects allocated (runs have a"
		print "   fixed length, not a fixed number of operations)"
		printf "%-10s %-13s", "placement", ""
		for (i = 1; i <= nm; i++) if (order[i] in present) printf " %22s", modecol(order[i])
		print ""
		for (p in places) {
			footprint_row(p, p, "shrunk slabs", sh)
			footprint_row(p, "", "peak slabs", pk)
			footprint_row(p, "", "rest slabs", rs)
			footprint_row(p, "", "rest partial", rp)
			footprint_row(p, "", "slab churn", ch)
			footprint_row(p, "", "churn/M alloc", cpm)
		}
	}
' "$csv"
echo "per-run numbers: $csv"
