#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: tools/kernel/series.sh apply|export [--tree DIR]
#   apply    branch slabpark = base + patches/series (git am), the cover
#            letter its description (sp_apply_series, tools/lib.sh)
#   export   patches/ again from branch slabpark (git format-patch):
#            after apply, patches/ as it was
# DIR: the bench's tree by default (tools/kernel/kernel-src.sh).  Shell:
# apply is build-kernel.sh's own sp_apply_series, under the same tree lock.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

PATCHDIR=$SLABPARK_TOP/patches
# "[RFC PATCH v2 n/N]": Hao Li's RFC was the one posting (the versions in
# RESULTS were never posted); raise it with each posting
SUBJECT_PREFIX="RFC PATCH v2"

usage() {
	echo "usage: $0 apply|export [--tree DIR]" >&2
	exit 2
}

case "${1:-}" in apply | export) ;; *) usage ;; esac
case "$#:${2:-}" in
1:) tree=$(KSRC='' "$SLABPARK_TOP/tools/kernel/kernel-src.sh") ;;
3:--tree) tree=$3 ;;
*) usage ;;
esac
git -C "$tree" rev-parse -q --verify 'base^{commit}' >/dev/null 2>&1 ||
	sp_die "$tree has no git branch 'base' (the pristine 7.3 tree)"

if [ "$1" = apply ]; then
	# the lock build-kernel.sh builds under: a build never sees its sources switched
	exec 9>"$tree/.slabpark-lock"
	flock 9
	sp_apply_series "$tree"
	exit
fi
n=$(git -C "$tree" rev-list --count base..slabpark)
[ "$n" -gt 0 ] || sp_die "branch 'slabpark' has no commits on top of base"
git -C "$tree" config --get branch.slabpark.description >/dev/null ||
	sp_die "branch 'slabpark' has no description: write the cover letter with" \
		"'git -C $tree branch --edit-description slabpark'"
rm -f "$PATCHDIR"/*.patch
git -C "$tree" format-patch -q --cover-letter --cover-from-description=auto \
	--subject-prefix="$SUBJECT_PREFIX" --no-signature -o "$PATCHDIR" base..slabpark
(cd "$PATCHDIR" && printf '%s\n' [0-9][0-9][0-9][0-9]-*.patch |
	grep -vx 0000-cover-letter.patch) >"$PATCHDIR/series"
git -C "$tree" config branch.slabpark.slabparkSeries "$(sp_series_hash)"
sp_stage "exported $n patch(es) from 'slabpark' to patches/ (series $(sp_series_hash))"
