#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slub_park.sh [smoke | stress | fuzz | list]: the slub_park kselftest
# (README), KTAP; exit 0 when all passed, 1 when one failed, 4 when all
# skipped.  The tests, by topic: runs.sh parking.sh lifecycle.sh params.sh.
# shellcheck disable=SC2317,SC2034 # run_named calls t_*; the tests' files use these

set -u

ksft_skip=4
MOD=slub_stress
CACHE=nfs_page_test
SLAB=/sys/kernel/slab/$CACHE
PARKDIR=/sys/kernel/debug/slab/$CACHE
DBG=/sys/kernel/debug/$MOD
SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
KO=$SCRIPT_DIR/$MOD/$MOD.ko
PARAMS_BIN=$SCRIPT_DIR/slub_park_params
TMP=
PARK_OLD=
SEQ=0
# taint O (12) and N (18) of a test module, E (13) added if unsigned
TAINT_EXPECTED=$(( (1 << 12) | (1 << 18) ))
for f in slub_park_lib runs parking lifecycle params; do
	# shellcheck source=/dev/null
	. "$SCRIPT_DIR/$f.sh"
done

diag() { echo "# $*"; }
# fail MSG: the test fails (it goes on), saying MSG
fail() { diag "$*"; ok=1; }
# skip NEED REASON: return value of a test that skips for NEED
skip() { SKIP_NEED=$1; shift; SKIP_REASON=$*; return "$ksft_skip"; }
skip_all() { printf 'TAP version 13\n1..0 # SKIP %s\n' "$*"; exit "$ksft_skip"; }
# res FILE KEY: the value of "KEY: value" in a results file
res() { awk -v k="$2" 'index($0, k ": ") == 1 { print substr($0, length(k) + 3); exit }' "$1"; }
# ge_pct A B PCT: A >= B * PCT / 100
ge_pct() { [ $(($1 * 100)) -ge $(($2 * $3)) ]; }
canary_seen() { dmesg | grep -qF "$CANARY"; }

load_ktap() {
	for f in "$SCRIPT_DIR/../kselftest/ktap_helpers.sh" \
		 ${KSRC:+"$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh"}; do
		# shellcheck source=/dev/null
		[ ! -r "$f" ] || { . "$f"; return; }
	done
	skip_all "no kselftest/ktap_helpers.sh: run from a kselftest install, or set KSRC"
}

# The dmesg canary (as in livepatch/functions.sh): a test's kernel window.
canary() {
	SEQ=$((SEQ + 1))
	CANARY="slub_park kselftest canary $$.$SEQ.$(date +%s)"
	echo "$CANARY" > /dev/kmsg
	loop_until 51 canary_seen || { diag "canary not in dmesg: $CANARY"; return 1; }
}

# splat_check NAME: NAME fails, saying them, when kernel lines after the
# canary (timestamps stripped) match SPLAT_RE, or when dmesg lost the canary
splat_check() {
	sp_log=$(dmesg)
	case $sp_log in
	*"$CANARY"*) ;;
	*) fail "$1: cannot judge kernel splats: dmesg has no '$CANARY'"; return ;;
	esac
	sp_lines=$(echo "$sp_log" | awk -v c="$CANARY" 'p { print } index($0, c) { p = 1 }' |
		sed -e 's/^\[[ 0-9.]*\] //' -e 's/^\[ *[CT][0-9]*\] //' | grep -E "$SPLAT_RE")
	[ -z "$sp_lines" ] && return
	echo "$sp_lines" | sed 's/^/#   dmesg: /'
	fail "$1: kernel splat after the test started"
}

# kasan_on: generic KASAN, whose quarantine holds the frees of a run
# (kasan_quarantine_put may be inlined by LTO; __asan_load8 is exported)
kasan_on() {
	grep -qE ' (kasan_quarantine_put|__asan_load8)$' /proc/kallsyms 2>/dev/null ||
		dmesg | grep -q 'KernelAddressSanitizer initialized (generic)'
}

# sig_probe: where the kernel refuses unsigned modules (sig_enforce Y, or
# lockdown at integrity or confidentiality), one load; a refusal of the
# module skips everything.  sig_enforce exists with CONFIG_MODULE_SIG.
SIG_ENFORCE=/sys/module/module/parameters/sig_enforce
LOCKDOWN=/sys/kernel/security/lockdown
sig_probe() {
	sp_why=
	[ ! -r "$SIG_ENFORCE" ] || TAINT_EXPECTED=$((TAINT_EXPECTED | (1 << 13)))
	[ "$(cat "$SIG_ENFORCE" 2>/dev/null)" != Y ] || sp_why="sig_enforce=Y"
	[ -e "$LOCKDOWN" ] || mount -t securityfs none "${LOCKDOWN%/*}" 2>/dev/null
	case "$(cat "$LOCKDOWN" 2>/dev/null)" in
	*"[integrity]"*|*"[confidentiality]"*) sp_why="${sp_why:+$sp_why, }lockdown" ;;
	esac
	[ -n "$sp_why" ] || return 0
	# shellcheck disable=SC2086 # NODE_ARGS is a list of words
	if sp_out=$(insmod "$KO" $NODE_ARGS 2>&1); then
		rmmod "$MOD" || skip_all "the probe load of $MOD could not be removed"
		return
	fi
	case "$sp_out" in
	*"Key was rejected"*|*"Required key not available"*|*"Operation not permitted"*)
		skip_all "the kernel refuses $MOD.ko ($sp_why; sign it with the kernel's key): $sp_out" ;;
	esac
}

# load [PARAM=VALUE...]: the module on the chosen nodes (NODE_ARGS, which
# the params given override)
load() {
	# shellcheck disable=SC2086 # NODE_ARGS is a list of words
	ld_out=$(insmod "$KO" $NODE_ARGS "$@" 2>&1) ||
		{ diag "insmod $KO $NODE_ARGS $*: $ld_out"; return 1; }
	{ [ -d "$SLAB" ] && [ -d "$DBG" ]; } || { diag "loaded, but $SLAB or $DBG is missing"; return 1; }
}

unload() {
	ul_out=$(rmmod "$MOD" 2>&1) || { diag "rmmod $MOD: $ul_out"; return 1; }
}

cleanup() {
	restore_park 2>/dev/null
	! mod_loaded || { { echo 1 > "$DBG/stop"; } 2>/dev/null; rmmod "$MOD" 2>/dev/null; }
	[ -z "$TMP" ] || rm -rf "$TMP"
	TMP=
}

# The tests of smoke and stress mode, in order, each with its needs
# ('slub_park.sh list'); a test skips only for a need of its line:
#   loaded     the module loaded, as test load leaves it
#   run_local  run_local's results
#   own_cache  the cache has a sysfs directory of its own (not merged)
#   two_nodes  2 online nodes with online CPUs and normal memory
#   parking    the series' $PARKDIR/{park,parked} and $SLAB/park_slab
#   stats      the SLUB_STATS counters
#   frees      the frees of a run reach SLUB during it (not under KASAN,
#              whose quarantine holds them: frees_deferred)
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
FUZZ_RUN='bad_params_load load debugfs_params taint'

# lacks NEED: 0, saying why, when the kernel or machine lacks NEED now
lacks() {
	case $1 in
	loaded) ! mod_loaded || [ ! -d "$SLAB" ] &&
		echo "the module is not loaded (an earlier test failed)" ;;
	two_nodes) [ "$NODE_B" = "$NODE_A" ] &&
		echo "2 online nodes with online CPUs and normal memory ($NODE_NOTE)" ;;
	parking) [ ! -e "$PARKDIR/park" ] || [ ! -e "$PARKDIR/parked" ] || [ ! -e "$SLAB/park_slab" ] &&
		echo "kernel without slab parking ($PARKDIR/park, parked or $SLAB/park_slab absent: no series, or no CONFIG_SLUB_DEBUG, CONFIG_DEBUG_FS or CONFIG_SLUB_STATS)" ;;
	stats) [ ! -e "$SLAB/free_slowpath" ] && echo "no SLUB_STATS counters in $SLAB (CONFIG_SLUB_STATS=n)" ;;
	*) return 1 ;;
	esac
}

# run_named NAME: one KTAP line for t_NAME; a failure (fail) or a splat
# after the canary fails it, a skip for a need not on its line too, and
# a return of 4 without a skip
run_named() {
	rn_needs=" $(echo "$TESTS" | awk -v t="$1" '$1 == t { $1 = ""; print }') "
	SKIP_NEED=
	ok=0
	canary || { ktap_test_fail "$1"; return; }
	rn_canary=$CANARY
	for rn_n in $rn_needs; do
		SKIP_REASON=$(lacks "$rn_n") && { SKIP_NEED=$rn_n; break; }
	done
	if [ -n "$SKIP_NEED" ]; then
		rn_rc=$ksft_skip
	else
		case $1 in
		run_*) t_run "${1#run_}" ;;
		*) "t_$1" ;;
		esac
		rn_rc=$?
	fi
	CANARY=$rn_canary
	splat_check "$1"
	[ "$rn_rc" != "$ksft_skip" ] || [ -n "$SKIP_NEED" ] ||
		fail "$1: returned $ksft_skip (KSFT_SKIP) without a skip"
	[ "$ok" = 0 ] || rn_rc=1
	case "$rn_rc:$rn_needs" in
	"$ksft_skip:"*" $SKIP_NEED "*)
		echo "ok $KTAP_TESTNO $1 # SKIP needs $SKIP_NEED: $SKIP_REASON"
		KTAP_TESTNO=$((KTAP_TESTNO + 1))
		KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1)) ;;
	"$ksft_skip:"*)
		diag "$1: skipped for '$SKIP_NEED', not a need of its line ($rn_needs): $SKIP_REASON"
		ktap_test_fail "$1" ;;
	0:*) ktap_test_pass "$1" ;;
	*) ktap_test_fail "$1" ;;
	esac
}

usage() {
	echo "Usage: $0 [smoke (default; CI) | stress (minutes) | fuzz (the parameter tests," \
		"every case of param_fuzz.txt) | list (the tests) | help]"
}

main() {
	MODE=${1:-smoke}
	DUR_MS=1000
	PARK_DUR_MS=1000
	MID_S=0.5
	RUN=$(echo "$TESTS" | awk '{ print $1 }')
	case "$MODE" in
	list) echo "$TESTS" | awk NF; exit 0 ;;
	help|-h|--help) usage; exit 0 ;;
	smoke) ;;
	stress) DUR_MS=30000 PARK_DUR_MS=10000 MID_S=5 ;;
	fuzz) FUZZ_ALL=1 RUN=$FUZZ_RUN ;;
	*) usage >&2; exit 1 ;;
	esac
	load_ktap
	load_splat_re "$SCRIPT_DIR" || exit 1
	[ "$(id -u)" -eq 0 ] || skip_all "must be run as root"
	{ [ -r /dev/kmsg ] && canary > /dev/null 2>&1; } ||
		skip_all "cannot judge kernel splats: /dev/kmsg or dmesg cannot be read"
	[ -d /sys/kernel/slab ] || skip_all "no /sys/kernel/slab (CONFIG_SYSFS/SLUB)"
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null ||
		skip_all "debugfs not mounted and cannot be mounted (CONFIG_DEBUG_FS)"
	[ -f "$KO" ] ||
		skip_all "$KO not found: the collection was built without a kernel build (no Module.symvers in KDIR: README)"
	vm=$(tr '\000' '\n' < "$KO" | sed -n 's/^vermagic=\([^ ]*\).*/\1/p')
	[ "$vm" = "$(uname -r)" ] || skip_all "$KO is built for kernel $vm, this is $(uname -r)"
	! mod_loaded || rmmod "$MOD" || skip_all "$MOD is loaded and cannot be removed"
	choose_nodes
	TAINT_BEFORE=$(cat /proc/sys/kernel/tainted)
	sig_probe
	KASAN=
	PARK_SHRINK_MS=0
	! kasan_on || { KASAN=1; BURST_TRIES=3; PARK_SHRINK_MS=50; }
	TMP=$(mktemp -d /tmp/slub_park.XXXXXX) || skip_all "mktemp failed"
	trap cleanup EXIT
	trap 'cleanup; exit 1' INT TERM HUP

	ktap_print_header
	# shellcheck disable=SC2086 # RUN is a list of words
	ktap_set_plan "$(echo $RUN | wc -w)"
	diag "module $KO; online nodes: $NODES; mode $MODE; kernel $(uname -r)"
	diag "nodes: $NODE_NOTE"
	for t in $RUN; do run_named "$t"; done
	ktap_print_totals
	[ "$KTAP_CNT_SKIP" -eq "$KSFT_NUM_TESTS" ] && exit "$ksft_skip"
	[ $((KTAP_CNT_PASS + KTAP_CNT_SKIP)) -eq "$KSFT_NUM_TESTS" ] && exit 0
	exit 1
}

main "$@"
