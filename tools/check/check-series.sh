#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check that the series applies to the pristine 7.3 tree and that every
# patch builds on its own: mm/ is compiled with W=1 at the base and after
# each patch, and a patch may not add a warning.  The result is cached
# per series content.
#
# Usage: tools/check/check-series.sh

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }

src=$("$SLABPARK_TOP/tools/kernel/kernel-src.sh")
"$SLABPARK_TOP/tools/kernel/series.sh" apply --tree "$src" >&2
ver=$(make -s -C "$src" kernelversion)
series=$(sp_series_hash)
cfghash=$(sp_hash_files "$SLABPARK_TOP/tools/kernel/configs/base.config")
wt=$SLABPARK_CACHE/src/bisect-$ver
bdir=$SLABPARK_CACHE/build/$ver-bisect-base-$cfghash
stamp=$bdir/slabpark-bisect.ok

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$series" ]; then
	echo "series $series: every patch built with W=1 without new warnings (cached)"
	exit 0
fi

if [ ! -d "$wt/.git" ] && [ ! -f "$wt/.git" ]; then
	rm -rf "$wt"
	git -C "$src" worktree prune
	git -C "$src" worktree add -q --detach "$wt" base
fi
mkdir -p "$bdir"

makeargs=(-C "$wt" O="$bdir" ARCH=x86_64 -j"$(sp_jobs)" W=1)
if sp_use_ccache; then
	makeargs+=(CC="ccache gcc")
fi
cat "$SLABPARK_TOP/tools/kernel/configs/base.config" >"$bdir/slabpark.fragment"

# Warnings of one build, without line numbers, so that moved code compares equal.
warnings_of() {
	grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$1" |
		sed -E 's/:[0-9]+:[0-9]+:/:/' | sort -u || true
}

commits=$(git -C "$src" rev-list --reverse base..slabpark)
prev=
i=0
for c in $(git -C "$src" rev-parse base) $commits; do
	subj=$(git -C "$src" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach -f "$c"
	if [ ! -f "$bdir/.config" ]; then
		sp_run_logged "$bdir/config.log" "configuring the bisect build" \
			make "${makeargs[@]}" KCONFIG_ALLCONFIG="$bdir/slabpark.fragment" allnoconfig
	fi
	log=$bdir/build-$i.log
	sp_stage "bisect build $i/$(echo "$commits" | wc -w): $subj"
	# -k: an error shows up in the warning list too
	if ! make "${makeargs[@]}" -k mm/ >"$log" 2>&1; then
		grep -E 'error' "$log" | head -n 20
		echo "FAIL: mm/ does not build at '$subj' (log: $log)"
		exit 1
	fi
	cur=$(warnings_of "$log")
	if [ $i -gt 0 ]; then
		new=$(comm -13 <(echo "$prev") <(echo "$cur") | sed '/^$/d')
		if [ -n "$new" ]; then
			echo "$new"
			echo "FAIL: '$subj' adds W=1 warnings (log: $log)"
			exit 1
		fi
		echo "ok: '$subj' builds mm/ with W=1, no new warnings"
	else
		echo "base: $(echo "$cur" | sed '/^$/d' | wc -l) W=1 warning(s) in mm/ before the series"
	fi
	prev=$cur
	i=$((i + 1))
done
echo "$series" >"$stamp"
