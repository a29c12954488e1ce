#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: tools/kernel/series.sh apply|export [--tree DIR]
#   apply    branch slabpark = base + patches/series (git am), the cover
#            letter in its description
#   export   patches/ again from branch slabpark (git format-patch):
#            after apply, patches/ as it was
# DIR: the bench's tree by default (tools/kernel/kernel-src.sh).

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

PATCHDIR=$SLABPARK_TOP/patches
# "[RFC PATCH v2 n/N]": Hao Li's RFC was the one posting; raise it with each
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

# the cover letter's subject and body, the branch description
cover_description() {
	awk '
		/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; next }
		subj != "" && !body && /^$/ { body = 1; print subj; print ""; next }
		body && /^-- *$/ { exit }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
	' "$PATCHDIR/0000-cover-letter.patch"
}

do_apply() {
	local want patches p log=$SLABPARK_LOGDIR/git-am.log
	want=$(sp_series_hash)
	if [ "$want" = "$(git -C "$tree" config --get branch.slabpark.slabparkSeries)" ] &&
		git -C "$tree" checkout -q slabpark 2>/dev/null; then
		sp_stage "series $want already applied on branch 'slabpark' in $tree"
		return
	fi
	mapfile -t patches < <(sed -n "/^[^#]/s|^|$PATCHDIR/|p" "$PATCHDIR/series")
	for p in "${patches[@]}"; do
		[ -f "$p" ] || sp_die "patches/series names ${p##*/}, which does not exist"
	done
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -f -B slabpark base
	git -C "$tree" clean -q -fdx -e .slabpark-lock
	if ! git -C "$tree" am -q --keep-cr "${patches[@]}" >"$log" 2>&1; then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		git -C "$tree" checkout -q -f base
		git -C "$tree" branch -q -D slabpark
		sed 's/^/    /' "$log" >&2
		sp_die "the series does not apply to base ($tree; git am's log above)"
	fi
	git -C "$tree" config branch.slabpark.description "$(cover_description)"
	git -C "$tree" config branch.slabpark.slabparkSeries "$want"
	sp_stage "applied ${#patches[@]} patch(es) of series $want on branch 'slabpark' in $tree"
}

do_export() {
	local n
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
}

if [ "$1" = export ]; then
	do_export
	exit
fi
# the lock build-kernel.sh builds under, unless the caller holds it: a
# build in progress never sees its sources switched
if [ "${SLABPARK_SRC_LOCKED:-}" != "$tree" ]; then
	exec 9>"$tree/.slabpark-lock"
	flock 9
fi
do_apply
