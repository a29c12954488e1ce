# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the bench's bash scripts: the cache layout, progress lines
# with the elapsed time, errors that name their log.

SLABPARK_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLABPARK_CACHE=${SLABPARK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slabpark}
SLABPARK_KVER_WANT=${SLABPARK_KVER_WANT:-7.3}
SLABPARK_START=${SLABPARK_START:-$(date +%s)}
SLABPARK_LOGDIR=${SLABPARK_LOGDIR:-$SLABPARK_CACHE/logs}
export SLABPARK_TOP SLABPARK_CACHE SLABPARK_START SLABPARK_LOGDIR

sp_elapsed() {
	local now
	now=$(date +%s)
	printf '%3dm%02ds' $(((now - SLABPARK_START) / 60)) $(((now - SLABPARK_START) % 60))
}

# One progress line per stage, on stderr so stdout stays machine-readable.
sp_stage() {
	printf '[%s] %s\n' "$(sp_elapsed)" "$*" >&2
}

sp_die() {
	printf 'slabpark: error: %s\n' "$*" >&2
	exit 1
}

# sp_run_logged LOG DESCRIPTION CMD...: run CMD with all output in LOG;
# on failure print the tail of LOG and its path, then exit non-zero.
sp_run_logged() {
	local log=$1 what=$2
	shift 2
	mkdir -p "$(dirname "$log")"
	if ! "$@" >"$log" 2>&1; then
		printf 'slabpark: error: %s failed; last lines of %s:\n' "$what" "$log" >&2
		tail -n 30 "$log" | sed 's/^/    /' >&2
		printf 'slabpark: full log: %s\n' "$log" >&2
		exit 1
	fi
}

sp_need_cmds() {
	local missing=() c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || missing+=("$c")
	done
	[ ${#missing[@]} -eq 0 ] || sp_die "missing commands: ${missing[*]} (as root: PYTHONPATH=tools python3 -m slabpark deps)"
}

sp_hash_files() {
	cat "$@" 2>/dev/null | sha256sum | cut -c1-12
}

# Content hash of the series (patches/series and every patch it names).
sp_series_hash() {
	local series=$SLABPARK_TOP/patches/series files=() p
	[ -f "$series" ] || { echo none; return; }
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		files+=("$SLABPARK_TOP/patches/$p")
	done <"$series"
	sp_hash_files "$series" "${files[@]}"
}

sp_jobs() {
	nproc 2>/dev/null || echo 2
}

# sp_use_ccache: set up ccache for a kernel build (CC="ccache gcc"); false
# when it is not installed.  Depend mode: the default modes also run the
# preprocessor on a miss, which made a cold kernel/ and fs/ build 72%
# slower than gcc (223 s against 130 s on 2 cores); depend mode hashes the
# headers of Kbuild's -Wp,-MMD output instead: 152 s cold, 18 s warm.
sp_use_ccache() {
	command -v ccache >/dev/null 2>&1 || return 1
	export CCACHE_DIR=${CCACHE_DIR:-$SLABPARK_CACHE/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	export CCACHE_BASEDIR=$SLABPARK_CACHE
	export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
}

