#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The &n->list_lock tables of 'make run LOCKSTAT=1': per placement and
# parking mode, the median over the runs of contentions, acquisitions,
# contended share, and wait time total/avg/max (microseconds); then the
# class's call sites per function, from the tools/lockstat-report.sh
# files the guest wrote.
#
# Usage: tools/summarize-lockstat.sh LOCKSTAT_DIR
#   LOCKSTAT_DIR/<placement>-park<mode>-<round>.txt  ("key: value" lines)

set -euo pipefail
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 LOCKSTAT_DIR" >&2
	exit 2
fi
dir=$1

# each_run FUNC: FUNC PLACEMENT MODE FILE, for every run file
each_run() {
	local f b rest
	for f in "$dir"/*-park*-*.txt; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .txt)
		rest=${b#*-park}
		"$1" "${b%%-park*}" "${rest%%-*}" "$f"
	done
}

# awk: median of the space-separated values S, padded with zeros to N
# values (runs that did not report the row)
MEDIAN='
function median(s, n,   a, k, i, j, t) {
	k = split(s, a, " ")
	if (n < k)
		n = k
	for (i = k + 1; i <= n; i++)
		a[i] = 0
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# awk: the park mode by name
MODE_NAME='
function mode_name(m) {
	return m == 0 ? "off" : m == 1 ? "on" : m == 2 ? "always" : m
}'

# The awk programs below print "SORT KEYS<TAB>row"; the rows are sorted on
# the keys (mode by number) and printed without them.
sorted_rows() {
	LC_ALL=C sort "$@" | cut -f2-
}

class_row() {
	awk -v p="$1" -v m="$2" -F': ' '
		{ v[$1] = $2 }
		END { print p, m, v["contentions"], v["acquisitions"], v["waittime_total_us"],
			v["waittime_avg_us"], v["waittime_max_us"] }' "$3"
}

echo
echo "== &n->list_lock (CONFIG_LOCK_STAT; all caches' list_locks, medians of the runs)"
each_run class_row | awk "$MEDIAN$MODE_NAME"'
	{ k = $1 " " $2; keys[k] = 1
	  for (i = 3; i <= 7; i++) val[k, i] = val[k, i] " " $i }
	END {
		for (k in keys) {
			split(k, pm, " ")
			c = median(val[k, 3]); a = median(val[k, 4])
			printf "%s %s\t%-10s %-7s %12.0f %14.0f %8.3f%% %14.2f %10.2f %10.2f\n",
				pm[1], pm[2], pm[1], mode_name(pm[2]), c, a, (a > 0 ? 100 * c / a : 0),
				median(val[k, 5]), median(val[k, 6]), median(val[k, 7])
		}
	}' | sorted_rows -k1,1 -k2,2n | sed '1i\
placement  park     contentions   acquisitions contended  wait total us     avg us     max us'

# Where the waits were: lockdep's call sites of the class (the first four
# distinct sites per run, see tools/lockstat-report.sh), summed per
# function, median over the runs (a run without the site counts 0).
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
		}' "$3"
}

echo
echo "== &n->list_lock call sites: waiter = contention point (where a CPU waited),"
echo "   holder = contending point (where the CPU it waited for took the lock);"
echo "   lockdep keeps the first 4 sites of each kind per run"
each_run site_rows | awk "$MEDIAN$MODE_NAME"'
	$1 == "RUN" { runs[$2 " " $3]++; next }
	{ k = $2 " " $3 " " $4 " " $5; keys[k] = 1; vals[k] = vals[k] " " $6 }
	END {
		for (k in keys) {
			split(k, f, " ")
			c = median(vals[k], runs[f[1] " " f[2]])
			printf "%s %s %s %.0f\t%-10s %-7s %-7s %-32s %12.0f\n", f[1], f[2], f[3], c,
				f[1], mode_name(f[2]), f[3], f[4], c
		}
	}' | sorted_rows -k1,1 -k2,2n -k3,3r -k4,4nr | sed '1i\
placement  park    site    function                          contentions'
