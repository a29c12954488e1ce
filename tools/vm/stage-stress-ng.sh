#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lay out Debian's stress-ng for the guest: bin/stress-ng and every shared
# library it loads (ldd), the dynamic loader among them, under one
# directory; print it.  The guest runs it as
#   DIR/lib/ld-linux-x86-64.so.2 --library-path DIR/lib DIR/bin/stress-ng
# (tools/guest/guest-workloads.sh), so that the busybox initramfs needs no
# /lib.  Staged only by make run WORKLOAD=mmapaddr: about 40 MB.
#
# Usage: tools/vm/stage-stress-ng.sh

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }
sng=$(command -v stress-ng) || sp_die "stress-ng is missing (apt-get install stress-ng, or python3 -m slabpark deps)"
dir=$SLABPARK_CACHE/stress-ng-stage
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib"
cp "$sng" "$dir/bin/"
sp_copy_libs "$dir/lib" "$sng"
echo "$dir"
