#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Summarize the module's per-run results of 'make run': summary.csv with one
# row per run, the placement table at equal threads per CPU (cross/local
# ops ratio with parking off and on: the nfs_page report's question), and
# the footprint table (slabs at peak and at rest, median and min-max).
#
# Usage: tools/summarize-runs.sh RUNS_DIR RESULTS_DIR
#   RUNS_DIR/<placement>/park<mode>/<round>.results  (slub_stress results files)

set -euo pipefail
if [ $# -ne 2 ] || [ ! -d "$1" ]; then
	echo "usage: $0 RUNS_DIR RESULTS_DIR" >&2
	exit 2
fi
runs=$1 results=$2
csv=$results/summary.csv
keys=(ops_per_sec threads_per_cpu alloc_threads free_threads remote_free_pct
	free_lat_p50_ns free_lat_p99_ns alloc_lat_p50_ns alloc_lat_p99_ns allocs frees
	peak_slabs rest_slabs)

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
# cross/local ratio, then the footprint, median (min-max) of peak_slabs and
# rest_slabs.
awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{
		k = $1 SUBSEP $2; places[$1] = 1; modes[$2] = 1; tpc[$1] = $col["threads_per_cpu"]
		ops[k] = ops[k] " " $col["ops_per_sec"]
		pk[k] = pk[k] " " $col["peak_slabs"]; rs[k] = rs[k] " " $col["rest_slabs"]
	}
	# sorted(S, A): the numbers of the list S into A, ascending; returns how many
	function sorted(s, a,   n, i, j, t) {
		n = split(s, a, " ")
		if (n && a[1] == "") n = 0
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n
	}
	function median(s,   a, n) {
		if (!(n = sorted(s, a))) return ""
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function med_range(s,   a, n) {
		if (!(n = sorted(s, a))) return "n/a"
		return sprintf("%d (%d-%d)", median(s), a[1], a[n])
	}
	END {
		split("0 1 2 base", order, " ")
		names["0"] = "off"; names["1"] = "on"; names["2"] = "always"; names["base"] = "base"
		print ""
		print "== placements at equal threads per CPU (median ops/s of the runs; threads_per_cpu shown)"
		printf "%-10s %8s", "placement", "thr/cpu"
		for (i = 1; i <= 4; i++) if (order[i] in modes) printf " %14s", names[order[i]]
		print ""
		for (p in places) {
			printf "%-10s %8s", p, tpc[p]
			for (i = 1; i <= 4; i++) if (order[i] in modes) {
				m[p, order[i]] = median(ops[p SUBSEP order[i]])
				printf " %14.0f", m[p, order[i]]
			}
			print ""
		}
		if (("cross" in places) && ("local" in places)) {
			printf "%-19s", "cross/local ratio"
			for (i = 1; i <= 4; i++) if (order[i] in modes) {
				l = m["local", order[i]]
				printf " %14s", (l > 0) ? sprintf("%.3f", m["cross", order[i]] / l) : "n/a"
			}
			print ""
		}
		print ""
		print "== footprint: slabs of the cache at the peak of a run (sampled every 0.1 s) and at rest 1 s after it (no shrink); median (min-max)"
		printf "%-10s %-5s", "placement", "slabs"
		for (i = 1; i <= 4; i++) if (order[i] in modes) printf " %20s", names[order[i]]
		print ""
		for (p in places) {
			printf "%-10s %-5s", p, "peak"
			for (i = 1; i <= 4; i++) if (order[i] in modes) printf " %20s", med_range(pk[p SUBSEP order[i]])
			print ""
			printf "%-10s %-5s", "", "rest"
			for (i = 1; i <= 4; i++) if (order[i] in modes) printf " %20s", med_range(rs[p SUBSEP order[i]])
			print ""
		}
	}
' "$csv"
echo "per-run numbers: $csv"
