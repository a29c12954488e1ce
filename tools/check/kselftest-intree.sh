#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The slub_park kselftest as a CI (KernelCI, LKFT) builds it: copied into
# the kernel tree's tools/testing/selftests, built with the standard
# command against a kernel built with O=, installed with
# kselftest_install.sh.  make check's step kselftest-intree; its install
# is then run in the patched guest of step guest-patched (suite
# kselftest-intree of tools/guest/guest-check.sh), in the boot that step
# makes anyway.
#
# Usage: tools/check/kselftest-intree.sh [--kernel BUILD_DIR] [--out DIR] [--boot]
#
#   --kernel DIR   the kernel build (O=) to build against (default: the
#                  patched kernel, tools/kernel/build-kernel.sh --variant patched)
#   --out DIR      where the scratch tree and the install go (default
#                  $SLABPARK_CACHE/kselftest-intree; emptied first)
#   --boot         also boot a guest of that kernel and run the install's
#                  run_kselftest.sh -c slub_park there (on its own; make
#                  check runs it in guest-patched's boot instead)
#
# Steps, each checked:
#   1. scratch tree: git archive of tools/testing/selftests and
#      scripts/subarch.include (all its Makefile reads outside it) from the
#      source tree of BUILD_DIR; that tree and the build are not written to,
#      except BUILD_DIR/kselftest/, where the selftests Makefile puts its
#      objects for O= (as it does for any O= build)
#   2. cp -r selftests/slub_park into its tools/testing/selftests/
#   3. make -C tools/testing/selftests TARGETS=slub_park O=BUILD_DIR
#      USERLDFLAGS=-static (for the guest's busybox initramfs): builds the
#      checker and slub_stress.ko, whose vermagic must be BUILD_DIR's release
#   4. the same with KDIR= another directory: refused, in one line
#      naming KDIR and O
#   5. cd tools/testing/selftests; MAKEFLAGS='TARGETS=slub_park
#      USERLDFLAGS=-static' KBUILD_OUTPUT=BUILD_DIR ./kselftest_install.sh DIR
#      (kselftest_install.sh takes no make arguments: MAKEFLAGS passes
#      them, as command-line variables; TARGETS in the environment would
#      be appended to, not replace, the default list): run_kselftest.sh,
#      kselftest-list.txt with slub_park:ksft_slub_park.sh, the collection
#      with slub_stress/slub_stress.ko, and 'run_kselftest.sh -l' lists it
# The last line of output is the install directory.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"

usage() {
	sed -n '/^# Usage:/,/^#   --boot/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

bdir=
out=$SLABPARK_CACHE/kselftest-intree
boot=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) [ $# -ge 2 ] || usage; bdir=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	--boot) boot=1; shift ;;
	*) usage ;;
	esac
done
[ -n "$bdir" ] || bdir=$(tools/kernel/build-kernel.sh --variant patched)
[ -d "$bdir" ] || sp_die "--kernel $bdir: no such directory"
bdir=$(cd "$bdir" && pwd)
[ -f "$bdir/Module.symvers" ] || sp_die "--kernel $bdir: not a kernel build (no Module.symvers)"
src=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$bdir/Makefile" | head -n 1)
[ -d "$src/tools/testing/selftests" ] || sp_die "--kernel $bdir: cannot find its source tree (no 'include <tree>/Makefile' in $bdir/Makefile)"
release=$(cat "$bdir/include/config/kernel.release")

# the route of a CI, which names the kernel build with O= alone: make's
# KDIR (the Makefile exports its default, the running kernel's build) is
# not this kernel's, and the collection refuses a KDIR other than O
unset KDIR
t0=$(date +%s)
# one run at a time: the scratch tree and O's kselftest/ output are shared
# by every clone that uses this cache
mkdir -p "$(dirname "$out")"
exec 9>"$out.lock"
flock 9
rm -rf "$out"
tree=$out/tree
inst=$out/install
mkdir -p "$tree" "$inst"
log=$out/log
: >"$log"

# 1, 2: the scratch tree with the collection
if git -C "$src" rev-parse --verify -q HEAD >/dev/null; then
	git -C "$src" archive HEAD -- tools/testing/selftests scripts/subarch.include | tar -x -C "$tree"
else
	mkdir -p "$tree/tools/testing" "$tree/scripts"
	cp -a "$src/tools/testing/selftests" "$tree/tools/testing/"
	cp "$src/scripts/subarch.include" "$tree/scripts/"
fi
ksft=$tree/tools/testing/selftests
cp -r selftests/slub_park "$ksft/"
# what a fresh checkout has: no build outputs of this clone in the copy
rm -f "$ksft"/slub_park/slub_park_sysfs
find "$ksft/slub_park/slub_stress" -type f ! -name Makefile ! -name '*.c' ! -name .gitignore -delete
if [ -L "$ksft/slub_park/slub_stress/slub_stress.c" ] || [ ! -s "$ksft/slub_park/slub_stress/slub_stress.c" ]; then
	sp_die "cp -r did not carry the module source (selftests/slub_park/slub_stress/slub_stress.c must be the file, not a link)"
fi
echo "scratch tree $tree: tools/testing/selftests of $src, with selftests/slub_park copied in"

# 3: the standard build
if ! make -C "$ksft" TARGETS=slub_park O="$bdir" USERLDFLAGS=-static >>"$log" 2>&1; then
	tail -n 20 "$log"
	sp_die "make -C tools/testing/selftests TARGETS=slub_park O=$bdir failed (log: $log)"
fi
ko=$ksft/slub_park/slub_stress/slub_stress.ko
[ -f "$ko" ] || { tail -n 20 "$log"; sp_die "the build made no $ko (log: $log)"; }
vm=$(tr '\000' '\n' <"$ko" | sed -n 's/^vermagic=\([^ ]*\).*/\1/p' | head -n 1)
[ "$vm" = "$release" ] || sp_die "$ko has vermagic $vm, the kernel of $bdir is $release"
[ -x "$bdir/kselftest/slub_park/slub_park_sysfs" ] || sp_die "no $bdir/kselftest/slub_park/slub_park_sysfs (O='s kselftest output)"
file "$bdir/kselftest/slub_park/slub_park_sysfs" | grep -q 'statically linked' ||
	sp_die "slub_park_sysfs is not static: USERLDFLAGS=-static did not reach lib.mk"
echo "make -C tools/testing/selftests TARGETS=slub_park O=$bdir: slub_stress.ko (vermagic $vm), slub_park_sysfs (static)"

# 4: a KDIR that is not O is refused in one line
rc=0
refusal=$(make -s -C "$ksft" TARGETS=slub_park O="$bdir" KDIR="$out/not-a-kernel" 2>&1) || rc=$?
line=$(grep -c 'slub_park: KDIR=.* differs from O=' <<<"$refusal" || true)
if [ "$rc" = 0 ] || [ "$line" != 1 ]; then
	echo "$refusal"
	sp_die "make ... O=$bdir KDIR=$out/not-a-kernel: want a failure with one 'KDIR=... differs from O=' line, got status $rc"
fi
echo "KDIR other than O refused: $(grep 'slub_park: KDIR=' <<<"$refusal")"

# 5: kselftest_install.sh
if ! (cd "$ksft" && MAKEFLAGS='TARGETS=slub_park USERLDFLAGS=-static' KBUILD_OUTPUT=$bdir \
	./kselftest_install.sh "$inst") >>"$log" 2>&1; then
	tail -n 20 "$log"
	sp_die "kselftest_install.sh $inst failed (log: $log)"
fi
for f in run_kselftest.sh kselftest/runner.sh kselftest/ktap_helpers.sh kselftest-list.txt \
	slub_park/ksft_slub_park.sh slub_park/slub_park.sh slub_park/slub_park_lib.sh slub_park/{runs,parking,lifecycle,params}.sh slub_park/slub_park_params \
	slub_park/slub_park_sysfs slub_park/settings slub_park/config slub_park/splat.ere \
	slub_park/param_fuzz.txt slub_park/slub_stress/slub_stress.ko; do
	[ -e "$inst/$f" ] || sp_die "kselftest_install.sh left no $inst/$f"
done
[ "$(cat "$inst/kselftest-list.txt")" = "slub_park:ksft_slub_park.sh" ] ||
	sp_die "kselftest-list.txt is not just slub_park:ksft_slub_park.sh: $(tr '\n' ' ' <"$inst/kselftest-list.txt")"
listed=$("$inst/run_kselftest.sh" -l)
[ "$listed" = "slub_park:ksft_slub_park.sh" ] || sp_die "run_kselftest.sh -l lists '$listed'"
echo "kselftest_install.sh $inst: run_kselftest.sh -l lists $listed; $(du -sh "$inst" | cut -f1)"
echo "built and installed in $(($(date +%s) - t0)) s"

if [ "$boot" = 1 ]; then
	# the install as kselftest/ too: guest-lib.sh sources the collection's
	# slub_park_lib.sh from there
	tools/vm/run-guest.sh --kernel "$bdir" --stage "$inst:kselftest-intree" --stage "$inst:kselftest" \
		--stage "$SLABPARK_TOP/tools/guest:tools/guest" --out "$out/guest" -- \
		tools/guest/guest-check.sh patched kselftest-intree >&2
fi
echo "$inst"
