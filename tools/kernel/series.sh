#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Keep the kernel-side branch and patches/ in step.
#
#   series.sh apply  [--tree DIR] [--branch B]   branch B = base + patches/series (git am)
#   series.sh base   [--tree DIR]                check out the pristine base
#   series.sh export [--tree DIR] [--branch B]   regenerate patches/ from branch B
#                                                with git format-patch
#   series.sh list                               print the patch files in order
#
# DIR defaults to the bench's tree (tools/kernel/kernel-src.sh), B to 'slabpark'.
# The cover letter lives in the branch description, so 'apply' followed
# by 'export' reproduces patches/ exactly.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

PATCHDIR=$SLABPARK_TOP/patches
# The subject prefix of the series sent: "[RFC PATCH v2 n/N]".  The list
# has seen one posting of the mechanism, Hao Li's RFC; the versions of
# this project's own history (RESULTS) were never posted.  Raise the
# version with each posting.
SUBJECT_PREFIX="RFC PATCH v2"
SERIES=$PATCHDIR/series
BASE_REF=base

usage() {
	sed -n 's/^#   //p' "$0" >&2
	exit 2
}

[ $# -ge 1 ] || usage
cmd=$1
shift
tree=
branch=slabpark
while [ $# -gt 0 ]; do
	case "$1" in
	--tree) [ $# -ge 2 ] || usage; tree=$2; shift 2 ;;
	--branch) [ $# -ge 2 ] || usage; branch=$2; shift 2 ;;
	*) usage ;;
	esac
done

series_patches() {
	[ -f "$SERIES" ] || return 0
	local p
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$PATCHDIR/$p" ] || sp_die "patches/series names $p, which does not exist"
		echo "$PATCHDIR/$p"
	done <"$SERIES"
}

cover_letter() {
	local f=$PATCHDIR/0000-cover-letter.patch
	if [ -f "$f" ]; then echo "$f"; fi
}

resolve_tree() {
	if [ -z "$tree" ]; then
		tree=$(KSRC='' "$SLABPARK_TOP/tools/kernel/kernel-src.sh")
	fi
	git -C "$tree" rev-parse --git-dir >/dev/null 2>&1 ||
		sp_die "$tree is not a git repository"
	git -C "$tree" rev-parse -q --verify "$BASE_REF^{commit}" >/dev/null ||
		sp_die "$tree has no '$BASE_REF' branch (the pristine 7.3 tree)"
}

# lock_tree: hold the tree's lock (the one build-kernel.sh builds under)
# while this checks a branch out, so a build in progress never sees its
# sources switched by another make run or make check; SLABPARK_SRC_LOCKED
# names the tree whose lock a caller already holds.
lock_tree() {
	[ "${SLABPARK_SRC_LOCKED:-}" = "$tree" ] && return
	exec 9>"$tree/.slabpark-lock"
	flock 9
}

# Extract subject and body of the cover letter for the branch description.
cover_description() {
	awk '
		/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; next }
		subj != "" && !body && /^$/ { body = 1; print subj; print ""; next }
		body && /^-- *$/ { exit }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
	' "$1"
}

do_apply() {
	local want have p n=0
	resolve_tree
	lock_tree
	want=$(sp_series_hash)
	have=$(git -C "$tree" config --get "branch.$branch.slabparkSeries" || true)
	if [ "$want" = "$have" ] &&
	   git -C "$tree" rev-parse -q --verify "refs/heads/$branch" >/dev/null; then
		git -C "$tree" checkout -q "$branch"
		sp_stage "series $want already applied on branch '$branch' in $tree"
		return
	fi
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -f -B "$branch" "$BASE_REF"
	git -C "$tree" clean -q -fdx -e .slabpark-lock >/dev/null
	while read -r p; do
		[ -n "$p" ] || continue
		n=$((n + 1))
		if ! git -C "$tree" am -q --keep-cr "$p" >"$SLABPARK_LOGDIR/git-am.log" 2>&1; then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			git -C "$tree" checkout -q -f "$BASE_REF"
			git -C "$tree" branch -q -D "$branch" >/dev/null 2>&1 || true
			sed 's/^/    /' "$SLABPARK_LOGDIR/git-am.log" >&2
			sp_die "patch $(basename "$p") does not apply to $BASE_REF ($tree)"
		fi
	done < <(series_patches)
	p=$(cover_letter)
	if [ -n "$p" ]; then
		git -C "$tree" config "branch.$branch.description" "$(cover_description "$p")"
	fi
	git -C "$tree" config "branch.$branch.slabparkSeries" "$want"
	sp_stage "applied $n patch(es) of series $want on branch '$branch' in $tree"
}

do_base() {
	resolve_tree
	lock_tree
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" checkout -q -f "$BASE_REF"
	sp_stage "pristine base checked out in $tree"
}

do_export() {
	local n
	resolve_tree
	n=$(git -C "$tree" rev-list --count "$BASE_REF..$branch")
	[ "$n" -gt 0 ] || sp_die "branch '$branch' has no commits on top of $BASE_REF"
	git -C "$tree" config --get "branch.$branch.description" >/dev/null ||
		sp_die "branch '$branch' has no description: write the cover letter with 'git -C $tree branch --edit-description $branch'"
	mkdir -p "$PATCHDIR"
	rm -f "$PATCHDIR"/*.patch
	git -C "$tree" format-patch -q --cover-letter --cover-from-description=auto \
		--subject-prefix="$SUBJECT_PREFIX" --no-signature -o "$PATCHDIR" "$BASE_REF..$branch"
	local f
	: >"$SERIES"
	for f in "$PATCHDIR"/[0-9][0-9][0-9][0-9]-*.patch; do
		case "$f" in */0000-cover-letter.patch) continue ;; esac
		basename "$f" >>"$SERIES"
	done
	git -C "$tree" config "branch.$branch.slabparkSeries" "$(sp_series_hash)"
	sp_stage "exported $n patch(es) from '$branch' to patches/ (series $(sp_series_hash))"
}

case "$cmd" in
apply) do_apply ;;
base) do_base ;;
export) do_export ;;
list) series_patches ;;
*) usage ;;
esac
