#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of slabstat, tools/report/lockstat-report.sh, tools/report/perf-lock.sh
# and the report scripts on fixture trees (no root, no kernel needed; the
# permission check runs as "nobody" when setpriv is there).
# KTAP output; exit 1 if any check fails.
#
#   tools/slabstat/tests/run.sh            (make -C tools/slabstat check)
#   SLABSTAT=/path/to/slabstat tests/run.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOLS=$(cd "$HERE/../.." && pwd)
SLABSTAT=${SLABSTAT:-$HERE/../slabstat}
FLATTEN=$HERE/flatten.awk
# shellcheck source-path=SCRIPTDIR source=fixtures.sh
. "$HERE/fixtures.sh"

[ -x "$SLABSTAT" ] || { echo "Bail out! $SLABSTAT not built (make -C tools/slabstat)"; exit 1; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

NTEST=0
NFAIL=0
LINES=()
OUT=
ERR=
RC=0

# Results are collected and printed at the end so the plan comes first.
pass() {
	NTEST=$((NTEST + 1))
	LINES+=("ok $NTEST - $1")
}

fail() {
	local desc=$1 line
	shift
	NTEST=$((NTEST + 1))
	NFAIL=$((NFAIL + 1))
	LINES+=("not ok $NTEST - $desc")
	for line in "$@"; do
		while IFS= read -r l; do
			LINES+=("# $l")
		done <<<"$line"
	done
}

skip() {
	NTEST=$((NTEST + 1))
	LINES+=("ok $NTEST - $1 # SKIP $2")
}

# check_eq DESC EXPECTED GOT
check_eq() {
	if [ "$2" == "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: $2" "got:      $3"
	fi
}

# check_has DESC NEEDLE HAYSTACK: HAYSTACK contains the line NEEDLE
check_has() {
	if grep -qxF -- "$2" <<<"$3"; then
		pass "$1"
	else
		fail "$1" "expected a line: $2" "got:" "$3"
	fi
}

# check_lacks DESC REGEX HAYSTACK
check_lacks() {
	local hit
	if hit=$(grep -E -- "$2" <<<"$3"); then
		fail "$1" "expected no match of /$2/" "got: $hit"
	else
		pass "$1"
	fi
}

# check_rc_msg DESC RC REGEX: last run exited RC and stderr matches REGEX
check_rc_msg() {
	if [ "$RC" -eq "$2" ] && grep -qE -- "$3" <<<"$ERR"; then
		pass "$1"
	else
		fail "$1" "expected: exit $2, stderr matching /$3/" \
			"got:      exit $RC, stderr: $ERR"
	fi
}

# sl ARGS...: run slabstat; sets OUT, ERR, RC
sl() {
	RC=0
	OUT=$("$SLABSTAT" "$@" 2>"$T/stderr") || RC=$?
	ERR=$(cat "$T/stderr")
}

# row METRIC TEXT: the fields of the first table row of METRIC, one space apart
row() {
	awk -v m="$1" 'index($0, m) == 1 && substr($0, length(m) + 1, 2) == "  " {
		$0 = substr($0, length(m) + 1); $1 = $1; print m " " $0; exit }' <<<"$2"
}

flat() {
	awk -f "$FLATTEN"
}

snap() { # snap ROOT [ARGS...] > file
	local root=$1
	shift
	"$SLABSTAT" --sysfs-root "$root/sys" --proc-root "$root/proc" snap "$@" nfs_page_test
}

# ---------------------------------------------------------------- fixtures
mk_box "$T/p1" 1 1		# 2-node 4-CPU, patched kernel
mk_box "$T/p3" 3 1
mk_box "$T/u1" 1 0		# same box, unpatched kernel
mk_box "$T/u3" 3 0
mk_box "$T/o1" 1 0 2		# 1-node 2-CPU box
mk_box "$T/o3" 3 0 2
cp -a "$T/p3" "$T/miss3"		# a counter missing after the window
rm "$T/miss3/sys/kernel/slab/nfs_page_test/barn_get"
cp -a "$T/u1" "$T/nosheaf1"		# sheaf_capacity 0: SLAB_NO_SHEAVES
cp -a "$T/u3" "$T/nosheaf3"
rm -f "$T"/nosheaf[13]/sys/kernel/slab/nfs_page_test/sheaf_capacity
scalar_file "$T/nosheaf1/sys/kernel/slab/nfs_page_test/sheaf_capacity" 0
scalar_file "$T/nosheaf3/sys/kernel/slab/nfs_page_test/sheaf_capacity" 0
fix_modes

cat >"$T/results" <<'RES'
run: 3
state: done
error: -12
placement: cross
alloc_thread_nodes: 0 0
ops_per_sec: 123456
remote_free_pct: 100.00
free_lat_p50_ns: 850
free_lat_hist: 0 0 1 2 3
cache_name: nfs_page_test
RES

for t in p1 p3 u1 u3 o1 o3 miss3 nosheaf1 nosheaf3; do
	snap "$T/$t" >"$T/$t.json"
done
snap "$T/p3" --results "$T/results" >"$T/p3r.json"

# ---------------------------------------------------------------- snap
sl --sysfs-root "$T/p1/sys" --proc-root "$T/p1/proc" snap nfs_page_test
check_eq "snap: exit 0 on the 2-node patched fixture" "0" "$RC"
F=$(flat <<<"$OUT")
C=caches.nfs_page_test
check_has "snap: per-CPU C parts of a counter" "$C.counters.free_slowpath.cpus.2=187500" "$F"
check_has "snap: sum of a counter" "$C.counters.free_slowpath.sum=500000" "$F"
check_has "snap: per-node N parts of a gauge" "$C.gauges.slabs.nodes.1=8" "$F"
check_has "snap: parked (debugfs) is a gauge on the patched kernel" "$C.gauges.parked.sum=2" "$F"
check_lacks "snap: parked has no per-node parts" "^$C\.gauges\.parked\.nodes\." "$F"
check_has "snap: facts (sheaf_capacity)" "$C.facts.sheaf_capacity=60" "$F"
check_has "snap: facts (the debugfs park switch)" "$C.facts.park=1" "$F"
check_eq "snap: every stat file found by readdir (25 + cmpxchg + 2 park)" "28" \
	"$(grep -c "^$C\.counters\.[a-z_]*\.sum=" <<<"$F")"
check_lacks "snap: settings, flags and legacy files are not counters" \
	"\.(hwcache_align|cpu_partial|remote_node_defrag_ratio|slabs_cpu_partial|cpu_slabs|aliases|validate|shrink|ctor|poison)[.=]" "$F"
check_eq "snap: CPU->node map from node*/cpulist" "0 0 1 1" \
	"$(grep '^cpu_node\.' <<<"$F" | cut -d= -f2 | tr '\n' ' ' | sed 's/ $//')"
check_eq "snap: idle/busy jiffies of cpu3 from /proc/stat" "cpus.3.idle=300 cpus.3.busy=100" \
	"$(grep -E '^cpus\.3\.(idle|busy)=' <<<"$F" | tr '\n' ' ' | sed 's/ $//')"
check_has "snap: kernel release" "kernel=7.3.4-fixture" "$F"
F=$(flat <"$T/u1.json")
check_lacks "snap: unpatched kernel has no park counters or files" "\.(park_slab|unpark_slab|parked|park)[.=]" "$F"
# a parked file that is not one number is left out, with a warning
cp -a "$T/p1" "$T/badparked"
echo "2 N1=2" >"$T/badparked/sys/kernel/debug/slab/nfs_page_test/parked"
sl --sysfs-root "$T/badparked/sys" --proc-root "$T/badparked/proc" snap nfs_page_test
check_rc_msg "snap: a debugfs parked of several numbers: warned, left out" 0 "parked: not a single number"
check_lacks "snap: ... and not in the snapshot" "\.gauges\.parked[.=]" "$(flat <<<"$OUT")"
F=$(flat <"$T/p3r.json")
check_eq "snap --results: numeric keys folded in, others skipped" \
	"results.run=3 results.error=-12 results.ops_per_sec=123456 results.remote_free_pct=100 results.free_lat_p50_ns=850" \
	"$(grep '^results\.' <<<"$F" | tr '\n' ' ' | sed 's/ $//')"

# ---------------------------------------------------------------- diff
sl diff "$T/p1.json" "$T/p3.json"
check_eq "diff: exit 0" "0" "$RC"
D=$OUT
check_eq "diff: header row" "metric before after delta change" "$(row metric "$D")"
check_eq "diff: thousands separators and change" \
	"alloc_fastpath 2,000,000 6,000,000 4,000,000 +200.00%" "$(row alloc_fastpath "$D")"
check_eq "diff: free_slowpath delta" \
	"free_slowpath 500,000 1,500,000 1,000,000 +200.00%" "$(row free_slowpath "$D")"
check_eq "diff: zero before, non-zero after: change n/a" \
	"cmpxchg_double_fail 0 1,234 1,234 n/a" "$(row cmpxchg_double_fail "$D")"
check_eq "diff: zero to zero: +0.00%" "alloc_slowpath 0 0 0 +0.00%" "$(row alloc_slowpath "$D")"
check_eq "diff: gauge delta" "objects 600 1,800 1,200 +200.00%" "$(row objects "$D")"
check_eq "diff: fact row" "sheaf_capacity 60 60 0 +0.00%" "$(row sheaf_capacity "$D")"
check_eq "diff: metric table columns right-aligned (all rows one width)" "1" \
	"$(awk '/^metric /,/^$/' <<<"$D" | sed '/^$/d' | awk '{ print length($0) }' | sort -u | wc -l)"
check_eq "diff: derived rows" \
"FREE_SLOWPATH / (FREE_FASTPATH + FREE_SLOWPATH)   25.00%
SHEAF_FLUSH / sheaf_capacity                      10,000
BARN_PUT_FAIL / (SHEAF_FLUSH / sheaf_capacity)      0.90
PARK_SLAB / FREE_ADD_PARTIAL                      75.00%
PARK_SLAB - UNPARK_SLAB                            1,000
page allocator churn (alloc_slab + free_slab)      9,000" \
	"$(awk '/^derived /{f=1; getline; next} f && /^$/{exit} f' <<<"$D")"
check_lacks "diff: no per-node table without --per-node" "^per-node" "$D"

sl diff "$T/u1.json" "$T/p3.json"
check_eq "diff: counter absent before (unpatched -> patched)" \
	"park_slab - 225,000 - absent" "$(row park_slab "$OUT")"
check_eq "diff: parked gauge absent before" "parked - 6 - absent" "$(row parked "$OUT")"
sl diff "$T/p1.json" "$T/miss3.json"
check_eq "diff: counter missing after" "barn_get 10 - - absent" "$(row barn_get "$OUT")"
sl diff "$T/u1.json" "$T/u3.json"
check_eq "diff: park derived rows absent on an unpatched kernel" \
	"PARK_SLAB / FREE_ADD_PARTIAL absent|PARK_SLAB - UNPARK_SLAB absent" \
	"$(grep -E '^(PARK_SLAB|UNPARK_SLAB)' <<<"$OUT" | sed 's/  */ /g' | paste -sd'|')"
sl diff "$T/nosheaf1.json" "$T/nosheaf3.json"
check_eq "diff: sheaf_capacity 0 makes the sheaf ratio n/a" \
	"SHEAF_FLUSH / sheaf_capacity n/a" \
	"$(grep '^SHEAF_FLUSH / sheaf_capacity' <<<"$OUT" | sed 's/  */ /g')"

# per-CPU counters are u32: CPU 0 wraps (2^32 - 296 -> 704), CPU 1 is
# cleared (1,000 -> 0): +1,000 and -1,000, the sum drops by 2^32 + 296
cp -a "$T/u1" "$T/wrap1"
cp -a "$T/u1" "$T/wrap3"
stat_file "$T/wrap1/sys/kernel/slab/nfs_page_test/alloc_fastpath" 4294967000 1000 0 500
stat_file "$T/wrap3/sys/kernel/slab/nfs_page_test/alloc_fastpath" 704 0 0 800
fix_modes
snap "$T/wrap1" >"$T/wrap1.json"
snap "$T/wrap3" >"$T/wrap3.json"
sl diff --per-node "$T/wrap1.json" "$T/wrap3.json"
check_eq "diff: a per-CPU u32 wrap is corrected, a clear stays negative" \
	"alloc_fastpath 4,294,968,500 1,504 300 +0.00%" "$(row alloc_fastpath "$OUT")"
check_has "diff: the wrap is reported" \
	"note: alloc_fastpath: the per-CPU counter wrapped at 2^32 on 1 CPU(s); delta corrected" "$OUT"
check_eq "diff: per-node split after a wrap" "alloc_fastpath 0 300 300" \
	"$(row alloc_fastpath "$(awk '/^per-node split/{f=1} f' <<<"$OUT")")"

sl diff --csv "$T/u1.json" "$T/p3.json"
check_has "diff --csv: header" "cache,kind,metric,before,after,delta,change_pct" "$OUT"
check_has "diff --csv: counter row" "nfs_page_test,counter,free_slowpath,500000,1500000,1000000,200.00" "$OUT"
check_has "diff --csv: absent row" "nfs_page_test,counter,park_slab,,225000,,absent" "$OUT"
check_has "diff --csv: derived row" "nfs_page_test,derived,free_slowpath_ratio,,,25," "$OUT"

sl diff --json "$T/p1.json" "$T/p3r.json"
F=$(flat <<<"$OUT")
M=caches.nfs_page_test.metrics
check_has "diff --json: delta document" "slabstat=delta" "$F"
check_has "diff --json: counter delta" "$M.free_slowpath.delta=1000000" "$F"
check_has "diff --json: per-CPU delta" "$M.free_slowpath.cpus.2=375000" "$F"
check_has "diff --json: per-node split of a counter" "$M.free_slowpath.nodes.1=750000" "$F"
check_has "diff --json: per-node delta of a gauge" "$M.slabs.nodes.0=24" "$F"
check_has "diff --json: derived value" "caches.nfs_page_test.derived.park_ratio.value=75" "$F"
check_has "diff --json: B's results carried through" "results.ops_per_sec=123456" "$F"
sl diff --json "$T/u1.json" "$T/p3.json"
check_has "diff --json: absent side named" "$M.park_slab.absent=before" "$(flat <<<"$OUT")"

# ---------------------------------------------------------------- per-node
sl diff --per-node "$T/p1.json" "$T/p3.json"
P=$(awk '/^per-node split/{f=1} f' <<<"$OUT")
check_eq "per-node: header" "metric node0 node1 all" "$(row metric "$P")"
check_eq "per-node: C parts summed by node" \
	"free_slowpath 250,000 750,000 1,000,000" "$(row free_slowpath "$P")"
check_eq "per-node: node-1-only counter" "park_slab 0 150,000 150,000" "$(row park_slab "$P")"
check_eq "per-node: %idle per node and overall" "%idle 37.50 87.50 62.50" "$(row %idle "$P")"
sl diff --per-node "$T/o1.json" "$T/o3.json"
P=$(awk '/^per-node split/{f=1} f' <<<"$OUT")
check_eq "per-node: 1-node box has one node column" "metric node0 all" "$(row metric "$P")"
check_eq "per-node: 1-node box split" "free_slowpath 250,000 250,000" "$(row free_slowpath "$P")"
check_eq "per-node: 1-node box %idle" "%idle 37.50 37.50" "$(row %idle "$P")"

# ---------------------------------------------------------------- window
# The fixture root is a symlink that is switched atomically from the
# K=1 tree to the K=3 tree one second into the window.
mk_box "$T/w1" 1 1
mk_box "$T/w3" 3 1
window_swap() {
	ln -sfn w1 "$T/w"
	(sleep 1; ln -s w3 "$T/w.new" && mv -T "$T/w.new" "$T/w") &
}
window_swap
sl --sysfs-root "$T/w/sys" --proc-root "$T/w/proc" window -t 3 --csv nfs_page_test
wait
check_eq "window: exit 0" "0" "$RC"
check_has "window --csv: header with node columns" \
	"cache,kind,metric,before,after,delta,change_pct,node0,node1" "$OUT"
check_has "window --csv: per-node split of free_slowpath" \
	"nfs_page_test,counter,free_slowpath,500000,1500000,1000000,200.00,250000,750000" "$OUT"
check_has "window --csv: per-node %idle (columns as in the header)" ",idle,idle_pct,,,62.50,,37.50,87.50" "$OUT"
window_swap
sl --sysfs-root "$T/w/sys" --proc-root "$T/w/proc" window -t 3 nfs_page_test
wait
check_eq "window: text per-node split" "free_slowpath 250,000 750,000 1,000,000" \
	"$(row free_slowpath "$(awk '/^per-node split/{f=1} f' <<<"$OUT")")"

# ---------------------------------------------------------------- compare
mk_box "$T/u0" 0 0
mk_box "$T/p0" 0 1
snap "$T/u0" >"$T/u0.json"
snap "$T/p0" >"$T/p0.json"
i=0
for k in 1 2 3; do
	i=$((i + 1))
	mk_box "$T/cu$k" "$k" 0
	printf 'ops_per_sec: %d\nfree_lat_p99_ns: %d\n' $((k * 100)) $((k * 1000)) >"$T/r$k"
	snap "$T/cu$k" --results "$T/r$k" >"$T/cu$k.json"
	"$SLABSTAT" diff --json "$T/u0.json" "$T/cu$k.json" >"$T/off$k.json"
done
for k in 2 3 4; do
	mk_box "$T/cp$k" "$k" 1
	printf 'ops_per_sec: %d\nfree_lat_p99_ns: %d\n' $((k * 100 - 50)) $((k * 1000)) >"$T/r$k"
	snap "$T/cp$k" --results "$T/r$k" >"$T/cp$k.json"
	"$SLABSTAT" diff --json "$T/p0.json" "$T/cp$k.json" >"$T/on$k.json"
	"$SLABSTAT" diff --json "$T/p0.json" "$T/cp$k.json" >"$T/always$k.json"
done
sl compare --labels off,on "$T"/off{1,2,3}.json -- "$T"/on{2,3,4}.json
check_eq "compare: exit 0" "0" "$RC"
check_eq "compare: header" "metric off on delta change" "$(row metric "$OUT")"
check_eq "compare: median (min-max), delta and change" \
	"free_slowpath 1,000,000 (500,000-1,500,000) 1,500,000 (1,000,000-2,000,000) 500,000 +50.00%" \
	"$(row free_slowpath "$OUT")"
check_eq "compare: counter absent in the first group" \
	"park_slab absent 225,000 (150,000-300,000) - absent" "$(row park_slab "$OUT")"
check_eq "compare: derived row medians" \
	"page allocator churn (alloc_slab + free_slab) 9,000 (4,500-13,500) 13,500 (9,000-18,000) +50.00%" \
	"$(row "page allocator churn (alloc_slab + free_slab)" "$OUT")"
check_eq "compare: derived row absent in the first group" \
	"PARK_SLAB / FREE_ADD_PARTIAL absent 75.00% (75.00%-75.00%) absent" \
	"$(row "PARK_SLAB / FREE_ADD_PARTIAL" "$OUT")"
check_eq "compare: results row ops_per_sec" \
	"ops_per_sec 200 (100-300) 250 (150-350) 50 +25.00%" "$(row ops_per_sec "$OUT")"
check_eq "compare: results row missing in every run" \
	"alloc_lat_p50_ns absent absent - absent" "$(row alloc_lat_p50_ns "$OUT")"
check_has "compare: group line with runs and kernel" "group on: 3 runs, kernel 7.3.4-fixture" "$OUT"
sl compare "$T"/off{1,2}.json -- "$T"/on{2,3}.json
check_eq "compare: even run count takes the mean of the middle two; default labels" \
	"free_slowpath 750,000 (500,000-1,000,000) 1,250,000 (1,000,000-1,500,000) 500,000 +66.67%" \
	"$(row free_slowpath "$OUT")"
check_eq "compare: default labels G1, G2" "metric G1 G2 delta change" "$(row metric "$OUT")"
sl compare --labels off,on,always "$T"/off{1,2,3}.json -- "$T"/on{2,3,4}.json -- "$T"/always{2,3}.json
check_eq "compare: three groups" \
	"metric off on always delta on change on delta always change always" "$(row metric "$OUT")"
check_eq "compare: third group vs the first" \
	"free_slowpath 1,000,000 (500,000-1,500,000) 1,500,000 (1,000,000-2,000,000) 1,250,000 (1,000,000-1,500,000) 500,000 +50.00% 250,000 +25.00%" \
	"$(row free_slowpath "$OUT")"
"$SLABSTAT" diff --json "$T/nosheaf1.json" "$T/nosheaf3.json" >"$T/nosheaf.json"
sl compare --labels nosheaves,sheaves "$T/nosheaf.json" -- "$T"/off{1,2}.json
check_eq "compare: a zero denominator in every run is n/a, not absent" \
	"SHEAF_FLUSH / sheaf_capacity n/a 7,500 (5,000-10,000) n/a" \
	"$(row "SHEAF_FLUSH / sheaf_capacity" "$OUT")"
sl compare --csv --labels off,on "$T"/off{1,2,3}.json -- "$T"/on{2,3,4}.json
check_has "compare --csv: header (medians right after the metric)" \
	"metric,off,on,kind,cache,off_runs,off_min,off_max,on_runs,on_min,on_max,on_delta,on_change_pct" "$OUT"
check_has "compare --csv: counter row" \
	"free_slowpath,1000000,1500000,counter,nfs_page_test,3,500000,1500000,3,1000000,2000000,500000,50.00" "$OUT"
check_has "compare --csv: counter absent in a group" \
	"park_slab,,225000,counter,nfs_page_test,0,,,3,150000,300000,,absent" "$OUT"
check_has "compare --csv: results row" \
	"ops_per_sec,200,250,result,,3,100,300,3,150,350,50,25.00" "$OUT"
sl compare --json --labels off,on "$T"/off{1,2,3}.json -- "$T"/on{2,3,4}.json
F=$(flat <<<"$OUT")
check_has "compare --json: median of a group" \
	"caches.nfs_page_test.metrics.free_slowpath.groups.1.median=1500000" "$F"
check_has "compare --json: change vs first" \
	"caches.nfs_page_test.metrics.free_slowpath.groups.1.change_pct=50" "$F"
check_has "compare --json: results median" "results.free_lat_p99_ns.groups.0.median=2000" "$F"

# ---------------------------------------------------------------- several caches
mkdir -p "$T/two1/sys/kernel/slab" "$T/two3/sys/kernel/slab"
cp -a "$T/p1/proc" "$T/two1/"
cp -a "$T/p1/sys/devices" "$T/two1/sys/"
cp -a "$T/p3/proc" "$T/two3/"
cp -a "$T/p3/sys/devices" "$T/two3/sys/"
for c in nfs_page_test other_cache; do
	cp -a "$T/p1/sys/kernel/slab/nfs_page_test" "$T/two1/sys/kernel/slab/$c"
	cp -a "$T/p3/sys/kernel/slab/nfs_page_test" "$T/two3/sys/kernel/slab/$c"
done
"$SLABSTAT" --sysfs-root "$T/two1/sys" --proc-root "$T/two1/proc" snap nfs_page_test other_cache >"$T/two1.json"
"$SLABSTAT" --sysfs-root "$T/two3/sys" --proc-root "$T/two3/proc" snap nfs_page_test other_cache >"$T/two3.json"
sl diff "$T/two1.json" "$T/two3.json"
check_eq "diff: one section per cache" "cache: nfs_page_test|cache: other_cache" \
	"$(grep '^cache: ' <<<"$OUT" | paste -sd'|')"
check_eq "diff: second cache's rows" "free_slowpath 500,000 1,500,000 1,000,000 +200.00%" \
	"$(row free_slowpath "$(awk '/^cache: other_cache/{f=1} f' <<<"$OUT")")"
sl --sysfs-root "$T/two1/sys" --proc-root "$T/two1/proc" snap nfs_page_test nfs_page_test
check_rc_msg "error: a cache given twice" 1 "given twice"

# ---------------------------------------------------------------- errors
E=$T/err/sys/kernel/slab
mkdir -p "$E/nostats"
cp -a "$T/p1/sys/kernel/slab/nfs_page_test" "$E/nfs_page_test"
cp -a "$T/p1/sys/kernel/slab/nfs_page_test" "$E/nfs_page_test2"
cp -a "$T/p1/sys/kernel/slab/nfs_page_test" "$E/:a-0000128"
ln -s :a-0000128 "$E/nfs_page"
cp -a "$T/p1/sys/kernel/slab/nfs_page_test/"{object_size,slabs,objects,partial} "$E/nostats/"
sl --sysfs-root "$T/err/sys" --proc-root "$T/p1/proc" snap nfs_page_tst
check_rc_msg "error: unknown cache lists close names, closest first" 1 \
	"no cache 'nfs_page_tst' .*close names: nfs_page_test, nfs_page_test2, nfs_page$"
sl --sysfs-root "$T/err/sys" --proc-root "$T/p1/proc" snap kmalloc-64
check_rc_msg "error: unknown cache without similar names" 1 "no cache 'kmalloc-64'.*no similar names"
sl --sysfs-root "$T/err/sys" --proc-root "$T/p1/proc" snap nfs_page
check_rc_msg "error: alias symlink names the merged cache" 1 \
	"'nfs_page' is an alias of the merged cache ':a-0000128'"
sl --sysfs-root "$T/err/sys" --proc-root "$T/p1/proc" snap nostats
check_rc_msg "error: no stat files -> kernel lacks CONFIG_SLUB_STATS" 1 "lacks CONFIG_SLUB_STATS"
sl --sysfs-root "$T/nonexistent" snap nfs_page_test
check_rc_msg "error: no /sys/kernel/slab" 1 "cannot open .*/kernel/slab"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 0755 "$T"
	RC=0
	OUT=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$SLABSTAT" \
		--sysfs-root "$T/p1/sys" --proc-root "$T/p1/proc" snap nfs_page_test \
		2>"$T/stderr") || RC=$?
	ERR=$(cat "$T/stderr")
	check_rc_msg "error: permission denied says root is needed" 1 "permission denied .*run slabstat as root"
	chmod 0700 "$T"
else
	skip "error: permission denied says root is needed" "needs root and setpriv"
fi
sl
check_rc_msg "usage: no command -> exit 2 with usage" 2 "^usage: slabstat"
sl frobnicate
check_rc_msg "usage: unknown command -> exit 2" 2 "unknown command 'frobnicate'"
sl snap --bogus nfs_page_test
check_rc_msg "usage: unknown option -> exit 2" 2 "unknown option '--bogus'"
sl window nfs_page_test
check_rc_msg "usage: window without -t -> exit 2" 2 "window needs -t SECONDS"
sl window -t abc nfs_page_test
check_rc_msg "usage: window -t not a number -> exit 2" 2 "-t needs seconds"
sl diff "$T/p1.json"
check_rc_msg "usage: diff with one file -> exit 2" 2 "diff needs two snapshots"
sl diff --csv --json "$T/p1.json" "$T/p3.json"
check_rc_msg "usage: --csv with --json -> exit 2" 2 "exclude each other"
sl compare --labels a,b,c "$T/off1.json" -- "$T/on2.json"
check_rc_msg "usage: --labels count differs from groups -> exit 2" 2 "names more groups"
sl compare "$T/off1.json" --
check_rc_msg "usage: empty compare group -> exit 2" 2 "empty group"
sl compare "$T/p1.json" -- "$T/on2.json"
check_rc_msg "error: compare given a snapshot -> exit 1" 1 "not a delta document.*this is a snapshot"
sl diff "$T/off1.json" "$T/p3.json"
check_rc_msg "error: diff given a delta document -> exit 1" 1 "not a slabstat snapshot.*delta document"
echo '{"slabstat": "snapshot", "caches": {' >"$T/broken.json"
sl diff "$T/broken.json" "$T/p3.json"
check_rc_msg "error: truncated JSON -> exit 1" 1 "not valid JSON"

# ---------------------------------------------------------------- lockstat-report.sh
LS=$TOOLS/report/lockstat-report.sh
ls_line() {
	printf '%40s:%14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s\n' "$@"
}
{
	echo "lock_stat version 0.4"
	printf '%221s\n' '' | tr ' ' '-'
	printf '%40s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s\n' \
		"class name" con-bounces contentions waittime-min waittime-max \
		waittime-total waittime-avg acq-bounces acquisitions holdtime-min \
		holdtime-max holdtime-total holdtime-avg
	printf '%221s\n' '' | tr ' ' '-'
	echo
	ls_line '&n->list_lock' 4321 5000 0.10 1234.56 25000.50 5.00 70000 1000000 0.05 80.00 90000.00 0.09
	printf '%27s%13s\n' '' '-------------'
	printf '%40s %14s %29s %s\n' '&n->list_lock' 3000 '[<00000000c0ffee01>]' '__slab_free+0x1a0/0x3c0'
	printf '%40s %14s %29s %s\n' '&n->list_lock' 2000 '[<00000000c0ffee02>]' 'get_partial_node_bulk+0x50/0x200'
	printf '%27s%13s\n' '' '-------------'
	printf '%40s %14s %29s %s\n' '&n->list_lock' 4000 '[<00000000c0ffee03>]' 'refill_sheaf+0x10/0x90 [slub_stress]'
	echo
	printf '%221s\n' '' | tr ' ' '.'
	echo
	ls_line '&zone->lock' 10 20 0.20 2.00 10.00 0.50 30 40 0.10 1.00 2.00 0.05
	printf '%29s%11s\n' '' '-----------'
	printf '%40s %14s %29s %s\n' '&zone->lock' 7 '[<00000000c0ffee04>]' 'rmqueue_bulk+0x10/0x90'
	echo
	printf '%221s\n' '' | tr ' ' '.'
	echo
	ls_line '&n->list_lock#2' 1 2 0.10 7000.25 100.00 50.00 3 4 0.10 1.00 2.00 0.50
} >"$T/lock_stat"
RC=0
OUT=$(LOCK_STAT_FILE=$T/lock_stat sh "$LS" report off 2>"$T/stderr") || RC=$?
check_eq "lockstat-report: key: value report of &n->list_lock (summed over #versions)" \
"label: off
class: &n->list_lock
contentions: 5002
acquisitions: 1000004
con_bounces: 4322
acq_bounces: 70003
waittime_total_us: 25100.50
waittime_avg_us: 5.02
waittime_max_us: 7000.25
contention_point: 3000 __slab_free+0x1a0/0x3c0
contention_point: 2000 get_partial_node_bulk+0x50/0x200
contending_point: 4000 refill_sheaf+0x10/0x90 [slub_stress]" "$OUT"
OUT=$(LOCK_STAT_FILE=$T/lock_stat sh "$LS" report --csv on)
check_eq "lockstat-report: CSV line" "on,&n->list_lock,5002,1000004,4322,70003,25100.50,5.02,7000.25" "$OUT"
check_eq "lockstat-report: CSV header" \
	"label,class,contentions,acquisitions,con_bounces,acq_bounces,waittime_total_us,waittime_avg_us,waittime_max_us" \
	"$(sh "$LS" header)"
OUT=$(LOCK_STAT_FILE=$T/lock_stat LOCK_CLASS='&rq->__lock' sh "$LS" report --csv x)
check_eq "lockstat-report: class without a line reports zeros" \
	"x,&rq->__lock,0,0,0,0,0.00,0.00,0.00" "$OUT"
LOCK_STAT_FILE=$T/lock_stat sh "$LS" clear
check_eq "lockstat-report: clear writes 0" "0" "$(cat "$T/lock_stat")"
RC=0
LOCK_STAT_FILE=$T/none sh "$LS" report 2>"$T/stderr" || RC=$?
ERR=$(cat "$T/stderr")
check_rc_msg "lockstat-report: no /proc/lock_stat -> CONFIG_LOCK_STAT" 1 "lacks CONFIG_LOCK_STAT"
RC=0
sh "$LS" frob 2>"$T/stderr" || RC=$?
ERR=$(cat "$T/stderr")
check_rc_msg "lockstat-report: usage error -> exit 2" 2 "^usage:"

# ---------------------------------------------------------------- summarize-lockstat.sh
SLS=$TOOLS/report/summarize-lockstat.sh
mkdir -p "$T/lockstat"
# (the format of tools/report/lockstat-report.sh report, checked above)
printf '%s\n' "label: cross park=0 round 1" "class: &n->list_lock" "contentions: 5002" \
	"acquisitions: 1000004" "con_bounces: 4322" "acq_bounces: 70003" \
	"waittime_total_us: 25100.50" "waittime_avg_us: 5.02" "waittime_max_us: 7000.25" \
	"contention_point: 3000 __slab_free+0x1a0/0x3c0" \
	"contention_point: 2000 get_partial_node_bulk+0x50/0x200" \
	"contending_point: 4000 refill_sheaf+0x10/0x90 [slub_stress]" >"$T/lockstat/cross-park0-1.txt"
printf '%s\n' "contentions: 1000" "acquisitions: 1000000" "waittime_total_us: 100.00" \
	"waittime_avg_us: 0.10" "waittime_max_us: 3.00" \
	"contention_point: 1000 __slab_free+0x10/0x3c0" >"$T/lockstat/cross-park0-2.txt"
printf '%s\n' "contentions: 2" "acquisitions: 900000" "waittime_total_us: 1.00" \
	"waittime_avg_us: 0.50" "waittime_max_us: 0.70" \
	"contention_point: 2 get_partial_node_bulk+0x50/0x200" >"$T/lockstat/cross-park2-1.txt"
printf '%s\n' "contentions: 2500" "acquisitions: 1000000" "waittime_total_us: 10.00" \
	"waittime_avg_us: 1.00" "waittime_max_us: 2.00" \
	"contention_point: 2000 __slab_free+0x1a0/0x3c0" >"$T/lockstat/cross-park1-1.txt"
# park_slab of the runs, as slabstat diff --json writes it (park0 runs: no file)
mkdir -p "$T/runs/cross/park1" "$T/runs/cross/park2"
for f in park1/1:40 park2/1:900; do
	printf '%s\n' '{' '  "caches": {' '    "nfs_page_test": {' '      "metrics": {' \
		'        "park_slab": {' '          "type": "counter",' '          "before": 5,' \
		"          \"delta\": ${f#*:}," '          "value": 1' '        }' '      }' '    }' '  }' '}' \
		>"$T/runs/cross/${f%:*}.json"
done
OUT=$(bash "$SLS" "$T/lockstat")
check_eq "summarize-lockstat: class table, median (min-max); even count: mean of the middle two" \
"cross     off       2  3001 (1000-5002)       1000002 (1000000-1000004)    0.30 (0.10-0.50)%
cross     on        1  2500 (2500-2500)       1000000 (1000000-1000000)    0.25 (0.25-0.25)%
cross     always    1  2 (2-2)                900000 (900000-900000)       0.00 (0.00-0.00)%
cross     off       2  12600 (100-25101)          2.6 (0.1-5.0)          3502 (3-7000)
cross     on        1  10 (10-10)                 1.0 (1.0-1.0)          2 (2-2)
cross     always    1  1 (1-1)                    0.5 (0.5-0.5)          1 (1-1)" \
	"$(echo "$OUT" | sed -n '/^== &n->list_lock (/,/^$/p' | grep '^cross ')"
check_eq "summarize-lockstat: call sites summed per function, median (min-max) over runs, missing run = 0" \
"cross     off    waiter  __slab_free                      2000 (1000-3000)
cross     off    waiter  get_partial_node_bulk            1000 (0-2000)
cross     off    holder  refill_sheaf                     2000 (0-4000)
cross     on     waiter  __slab_free                      2000 (2000-2000)
cross     always waiter  get_partial_node_bulk            2 (2-2)" \
	"$(echo "$OUT" | grep -E '^cross +[a-z]+ +(waiter|holder) ')"
check_eq "summarize-lockstat: parks against waits, differences to park=0 and the spread verdict" \
"cross     off       2  0 (0-0)              2000 (1000-3000)     -
cross     on        1  40 (40-40)           2000 (2000-2000)     0 fewer, within spread
cross     always    1  900 (900-900)        0 (0-0)              2000 fewer, beyond spread
cross     off       2  3001 (1000-5002)     -
cross     on        1  2500 (2500-2500)     501 fewer, within spread
cross     always    1  2 (2-2)              2999 fewer, beyond spread" \
	"$(echo "$OUT" | sed -n '/^== parks against/,$p' | grep '^cross ')"
RC=0
bash "$SLS" "$T/none" 2>"$T/stderr" >/dev/null || RC=$?
ERR=$(cat "$T/stderr")
check_rc_msg "summarize-lockstat: missing directory -> usage, exit 2" 2 "^usage:"

# ---------------------------------------------------------------- perf-lock.sh
PL=$TOOLS/report/perf-lock.sh
mkdir -p "$T/bin"
cat >"$T/bin/perf" <<'FAKE'
#!/bin/bash
# fake perf: BPF works only with FAKE_BPF=1; logs its arguments
echo "$*" >>"$FAKE_LOG"
case "$*" in
"lock con -ab"*)
	[ "${FAKE_BPF:-0}" = 1 ] || { echo " Error: switch \`b' is not available because no BUILD_BPF_SKEL=1" >&2; exit 129; }
	[ "$4" = -- ] || echo "  contended   total wait     max wait     avg wait         type   caller"
	;;
"lock record"*) : ;;
"lock contention"*) echo "  contended   total wait     max wait     avg wait         type   caller" ;;
esac
FAKE
chmod +x "$T/bin/perf"
pl() {
	RC=0
	OUT=$(FAKE_LOG=$T/perf.log PERF=$T/bin/perf SLABSTAT=$SLABSTAT "$@" 2>"$T/stderr") || RC=$?
	ERR=$(cat "$T/stderr")
}
: >"$T/perf.log"
pl env FAKE_BPF=1 "$PL" -t 0.1
check_eq "perf-lock: BPF mode runs 'perf lock con -abl -E 5'" \
	"0|lock con -abl -E 5 -- sleep 0.1" "$RC|$(tail -n1 "$T/perf.log")"
check_has "perf-lock: says it used BPF" \
	"perf-lock: mode: BPF ('$T/bin/perf lock con -abl -E 5', in-kernel aggregation, low perturbation), window 0.1 s" "$OUT"
: >"$T/perf.log"
pl "$PL" -t 0.1
check_eq "perf-lock: falls back to record + contention without BPF" \
	"0|lock record -a -o" "$RC|$(sed -n 2p "$T/perf.log" | cut -d' ' -f1-4)"
if grep -q "record mode writes every lock event to perf.data and perturbs the workload" <<<"$OUT" &&
	grep -q "BPF unavailable: Error: switch" <<<"$OUT" && grep -q "throughput halve" <<<"$OUT"; then
	pass "perf-lock: record mode says why and that it perturbs the workload"
else
	fail "perf-lock: record mode says why and that it perturbs the workload" "got: $OUT"
fi
cat >"$T/bin/slabstat-fixture" <<WRAP
#!/bin/bash
exec "$SLABSTAT" --sysfs-root "$T/p1/sys" --proc-root "$T/p1/proc" "\$@"
WRAP
chmod +x "$T/bin/slabstat-fixture"
RC=0
OUT=$(FAKE_LOG=$T/perf.log FAKE_BPF=1 PERF=$T/bin/perf SLABSTAT=$T/bin/slabstat-fixture \
	"$PL" -t 0.2 nfs_page_test 2>"$T/stderr") || RC=$?
ERR=$(cat "$T/stderr")
check_eq "perf-lock: slabstat window of the same window next to perf" \
	"0|slabstat window -t 0.2 nfs_page_test (same window):|  free_slowpath 500,000 500,000 0 +0.00%" \
	"$RC|$(grep '^slabstat window' <<<"$OUT")|$(grep '^  free_slowpath ' <<<"$OUT" | head -n1 | sed 's/  */ /g; s/^ /  /')"
RC=0
OUT=$(FAKE_LOG=$T/perf.log FAKE_BPF=1 PERF=$T/bin/perf SLABSTAT=$T/bin/slabstat-fixture \
	"$PL" -t 30 nfs_page_tst 2>"$T/stderr") || RC=$?
ERR=$(cat "$T/stderr")
check_rc_msg "perf-lock: a wrong cache fails before the window" 1 "close names: nfs_page_test"
pl env FAKE_BPF=1 "$PL" -t 1 --sysfs-root 2>/dev/null
check_rc_msg "perf-lock: unknown option -> exit 2 with usage" 2 "usage:"
pl "$PL" -t 0
check_rc_msg "perf-lock: -t 0 -> exit 2" 2 "positive number of seconds"
RC=0
OUT=$(PERF=$T/nonexistent/perf "$PL" -t 1 2>"$T/stderr") || RC=$?
ERR=$(cat "$T/stderr")
check_rc_msg "perf-lock: missing perf names the Debian package" 1 "not found.*linux-perf"

# ---------------------------------------------------------------- report scripts
# tools/report/summarize-measure.sh and tools/report/summarize-runs.sh on synthetic runs
# (the parts of slabstat's delta document and of the module's results
# file they read)
mk_run() { # mk_run DIR PLACEMENT MODE ROUND METRIC=DELTA...
	local d=$1/$2/park$3 r=$4 kv sep=
	shift 4
	mkdir -p "$d"
	{
		printf '{\n  "caches": {\n    "nfs_page_test": {\n      "metrics": {\n'
		for kv in "$@"; do
			printf '%s        "%s": {\n          "type": "counter",\n          "delta": %s,\n' "$sep" "${kv%%=*}" "${kv#*=}"
			printf '          "cpus": {\n            "0": %s\n          }\n        }' "${kv#*=}"
			sep=$',\n'
		done
		printf '\n      }\n    }\n  }\n}\n'
	} >"$d/$r.json"
}
SM=$TOOLS/report/summarize-measure.sh
SR=$TOOLS/report/summarize-runs.sh
mk_run "$T/mruns0" cross 0 1 park_slab=0 alloc_slab=5
OUT=$("$SM" "$T/mruns0")
check_has "summarize-measure: runs of a kernel without its counters say so" \
	"== measurement counters: none in these runs (make run MEASURE=1 boots the kernel that has them)" "$OUT"
M=$T/mruns
for r in 1 2; do
	mk_run "$M" cross 0 "$r" partial_scan_bulk=10 partial_scan_bulk_slabs=$((20 + 10 * r)) \
		partial_scan_one=0 partial_scan_one_slabs=0 free_lock_full_partial=100 free_wait_full_partial=$((8 + 2 * r)) \
		free_lock_empty_on=50 free_wait_empty_on=5 unpark_slab=0 partial_scan_bulk_listed=$((40 * r))
	mk_run "$M" cross 1 "$r" partial_scan_bulk=10 partial_scan_bulk_slabs=30 unpark_slab=10 \
		unpark_free_1=1 unpark_free_2_3=0 unpark_free_4_7=0 unpark_free_8_15=0 unpark_free_16=4 unpark_free_all=5 \
		free_lock_full_partial=90 free_wait_full_partial=0
	mk_run "$M" cross 2 "$r" partial_scan_bulk=10 partial_scan_bulk_slabs=30
done
OUT=$("$SM" "$M")
check_eq "summarize-measure: unparked slabs by free objects, shares of all runs" \
	"cross on 20 10.0% 0.0% 0.0% 0.0% 40.0% 50.0%" \
	"$(awk '/^== free objects/ { f = 1 } f && $1 == "cross" && $2 == "on" { $1 = $1; print; exit }' <<<"$OUT")"
check_lacks "summarize-measure: no unpark row for a mode that unparked nothing" "^cross +off " \
	"$(awk '/^== free objects/ { f = 1; next } /^== / { f = 0 } f' <<<"$OUT")"
# the rows of cross park=0 in a section's tables, joined
cross_off() {
	awk -v sect="$1" '$0 ~ "^== " { f = (index($0, sect) == 1) }
		f && $1 == "cross" && $2 == "off" { $1 = $1; s = s (s == "" ? "" : " | ") $0 }
		END { print s }' <<<"$OUT"
}
check_eq "summarize-measure: slabs per walk, median (min-max) over the runs (bulk | one)" \
	"cross off 10 (10-10) 3.50 (3.00-4.00) 6.00 (4.00-8.00) | cross off 0 (0-0) n/a n/a" \
	"$(cross_off "== refill scan")"
check_eq "summarize-measure: acquisitions and waits by transition, a table each" \
	"cross off 100 (100-100) 11 (10-12) | cross off 0 (0-0) 0 (0-0) | cross off 50 (50-50) 5 (5-5) | cross off 0 (0-0) 0 (0-0)" \
	"$(cross_off "== list_lock in __slab_free")"
check_lacks "summarize-measure: no table of free_empty_deferred (a v5 counter)" "free_empty_deferred|left listed" "$OUT"
RC=0
"$SM" 2>"$T/stderr" >/dev/null || RC=$?
ERR=$(cat "$T/stderr")
check_rc_msg "summarize-measure: no argument -> usage, exit 2" 2 "^usage:"

for r in 1 2 3; do
	for m in 0 1; do
		mkdir -p "$M/cross/park$m"
		printf '%s\n' "ops_per_sec: $((1000 * r))" "threads_per_cpu: 1" "allocs: 1000000" \
			"shrunk_slabs: 4" "peak_slabs: $((7 + r))" "rest_slabs: 5" "rest_partial: 4" \
			"slab_churn: $((2000 * (m + 1) + r))" >"$M/cross/park$m/$r.results"
	done
done
mkdir -p "$T/mres"
OUT=$("$SR" "$M" "$T/mres")
check_eq "summarize-runs: footprint, baseline after the shrink" "cross shrunk slabs 4 (4-4) 4 (4-4)" \
	"$(awk '/^== footprint/ { f = 1 } f && $1 == "cross" { $1 = $1; print; exit }' <<<"$OUT")"
check_eq "summarize-runs: footprint, peak median (min-max)" "peak slabs 9 (8-10) 9 (8-10)" \
	"$(awk '/^ +peak slabs/ { $1 = $1; print; exit }' <<<"$OUT")"
check_eq "summarize-runs: churn per million objects allocated" "churn/M alloc 2002 (2001-2003) 4002 (4001-4003)" \
	"$(awk '/^ +churn\/M alloc/ { $1 = $1; print; exit }' <<<"$OUT")"
check_eq "summarize-runs: summary.csv has a row per run" 7 "$(wc -l <"$T/mres/summary.csv")"

# ---------------------------------------------------------------- shellcheck
if command -v shellcheck >/dev/null 2>&1; then
	if SC=$(shellcheck -x "$HERE/run.sh" "$HERE/fixtures.sh" "$PL" 2>&1 &&
		(cd "$TOOLS/.." && shellcheck -x tools/report/summarize-measure.sh tools/report/summarize-runs.sh) 2>&1 &&
		shellcheck -s sh "$LS" "$HERE/guest-window.sh" 2>&1); then
		pass "shellcheck: test, perf-lock, lockstat and report scripts clean"
	else
		fail "shellcheck: test, perf-lock, lockstat and report scripts clean" "$SC"
	fi
else
	skip "shellcheck: test, perf-lock, lockstat and report scripts clean" "shellcheck not installed"
fi

# ---------------------------------------------------------------- report
echo "TAP version 13"
echo "1..$NTEST"
printf '%s\n' "${LINES[@]}"
echo "# slabstat tests: $((NTEST - NFAIL))/$NTEST passed"
[ "$NFAIL" -eq 0 ]
