#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make check': every test of the project, as one KTAP stream (one test
# per step; the step's output, its own TAP/KTAP included, as "# "
# diagnostic lines) ending in the plain line "check: N passed, N failed, N skipped".
# Each step's full output is kept in $SLABPARK_CACHE/logs/check/<step>.log
# and its path is printed on failure.
#
# Usage: tools/check/check.sh [STEP...]      (default: all steps; see 'steps' below)
#        tools/check/check.sh --full   all steps and the check-full ones:
#                                PREEMPT_RT and UMA kernels booted,
#                                slub_kunit on kernels broken on purpose
#
# Environment: KSRC (use your own tree; skips the base-vs-patched steps),
# SLABPARK_CACHE, GUEST_TIMEOUT, CHECK_DEBUG=0 (skip the debug-kernel gate).

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"

LOGS=$SLABPARK_LOGDIR/check
mkdir -p "$LOGS"
n=0 passed=0 failed=0 skipped=0
failures=()
declare -A RESULT=()

# step NAME FUNCTION: run FUNCTION with output indented into the stream
# and into LOGS/NAME.log; exit 0 = pass, 4 = skip (reason on the last
# line), anything else = fail.
step() {
	local name=$1 fn=$2 rc t0
	shift 2
	n=$((n + 1))
	t0=$(date +%s)
	sp_stage "check $n: $name"
	set +e
	( set -e; "$fn" "$@" ) 2>&1 | tee "$LOGS/$name.log" | sed -u 's/^/#   /'
	rc=${PIPESTATUS[0]}
	set -e
	local dt=$(( $(date +%s) - t0 ))
	case $rc in
	0) echo "ok $n $name # ${dt}s"; passed=$((passed + 1)); RESULT[$name]=pass ;;
	4) echo "ok $n $name # SKIP $(tail -n 1 "$LOGS/$name.log")"; skipped=$((skipped + 1)); RESULT[$name]=skip ;;
	*) echo "not ok $n $name # ${dt}s, log: $LOGS/$name.log"; failed=$((failed + 1))
	   failures+=("$name ($LOGS/$name.log)"); RESULT[$name]=fail ;;
	esac
}

needs() {
	local s
	for s in "$@"; do
		if [ "${RESULT[$s]:-}" != pass ]; then
			echo "cannot run: step '$s' did not pass"
			return 1
		fi
	done
}

# ---- steps --------------------------------------------------------------

do_deps() {
	tools/install-deps.sh
	echo "build dependencies present"
}

do_shellcheck() {
	local bash_files=() sh_files=() f
	while IFS= read -r f; do
		if head -n 1 "$f" | grep -qE '^#!/bin/(busybox )?sh'; then
			sh_files+=("$f")
		else
			bash_files+=("$f")
		fi
	done < <( { git ls-files '*.sh' .ci/run tools/vm/init; } | sort -u)
	shellcheck -x "${bash_files[@]}"
	shellcheck -s sh -x "${sh_files[@]}"
	echo "ShellCheck clean: ${#bash_files[@]} bash and ${#sh_files[@]} sh scripts"
}

do_slabstat_host() {
	make -s -C tools/slabstat check
}

# the host package tools/slabpark: its unit tests (fixtures in the guest
# scripts' layouts), pyflakes, and make run's refusals of the knobs it
# takes over (one line each, before anything is built)
do_python() {
	PYTHONPATH=tools python3 -m unittest discover -s tools/slabpark/tests -t tools 2>&1
	pyflakes3 tools/slabpark
	local knobs out rc n=0 kv
	# one case a line: VAR=VALUE assignments separated by ';'
	while IFS= read -r knobs; do
		IFS=';' read -ra kv <<<"$knobs"
		rc=0
		out=$(env "${kv[@]}" tools/run.sh 2>&1) || rc=$?
		if [ "$rc" = 0 ] || [ "$(echo "$out" | wc -l)" != 1 ] ||
		   [[ "$out" != "slabpark: error: "* ]]; then
			echo "make run $knobs: want one 'slabpark: error:' line and a failure, got status $rc:"
			echo "$out"
			return 1
		fi
		echo "make run $knobs: $out"
		n=$((n + 1))
	done <<'EOF'
BASE=2
BOOTS=0
WORKLOAD=mmap2
TASKS=x
MODES=3
MIN_PARTIAL=1;BASE=1
WORKLOAD=mmap1;LOCKSTAT=1
WORKLOAD=mmap1;MIN_PARTIAL=1
BASE=1;MEASURE=1
FLUSH=yes
FLUSH=1;MIN_PARTIAL=1
FLUSH=1;HOST=1
BOOTS=3
BASE=1;PATCHES=none
BASE=1;KSRC=/nonexistent
MODES=1 1
WORKLOAD=mmap1;TASKS=1025
WORKLOAD=mmap1;DURATION_MS=500
MIN_PARTIAL=1;MODES=1
EOF
	echo "tools/slabpark: unit tests, pyflakes and $n refusals pass"
}

# make run HOST=1's refusals on this host, against fake sysfs trees and as
# nobody: one line each, nothing loaded (tools/check/test-run-host.sh)
do_host_refusals() {
	tools/check/test-run-host.sh
}

do_docs() {
	tools/check/check-docs.sh
}

do_kernel_source() {
	tools/kernel/kernel-src.sh
}

do_checkpatch() {
	local cp out bad=0 f
	cp=$(tools/kernel/kernel-src.sh 2>/dev/null)/scripts/checkpatch.pl
	# Run from a neutral directory: inside a git work tree checkpatch can
	# take a tracked .patch for a source file.  MISSING_SIGN_OFF: by
	# Documentation/process/coding-assistants.rst the series carries
	# Assisted-by: and the human submitter adds Signed-off-by:.
	# UNKNOWN_COMMIT_ID: the tree is Debian's tarball, without the upstream
	# history that a Fixes: id is looked up in (the id was checked against
	# the public commit when it was written).
	local neutral
	neutral=$(mktemp -d)
	for f in "$SLABPARK_TOP"/patches/0*.patch; do
		case "$f" in */0000-cover-letter.patch) continue ;; esac
		out=$(cd "$neutral" || exit; "$cp" --strict --show-types --ignore MISSING_SIGN_OFF,UNKNOWN_COMMIT_ID "$f" 2>&1 || true)
		echo "$(basename "$f"): $(grep "^total:" <<<"$out")"
		grep -q 'total: 0 errors, 0 warnings, 0 checks' <<<"$out" || { echo "$out"; bad=1; }
	done
	# MACRO_ARG_REUSE: lib/test_vmalloc.c's __param(type, name, ...) macro,
	# which the module follows, pastes the identifier 'name' three times;
	# an identifier has no side effects, so that check is a false positive.
	# In the kselftest_harness.h program: EXPECT_*() end in a for-loop
	# (the TH_LOG handler), so a lone one under if() must keep its braces
	# (BRACES); FIXTURE_DATA(slab) *self is a type (SPACING); exact stat
	# equality is only asserted on x86, where stat() is one instruction
	# (ARCH_DEFINES).
	local ignore
	# tracked sources only: a local module build leaves mm/*.mod.c; each
	# file once: mm/slub_stress.c links to the module's source in the
	# kselftest collection (selftests/slub_park/slub_stress/)
	while IFS= read -r f; do
		[ ! -L "$f" ] || continue
		f=$SLABPARK_TOP/$f
		ignore=MACRO_ARG_REUSE
		case "$f" in */selftests/slub_park/slub_stress/*) ;;
		*/selftests/*) ignore+=,BRACES,SPACING,ARCH_DEFINES ;; esac
		out=$(cd "$neutral" || exit; "$cp" --strict --show-types --no-tree \
			--ignore "$ignore" -f "$f" 2>&1 || true)
		echo "$f: $(echo "$out" | grep '^total:')"
		grep -q 'total: 0 errors, 0 warnings, 0 checks' <<<"$out" || { echo "$out"; bad=1; }
	done < <(git ls-files 'mm/*.c' 'tools/slabstat/*.c' 'selftests/slub_park/*.c')
	rm -rf "$neutral"
	return $bad
}

do_series_bisect() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: the series is not applied to your tree"; return 4; }
	tools/check/check-series.sh
}

# The bench-only patches of tools/kernel/bench-patches/ must apply as
# build-kernel.sh stacks them: park-switch on the series, each other one on
# the series + park-switch.  Checked against the tree of the series branch
# in a temporary index, the work tree untouched.
do_bench_patches() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: the bench patches are for the bench tree"; return 4; }
	local src idx p on bad=0 sw=tools/kernel/bench-patches/park-switch.patch
	src=$(tools/kernel/kernel-src.sh 2>/dev/null)
	# the series branch up to date, under the lock build-kernel.sh holds
	flock "$src/.slabpark-lock" tools/kernel/series.sh apply --tree "$src" >/dev/null
	idx=$(mktemp)
	for p in tools/kernel/bench-patches/*.patch; do
		rm -f "$idx"
		GIT_INDEX_FILE=$idx git -C "$src" read-tree slabpark
		on="the series"
		if [ "$p" != "$sw" ]; then
			on="the series + park-switch"
			GIT_INDEX_FILE=$idx git -C "$src" apply --cached "$SLABPARK_TOP/$sw" ||
				{ echo "$sw does not apply to the series"; bad=1; continue; }
		fi
		if GIT_INDEX_FILE=$idx git -C "$src" apply --cached --check "$SLABPARK_TOP/$p"; then
			echo "$p applies to $on"
		else
			echo "$p does not apply to $on: rebase it (see its branch in README)"
			bad=1
		fi
	done
	rm -f "$idx"
	return $bad
}

# The series alone (what is sent): mm/slub.o with W=1 in the
# configuration as it is, then again with
# slub_kunit (tools/kernel/configs/kunit.config, which adds DEBUG_VM and KPROBES)
# with the series' parking cases, where the configuration can have it
# (not with SLUB_TINY).
do_matrix() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: the build matrix is for the bench tree"; return 4; }
	local bdir cfg target o
	for cfg in "$1" "$1+kunit"; do
		target=mm/slub.o
		if [ "$cfg" = "$1+kunit" ]; then
			[ "$1" != tiny ] || continue
			target="mm/slub.o lib/tests/slub_kunit.o"
		fi
		bdir=$(tools/kernel/build-kernel.sh --variant series --config "$cfg" --target "$target" --w1)
		if grep -E '^[^ ]*(mm/slub|lib/tests/slub_kunit)\.c:[0-9]+:[0-9]+: (warning|error)' "$bdir/build.log"; then
			echo "W=1 warnings with config $cfg"
			return 1
		fi
		for o in $target; do
			[ -f "$bdir/$o" ] || { echo "$o was not built with config $cfg"; return 1; }
		done
		echo "$target build with W=1 and no warnings: base + ${cfg//+/ + }"
	done
}

# Each step runs in a subshell: later steps ask build-kernel.sh again for
# the build directory, which is instant when the kernel is up to date.
do_kernel_patched() {
	tools/kernel/build-kernel.sh --variant patched
}
do_kernel_base() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: there is no separate base kernel"; return 4; }
	tools/kernel/build-kernel.sh --variant base
}

# guest_check BUILD_DIR LABEL KERNEL SUITE...: KERNEL (patched, base, rt or uma)
# declares the kselftest outcome to expect (tools/guest/guest-lib.sh).
# GUEST_SHAPE: run-guest.sh --shape; GUEST_STAGE: one more --stage SRC:DST.
guest_check() {
	local bdir=$1 label=$2 stage
	shift 2
	stage=$(tools/vm/stage-guest.sh "$bdir")
	tools/vm/run-guest.sh --kernel "$bdir" --stage "$stage:." ${GUEST_APPEND:+--append "$GUEST_APPEND"} \
		${GUEST_SHAPE:+--shape "$GUEST_SHAPE"} ${GUEST_STAGE:+--stage "$GUEST_STAGE"} \
		--out "$SLABPARK_CACHE/runs/check-$label" -- tools/guest/guest-check.sh "$@"
}
# The kselftest as a CI builds it in the kernel tree (cp -r, make -C
# tools/testing/selftests TARGETS=slub_park O=, kselftest_install.sh);
# guest-patched runs its install
do_kselftest_intree() {
	needs kernel-patched
	tools/check/kselftest-intree.sh --kernel "$(tools/kernel/build-kernel.sh --variant patched)"
}
do_guest_patched() {
	needs kernel-patched
	# the kselftest from the in-tree install when step kselftest-intree
	# made it (suite kselftest-intree), else from the collection's own
	local ksft=kselftest
	if [ "${RESULT[kselftest-intree]:-}" = pass ]; then
		ksft=kselftest-intree
		export GUEST_STAGE=$SLABPARK_CACHE/kselftest-intree/install:kselftest-intree
	fi
	# make run HOST=1 as a tester runs it, with the module prebuilt (suite
	# host-mode)
	guest_check "$(tools/kernel/build-kernel.sh --variant patched)" \
		patched patched "$ksft" slabstat-window host-mode
}
do_guest_base() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: there is no separate base kernel"; return 4; }
	needs kernel-base
	# make run HOST=1 on a kernel without the series (suite host-mode);
	# in a guest with a memory-only node: the kselftest's and HOST=1's
	# choice of nodes (suite topology)
	GUEST_SHAPE=cpuless4 guest_check "$(tools/kernel/build-kernel.sh --variant base)" base base \
		kselftest slabstat-window host-mode topology
}

# The parking races, widened by the bench-only delays of
# tools/kernel/bench-patches/widen-park-races.patch (tools/guest/guest-race-widen.sh).
do_race_widen() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: the widen kernel is built from the bench tree"; return 4; }
	needs kernel-patched
	guest_check "$(tools/kernel/build-kernel.sh --variant widen)" widen patched race-widen
}

# ---- check-full steps (make check-full; run on every series change) ------

# The PREEMPT_RT and UMA (CONFIG_NUMA=n) kernels booted, with the kselftest
# smoke mode and slub_kunit (the parking cases and the slow
# kmalloc_nolock() kprobe case, which fits without KASAN).  Built with W=1
# like the matrix entries of the same configuration, which share the build
# directory: then kbuild does not recompile mm/slub.o between the two.
do_boot_rt() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: the RT kernel is built from the bench tree"; return 4; }
	guest_check "$(tools/kernel/build-kernel.sh --variant patched --config rt+kunit --w1)" rt rt kselftest kunit
}
do_boot_numa_off() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: the UMA kernel is built from the bench tree"; return 4; }
	NODES=1 CPUS_PER_NODE=4 guest_check \
		"$(tools/kernel/build-kernel.sh --variant patched --config numa-off+kunit --w1)" uma uma kselftest kunit
}

# slub_kunit's parking cases fail, each for what it tests, on kernels with
# parking broken on purpose (tools/check/kunit-mutants.sh)
do_kunit_mutants() {
	[ -z "${KSRC:-}" ] || { echo "KSRC set: the break kernel is built from the bench tree"; return 4; }
	tools/check/kunit-mutants.sh
}

# The debug gate's default boot in make check (slub_kunit, the kselftest,
# stress runs with park=1 and park=2, fuzz, rmmods, kmemleak); its park2
# boot (every cache of the system switched to park=2 through debugfs right
# after boot, under KASAN and lockdep) in make check-full, to keep make
# check near 20 min warm (19m41s on 2026-12-02, the gate 16 of them).
do_debug_gate() {
	[ "${CHECK_DEBUG:-1}" != 0 ] || { echo "CHECK_DEBUG=0: debug gate not run"; return 4; }
	tools/check/debug-gate.sh --boots default
}
do_debug_gate_park2() {
	[ "${CHECK_DEBUG:-1}" != 0 ] || { echo "CHECK_DEBUG=0: debug gate not run"; return 4; }
	tools/check/debug-gate.sh --boots park2
}

# ---- main ---------------------------------------------------------------

all_steps=(deps shellcheck slabstat-host python host-refusals docs kernel-source checkpatch
	series-bisect bench-patches matrix-numa-off matrix-stats-off matrix-tiny matrix-rt matrix-i386
	kernel-patched kernel-base kselftest-intree guest-patched guest-base race-widen debug-gate)
full_steps=(debug-gate-park2 boot-rt boot-numa-off kunit-mutants)
if [ "${1:-}" = --full ]; then
	[ $# -eq 1 ] || { echo "check.sh: --full takes no steps" >&2; exit 2; }
	shift
	steps=("${all_steps[@]}" "${full_steps[@]}")
elif [ $# -gt 0 ]; then
	steps=("$@")
else
	steps=("${all_steps[@]}")
fi

echo "KTAP version 1"
echo "1..${#steps[@]}"
for s in "${steps[@]}"; do
	case "$s" in
	deps) step deps do_deps ;;
	shellcheck) step shellcheck do_shellcheck ;;
	slabstat-host) step slabstat-host do_slabstat_host ;;
	python) step python do_python ;;
	host-refusals) step host-refusals do_host_refusals ;;
	docs) step docs do_docs ;;
	kernel-source) step kernel-source do_kernel_source ;;
	checkpatch) step checkpatch do_checkpatch ;;
	series-bisect) step series-bisect do_series_bisect ;;
	bench-patches) step bench-patches do_bench_patches ;;
	matrix-*) step "$s" do_matrix "${s#matrix-}" ;;
	kernel-patched) step kernel-patched do_kernel_patched ;;
	kernel-base) step kernel-base do_kernel_base ;;
	kselftest-intree) step kselftest-intree do_kselftest_intree ;;
	guest-patched) step guest-patched do_guest_patched ;;
	guest-base) step guest-base do_guest_base ;;
	race-widen) step race-widen do_race_widen ;;
	debug-gate) step debug-gate do_debug_gate ;;
	debug-gate-park2) step debug-gate-park2 do_debug_gate_park2 ;;
	boot-rt) step boot-rt do_boot_rt ;;
	boot-numa-off) step boot-numa-off do_boot_numa_off ;;
	kunit-mutants) step kunit-mutants do_kunit_mutants ;;
	*) echo "check.sh: unknown step '$s' (steps: ${all_steps[*]} ${full_steps[*]})" >&2; exit 2 ;;
	esac
done

if [ ${#failures[@]} -gt 0 ]; then
	echo "# failed steps:"
	printf '#   %s\n' "${failures[@]}"
fi
echo "# make check took $(sp_elapsed)"
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
