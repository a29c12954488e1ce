#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park.sh - drive the slub_stress module (slub_stress/slub_stress.ko
# next to this script) and check SLUB under cross-node frees, and the slab
# parking series when the kernel has it.  The tests are in runs.sh,
# parking.sh, lifecycle.sh and params.sh; the table TESTS, below, lists
# them.  Output is KTAP; exit 0 when all tests pass, 1 when one failed, 4
# when all were skipped.  POSIX sh; runs under busybox ash.  README: the
# environment it handles (nodes, signing, KASAN).

# The t_* tests and their helpers are called through run_named.
# shellcheck disable=SC2317

set -u

ksft_skip=4
MOD=slub_stress
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
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
DBG=/sys/kernel/debug/$MOD
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
# and E (13) where unsigned on a kernel with CONFIG_MODULE_SIG (sig_facts).
TAINT_EXPECTED=$(( (1 << 12) | (1 << 18) ))
TAINT_LETTERS=PFSRMBUDAWCIOELKXTNJ

# set_cache NAME: the cache of the runs; SLAB, its sysfs directory, PARKDIR
# the series' debugfs one (CONFIG_DEBUG_FS and CONFIG_SLUB_DEBUG): park (0
# never, 1 when the list_lock trylock fails, 2 always), parked (a number)
set_cache() {
	CACHE=$1
	SLAB=/sys/kernel/slab/$CACHE
	PARKDIR=/sys/kernel/debug/slab/$CACHE
}
set_cache nfs_page_test

# KTAP: kselftest/ktap_helpers.sh of a kselftest install, or of KSRC's tree
load_ktap() {
	for f in "$SCRIPT_DIR/../kselftest/ktap_helpers.sh" \
		 ${KSRC:+"$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"}; do
		if [ -r "$f" ]; then
			# shellcheck source=/dev/null
			. "$f"
			return 0
		fi
	done
	skip_all "no kselftest/ktap_helpers.sh: run from a kselftest install, or set KSRC to a kernel tree"
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

# Exit 4 if everything was skipped, else 1 on any failure (a test neither
# passed nor skipped), else 0: ktap_finished's count, made here, as older
# trees' ktap_helpers.sh lack it.
finish() {
	ktap_print_totals
	[ "$KTAP_CNT_SKIP" -eq "$KSFT_NUM_TESTS" ] && exit "$ksft_skip"
	[ $((KTAP_CNT_PASS + KTAP_CNT_SKIP)) -eq "$KSFT_NUM_TESTS" ] && exit 0
	exit 1
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

# The dmesg canary (tools/testing/selftests/livepatch/functions.sh):
# canary logs a new marker and waits until dmesg shows it.
canary() {
	SEQ=$((SEQ + 1))
	CANARY="slub_park kselftest canary $$.$SEQ.$(date +%s)"
	echo "$CANARY" > /dev/kmsg
	loop_until 51 canary_seen || { diag "canary not visible in dmesg: $CANARY"; return 1; }
}

canary_seen() {
	dmesg | grep -qF "$CANARY"
}

# splat_since_canary: 0, and the lines, when a kernel message after the
# last canary (timestamps stripped) matches SPLAT_RE
splat_since_canary() {
	sp_lines=$(dmesg | awk -v c="$CANARY" 'p { print } index($0, c) { p = 1 }' |
		sed -e 's/^\[[ 0-9.]*\] //' -e 's/^\[ *[CT][0-9]*\] //' | grep -E "$SPLAT_RE")
	[ -n "$sp_lines" ] || return 1
	echo "$sp_lines" | sed 's/^/#   dmesg: /'
}

# The nodes of the runs: two online nodes with online CPUs (the module's
# threads run there) and normal memory (the slabs come from there); the
# module refuses a memory-only node or one whose CPUs are all offline.
NODE_SYS=/sys/devices/system/node

# commas WORDS...: the words joined by commas
commas() {
	echo "$*" | tr ' ' ','
}

# node_cpus N: how many of node N's CPUs are online (without CONFIG_NUMA
# there is no nodeN/: all online CPUs are node 0's)
node_cpus() {
	nc_on=$(cat /sys/devices/system/cpu/online)
	nc_list=$(cat "$NODE_SYS/node$1/cpulist" 2>/dev/null || echo "$nc_on")
	{ cpulist_expand "$nc_on" | sed 's/^/on /'; cpulist_expand "$nc_list"; } |
		awk '$1 == "on" { on[$2] = 1; next } ($1 in on) { n++ } END { print n + 0 }'
}

# normal_memory_nodes: the nodes with normal memory, one a line (node 0
# without CONFIG_NUMA)
normal_memory_nodes() {
	cpulist_expand "$(cat "$NODE_SYS/has_normal_memory" 2>/dev/null || echo 0)"
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
		if [ "$cn_c" -eq 0 ]; then
			cn_why="$cn_why; node $cn_n: no online CPU"
		else
			case "$cn_mem" in
			*" $cn_n "*) cn_ok="$cn_ok $cn_n" ;;
			*) cn_why="$cn_why; node $cn_n: no normal memory" ;;
			esac
		fi
	done
	NODE_A=$(echo "$cn_ok" | awk '{ print $1 }')
	# NODE_A's distance row has an entry per online node, in order
	cn_far=$(awk -v a="$NODE_A" -v ok=" $cn_ok " -v nodes="$NODES" \
		-v row="$(cat "$NODE_SYS/node$NODE_A/distance" 2>/dev/null)" 'BEGIN {
		n = split(nodes, id, " "); split(row, d, " "); best = -1
		for (i = 1; i <= n; i++)
			if (id[i] != a && index(ok, " " id[i] " ") && d[i] + 0 > best)
				{ best = d[i] + 0; b = id[i] }
		print b, best }')
	NODE_B=${cn_far% *} cn_best=${cn_far#* }
	NR_RUN_NODES=$(echo "$cn_ok" | wc -w)
	[ "$NR_RUN_NODES" -le 2 ] || NR_RUN_NODES=2
	# shellcheck disable=SC2086 # the node ids are words
	RUN_NODES_OK=$(commas $cn_ok) cn_on=$(commas $NODES)
	cn_all="online: $cn_on; with online CPUs and normal memory: $RUN_NODES_OK$cn_why"
	if [ -z "$NODE_A" ]; then
		NODE_A=0 NODE_B=0
		NODE_ARGS=
		NODE_NOTE="no online node has online CPUs and normal memory (online: $cn_on$cn_why)"
	elif [ -z "$NODE_B" ]; then
		NODE_B=$NODE_A
		NODE_ARGS="placement=local alloc_node=$NODE_A"
		NODE_NOTE="alloc_node=$NODE_A, no second node for cross-node runs ($cn_all)"
	else
		NODE_ARGS="placement=cross alloc_node=$NODE_A free_node=$NODE_B"
		NODE_NOTE="alloc_node=$NODE_A free_node=$NODE_B, distance $cn_best ($cn_all)"
	fi
}

# kasan_on: generic KASAN, whose quarantine holds the frees of a run; from
# /proc/kallsyms (kasan_quarantine_put, which LTO may inline, or the
# exported __asan_load8), else from the boot line, if still in the log
kasan_on() {
	grep -qE ' (kasan_quarantine_put|__asan_load8)$' /proc/kallsyms 2>/dev/null && return 0
	dmesg | grep -q 'KernelAddressSanitizer initialized (generic)'
}

# sig_facts: MODSIG (1 with CONFIG_MODULE_SIG: the kernel has sig_enforce
# exactly then), SIG_ENFORCE (the refusals of unsigned modules in force:
# sig_enforce=Y, lockdown at integrity or confidentiality), KO_SIGNED (the
# .ko ends in the signature marker)
SIG_ENFORCE_PARAM=/sys/module/module/parameters/sig_enforce
LOCKDOWN=/sys/kernel/security/lockdown
sig_facts() {
	MODSIG=0
	SIG_ENFORCE=
	if [ -r "$SIG_ENFORCE_PARAM" ]; then
		MODSIG=1
		[ "$(cat "$SIG_ENFORCE_PARAM")" = Y ] && SIG_ENFORCE="sig_enforce=Y"
		TAINT_EXPECTED=$((TAINT_EXPECTED | (1 << 13)))
	fi
	if [ ! -e "$LOCKDOWN" ] && [ -d /sys/kernel/security ] &&
	   ! grep -q ' /sys/kernel/security securityfs' /proc/mounts; then
		mount -t securityfs none /sys/kernel/security 2>/dev/null
	fi
	sf_l=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$LOCKDOWN" 2>/dev/null)
	case "$sf_l" in
	integrity|confidentiality)
		SIG_ENFORCE="${SIG_ENFORCE:+$SIG_ENFORCE, }lockdown=$sf_l" ;;
	esac
	KO_SIGNED=0
	[ "$(tail -c 28 "$KO" 2>/dev/null)" = "~Module signature appended~" ] && KO_SIGNED=1
	return 0
}

# sig_probe: where the kernel refuses unsigned modules, one load (and
# unload) of the module; a refusal of its signature SKIPs everything,
# saying why (any other load failure is left to the tests)
sig_probe() {
	[ -n "$SIG_ENFORCE" ] || return 0
	# shellcheck disable=SC2086 # NODE_ARGS is a list of words
	if sp_out=$(insmod "$KO" $NODE_ARGS 2>&1); then
		rmmod "$MOD" 2>/dev/null ||
			skip_all "the probe load of $MOD.ko could not be removed: $(rmmod "$MOD" 2>&1)"
		return 0
	fi
	case "$sp_out" in
	*"Key was rejected"*|*"Required key not available"*|*"Operation not permitted"*) ;;
	*) return 0 ;;
	esac
	if [ "$KO_SIGNED" = 1 ]; then
		skip_all "the kernel refuses $MOD.ko ($SIG_ENFORCE; the module is signed, but not with a key the kernel trusts): insmod: $sp_out"
	fi
	skip_all "the kernel refuses unsigned modules ($SIG_ENFORCE) and $MOD.ko is unsigned: insmod: $sp_out; sign it with the kernel's key (scripts/sign-file) to run the tests"
}

# find_module: KO, where lib.mk (TEST_GEN_MODS_DIR) installs the module;
# else MODULE_MISSING says what to do, and for an install what it has
find_module() {
	KO=$SCRIPT_DIR/$MOD/$MOD.ko
	[ -f "$KO" ] && return 0
	if [ -f "$SCRIPT_DIR/Makefile" ]; then
		MODULE_MISSING="$KO not found: build it with make -C $SCRIPT_DIR O=<kernel build> (in a kernel tree's tools/testing/selftests) or KSRC=<kernel tree> KDIR=<kernel build>"
		return 1
	fi
	fm_has=$(cd "$SCRIPT_DIR" && printf '%s ' *)
	MODULE_MISSING="$KO not found; this install has $fm_has(no $MOD/: the collection was built without a kernel build, as 'make' warned: no Module.symvers in KDIR); build and install it again with O=<kernel build> in the kernel tree (make -C tools/testing/selftests TARGETS=slub_park O=...) or with install-kselftest.sh KSRC DEST KDIR"
	return 1
}

# Parameter descriptions "name:desc (type)": modinfo, or (busybox modinfo
# wants modules.dep even for a path) the .modinfo strings of the .ko itself.
param_lines() {
	pl=$(modinfo -F parm "$KO" 2>/dev/null)
	[ -n "$pl" ] || pl=$(tr '\000' '\n' < "$KO" | sed -n 's/^parm=//p')
	echo "$pl"
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
}

unload() {
	ul_out=$(rmmod "$MOD" 2>&1) && return 0
	diag "rmmod $MOD: $ul_out"
	return 1
}

cleanup() {
	restore_park 2>/dev/null
	if mod_loaded; then
		{ echo 1 > "$DBG/stop"; } 2>/dev/null
		rmmod "$MOD" 2>/dev/null
	fi
	[ -z "$TMP" ] || rm -rf "$TMP"
	TMP=
}

# The tests t_NAME (run_PLACEMENT: t_run PLACEMENT) return 0 (pass), 1
# (fail) or 4 (skip NEED REASON).  TESTS: the tests of smoke and stress
# mode, in order, each with the needs it declares ('-': none); 'slub_park.sh
# list' prints it, the plan counts it.  run_named skips a test for the first
# need the kernel or machine lacks (lacks), naming it ("# SKIP needs NEED:
# REASON"), and fails a skip for a need its line does not declare.  Needs:
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
# the other modes' tests, from TESTS and these (key=val mode: one run with
# the load-time parameters given)
FUZZ_RUN='bad_params_load load debugfs_params taint'
MANUAL_TESTS='
manual_load       -
manual_run        loaded
manual_rmmod      loaded
'
MANUAL_RUN='manual_load manual_run manual_rmmod taint'

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
		[ -e "$SLAB/free_slowpath" ] && return 1
		echo "no SLUB_STATS counters in $SLAB (CONFIG_SLUB_STATS=n)" ;;
	*)
		return 1 ;;
	esac
}

# run_named NAME: one KTAP line for t_NAME, skipped as its needs in TESTS
# (or MANUAL_TESTS) say; a splat after the canary fails it
run_named() {
	RT_NEEDS=$(echo "$TESTS$MANUAL_TESTS" | awk -v t="$1" '$1 == t { $1 = ""; print }')
	SKIP_NEED=
	SKIP_REASON=
	RT_RC=0
	canary || { ktap_test_fail "$1"; return; }
	RT_CANARY=$CANARY
	for rt_n in $RT_NEEDS; do
		SKIP_REASON=$(lacks "$rt_n") || continue
		SKIP_NEED=$rt_n RT_RC=$ksft_skip
		break
	done
	if [ "$RT_RC" = 0 ]; then
		case $1 in
		run_*) t_run "${1#run_}" ;;
		*) "t_$1" ;;
		esac
		RT_RC=$?
	fi
	# the whole test window (tests may set new canaries)
	CANARY=$RT_CANARY
	if splat_since_canary; then
		diag "$1: kernel splat after the test started"
		RT_RC=1
	fi
	case "$RT_RC: $RT_NEEDS " in
	"$ksft_skip: "*" ${SKIP_NEED:-?} "*)
		ktap_skip_reason "$1" "needs $SKIP_NEED: $SKIP_REASON" ;;
	"$ksft_skip: "*)
		diag "$1: skipped for '$SKIP_NEED', not a need of its TESTS line ($RT_NEEDS): $SKIP_REASON"
		ktap_test_fail "$1" ;;
	"0: "*) ktap_test_pass "$1" ;;
	*) ktap_test_fail "$1" ;;
	esac
}

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
	DUR_MS=1000 PARK_DUR_MS=1000 MID_S=0.5
	RUN=$(echo "$TESTS" | awk '{ print $1 }')
	case "$MODE" in
	help|-h|--help)
		find_module > /dev/null 2>&1 || KO=
		usage
		exit 0 ;;
	smoke) ;;
	stress) DUR_MS=30000 PARK_DUR_MS=10000 MID_S=5 ;;
	fuzz) FUZZ_ALL=1 RUN=$FUZZ_RUN ;;
	*=*) MODE=manual RUN=$MANUAL_RUN MANUAL_PARAMS=$* ;;
	*) usage >&2; exit 1 ;;
	esac
	if [ ! -r "$FUZZ_CASES" ] || [ ! -x "$PARAMS_BIN" ]; then
		echo "Error: $FUZZ_CASES or $PARAMS_BIN is missing (build and install them with the test)" >&2
		exit 1
	fi

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
		valid=" $(param_lines | sed -n 's/^\([A-Za-z0-9_]*\):.*/\1/p' | tr '\n' ' ')"
		for kv in "$@"; do
			case "$kv" in
			*=*) ;;
			*) diag "not key=val: $kv"; usage >&2; exit 1 ;;
			esac
			case "$valid " in
			"  ") diag "modinfo lists no parameters; not checking ${kv%%=*}" ;;
			*" ${kv%%=*} "*) ;;
			*) echo "Error: unknown parameter '${kv%%=*}'; valid:$valid" >&2
			   exit 1 ;;
			esac
			case "$kv" in cache_name=*) set_cache "${kv#*=}" ;; esac
		done
	fi

	ktap_print_header
	# shellcheck disable=SC2086 # RUN is a list of words
	ktap_set_plan "$(echo $RUN | wc -w)"
	diag "module $KO; online nodes: $NODES; mode $MODE${MANUAL_PARAMS:+ $MANUAL_PARAMS};" \
		"kernel $(uname -r)"
	diag "nodes: $NODE_NOTE"
	for t in $RUN; do
		run_named "$t"
	done
	finish
}

MANUAL_PARAMS=
main "$@"
