#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park.sh - drive the slub_stress module (mm/slub_stress.c) and check
# SLUB behaviour under cross-node frees, and the slab parking series when the
# kernel has it: the switch and count in debugfs
# (/sys/kernel/debug/slab/<cache>/{park,parked}), the counters in sysfs
# (/sys/kernel/slab/<cache>/{park_slab,unpark_slab}, CONFIG_SLUB_STATS).
#
# Usage: slub_park.sh [smoke | stress | fuzz | list | help | key=val ...]
#   smoke    short runs (about 1 s each); the CI default (ksft_slub_park.sh)
#   stress   longer runs (tens of seconds each), plus a bulk (batch) run
#   fuzz     only the parameter tests, with every case of param_fuzz.txt
#            (the debug gate's; smoke and stress take the ksft lines)
#   list     the tests of smoke and stress mode (TESTS), one a line
#   key=val  load the module with these parameters (checked against modinfo),
#            do one run and check it finished cleanly
#
# The module: slub_stress/slub_stress.ko next to this script (built and
# installed with the collection by lib.mk, TEST_GEN_MODS_DIR).
#
# Output is KTAP; exit 0 when all tests pass, 1 when one failed, 4 when all
# were skipped.  POSIX sh; runs under busybox ash.

# The t_* tests and their helpers are called through run_test "$@".
# shellcheck disable=SC2317

set -u

ksft_skip=4
MOD=slub_stress
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
if [ ! -r "$SCRIPT_DIR/slub_park_lib.sh" ]; then
	echo "Error: $SCRIPT_DIR/slub_park_lib.sh is missing (install it with the test)" >&2
	exit 1
fi
# nap write_file sum_of stat_files clear_stat_files stat_snapshot
# cpulist_count online_nodes mod_loaded load_splat_re
# shellcheck source=selftests/slub_park/slub_park_lib.sh
. "$SCRIPT_DIR/slub_park_lib.sh"
KSRC=${KSRC:-}
CACHE=nfs_page_test
SLAB=/sys/kernel/slab/$CACHE
DBG=/sys/kernel/debug/$MOD
# The series' per-cache debugfs files (CONFIG_DEBUG_FS and CONFIG_SLUB_DEBUG,
# caches without SLUB debug flags): park (0 never, 1 when the list_lock
# trylock fails, 2 always) and parked (the slabs parked now, one number).
PARKDIR=/sys/kernel/debug/slab/$CACHE
SYSFS_BIN=$SCRIPT_DIR/slub_park_sysfs
TMP=
KO=
CANARY=
SEQ=0
PARK_OLD=
WERR=
DR_PARKED=
# The unpark delayed work runs 100 ms after the first park; allow slack.
QUIESCE_S=0.5
PARKED_POLL_TICKS=20	# x 0.1 s = 2 s
# Taint bits that loading an out-of-tree test module sets: O (12) and N (18),
# and E (13) on a kernel with CONFIG_MODULE_SIG when the module is unsigned
# (module_sig_setup() adds it; see sig_facts).
TAINT_EXPECTED=$(( (1 << 12) | (1 << 18) ))
TAINT_LETTERS=PFSRMBUDAWCIOELKXTNJ

# --------------------------------------------------------------------------
# KTAP output: kselftest/ktap_helpers.sh, as installed next to the collection
# (run_kselftest.sh layout), or from the kernel tree KSRC.

load_ktap() {
	for f in "$SCRIPT_DIR/../kselftest/ktap_helpers.sh" \
		 ${KSRC:+"$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"}; do
		if [ -r "$f" ]; then
			# shellcheck source=/dev/null
			. "$f"
			return 0
		fi
	done
	echo "TAP version 13"
	echo "1..0 # SKIP no kselftest/ktap_helpers.sh: run from a kselftest install, or set KSRC to a kernel tree"
	exit "$ksft_skip"
}

# A SKIP line that carries its reason (ktap_test_skip cannot).
ktap_skip_reason() {
	echo "ok $KTAP_TESTNO $1 # SKIP $2"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

diag() {
	echo "# $*"
}

skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit "$ksft_skip"
}

# Exit 1 on any failure, 4 if everything was skipped, else 0.
finish() {
	ktap_print_totals
	if [ "$KTAP_CNT_FAIL" -ne 0 ] || \
	   [ $((KTAP_CNT_PASS + KTAP_CNT_SKIP + KTAP_CNT_XFAIL)) -ne "$KSFT_NUM_TESTS" ]; then
		exit 1
	fi
	if [ "$KTAP_CNT_PASS" -eq 0 ] && [ "$KTAP_CNT_SKIP" -gt 0 ]; then
		exit "$ksft_skip"
	fi
	exit 0
}

# --------------------------------------------------------------------------
# Small helpers.

# expect_write_err PATH VALUE ERRTEXT: the write must fail with ERRTEXT.
expect_write_err() {
	if write_file "$1" "$2"; then
		diag "writing '$2' to $1 succeeded, expected '$3'"
		return 1
	fi
	case "$WERR" in
	*"$3"*) return 0 ;;
	esac
	diag "writing '$2' to $1: got '$WERR', expected '$3'"
	return 1
}

stat_sum() {
	sum_of "$SLAB/$1"
}

# res FILE KEY: value of "KEY: value" in a results file.
res() {
	awk -v k="$2" 'index($0, k ": ") == 1 { print substr($0, length(k) + 3); exit }' "$1"
}

# ge_pct A B PCT: A >= B * PCT / 100 (integers).
ge_pct() {
	[ $(($1 * 100)) -ge $(($2 * $3)) ]
}

# Decimal comparison through awk: cmp_dec VALUE OP LIMIT
cmp_dec() {
	awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
		v += 0; l += 0
		if (op == "ge") exit !(v >= l)
		if (op == "le") exit !(v <= l)
		exit 1 }'
}

# --------------------------------------------------------------------------
# dmesg canary (tools/testing/selftests/livepatch/functions.sh pattern).

# canary [nowait]: log a new marker and wait until dmesg shows it; with
# nowait, do not read dmesg back (a write to /dev/kmsg is in the log when
# it returns; the check is for the first one of a test, and a whole dmesg
# read costs much under KASAN and TCG, where the fuzz cases run).
canary() {
	SEQ=$((SEQ + 1))
	CANARY="slub_park kselftest canary $$.$SEQ.$(date +%s)"
	echo "$CANARY" > /dev/kmsg
	[ "${1:-}" = nowait ] && return 0
	cn_i=0
	while ! dmesg | grep -qF "$CANARY"; do
		cn_i=$((cn_i + 1))
		if [ "$cn_i" -gt 50 ]; then
			diag "canary not visible in dmesg: $CANARY"
			return 1
		fi
		nap 0.1
	done
}

# Kernel messages after the last canary, timestamps stripped.
since_canary() {
	dmesg | awk -v c="$CANARY" 'p { print } index($0, c) { p = 1 }' |
		sed -e 's/^\[[ 0-9.]*\] //' -e 's/^\[ *[CT][0-9]*\] //'
}

# Returns 0 (and prints the lines) when a splat follows the canary.
splat_since_canary() {
	sp_lines=$(since_canary | grep -E "$SPLAT_RE")
	[ -n "$sp_lines" ] || return 1
	echo "$sp_lines" | sed 's/^/#   dmesg: /'
	return 0
}

# --------------------------------------------------------------------------
# Parameter fuzz cases: param_fuzz.txt next to this script, shared with the
# debug gate (tools/guest/guest-debug-gate.sh); its header gives the format.

FUZZ_CASES=$SCRIPT_DIR/param_fuzz.txt

# The values of the words the file uses (see its header).
fuzz_words() {
	fz_p=0
	if [ -r /sys/devices/system/node/possible ]; then
		read -r fz_p < /sys/devices/system/node/possible
	fi
	FZ_NODE_IDS=$((${fz_p##*[-,]} + 1))
	# the most threads a run takes: 4 a CPU of the smaller run node
	fz_n=$(node_cpus "$NODE_A")
	FZ_SMALL_NODE=$NODE_A
	if [ "$NODE_B" != "$NODE_A" ] && [ "$(node_cpus "$NODE_B")" -lt "$fz_n" ]; then
		fz_n=$(node_cpus "$NODE_B")
		FZ_SMALL_NODE=$NODE_B
	fi
	[ "$fz_n" -gt 0 ] || fz_n=$(cpulist_count /sys/devices/system/cpu/online)
	FZ_THREADS=$((4 * fz_n))
	FZ_ALL_THREADS1=$((4 * $(grep -c '^processor' /proc/cpuinfo) + 1))
}

# fuzz_cases KIND: the lines of KIND, as "EXPECT NAME ARGS": those marked
# ksft, and in fuzz mode (FUZZ_ALL=1) the gate's too.
FUZZ_ALL=0
fuzz_cases() {
	sed -e 's/#.*//' \
	    -e "s/@NR_NODE_IDS@/$FZ_NODE_IDS/g" \
	    -e "s/@LAST_NODE@/$((FZ_NODE_IDS - 1))/g" \
	    -e "s/@NODE_A@/$NODE_A/g" -e "s/@NODE_B@/$NODE_B/g" \
	    -e "s/@SMALL_NODE@/$FZ_SMALL_NODE/g" \
	    -e "s/@THREADS@/$FZ_THREADS/g" \
	    -e "s/@THREADS+1@/$((FZ_THREADS + 1))/g" \
	    -e "s/@ALL_THREADS+1@/$FZ_ALL_THREADS1/g" "$FUZZ_CASES" |
		awk -v kind="$1" -v all="$FUZZ_ALL" \
			'($1 == "ksft" || all) && $2 == kind { $1 = ""; $2 = ""; print }'
}

# count_cases KIND: how many cases fuzz_cases KIND gives.
count_cases() {
	fuzz_cases "$1" | grep -c .
}

# --------------------------------------------------------------------------
# The nodes of the runs: two online nodes with online CPUs (the module's
# threads run there) and normal memory (the slabs come from there).  A
# memory-only node (CXL, HBM, PMEM) or one whose CPUs are all offline is
# never taken; the module refuses it ("node N has no online CPU").

NODE_SYS=/sys/devices/system/node

# commas WORDS...: the words joined by commas
commas() {
	echo "$*" | tr ' ' ','
}

# node_cpus N: how many of node N's CPUs are online (without
# CONFIG_NUMA there is no $NODE_SYS: node 0 has them all)
node_cpus() {
	if [ ! -d "$NODE_SYS" ]; then
		cpulist_count /sys/devices/system/cpu/online
		return
	fi
	nc_list=$(cat "$NODE_SYS/node$1/cpulist" 2>/dev/null)
	[ -n "$nc_list" ] || { echo 0; return; }
	nc_on=$(cat /sys/devices/system/cpu/online 2>/dev/null)
	[ -n "$nc_on" ] || nc_on=$nc_list
	{ cpulist_expand "$nc_on" | sed 's/^/on /'; cpulist_expand "$nc_list"; } |
		awk '$1 == "on" { on[$2] = 1; next } ($1 in on) { n++ } END { print n + 0 }'
}

# normal_memory_nodes: the nodes with normal memory, one a line
# (has_memory where the kernel has no has_normal_memory, else all online)
normal_memory_nodes() {
	for nm_f in has_normal_memory has_memory; do
		if [ -r "$NODE_SYS/$nm_f" ]; then
			nm_v=$(cat "$NODE_SYS/$nm_f")
			[ -n "$nm_v" ] && cpulist_expand "$nm_v"
			return 0
		fi
	done
	online_nodes
}

# node_distance A B: the distance from A to B (nodeA/distance has one
# entry per online node, in order); 0 when unknown
node_distance() {
	nd_i=0
	for nd_n in $(online_nodes); do
		nd_i=$((nd_i + 1))
		[ "$nd_n" = "$2" ] || continue
		nd_v=$(awk -v i="$nd_i" '{ print $i; exit }' "$NODE_SYS/node$1/distance" 2>/dev/null)
		case "$nd_v" in ''|*[!0-9]*) nd_v=0 ;; esac
		echo "$nd_v"
		return
	done
	echo 0
}

# choose_nodes: NODE_A, the first online node with online CPUs and normal
# memory; NODE_B, the farthest such other node by the distance table (the
# first of equals), or NODE_A when there is none; NR_RUN_NODES (1 or 2;
# 0 when no node qualifies); NODE_ARGS, what every load passes; NODE_NOTE,
# the choice and its reasons for the KTAP diagnostic.
choose_nodes() {
	cn_mem=" $(normal_memory_nodes | tr '\n' ' ') "
	cn_ok=
	cn_why=
	for cn_n in $NODES; do
		cn_c=$(node_cpus "$cn_n")
		case "$cn_mem" in *" $cn_n "*) cn_m=1 ;; *) cn_m=0 ;; esac
		if [ "$cn_c" -gt 0 ] && [ "$cn_m" = 1 ]; then
			cn_ok="$cn_ok $cn_n"
		elif [ "$cn_c" -eq 0 ]; then
			cn_why="$cn_why; node $cn_n: no online CPU"
		else
			cn_why="$cn_why; node $cn_n: no normal memory"
		fi
	done
	NODE_A=$(echo "$cn_ok" | awk '{ print $1 }')
	NODE_B=
	cn_best=-1
	for cn_n in $cn_ok; do
		[ "$cn_n" != "$NODE_A" ] || continue
		cn_d=$(node_distance "$NODE_A" "$cn_n")
		[ "$cn_d" -gt "$cn_best" ] && { cn_best=$cn_d; NODE_B=$cn_n; }
	done
	NR_RUN_NODES=$(echo "$cn_ok" | wc -w)
	[ "$NR_RUN_NODES" -le 2 ] || NR_RUN_NODES=2
	# shellcheck disable=SC2086 # the node ids are words
	cn_ok=$(commas $cn_ok) cn_on=$(commas $NODES)
	cn_why=${cn_why#; }
	if [ -z "$NODE_A" ]; then
		NODE_A=0 NODE_B=0
		NODE_ARGS=
		NODE_NOTE="no online node has online CPUs and normal memory (online: $cn_on${cn_why:+; $cn_why})"
	elif [ -z "$NODE_B" ]; then
		NODE_B=$NODE_A
		NODE_ARGS="placement=local alloc_node=$NODE_A"
		NODE_NOTE="alloc_node=$NODE_A, no second node for cross-node runs (online: $cn_on; with online CPUs and normal memory: $cn_ok${cn_why:+; $cn_why})"
	else
		NODE_ARGS="alloc_node=$NODE_A free_node=$NODE_B"
		NODE_NOTE="alloc_node=$NODE_A free_node=$NODE_B, distance $cn_best (online: $cn_on; with online CPUs and normal memory: $cn_ok${cn_why:+; $cn_why})"
	fi
	RUN_NODES_OK=$cn_ok
}

# --------------------------------------------------------------------------
# KASAN: its quarantine holds the frees of a run (generic mode), so that
# they reach SLUB, and park, late and on other CPUs.  Known from
# /proc/kallsyms (the generic quarantine's kasan_quarantine_put, which LTO
# may inline, or generic KASAN's exported __asan_load8; kallsyms lists them
# whatever the log holds), else from the boot line in dmesg, which
# a long boot can have pushed out of the log buffer.
kasan_on() {
	grep -qE ' (kasan_quarantine_put|__asan_load8)$' /proc/kallsyms 2>/dev/null && return 0
	dmesg | grep -q 'KernelAddressSanitizer initialized (generic)'
}

# --------------------------------------------------------------------------
# Signed-module kernels.  CONFIG_MODULE_SIG is read from
# /sys/module/module/parameters/sig_enforce: the kernel has that parameter
# exactly when it is built with CONFIG_MODULE_SIG (kernel/module/signing.c),
# and it needs nothing else, where /proc/config.gz needs CONFIG_IKCONFIG_PROC
# (rarely on in CI kernels) and gunzip.  Its value says whether unsigned
# modules are refused (Y: module.sig_enforce=1 or CONFIG_MODULE_SIG_FORCE).
# Lockdown (/sys/kernel/security/lockdown, "[integrity]" or
# "[confidentiality]") refuses unsigned modules too.  Sets MODSIG (1 when
# CONFIG_MODULE_SIG), SIG_ENFORCE (the refusals in force, words) and
# KO_SIGNED (1 when the .ko ends in the signature marker).

SIG_ENFORCE_PARAM=/sys/module/module/parameters/sig_enforce
LOCKDOWN=/sys/kernel/security/lockdown
MODSIG=0
SIG_ENFORCE=
KO_SIGNED=0
sig_facts() {
	MODSIG=0
	SIG_ENFORCE=
	if [ -r "$SIG_ENFORCE_PARAM" ]; then
		MODSIG=1
		sf_v=$(cat "$SIG_ENFORCE_PARAM")
		[ "$sf_v" = Y ] && SIG_ENFORCE="sig_enforce=Y"
		TAINT_EXPECTED=$((TAINT_EXPECTED | (1 << 13)))
	fi
	if [ ! -e "$LOCKDOWN" ] && [ -d /sys/kernel/security ] &&
	   ! grep -q ' /sys/kernel/security securityfs' /proc/mounts; then
		mount -t securityfs none /sys/kernel/security 2>/dev/null
	fi
	if [ -r "$LOCKDOWN" ]; then
		sf_l=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$LOCKDOWN")
		case "$sf_l" in
		integrity|confidentiality)
			SIG_ENFORCE="${SIG_ENFORCE:+$SIG_ENFORCE, }lockdown=$sf_l" ;;
		esac
	fi
	KO_SIGNED=0
	[ "$(tail -c 28 "$KO" 2>/dev/null)" = "~Module signature appended~" ] && KO_SIGNED=1
	return 0
}

# sig_probe: where the kernel refuses unsigned modules, one load (and
# unload) of the module: when it is refused, SKIP everything, saying why;
# the tests cannot run, and that is not a failure of the code under test.
sig_probe() {
	[ -n "$SIG_ENFORCE" ] || return 0
	# shellcheck disable=SC2086 # NODE_ARGS is a list of words
	if sp_out=$(insmod "$KO" $NODE_ARGS 2>&1); then
		rmmod "$MOD" 2>/dev/null ||
			skip_all "the probe load of $MOD.ko could not be removed: $(rmmod "$MOD" 2>&1)"
		return 0
	fi
	# only a refusal of the module's signature skips; any other load
	# failure is left to the tests, which fail with it
	case "$sp_out" in
	*"Key was rejected"*|*"Required key not available"*|*"Operation not permitted"*) ;;
	*) return 0 ;;
	esac
	if [ "$KO_SIGNED" = 1 ]; then
		skip_all "the kernel refuses $MOD.ko ($SIG_ENFORCE; the module is signed, but not with a key the kernel trusts): insmod: $sp_out"
	fi
	skip_all "the kernel refuses unsigned modules ($SIG_ENFORCE) and $MOD.ko is unsigned: insmod: $sp_out; sign it with the kernel's key (scripts/sign-file) to run the tests"
}

# --------------------------------------------------------------------------
# Module handling.

# The module sits at one place of the installed collection (and of the
# source tree once built): slub_stress/slub_stress.ko, built by lib.mk
# (TEST_GEN_MODS_DIR) for the kernel of KDIR.
# install_has: the names in SCRIPT_DIR, each followed by a space
install_has() {
	for ih_f in "$SCRIPT_DIR"/*; do
		[ -e "$ih_f" ] && printf '%s ' "${ih_f##*/}"
	done
}

find_module() {
	KO=$SCRIPT_DIR/$MOD/$MOD.ko
	[ -f "$KO" ] && return 0
	if [ -f "$SCRIPT_DIR/Makefile" ]; then
		# the collection's source directory
		MODULE_MISSING="$KO not found: build it with make -C $SCRIPT_DIR O=<kernel build> (in a kernel tree's tools/testing/selftests) or KSRC=<kernel tree> KDIR=<kernel build>"
	else
		# an installed collection: say what it has
		MODULE_MISSING="$KO not found; this install has $(install_has)(no $MOD/: the collection was built without a kernel build, as 'make' warned: no Module.symvers in KDIR); build and install it again with O=<kernel build> in the kernel tree (make -C tools/testing/selftests TARGETS=slub_park O=...) or with install-kselftest.sh KSRC DEST KDIR"
	fi
	return 1
}

# Parameter descriptions "name:desc (type)": modinfo, or (busybox modinfo
# wants modules.dep even for a path) the .modinfo strings of the .ko itself.
param_lines() {
	pl=$(modinfo -F parm "$KO" 2>/dev/null)
	[ -n "$pl" ] || pl=$(modinfo "$KO" 2>/dev/null | sed -n 's/^parm:[[:space:]]*//p')
	[ -n "$pl" ] || pl=$(tr '\000' '\n' < "$KO" | sed -n 's/^parm=//p')
	echo "$pl"
}

valid_params() {
	param_lines | sed -n 's/^\([A-Za-z0-9_]*\):.*/\1/p'
}

# load [params...]; 0 when loaded.  The nodes of choose_nodes first
# (NODE_ARGS), so that the params given override them.
load() {
	# shellcheck disable=SC2068,SC2086
	if ! ld_out=$(insmod "$KO" $NODE_ARGS $@ 2>&1); then
		diag "insmod $KO $NODE_ARGS $*: $ld_out"
		return 1
	fi
	if [ ! -d "$SLAB" ] || [ ! -d "$DBG" ]; then
		diag "loaded, but $SLAB or $DBG is missing"
		return 1
	fi
	return 0
}

unload() {
	if ! ul_out=$(rmmod "$MOD" 2>&1); then
		diag "rmmod $MOD: $ul_out"
		return 1
	fi
}

cleanup() {
	if [ -n "$PARK_OLD" ] && [ -w "$PARKDIR/park" ]; then
		echo "$PARK_OLD" > "$PARKDIR/park" 2>/dev/null
	fi
	PARK_OLD=
	if mod_loaded; then
		[ -w "$DBG/stop" ] && echo 1 > "$DBG/stop" 2>/dev/null
		rmmod "$MOD" 2>/dev/null
	fi
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		rm -rf "$TMP"
	fi
	TMP=
}

# --------------------------------------------------------------------------
# Runs.

has_stats() {
	[ -e "$SLAB/free_slowpath" ]
}

# Clear all stat counters together, at a quiescent point: wait (read-only)
# for parked slabs of the previous run to be unparked first, or a late unpark
# would count in unpark_slab without its park_slab.
clear_stats() {
	if [ -e "$PARKDIR/parked" ]; then
		cs_p=$(wait_parked_zero)
		[ "$cs_p" = 0 ] || diag "clear_stats: $cs_p slabs still parked"
	fi
	clear_stat_files "$SLAB"
}

# do_run NAME key=val...: set run parameters through debugfs, clear the
# stat counters, run to completion; results in $TMP/NAME.res, stat sums in
# $TMP/NAME.stats.  Returns 1 when the run could not be done.  With
# DR_SHRINK=1 the cache is shrunk every 0.1 s during the run (under KASAN
# this flushes the quarantine, so that the frees reach the slabs while the
# allocators run); not after it, so that what the run left parked is still
# there for the caller to check.  A failed shrink fails the run.
DR_SHRINK=0
do_run() {
	dr_name=$1
	shift
	for dr_kv in "$@"; do
		if ! write_file "$DBG/${dr_kv%%=*}" "${dr_kv#*=}"; then
			diag "$dr_name: cannot set $dr_kv: $WERR"
			return 1
		fi
	done
	clear_stats
	if ! write_file "$DBG/run" 1; then
		diag "$dr_name: cannot start run: $WERR"
		return 1
	fi
	dr_shrink_err=
	if [ "$DR_SHRINK" = 1 ]; then
		while [ "$(cat "$DBG/status")" = running ]; do
			write_file "$SLAB/shrink" 1 || dr_shrink_err=$WERR
			nap 0.1
		done
	fi
	if ! dr_state=$(cat "$DBG/wait"); then
		diag "$dr_name: reading wait failed"
		return 1
	fi
	if [ -n "$dr_shrink_err" ]; then
		diag "$dr_name: shrink during the run: $dr_shrink_err"
		return 1
	fi
	# parked count right at the end of the run (read-only)
	DR_PARKED=$(parked_now)
	cat "$DBG/results" > "$TMP/$dr_name.res"
	stat_snapshot "$SLAB" > "$TMP/$dr_name.stats"
	diag "$dr_name: $dr_state; $(res "$TMP/$dr_name.res" frees) frees, $(res "$TMP/$dr_name.res" ops_per_sec) ops/s, remote $(res "$TMP/$dr_name.res" remote_free_pct)%${DR_PARKED:+, parked at end $DR_PARKED}"
	return 0
}

# frees_deferred RUN: the freers' frees did not reach SLUB in the run, so
# nothing could park; prints the reason.  Without KASAN: fastpath + slowpath
# < 50% of the run's frees.  With KASAN always: its quarantine holds the
# frees, and those it lets go are freed in batches by quarantine_reduce() on
# whichever CPU allocates next (the allocators' node: local frees, which
# never park), however many they are.  Needs SLUB_STATS.
frees_deferred() {
	fd_frees=$(res "$TMP/$1.res" frees)
	fd_fast=$(run_stat "$1" free_fastpath)
	fd_slow=$(run_stat "$1" free_slowpath)
	fd_frees=${fd_frees:-0} fd_fast=${fd_fast:-0} fd_slow=${fd_slow:-0}
	fd_why="$((fd_fast + fd_slow)) of $fd_frees frees of run $1 reached SLUB (free_fastpath + free_slowpath)"
	if [ -n "$KASAN" ]; then
		echo "KASAN quarantine defers frees and frees them on the allocating CPUs; $fd_why"
		return 0
	fi
	if ge_pct $((fd_fast + fd_slow)) "$fd_frees" 50; then
		return 1
	fi
	echo "only $fd_why"
	return 0
}

run_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "$TMP/$1.stats"
}

# check_run NAME PLACEMENT: the common checks of a finished run.
check_run() {
	cr_f=$TMP/$1.res
	cr_ok=0
	cr_state=$(res "$cr_f" state)
	cr_err=$(res "$cr_f" error)
	cr_allocs=$(res "$cr_f" allocs)
	cr_frees=$(res "$cr_f" frees)
	cr_placement=$(res "$cr_f" placement)
	cr_an=$(res "$cr_f" alloc_thread_nodes)
	cr_fn=$(res "$cr_f" free_thread_nodes)
	if [ "$cr_state" != "done" ]; then
		diag "$1: state '$cr_state', expected 'done'"
		cr_ok=1
	fi
	if [ "$cr_err" != 0 ]; then
		diag "$1: error $cr_err"
		cr_ok=1
	fi
	if [ "$cr_placement" != "$2" ]; then
		diag "$1: placement '$cr_placement', expected '$2'"
		cr_ok=1
	fi
	if [ -z "$cr_allocs" ] || [ -z "$cr_frees" ] || [ "$cr_allocs" -le 0 ] || [ "$cr_frees" -le 0 ]; then
		diag "$1: allocs '$cr_allocs' frees '$cr_frees', expected > 0"
		return 1
	fi
	if [ "$cr_allocs" -ne "$cr_frees" ]; then
		diag "$1: allocs $cr_allocs != frees $cr_frees after the run"
		cr_ok=1
	fi
	cr_fail=$(res "$cr_f" alloc_failures)
	if [ -n "$cr_fail" ] && [ "$cr_fail" != 0 ]; then
		diag "$1: $cr_fail allocation failures"
		cr_ok=1
	fi
	case "$cr_an $cr_fn" in
	*+*)
		diag "$1: a thread ran on several nodes: alloc '$cr_an' free '$cr_fn'"
		cr_ok=1 ;;
	esac
	if [ -z "$cr_an" ] || [ -z "$cr_fn" ]; then
		diag "$1: no thread nodes reported"
		cr_ok=1
	fi
	return "$cr_ok"
}

# --------------------------------------------------------------------------
# Tests.  Each returns 0 (pass), 1 (fail) or 4 (skip, reason in SKIP_REASON).

SKIP_REASON=

skip() {
	SKIP_REASON=$*
	return "$ksft_skip"
}

need_two_nodes() {
	# shellcheck disable=SC2086 # the node ids are words
	[ "$NR_RUN_NODES" -ge 2 ] ||
		skip "needs 2 online nodes with online CPUs and normal memory, have $NR_RUN_NODES (${RUN_NODES_OK:-none}; online: $(commas $NODES))"
}

need_loaded() {
	if mod_loaded && [ -d "$SLAB" ]; then
		return 0
	fi
	skip "module not loaded (an earlier test failed)"
}

need_parking() {
	need_loaded || return
	if [ ! -e "$PARKDIR/park" ] || [ ! -e "$PARKDIR/parked" ]; then
		skip "kernel without slab parking ($PARKDIR/park or parked absent: no series, or no CONFIG_SLUB_DEBUG or CONFIG_DEBUG_FS)"
		return
	fi
	[ -e "$SLAB/park_slab" ] || skip "no parking counters ($SLAB/park_slab absent: CONFIG_SLUB_STATS=n?)"
}

set_park() {
	if [ -z "$PARK_OLD" ]; then
		PARK_OLD=$(cat "$PARKDIR/park")
	fi
	if ! write_file "$PARKDIR/park" "$1"; then
		diag "cannot write $1 to $PARKDIR/park: $WERR"
		return 1
	fi
}

restore_park() {
	if [ -n "$PARK_OLD" ]; then
		write_file "$PARKDIR/park" "$PARK_OLD"
		PARK_OLD=
	fi
	return 0
}

# The load cases of param_fuzz.txt: a refused insmod leaves nothing loaded,
# fails with EINVAL where the case says so, and a pr_err names the
# parameter; an accepted one (ok) loads, then unloads.
t_bad_params_load() {
	if mod_loaded; then
		diag "module already loaded"
		return 1
	fi
	if [ -z "$(fuzz_cases load)" ]; then
		diag "no load cases in $FUZZ_CASES"
		return 1
	fi
	ok=0
	: > "$TMP/refused"
	diag "$(count_cases load) load cases"
	while read -r expect names params; do
		[ -n "$expect" ] || continue
		bp_slab=$SLAB
		case " $params " in
		*" cache_name="*)
			bp_slab=${params#*cache_name=}
			bp_slab=${bp_slab%% *}
			# cache_name= (empty): no directory to look for
			bp_slab=${bp_slab:+/sys/kernel/slab/$bp_slab} ;;
		esac
		case " $params " in
		*" placement="*)
			# With one node, cross and balanced are refused for the
			# placement itself.
			case "$NR_RUN_NODES:$params" in
			[01]:*placement=cross*|[01]:*placement=balanced*)
				names="$names|placement|free_node" ;;
			esac ;;
		esac
		# the chosen nodes first (placement=local too with fewer
		# than two), overridden by the case's own
		params="$NODE_ARGS $params"
		# run_test checks the whole test for splats
		canary nowait
		# shellcheck disable=SC2086
		if ld_err=$(insmod "$KO" $params < /dev/null 2>&1); then
			if [ "$expect" != ok ]; then
				diag "insmod $params: accepted, expected a refusal ($expect)"
				ok=1
			elif [ -n "$bp_slab" ] && [ ! -d "$bp_slab" ]; then
				diag "insmod $params: loaded without $bp_slab"
				ok=1
			fi
			unload || ok=1
			if [ -n "$bp_slab" ] && [ -d "$bp_slab" ]; then
				diag "insmod $params: $bp_slab is left after rmmod"
				ok=1
			fi
			continue
		fi
		if [ "$expect" = ok ]; then
			diag "insmod $params: '$ld_err', expected it to load"
			ok=1
			continue
		fi
		if mod_loaded || { [ -n "$bp_slab" ] && [ -d "$bp_slab" ]; }; then
			diag "insmod $params failed but left the module or $bp_slab behind"
			ok=1
			continue
		fi
		# busybox prints strerror(); kmod's insmod "Invalid parameters"
		case "$expect:$ld_err" in
		einval:*"nvalid argument"*|einval:*"nvalid parameters"*|fail:*) ;;
		*)
			diag "insmod $params: '$ld_err', expected Invalid argument"
			ok=1 ;;
		esac
		# the pr_err is checked below, from one read of dmesg
		echo "$CANARY	$names	$params" >> "$TMP/refused"
	done <<EOF
$(fuzz_cases load)
EOF
	[ -s "$TMP/refused" ] || return "$ok"
	dmesg > "$TMP/dmesg.load"
	bp_bad=$(unnamed_refusals "$TMP/refused" "$TMP/dmesg.load")
	if [ -n "$bp_bad" ]; then
		echo "$bp_bad" | sed 's/^/# /'
		ok=1
	fi
	return "$ok"
}

# unnamed_refusals CASES DMESG: the refused load cases (lines "CANARY<tab>
# NAMES<tab>PARAMS") that no module message after their canary, up to the
# next one, names (one of the '|'-separated NAMES), a line each; a case
# whose canary is not in DMESG (the log wrapped) is one too.
unnamed_refusals() {
	awk -F'\t' -v mod="$MOD" '
		FNR == NR { names[$1] = $2; params[$1] = $3; order[++n] = $1; next }
		{
			line = $0
			sub(/^\[[^]]*\] /, "", line)
			if (index(line, "slub_park kselftest canary ") == 1) {
				cur = (line in names) ? line : ""
				if (cur != "") seen[cur] = 1
				next
			}
			if (cur != "" && index(line, mod))
				msgs[cur] = msgs[cur] line "|"
		}
		END {
			for (i = 1; i <= n; i++) {
				c = order[i]
				if (!(c in seen)) {
					print "insmod " params[c] ": its canary is not in dmesg (log wrapped?)"
					continue
				}
				k = split(names[c], nm, "|")
				found = 0
				for (j = 1; j <= k; j++)
					if (index(msgs[c], nm[j]))
						found = 1
				if (!found)
					print "insmod " params[c] ": no pr_err naming \047" names[c] "\047; got: " msgs[c]
			}
		}' "$1" "$2"
}

t_load() {
	# NODE_ARGS: placement=local with fewer than two run nodes
	load || return 1
	if [ -L "$SLAB" ]; then
		skip "$SLAB is a symlink (merged alias); its counters are shared"
		return
	fi
	ok=0
	st=$(cat "$DBG/status")
	if [ "$st" != idle ]; then
		diag "status '$st' after load, expected 'idle'"
		ok=1
	fi
	BASE_OBJECTS=$(stat_sum objects)
	diag "cache $CACHE: objects=$BASE_OBJECTS objs_per_slab=$(cat "$SLAB/objs_per_slab") order=$(cat "$SLAB/order")"
	return "$ok"
}

# threads_on PLACEMENT WHO NODES WANT: the nodes of WHO's threads (NODES,
# one per thread) are all in WANT, and each node of WANT has a thread.
threads_on() {
	to_ok=0
	[ -n "$3" ] || { diag "$1: no $2 reported"; return 1; }
	for to_n in $3; do
		case " $4 " in
		*" $to_n "*) ;;
		*) diag "$1: $2 on node $to_n, expected only on $4"; to_ok=1 ;;
		esac
	done
	for to_n in $4; do
		case " $3 " in
		*" $to_n "*) ;;
		*) diag "$1: no $2 on node $to_n ('$3')"; to_ok=1 ;;
		esac
	done
	return "$to_ok"
}

# t_run PLACEMENT: one run, its common checks, and the threads where the
# placement puts them:
#   placement  nodes  allocators on   freers on
#   cross      2      NODE_A          NODE_B
#   local      1      NODE_A          NODE_A
#   balanced   2      both            both
# In stress mode, cross also runs with bulk calls (batch 16).
t_run() {
	tr_pl=$1
	case $tr_pl in
	cross) tr_alloc=$NODE_A tr_free=$NODE_B ;;
	local) tr_alloc=$NODE_A tr_free=$NODE_A ;;
	balanced) tr_alloc="$NODE_A $NODE_B" tr_free="$NODE_A $NODE_B" ;;
	*) diag "t_run: unknown placement '$tr_pl'"; return 1 ;;
	esac
	need_loaded || return
	[ "$tr_pl" = local ] || need_two_nodes || return
	do_run "$tr_pl" placement="$tr_pl" alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 inflight=64 batch=1 duration_ms="$DUR_MS" || return 1
	ok=0
	check_run "$tr_pl" "$tr_pl" || ok=1
	threads_on "$tr_pl" allocators "$(res "$TMP/$tr_pl.res" alloc_thread_nodes)" "$tr_alloc" || ok=1
	threads_on "$tr_pl" freers "$(res "$TMP/$tr_pl.res" free_thread_nodes)" "$tr_free" || ok=1
	if [ "$tr_pl" = cross ] && [ "$MODE" = stress ]; then
		do_run cross_bulk placement=cross batch=16 inflight=1024 || return 1
		check_run cross_bulk cross || ok=1
		write_file "$DBG/batch" 1
		write_file "$DBG/inflight" 64
	fi
	return "$ok"
}

t_remote_free_pct() {
	if [ ! -r "$TMP/local.res" ]; then
		skip "no local run to check"
		return
	fi
	ok=0
	lp=$(res "$TMP/local.res" remote_free_pct)
	if ! cmp_dec "$lp" le 1; then
		diag "local: remote_free_pct $lp, expected <= 1"
		ok=1
	fi
	if [ -r "$TMP/cross.res" ]; then
		cp=$(res "$TMP/cross.res" remote_free_pct)
		if ! cmp_dec "$cp" ge 99; then
			diag "cross: remote_free_pct $cp, expected >= 99"
			ok=1
		fi
		diag "remote_free_pct: cross $cp, local $lp"
	else
		diag "remote_free_pct: local $lp (no cross run: 1 node)"
	fi
	return "$ok"
}

# Remote frees skip the per-CPU sheaves: __slab_free() counts free_slowpath.
t_free_path_stats() {
	if ! has_stats; then
		skip "no SLUB_STATS counters in $SLAB (CONFIG_SLUB_STATS=n)"
		return
	fi
	if [ ! -r "$TMP/local.stats" ]; then
		skip "no local run to check"
		return
	fi
	for r in cross local; do
		[ -r "$TMP/$r.stats" ] || continue
		if why=$(frees_deferred "$r"); then
			skip "$why"
			return
		fi
	done
	ok=0
	if [ -r "$TMP/cross.stats" ]; then
		frees=$(res "$TMP/cross.res" frees)
		slow=$(run_stat cross free_slowpath)
		fast=$(run_stat cross free_fastpath)
		frees=${frees:-0} slow=${slow:-0} fast=${fast:-0}
		diag "cross: frees $frees free_slowpath $slow free_fastpath $fast"
		if ! ge_pct "$slow" "$frees" 90; then
			diag "cross: free_slowpath $slow < 90% of $frees frees"
			ok=1
		fi
		if ! ge_pct "$frees" "$fast" 1000; then
			diag "cross: free_fastpath $fast > 10% of $frees frees"
			ok=1
		fi
	fi
	frees=$(res "$TMP/local.res" frees)
	slow=$(run_stat local free_slowpath)
	fast=$(run_stat local free_fastpath)
	frees=${frees:-0} slow=${slow:-0} fast=${fast:-0}
	diag "local: frees $frees free_slowpath $slow free_fastpath $fast"
	if ! ge_pct "$frees" "$slow" 1000; then
		diag "local: free_slowpath $slow > 10% of $frees frees"
		ok=1
	fi
	return "$ok"
}

# fuzz_combo WHAT FILE VALUE...: writing the values in turn, or then
# starting a run, is refused with EINVAL; the files get their values back.
fuzz_combo() {
	fc_what=$1
	shift
	fc_ok=0
	fc_refused=0
	fc_old=
	while [ $# -ge 2 ]; do
		fc_old="$fc_old $1 $(cat "$DBG/$1")"
		if ! write_file "$DBG/$1" "$2"; then
			case "$WERR" in
			*"Invalid argument"*) ;;
			*) diag "$fc_what: writing '$2' to $1: '$WERR'"; fc_ok=1 ;;
			esac
			fc_refused=1
			break
		fi
		shift 2
	done
	if [ "$fc_refused" -eq 0 ]; then
		if write_file "$DBG/run" 1; then
			diag "$fc_what: a run started, expected Invalid argument"
			fc_ok=1
			write_file "$DBG/stop" 1
			cat "$DBG/wait" > /dev/null
		else
			case "$WERR" in
			*"Invalid argument"*) ;;
			*) diag "$fc_what: run: '$WERR', expected Invalid argument"; fc_ok=1 ;;
			esac
		fi
	fi
	# shellcheck disable=SC2086
	set -- $fc_old
	while [ $# -ge 2 ]; do
		write_file "$DBG/$1" "$2" || { diag "$fc_what: cannot put back $1 $2: $WERR"; fc_ok=1; }
		shift 2
	done
	return "$fc_ok"
}

# The write, combo and busy cases of param_fuzz.txt: refused writes get
# -EINVAL and change nothing, inconsistent combinations cannot start a run,
# writes while a run is active get -EBUSY; stop ends a run with state
# 'stopped'.
t_debugfs_params() {
	need_loaded || return
	if [ -z "$(fuzz_cases write)" ] || [ -z "$(fuzz_cases busy)" ]; then
		diag "no write or busy cases in $FUZZ_CASES"
		return 1
	fi
	ok=0
	diag "$(count_cases write) write, $(count_cases combo) combo, $(count_cases busy) busy cases"
	while read -r expect file val; do
		[ -n "$expect" ] || continue
		# run and stop are write-only
		before=$(cat "$DBG/$file" 2>/dev/null)
		if write_file "$DBG/$file" "$val"; then
			if [ "$expect" != ok ]; then
				diag "writing '$val' to $file succeeded, expected $expect"
				ok=1
			elif [ "$(cat "$DBG/$file")" != "$val" ]; then
				diag "$file reads '$(cat "$DBG/$file")' after writing '$val'"
				ok=1
			fi
			continue
		fi
		case "$expect:$WERR" in
		einval:*"Invalid argument"*|fail:*) ;;
		*) diag "writing '$val' to $file: got '$WERR', expected $expect"; ok=1 ;;
		esac
		after=$(cat "$DBG/$file" 2>/dev/null)
		if [ "$before" != "$after" ]; then
			diag "$file changed from '$before' to '$after' by a refused write"
			ok=1
		fi
	done <<EOF
$(fuzz_cases write)
EOF
	while read -r _ what pairs; do
		[ -n "$what" ] || continue
		# shellcheck disable=SC2086
		fuzz_combo "$what" $pairs || ok=1
	done <<EOF
$(fuzz_cases combo)
EOF
	# EBUSY while running, then stop.
	write_file "$DBG/placement" local || { diag "placement=local: $WERR"; return 1; }
	write_file "$DBG/alloc_node" "$NODE_A"
	write_file "$DBG/duration_ms" 60000 || { diag "duration_ms=60000: $WERR"; return 1; }
	if ! write_file "$DBG/run" 1; then
		diag "cannot start a run: $WERR"
		return 1
	fi
	st=$(cat "$DBG/status")
	[ "$st" = running ] || { diag "status '$st' right after start, expected 'running'"; ok=1; }
	while read -r _ file _; do
		[ -n "$file" ] || continue
		if [ "$file" = run ]; then
			val=1
		else
			val=$(cat "$DBG/$file")
		fi
		expect_write_err "$DBG/$file" "$val" "busy" || ok=1
	done <<EOF
$(fuzz_cases busy)
EOF
	nap 0.2
	if ! write_file "$DBG/stop" 1; then
		diag "stop: $WERR"
		ok=1
	fi
	state=$(cat "$DBG/wait")
	[ "$state" = "state: stopped" ] || { diag "wait after stop: '$state', expected 'state: stopped'"; ok=1; }
	cat "$DBG/results" > "$TMP/stopped.res"
	[ "$(res "$TMP/stopped.res" state)" = stopped ] || { diag "results state '$(res "$TMP/stopped.res" state)' after stop"; ok=1; }
	a=$(res "$TMP/stopped.res" allocs)
	f=$(res "$TMP/stopped.res" frees)
	if [ -z "$a" ] || [ "$a" != "$f" ]; then
		diag "stopped run: allocs '$a' != frees '$f'"
		ok=1
	fi
	write_file "$DBG/duration_ms" "$DUR_MS"
	[ "$(cat "$DBG/status")" = idle ] || { diag "status not idle after stop"; ok=1; }
	return "$ok"
}

# The parked count: debugfs 'parked', one number (the per-node counts summed,
# read without the list_lock); empty when it cannot be read.
parked_now() {
	pn_v=
	read -r pn_v < "$PARKDIR/parked" 2>/dev/null
	echo "$pn_v"
}

# Poll parked (read-only) up to 2 s for 0; prints the last value.
wait_parked_zero() {
	wp_i=0
	wp_p=$(parked_now)
	while [ "$wp_p" != 0 ] && [ "$wp_i" -lt "$PARKED_POLL_TICKS" ]; do
		nap 0.1
		wp_i=$((wp_i + 1))
		wp_p=$(parked_now)
	done
	echo "$wp_p"
}

# park_burst NAME: short park=2 cross runs until one ends with slabs still
# parked ('parked' read as soon as the run is over, before the unpark work
# has run), so that the caller acts on a cache with parked slabs; up to
# BURST_TRIES tries: a burst whose end the unpark work beat leaves nothing,
# and a make check once saw 5 such bursts in a row (10 tries; 3 under
# KASAN, where the quarantine keeps the frees from parking anyway).
# BURST_PARKED is that count.  Leaves park=2 set.  Returns 1 when
# nothing was parked (SKIP_REASON says why if the frees were deferred, as
# with KASAN's quarantine, which holds the frees of a run).
BURST_PARKED=0
BURST_TRIES=10
park_burst() {
	set_park 2 || return 1
	pb_try=0
	while [ "$pb_try" -lt "$BURST_TRIES" ]; do
		pb_try=$((pb_try + 1))
		clear_stats	# the counters below are the last burst's
		for kv in placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
			  threads=0 batch=1 inflight=4096 duration_ms=500; do
			write_file "$DBG/${kv%%=*}" "${kv#*=}" || { diag "$1: cannot set $kv: $WERR"; return 1; }
		done
		write_file "$DBG/run" 1 || { diag "$1: cannot start a burst: $WERR"; return 1; }
		cat "$DBG/wait" > /dev/null || return 1
		BURST_PARKED=$(parked_now)
		[ "${BURST_PARKED:-0}" -gt 0 ] && return 0
	done
	cat "$DBG/results" > "$TMP/burst.res"
	: > "$TMP/burst.stats"
	for s in free_fastpath free_slowpath; do
		echo "$s $(stat_sum "$s")" >> "$TMP/burst.stats"
	done
	if why=$(frees_deferred burst); then
		SKIP_REASON="nothing parked at the end of $BURST_TRIES park=2 bursts ($why)"
	else
		diag "$1: nothing parked at the end of $BURST_TRIES park=2 bursts"
	fi
	return 1
}

# burst_or_skip NAME: park_burst, and the test's return value if it failed
# (4 with SKIP_REASON when the frees were deferred, else 1).
burst_or_skip() {
	SKIP_REASON=
	park_burst "$1" && return 0
	restore_park
	[ -n "$SKIP_REASON" ] && return "$ksft_skip"
	return 1
}

t_park_counters() {
	need_parking || return
	need_two_nodes || return
	ok=0
	set_park 2 || return 1
	do_run park2 placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
		batch=1 duration_ms="$PARK_DUR_MS" || return 1
	check_run park2 cross || ok=1
	ps=$(stat_sum park_slab)
	deferred=
	if [ -z "$ps" ] || [ "$ps" -le 0 ]; then
		if deferred=$(frees_deferred park2); then
			diag "park=2 cross run: park_slab 0, not checked: $deferred"
		else
			deferred=
			diag "park=2 cross run: park_slab '$ps', expected > 0"
			ok=1
		fi
	fi
	nap "$QUIESCE_S"
	left=$(wait_parked_zero)
	ps=$(stat_sum park_slab)
	us=$(stat_sum unpark_slab)
	fap=$(stat_sum free_add_partial)
	diag "park=2: park_slab $ps unpark_slab $us free_add_partial $fap parked $left"
	[ "$left" = 0 ] || { diag "park=2: $left slabs still parked after quiesce"; ok=1; }
	[ "$ps" = "$us" ] || { diag "park=2: park_slab $ps != unpark_slab $us after quiesce"; ok=1; }
	# A park counts free_add_partial too (full -> partial and full ->
	# empty frees alike), and park=2 parks every first free into a full
	# slab, which is where free_add_partial is counted: equal.
	[ "$ps" = "$fap" ] || { diag "park=2: park_slab $ps != free_add_partial $fap (every first free into a full slab parks, and counts both)"; ok=1; }

	set_park 0 || return 1
	do_run park0 placement=cross duration_ms="$PARK_DUR_MS" || return 1
	check_run park0 cross || ok=1
	ps=$(stat_sum park_slab)
	[ "$ps" = 0 ] || { diag "park=0 cross run: park_slab $ps, expected 0"; ok=1; }

	# 2 -> 0 with slabs parked drains them at once, not by the work: the
	# work may run first (it is due within 100 ms of the burst's end), so
	# switch 5 times, writing and reading in this shell, without a fork.
	sw=0
	while [ "$sw" -lt 5 ]; do
		sw=$((sw + 1))
		burst_or_skip park_counters
		rc=$?
		if [ "$rc" -ne 0 ]; then
			[ "$rc" -eq "$ksft_skip" ] && [ "$ok" -eq 0 ] && return "$ksft_skip"
			return 1
		fi
		if ! echo 0 2>/dev/null > "$PARKDIR/park"; then
			diag "cannot write 0 to $PARKDIR/park"
			return 1
		fi
		read -r after < "$PARKDIR/parked"
		diag "switch 2->0 ($sw/5): parked $BURST_PARKED -> $after"
		[ "$after" = 0 ] || { diag "parked $after right after writing 0 to park"; ok=1; }
	done
	restore_park
	if [ "$ok" -eq 0 ] && [ -n "$deferred" ]; then
		skip "nothing parked ($deferred); the other invariants held"
		return
	fi
	return "$ok"
}

# Nothing stays parked: the delayed work alone unparks.  A burst leaves
# slabs parked (park_burst: 'parked' > 0 right after the run); then, with
# no other activity and only read-only reads of 'parked', it must fall to 0.
t_park_no_stranded() {
	need_parking || return
	need_two_nodes || return
	clear_stats
	burst_or_skip park_no_stranded || return
	first=$BURST_PARKED
	# Under KASAN, frees leave the quarantine at any time and may park
	# between the reads: take the counters again until they agree (1 s).
	i=0
	while :; do
		left=$(wait_parked_zero)
		ps=$(stat_sum park_slab)
		us=$(stat_sum unpark_slab)
		[ "$ps" = "$us" ] || [ "$i" -ge 10 ] || { i=$((i + 1)); nap 0.1; continue; }
		break
	done
	restore_park
	diag "park_slab $ps unpark_slab $us; parked $first at the end of the burst, $left after polling"
	ok=0
	[ "$left" = 0 ] || { diag "$left slabs stranded 2 s after the run"; ok=1; }
	[ "$ps" = "$us" ] || { diag "park_slab $ps != unpark_slab $us"; ok=1; }
	return "$ok"
}

# A cache without sheaves takes every allocation from a partial slab under
# list_lock (get_from_partial_node()): one cmpxchg takes the slab's last
# object, remove_partial() follows.  A remote free in between sees a full
# slab still on the partial list; parking it there corrupts the list (an
# oops at LIST_POISON1 in unpark_slabs(), found by 'make soak').  Always
# park (park=2) in cross runs whose allocators drain slabs as the freers
# refill them, both sides on the same few slabs (inflight 16..256; with 4 or
# fewer objects per thread in flight no slab ever fills, nothing parks).
# The cache is shrunk during the runs: shrink unparks, and under KASAN it
# flushes the quarantine that would otherwise hold the frees of the run;
# not after them, so that only the delayed work empties 'parked' then.
# Under KASAN the module shrinks too, every PARK_SHRINK_MS (50) ms from
# its run's control work (shrink_ms): the shell's shrinks alone, with every
# vCPU busy with the run's threads, once let all 0 of a run's frees reach
# SLUB under TCG ("0 of N frees of run nosheaves256 reached SLUB"), and
# the test skipped.
# Before the fix this crashed the kernel within the first two of these runs
# in 12 boots out of 12 (2x2 vCPUs, TCG); after it, 940-17,700 parks a run
# (150-480 under KASAN, thanks to the shrinks).
# Reloads the module with no_sheaves=1, and with the defaults at the end,
# on failure too (later tests expect the default module, idle).
nosheaves_restore() {
	DR_SHRINK=0
	restore_park
	if mod_loaded; then
		[ "$(cat "$DBG/status" 2>/dev/null)" = running ] && write_file "$DBG/stop" 1
		unload || return 1
	fi
	load || return 1
	BASE_OBJECTS=$(stat_sum objects)
}

# Reload the module without sheaves; on failure, the default module again.
nosheaves_load() {
	unload || return 1
	if ! load no_sheaves=1 placement=cross alloc_node="$NODE_A" free_node="$NODE_B"; then
		load
		return 1
	fi
}

t_park_no_sheaves() {
	need_parking || return
	need_two_nodes || return
	nosheaves_load || return 1
	ok=0
	cap=$(cat "$SLAB/sheaf_capacity" 2>/dev/null)
	if [ "$cap" != 0 ]; then
		diag "no_sheaves=1: sheaf_capacity '$cap', expected 0"
		ok=1
	fi
	set_park 2 || { nosheaves_restore; return 1; }
	parks=0
	DR_SHRINK=1	# until nosheaves_restore
	for inf in 16 64 256; do
		if ! do_run "nosheaves$inf" placement=cross alloc_node="$NODE_A" \
			free_node="$NODE_B" threads=0 inflight="$inf" batch=1 \
			duration_ms="$PARK_DUR_MS" shrink_ms="$PARK_SHRINK_MS"; then
			nosheaves_restore
			return 1
		fi
		check_run "nosheaves$inf" cross || ok=1
		nap "$QUIESCE_S"
		left=$(wait_parked_zero)
		ps=$(stat_sum park_slab)
		us=$(stat_sum unpark_slab)
		diag "no sheaves, park=2, inflight $inf: park_slab $ps unpark_slab $us parked at the end ${DR_PARKED:-?}, after quiesce $left; module shrinks $(res "$TMP/nosheaves$inf.res" shrinks) (shrink_ms $PARK_SHRINK_MS)"
		[ "$left" = 0 ] || { diag "inflight $inf: $left slabs still parked after quiesce"; ok=1; }
		[ "$ps" = "$us" ] || { diag "inflight $inf: park_slab $ps != unpark_slab $us"; ok=1; }
		parks=$((parks + ${ps:-0}))
	done
	nosheaves_restore || return 1
	if [ "$ok" -eq 0 ] && [ "$parks" -eq 0 ]; then
		if deferred=$(frees_deferred nosheaves256); then
			skip "nothing parked ($deferred)"
			return
		fi
		diag "no sheaves, park=2: nothing parked in 3 cross runs"
		ok=1
	fi
	return "$ok"
}

# Memory held after a burst: in a cross burst with many objects in flight
# (park=2), the freers park slabs and go on freeing into them until many
# are empty, and the allocators unpark them; a short run right after the
# burst allocates again before the unpark work's delay.  Once quiet, the
# node must keep no more slabs than with parking off after the same steps
# (min_partial empty slabs): the first series listed every empty slab it
# unparked for an allocation, and kept 287 and 815 slabs here in two boots
# against 4.  No sheaves, so every allocation uses the partial list.
FP_INFLIGHT=16384
fp_steps() {
	fp_mode=$1
	set_park "$fp_mode" || return 1
	write_file "$SLAB/shrink" 1 || { diag "shrink: $WERR"; return 1; }
	nap "$QUIESCE_S"
	do_run "fp$fp_mode" placement=cross alloc_node="$NODE_A" free_node="$NODE_B" \
		threads=0 batch=1 inflight="$FP_INFLIGHT" duration_ms="$PARK_DUR_MS" || return 1
	# at once: the unpark work runs 100 ms after the first park
	for kv in inflight=4 duration_ms=1; do
		write_file "$DBG/${kv%%=*}" "${kv#*=}" || { diag "cannot set $kv: $WERR"; return 1; }
	done
	write_file "$DBG/run" 1 || { diag "cannot start the short run: $WERR"; return 1; }
	cat "$DBG/wait" > /dev/null || return 1
	cat "$DBG/results" > "$TMP/fp${fp_mode}short.res"
	check_run "fp$fp_mode" cross || return 1
	check_run "fp${fp_mode}short" cross || return 1
	nap 2
	FP_PARKS=$(run_stat "fp$fp_mode" park_slab)
	FP_LEFT=$(wait_parked_zero)
	FP_SLABS=$(stat_sum slabs)
	diag "park=$fp_mode: burst parked ${FP_PARKS:-?} slabs, ${DR_PARKED:-?} at its end; 2 s after the short run: slabs $FP_SLABS ($(cat "$SLAB/slabs")), parked $FP_LEFT"
}

t_park_footprint() {
	need_parking || return
	need_two_nodes || return
	nosheaves_load || return 1
	ok=0
	fp_steps 0 || { nosheaves_restore; return 1; }
	base_slabs=$FP_SLABS
	fp_steps 2 || { nosheaves_restore; return 1; }
	park_slabs=$FP_SLABS park_parks=${FP_PARKS:-0} park_left=$FP_LEFT
	minp=$(cat "$SLAB/min_partial")
	tol=$((minp * NR_NODES))
	nosheaves_restore || return 1
	if [ "$park_parks" -eq 0 ]; then
		if deferred=$(frees_deferred fp2); then
			skip "nothing parked in the burst ($deferred)"
			return
		fi
		diag "park=2: nothing parked in the burst"
		return 1
	fi
	[ "$park_left" = 0 ] || { diag "park=2: $park_left slabs still parked"; ok=1; }
	if [ "$park_slabs" -gt $((base_slabs + tol)) ]; then
		diag "park=2 keeps $park_slabs slabs at rest, park=0 $base_slabs (tolerance: min_partial $minp x $NR_NODES nodes)"
		ok=1
	fi
	return "$ok"
}

# Shrink frees every empty slab, the parked ones too (it unparks first):
# with parking, it acts on a cache with slabs parked right before
# (park_burst).
t_shrink() {
	need_loaded || return
	[ "$(cat "$DBG/status")" = idle ] || { diag "module not idle"; return 1; }
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		burst_or_skip shrink || return
		diag "parked before the shrink: $BURST_PARKED"
	fi
	if ! write_file "$SLAB/shrink" 1; then
		diag "shrink: $WERR"
		return 1
	fi
	ok=0
	for f in slabs objects partial total_objects; do
		v=$(stat_sum "$f")
		[ "$v" = 0 ] || { diag "after shrink: $f $v, expected 0 ($(cat "$SLAB/$f"))"; ok=1; }
	done
	if [ -e "$PARKDIR/parked" ]; then
		v=$(parked_now)
		[ "$v" = 0 ] || { diag "after shrink: parked $v"; ok=1; }
	fi
	restore_park
	return "$ok"
}

# Accounting invariants, with slabs parked: the sysfs checker; then, once
# shrunk, objects back at the baseline.  The sysfs counts do not walk the
# parked slabs (their free objects count as in use until unparked); the
# invariants must hold all the same.
t_accounting() {
	need_loaded || return
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		burst_or_skip accounting || return
		diag "parked before the checks: $BURST_PARKED"
		restore_park
	fi
	ok=0
	if [ -x "$SYSFS_BIN" ]; then
		SLUB_PARK_CACHE=$CACHE "$SYSFS_BIN" > "$TMP/sysfs.out" 2>&1
		rc=$?
		sed 's/^/# /' "$TMP/sysfs.out"
		case $rc in
		0) ;;
		4) skip "slub_park_sysfs skipped everything"; return ;;
		*) diag "slub_park_sysfs failed (rc $rc)"; ok=1 ;;
		esac
	else
		diag "slub_park_sysfs not found next to the script; shell checks only"
		slabs=$(stat_sum slabs)
		tot=$(stat_sum total_objects)
		per=$(cat "$SLAB/objs_per_slab")
		obj=$(stat_sum objects)
		[ "$tot" -eq $((slabs * per)) ] || { diag "total_objects $tot != slabs $slabs x $per"; ok=1; }
		[ "$obj" -le "$tot" ] || { diag "objects $obj > total_objects $tot"; ok=1; }
	fi
	# Once shrunk (the sheaves hold objects until then): back at baseline.
	write_file "$SLAB/shrink" 1 || { diag "shrink: $WERR"; return 1; }
	obj=$(stat_sum objects)
	if [ "$obj" != "${BASE_OBJECTS:-0}" ]; then
		diag "objects $obj after shrink, baseline ${BASE_OBJECTS:-0}"
		ok=1
	fi
	return "$ok"
}

# Destroy right after a (parking) run: rmmod at once must be silent.
t_destroy_parked() {
	need_loaded || return
	park_note="park=2"
	if [ -e "$PARKDIR/park" ]; then
		set_park 2 || return 1
	else
		park_note="no parking in this kernel; plain destroy right after a run"
	fi
	if [ "$NR_RUN_NODES" -ge 2 ]; then
		set -- placement=cross alloc_node="$NODE_A" free_node="$NODE_B"
	else
		set -- placement=local
	fi
	for kv in "$@" duration_ms="$PARK_DUR_MS"; do
		write_file "$DBG/${kv%%=*}" "${kv#*=}" || { diag "cannot set $kv: $WERR"; return 1; }
	done
	clear_stats
	PARK_OLD=	# the cache goes away with the module
	# canary first, so that rmmod follows the end of the run at once
	canary || return 1
	if [ -e "$PARKDIR/parked" ] && [ "$NR_RUN_NODES" -ge 2 ]; then
		# rmmod with slabs parked: free_partial() must unpark them
		burst_or_skip destroy_parked || { rc=$?; PARK_OLD=; return "$rc"; }
		PARK_OLD=
		state="burst done"
		parked=$BURST_PARKED
	else
		write_file "$DBG/run" 1 || { diag "cannot start run: $WERR"; return 1; }
		state=$(cat "$DBG/wait")
		parked=$(parked_now)
	fi
	unload || return 1
	ok=0
	diag "$park_note; run $state; parked at rmmod: ${parked:-n/a}"
	[ ! -e "$SLAB" ] || { diag "$SLAB still exists after rmmod"; ok=1; }
	[ ! -e "$PARKDIR" ] || { diag "$PARKDIR still exists after rmmod"; ok=1; }
	return "$ok"
}

stress_threads() {
	for st_c in /proc/[0-9]*/comm; do
		read -r st_comm < "$st_c" 2>/dev/null || continue
		case "$st_comm" in
		slub_stress*|sstress*) echo "$st_comm" ;;
		esac
	done
}

# rmmod while a run is active is clean.
t_rmmod_mid_run() {
	if ! mod_loaded; then
		if [ "$NR_RUN_NODES" -ge 2 ]; then
			load start=1 placement=cross alloc_node="$NODE_A" free_node="$NODE_B" duration_ms=60000 || return 1
		else
			load start=1 placement=local duration_ms=60000 || return 1
		fi
	else
		write_file "$DBG/duration_ms" 60000
		write_file "$DBG/run" 1 || { diag "run: $WERR"; return 1; }
	fi
	i=0
	while [ "$(cat "$DBG/status")" != running ] && [ "$i" -lt 50 ]; do
		nap 0.1
		i=$((i + 1))
	done
	ok=0
	[ "$(cat "$DBG/status")" = running ] || { diag "run did not start"; ok=1; }
	nap "$MID_S"
	canary || return 1
	unload || return 1
	[ ! -e "$SLAB" ] || { diag "$SLAB still exists after rmmod"; ok=1; }
	[ ! -e "$DBG" ] || { diag "$DBG still exists after rmmod"; ok=1; }
	[ ! -e "$PARKDIR" ] || { diag "$PARKDIR still exists after rmmod"; ok=1; }
	thr=$(stress_threads)
	[ -z "$thr" ] || { diag "threads left after rmmod: $(echo "$thr" | tr '\n' ' ')"; ok=1; }
	return "$ok"
}

taint_flags() {
	tf_v=$1
	tf_out=
	tf_i=0
	while [ "$tf_i" -lt 20 ]; do
		if [ $(( (tf_v >> tf_i) & 1 )) -eq 1 ]; then
			tf_out="$tf_out$(echo "$TAINT_LETTERS" | cut -c $((tf_i + 1)))(bit $tf_i) "
		fi
		tf_i=$((tf_i + 1))
	done
	echo "$tf_out"
}

t_taint() {
	now=$(cat /proc/sys/kernel/tainted)
	new=$(( now & ~TAINT_BEFORE & ~TAINT_EXPECTED ))
	tt_e=
	[ "$MODSIG" = 1 ] && tt_e=", and E where unsigned (CONFIG_MODULE_SIG: $SIG_ENFORCE_PARAM exists)"
	diag "tainted: before $TAINT_BEFORE, now $now (O and N are expected from the test module$tt_e)"
	if [ "$new" -ne 0 ]; then
		diag "new taint: $(taint_flags "$new")"
		return 1
	fi
	return 0
}

# The tests of smoke and stress mode, in order: test NAME runs t_NAME
# (run_PLACEMENT: t_run PLACEMENT).  'slub_park.sh list' prints them, the
# plan counts them: the one list of them.
TESTS="bad_params_load load run_cross run_local run_balanced remote_free_pct
free_path_stats debugfs_params park_counters park_no_stranded park_no_sheaves
park_footprint shrink accounting destroy_parked rmmod_mid_run taint"

# run_test NAME FUNC [ARGS]: one KTAP line; a splat after the canary fails it.
run_test() {
	RT_NAME=$1
	shift
	SKIP_REASON=
	if ! canary; then
		ktap_test_fail "$RT_NAME"
		return
	fi
	RT_CANARY=$CANARY
	"$@"
	RT_RC=$?
	# Check the whole test window for splats (tests may set new canaries).
	CANARY=$RT_CANARY
	if splat_since_canary; then
		diag "$RT_NAME: kernel splat after the test started"
		RT_RC=1
	fi
	case $RT_RC in
	0) ktap_test_pass "$RT_NAME" ;;
	"$ksft_skip") ktap_skip_reason "$RT_NAME" "${SKIP_REASON:-skipped}" ;;
	*) ktap_test_fail "$RT_NAME" ;;
	esac
}

# --------------------------------------------------------------------------

usage() {
	echo "Usage: $0 [smoke | stress | fuzz | list | help | key=val ...]"
	echo "  smoke    short runs, seconds (default; CI)"
	echo "  stress   long runs, minutes"
	echo "  fuzz     the parameter tests only, every case of param_fuzz.txt"
	echo "  list     the tests of smoke and stress mode, one a line"
	echo "  key=val  load $MOD with these parameters, one run, check it"
	echo
	echo "The module: $SCRIPT_DIR/$MOD/$MOD.ko (lib.mk builds it: TEST_GEN_MODS_DIR)"
	echo "Environment: KSRC (a kernel tree, for ktap_helpers.sh when not run"
	echo "  from a kselftest install)"
	if [ -n "$KO" ]; then
		echo
		echo "Module parameters ($KO):"
		param_lines | sed 's/^/  /'
	fi
}

# key=val mode: one run with load-time parameters.
t_manual_load() {
	load "$@"
}

t_manual_run() {
	need_loaded || return
	if [ "$(cat "$DBG/status")" = idle ] && [ "$(res_live run)" = 0 ]; then
		write_file "$DBG/run" 1 || { diag "run: $WERR"; return 1; }
	fi
	state=$(cat "$DBG/wait")
	cat "$DBG/results" > "$TMP/manual.res"
	sed 's/^/#   /' "$TMP/manual.res"
	check_run manual "$(res "$TMP/manual.res" placement)"
}

res_live() {
	awk -v k="$1" 'index($0, k ": ") == 1 { print substr($0, length(k) + 3); exit }' "$DBG/results"
}

t_manual_rmmod() {
	need_loaded || return
	unload || return 1
	[ ! -e "$SLAB" ] || { diag "$SLAB still exists after rmmod"; return 1; }
}

main() {
	MODE=${1:-smoke}
	if [ "$MODE" = list ]; then
		# shellcheck disable=SC2086 # TESTS is a list of words
		printf '%s\n' $TESTS
		exit 0
	fi
	load_ktap
	load_splat_re "$SCRIPT_DIR" || exit 1
	if [ ! -r "$FUZZ_CASES" ]; then
		echo "Error: $FUZZ_CASES is missing (install it with the test)" >&2
		exit 1
	fi
	case "$MODE" in
	help|-h|--help)
		find_module > /dev/null 2>&1
		usage
		exit 0 ;;
	smoke)
		DUR_MS=1000
		PARK_DUR_MS=1000
		MID_S=0.5 ;;
	stress)
		DUR_MS=30000
		PARK_DUR_MS=10000
		MID_S=5 ;;
	fuzz)
		FUZZ_ALL=1
		DUR_MS=1000
		PARK_DUR_MS=1000
		MID_S=0.5 ;;
	*=*)
		MODE=manual ;;
	*)
		usage >&2
		exit 1 ;;
	esac

	[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
	[ -d /sys/kernel/slab ] || skip_all "no /sys/kernel/slab (CONFIG_SYSFS/SLUB)"
	if ! grep -q ' /sys/kernel/debug debugfs' /proc/mounts; then
		mount -t debugfs none /sys/kernel/debug 2>/dev/null ||
			skip_all "debugfs not mounted and cannot be mounted (CONFIG_DEBUG_FS)"
	fi
	find_module || skip_all "$MODULE_MISSING"
	# A module built for another kernel cannot load: SKIP, not FAIL.
	vm=$(tr '\000' '\n' < "$KO" | sed -n 's/^vermagic=\([^ ]*\).*/\1/p' | head -n 1)
	if [ -n "$vm" ] && [ "$vm" != "$(uname -r)" ]; then
		skip_all "$KO is built for kernel $vm, this is $(uname -r)"
	fi
	if mod_loaded; then
		rmmod "$MOD" 2>/dev/null || skip_all "$MOD is loaded and cannot be removed"
	fi

	NODES=$(online_nodes | tr '\n' ' ')
	NR_NODES=$(echo "$NODES" | wc -w)
	choose_nodes
	[ -n "$NODE_ARGS" ] || skip_all "$NODE_NOTE"
	fuzz_words
	TAINT_BEFORE=$(cat /proc/sys/kernel/tainted)
	sig_facts
	sig_probe
	KASAN=
	PARK_SHRINK_MS=0
	if kasan_on; then
		KASAN=1
		BURST_TRIES=3
		PARK_SHRINK_MS=50
	fi
	TMP=$(mktemp -d /tmp/slub_park.XXXXXX) || skip_all "mktemp failed"
	trap cleanup EXIT
	trap 'cleanup; exit 1' INT TERM HUP

	if [ "$MODE" = manual ]; then
		valid=$(valid_params)
		for kv in "$@"; do
			key=${kv%%=*}
			case "$kv" in
			*=*) ;;
			*) diag "not key=val: $kv"; usage >&2; exit 1 ;;
			esac
			[ -n "$valid" ] || { diag "modinfo lists no parameters; not checking $key"; continue; }
			case " $(echo "$valid" | tr '\n' ' ') " in
			*" $key "*) ;;
			*) echo "Error: unknown parameter '$key'; valid: $(echo "$valid" | tr '\n' ' ')" >&2
			   exit 1 ;;
			esac
			if [ "$key" = cache_name ]; then
				CACHE=${kv#*=}
				SLAB=/sys/kernel/slab/$CACHE
				PARKDIR=/sys/kernel/debug/slab/$CACHE
			fi
		done
	fi

	ktap_print_header

	if [ "$MODE" = manual ]; then
		ktap_set_plan 4
		diag "module $KO; online nodes: $NODES; mode $MODE $*; kernel $(uname -r)"
		diag "nodes: $NODE_NOTE"
		run_test manual_load t_manual_load "$@"
		run_test manual_run t_manual_run
		run_test manual_rmmod t_manual_rmmod
		run_test taint t_taint
		finish
	fi

	if [ "$MODE" = fuzz ]; then
		ktap_set_plan 4
		diag "module $KO; online nodes: $NODES; mode $MODE; kernel $(uname -r)"
		diag "nodes: $NODE_NOTE"
		run_test bad_params_load t_bad_params_load
		run_test load t_load
		run_test debugfs_params t_debugfs_params
		run_test taint t_taint
		finish
	fi

	# shellcheck disable=SC2086 # TESTS is a list of words
	ktap_set_plan "$(echo $TESTS | wc -w)"
	diag "module $KO; online nodes: $NODES; mode $MODE; kernel $(uname -r)"
	diag "nodes: $NODE_NOTE"
	for t in $TESTS; do
		case $t in
		run_*) run_test "$t" t_run "${t#run_}" ;;
		*) run_test "$t" "t_$t" ;;
		esac
	done
	finish
}

main "$@"
