#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tables of 'make run MEASURE=1', from the counters of the measurement
# kernel (tools/kernel/bench-patches/measure-parking.patch; bench only), per placement
# and park mode, over the runs:
#   - free objects of a slab when it was unparked: the share of unparked
#     slabs with 1, 2-3, 4-7, 8-15, 16+ free objects, or empty (all runs
#     of a mode together);
#   - refill scan length: partial slabs visited per walk of the partial
#     list in get_partial_node_bulk() (sheaf refills) and
#     get_from_partial_node(), and the partial slabs listed when a walk
#     started (what the RFC's author counted), median (min-max) of the runs;
#   - the list_lock acquisitions left in __slab_free() by transition
#     (full -> partial, full -> empty, partial -> empty on the node list,
#     partial -> empty isolated by a refill) and how many of them waited
#     (found the lock taken), median (min-max).
# Prints nothing (and says so) for runs of a kernel without those counters.
#
# Usage: tools/report/summarize-measure.sh RUNS_DIR
#   RUNS_DIR/<placement>/park<mode>/<round>.json  (slabstat diff --json)

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 RUNS_DIR" >&2
	exit 2
fi
runs=$1

# One line per run: "PLACEMENT MODE metric=delta ..." for the counters of
# the cache in the run's slabstat delta document (the first "delta" after
# a metric's name is its own; per-CPU and per-node parts come after it).
per_run() {
	local f mode place
	for f in "$runs"/*/park*/*.json; do
		[ -f "$f" ] || continue
		mode=$(basename "$(dirname "$f")")
		place=$(basename "$(dirname "$(dirname "$f")")")
		awk -v p="$place" -v m="${mode#park}" '
			match($0, /^ *"[a-z0-9_]+": *\{/) {
				name = $0; sub(/^ *"/, "", name); sub(/".*/, "", name)
				want = 1; next
			}
			want && match($0, /"delta": *-?[0-9]+/) {
				v = substr($0, RSTART, RLENGTH); sub(/"delta": */, "", v)
				line = line " " name "=" v; want = 0
			}
			END { print p, m line }' "$f"
	done
}

data=$(per_run)
if ! grep -q ' partial_scan_bulk=' <<<"$data"; then
	echo
	echo "== measurement counters: none in these runs (make run MEASURE=1 boots the kernel that has them)"
	exit 0
fi

awk -v park_modes="$SP_PARK_MODES" "$SP_AWK_STATS"'
	{
		k = $1 SUBSEP $2; places[$1] = 1; present[$2] = 1; runs[k]++
		delete c
		for (i = 3; i <= NF; i++) { split($i, kv, "="); c[kv[1]] = kv[2] }
		for (b = 1; b <= nb; b++) hist[k, b] += c["unpark_free_" bucket[b]]
		unparked[k] += c["unpark_slab"]
		if (c["partial_scan_bulk"] > 0) {
			sb[k] = sb[k] " " c["partial_scan_bulk_slabs"] / c["partial_scan_bulk"]
			lb[k] = lb[k] " " c["partial_scan_bulk_listed"] / c["partial_scan_bulk"]
		}
		if (c["partial_scan_one"] > 0) {
			so[k] = so[k] " " c["partial_scan_one_slabs"] / c["partial_scan_one"]
			lo[k] = lo[k] " " c["partial_scan_one_listed"] / c["partial_scan_one"]
		}
		nsb[k] = nsb[k] " " c["partial_scan_bulk"] + 0; nso[k] = nso[k] " " c["partial_scan_one"] + 0
		for (t = 1; t <= nt; t++) {
			lk[k, t] = lk[k, t] " " c["free_lock_" trans[t]] + 0
			wt[k, t] = wt[k, t] " " c["free_wait_" trans[t]] + 0
		}
	}
	BEGIN {
		nb = split("1 2_3 4_7 8_15 16 all", bucket, " ")
		split("1,2-3,4-7,8-15,16+,empty", blabel, ",")
		nt = split("full_partial full_empty empty_on empty_off", trans, " ")
		split("full->partial,full->empty,partial->empty on list,partial->empty isolated", tlabel, ",")
	}
	function header(title) { print ""; print title }
	END {
		nm = modes(order, names)
		np = sorted_keys(places, pl)
		header("== free objects of a slab when it was unparked: share of the unparked slabs (all runs of a mode)")
		printf "%-10s %-9s %10s", "placement", "park", "unparked"
		for (b = 1; b <= nb; b++) printf " %7s", blabel[b]
		print ""
		for (j = 1; j <= np; j++) for (i = 1; i <= nm; i++) {
			p = pl[j]
			k = p SUBSEP order[i]
			if (!(order[i] in present) || !unparked[k]) continue
			printf "%-10s %-9s %10d", p, names[order[i]], unparked[k]
			for (b = 1; b <= nb; b++) printf " %6.1f%%", 100 * hist[k, b] / unparked[k]
			print ""
		}

		header("== refill scan length: walks of the partial list, partial slabs visited per walk and listed")
		print "   when it started, median (min-max) of the runs: by get_partial_node_bulk() (bulk: sheaf"
		print "   refills), then by get_from_partial_node() (one)"
		for (w = 1; w <= 2; w++) {
			printf "%-10s %-9s %22s %18s %18s\n", "placement", "park", w == 1 ? "walks (bulk)" : "walks (one)",
				"visited/walk", "listed/walk"
			for (j = 1; j <= np; j++) for (i = 1; i <= nm; i++) {
				p = pl[j]
				k = p SUBSEP order[i]
				if (!(order[i] in present)) continue
				if (w == 1)
					printf "%-10s %-9s %22s %18s %18s\n", p, names[order[i]], fmt(nsb[k], 0, 0),
						fmt(sb[k], 0, 2), fmt(lb[k], 0, 2)
				else
					printf "%-10s %-9s %22s %18s %18s\n", p, names[order[i]], fmt(nso[k], 0, 0),
						fmt(so[k], 0, 2), fmt(lo[k], 0, 2)
			}
		}

		header("== list_lock in __slab_free() by transition: acquisitions, and of them those that waited,")
		print "   median (min-max) of the runs, a table per transition"
		for (t = 1; t <= nt; t++) {
			print "-- " tlabel[t]
			printf "%-10s %-9s %-27s %s\n", "placement", "park", "acquisitions", "waited"
			for (j = 1; j <= np; j++) for (i = 1; i <= nm; i++) {
				p = pl[j]
				k = p SUBSEP order[i]
				if (!(order[i] in present)) continue
				printf "%-10s %-9s %-27s %s\n", p, names[order[i]], fmt(lk[k, t], 0, 0), fmt(wt[k, t], 0, 0)
			}
		}
	}' <<<"$data"
