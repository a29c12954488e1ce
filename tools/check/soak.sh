#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 'make soak DURATION=<seconds>': a randomized long run with invariant
# checks (tools/guest/guest-soak.sh) on the patched kernel.  Not part of make check.
#
# Environment:
#   DURATION=600     seconds of stress in the guest (default 600)
#   NO_SHEAVES=0|1   every load with/without sheaves (default: random,
#                    1 in 4 loads without: their frees and allocations
#                    all take the slab slow paths)
#   DEBUG=1          use the debug kernel (tools/kernel/configs/debug.config):
#                    lockdep, KASAN, kmemleak, ... (slower, fewer runs)
#   PATCHES=none     the unpatched base (no parking to toggle)
#   KSRC=/path       your own tree, built as is
#   NODES, CPUS_PER_NODE, KVM   guest shape, as for make run
#
# The guest gets DURATION plus a margin for boot, the last run and the
# final kmemleak scan.  Exit status non-zero on any failed invariant, a
# kernel splat, or a timeout.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"
cd "$SLABPARK_TOP"

DURATION=${DURATION:-600}
DEBUG=${DEBUG:-0}
NODES=${NODES:-2}
CPUS_PER_NODE=${CPUS_PER_NODE:-2}
case "$DURATION" in ''|*[!0-9]*|0) sp_die "DURATION=$DURATION: must be a positive number of seconds" ;; esac
case "$DEBUG" in 0|1) ;; *) sp_die "DEBUG=$DEBUG: must be 0 or 1" ;; esac
case "${NO_SHEAVES:-random}" in 0|1|random) ;; *) sp_die "NO_SHEAVES=$NO_SHEAVES: must be 0, 1 or random" ;; esac

cfg=()
margin=$((300 + DURATION / 10))
if [ "$DEBUG" = 1 ]; then
	cfg=(--config debug)
	margin=$((600 + DURATION / 5))
fi
bdir=$(tools/kernel/build-kernel.sh "${cfg[@]}")
stage=$(tools/vm/stage-guest.sh "$bdir")
stages=()
for e in "$stage"/*; do
	stages+=(--stage "$e:$(basename "$e")")
done
out=$SLABPARK_CACHE/runs/soak-$(date +%Y%m%d-%H%M%S)
sp_stage "soak: ${DURATION}s on $bdir (guest timeout $((DURATION + margin))s, output $out)"

set +e
tools/vm/run-guest.sh --kernel "$bdir" "${stages[@]}" --nodes "$NODES" \
	--cpus-per-node "$CPUS_PER_NODE" --timeout "$((DURATION + margin))" \
	--out "$out" -- tools/guest/guest-soak.sh "$DURATION" "${NO_SHEAVES:-random}"
rc=$?
set -e
line=$(sed -n 's/^SLABPARK-SOAK //p' "$out/console.txt" 2>/dev/null | tail -n 1)
echo "soak: ${line:-no summary from the guest}"
if [ "$rc" != 0 ]; then
	echo "soak: FAILED (run-guest status $rc; console: $out/console.log)" >&2
	exit 1
fi
echo "soak: passed"
