#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make soak, as /slabpark/run.sh:  soak.sh DURATION_S [NO_SHEAVES]
# Randomized runs of the module until DURATION_S, reloaded every few runs
# (object size, no_sheaves: NO_SHEAVES, else 1 in 4), park toggled (with
# the park switch), the cache shrunk and its counters read during each;
# after it, state done, error 0, check_after_run; at the end kmemleak.  The last line
# "SLABPARK-SOAK ..." is the host's; exit 1 on any failure.

set -u

DURATION=${1:-600}
NO_SHEAVES=${2:-random}
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

RUNS=0
FAILS=0
MOVED=0
PARKS=0
UNPARKS=0
TOGGLES=0
SHRINKS=0
LOADS=0
now() { cut -d. -f1 /proc/uptime; }
rnd() { echo $(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % $1 )); }
pick() {
	shift "$(rnd $#)"
	echo "$1"
}
load() {
	unload || return 1
	sz=$(pick 32 64 96 96 96 192 512 4096)
	ns=$NO_SHEAVES
	[ "$ns" = random ] && ns=$(pick 0 0 0 1)
	say "load: obj_size=$sz no_sheaves=$ns"
	if ! insmod "$KO" obj_size="$sz" no_sheaves="$ns"; then
		bad "insmod obj_size=$sz no_sheaves=$ns failed"
		dmesg_tail 5
		return 1
	fi
	LOADS=$((LOADS + 1))
}

one_run() {
	left=$1
	CASE_BAD=0
	pl=$(pick cross local balanced)
	[ "$NNODES" -lt 2 ] && pl=local
	an=$(rnd "$NNODES")
	fn=$(( (an + 1) % NNODES ))
	th=$(rnd $((NODE_CPUS * 2 + 1)))
	inf=$(pick 1 4 16 64 64 256 1024 4096)
	b=1
	if [ "$(rnd 3)" = 0 ]; then
		b=$(pick 2 8 16 32 64 256)
		[ "$b" -gt "$inf" ] && b=$inf
	fi
	dur=$(( 500 + $(rnd 4500) ))
	[ $((dur / 1000 + 2)) -gt "$left" ] && dur=$(( left > 2 ? (left - 1) * 1000 : 1000 ))
	sh_=$(rnd 11)
	for kv in "placement $pl" "alloc_node $an" "free_node $fn" "threads $th" \
		  "inflight $inf" "batch $b" "duration_ms $dur" "sample_shift $sh_"; do
		# shellcheck disable=SC2086 # "file value" on purpose
		set -- $kv
		write_file "$DBG/$1" "$2" || { bad "echo $2 > $1: $WERR"; return; }
	done
	what="run $((RUNS + 1)): $pl a$an f$fn threads=$th inflight=$inf batch=$b ${dur}ms shift=$sh_"

	write_file "$SLAB/shrink" 1
	base=$(sum_of "$SLAB/objects")
	p0=-
	if [ "$SWITCH" = 1 ]; then
		p0=$(pick 0 1 2)
		write_file "$PARKDIR/park" "$p0" || bad "echo $p0 > park: $WERR"
	fi
	clear_stat_files "$SLAB"

	if ! write_file "$DBG/run" 1; then
		bad "$what: run: $WERR"
		return
	fi
	RUNS=$((RUNS + 1))
	tg=0
	sk=0
	while [ "$(cat "$DBG/status")" = running ]; do
		sleep "0.$(rnd 5)$(rnd 10)"
		if [ "$SWITCH" = 1 ]; then
			m=$(pick 0 1 2)
			write_file "$PARKDIR/park" "$m" || bad "$what: echo $m > park during the run: $WERR"
			tg=$((tg + 1))
			cat "$PARKDIR/parked" >/dev/null
		fi
		# a list walker that unparks; flushes KASAN's quarantine too
		if [ "$(rnd 4)" = 0 ]; then
			write_file "$SLAB/shrink" 1 || bad "$what: shrink during the run: $WERR"
			sk=$((sk + 1))
		fi
		cat "$SLAB/partial" "$SLAB/objects" "$SLAB/objects_partial" >/dev/null
		grep "^$CACHE " /proc/slabinfo >/dev/null
	done
	TOGGLES=$((TOGGLES + tg))
	SHRINKS=$((SHRINKS + sk))
	st=$(timeout 120 cat "$DBG/wait")
	[ "$st" = "state: done" ] || bad "$what: '$st', want 'state: done'"
	[ "$(rval error)" = 0 ] || bad "$what: error $(rval error)"
	fr=$(rval frees)
	MOVED=$((MOVED + ${fr:-0}))

	check_after_run "$what" "$base"
	PARKS=$((PARKS + PS))
	UNPARKS=$((UNPARKS + US))
	echo "$what: ${fr:-0} frees, park $p0, $tg toggles, $sk shrinks, parked $PS unparked $US (free_add_partial $FAP)$([ "$CASE_BAD" = 0 ] || echo ' FAILED')"
}

echo "# soak: ${DURATION}s, $NNODES nodes, kernel $(uname -r)"
SWITCH=0
if kernel_has_park; then
	SWITCH=1
else
	echo "# no /sys/kernel/debug/slab/<cache>/park: the parking modes are not varied"
fi
[ ! -f "$KML" ] || kml_boot
t0=$(now)
end=$((t0 + DURATION))
load || FAILS=$((FAILS + 1))
while mod_loaded; do
	left=$((end - $(now)))
	[ "$left" -gt 0 ] || break
	one_run "$left"
	# a run that could not be set up or started (one_run returned early) too
	[ "$CASE_BAD" = 0 ] || FAILS=$((FAILS + 1))
	if [ "$(rnd 8)" = 0 ] && [ $((end - $(now))) -gt 5 ]; then
		load || { FAILS=$((FAILS + 1)); break; }
	fi
done
unload || FAILS=$((FAILS + 1))
[ -d "$SLAB" ] && { bad "$SLAB left after rmmod"; FAILS=$((FAILS + 1)); }
leaks=-
if [ -f "$KML" ]; then
	leaks=$(kml_scan "$OUT/kmemleak-soak.txt") || { bad "kmemleak scan failed"; leaks=-; }
	[ "$leaks" = 0 ] || { FAILS=$((FAILS + 1)); head -n 60 "$OUT/kmemleak-soak.txt" | sed 's/^/#   /'; }
fi
say "soak: $RUNS runs in $(( $(now) - t0 ))s"
echo "SLABPARK-SOAK runs=$RUNS loads=$LOADS moved=$MOVED parks=$PARKS unparks=$UNPARKS toggles=$TOGGLES shrinks=$SHRINKS leaks=$leaks failures=$FAILS"
[ "$FAILS" = 0 ] && [ "$RUNS" -gt 0 ]
