#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build everything the guest needs for one kernel and lay it out as the
# guest's /slabpark tree; print the directory.
#
# Usage: tools/vm/stage-guest.sh KERNEL_BUILD_DIR
#
#   mm/slub_stress.ko          the stress module, built against that kernel
#   bin/bash                   static bash (bash-static), for make run HOST=1
#   bin/mmap_loop              static will-it-scale mmap1 loop (tools/guest/mmap_loop.c)
#   kselftest/                 run_kselftest.sh layout with collection slub_park
#   kernel.config              the kernel's .config (what a guest test may
#                              expect of it, e.g. slub_kunit's skips)
#   tools/                     tools/guest/, tools/report/, and tools/lib.sh
#                              and run-host.sh (make run HOST=1, which make
#                              check runs in the guest), laid out as here

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 KERNEL_BUILD_DIR" >&2
	exit 2
fi
bdir=$(cd "$1" && pwd)
[ -f "$bdir/Module.symvers" ] || sp_die "$bdir has no Module.symvers: build the kernel first"
# the source tree of that build: O= builds leave 'include <srctree>/Makefile'
src=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$bdir/Makefile" | head -n 1)
[ -d "$src/tools/testing/selftests" ] || sp_die "cannot find the source tree of $bdir"
stage=$bdir/slabpark-stage
rm -rf "$stage"
mkdir -p "$stage/mm" "$stage/bin" "$stage/tools"

modout=$bdir/slabpark-module
# kbuild refuses an MO= build while the sources hold an in-tree one (a
# plain 'make' of the module for KDIR): remove that build's outputs
if [ -f "$SLABPARK_TOP/modules.order" ] || compgen -G "$SLABPARK_TOP/mm/*.o" >/dev/null; then
	sp_stage "removing the in-tree module build of $SLABPARK_TOP (make clean) for the out-of-tree one"
	make -s -C "$bdir" M="$SLABPARK_TOP" clean >/dev/null
fi
sp_run_logged "$modout.log" "building the stress module against $bdir" \
	make -C "$bdir" M="$SLABPARK_TOP" MO="$modout" modules
cp "$modout/mm/slub_stress.ko" "$stage/mm/"
cp "$bdir/.config" "$stage/kernel.config"

# slub_kunit (and kunit itself when modular), where the kernel has them:
# the guest scripts load them from /slabpark/kunit/
if [ -f "$bdir/lib/tests/slub_kunit.ko" ]; then
	mkdir -p "$stage/kunit"
	cp "$bdir/lib/tests/slub_kunit.ko" "$stage/kunit/"
	if [ -f "$bdir/lib/kunit/kunit.ko" ]; then
		cp "$bdir/lib/kunit/kunit.ko" "$stage/kunit/"
	fi
fi

bash_static=$(command -v bash-static) ||
	sp_die "bash-static is missing (apt-get install bash-static, or python3 -m slabpark deps)"
cp "$bash_static" "$stage/bin/bash"
sp_run_logged "$SLABPARK_LOGDIR/mmap-loop.log" "building mmap_loop (static)" \
	gcc -O2 -Wall -Wextra -Werror -static -o "$stage/bin/mmap_loop" "$SLABPARK_TOP/tools/guest/mmap_loop.c"

ksft=$stage/kselftest
sp_run_logged "$SLABPARK_LOGDIR/selftest-install.log" "building and installing selftests/slub_park" \
	"$SLABPARK_TOP/selftests/slub_park/install-kselftest.sh" "$src" "$ksft" "$bdir"

# the tree of tools/ as it is here, for the parts the guest runs: the
# guest scripts, the report scripts, and make run HOST=1 as a tester runs
# it (the guest suite's host mode)
mkdir -p "$stage/tools/report"
cp -a "$SLABPARK_TOP/tools/guest" "$stage/tools/"
cp "$SLABPARK_TOP"/tools/report/*.sh "$stage/tools/report/"
cp "$SLABPARK_TOP"/tools/{lib,run-host}.sh "$stage/tools/"
echo "$stage"
