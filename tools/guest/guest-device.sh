#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the device kit (make device-kit): one boot of the many-CPU
# comparison, guest-compare.sh's placements then mmap1 with each of TASKS.
#   guest-device.sh DURATION_MS "TASKS"
# Patched: park=0 and 1, reversed when slabpark_boot=N is odd; base: each
# run twice.

set -eu
# shellcheck source=tools/guest/guest-lib.sh
. "${SLABPARK_DIR:-/slabpark}/tools/guest/guest-lib.sh"

dur=$1 tasks=$2
boot=$(sed -n 's/.*slabpark_boot=\([0-9]*\).*/\1/p' /proc/cmdline)
switch=0
kernel_has_park && switch=1
if [ $switch = 1 ]; then
	runs=1 modes="0 1" wl_modes="0 1"
	[ $((${boot:-0} % 2)) = 0 ] || modes="1 0" wl_modes="1 0"
else
	runs=2 modes="" wl_modes="base base"
fi
echo "# device boot ${boot:-?}: $(grep -c ^processor /proc/cpuinfo) vCPUs, $([ $switch = 1 ] && echo "patched, modes $modes" || echo base)"
sh "$S/tools/guest/guest-compare.sh" "$runs" "$dur" "cross local balanced" 0 "" "$modes"
sh "$S/tools/guest/guest-workloads.sh" mmap1 1 $((dur / 1000)) "$tasks" "$wl_modes"
