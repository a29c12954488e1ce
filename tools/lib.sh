# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the slabpark bench scripts: cache layout, stage
# logging with elapsed time, and error reporting that names the log file.
#
# Sourced, never executed.

SLABPARK_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLABPARK_CACHE=${SLABPARK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/slabpark}
SLABPARK_KVER_WANT=${SLABPARK_KVER_WANT:-7.3}
SLABPARK_START=${SLABPARK_START:-$(date +%s)}
export SLABPARK_TOP SLABPARK_CACHE SLABPARK_START

SLABPARK_LOGDIR=${SLABPARK_LOGDIR:-$SLABPARK_CACHE/logs}
export SLABPARK_LOGDIR

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
	[ ${#missing[@]} -eq 0 ] || sp_die "missing commands: ${missing[*]} (run 'tools/install-deps.sh' as root)"
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

# sp_copy_libs DIR BINARY...: every shared library the binaries load (ldd),
# the dynamic loader among them, copied (dereferenced) into DIR; fails
# when the loader is not among them.  For programs run from a kit or an
# initramfs as DIR/ld-linux-x86-64.so.2 --library-path DIR BINARY.
sp_copy_libs() {
	local dir=$1 lib
	shift
	mkdir -p "$dir"
	for lib in $(ldd "$@" | sed -n 's|.*=> \(/[^ ]*\) .*|\1|p; s|^[[:space:]]*\(/[^ ]*\) .*|\1|p' | sort -u); do
		cp -L "$lib" "$dir/"
	done
	[ -f "$dir/ld-linux-x86-64.so.2" ] || sp_die "no ld-linux-x86-64.so.2 among the libraries of $*"
}

sp_jobs() {
	nproc 2>/dev/null || echo 2
}

# sp_use_ccache: set up ccache for a kernel build; false when it is not
# installed.  The caller then adds CC="ccache gcc" to make.
# Depend mode: on a miss, ccache's default modes run the preprocessor
# besides the compiler, which for kernel sources (large headers) made a
# cold build 72% slower than plain gcc (kernel/ and fs/, base config: 223 s
# against 130 s on 2 cores); depend mode hashes the sources and the
# headers listed in the compiler's -MMD output instead: 152 s cold, 18 s
# warm.  Kbuild always passes -Wp,-MMD.
sp_use_ccache() {
	command -v ccache >/dev/null 2>&1 || return 1
	export CCACHE_DIR=${CCACHE_DIR:-$SLABPARK_CACHE/ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	export CCACHE_BASEDIR=$SLABPARK_CACHE
	export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
}

# The park modes a run can have, in report order, with their names: 0-2
# are the series' (the cache's "park" file), 3 exists only on the
# measurement kernel (tools/kernel/bench-patches/measure-parking.patch),
# base is a kernel without the switch.
SP_PARK_MODES="0=off 1=on 2=always 3=on+empty base=base"

# awk functions shared by the report scripts, for a program given as
#   awk -v park_modes="$SP_PARK_MODES" "$SP_AWK_STATS"'...'
# sortvals(s, n, a): the space-separated numbers s into a, ascending,
# padded with zeros to n values (for runs that did not report a row; pass
# 0 for no padding); returns how many.  q(s, n, f): the f-quantile (0,
# 0.25, 0.5, 0.75, 1) by linear interpolation, "" for no values.
# fmt(s, n, p): "median (min-max)" with p decimals, "n/a" for no values.
# modes(order, names): the park modes of park_modes, in report order, into
# order[1..] and names[mode]; returns how many.  mode_name(m): the name of
# park mode m.  sorted_keys(set, out): the keys of set into out[1..],
# ascending; returns how many.
# shellcheck disable=SC2016,SC2034 # awk code; used by the scripts sourcing this
SP_AWK_STATS='
function sortvals(s, n, a,   k, i, j, t) {
	k = split(s, a, " ")
	if (n < k)
		n = k
	for (i = k + 1; i <= n; i++)
		a[i] = 0
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n
}
function q(s, n, f,   a, m, x, i) {
	m = sortvals(s, n, a)
	if (m == 0)
		return ""
	x = 1 + f * (m - 1)
	i = int(x)
	return (i >= m) ? a[m] + 0 : a[i] + (x - i) * (a[i + 1] - a[i])
}
function rnd(x) {
	return x < 0 ? -int(-x + 0.5) : int(x + 0.5)
}
function fmt(s, n, p) {
	if (q(s, n, 0.5) == "")
		return "n/a"
	if (p == 0)
		return sprintf("%d (%d-%d)", rnd(q(s, n, 0.5)), rnd(q(s, n, 0)), rnd(q(s, n, 1)))
	return sprintf("%." p "f (%." p "f-%." p "f)", q(s, n, 0.5), q(s, n, 0), q(s, n, 1))
}
function modes(order, names,   kv, n, i, p) {
	n = split(park_modes, kv, " ")
	for (i = 1; i <= n; i++) {
		split(kv[i], p, "=")
		order[i] = p[1]
		names[p[1]] = p[2]
	}
	return n
}
function sorted_keys(set, out,   n, k, i, j, t) {
	n = 0
	for (k in set)
		out[++n] = k
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (out[j] < out[i]) { t = out[i]; out[i] = out[j]; out[j] = t }
	return n
}
function mode_name(m,   order, names) {
	modes(order, names)
	return (m in names) ? names[m] : m
}
'
export SP_PARK_MODES
