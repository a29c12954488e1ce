#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The &n->list_lock tables of 'make run LOCKSTAT=1', from the
# tools/report/lockstat-report.sh files the guest wrote (one per run), per
# placement and parking mode, each figure as "median (min-max)" over the
# runs:
#
#   1. the class: contentions, acquisitions, contended share, wait time
#      total/avg/max (microseconds);
#   2. the call sites per function (waiter and holder);
#   3. parks against waits: the slabs parked per run (park_slab of the run,
#      from the slabstat deltas) next to the waits in __slab_free() and
#      all contentions, and how many fewer than with park=0.  With park=1
#      a slab parks exactly where a trylock failed: the parks count the
#      first frees into full slabs that skipped the lock; the waits can
#      fall by more, as the lock is then also held less.  A difference to
#      park=0 is called "beyond spread" when the interquartile ranges of
#      the two modes do not overlap, else "within spread": the runs then
#      do not separate the modes.
#
# Usage: tools/report/summarize-lockstat.sh LOCKSTAT_DIR [RUNS_DIR]
#   LOCKSTAT_DIR/<placement>-park<mode>-<round>.txt  ("key: value" lines)
#   RUNS_DIR/<placement>/park<mode>/<round>.json      (slabstat diff --json;
#                                                     default LOCKSTAT_DIR/../runs)

set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ]; then
	echo "usage: $0 LOCKSTAT_DIR [RUNS_DIR]" >&2
	exit 2
fi
dir=$1
runs_dir=${2:-$dir/../runs}
[ -d "$runs_dir" ] ||
	echo "summarize-lockstat: no $runs_dir: parks per run read as 0" >&2

# each_run FUNC: FUNC PLACEMENT MODE ROUND FILE, for every run file
each_run() {
	local f b rest
	for f in "$dir"/*-park*-*.txt; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .txt)
		rest=${b#*-park}
		"$1" "${b%%-park*}" "${rest%%-*}" "${rest#*-}" "$f"
	done
}

# the shared awk helpers (tools/lib.sh)
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
STATS=$SP_AWK_STATS

# The awk programs below print "SORT KEYS<TAB>row"; the rows are sorted on
# the keys (mode by number) and printed without them.
sorted_rows() {
	LC_ALL=C sort "$@" | cut -f2-
}

class_row() {
	awk -v p="$1" -v m="$2" -F': ' '
		{ v[$1] = $2 }
		END { print p, m, v["contentions"] + 0, v["acquisitions"] + 0,
			v["waittime_total_us"] + 0, v["waittime_avg_us"] + 0, v["waittime_max_us"] + 0 }' "$4"
}

# the class table in two parts of <= 100 columns: the counts, then the
# wait times
class_table() {
	each_run class_row | awk -v part="$1" -v park_modes="$SP_PARK_MODES" "$STATS"'
		{ k = $1 " " $2; keys[k] = 1; n[k]++
		  for (i = 3; i <= 7; i++) val[k, i] = val[k, i] " " $i
		  share[k] = share[k] " " ($4 > 0 ? 100 * $3 / $4 : 0) }
		END {
			for (k in keys) {
				split(k, pm, " ")
				printf "%s %s\t%-9s %-6s %4d  ", pm[1], pm[2], pm[1], mode_name(pm[2]), n[k]
				if (part == 1)
					printf "%-22s %-28s %s\n", fmt(val[k, 3], n[k], 0),
						fmt(val[k, 4], n[k], 0), fmt(share[k], n[k], 2) "%"
				else
					printf "%-26s %-22s %s\n", fmt(val[k, 5], n[k], 0),
						fmt(val[k, 6], n[k], 1), fmt(val[k, 7], n[k], 0)
			}
		}' | sorted_rows -k1,1V -k2,2n
}

echo
echo "== &n->list_lock (CONFIG_LOCK_STAT; all caches' list_locks): median (min-max) of the runs"
echo "placement park   runs  contentions            acquisitions                 contended %"
class_table 1
echo "placement park   runs  wait total us              avg us                 max us"
class_table 2

# Where the waits were: lockdep's call sites of the class (the first four
# distinct sites per run, see tools/report/lockstat-report.sh), summed per
# function; a run without the site counts 0.
site_rows() {
	awk -v p="$1" -v m="$2" '
		/^contention_point: / || /^contending_point: / {
			fn = $3
			sub(/\+0x.*/, "", fn)
			kind = ($1 == "contention_point:") ? "waiter" : "holder"
			n[kind " " fn] += $2
		}
		END {
			print "RUN", p, m
			for (k in n)
				print "SITE", p, m, k, n[k]
		}' "$4"
}

echo
echo "== &n->list_lock call sites: waiter = contention point (where a CPU waited),"
echo "   holder = contending point (where the CPU it waited for took the lock);"
echo "   lockdep keeps the first 4 sites of each kind per run; median (min-max)"
each_run site_rows | awk -v park_modes="$SP_PARK_MODES" "$STATS"'
	$1 == "RUN" { runs[$2 " " $3]++; next }
	{ k = $2 " " $3 " " $4 " " $5; keys[k] = 1; vals[k] = vals[k] " " $6 }
	END {
		for (k in keys) {
			split(k, f, " ")
			nr = runs[f[1] " " f[2]]
			printf "%s %s %s %.0f\t%-9s %-6s %-7s %-32s %s\n", f[1], f[2], f[3],
				q(vals[k], nr, 0.5), f[1], mode_name(f[2]), f[3], f[4], fmt(vals[k], nr, 0)
		}
	}' | sorted_rows -k1,1V -k2,2n -k3,3r -k4,4nr | sed '1i\
placement park   site    function                         contentions'

# park_slab of a run: the "delta" of metric park_slab in its slabstat diff
# (0 when the kernel has no such counter or the file is missing)
parks_of() {
	local f=$runs_dir/$1/park$2/$3.json
	[ -f "$f" ] || { echo 0; return; }
	awk '/"park_slab": *\{/ { in_ps = 1 }
		in_ps && match($0, /"delta": *-?[0-9]+/) {
			v = substr($0, RSTART, RLENGTH)
			sub(/"delta": */, "", v)
			print v + 0; found = 1; exit
		}
		END { if (!found) print 0 }' "$f"
}

wait_row() {
	local parks
	parks=$(parks_of "$1" "$2" "$3")
	awk -v p="$1" -v m="$2" -v parks="$parks" '
		/^contentions: / { c = $2 }
		/^contention_point: / { fn = $3; sub(/\+0x.*/, "", fn); if (fn == "__slab_free") w += $2 }
		END { print p, m, parks, w + 0, c + 0 }' "$4"
}

echo
echo "== parks against waits: slabs parked per run (park_slab), waits in __slab_free()"
echo "   and all contentions, median (min-max); 'vs park=0' compares the medians;"
echo "   'beyond spread' when the interquartile ranges of the mode and of park=0"
echo "   do not overlap, 'within spread' when they do (the runs do not separate"
echo "   them); lockdep records the first 4 call sites a run, so a run whose"
echo "   first sites are elsewhere counts 0 waits in __slab_free()"
# two parts of <= 100 columns: the parks and the waits in __slab_free(),
# then all contentions
wait_table() {
	each_run wait_row | awk -v part="$1" -v park_modes="$SP_PARK_MODES" "$STATS"'
		{ k = $1 " " $2; keys[k] = 1; n[k]++
		  pk[k] = pk[k] " " $3; w[k] = w[k] " " $4; c[k] = c[k] " " $5 }
		function verdict(a, na, b, nb) {
			if (q(a, na, 0.75) < q(b, nb, 0.25) || q(b, nb, 0.75) < q(a, na, 0.25))
				return "beyond spread"
			return "within spread"
		}
		function cmp(s, ns, z, nz,   d) {
			if (nz == 0)
				return "-"
			d = rnd(q(z, nz, 0.5)) - rnd(q(s, ns, 0.5))
			return sprintf("%.0f %s, %s", d < 0 ? -d : d, d < 0 ? "more" : "fewer",
				       verdict(s, ns, z, nz))
		}
		END {
			for (k in keys) {
				split(k, pm, " ")
				z = pm[1] " 0"
				printf "%s %s\t%-9s %-6s %4d  ", pm[1], pm[2], pm[1], mode_name(pm[2]), n[k]
				if (part == 1)
					printf "%-20s %-20s %s\n", fmt(pk[k], n[k], 0), fmt(w[k], n[k], 0),
						(pm[2] == 0) ? "-" : cmp(w[k], n[k], w[z], n[z])
				else
					printf "%-20s %s\n", fmt(c[k], n[k], 0),
						(pm[2] == 0) ? "-" : cmp(c[k], n[k], c[z], n[z])
			}
		}' | sorted_rows -k1,1V -k2,2n
}
echo "placement park   runs  parks                waits __slab_free    vs park=0"
wait_table 1
echo "placement park   runs  contentions          vs park=0"
wait_table 2
