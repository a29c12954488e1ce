#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tools/kernel/build-kernel.sh [--variant V] [--config NAME[+NAME...]]
#                              [--target TARGET] [--w1]
#   --variant V      patched: the series + bench-patches/park-switch.patch (the
#                    default; PATCHES=none: base); series: the series alone (what
#                    is sent); base: the pristine 7.3 tree; widen, break, measure:
#                    patched + bench-patches/widen-park-races, break-parking or
#                    measure-parking.patch (what for: its commit message)
#   --config NAME    tools/kernel/configs/base.config + NAME.config for each NAME
#   --target TARGET  make target (default: 'bzImage modules'), e.g. mm/slub.o
#   --w1             build with W=1
#
# KSRC=DIR: that tree as it is (variant own).  Prints the build directory,
# $SLABPARK_CACHE/build/<version>-<variant>-<config>-<hash>, built again
# only when its tree, config or target changed (ccache if installed).

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	sed -n '/^# Usage:/,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

variant=patched
[ "${PATCHES:-}" != none ] || variant=base
config=
target="bzImage modules"
w1=
while [ $# -gt 0 ]; do
	case "$#:$1" in
	1:--variant | 1:--config | 1:--target) usage ;;
	*:--variant) variant=$2 && shift ;;
	*:--config) config=$2 && shift ;;
	*:--target) target=$2 && shift ;;
	*:--w1) w1=1 ;;
	*) usage ;;
	esac
	shift
done
case "$variant" in
patched | series | base) bench= ;;
widen | break | measure) bench=1 ;;
*) usage ;;
esac

configs=$SLABPARK_TOP/tools/kernel/configs
frags=("$configs/base.config")
IFS=+ read -ra extra <<<"$config"
for c in "${extra[@]}"; do
	[ -f "$configs/$c.config" ] ||
		sp_die "unknown config '$c' (no tools/kernel/configs/$c.config)"
	frags+=("$configs/$c.config")
done
cfgname=${config:-base}

sp_need_cmds make gcc flex bison bc git

# the bench-only patch of each variant, never in patches/
declare -A BENCH=([patched]=park-switch [widen]=widen-park-races [break]=break-parking
	[measure]=measure-parking)

bench_branch() {
	local patch=$SLABPARK_TOP/tools/kernel/bench-patches/${BENCH[$1]}.patch
	sp_branch "$src" "slabpark-$1" "$2" slabparkBench \
		"$(git -C "$src" rev-parse "$2")-$(sp_hash_files "$patch")" "$patch"
}

src=$("$SLABPARK_TOP/tools/kernel/kernel-src.sh")
ver=$(make -s -C "$src" kernelversion)
[ -z "${KSRC:-}" ] || variant=own bench=
cfghash=$(sp_hash_files "${frags[@]}")
bdir=$SLABPARK_CACHE/build/$ver-$variant-${cfgname//+/-}-$cfghash
[ -z "${KSRC:-}" ] || bdir=$bdir-$(echo "$src" | sha256sum | cut -c1-8)
# a bench variant differs from patched in mm/ alone: its first build
# starts from a copy of patched's, which kbuild rebuilds and relinks
pdir=$SLABPARK_CACHE/build/$ver-patched-${cfgname//+/-}-$cfghash
# one build at a time per tree (the tree is checked out per variant), the seeding too
exec 9>"$src/.slabpark-lock"
flock 9
if [ -n "$bench" ] && [ ! -d "$bdir" ] && [ -f "$pdir/arch/x86/boot/bzImage" ]; then
	sp_stage "seeding $bdir from $pdir"
	cp -a "$pdir" "$bdir.tmp"
	rm -rf "$bdir.tmp/slabpark.stamp" "$bdir.tmp/slabpark-stage" "$bdir.tmp/slabpark-module"
	mv "$bdir.tmp" "$bdir"
fi
mkdir -p "$bdir" "$SLABPARK_LOGDIR"

treeid="own:$(date +%s)"	# KSRC: kbuild decides
if [ -z "${KSRC:-}" ] && [ "$variant" = base ]; then
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" checkout -q -f base
elif [ -z "${KSRC:-}" ]; then
	sp_apply_series "$src"
	[ "$variant" = series ] || bench_branch patched slabpark
	[ -z "$bench" ] || bench_branch "$variant" slabpark-patched
fi
[ -n "${KSRC:-}" ] || treeid=$(git -C "$src" rev-parse 'HEAD^{tree}')

want="tree=$treeid cfg=$cfghash target=$target w1=$w1"
if grep -qsxF "$want" "$bdir/slabpark.stamp" &&
	{ [[ $target != *bzImage* ]] || [ -f "$bdir/arch/x86/boot/bzImage" ]; }; then
	sp_stage "kernel $ver ($variant, $cfgname, $target) up to date in $bdir"
	echo "$bdir"
	exit 0
fi

# a fragment may name another architecture: "# slabpark-arch: i386"
arch=$(sed -n 's/^# slabpark-arch: *//p' "${frags[@]}" | tail -n 1)
arch=${arch:-x86_64}
makeargs=(-C "$src" O="$bdir" ARCH="$arch" -j"$(sp_jobs)")
! sp_use_ccache || makeargs+=(CC="ccache gcc")

cfgstamp=$bdir/slabpark.config-hash
if [ ! -f "$bdir/.config" ] || [ "$(cat "$cfgstamp" 2>/dev/null)" != "$cfghash" ]; then
	sp_stage "configuring $ver ($variant, $cfgname): allnoconfig +" \
		"$(basename -a "${frags[@]}" | tr '\n' ' ')"
	cat "${frags[@]}" >"$bdir/slabpark.fragment"
	# merge_config.sh warns of each requested value not in the final
	# .config (a missing dependency): each fails the build here
	sp_run_logged "$bdir/config.log" "kernel configuration (scripts/kconfig/merge_config.sh)" \
		env -C "$src" ARCH="$arch" scripts/kconfig/merge_config.sh -n -Q -O "$bdir" \
		"${frags[@]}"
	bad=$(sed -n '/^WARNING: .*\(not in final\|differs\)/{n;s/^Requested value: //p}' \
		"$bdir/config.log")
	[ -z "$bad" ] || sp_die "Kconfig dropped requested options (missing dependencies?):" \
		"$(echo "$bad" | tr '\n' ' ')(log: $bdir/config.log)"
	echo "$cfghash" >"$cfgstamp"
fi

log=$bdir/build.log
sp_stage "building $ver ($variant, $cfgname): make $target${w1:+ W=1} (log: $log)"
# shellcheck disable=SC2086 # $target is a word list on purpose
sp_run_logged "$log" "kernel build ($variant, $cfgname, $target)" \
	make "${makeargs[@]}" ${w1:+W=1} $target
echo "$want" >"$bdir/slabpark.stamp"
sp_stage "built $ver ($variant, $cfgname) in $bdir"
echo "$bdir"
