#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The table of 'make run SWEEP=sheaf': per placement, sheaf capacity and
# parking mode, median (min-max) of the runs of the share of frees that
# took the slow path (free_slowpath / all frees), free_add_partial, the
# page allocator churn (alloc_slab + free_slab), park_slab /
# free_add_partial, the slabs at the peak and at rest, and ops/s; from the
# <placement>-sc<capacity>.csv tables of slabstat compare and summary.csv.
#
# Usage: tools/report/summarize-sweep.sh RESULTS_DIR

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ $# -ne 1 ] || [ ! -f "$1/summary.csv" ]; then
	echo "usage: $0 RESULTS_DIR (after make run SWEEP=sheaf)" >&2
	exit 2
fi
dir=$1

# sweep_table PART: the rows of the sweep from the <placement>-sc<C>.csv
# tables; part 1 the shares and ops/s, part 2 the counts (<= 100 columns each)
sweep_table() {
	for csv in "$dir"/*-sc*.csv; do
		[ -f "$csv" ] || continue
		g=$(basename "$csv" .csv)
		awk -F, -v g="$g" -v part="$1" '
			NR == 1 {
				for (i = 1; i <= NF; i++) idx[$i] = i
				for (i = 2; i <= NF && $i != "kind"; i++) lab[++nl] = $i
				next
			}
			{ row[$1] = $0 }
			function cell(metric, l, p,   f, v) {
				if (!(metric in row))
					return "-"
				split(row[metric], f, ",")
				if (f[idx[l]] == "")
					return "-"
				return sprintf("%." p "f (%." p "f-%." p "f)", f[idx[l]], f[idx[l "_min"]], f[idx[l "_max"]])
			}
			END {
				split(g, pc, "-sc")
				for (k = 1; k <= nl; k++) {
					printf "%s %08d %d\t%-6s %5s  %-7s ", pc[1], pc[2], k, pc[1], pc[2], lab[k]
					if (part == 1)
						printf "%-22s %-22s %s\n", cell("free_slowpath_ratio", lab[k], 1),
							cell("park_ratio", lab[k], 2), cell("ops_per_sec", lab[k], 0)
					else
						printf "%-28s %s\n", cell("free_add_partial", lab[k], 0),
							cell("page_churn", lab[k], 0)
				}
			}' "$csv"
	done | LC_ALL=C sort -k1,1 -k2,2 -k3,3n | cut -f2-
}

echo
echo "== sheaf capacity sweep: median (min-max) of the runs; remote frees bypass the"
echo "   sheaves, so the cross rows should not move with the capacity"
echo "place  sheaf  park    free slowpath %        park_slab/free_add_p % ops/s"
sweep_table 1
echo "place  sheaf  park    free_add_partial             page churn (alloc_slab + free_slab)"
sweep_table 2

echo
echo "   footprint: slabs at the peak / at rest, median (min-max)"
awk -F, -v park_modes="$SP_PARK_MODES" "$SP_AWK_STATS"'
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	$1 ~ /-sc[0-9]+$/ {
		k = $1 " " $2; keys[k] = 1
		pk[k] = pk[k] " " $(idx["peak_slabs"]); rs[k] = rs[k] " " $(idx["rest_slabs"])
	}
	END {
		for (k in keys) {
			split(k, f, " "); split(f[1], pc, "-sc")
			printf "%s %08d %s\t%-6s %5s  %-7s %-16s %s\n", pc[1], pc[2], f[2], pc[1], pc[2],
				mode_name(f[2]), fmt(pk[k], 0, 0), fmt(rs[k], 0, 0)
		}
	}' "$dir/summary.csv" | LC_ALL=C sort -k1,1 -k2,2 -k3,3 | cut -f2- | sed '1i\
place  sheaf  park     peak             rest'
