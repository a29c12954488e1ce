#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# install-kselftest.sh KSRC DEST [KDIR]: a run_kselftest.sh layout in DEST
# with the slub_park collection built against KDIR, as an in-tree 'make
# install' makes it; the C checker static unless USERLDFLAGS is set.
set -eu

[ $# = 2 ] || [ $# = 3 ] || { echo "usage: $0 KSRC DEST [KDIR]" >&2; exit 2; }
KSRC=$1
KDIR=${3:-/lib/modules/$(uname -r)/build}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -f "$KDIR/Module.symvers" ] || { echo "$0: $KDIR is not a kernel build" >&2; exit 1; }
mkdir -p "$2/kselftest" "$2/slub_park"
DEST=$(cd "$2" && pwd)
cp "$KSRC/tools/testing/selftests/run_kselftest.sh" "$DEST/"
for f in runner.sh ktap_helpers.sh prefix.pl module.sh; do
	cp "$KSRC/tools/testing/selftests/kselftest/$f" "$DEST/kselftest/"
done
# built outside the source dir: a static build for the guest never
# clobbers a host build there
BUILD=$(mktemp -d "${TMPDIR:-/tmp}/slub_park_build.XXXXXX")
trap 'rm -rf "$BUILD"' EXIT
make -s -C "$HERE" KSRC="$KSRC" KDIR="$KDIR" OUTPUT="$BUILD" \
	USERLDFLAGS="${USERLDFLAGS--static}" INSTALL_PATH="$DEST/slub_park" install
touch "$DEST/kselftest-list.txt"
grep -v '^slub_park:' "$DEST/kselftest-list.txt" > "$BUILD/list" || true
make -s --no-print-directory -C "$HERE" KSRC="$KSRC" OUTPUT="$BUILD" \
	COLLECTION=slub_park emit_tests >> "$BUILD/list"
cat "$BUILD/list" > "$DEST/kselftest-list.txt"
echo "$0: installed slub_park into $DEST (run: $DEST/run_kselftest.sh -c slub_park)"
