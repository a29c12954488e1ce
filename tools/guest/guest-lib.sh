#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the guest scripts (guest-*.sh), sourced from
# /slabpark/tools/guest/guest-lib.sh, where slabpark.vm.stage puts it, and
# by guest-compare.sh and run-host.sh on the host too (make run HOST=1,
# with SLABPARK_DIR, SLABPARK_KO and SLABPARK_OUT set).  busybox sh.  It
# sources the kselftest's slub_park_lib.sh (write_file, sum_of, parked_*,
# ...); a script whose checks call bad sources ktap_helpers.sh (ktap_load).
#
# PARKDIR is the cache's debugfs directory of the series (park: 0 never,
# 1 when the list_lock trylock fails, 2 always; parked: the slabs parked
# now); SLAB has the sysfs files and counters (park_slab, unpark_slab).

# These variables are for the scripts that source this file.
# shellcheck disable=SC2034
S=${SLABPARK_DIR:-/slabpark}
KO=${SLABPARK_KO:-$S/mm/slub_stress.ko}
MOD=slub_stress
CACHE=nfs_page_test
SLAB=/sys/kernel/slab/$CACHE
DBG=/sys/kernel/debug/$MOD
PARKDIR=/sys/kernel/debug/slab/$CACHE
KML=/sys/kernel/debug/kmemleak
OUT=${SLABPARK_OUT:-$S/out}
mkdir -p "$OUT"

for gl_f in "$S/kselftest/slub_park/slub_park_lib.sh" "$S/selftests/slub_park/slub_park_lib.sh"; do
	if [ -r "$gl_f" ]; then
		# shellcheck source=selftests/slub_park/slub_park_lib.sh
		. "$gl_f"
		break
	fi
done
command -v write_file >/dev/null || { echo "guest-lib.sh: no slub_park_lib.sh under $S" >&2; exit 1; }

NODE_CPUS=$(cpulist_count /sys/devices/system/node/node0/cpulist)
NNODES=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)

# ---- Topology: the two nodes of a run (guest-compare.sh, make run HOST=1),
# read from $TOPO_SYS (SLABPARK_SYSFS, a fake tree in the tests; /sys;
# KUNIT_RES and guest-kunit-mutants.sh's parameters are read there too).
#   topo_choose NEED_FREE  ALLOC_NODE and FREE_NODE when set (validated),
#       else two nodes with CPUs and normal memory, the free node the
#       farthest by the distance table; NEED_FREE 0 (local only) lets one
#       node do.  Sets TOPO_ALLOC TOPO_FREE, TOPO_THREADS (the smaller
#       node's online CPUs), TOPO_HALF, TOPO_WARN; false with TOPO_ERR
#   topo_write FILE    the facts, KEY=VALUE lines (after topo_choose)
TOPO_SYS=${SLABPARK_SYSFS:-/sys}
TOPO_ND=$TOPO_SYS/devices/system/node

# topo_list FILE: the ids of a cpulist/nodelist file, space-separated
# ("" when it is missing or empty)
topo_list() {
	[ -r "$1" ] || return 0
	tl_v=$(awk '{ print; exit }' "$1")
	[ -n "$tl_v" ] || return 0
	cpulist_expand "$tl_v" | tr '\n' ' ' | sed 's/ $//'
}
# topo_has ID LIST: ID is a word of LIST
topo_has() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
# topo_join LIST: the words with commas
topo_join() { echo "$1" | tr ' ' ','; }

# topo_node_cpus N: node N's online CPUs, space-separated
topo_node_cpus() {
	tnc_on=$(topo_list "$TOPO_SYS/devices/system/cpu/online")
	tnc_out=
	for tnc_c in $(topo_list "$TOPO_ND/node$1/cpulist"); do
		[ -z "$tnc_on" ] || topo_has "$tnc_c" "$tnc_on" || continue
		tnc_out="$tnc_out${tnc_out:+ }$tnc_c"
	done
	echo "$tnc_out"
}
# shellcheck disable=SC2046 # the CPUs are words
topo_ncpus() { set -- $(topo_node_cpus "$1"); echo $#; }

# topo_mem_nodes: the nodes with normal memory (slabs come from there);
# has_memory where the kernel has no has_normal_memory, else all online
topo_mem_nodes() {
	for tmn_f in has_normal_memory has_memory online; do
		if [ -r "$TOPO_ND/$tmn_f" ]; then
			topo_list "$TOPO_ND/$tmn_f"
			return
		fi
	done
}

# topo_dist A B: the distance from node A to node B (nodeA/distance lists
# one for each online node, in order); "?" when unknown
topo_dist() {
	td_i=0
	for td_n in $(topo_list "$TOPO_ND/online"); do
		td_i=$((td_i + 1))
		[ "$td_n" = "$2" ] || continue
		td_v=$(awk -v i="$td_i" '{ print $i; exit }' "$TOPO_ND/node$1/distance" 2>/dev/null)
		echo "${td_v:-?}"
		return
	done
	echo "?"
}

# topo_socket N: the physical_package_id of node N's first online CPU
# ("-" for a node without CPUs)
topo_socket() {
	# shellcheck disable=SC2046 # the CPUs are words
	set -- $(topo_node_cpus "$1")
	[ $# -gt 0 ] || { echo -; return; }
	cat "$TOPO_SYS/devices/system/cpu/cpu$1/topology/physical_package_id" 2>/dev/null || echo "?"
}

# topo_siblings CPU: CPU's thread siblings (itself included), space-separated
topo_siblings() {
	tsb=$(topo_list "$TOPO_SYS/devices/system/cpu/cpu$1/topology/thread_siblings_list")
	echo "${tsb:-$1}"
}

# topo_valid NAME ID: node ID can hold a run's threads (NAME=ID names it)
topo_valid() {
	case "$2" in
	''|*[!0-9]*) TOPO_ERR="$1=$2: not a node number (online nodes: $(topo_join "$TOPO_ONLINE"))"; return 1 ;;
	esac
	topo_has "$2" "$TOPO_ONLINE" ||
		{ TOPO_ERR="$1=$2: node $2 is not online (online nodes: $(topo_join "$TOPO_ONLINE"))"; return 1; }
	[ "$(topo_ncpus "$2")" -gt 0 ] ||
		{ TOPO_ERR="$1=$2: node $2 has no online CPUs (a memory-only node): the module's threads cannot run there"; return 1; }
}

# topo_warn MSG: one more warning, for the topology file and the log
topo_warn() { TOPO_WARN="$TOPO_WARN${TOPO_WARN:+; }$*"; }

topo_choose() {
	TOPO_ERR='' TOPO_WARN='' TOPO_ALLOC='' TOPO_FREE=''
	TOPO_ONLINE=$(topo_list "$TOPO_ND/online")
	TOPO_MEM=$(topo_mem_nodes)
	# the nodes a default may take: online CPUs and normal memory
	tc_ok=
	for tc_n in $TOPO_ONLINE; do
		[ "$(topo_ncpus "$tc_n")" -gt 0 ] && topo_has "$tc_n" "$TOPO_MEM" &&
			tc_ok="$tc_ok${tc_ok:+ }$tc_n"
	done
	if [ -n "${ALLOC_NODE:-}" ]; then
		topo_valid ALLOC_NODE "$ALLOC_NODE" || return 1
		topo_has "$ALLOC_NODE" "$TOPO_MEM" || {
			TOPO_ERR="ALLOC_NODE=$ALLOC_NODE: node $ALLOC_NODE has no normal memory (nodes with: $(topo_join "$TOPO_MEM")): its slabs would come from another node"
			return 1
		}
		TOPO_ALLOC=$ALLOC_NODE
	fi
	if [ -n "${FREE_NODE:-}" ]; then
		topo_valid FREE_NODE "$FREE_NODE" || return 1
		[ "$FREE_NODE" != "$TOPO_ALLOC" ] ||
			{ TOPO_ERR="FREE_NODE=$FREE_NODE: the same node as ALLOC_NODE (cross and balanced free on another node)"; return 1; }
		TOPO_FREE=$FREE_NODE
	fi
	if [ -z "$TOPO_ALLOC" ]; then
		for tc_n in $tc_ok; do
			[ "$tc_n" != "$TOPO_FREE" ] && { TOPO_ALLOC=$tc_n; break; }
		done
		[ -n "$TOPO_ALLOC" ] || {
			TOPO_ERR="no node with online CPUs and normal memory${TOPO_FREE:+ but FREE_NODE=$TOPO_FREE} for the allocators (online: $(topo_join "$TOPO_ONLINE"), with normal memory: $(topo_join "$TOPO_MEM")); set ALLOC_NODE"
			return 1
		}
	fi
	if [ -z "$TOPO_FREE" ]; then
		# the farthest by the distance table: on another socket
		tc_best=-1
		for tc_n in $tc_ok; do
			[ "$tc_n" != "$TOPO_ALLOC" ] || continue
			tc_d=$(topo_dist "$TOPO_ALLOC" "$tc_n")
			case "$tc_d" in ''|*[!0-9]*) tc_d=0 ;; esac
			[ "$tc_d" -gt "$tc_best" ] && { tc_best=$tc_d; TOPO_FREE=$tc_n; }
		done
		if [ -z "$TOPO_FREE" ] && [ "$1" = 1 ]; then
			TOPO_ERR="only node $TOPO_ALLOC has online CPUs and normal memory (online: $(topo_join "$TOPO_ONLINE")): cross and balanced need two such nodes"
			return 1
		fi
	fi
	TOPO_ALLOC_CPUS=$(topo_node_cpus "$TOPO_ALLOC")
	TOPO_FREE_CPUS=
	TOPO_THREADS=$(topo_ncpus "$TOPO_ALLOC")
	if [ -n "$TOPO_FREE" ]; then
		TOPO_FREE_CPUS=$(topo_node_cpus "$TOPO_FREE")
		tc_f=$(topo_ncpus "$TOPO_FREE")
		if [ "$tc_f" != "$TOPO_THREADS" ]; then
			topo_warn "node $TOPO_ALLOC has $TOPO_THREADS online CPUs, node $TOPO_FREE $tc_f: threads sized from the smaller"
			[ "$tc_f" -lt "$TOPO_THREADS" ] && TOPO_THREADS=$tc_f
		fi
		topo_has "$TOPO_FREE" "$TOPO_MEM" ||
			topo_warn "free node $TOPO_FREE has no normal memory: its frees of node $TOPO_ALLOC's objects may count as local in SLUB (into sheaves), while the module counts them remote"
		tc_sa=$(topo_socket "$TOPO_ALLOC") tc_sf=$(topo_socket "$TOPO_FREE")
		[ "$tc_sa" != "$tc_sf" ] || [ "$tc_sa" = "?" ] ||
			topo_warn "nodes $TOPO_ALLOC and $TOPO_FREE are on one socket (physical_package_id $tc_sa): cross is not cross-socket"
	fi
	TOPO_HALF=$((TOPO_THREADS / 2))
	[ "$TOPO_HALF" -ge 1 ] || TOPO_HALF=1
	topo_smt
}

# topo_smt: TOPO_SMT (most threads a core has among the alloc node's
# CPUs), TOPO_LOCAL (where local's freers run: the module puts allocator
# i on the node's CPU i and freer i on CPU TOPO_HALF + i, in cpulist order)
topo_smt() {
	TOPO_SMT=1
	for ts_c in $TOPO_ALLOC_CPUS; do
		# shellcheck disable=SC2046 # the CPUs are words
		set -- $(topo_siblings "$ts_c")
		[ $# -gt "$TOPO_SMT" ] && TOPO_SMT=$#
	done
	# shellcheck disable=SC2086 # the CPUs are words
	set -- $TOPO_ALLOC_CPUS
	ts_n=$# ts_i=0 ts_alloc='' ts_free='' ts_sib=0
	for ts_c in "$@"; do
		[ "$ts_i" -lt "$TOPO_HALF" ] && ts_alloc="$ts_alloc $ts_c"
		[ "$ts_i" -ge "$TOPO_HALF" ] && [ "$ts_i" -lt $((2 * TOPO_HALF)) ] && ts_free="$ts_free $ts_c"
		ts_i=$((ts_i + 1))
	done
	for ts_c in $ts_free; do
		for ts_s in $(topo_siblings "$ts_c"); do
			[ "$ts_s" != "$ts_c" ] && topo_has "$ts_s" "$ts_alloc" && { ts_sib=$((ts_sib + 1)); break; }
		done
	done
	ts_alloc=$(topo_join "${ts_alloc# }") ts_free=$(topo_join "${ts_free# }")
	if [ "$TOPO_SMT" = 1 ]; then
		TOPO_LOCAL="allocators on CPUs $ts_alloc, freers on CPUs ${ts_free:-$ts_alloc} (no SMT)"
	elif [ "$ts_sib" = 0 ]; then
		TOPO_LOCAL="allocators on CPUs $ts_alloc, freers on CPUs $ts_free: no freer on an allocator's core"
	else
		TOPO_LOCAL="allocators on CPUs $ts_alloc, freers on CPUs $ts_free: $ts_sib of $TOPO_HALF freers on an allocator's SMT sibling"
		topo_warn "SMT: in local, $ts_sib of $TOPO_HALF freers run on an allocator's sibling thread (they share a core)"
	fi
	[ "$ts_n" -ge $((2 * TOPO_HALF)) ] || TOPO_LOCAL="$TOPO_LOCAL (node $TOPO_ALLOC has $ts_n CPU(s): allocator and freer share it)"
}

topo_write() {
	tw_file=$1 tw_sock=''
	for tw_c in $(topo_list "$TOPO_SYS/devices/system/cpu/online"); do
		tw_p=$(cat "$TOPO_SYS/devices/system/cpu/cpu$tw_c/topology/physical_package_id" 2>/dev/null) || continue
		topo_has "$tw_p" "$tw_sock" || tw_sock="$tw_sock${tw_sock:+ }$tw_p"
	done
	# shellcheck disable=SC2086 # the sockets are words
	set -- $tw_sock
	tw_nsock=$#
	tw_table=
	for tw_n in $TOPO_ONLINE; do
		tw_table="$tw_table${tw_table:+;}$(awk '{ print; exit }' "$TOPO_ND/node$tw_n/distance" 2>/dev/null)"
	done
	tw_nodes=
	for tw_n in $TOPO_ONLINE; do
		tw_c=$(topo_join "$(topo_node_cpus "$tw_n")")
		tw_m=normal
		topo_has "$tw_n" "$TOPO_MEM" || tw_m=none
		tw_nodes="$tw_nodes${tw_nodes:+ }$tw_n:cpus=${tw_c:--}:mem=$tw_m:socket=$(topo_socket "$tw_n")"
	done
	{
		echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
		echo "sockets=$tw_nsock"
		echo "smt=$TOPO_SMT"
		echo "nodes=$tw_nodes"
		echo "alloc_node=$TOPO_ALLOC"
		echo "free_node=$TOPO_FREE"
		echo "alloc_cpus=$(topo_join "$TOPO_ALLOC_CPUS")"
		echo "free_cpus=$(topo_join "$TOPO_FREE_CPUS")"
		echo "distance=$([ -n "$TOPO_FREE" ] && topo_dist "$TOPO_ALLOC" "$TOPO_FREE")"
		echo "distance_table=$tw_table"
		echo "threads=$TOPO_THREADS"
		echo "local_threads=$TOPO_HALF"
		echo "local_placement=$TOPO_LOCAL"
		echo "warnings=$TOPO_WARN"
	} >"$tw_file"
}


say() { echo "# $*"; }

# in_round_order ROUND WORDS...: the words, reversed in even rounds, so
# that no mode of a comparison is always the first run of its round
in_round_order() {
	iro_r=$1
	shift
	if [ $((iro_r % 2)) = 1 ]; then
		echo "$*"
		return
	fi
	iro_out=
	for iro_w in "$@"; do iro_out="$iro_w${iro_out:+ $iro_out}"; done
	echo "$iro_out"
}

# ---- Test points, by the kselftest install's ktap_helpers.sh (ktap_load):
# tp_begin, then bad MSG for each failure ("# FAIL: MSG"), then tp_end NAME
# [COMMENT] ("ok N NAME # [COMMENT, ]<wall time>s" or "not ok"), or
# tp_skip NAME REASON ("ok N NAME # SKIP REASON").  FAILED: the failed
# names, comma-separated.  ktap_helpers.sh echoes NAME, COMMENT and REASON
# unquoted: no glob characters in them (and runs of blanks become one).
ktap_load() {
	kl_f=$S/kselftest/kselftest/ktap_helpers.sh
	[ -r "$kl_f" ] || { echo "guest-lib.sh: no $kl_f: the kselftest install is not staged" >&2; exit 2; }
	# shellcheck disable=SC1090 # a path of the guest
	. "$kl_f"
}
FAILED=
CASE_BAD=0
TP_T0=0
tp_begin() {
	CASE_BAD=0
	TP_T0=$(date +%s)
}
bad() {
	say "FAIL: $*"
	CASE_BAD=1
}
tp_end() {
	tp_d="$1 # ${2:+$2, }$(($(date +%s) - TP_T0))s"
	if [ "$CASE_BAD" = 0 ]; then
		ktap_test_pass "$tp_d"
	else
		ktap_test_fail "$tp_d"
		FAILED="$FAILED${FAILED:+,}$1"
	fi
}
tp_skip() {
	__ktap_test ok "$1" "SKIP $2"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

rval() { sed -n "s/^$1: //p" "$DBG/results"; }
has_park() { [ -f "$PARKDIR/park" ]; }
# the kernel has the per-cache switches (park-switch.patch), module or not
kernel_has_park() { ls /sys/kernel/debug/slab/*/park >/dev/null 2>&1; }
has_parked() { [ -f "$PARKDIR/parked" ]; }
has_stats() { [ -f "$SLAB/park_slab" ]; }
dmesg_tail() { dmesg | tail -n "${1:-8}" | sed 's/^/#   dmesg: /'; }

# unload: rmmod the module where loaded (bad when that fails)
unload() {
	mod_loaded || return 0
	timeout 120 rmmod "$MOD" || { bad "rmmod $MOD failed"; return 1; }
	! mod_loaded || { bad "$MOD still loaded after rmmod"; return 1; }
}

# park_all MODE: MODE into every cache's debugfs switch (a merged alias has
# no directory of its own there, debug caches have no switch); their
# number in PARK_ALL_N, the files in $OUT/park-all.list
PARK_ALL_N=0
park_all() {
	PARK_ALL_N=0
	: >"$OUT/park-all.list"
	for pa_f in /sys/kernel/debug/slab/*/park; do
		[ -f "$pa_f" ] || continue
		if write_file "$pa_f" "$1"; then
			PARK_ALL_N=$((PARK_ALL_N + 1))
			echo "$pa_f" >>"$OUT/park-all.list"
		else
			bad "echo $1 > $pa_f: $WERR"
		fi
	done
	[ "$PARK_ALL_N" -gt 0 ] || bad "park_all $1: no /sys/kernel/debug/slab/*/park (kernel without the series, or debugfs not mounted)"
	say "park=$1 written to the debugfs park of $PARK_ALL_N caches"
}

# kconfig NAME: CONFIG_NAME of the staged kernel.config; false without one
KCONFIG=$S/kernel.config
kconfig() {
	[ -r "$KCONFIG" ] || return 1
	sed -n "s/^CONFIG_$1=//p" "$KCONFIG" | tr -d '"'
}

zero_stats() { clear_stat_files "$SLAB"; }

# The unpark work runs 100 ms after the first park; wait with slack.
quiesce() {
	sleep 0.5
	! has_parked || parked_settle >/dev/null
}

# check_parking WHAT WHEN: parked 0, park_slab == unpark_slab, park_slab
# <= free_add_partial (a park counts both), each where the files exist;
# sets PS US FAP (0 without SLUB_STATS)
PS=0
US=0
FAP=0
check_parking() {
	if has_parked; then
		p=$(parked_now)
		[ "$p" = 0 ] || bad "$1: parked is '$p' $2, want 0"
	fi
	PS=0 US=0 FAP=0
	has_stats || return 0
	PS=$(sum_of "$SLAB/park_slab")
	US=$(sum_of "$SLAB/unpark_slab")
	FAP=$(sum_of "$SLAB/free_add_partial")
	[ "$PS" = "$US" ] || bad "$1: park_slab $PS != unpark_slab $US $2"
	[ "$PS" -le "$FAP" ] 2>/dev/null || bad "$1: park_slab $PS > free_add_partial $FAP $2"
}

# check_after_run WHAT OBJECTS_BEFORE: check_parking once the unpark work
# ran, and again after a shrink (under KASAN most frees of a run leave the
# quarantine, and park, only then); 'objects' back at OBJECTS_BEFORE
check_after_run() {
	quiesce
	check_parking "$1" "after quiescence"
	has_stats && say "$1: park_slab $PS unpark_slab $US free_add_partial $FAP"
	write_file "$SLAB/shrink" 1 || bad "$1: shrink: $WERR"
	quiesce
	check_parking "$1" "after shrink"
	has_stats && say "$1: after shrink: park_slab $PS unpark_slab $US free_add_partial $FAP"
	o=$(sum_of "$SLAB/objects")
	[ "$o" = "$2" ] || bad "$1: objects is $o after the run and shrink, $2 before"
}

# kml_scan FILE: kmemleak's report into FILE, after two scans (an object
# seen unreferenced in one may be a pointer in flight); prints the count;
# false when a write fails (EPERM once kmemleak disabled itself)
kml_scan() {
	echo scan >"$KML" && echo scan >"$KML" && cat "$KML" >"$1" || return 1
	grep -c '^unreferenced object' "$1" || true
}

# kml_leaks FILE [ERE]: after kmemleak's minimum object age (5 s), kml_scan
# into FILE; bad for each object none of whose lines match ERE (the
# expected ones), their number in LEAKS (- when the scan failed)
kml_leaks() {
	sleep 6
	kl_n=$(kml_scan "$1") || { bad "kmemleak scan failed"; LEAKS=-; return; }
	LEAKS=$(awk -v ere="${2:-}" '
		/^unreferenced object/ { if (obj && !ours) n++; obj = 1; ours = 0; next }
		ere != "" && $0 ~ ere { ours = 1 }
		END { if (obj && !ours) n++; print n + 0 }' "$1")
	say "kmemleak: $kl_n object(s), $((kl_n - LEAKS)) of them expected (${2:-none})"
	[ "$LEAKS" = 0 ] && return
	bad "kmemleak: $LEAKS suspected leak(s):"
	head -n 60 "$1" | sed 's/^/#   /'
}

# ksft_expect FILE KERNEL: a saved run_kselftest.sh -c slub_park output as
# KERNEL (patched, base, debug, rt, uma) must give it (selftests/slub_park):
# every test of the plan reported, none failed, and a SKIP ("# SKIP needs
# NEED: ...") only for a need of its TESTS line that KERNEL lacks:
#   patched, rt  nothing
#   base         parking: no series
#   uma          two_nodes: CONFIG_NUMA=n
#   debug        frees: generic KASAN's quarantine holds the frees of a
#                run, so a test that needs slabs parked at a given moment
#                may skip
ksft_lacks() {
	case $1 in
	patched|rt) echo - ;;
	base) echo parking ;;
	uma) echo two_nodes ;;
	debug) echo frees ;;
	*) return 1 ;;
	esac
}

ksft_expect() {
	ke_lacks=$(ksft_lacks "$2") || { bad "ksft_expect: unknown kernel '$2'"; return; }
	grep -q '^ok [0-9]* selftests: slub_park: .*# SKIP' "$1" &&
		bad "kselftest: the whole slub_park suite was skipped"
	ke_failed=$(sed -n 's/^\(# *\)\{0,1\}not ok [0-9]* \([^#]*[^# ]\).*/\2/p' "$1" | tr '\n' ',')
	[ -n "$ke_failed" ] && bad "kselftest reported not ok: ${ke_failed%,}"
	planned=$(sed -n 's/^# 1\.\.\([0-9][0-9]*\)$/\1/p' "$1" | head -n 1)
	reported=$(grep -cE '^# (not )?ok [0-9]+ [a-z_]+' "$1")
	if [ -z "$planned" ] || [ "$planned" = 0 ] || [ "$reported" != "$planned" ]; then
		bad "kselftest reported $reported slub_park tests of a plan of '${planned:-none}'"
	fi
	awk '$1 == "#" && $2 == "ok" && $5 == "#" && $6 == "SKIP" {
		need = $7 == "needs" ? $8 : "(none)"; sub(/:$/, "", need); print $4, need }' "$1" >"$OUT/ksft-skips"
	while read -r t need; do
		case " $ke_lacks " in
		*" $need "*) ;;
		*) bad "kselftest: $t skipped for need $need, which the $2 kernel has (it lacks: $ke_lacks)" ;;
		esac
	done <"$OUT/ksft-skips"
}

# ksft_run DIR KERNEL: DIR/run_kselftest.sh -c slub_park, streamed and kept
# in $OUT/kselftest.txt, judged by ksft_expect
ksft_run() {
	[ -x "$1/run_kselftest.sh" ] || { bad "no $1/run_kselftest.sh staged"; return; }
	sh -c "set -o pipefail; cd '$1' && ./run_kselftest.sh -c slub_park 2>&1 | tee '$OUT/kselftest.txt'" ||
		bad "run_kselftest.sh -c slub_park exited with $?"
	ksft_expect "$OUT/kselftest.txt" "$2"
}

# The slab parking cases of slub_kunit (patch 6 of the series), in suite
# order, and what each expects:
#   BREAKS   the slub_break_parking= bits under which it fails (the break
#            kernel, tools/kernel/bench-patches/break-parking.patch, whose
#            header says what each bit breaks; guest-kunit-mutants.sh)
#   NOT_RUN  the bits under which it is not run: without parking the free
#            under the timer base lock takes the list_lock, a spinlock_t
#            under a raw spinlock (lockdep: "Invalid wait context"); with
#            the work armed from the free path it deadlocks there
#   SKIPS    rcu: it skips with CONFIG_SLUB_RCU_DEBUG (its
#            SLAB_TYPESAFE_BY_RCU frees, which skip the KASAN quarantine
#            otherwise, go through RCU then)
# CASE                             BREAKS  NOT_RUN  SKIPS
KUNIT_PARK_TABLE='
test_park_full_slab                1       -        -
test_park_frees_keep_parked        1       -        -
test_park_alloc_unparks            1,2     -        -
test_park_bulk_alloc_unparks       1,2     -        -
test_park_empty_min_partial        1,2,4   -        -
test_park_counts_for_min_partial   1,2,32  -        -
test_park_shrink                   1,8     -        -
test_park_destroy                  1,16    -        -
test_park_leak_destroy             1,16    -        -
test_park_work_unparks             1,64    -        rcu
test_park_uncontended              -       -        -
test_park_free_under_timer_lock    -       1,64     rcu
'
# kunit_park_with COLUMN VALUE: the cases whose COLUMN (2 BREAKS, 3 NOT_RUN)
# lists VALUE, on one line
kunit_park_with() {
	echo "$KUNIT_PARK_TABLE" | awk -v c="$1" -v v="$2" '
		NF { n = split($c, w, ","); for (i = 1; i <= n; i++) if (w[i] == v) l = l (l == "" ? "" : " ") $1 }
		END { print l }'
}
KUNIT_RES=$TOPO_SYS/kernel/debug/kunit/slub_test/results

# kunit_core: insmod kunit.ko where it is a module not yet loaded
# kunit_run COPY [strict]: insmod slub_kunit (kunit_core first),
# its KTAP printed as it is (the host nests it) and kept in $OUT/COPY, and
# judged: no case failed, the suite ok, every case of KUNIT_PARK_TABLE
# passed, but those its SKIPS column allows to skip on a kernel with
# CONFIG_SLUB_RCU_DEBUG; strict: the kmalloc_nolock() kprobe case passed
# too, and no other case but the perf event one (TCG has no PMU) skipped
kunit_core() {
	if [ -f "$S/kunit/kunit.ko" ] && [ ! -d /sys/module/kunit ]; then
		insmod "$S/kunit/kunit.ko" || bad "insmod kunit.ko failed"
	fi
}
kunit_run() {
	k=$S/kunit
	[ -f "$k/slub_kunit.ko" ] || { bad "no $k/slub_kunit.ko staged (CONFIG_SLUB_KUNIT_TEST=m?)"; return; }
	kunit_core
	# the suite runs inside init_module; a failing case does not fail insmod
	insmod "$k/slub_kunit.ko" || { bad "insmod slub_kunit.ko failed"; dmesg_tail 8; }
	[ -r "$KUNIT_RES" ] || { bad "no $KUNIT_RES (CONFIG_KUNIT_DEBUGFS?)"; return; }
	cp "$KUNIT_RES" "$OUT/$1"
	cat "$KUNIT_RES"
	kunit_judge "$KUNIT_RES" "${2:-}" && return
	CASE_BAD=1
	grep -B2 -A8 'not ok\|EXPECTATION\|ASSERTION' "$KUNIT_RES" | head -n 60 | sed 's/^/#   /'
}

# kunit_judge FILE [strict]: kunit_run's judgment of the KTAP in FILE
kunit_judge() {
	kj_rcu=$(kconfig SLUB_RCU_DEBUG) || kj_rcu="unknown, no $KCONFIG"
	echo "$KUNIT_PARK_TABLE" | awk -v rcu="$kj_rcu" -v strict="${2:-}" '
	function bad(m) { print "# FAIL: " m; nbad++ }
	NR == FNR {
		if (NF == 4) { park[++np] = $1; rcu_ok[$1] = $4 == "rcu" }
		next
	}
	/^[ \t]+(not )?ok [0-9]+ / {
		c = $1 == "not" ? $4 : $3
		r = $1 == "not" ? "fail" : $0 ~ /# *SKIP/ ? "skip" : "pass"
		res[c] = r
		why[c] = $0
		sub(/.*# *SKIP */, "", why[c])
		cnt[r]++
		if (c ~ /^test_park_/) {
			parks += r == "pass"
			if (!(c in rcu_ok))
				bad("kunit: unknown parking case " c " (not in KUNIT_PARK_TABLE of guest-lib.sh)")
		} else if (strict && r == "skip" && c != "test_kmalloc_nolock_and_friends_perf")
			skips = skips " " c
		next
	}
	/^not ok [0-9]+ / { suite = "not ok" }
	/^ok [0-9]+ / && suite == "" { suite = "ok" }
	END {
		printf "# slub_kunit: %d passed (%d slab parking cases), %d failed, %d skipped\n",
			cnt["pass"], parks, cnt["fail"], cnt["skip"]
		want = np
		for (i = 1; i <= np; i++) {
			c = park[i]
			if (!(c in res))
				bad("kunit: " c " did not run (not in the results)")
			else if (res[c] == "fail")
				bad("kunit: " c " failed")
			else if (res[c] == "pass")
				continue
			else if (rcu != "y" || !rcu_ok[c])
				bad("kunit: " c " skipped (CONFIG_SLUB_RCU_DEBUG: " (rcu == "" ? "unset" : rcu) "): " why[c])
			else if (why[c] !~ /SLUB_RCU_DEBUG/)
				bad("kunit: " c " skipped for another reason than SLUB_RCU_DEBUG: " why[c])
			else {
				want--
				print "# kunit: " c " skipped, as due with CONFIG_SLUB_RCU_DEBUG=y: " why[c]
			}
		}
		if (parks != want)
			bad(parks " slab parking cases passed, want " want " of " np)
		if (cnt["fail"])
			bad(cnt["fail"] " case(s) failed")
		if (suite != "ok")
			bad("suite line '\''" suite "'\''")
		if (strict && res["test_kmalloc_nolock_and_friends_kprobe"] != "pass")
			bad("the kmalloc_nolock() kprobe case did not run and pass")
		if (skips != "")
			bad("cases skipped:" skips)
		exit (nbad > 0)
	}' - "$1"
}
