#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The &n->list_lock table of 'make run LOCKSTAT=1': per placement and
# parking mode, the median over the runs of contentions, acquisitions,
# contended share, and wait time total/avg/max (microseconds), from the
# tools/lockstat-report.sh files the guest wrote.
#
# Usage: tools/summarize-lockstat.sh LOCKSTAT_DIR
#   LOCKSTAT_DIR/<placement>-park<mode>-<round>.txt  ("key: value" lines)

set -euo pipefail
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 LOCKSTAT_DIR" >&2
	exit 2
fi
dir=$1
echo
echo "== &n->list_lock (CONFIG_LOCK_STAT; all caches' list_locks, medians of the runs)"
for f in "$dir"/*-park*-*.txt; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .txt)
	p=${b%%-park*}
	rest=${b#*-park}
	m=${rest%%-*}
	awk -v p="$p" -v m="$m" -F': ' '
		{ v[$1] = $2 }
		END { print p, m, v["contentions"], v["acquisitions"], v["waittime_total_us"],
			v["waittime_avg_us"], v["waittime_max_us"] }' "$f"
done | awk '
	{ k = $1 " " $2; keys[k] = 1
	  for (i = 3; i <= 7; i++) val[k, i] = val[k, i] " " $i }
	function median(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (k in keys) {
			split(k, pm, " ")
			c = median(val[k, 3]); a = median(val[k, 4])
			printf "%-10s %-7s %12.0f %14.0f %8.3f%% %14.2f %10.2f %10.2f\n", pm[1], pm[2],
				c, a, (a > 0 ? 100 * c / a : 0), median(val[k, 5]), median(val[k, 6]), median(val[k, 7])
		}
	}' | LC_ALL=C sort -k1,1 -k2,2 |
	sed -E 's/^([a-z]+ +)0      /\1off    /; s/^([a-z]+ +)1      /\1on     /; s/^([a-z]+ +)2      /\1always /' | sed '1i\
placement  park     contentions   acquisitions contended  wait total us     avg us     max us'

# Where the waits were: lockdep's call sites of the class (the first four
# distinct sites per run, see tools/lockstat-report.sh), summed per
# function, median over the runs (a run without the site counts 0).
echo
echo "== &n->list_lock call sites: waiter = contention point (where a CPU waited),"
echo "   holder = contending point (where the CPU it waited for took the lock);"
echo "   lockdep keeps the first 4 sites of each kind per run"
for f in "$dir"/*-park*-*.txt; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .txt)
	p=${b%%-park*}
	rest=${b#*-park}
	m=${rest%%-*}
	awk -v p="$p" -v m="$m" -v run="$b" '
		/^contention_point: / || /^contending_point: / {
			fn = $3
			sub(/\+0x.*/, "", fn)
			kind = ($1 == "contention_point:") ? "waiter" : "holder"
			n[kind " " fn] += $2
		}
		END {
			print "RUN", p, m, run
			for (k in n)
				print "SITE", p, m, k, n[k], run
		}' "$f"
done | awk '
	$1 == "RUN" { runs[$2 " " $3] = runs[$2 " " $3] + 1; next }
	{ k = $2 " " $3 " " $4 " " $5; keys[k] = 1; vals[k] = vals[k] " " $6 }
	function median(s, total,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = n + 1; i <= total; i++)
			a[i] = 0
		n = total
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (k in keys) {
			split(k, f, " ")
			printf "%-10s %-7s %-7s %-32s %12.0f\n", f[1], f[2], f[3], f[4], median(vals[k], runs[f[1] " " f[2]])
		}
	}' | LC_ALL=C sort -k1,1 -k2,2 -k3,3r -k5,5nr |
	sed -E 's/^([a-z]+ +)0      /\1off    /; s/^([a-z]+ +)1      /\1on     /; s/^([a-z]+ +)2      /\1always /' | sed '1i\
placement  park    site    function                          contentions'
