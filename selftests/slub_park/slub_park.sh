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
# The helpers (shared with the project's guest scripts), then the tests by
# topic
for f in slub_park_lib.sh runs.sh parking.sh lifecycle.sh params.sh; do
	[ -r "$SCRIPT_DIR/$f" ] && continue
	echo "Error: $SCRIPT_DIR/$f is missing (install it with the test)" >&2
	exit 1
done
# shellcheck source=selftests/slub_park/slub_park_lib.sh
. "$SCRIPT_DIR/slub_park_lib.sh"
# shellcheck source=selftests/slub_park/runs.sh
. "$SCRIPT_DIR/runs.sh"
# shellcheck source=selftests/slub_park/parking.sh
. "$SCRIPT_DIR/parking.sh"
# shellcheck source=selftests/slub_park/lifecycle.sh
. "$SCRIPT_DIR/lifecycle.sh"
# shellcheck source=selftests/slub_park/params.sh
. "$SCRIPT_DIR/params.sh"
KSRC=${KSRC:-}
CACHE=nfs_page_test
SLAB=/sys/kernel/slab/$CACHE
DBG=/sys/kernel/debug/$MOD
# The series' per-cache debugfs files (CONFIG_DEBUG_FS and CONFIG_SLUB_DEBUG,
# caches without SLUB debug flags): park (0 never, 1 when the list_lock
# trylock fails, 2 always) and parked (the slabs parked now, one number).
PARKDIR=/sys/kernel/debug/slab/$CACHE
SYSFS_BIN=$SCRIPT_DIR/slub_park_sysfs
PARAMS_BIN=$SCRIPT_DIR/slub_park_params
TMP=
KO=
CANARY=
SEQ=0
PARK_OLD=
WERR=
DR_PARKED=
# The unpark delayed work runs 100 ms after the first park; allow slack.
QUIESCE_S=0.5
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

# canary: log a new marker and wait until dmesg shows it.
canary() {
	SEQ=$((SEQ + 1))
	CANARY="slub_park kselftest canary $$.$SEQ.$(date +%s)"
	echo "$CANARY" > /dev/kmsg
	loop_until 51 canary_seen || { diag "canary not visible in dmesg: $CANARY"; return 1; }
}

canary_seen() {
	dmesg | grep -qF "$CANARY"
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
# Tests: t_NAME of runs.sh, parking.sh, lifecycle.sh and params.sh
# (run_PLACEMENT: t_run PLACEMENT).  Each returns 0 (pass), 1 (fail) or 4
# (skip NEED REASON).  TESTS: the tests of smoke and stress mode, in order,
# each with the needs it declares ('-': none); 'slub_park.sh list' prints
# it, the plan counts it.  A test SKIPs only for one of its needs, the KTAP
# line naming it ("# SKIP needs NEED: REASON"): run_test skips it for the
# first need the kernel or machine lacks (lacks), and fails a skip for a
# need the line does not declare.  The needs:
#   loaded     the module loaded, as test load leaves it (lacking only
#              after an earlier failure)
#   run_local  run_local's results (likewise)
#   own_cache  the cache has a sysfs directory of its own (no merged alias)
#   two_nodes  2 online nodes with online CPUs and normal memory
#   parking    the series' files: $PARKDIR/{park,parked} (CONFIG_DEBUG_FS,
#              CONFIG_SLUB_DEBUG) and $SLAB/park_slab (CONFIG_SLUB_STATS)
#   stats      the SLUB_STATS counters (CONFIG_SLUB_STATS)
#   frees      the frees of a run reach SLUB during it; KASAN's quarantine
#              holds them (frees_deferred, known after the run)
TESTS='
bad_params_load   -
load              own_cache
run_cross         loaded two_nodes
run_local         loaded
run_balanced      loaded two_nodes
remote_free_pct   run_local
free_path_stats   stats run_local frees
debugfs_params    loaded
park_counters     loaded parking two_nodes frees
park_no_stranded  loaded parking two_nodes frees
park_no_sheaves   loaded parking two_nodes
park_footprint    loaded parking two_nodes frees
shrink            loaded frees
accounting        loaded frees
destroy_parked    loaded frees
rmmod_mid_run     -
taint             -
'

SKIP_NEED=
SKIP_REASON=
skip() {
	SKIP_NEED=$1
	shift
	SKIP_REASON=$*
	return "$ksft_skip"
}

# lacks NEED: the reason, and 0, when the kernel or machine lacks NEED now;
# 1 when it has it, or when only the test can tell
lacks() {
	case $1 in
	loaded)
		mod_loaded && [ -d "$SLAB" ] && return 1
		echo "the module is not loaded (an earlier test failed)" ;;
	two_nodes)
		[ "$NR_RUN_NODES" -ge 2 ] && return 1
		# shellcheck disable=SC2086 # the node ids are words
		echo "2 online nodes with online CPUs and normal memory, have $NR_RUN_NODES (${RUN_NODES_OK:-none}; online: $(commas $NODES))" ;;
	parking)
		[ -e "$PARKDIR/park" ] && [ -e "$PARKDIR/parked" ] &&
			[ -e "$SLAB/park_slab" ] && return 1
		echo "kernel without slab parking ($PARKDIR/park, parked or $SLAB/park_slab absent: no series, or no CONFIG_SLUB_DEBUG, CONFIG_DEBUG_FS or CONFIG_SLUB_STATS)" ;;
	stats)
		has_stats && return 1
		echo "no SLUB_STATS counters in $SLAB (CONFIG_SLUB_STATS=n)" ;;
	*)
		return 1 ;;
	esac
}

# run_test NAME NEEDS FUNC [ARGS]: one KTAP line; a splat after the canary
# fails it.
run_test() {
	RT_NAME=$1 RT_NEEDS=$2
	shift 2
	SKIP_NEED=
	SKIP_REASON=
	RT_RC=0
	if ! canary; then
		ktap_test_fail "$RT_NAME"
		return
	fi
	RT_CANARY=$CANARY
	for rt_n in $RT_NEEDS; do
		SKIP_REASON=$(lacks "$rt_n") || continue
		SKIP_NEED=$rt_n RT_RC=$ksft_skip
		break
	done
	if [ "$RT_RC" = 0 ]; then
		"$@"
		RT_RC=$?
	fi
	# Check the whole test window for splats (tests may set new canaries).
	CANARY=$RT_CANARY
	if splat_since_canary; then
		diag "$RT_NAME: kernel splat after the test started"
		RT_RC=1
	fi
	if [ "$RT_RC" = "$ksft_skip" ]; then
		# a skip names one of the test's needs (skip NEED REASON)
		case " $RT_NEEDS " in
		*" ${SKIP_NEED:-?} "*) ;;
		*) diag "$RT_NAME: skipped for '$SKIP_NEED', not a need of its TESTS line ($RT_NEEDS): $SKIP_REASON"
		   RT_RC=1 ;;
		esac
	fi
	case $RT_RC in
	0) ktap_test_pass "$RT_NAME" ;;
	"$ksft_skip") ktap_skip_reason "$RT_NAME" "needs $SKIP_NEED: $SKIP_REASON" ;;
	*) ktap_test_fail "$RT_NAME" ;;
	esac
}

# run_named NAME: run_test with NAME's needs from TESTS
run_named() {
	rn_needs=$(echo "$TESTS" | awk -v t="$1" '$1 == t { $1 = ""; print }')
	case $1 in
	run_*) run_test "$1" "$rn_needs" t_run "${1#run_}" ;;
	*) run_test "$1" "$rn_needs" "t_$1" ;;
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

main() {
	MODE=${1:-smoke}
	if [ "$MODE" = list ]; then
		echo "$TESTS" | awk NF
		exit 0
	fi
	load_ktap
	load_splat_re "$SCRIPT_DIR" || exit 1
	case "$MODE" in
	help|-h|--help)
		find_module > /dev/null 2>&1
		usage
		exit 0 ;;
	esac
	if [ ! -r "$FUZZ_CASES" ] || [ ! -x "$PARAMS_BIN" ]; then
		echo "Error: $FUZZ_CASES or $PARAMS_BIN is missing (build and install them with the test)" >&2
		exit 1
	fi
	case "$MODE" in
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
		run_test manual_load - t_manual_load "$@"
		run_test manual_run loaded t_manual_run
		run_test manual_rmmod loaded t_manual_rmmod
		run_named taint
		finish
	fi

	if [ "$MODE" = fuzz ]; then
		ktap_set_plan 4
		diag "module $KO; online nodes: $NODES; mode $MODE; kernel $(uname -r)"
		diag "nodes: $NODE_NOTE"
		for t in bad_params_load load debugfs_params taint; do
			run_named "$t"
		done
		finish
	fi

	ktap_set_plan "$(echo "$TESTS" | grep -c .)"
	diag "module $KO; online nodes: $NODES; mode $MODE; kernel $(uname -r)"
	diag "nodes: $NODE_NOTE"
	for t in $(echo "$TESTS" | awk '{ print $1 }'); do
		run_named "$t"
	done
	finish
}

main "$@"
