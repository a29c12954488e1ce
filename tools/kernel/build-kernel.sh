#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a guest kernel (or one object of it) and print the build directory.
#
# Usage: tools/kernel/build-kernel.sh [--variant patched|series|base|...]
#                              [--config NAME] [--target TARGET] [--w1]
#
#   --variant patched   base + patches/series + the bench-only
#                       tools/kernel/bench-patches/park-switch.patch (the
#                       per-cache park switch and parked count in debugfs,
#                       which the bench and the tests use); the default
#                       (PATCHES=none means base)
#   --variant series    base + patches/series alone, what is sent (the
#                       build matrix)
#   --variant base      the pristine 7.3 tree
#   --variant upto<N>   base + the first N patches of the series (e.g. the
#                       no-functional-change patch alone, to compare it)
#   --variant widen     patched + tools/kernel/bench-patches/widen-park-races.patch,
#                       bench-only delays that widen the parking races
#                       (slub_widen_races=1); never in patches/
#   --variant break     patched + tools/kernel/bench-patches/break-parking.patch,
#                       bench-only switches that break parking on purpose
#                       (slub_break_parking=), to see the tests fail
#   --variant measure   patched + tools/kernel/bench-patches/measure-parking.patch,
#                       bench-only counters (free objects per unparked slab,
#                       refill scan length, waits by transition, re-adds)
#                       and park mode 3 (the partial -> empty small form),
#                       for MEASURE=1
#   --config NAME       tools/kernel/configs/base.config plus tools/kernel/configs/NAME.config
#                       for each '+'-separated NAME (e.g. debug, lockstat,
#                       numa-off); default: just base
#   --target TARGET     make target (default: 'bzImage modules'); e.g. mm/slub.o
#   --w1                build with W=1 (used for the per-patch warning checks)
#
# With KSRC=/path the user's tree is built as is (variant 'own').
# Output lives in $SLABPARK_CACHE/build/<version>-<variant>-<config>-<hash>,
# keyed by kernel version, config content and variant; a stamp records the
# source tree id so an unchanged tree is not rebuilt, and a changed patch
# only rebuilds what kbuild must.  ccache is used when installed.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

usage() {
	sed -n '/^# Usage:/,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

variant=patched
[ "${PATCHES:-}" = none ] && variant=base
config=
target="bzImage modules"
w1=
while [ $# -gt 0 ]; do
	case "$1" in
	--variant) [ $# -ge 2 ] || usage; variant=$2; shift 2 ;;
	--config) [ $# -ge 2 ] || usage; config=$2; shift 2 ;;
	--target) [ $# -ge 2 ] || usage; target=$2; shift 2 ;;
	--w1) w1=1; shift ;;
	*) usage ;;
	esac
done
case "$variant" in patched|series|base|widen|break|measure|upto[0-9]*) ;; *) usage ;; esac

frags=("$SLABPARK_TOP/tools/kernel/configs/base.config")
cfgname=base
if [ -n "$config" ]; then
	IFS=+ read -r -a extra <<<"$config"
	for c in "${extra[@]}"; do
		[ -f "$SLABPARK_TOP/tools/kernel/configs/$c.config" ] ||
			sp_die "unknown config '$c' (no tools/kernel/configs/$c.config)"
		frags+=("$SLABPARK_TOP/tools/kernel/configs/$c.config")
	done
	cfgname=$config
fi

sp_need_cmds make gcc flex bison bc git

# The bench-only patch of each variant (never in patches/): patched is the
# series + park-switch, the others are patched + their own.
BENCH=$SLABPARK_TOP/tools/kernel/bench-patches
declare -A BENCH_PATCH=([patched]=park-switch [widen]=widen-park-races
	[break]=break-parking [measure]=measure-parking)

# bench_branch SRC VARIANT PARENT: check out branch slabpark-VARIANT =
# branch PARENT + the bench-only patch of VARIANT, made again when either
# changed.
bench_branch() {
	local tree=$1 v=$2 parent=$3 patch want have
	patch=$BENCH/${BENCH_PATCH[$v]}.patch
	want="$(git -C "$tree" rev-parse "$parent")-$(sp_hash_files "$patch")"
	have=$(git -C "$tree" config --get "branch.slabpark-$v.slabparkBench" || true)
	if [ "$want" = "$have" ]; then
		git -C "$tree" checkout -q -f "slabpark-$v"
		return
	fi
	git -C "$tree" checkout -q -f -B "slabpark-$v" "$parent"
	if ! git -C "$tree" am -q "$patch" >"$SLABPARK_LOGDIR/git-am-$v.log" 2>&1; then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		git -C "$tree" checkout -q -f slabpark
		sed 's/^/    /' "$SLABPARK_LOGDIR/git-am-$v.log" >&2
		sp_die "$(basename "$patch") does not apply on $parent"
	fi
	git -C "$tree" config "branch.slabpark-$v.slabparkBench" "$want"
}
src=$("$SLABPARK_TOP/tools/kernel/kernel-src.sh")
ver=$(make -s -C "$src" kernelversion)
if [ -n "${KSRC:-}" ]; then
	variant=own
fi

cfghash=$(sp_hash_files "${frags[@]}")
bdir=$SLABPARK_CACHE/build/$ver-$variant-${cfgname//+/-}-$cfghash
[ -n "${KSRC:-}" ] && bdir=$bdir-$(echo "$src" | sha256sum | cut -c1-8)
# The bench variants differ from the patched kernel in mm/ alone: start
# their build directory as a copy of the patched one, so kbuild rebuilds
# what changed and relinks instead of building everything.
bench_variant() {
	case "$variant" in widen|break|measure) return 0 ;; esac
	return 1
}
if bench_variant && [ ! -d "$bdir" ]; then
	pdir=$SLABPARK_CACHE/build/$ver-patched-${cfgname//+/-}-$cfghash
	if [ -f "$pdir/arch/x86/boot/bzImage" ]; then
		sp_stage "seeding $bdir from $pdir"
		cp -a "$pdir" "$bdir.tmp"
		rm -f "$bdir.tmp/slabpark.stamp"
		rm -rf "$bdir.tmp/slabpark-stage" "$bdir.tmp/slabpark-module"
		mv "$bdir.tmp" "$bdir"
	fi
fi
mkdir -p "$bdir" "$SLABPARK_LOGDIR"

# One build at a time per source tree: the tree is checked out per variant.
exec 9>"$src/.slabpark-lock"
flock 9
export SLABPARK_SRC_LOCKED=$src

if [ -z "${KSRC:-}" ]; then
	if [ "$variant" = base ]; then
		"$SLABPARK_TOP/tools/kernel/series.sh" base --tree "$src"
	else
		"$SLABPARK_TOP/tools/kernel/series.sh" apply --tree "$src"
	fi
	if [ "$variant" = patched ] || bench_variant; then
		bench_branch "$src" patched slabpark
	fi
	if bench_variant; then
		bench_branch "$src" "$variant" slabpark-patched
	fi
	if [[ "$variant" == upto* ]]; then
		upto=${variant#upto}
		total=$(git -C "$src" rev-list --count base..slabpark)
		[ "$upto" -le "$total" ] || sp_die "--variant $variant: the series has $total patches"
		git -C "$src" checkout -q --detach "slabpark~$((total - upto))"
	fi
	treeid=$(git -C "$src" rev-parse 'HEAD^{tree}')
else
	treeid="own:$(date +%s)"	# the user's tree: always let kbuild decide
fi

want="tree=$treeid cfg=$cfghash target=$target w1=$w1"
stamp=$bdir/slabpark.stamp
artifact_ok() {
	case "$target" in
	*bzImage*) [ -f "$bdir/arch/x86/boot/bzImage" ] ;;
	*) true ;;
	esac
}
if [ -f "$stamp" ] && grep -qxF "$want" "$stamp" && artifact_ok; then
	sp_stage "kernel $ver ($variant, $cfgname, $target) up to date in $bdir"
	echo "$bdir"
	exit 0
fi

# A fragment may name another architecture: "# slabpark-arch: i386".
arch=x86_64
for f in "${frags[@]}"; do
	a=$(sed -n 's/^# slabpark-arch: *//p' "$f")
	if [ -n "$a" ]; then arch=$a; fi
done
makeargs=(-C "$src" O="$bdir" ARCH="$arch" -j"$(sp_jobs)")
if sp_use_ccache; then
	makeargs+=(CC="ccache gcc")
fi

log=$bdir/build.log
cfgstamp=$bdir/slabpark.config-hash
if [ ! -f "$bdir/.config" ] || [ "$(cat "$cfgstamp" 2>/dev/null)" != "$cfghash" ]; then
	sp_stage "configuring $ver ($variant, $cfgname): allnoconfig + $(basename -a "${frags[@]}" | tr '\n' ' ')"
	cat "${frags[@]}" >"$bdir/slabpark.fragment"
	# The kernel's merge_config.sh: allnoconfig plus the fragments in
	# order (a later one may override an earlier one), then a WARNING for
	# every requested value that is not in the final .config (a missing
	# dependency): each of those fails the build here.
	sp_run_logged "$bdir/config.log" "kernel configuration (scripts/kconfig/merge_config.sh)" \
		env -C "$src" ARCH="$arch" scripts/kconfig/merge_config.sh -n -Q -O "$bdir" "${frags[@]}"
	bad=$(sed -n '/^WARNING: .*\(not in final\|differs\)/{n;s/^Requested value: //p}' \
		"$bdir/config.log")
	[ -z "$bad" ] || sp_die "Kconfig dropped requested options (missing dependencies?): $(echo "$bad" | tr '\n' ' ')(log: $bdir/config.log)"
	echo "$cfghash" >"$cfgstamp"
fi

sp_stage "building $ver ($variant, $cfgname): make $target${w1:+ W=1} (log: $log)"
# shellcheck disable=SC2086 # $target is a word list on purpose
sp_run_logged "$log" "kernel build ($variant, $cfgname, $target)" \
	make "${makeargs[@]}" ${w1:+W=1} $target
echo "$want" >"$stamp"
sp_stage "built $ver ($variant, $cfgname) in $bdir"
echo "$bdir"
