#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# lockstat-report.sh: contention figures of one lock class from
# /proc/lock_stat (CONFIG_LOCK_STAT; build with --config lockstat).
# busybox sh compatible: runs in the guest.
#
#   lockstat-report.sh clear                   zero all lock statistics
#   lockstat-report.sh report [--csv] [LABEL]  figures of the class
#   lockstat-report.sh header                  the CSV header line
#
# The default class is "&n->list_lock", the kmem_cache_node list_lock.
# lockdep keys it by the spin_lock_init() call site, so the figures cover
# the list_lock of every cache and node, not one cache: run it around a
# window in which the cache under test dominates.
#
# report prints "key: value" lines (or one CSV line with --csv):
#   label, class, contentions, acquisitions, con_bounces, acq_bounces,
#   waittime_total_us, waittime_avg_us, waittime_max_us
# then, key-value form only, the class's call sites as lockdep records
# them (the first LOCKSTAT_POINTS = 4 distinct sites since the clear):
#   contention_point: COUNT SYMBOL    where a CPU waited for the lock
#   contending_point: COUNT SYMBOL    where the holder had taken it
# Times are microseconds as printed by kernel/locking/lockdep_proc.c.
# A class that has not been acquired since the last clear has no line
# in /proc/lock_stat and reports zeros.
#
# Environment: LOCK_STAT_FILE (default /proc/lock_stat), LOCK_CLASS.

LOCK_STAT_FILE=${LOCK_STAT_FILE:-/proc/lock_stat}
LOCK_CLASS=${LOCK_CLASS:-&n->list_lock}
CSV_HEADER=label,class,contentions,acquisitions,con_bounces,acq_bounces,waittime_total_us,waittime_avg_us,waittime_max_us

usage() {
	echo "usage: $0 clear | report [--csv] [LABEL] | header" >&2
	exit 2
}

need_file() {
	if [ ! -e "$LOCK_STAT_FILE" ]; then
		echo "$0: no $LOCK_STAT_FILE: the kernel lacks CONFIG_LOCK_STAT (build it with tools/kernel/build-kernel.sh --config lockstat)" >&2
		exit 1
	fi
}

# Sum every line of the class: "%40s:" name (optionally with #N version,
# /N subclass, -W/-R for rwlocks), then 12 columns:
#   con-bounces contentions waittime-min waittime-max waittime-total
#   waittime-avg acq-bounces acquisitions holdtime-min/max/total/avg
parse() {
	awk -v class="$LOCK_CLASS" -v label="$1" -v csv="$2" '
	function base(name) {
		sub(/^ +/, "", name)
		sub(/-[WR]$/, "", name)
		sub(/\/[0-9]+$/, "", name)
		sub(/#[0-9]+$/, "", name)
		return name
	}
	# a class line is followed by a dash line, its contention points,
	# a dash line and its contending points (seq_stats())
	/^ *-+ *$/ {
		if (inclass)
			block++
		next
	}
	/\[<[0-9a-fA-F]+>\]/ {
		if (!inclass)
			next
		n = split($0, f, " ")
		for (j = 1; j <= n; j++)
			if (f[j] ~ /^\[</)
				break
		if (j < 2 || j > n)
			next
		if (base(substr($0, 1, 40)) != class)
			next
		sym = f[j + 1]
		for (k = j + 2; k <= n; k++)
			sym = sym " " f[k]
		pts[++npts] = (block == 1 ? "contention_point" : "contending_point") ": " f[j - 1] " " sym
		next
	}
	{
		i = index($0, ":")
		if (!i) {
			inclass = 0
			next
		}
		name = base(substr($0, 1, i - 1))
		inclass = (name == class)
		block = 0
		if (!inclass)
			next
		n = split(substr($0, i + 1), f, " ")
		if (n < 12)
			next
		conb += f[1]; con += f[2]
		if (f[4] + 0 > wmax)
			wmax = f[4] + 0
		wtot += f[5]; acqb += f[7]; acq += f[8]
	}
	END {
		avg = con ? wtot / con : 0
		if (csv) {
			printf "%s,%s,%.0f,%.0f,%.0f,%.0f,%.2f,%.2f,%.2f\n", label, class, con, acq, conb, acqb, wtot, avg, wmax
			exit
		}
		printf "label: %s\nclass: %s\n", label, class
		printf "contentions: %.0f\nacquisitions: %.0f\n", con, acq
		printf "con_bounces: %.0f\nacq_bounces: %.0f\n", conb, acqb
		printf "waittime_total_us: %.2f\nwaittime_avg_us: %.2f\nwaittime_max_us: %.2f\n", wtot, avg, wmax
		for (j = 1; j <= npts; j++)
			print pts[j]
	}' "$LOCK_STAT_FILE"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
clear)
	[ $# -eq 0 ] || usage
	need_file
	if ! echo 0 >"$LOCK_STAT_FILE"; then
		echo "$0: cannot write $LOCK_STAT_FILE (root needed)" >&2
		exit 1
	fi
	;;
report)
	csv=0
	if [ "${1:-}" = --csv ]; then
		csv=1
		shift
	fi
	[ $# -le 1 ] || usage
	need_file
	if [ ! -r "$LOCK_STAT_FILE" ]; then
		echo "$0: cannot read $LOCK_STAT_FILE (root needed)" >&2
		exit 1
	fi
	parse "${1:-}" "$csv"
	;;
header)
	[ $# -eq 0 ] || usage
	echo "$CSV_HEADER"
	;;
-h|--help)
	echo "usage: $0 clear | report [--csv] [LABEL] | header"
	;;
*)
	usage
	;;
esac
