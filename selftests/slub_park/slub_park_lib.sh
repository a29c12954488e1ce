#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park_lib.sh - helpers shared by slub_park.sh and the project's guest
# scripts (tools/guest/guest-lib.sh sources it from the installed
# collection).  Installed with the kselftest.  POSIX sh; busybox ash.
#
# Functions only; the caller sets MOD (the module's name) for mod_loaded
# and PARKDIR (the cache's debugfs directory of the series) for parked_*.
# WERR and SPLAT_RE are set for the caller.
# shellcheck disable=SC2034
#
#   nap SECONDS            fractional sleep where supported, else 1 s
#   loop_until TRIES CMD...
#                          run CMD until it succeeds, TRIES times at most,
#                          0.1 s apart (livepatch/functions.sh's loop_until)
#   parked_now             the parked count ($PARKDIR/parked, one number);
#                          empty when it cannot be read
#   parked_settle          wait (read-only) up to 2 s for parked to drop to
#                          0; prints the last value
#   write_file PATH VALUE  0 on success; on failure WERR holds the shell's
#                          error text (e.g. "sh: write error: Invalid argument")
#   sum_of FILE            first field of a counter file ("<sum> N0=..")
#   stat_files SLABDIR     the SLUB statistics of a cache: its 0600
#                          attributes other than the tunables and triggers
#   clear_stat_files SLABDIR
#                          write 0 to each of them
#   stat_snapshot SLABDIR  "NAME SUM" for each of them, a line each
#   cpulist_count FILE     how many CPUs a cpulist file ("0-1,4") names
#   cpulist_expand LIST    the CPUs of a cpulist string, one a line
#   online_nodes           the online node ids, one a line
#   mod_loaded             $MOD is loaded
#   load_splat_re DIR      SPLAT_RE from DIR/splat.ere: the one regex of the
#                          kernel problems that fail a test

nap() {
	sleep "$1" 2>/dev/null || sleep 1
}

loop_until() {
	lu_n=$1
	shift
	while ! "$@"; do
		lu_n=$((lu_n - 1))
		[ "$lu_n" -gt 0 ] || return 1
		nap 0.1
	done
}

parked_now() {
	pn_v=
	{ read -r pn_v < "$PARKDIR/parked"; } 2>/dev/null
	echo "$pn_v"
}

parked_zero() {
	[ "$(parked_now)" = 0 ]
}

parked_settle() {
	loop_until 20 parked_zero
	parked_now
}

write_file() {
	WERR=$( { echo "$2" > "$1"; } 2>&1 )
}

sum_of() {
	sum_v=
	if [ -r "$1" ]; then
		read -r sum_v _ < "$1" || sum_v=
	fi
	echo "${sum_v:-}"
}

stat_files() {
	find "$1/" -maxdepth 1 -type f -perm 600 | while read -r sf_f; do
		case "${sf_f##*/}" in
		min_partial|cpu_partial|validate|failslab|shrink|\
		remote_node_defrag_ratio|skip_kfence) continue ;;
		esac
		echo "${sf_f##*/}"
	done
}

clear_stat_files() {
	for cs_f in $(stat_files "$1"); do
		echo 0 > "$1/$cs_f"
	done
	return 0
}

stat_snapshot() {
	for ss_f in $(stat_files "$1"); do
		ss_v=
		read -r ss_v _ < "$1/$ss_f" || ss_v=
		echo "$ss_f ${ss_v:-}"
	done
}

cpulist_expand() {
	echo "$1" | awk -F, '{
		for (i = 1; i <= NF; i++) {
			n = split($i, r, "-")
			for (c = r[1]; c <= r[n]; c++)
				print c
		} }'
}

# Not "read < FILE": busybox's read builtin gets nothing from the node
# cpulist files (sysfs binary attributes), awk reads them whole.
cpulist_count() {
	awk -F, '{ n = 0
		for (i = 1; i <= NF; i++) {
			k = split($i, r, "-")
			n += r[k] - r[1] + 1
		}
		print n }' "$1"
}

online_nodes() {
	if [ ! -r /sys/devices/system/node/online ]; then
		echo 0
		return
	fi
	tr ',' '\n' < /sys/devices/system/node/online | awk -F- '
		NF == 1 && $1 != "" { print $1 }
		NF == 2 { for (i = $1; i <= $2; i++) print i }'
}

mod_loaded() {
	[ -d "/sys/module/$MOD" ]
}

SPLAT_RE=
load_splat_re() {
	if [ ! -r "$1/splat.ere" ]; then
		echo "Error: $1/splat.ere is missing (install it with the test)" >&2
		return 1
	fi
	read -r SPLAT_RE < "$1/splat.ere"
}
