#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest-window.sh: guest-side check of 'slabstat window' on a real kernel
# (busybox sh compatible; KTAP output).
#
# With the slub_stress module (loaded here from $SLUB_STRESS_KO if it is
# not loaded yet) it starts a cross-node run (allocators on node 0, freers
# on node 1), samples 'slabstat window -t 3 nfs_page_test' inside the run
# and checks that the per-node split puts the free slowpath (remote frees
# go to __slab_free()) on node 1.
#
# Environment: SLABSTAT (default /slabpark/bin/slabstat, else PATH),
# SLUB_STRESS_KO (default /slabpark/mm/slub_stress.ko), CACHE
# (default nfs_page_test), WINDOW (seconds, default 3).
# Exit status: 0 all passed, 1 a check failed, 4 skipped (kselftest SKIP).

S=/slabpark
SLABSTAT=${SLABSTAT:-$S/bin/slabstat}
KO=${SLUB_STRESS_KO:-$S/mm/slub_stress.ko}
CACHE=${CACHE:-nfs_page_test}
WINDOW=${WINDOW:-3}
D=/sys/kernel/debug/slub_stress
NTESTS=8
n=0
failed=0
loaded=0

[ -x "$SLABSTAT" ] || SLABSTAT=$(command -v slabstat || echo "$SLABSTAT")

ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {
	n=$((n + 1))
	failed=1
	echo "not ok $n - $1"
	shift
	for l in "$@"; do
		echo "# $l"
	done
}

# check DESC CONDITION-RESULT(0/1) EXPECTED GOT
check() {
	if [ "$2" = 0 ]; then
		ok "$1"
	else
		not_ok "$1" "expected: $3" "got:      $4"
	fi
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
}

cleanup() {
	if [ "$loaded" = 1 ]; then
		[ -w "$D/stop" ] && echo 1 >"$D/stop" 2>/dev/null
		[ -r "$D/wait" ] && cat "$D/wait" >/dev/null 2>&1
		rmmod slub_stress 2>/dev/null
	fi
}
trap cleanup EXIT

echo "TAP version 13"
[ "$(id -u)" = 0 ] || skip_all "needs root (SLUB statistics are root-only)"
[ -d /sys/devices/system/node/node1 ] || skip_all "needs 2 NUMA nodes (cross placement)"
[ -x "$SLABSTAT" ] || skip_all "no slabstat binary ($SLABSTAT)"
if [ ! -d "$D" ]; then
	[ -d /sys/kernel/debug/slub_stress ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
fi
if [ ! -d "$D" ]; then
	[ -f "$KO" ] || skip_all "slub_stress not loaded and no $KO"
	# the module is there: failing to load it is a failure, not a SKIP
	if ! insmod "$KO" cache_name="$CACHE"; then
		echo "1..1"
		echo "not ok 1 - insmod $KO cache_name=$CACHE"
		exit 1
	fi
	loaded=1
fi
[ -f "/sys/kernel/slab/$CACHE/free_slowpath" ] ||
	skip_all "no /sys/kernel/slab/$CACHE/free_slowpath (CONFIG_SLUB_STATS off or cache '$CACHE' missing)"
echo "1..$NTESTS"

# 1: start a cross run that outlasts the window
[ "$(cat "$D/status")" = idle ] || cat "$D/wait" >/dev/null
rc=0
if ! { echo cross >"$D/placement" && echo $(((WINDOW + 4) * 1000)) >"$D/duration_ms" &&
	echo 1 >"$D/run"; } 2>/tmp/gw.err; then
	rc=1
fi
check "cross run started" "$rc" "placement cross, run started" "$(cat /tmp/gw.err)"
sleep 1

# 2: the window inside the run
rc=0
"$SLABSTAT" window -t "$WINDOW" --csv "$CACHE" >/tmp/gw.csv 2>/tmp/gw.err || rc=$?
check "slabstat window -t $WINDOW $CACHE exits 0" "$rc" "exit 0" "exit $rc: $(cat /tmp/gw.err)"
grep -E ',(free_slowpath|free_fastpath|free_add_partial|park_slab|cmpxchg_double_fail|idle_pct),' /tmp/gw.csv |
	sed 's/^/# /'
[ -d "$S/out" ] && cp /tmp/gw.csv "$S/out/guest-window.csv"

# cache,kind,metric,before,after,delta,change_pct,node0,node1
row=$(grep "^$CACHE,counter,free_slowpath," /tmp/gw.csv)
delta=$(echo "$row" | cut -d, -f6)
node0=$(echo "$row" | cut -d, -f8)
node1=$(echo "$row" | cut -d, -f9)

# 3: the window saw remote frees at all
[ "${delta:-0}" -gt 0 ] 2>/dev/null
check "free_slowpath delta is non-zero" "$?" "> 0" "'$delta'"

# 4: the check this script exists for
[ "${node1:-0}" -gt 0 ] 2>/dev/null
check "per-node split: node-1 free_slowpath is non-zero (freers on node 1)" "$?" "> 0" "'$node1'"

# 5: and the split adds up to the delta
[ -n "$node0" ] && [ -n "$node1" ] && [ $((node0 + node1)) -eq "${delta:-x}" ] 2>/dev/null
check "per-node split adds up to the delta" "$?" "$delta" "$node0 + $node1"

# 6: nearly all of it on node 1: allocators on node 0 do not free
[ "${delta:-0}" -gt 0 ] 2>/dev/null && [ $((node1 * 100 / delta)) -ge 90 ]
check "per-node split: >= 90% of free_slowpath on node 1" "$?" ">= 90%" "node0 $node0, node1 $node1"

# 7: per-node %idle over the same window
# ,idle,idle_pct,,,<all>,,<node0>,<node1>
idle=$(grep "^,idle,idle_pct," /tmp/gw.csv)
i0=$(echo "$idle" | cut -d, -f8)
i1=$(echo "$idle" | cut -d, -f9)
[ -n "$i0" ] && [ -n "$i1" ]
check "per-node %idle for node 0 and node 1" "$?" "two values" "'$idle'"

# 8: the run finished cleanly
state=$(cat "$D/wait")
[ "$state" = "state: done" ]
check "the cross run ended in state done" "$?" "state: done" "$state"

[ "$failed" = 0 ]
