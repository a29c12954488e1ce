#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# slab-dump.sh [-r RESULTS] CACHE... >DUMP: a plain dump of
# /sys/kernel/slab/<cache>/ and the series' debugfs park/parked for python3
# -m slabpark slabstat (the format: Documentation/dev-tools/slabstat.rst);
# -r copies a "key: value" file in as @result lines.  SYSFS and PROC read
# a fixture tree instead.  Exit status: 0 ok, 1 error, 2 usage.

set -eu

SYSFS=${SYSFS:-/sys}
PROC=${PROC:-/proc}
NL='
'

die() {
	echo "slab-dump: $1" >&2
	exit "${2:-1}"
}

usage() {
	echo "usage: slab-dump.sh [-r RESULTS] CACHE... (a dump of /sys/kernel/slab/CACHE/ on stdout)" >&2
	exit 2
}

# no_such_cache NAME: exit 1 with the names that share its first 4
# characters or contain it
no_such_cache() {
	nsc_dir=$SYSFS/kernel/slab
	nsc_pre=$(printf '%.4s' "$1")
	nsc_hits=
	for nsc_f in "$nsc_dir"/*; do
		nsc_n=${nsc_f##*/}
		case $nsc_n in
		:*) continue ;;
		"$nsc_pre"* | *"$1"*) nsc_hits="$nsc_hits${nsc_hits:+, }$nsc_n" ;;
		esac
	done
	[ -n "$nsc_hits" ] || die "no cache '$1' in $nsc_dir (and no similar names)"
	die "no cache '$1' in $nsc_dir; close names: $nsc_hits"
}

# values: "CACHE ATTR MODE PATH" lines in, "CACHE ATTR MODE VALUE" out
# (the first line of PATH); @ lines pass.  One awk: a fork a file and the
# shell's read, a system call a byte, are slow under TCG.
values() {
	awk '/^@/ { print; next }
	{
		p = $0
		sub(/^[^ ]* [^ ]* [^ ]* /, "", p)
		v = ""
		if ((getline v <p) <= 0)
			v = ""
		close(p)
		print $1 " " $2 " " $3 " " v
	}'
}

check_cache() {
	cc_d=$SYSFS/kernel/slab/$1
	if [ -L "$cc_d" ]; then
		cc_t=$(readlink "$cc_d")
		die "cache '$1' is an alias of the merged cache '${cc_t##*/}' ($cc_d -> $cc_t): its counters are shared with every cache merged into '${cc_t##*/}'; boot with slab_nomerge or create the cache with SLAB_NO_MERGE"
	fi
	[ -e "$cc_d" ] || no_such_cache "$1"
	[ -d "$cc_d" ] || die "$cc_d is not a directory"
}

# dump_cache NAME: a line for values (MODE w: a file its owner may write,
# by one find a cache) or @unreadable for each file
dump_cache() {
	dc_d=$SYSFS/kernel/slab/$1
	dc_g=$SYSFS/kernel/debug/slab/$1
	[ -d "$dc_g" ] || dc_g=
	dc_w=$NL$(find "$dc_d" ${dc_g:+"$dc_g"} -maxdepth 1 -type f -perm -200)$NL
	for dc_f in "$dc_d"/* ${dc_g:+"$dc_g/park" "$dc_g/parked"}; do
		[ -f "$dc_f" ] || continue
		dc_a=${dc_f##*/}
		[ "$dc_f" = "$dc_d/$dc_a" ] || dc_a=debugfs/$dc_a
		if [ ! -r "$dc_f" ]; then
			echo "@unreadable $1 $dc_a"
			continue
		fi
		dc_m=r
		case $dc_w in *"$NL$dc_f$NL"*) dc_m=w ;; esac
		echo "$1 $dc_a $dc_m $dc_f"
	done
}

results=
while [ $# -gt 0 ]; do
	case $1 in
	-r) [ $# -ge 2 ] || usage; results=$2; shift 2 ;;
	-*) echo "slab-dump: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
seen=$NL
for c in "$@"; do
	case $c in
	'' | .* | @* | */* | *' '* | *"	"*) die "invalid cache name '$c'" ;;
	esac
	case $seen in *"$NL$c$NL"*) die "cache '$c' given twice" ;; esac
	seen=$seen$c$NL
done
if [ -n "$results" ] && { [ ! -f "$results" ] || [ ! -r "$results" ]; }; then
	die "cannot read results file $results"
fi
[ -d "$SYSFS/kernel/slab" ] || die "cannot open $SYSFS/kernel/slab (is this a SLUB kernel with CONFIG_SYSFS?)"
for c in "$@"; do
	check_cache "$c"
done

echo "@slab-dump 1"
up=
{ read -r up _ </proc/uptime || :; } 2>/dev/null
[ -z "$up" ] || echo "@mono $up"
sed -n 's/^cpu[0-9]/@stat &/p' "$PROC/stat" 2>/dev/null ||
	echo "slab-dump: warning: cannot read $PROC/stat; no idle figures" >&2
for c in "$@"; do
	dump_cache "$c"
done | values
nd=$SYSFS/devices/system/node
if [ -d "$nd" ]; then
	for n in "$nd"/node[0-9]*; do
		[ -r "$n/cpulist" ] || continue
		# cat: busybox's read gets nothing from the cpulist files
		echo "@node ${n##*/node} $(cat "$n/cpulist")"
	done
else
	echo "@nonuma"
fi
k=$(cat "$PROC/sys/kernel/osrelease" 2>/dev/null) || k=$(uname -r)
echo "@kernel $k"
echo "@time $(date -u '+%s %Y-%m-%dT%H:%M:%SZ')"
[ -z "$results" ] || awk '{ print "@result " $0 }' "$results"
echo "@end"
