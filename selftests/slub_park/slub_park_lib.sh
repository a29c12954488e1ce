#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of slub_park.sh and of the project's guest scripts
# (tools/guest/guest-lib.sh).  The caller sets MOD and PARKDIR.
# shellcheck disable=SC2034

# loop_until TRIES CMD...: CMD until it succeeds, TRIES times, 0.1 s apart
loop_until() {
	lu_n=$1
	shift
	while ! "$@"; do
		lu_n=$((lu_n - 1))
		[ "$lu_n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# parked_now: the parked count, read by the shell itself: an exec can take
# longer than the unpark work's 100 ms under TCG (bursts then seem unparked)
parked_now() {
	pn_v=
	{ read -r pn_v < "$PARKDIR/parked"; } 2>/dev/null
	echo "$pn_v"
}

parked_zero() {
	[ "$(parked_now)" = 0 ]
}

# parked_settle: the parked count once 0, or after 2 s (only reads it)
parked_settle() {
	loop_until 20 parked_zero
	parked_now
}

# write_file PATH VALUE: 0 on success, else WERR is the shell's error text
write_file() {
	WERR=$( { echo "$2" > "$1"; } 2>&1 )
}

# sum_of FILE: the sum of a counter file ("SUM N0=..")
sum_of() {
	sum_v=
	{ read -r sum_v _ < "$1"; } 2>/dev/null
	echo "$sum_v"
}

# stat_files SLABDIR: the cache's SLUB statistics (0600, not a tunable)
stat_files() {
	find "$1/" -maxdepth 1 -type f -perm 600 | sed 's|.*/||' | grep -vxE \
		-e 'min_partial|cpu_partial|validate|failslab|shrink' -e 'remote_node_defrag_ratio|skip_kfence'
}

clear_stat_files() {
	for cs_f in $(stat_files "$1"); do
		echo 0 > "$1/$cs_f"
	done
	return 0
}

# stat_snapshot SLABDIR: "NAME SUM" for each statistic
stat_snapshot() {
	for ss_f in $(stat_files "$1"); do
		echo "$ss_f $(sum_of "$1/$ss_f")"
	done
}

# cpulist_expand LIST: the ids of a cpulist ("0-1,4"), one a line
cpulist_expand() {
	echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) {
		n = split($i, r, "-")
		for (c = r[1]; c <= r[n]; c++)
			print c } }'
}

# cpulist_count FILE (cat: busybox's read gets nothing from node cpulists)
cpulist_count() {
	cpulist_expand "$(cat "$1" 2>/dev/null)" | wc -l
}

mod_loaded() {
	[ -d "/sys/module/$MOD" ]
}

# load_splat_re DIR: SPLAT_RE, the kernel problems that fail a test
load_splat_re() {
	read -r SPLAT_RE < "$1/splat.ere" && return
	echo "Error: no $1/splat.ere (install it with the test)" >&2
	return 1
}
