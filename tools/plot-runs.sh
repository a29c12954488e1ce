#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Plot 'make run' results: RESULTS_DIR/parking.png with, per placement and
# parking mode, the median ops/s, the median free latency p99, and the key
# SLUB counters (medians from the <placement>.csv tables of slabstat compare).
#
# Usage: tools/plot-runs.sh RESULTS_DIR

set -euo pipefail
if [ $# -ne 1 ] || [ ! -f "$1/summary.csv" ]; then
	echo "usage: $0 RESULTS_DIR (with summary.csv from tools/summarize-runs.sh)" >&2
	exit 2
fi
command -v gnuplot >/dev/null || { echo "plot-runs: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# medians per placement x mode of one summary.csv column
medians() {
	local col=$1
	awk -F, -v col="$col" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		{ k = $1 SUBSEP $2; v[k] = v[k] " " $c; p[$1] = 1; m[$2] = 1 }
		function median(s,   a, n, i, j, t) {
			n = split(s, a, " ")
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END {
			split("0 1 2 base", order, " ")
			printf "placement"
			names["0"] = "off"; names["1"] = "on"; names["2"] = "always"; names["base"] = "base"
			for (i = 1; i <= 4; i++) if (order[i] in m) printf " %s", names[order[i]]
			print ""
			for (q in p) {
				printf "%s", q
				for (i = 1; i <= 4; i++) if (order[i] in m) printf " %s", median(v[q SUBSEP order[i]])
				print ""
			}
		}' "$dir/summary.csv"
}
medians ops_per_sec >"$work/ops.dat"
medians free_lat_p99_ns >"$work/p99.dat"
ncol=$(head -n 1 "$work/ops.dat" | wc -w)

# counters: median rows of the compare CSVs (metric,label1,label2,...)
: >"$work/counters.dat"
for csv in "$dir"/*.csv; do
	case "$csv" in */summary.csv) continue ;; esac
	p=$(basename "$csv" .csv)
	for metric in park_slab free_add_partial alloc_slab free_slab; do
		line=$(grep -m1 "^$metric," "$csv" || true)
		[ -n "$line" ] && echo "$p:$metric ${line#*,}" | tr ',' ' ' >>"$work/counters.dat"
	done
done

plots="plot for [i=2:$ncol] '$work/ops.dat' using i:xtic(1) title columnheader(i)"
cat >"$work/plot.gp" <<GP
set terminal png size 1200,900 noenhanced
set output '$dir/parking.png'
set multiplot layout 3,1 title 'slab parking, same boot (TCG guest: compare ratios, not absolute numbers)'
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key autotitle columnheader outside right
set ylabel 'ops/s (median)'
$plots
set ylabel 'free latency p99 [ns]'
plot for [i=2:$ncol] '$work/p99.dat' using i:xtic(1) title columnheader(i)
set ylabel 'counter (median per run)'
set xtics rotate by -30
$(if [ -s "$work/counters.dat" ]; then
	echo "plot for [i=2:$ncol] '$work/counters.dat' using i:xtic(1) notitle"
else
	echo "unset multiplot"
fi)
GP
gnuplot "$work/plot.gp"
