#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the guest scripts (guest-*.sh), sourced in the guest and, for
# make run HOST=1, by guest-compare.sh and run-host.sh on the host
# (SLABPARK_DIR, SLABPARK_KO, SLABPARK_OUT set).  busybox sh.  /sys is
# SYS, a fake tree in host-refusals and test_guest_sh (SLABPARK_SYSFS).

# shellcheck disable=SC2034 # for the scripts that source this file
S=${SLABPARK_DIR:-/slabpark}
KO=${SLABPARK_KO:-$S/mm/slub_stress.ko}
MOD=slub_stress
CACHE=nfs_page_test
SYS=${SLABPARK_SYSFS:-/sys}
SLAB=$SYS/kernel/slab/$CACHE
DBG=$SYS/kernel/debug/$MOD
PARKDIR=$SYS/kernel/debug/slab/$CACHE
KML=$SYS/kernel/debug/kmemleak
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

NODE_CPUS=$(cpulist_count "$SYS/devices/system/node/node0/cpulist")
NNODES=$(find "$SYS/devices/system/node" -maxdepth 1 -name 'node[0-9]*' | wc -l)

# ---- The two nodes of a run.  topo_choose NEED_FREE: ALLOC_NODE and FREE_NODE when
# set, else two nodes with CPUs and normal memory, the free node the
# farthest; NEED_FREE 0 (local only) lets one node do.  Sets TOPO_ALLOC
# TOPO_FREE TOPO_THREADS TOPO_HALF TOPO_WARN; false with TOPO_ERR.
# topo_write FILE: the facts, KEY=VALUE (the report shows them).
TOPO_ND=$SYS/devices/system/node
TOPO_CPU=$SYS/devices/system/cpu

# topo_list FILE: the ids of a cpulist file, space-separated
topo_list() {
	[ -r "$1" ] || return 0
	tl_v=$(awk '{ print; exit }' "$1")
	[ -n "$tl_v" ] || return 0
	cpulist_expand "$tl_v" | tr '\n' ' ' | sed 's/ $//'
}
topo_has() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
topo_join() { echo "$1" | tr ' ' ','; }

# topo_node_cpus N: node N's online CPUs
topo_node_cpus() {
	tnc_on=$(topo_list "$TOPO_CPU/online")
	tnc_out=
	for tnc_c in $(topo_list "$TOPO_ND/node$1/cpulist"); do
		[ -z "$tnc_on" ] || topo_has "$tnc_c" "$tnc_on" || continue
		tnc_out="$tnc_out${tnc_out:+ }$tnc_c"
	done
	echo "$tnc_out"
}
# shellcheck disable=SC2046 # the CPUs are words
topo_ncpus() { set -- $(topo_node_cpus "$1"); echo $#; }

# topo_dist A B: the distance from node A to B ("?" when unknown)
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

# topo_socket N: the package of node N's first online CPU ("-": none)
topo_socket() {
	# shellcheck disable=SC2046 # the CPUs are words
	set -- $(topo_node_cpus "$1")
	[ $# -gt 0 ] || { echo -; return; }
	cat "$TOPO_CPU/cpu$1/topology/physical_package_id" 2>/dev/null || echo "?"
}

# topo_siblings CPU: CPU's thread siblings, itself included
topo_siblings() {
	tsb=$(topo_list "$TOPO_CPU/cpu$1/topology/thread_siblings_list")
	echo "${tsb:-$1}"
}

# topo_valid NAME ID: node ID can hold a run's threads
topo_valid() {
	case "$2" in
	''|*[!0-9]*) TOPO_ERR="$1=$2: not a node number (online nodes: $(topo_join "$TOPO_ONLINE"))"; return 1 ;;
	esac
	topo_has "$2" "$TOPO_ONLINE" ||
		{ TOPO_ERR="$1=$2: node $2 is not online (online nodes: $(topo_join "$TOPO_ONLINE"))"; return 1; }
	[ "$(topo_ncpus "$2")" -gt 0 ] ||
		{ TOPO_ERR="$1=$2: node $2 has no online CPUs (a memory-only node): the module's threads cannot run there"; return 1; }
}

topo_warn() { TOPO_WARN="$TOPO_WARN${TOPO_WARN:+; }$*"; }

topo_choose() {
	TOPO_ERR='' TOPO_WARN='' TOPO_ALLOC='' TOPO_FREE='' TOPO_MEM=''
	TOPO_ONLINE=$(topo_list "$TOPO_ND/online")
	# slabs come from the nodes with normal memory
	for tc_f in has_normal_memory has_memory online; do
		[ -r "$TOPO_ND/$tc_f" ] && { TOPO_MEM=$(topo_list "$TOPO_ND/$tc_f"); break; }
	done
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

# topo_smt: TOPO_SMT (most threads a core of the alloc node has) and
# TOPO_LOCAL (the module puts allocator i on the node's CPU i, freer i on
# CPU TOPO_HALF + i)
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
	tw_sock='' tw_table='' tw_nodes=''
	for tw_c in $(topo_list "$TOPO_CPU/online"); do
		tw_p=$(cat "$TOPO_CPU/cpu$tw_c/topology/physical_package_id" 2>/dev/null) || continue
		topo_has "$tw_p" "$tw_sock" || tw_sock="$tw_sock${tw_sock:+ }$tw_p"
	done
	for tw_n in $TOPO_ONLINE; do
		tw_table="$tw_table${tw_table:+;}$(awk '{ print; exit }' "$TOPO_ND/node$tw_n/distance" 2>/dev/null)"
		tw_c=$(topo_join "$(topo_node_cpus "$tw_n")")
		tw_m=normal
		topo_has "$tw_n" "$TOPO_MEM" || tw_m=none
		tw_nodes="$tw_nodes${tw_nodes:+ }$tw_n:cpus=${tw_c:--}:mem=$tw_m:socket=$(topo_socket "$tw_n")"
	done
	# shellcheck disable=SC2086 # the sockets are words
	set -- $tw_sock
	{
		echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
		echo "sockets=$#"
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
	} >"$1"
}

say() { echo "# $*"; }

# in_round_order ROUND WORDS...: the words, reversed in even rounds, so
# that no mode is always the first run of its round
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

# ---- Test points by the kselftest's ktap_helpers.sh: tp_begin (tp_sub
# NAME: and a subtest NAME's header), bad MSG for each failure, tp_end NAME
# [COMMENT] (echoed unquoted: no globs).
# shellcheck disable=SC1091 # a path of the guest
ktap_load() { . "$S/kselftest/kselftest/ktap_helpers.sh"; }
FAILED=
CASE_BAD=0
TP_T0=0
tp_begin() {
	CASE_BAD=0
	TP_T0=$(date +%s)
}
tp_sub() {
	tp_begin
	printf 'KTAP version 1\n# Subtest: %s\n' "$1"
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

rval() { sed -n "s/^$1: //p" "$DBG/results"; }
# the kernel has the per-cache switches, module loaded or not
kernel_has_park() { ls "$SYS"/kernel/debug/slab/*/park >/dev/null 2>&1; }
dmesg_tail() { dmesg | tail -n "${1:-8}" | sed 's/^/#   dmesg: /'; }

unload() {
	mod_loaded || return 0
	timeout 120 rmmod "$MOD" || { bad "rmmod $MOD failed"; return 1; }
	! mod_loaded || { bad "$MOD still loaded after rmmod"; return 1; }
}

# check_after_run WHAT OBJECTS_BEFORE: once the unpark work ran (100 ms
# after the first park), and again after a shrink (under KASAN most frees
# leave the quarantine, and park, only then): parked 0 (with the park
# switch), park_slab == unpark_slab <= free_add_partial (a park counts
# both; 0 on a kernel with neither the switch nor park_slab), 'objects'
# back at OBJECTS_BEFORE; sets PS US FAP
check_after_run() {
	car_sw=0
	kernel_has_park && car_sw=1
	for car_when in "after quiescence" "after shrink"; do
		[ "$car_when" = "after quiescence" ] || write_file "$SLAB/shrink" 1 || bad "$1: shrink: $WERR"
		sleep 0.5
		p=0 PS=0 US=0
		[ "$car_sw" = 0 ] || p=$(parked_settle)
		[ "$p" = 0 ] || bad "$1: parked is '$p' $car_when, want 0"
		if [ "$car_sw" = 1 ] || [ -f "$SLAB/park_slab" ]; then
			PS=$(sum_of "$SLAB/park_slab")
			US=$(sum_of "$SLAB/unpark_slab")
		fi
		FAP=$(sum_of "$SLAB/free_add_partial")
		[ "$PS" = "$US" ] || bad "$1: park_slab $PS != unpark_slab $US $car_when"
		[ "$PS" -le "$FAP" ] 2>/dev/null || bad "$1: park_slab $PS > free_add_partial $FAP $car_when"
		say "$1: $car_when: park_slab $PS unpark_slab $US free_add_partial $FAP"
	done
	o=$(sum_of "$SLAB/objects")
	[ "$o" = "$2" ] || bad "$1: objects is $o after the run and shrink, $2 before"
}

# kml_scan FILE: past kmemleak's minimum object age, its report after two
# scans (an object unreferenced in one may be a pointer in flight) into
# FILE (the host judges it: slabpark.guest_judge); prints the count
kml_scan() {
	sleep 6
	echo scan >"$KML" && echo scan >"$KML" && cat "$KML" >"$1" || return 1
	grep -c '^unreferenced object' "$1" || true
}

# kml_boot: what the boot leaked reported (kml_scan: past the minimum age,
# or 'clear' leaves it to be reported later) and cleared: the final scan
# is the caller's
kml_boot() {
	kb_n=$(kml_scan "$OUT/kmemleak-boot.txt") || kb_n="(scan failed)"
	say "kmemleak: $kb_n object(s) reported after boot (not ours; kept in out/kmemleak-boot.txt), clearing"
	[ "$kb_n" = 0 ] || head -n 20 "$OUT/kmemleak-boot.txt" | sed 's/^/#   /'
	echo clear >"$KML"
}

# ksft_run DIR: DIR/run_kselftest.sh -c slub_park into $OUT/kselftest.txt
# (the host judges it: slabpark.guest_judge)
ksft_run() {
	sh -c "set -o pipefail; cd '$1' && ./run_kselftest.sh -c slub_park 2>&1 | tee '$OUT/kselftest.txt'" ||
		bad "run_kselftest.sh -c slub_park exited with $?"
}

# kunit_run: insmod slub_kunit, its KTAP printed and kept in
# $OUT/kunit-slub_test.ktap (the host judges it: slabpark.guest_judge)
kunit_run() {
	kr_res=$SYS/kernel/debug/kunit/slub_test/results
	# the suite runs inside init_module; a failing case does not fail insmod
	insmod "$S/kunit/slub_kunit.ko" || { bad "insmod slub_kunit.ko failed"; dmesg_tail 8; }
	[ -r "$kr_res" ] || { bad "no $kr_res (CONFIG_KUNIT_DEBUGFS?)"; return; }
	cp "$kr_res" "$OUT/kunit-slub_test.ktap"
	# KUNIT_COMMENTED=1: as diagnostics, for cases that fail on purpose (the host judges)
	if [ "${KUNIT_COMMENTED:-0}" = 1 ]; then sed 's/^/# /' "$kr_res"; else cat "$kr_res"; fi
}
