#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Plot 'make run' results: RESULTS_DIR/parking.png, four panels, per
# placement and parking mode, each bar the median of the runs with a
# min-max range bar:
#   - ops/s (linear axis from zero);
#   - footprint: slabs of the cache at the peak of a run and at rest after
#     it (linear axis from zero);
#   - SLUB counters per run (park_slab, free_add_partial, alloc_slab,
#     free_slab), which differ by orders of magnitude: log axis, a zero
#     median has no bar;
#   - free latency p99 (linear axis from zero).
# Values come from summary.csv (per run) and the <placement>.csv tables of
# slabstat compare (median, min, max per mode).
#
# Usage: tools/report/plot-runs.sh RESULTS_DIR [WHERE]
#   WHERE  where it ran, for the title: "TCG guest, 2 nodes x 2 vCPUs", or
#          on HOST=1 the host's CPU model and shape (tools/report/report-runs.sh)

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -f "$1/summary.csv" ]; then
	echo "usage: $0 RESULTS_DIR [WHERE] (with summary.csv from tools/report/summarize-runs.sh)" >&2
	exit 2
fi
command -v gnuplot >/dev/null || { echo "plot-runs: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
dir=$1
where=${2:-}
# a TCG guest's numbers compare modes; a host's are absolute too
title="slab parking${where:+ on $where}, same boot: median of the runs, bars = min-max"
case "$where" in
*TCG*) title="$title (TCG: compare modes, not absolute numbers)" ;;
esac
# gnuplot's single-quoted string: a quote doubled
title=${title//\'/\'\'}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# stats COLUMN [COLUMN...]: one row per placement (and column, if several),
# then median, min and max of the runs for each mode present (off, on,
# always, base), from summary.csv
stats() {
	awk -F, -v cols="$*" -v park_modes="$SP_PARK_MODES" "$SP_AWK_STATS"'
		NR == 1 {
			nc = split(cols, want, " ")
			for (i = 1; i <= NF; i++) idx[$i] = i
			for (j = 1; j <= nc; j++) if (!(want[j] in idx)) missing = 1
			next
		}
		missing { next }
		{
			p[$1] = 1; m[$2] = 1
			for (j = 1; j <= nc; j++) v[$1, want[j], $2] = v[$1, want[j], $2] " " $(idx[want[j]])
		}
		END {
			if (missing)
				exit
			nm = modes(order, names)
			printf "label"
			for (i = 1; i <= nm; i++) if (order[i] in m) printf " %s min max", names[order[i]]
			print ""
			for (pl in p) for (j = 1; j <= nc; j++) {
				printf "%s", (nc > 1 ? pl ":" want[j] : pl)
				for (i = 1; i <= nm; i++) {
					if (!(order[i] in m))
						continue
					vals = v[pl, want[j], order[i]]
					printf " %s %s %s", q(vals, 0, 0.5), q(vals, 0, 0), q(vals, 0, 1)
				}
				print ""
			}
		}' "$dir/summary.csv" | { read -r h; echo "$h" >"$work/modes"; sort -V; }
}
stats ops_per_sec >"$work/ops.dat"
stats peak_slabs rest_slabs >"$work/slabs.dat"
stats free_lat_p99_ns >"$work/p99.dat"
nmodes=$(( ($(wc -w <"$work/modes") - 1) / 3 ))
titles=$(awk '{ for (i = 2; i <= NF; i += 3) printf "%s ", $i }' "$work/modes")

# counters: median, min, max per mode from the compare CSVs
# (metric,<label>...,kind,cache,<label>_runs,<label>_min,<label>_max,...)
: >"$work/counters.dat"
for csv in $(printf '%s\n' "$dir"/*.csv | sort -V); do
	case "$csv" in */summary.csv) continue ;; esac
	p=$(basename "$csv" .csv)
	for metric in park_slab free_add_partial alloc_slab free_slab; do
		line=$(awk -F, -v metric="$metric" -v nm="$nmodes" '
			NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; for (k = 1; k <= nm; k++) lab[k] = $(k + 1); next }
			$1 == metric {
				s = ""
				for (k = 1; k <= nm; k++)
					s = s " " $(k + 1) " " $(idx[lab[k] "_min"]) " " $(idx[lab[k] "_max"])
				print s
			}' "$csv")
		[ -n "$line" ] && echo "$p:$metric$line" >>"$work/counters.dat"
	done
done

# one histogram with min-max bars: for mode k, columns 3k-1 (median),
# 3k (min), 3k+1 (max); an empty panel for data the run did not record
hist() {
	if [ ! -s "$1" ]; then
		echo "plot 0 title 'no data in this run'"
		return
	fi
	echo "plot for [k=1:$nmodes] '$1' using (column(3*k-1)):(column(3*k)):(column(3*k+1)):xtic(1) title word('$titles', k)"
}

# panel TITLE YLABEL FILE [log]: one histogram panel; linear axes from zero
panel() {
	if [ "${4:-}" = log ]; then
		echo "set logscale y; set yrange [1:*]; set offsets 0, 0, 0, 0; set xtics rotate by -40 font ',8'"
	else
		echo "unset logscale y; set yrange [0:*]; set offsets 0, 0, graph 0.08, 0; set xtics rotate by -30 font ',9'"
	fi
	echo "set title '$1'; set ylabel '$2'"
	hist "$3"
}

cat >"$work/plot.gp" <<GP
set terminal png size 1400,1000 noenhanced
set output '$dir/parking.png'
set multiplot layout 2,2 title '$title'
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set key outside top center horizontal
set bars 2
$(panel 'throughput' 'ops/s' "$work/ops.dat")
$(panel 'footprint: slabs at the peak of a run and at rest 1 s after' 'slabs' "$work/slabs.dat")
$(panel 'SLUB counters (log axis; a zero median has no bar)' 'count per run (log)' "$work/counters.dat" log)
$(panel 'free latency p99' 'ns' "$work/p99.dat")
unset multiplot
GP
gnuplot "$work/plot.gp"
