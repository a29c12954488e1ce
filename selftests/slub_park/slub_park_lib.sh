#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of slub_park.sh and of the project's guest scripts
# (tools/guest/guest-lib.sh).  The caller sets MOD, PARKDIR, SLAB and DBG.
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

# sum_of FILE: the sum of a counter file ("SUM N0=.."), read by the shell
# itself: an exec can take longer than the unpark work's 100 ms under TCG
# (bursts then seem unparked)
sum_of() {
	sum_v=
	{ read -r sum_v _ < "$1"; } 2>/dev/null
	echo "$sum_v"
}

# stat_sum NAME: the sum of the cache's counter NAME (SLAB set)
stat_sum() { sum_of "$SLAB/$1"; }
# run_active: the module is running a run (DBG set)
run_active() { [ "$(cat "$DBG/status" 2>/dev/null)" = running ]; }
# parked_now: the parked count
parked_now() { sum_of "$PARKDIR/parked"; }
parked_zero() { [ "$(parked_now)" = 0 ]; }
# parked_settle: the parked count once 0, or after 2 s (only reads it)
parked_settle() { loop_until 20 parked_zero; parked_now; }
# write_file PATH VALUE: 0 on success, else WERR is the shell's error text
write_file() { WERR=$( { echo "$2" > "$1"; } 2>&1 ); }

# stat_files SLABDIR: the cache's SLUB statistics (0600, not a tunable)
stat_files() {
	find "$1/" -maxdepth 1 -type f -perm 600 | sed 's|.*/||' | grep -vxE \
		-e 'min_partial|cpu_partial|validate|failslab|shrink' -e 'remote_node_defrag_ratio|skip_kfence'
}

clear_stat_files() {
	for cs_f in $(stat_files "$1"); do echo 0 > "$1/$cs_f"; done
	return 0
}

# stat_snapshot SLABDIR: "NAME SUM" for each statistic
stat_snapshot() {
	for ss_f in $(stat_files "$1"); do echo "$ss_f $(sum_of "$1/$ss_f")"; done
}

# choose_nodes [SYS]: the run nodes, read from SYS (/sys/devices/system):
# NODE_A, the first online node with online CPUs and normal memory (the
# module refuses others); NODE_B, the farthest other such node by NODE_A's
# distance row, else NODE_A; NODES, the online nodes, and NR_NODES;
# NR_NODE_IDS, of node/possible; NODE_SMALL, the one of the two with fewer
# online CPUs (NODE_A if even), NODE_SMALL_CPUS; NODE_ARGS, what each load
# passes; NODE_NOTE, the choice in words.  Without such a node, skip_all.
choose_nodes() {
	eval "$(awk -v sys="${1:-/sys/devices/system}" '
	function rd(f, def,  l) { if ((getline l < f) <= 0) l = def; close(f); return l }
	function ids(s, a, set,  p, n, r, m, i, c, k) {	# of a cpulist ("0-1,4")
		n = split(s, p, ",")
		for (i = 1; i <= n; i++) {
			m = split(p[i], r, "-")
			for (c = r[1] + 0; c <= r[m] + 0; c++) { a[++k] = c; set[c] = 1 }
		}
		return k + 0
	}
	function ncpus(n,  c, s, k, i, t) {	# online, of node n
		for (i = k = ids(rd(sys "/node/node" n "/cpulist", on), c, s); i > 0; i--)
			t += (c[i] in online)
		return t + 0
	}
	BEGIN {
		ids(on = rd(sys "/cpu/online", ""), x, online)
		nn = ids(rd(sys "/node/online", 0), id, y)
		ids(rd(sys "/node/has_normal_memory", 0), z, mem)
		for (i = 1; i <= nn; i++) {
			all = all (i > 1 ? "," : "") (n = id[i])
			sp = sp (i > 1 ? " " : "") n
			if (!(cpus[n] = ncpus(n)))
				why = why "; node " n ": no online CPU"
			else if (!(n in mem))
				why = why "; node " n ": no normal memory"
			else
				ok = ok (ok == "" ? "" : ",") n
		}
		if (ok == "") {
			print "skip_all \"no online node has online CPUs and normal memory (online: " all why ")\""
			exit
		}
		a = ok
		sub(/,.*/, "", a)
		split(rd(sys "/node/node" a "/distance", ""), d, " ")
		b = a; best = -1
		for (i = 1; i <= nn; i++)
			if (id[i] != a && index("," ok ",", "," id[i] ",") && d[i] + 0 > best)
				{ best = d[i] + 0; b = id[i] }
		p = rd(sys "/node/possible", 0)
		sub(/.*[-,]/, "", p)
		s = cpus[b] < cpus[a] ? b : a
		note = "(online: " all "; with online CPUs and normal memory: " ok why ")"
		print "NODES=\"" sp "\"; NR_NODES=" nn "; NR_NODE_IDS=" p + 1 "; NODE_A=" a \
			"; NODE_B=" b "; NODE_SMALL=" s "; NODE_SMALL_CPUS=" cpus[s]
		if (a == b)
			print "NODE_ARGS=\"placement=local alloc_node=" a "\"; NODE_NOTE=\"alloc_node=" \
				a ", no second node for cross-node runs " note "\""
		else
			print "NODE_ARGS=\"placement=cross alloc_node=" a " free_node=" b "\"; " \
				"NODE_NOTE=\"alloc_node=" a " free_node=" b ", distance " best " " note "\""
	}')"
}

# cpulist_expand LIST: the ids of a cpulist ("0-1,4"), one a line
cpulist_expand() {
	echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) {
		n = split($i, r, "-")
		for (c = r[1]; c <= r[n]; c++)
			print c } }'
}

# cpulist_count FILE (cat: busybox's read gets nothing from node cpulists)
cpulist_count() { cpulist_expand "$(cat "$1" 2>/dev/null)" | wc -l; }
mod_loaded() { [ -d "/sys/module/$MOD" ]; }

# load_splat_re DIR: SPLAT_RE, the kernel problems that fail a test
load_splat_re() {
	read -r SPLAT_RE < "$1/splat.ere" && return
	echo "Error: no $1/splat.ere (install it with the test)" >&2
	return 1
}
