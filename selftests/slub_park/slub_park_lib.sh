#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park_lib.sh - helpers shared by slub_park.sh and the project's guest
# scripts (tools/guest/guest-lib.sh sources it from the installed
# collection).  POSIX sh; busybox ash.  Functions only: the caller sets MOD
# (the module's name) and PARKDIR (the cache's debugfs directory of the
# series); WERR and SPLAT_RE are set for the caller.
# shellcheck disable=SC2034

# nap SECONDS: a fractional sleep where supported, else 1 s
nap() {
	sleep "$1" 2>/dev/null || sleep 1
}

# loop_until TRIES CMD...: CMD until it succeeds, TRIES times at most,
# 0.1 s apart (livepatch/functions.sh's loop_until)
loop_until() {
	lu_n=$1
	shift
	while ! "$@"; do
		lu_n=$((lu_n - 1))
		[ "$lu_n" -gt 0 ] || return 1
		nap 0.1
	done
}

# parked_now: the parked count ($PARKDIR/parked); empty when unreadable
parked_now() {
	pn_v=
	{ read -r pn_v < "$PARKDIR/parked"; } 2>/dev/null
	echo "$pn_v"
}

parked_zero() {
	[ "$(parked_now)" = 0 ]
}

# parked_settle: wait (read-only) up to 2 s for parked to drop to 0; prints
# the last value
parked_settle() {
	loop_until 20 parked_zero
	parked_now
}

# write_file PATH VALUE: 0 on success; else WERR is the shell's error text
# (e.g. "sh: write error: Invalid argument")
write_file() {
	WERR=$( { echo "$2" > "$1"; } 2>&1 )
}

# sum_of FILE: the first field of a counter file ("<sum> N0=.."); empty
# when unreadable
sum_of() {
	sum_v=
	{ read -r sum_v _ < "$1"; } 2>/dev/null
	echo "$sum_v"
}

# stat_files SLABDIR: the SLUB statistics of a cache, its 0600 attributes
# other than the tunables and triggers
stat_files() {
	find "$1/" -maxdepth 1 -type f -perm 600 | while read -r sf_f; do
		case "${sf_f##*/}" in
		min_partial|cpu_partial|validate|failslab|shrink|\
		remote_node_defrag_ratio|skip_kfence) continue ;;
		esac
		echo "${sf_f##*/}"
	done
}

# clear_stat_files SLABDIR: write 0 to each of them
clear_stat_files() {
	for cs_f in $(stat_files "$1"); do
		echo 0 > "$1/$cs_f"
	done
	return 0
}

# stat_snapshot SLABDIR: "NAME SUM" for each of them, a line each
stat_snapshot() {
	for ss_f in $(stat_files "$1"); do
		echo "$ss_f $(sum_of "$1/$ss_f")"
	done
}

# cpulist_expand LIST: the ids of a cpulist string ("0-1,4"), one a line
cpulist_expand() {
	echo "$1" | awk -F, '{
		for (i = 1; i <= NF; i++) {
			n = split($i, r, "-")
			for (c = r[1]; c <= r[n]; c++)
				print c
		} }'
}

# cpulist_count FILE: how many ids a cpulist file names (cat, not read:
# busybox's read builtin gets nothing from the node cpulist files)
cpulist_count() {
	cpulist_expand "$(cat "$1" 2>/dev/null)" | wc -l
}

# online_nodes: the online node ids, one a line (0 without CONFIG_NUMA)
online_nodes() {
	cpulist_expand "$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)"
}

mod_loaded() {
	[ -d "/sys/module/$MOD" ]
}

# load_splat_re DIR: SPLAT_RE from DIR/splat.ere, the one regex of the
# kernel problems that fail a test
SPLAT_RE=
load_splat_re() {
	if [ ! -r "$1/splat.ere" ]; then
		echo "Error: $1/splat.ere is missing (install it with the test)" >&2
		return 1
	fi
	read -r SPLAT_RE < "$1/splat.ere"
}
