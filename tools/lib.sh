# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the host scripts: the cache layout, progress lines with the
# elapsed time, errors that name their log.  Shell, not Python: run-host.sh
# sources it in the guest too (no python3 there), build-kernel.sh its git am.

SLABPARK_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLABPARK_CACHE=${SLABPARK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slabpark}
SLABPARK_START=${SLABPARK_START:-$(date +%s)}
SLABPARK_LOGDIR=${SLABPARK_LOGDIR:-$SLABPARK_CACHE/logs}
export SLABPARK_TOP SLABPARK_CACHE SLABPARK_START SLABPARK_LOGDIR

# on stderr: stdout is what a script prints for its caller
sp_stage() {
	local t=$(($(date +%s) - SLABPARK_START))
	printf '[%3dm%02ds] %s\n' $((t / 60)) $((t % 60)) "$*" >&2
}

sp_die() {
	printf 'slabpark: error: %s\n' "$*" >&2
	exit 1
}

# sp_run_logged LOG WHAT CMD...: CMD's output in LOG, its tail if it fails
sp_run_logged() {
	local log=$1 what=$2
	shift 2
	mkdir -p "$(dirname "$log")"
	"$@" >"$log" 2>&1 && return
	printf 'slabpark: error: %s failed; last lines of %s:\n' "$what" "$log" >&2
	tail -n 30 "$log" | sed 's/^/    /' >&2
	printf 'slabpark: full log: %s\n' "$log" >&2
	exit 1
}

sp_need_cmds() {
	local missing=() c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing+=("$c")
	done
	[ ${#missing[@]} -eq 0 ] || sp_die "missing commands: ${missing[*]}" \
		"(as root: PYTHONPATH=tools python3 -m slabpark deps)"
}

sp_hash_files() {
	cat "$@" 2>/dev/null | sha256sum | cut -c1-12
}

# the patches patches/series names, in order, in SP_PATCHES
sp_series() {
	local p
	SP_PATCHES=()
	while read -r p; do
		case $p in '' | '#'*) continue ;; esac
		[ -f "$SLABPARK_TOP/patches/$p" ] || sp_die "patches/series names $p, which does not exist"
		SP_PATCHES+=("$SLABPARK_TOP/patches/$p")
	done <"$SLABPARK_TOP/patches/series"
}

sp_series_hash() {
	sp_series
	sp_hash_files "$SLABPARK_TOP/patches/series" "${SP_PATCHES[@]}"
}

# sp_branch TREE BRANCH PARENT KEY WANT PATCH...: BRANCH checked out, made
# again as PARENT + the PATCHes (git am) unless its git config KEY is WANT
# (SP_MADE=1 if it was made again)
sp_branch() {
	local tree=$1 b=$2 parent=$3 key=branch.$2.$4 want=$5 log=$SLABPARK_LOGDIR/git-am-$2.log p
	shift 5
	if [ "$want" = "$(git -C "$tree" config --get "$key")" ] &&
		git -C "$tree" rev-parse -q --verify "refs/heads/$b" >/dev/null; then
		git -C "$tree" checkout -q "$b"	# no -f: uncommitted edits kept, or git refuses
		SP_MADE=0
		return
	fi
	mkdir -p "$SLABPARK_LOGDIR"
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" config --unset "$key" || true	# a killed run: made again next time
	git -C "$tree" checkout -q -f -B "$b" "$parent"
	git -C "$tree" clean -q -fdx -e .slabpark-lock
	for p; do	# one at a time: none, no git am reading stdin; a failure names its patch
		git -C "$tree" am -q --keep-cr "$p" >"$log" 2>&1 && continue
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		git -C "$tree" checkout -q -f "$parent"
		git -C "$tree" branch -q -D "$b"
		sed 's/^/    /' "$log" >&2
		sp_die "branch $b: patch ${p##*/} does not apply to $parent in $tree (git am above)"
	done
	git -C "$tree" config "$key" "$want"
	SP_MADE=1
}

# sp_apply_series TREE: branch slabpark = base + the series, the cover
# letter its description (from which tools/kernel/series.sh export makes
# it), set only when the branch is made again: an edited one is kept
sp_apply_series() {
	local h
	sp_series
	h=$(sp_series_hash)
	sp_branch "$1" slabpark base slabparkSeries "$h" "${SP_PATCHES[@]}"
	[ "$SP_MADE" = 1 ] || { sp_stage "series $h already applied on branch 'slabpark' in $1"; return; }
	git -C "$1" config branch.slabpark.description "$(awk '
		/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; next }
		subj != "" && !body && /^[ \t]/ { subj = subj $0; next }	# folded
		subj != "" && !body && /^$/ { body = 1; print subj; print ""; next }
		body && /^-- *$/ { exit }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
	' "$SLABPARK_TOP/patches/0000-cover-letter.patch")"
	sp_stage "applied ${#SP_PATCHES[@]} patch(es) of series $h on branch 'slabpark' in $1"
}

sp_jobs() {
	nproc
}

# CC="ccache gcc" for a kernel build, false without ccache.  Depend mode
# (no preprocessor run on a miss): a cold build 152 s, not 223 s.
sp_use_ccache() {
	command -v ccache >/dev/null 2>&1 || return 1
	export CCACHE_DIR=${CCACHE_DIR:-$SLABPARK_CACHE/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	export CCACHE_BASEDIR=$SLABPARK_CACHE
	export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
}
