#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make check' step host-refusals: the prerequisite checks of 'make run
# HOST=1' (tools/run-host.sh, through tools/run.sh as make runs it) on
# this host, without loading anything.  Fake sysfs trees (SLABPARK_SYSFS,
# with --check-only) take away one prerequisite at a time; each refusal
# must exit 1 with exactly one line, "slabpark: error: ..." on stderr,
# that names the problem, and leave slub_stress unloaded.  The complete
# tree, and a tree without the park switch with HOST_BASE_ONLY=1, must
# pass.  Not root is checked as "nobody" (setpriv), through make; this
# host's own kernel is checked as it is: refused with one line, or passed.
# Plain make run's (the VM's) refusals of ALLOC_NODE/FREE_NODE, before any
# build or boot, are here too (from a copy of run.sh that cannot boot).
# KTAP output; exit 1 if any check fails.
#
# Usage: tools/check/test-run-host.sh

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"
[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }

MOD=slub_stress
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

ntest=0 nfail=0
ok() { ntest=$((ntest + 1)); echo "ok $ntest - $1"; }
not_ok() {
	ntest=$((ntest + 1)) nfail=$((nfail + 1))
	echo "not ok $ntest - $1"
	shift
	printf '%s\n' "$@" | sed 's/^/# /'
}

module_loaded() {
	[ -e "/sys/module/$MOD" ] || grep -q "^$MOD " /proc/modules 2>/dev/null
}
if module_loaded; then
	echo "Bail out! $MOD is loaded on this host: cannot tell whether a test loaded it"
	exit 1
fi

# fake_tree DIR [LEAVE_OUT...]: a sysfs tree with every prerequisite of a
# 2-node patched kernel, but the parts named: nodes (one node online),
# numa (no node directory: CONFIG_NUMA=n), stats, park (the debugfs
# switch kernel/debug/slab/<cache>/park), debugfs (nothing under
# kernel/debug: not mounted, so no switch either), loaded (adds
# module/slub_stress)
fake_tree() {
	local d=$1 c
	shift
	local leave=" $* "
	mkdir -p "$d/kernel/debug" "$d/module"
	if [[ $leave != *" numa "* ]]; then
		mkdir -p "$d/devices/system/node/node0" "$d/devices/system/node/node1"
		echo 0-1 >"$d/devices/system/node/node0/cpulist"
		echo 2-3 >"$d/devices/system/node/node1/cpulist"
		if [[ $leave == *" nodes "* ]]; then
			echo 0 >"$d/devices/system/node/online"
		else
			echo 0-1 >"$d/devices/system/node/online"
		fi
	fi
	for c in kmalloc-64 dentry; do
		mkdir -p "$d/kernel/slab/$c"
		echo 0 >"$d/kernel/slab/$c/objects"
		[[ $leave == *" stats "* ]] || echo "0 C0=0" >"$d/kernel/slab/$c/alloc_fastpath"
		[[ $leave == *" debugfs "* ]] || mkdir -p "$d/kernel/debug/slab/$c"
		[[ $leave == *" park "* || $leave == *" debugfs "* ]] ||
			echo 1 >"$d/kernel/debug/slab/$c/park"
	done
	[[ $leave != *" loaded "* ]] || mkdir -p "$d/module/$MOD"
}

kdir=$work/kdir
mkdir -p "$kdir"
echo "# a fake kernel build tree" >"$kdir/Makefile"
fake_tree "$work/full"

# expect DESC STATUS REGEX CMD...: CMD must exit with STATUS and print
# exactly one line, matching the extended regex REGEX: on stderr for a
# refusal (STATUS 1 or 2), on stdout for a pass; and leave nothing loaded.
expect() {
	local desc=$1 want=$2 re=$3 rc=0 out err lines
	shift 3
	"$@" >"$work/out" 2>"$work/err" || rc=$?
	out=$(cat "$work/out") err=$(cat "$work/err")
	if [ "$want" = 0 ]; then
		lines=$out
		[ -z "$err" ] || { not_ok "$desc" "stderr: $err"; return; }
	else
		lines=$err
		[ -z "$out" ] || { not_ok "$desc" "stdout: $out"; return; }
	fi
	if [ "$rc" != "$want" ]; then
		not_ok "$desc" "exit status $rc, want $want" "stdout: $out" "stderr: $err"
	elif [ "$(printf '%s\n' "$lines" | wc -l)" != 1 ] || [ -z "$lines" ]; then
		not_ok "$desc" "want exactly one line, got:" "$lines"
	elif ! grep -qE -- "$re" <<<"$lines"; then
		not_ok "$desc" "the line does not match /$re/:" "$lines"
	elif module_loaded; then
		not_ok "$desc" "$MOD is loaded afterwards"
	else
		ok "$desc"
	fi
}

# check_host [ENV...]: HOST=1 tools/run.sh --check-only with a fake tree
# and the fake KDIR, with ENV (NAME=VALUE) on top
check_host() {
	env HOST=1 SLABPARK_SYSFS="$work/full" KDIR="$kdir" HOST_BASE_ONLY= HOST_MODULE= \
		RUNS= DURATION_MS= PLACEMENTS= LOCKSTAT= MEASURE= SWEEP= "$@" tools/run.sh --check-only
}
# tree NAME LEAVE_OUT...: a fake tree without LEAVE_OUT; prints its path
tree() {
	local name=$1
	shift
	fake_tree "$work/$name" "$@"
	echo "$work/$name"
}

echo "TAP version 13"

err='^slabpark: error: '
expect "complete tree passes" 0 '^slabpark: prerequisites ok: 2 nodes, SLUB counters, park switch, kernel ' \
	check_host
expect "no park switch, HOST_BASE_ONLY=1: passes, base only" 0 'prerequisites ok: .*no park switch \(base only\)' \
	check_host SLABPARK_SYSFS="$(tree nopark-base park)" HOST_BASE_ONLY=1
expect "one online node: refused" 1 "$err"'this machine has 1 online NUMA node\(s\) .*needs 2' \
	check_host SLABPARK_SYSFS="$(tree onenode nodes)"
expect "no NUMA (no node/online): refused" 1 "$err"'this machine has 0 online NUMA node\(s\)' \
	check_host SLABPARK_SYSFS="$(tree numa-off numa)"
expect "no SLUB_STATS: refused" 1 "$err"'kernel .* has no SLUB counters .*CONFIG_SLUB_STATS=y' \
	check_host SLABPARK_SYSFS="$(tree nostats stats)"
expect "no park switch: refused, unpatched, base-only offered" 1 \
	"$err"'kernel .* has no park switch .*unpatched.*rerun with HOST_BASE_ONLY=1 for base-only numbers' \
	check_host SLABPARK_SYSFS="$(tree nopark park)"
expect "no stats and no park switch: the stats are named first" 1 "$err"'.*has no SLUB counters' \
	check_host SLABPARK_SYSFS="$(tree nostats-nopark stats park)"
expect "debugfs not mounted: refused as such, not as unpatched (the switch is in debugfs)" 1 "$err"'debugfs is not mounted' \
	check_host SLABPARK_SYSFS="$(tree nodebugfs debugfs)"
expect "debugfs not mounted, HOST_BASE_ONLY=1: refused (the module's controls are there)" 1 "$err"'debugfs is not mounted' \
	check_host SLABPARK_SYSFS="$(tree nodebugfs-base debugfs)" HOST_BASE_ONLY=1
mkdir -p "$work/oldpark"
cp -a "$work/nopark/." "$work/oldpark/"
echo 1 >"$work/oldpark/kernel/slab/kmalloc-64/park"
expect "the v5 sysfs park only (no debugfs switch): refused as unpatched" 1 \
	"$err"'kernel .* has no park switch \(no .*/kernel/debug/slab/\*/park\)' \
	check_host SLABPARK_SYSFS="$work/oldpark"
expect "no kernel build tree (KDIR): refused" 1 "$err"'no build tree for the running kernel .* at /nonexistent/kdir: install linux-headers-' \
	check_host KDIR=/nonexistent/kdir
expect "HOST_MODULE missing: refused" 1 "$err"'HOST_MODULE=/nonexistent/slub_stress.ko: no such file' \
	check_host HOST_MODULE=/nonexistent/slub_stress.ko
echo "not a module" >"$work/bogus.ko"
expect "HOST_MODULE not built for this kernel: refused" 1 "$err"'HOST_MODULE=.* was built for kernel .*, this is ' \
	check_host HOST_MODULE="$work/bogus.ko" SLABSTAT="$work/bogus.ko"
expect "slub_stress already loaded: refused" 1 "$err"'slub_stress is already loaded: unload it' \
	check_host SLABPARK_SYSFS="$(tree loaded loaded)"
expect "SLABPARK_SYSFS without --check-only: refused" 1 "$err"'SLABPARK_SYSFS=.* only with --check-only' \
	env HOST=1 SLABPARK_SYSFS="$work/full" tools/run.sh
expect "a bad knob: refused" 1 "$err"'RUNS=0: must be a positive integer' \
	check_host RUNS=0
expect "HOST=2: refused" 1 "$err"'HOST=2: must be 0 or 1' \
	check_host HOST=2
expect "HOST_BASE_ONLY=yes: refused" 1 "$err"'HOST_BASE_ONLY=yes: must be 0 or 1' \
	check_host HOST_BASE_ONLY=yes
# a 3-node tree whose node 1 has memory but no CPUs (a CXL/HBM node)
mkdir -p "$work/cpuless"
cp -a "$work/full/." "$work/cpuless/"
nd=$work/cpuless/devices/system/node
: >"$nd/node1/cpulist"
mkdir -p "$nd/node2"
echo 2-3 >"$nd/node2/cpulist"
echo 0-2 >"$nd/online"
echo 0-2 >"$nd/has_normal_memory"
expect "CPU-less node 1: the default pair is nodes 0 and 2, not 0 and 1" 0 'prerequisites ok: .*, nodes 0 -> 2, 2 threads$' \
	check_host SLABPARK_SYSFS="$work/cpuless" PLACEMENTS=cross
expect "FREE_NODE=1 (CPU-less): refused, the reason named" 1 "$err"'FREE_NODE=1: node 1 has no online CPUs \(a memory-only node\)' \
	check_host SLABPARK_SYSFS="$work/cpuless" PLACEMENTS=cross FREE_NODE=1
expect "FREE_NODE=7 (not online): refused" 1 "$err"'FREE_NODE=7: node 7 is not online \(online nodes: 0,1,2\)' \
	check_host SLABPARK_SYSFS="$work/cpuless" PLACEMENTS=cross FREE_NODE=7
# 2 nodes, node 1 with CPUs but without normal memory (a memoryless freer)
mkdir -p "$work/memless"
cp -a "$work/full/." "$work/memless/"
echo 0 >"$work/memless/devices/system/node/has_normal_memory"
expect "memoryless node 1: the default pair refused (one node with CPUs and memory)" 1 \
	"$err"'only node 0 has online CPUs and normal memory .*cross and balanced need two such nodes' \
	check_host SLABPARK_SYSFS="$work/memless" PLACEMENTS=cross
expect "FREE_NODE=1 without normal memory: passes with the warning" 0 \
	'prerequisites ok: .*, nodes 0 -> 1, 2 threads \(warning: free node 1 has no normal memory: ' \
	check_host SLABPARK_SYSFS="$work/memless" PLACEMENTS=cross FREE_NODE=1
expect "ALLOC_NODE=1 without normal memory: refused" 1 "$err"'ALLOC_NODE=1: node 1 has no normal memory' \
	check_host SLABPARK_SYSFS="$work/memless" PLACEMENTS=cross ALLOC_NODE=1 FREE_NODE=0
# 2 nodes, each one core of 2 SMT threads: local's freer on the allocator's sibling
mkdir -p "$work/smt"
cp -a "$work/full/." "$work/smt/"
for c in 0 1 2 3; do
	mkdir -p "$work/smt/devices/system/cpu/cpu$c/topology"
	echo $((c / 2)) >"$work/smt/devices/system/cpu/cpu$c/topology/physical_package_id"
	echo "$((c / 2 * 2))-$((c / 2 * 2 + 1))" >"$work/smt/devices/system/cpu/cpu$c/topology/thread_siblings_list"
done
echo 0-3 >"$work/smt/devices/system/cpu/online"
expect "SMT siblings: local's freers on the allocators' siblings, warned" 0 \
	'prerequisites ok: .*, nodes 0 -> 1, 2 threads \(warning: SMT: in local, 1 of 1 freers run on an allocator.s sibling thread' \
	check_host SLABPARK_SYSFS="$work/smt"
# make run in the VM: the nodes checked before anything is built or
# booted; from a copy of run.sh and lib.sh alone, so that a check that
# lets the value through fails here (no install-deps.sh, no kernel, no
# guest) instead of booting one
vmtop=$work/vmtop
mkdir -p "$vmtop/tools"
cp tools/run.sh tools/lib.sh "$vmtop/tools/"
expect "make run (VM) ALLOC_NODE=x: refused before the boot" 1 "$err"'ALLOC_NODE=x: not a node number' \
	env HOST= NODES=2 ALLOC_NODE=x "$vmtop/tools/run.sh"
expect "make run (VM) FREE_NODE=2 with NODES=2: refused before the boot" 1 \
	"$err"'FREE_NODE=2: the guest has nodes 0..1 \(NODES=2\)' \
	env HOST= NODES=2 FREE_NODE=2 "$vmtop/tools/run.sh"
expect "a wrong argument: usage" 2 '^usage: HOST=1 .*tools/run.sh \[--check-only\]' \
	env HOST=1 tools/run.sh --bogus

if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	# a copy of what make run HOST=1 runs first, which nobody can read
	# wherever the checkout is (a home directory may be private)
	top=$work/top
	mkdir -p "$top/tools"
	cp Makefile "$top/"
	cp tools/run.sh tools/run-host.sh tools/lib.sh "$top/tools/"
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent)
	expect "not root (nobody, complete tree): refused" 1 "$err"'.*run it as root' \
		"${nobody[@]}" HOST=1 SLABPARK_SYSFS="$work/full" KDIR="$kdir" "$top/tools/run.sh" --check-only
	# make prints its own error line after the script's and exits 2; a
	# top-level make as a tester runs it (under make check, MAKELEVEL and
	# MAKEFLAGS would make it "make[1]: ***")
	make_run_as_nobody() {
		local rc=0
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env -u MAKELEVEL -u MAKEFLAGS -u MFLAGS HOME=/nonexistent \
			make -s --no-print-directory -C "$top" run HOST=1 2>"$work/make-err" || rc=$?
		grep -Ev '^make(\[[0-9]+\])?: \*\*\*' "$work/make-err" >&2
		return "$rc"
	}
	expect "not root, make run HOST=1: refused" 2 "$err"'.*run it as root \(sudo make run HOST=1\)' \
		make_run_as_nobody
else
	ntest=$((ntest + 1))
	echo "ok $ntest - not root # SKIP needs root and setpriv to run as nobody"
fi

# This host's kernel as it is (in make check's host: one node, no park
# switch, no headers): one refusal line, whichever comes first, or a pass
# where the host meets them all.
rc=0
HOST=1 tools/run.sh --check-only >"$work/out" 2>"$work/err" || rc=$?
if [ "$rc" = 0 ]; then
	expect "this host ($(uname -r)): meets the prerequisites" 0 '^slabpark: prerequisites ok' \
		env HOST=1 tools/run.sh --check-only
else
	expect "this host ($(uname -r)): refused ($(head -c 60 "$work/err")...)" 1 "$err" \
		env HOST=1 tools/run.sh --check-only
fi

echo "1..$ntest"
echo "# host-refusals: $((ntest - nfail)) of $ntest passed"
[ "$nfail" = 0 ]
