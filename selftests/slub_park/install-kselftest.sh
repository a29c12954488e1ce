#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# install-kselftest.sh KSRC DEST [KDIR]: a run_kselftest.sh layout in DEST
# with the slub_park collection, as 'make install' of KSRC's
# tools/testing/selftests would make for an in-tree one (its runner files,
# the collection built against KDIR, its kselftest-list.txt entries); then
# DEST/run_kselftest.sh -c slub_park.  The C checker is linked statically
# (for a busybox initramfs) unless USERLDFLAGS is set.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 KSRC DEST [KDIR]" >&2
	exit 2
fi
KSRC=$1
DEST=$2
KDIR=${3:-/lib/modules/$(uname -r)/build}
HERE=$(cd "$(dirname "$0")" && pwd)
SELFTESTS=$KSRC/tools/testing/selftests
COLLECTION=slub_park

if [ ! -r "$SELFTESTS/lib.mk" ]; then
	echo "$0: $SELFTESTS/lib.mk not found (KSRC must be a kernel source tree)" >&2
	exit 1
fi
if [ ! -f "$KDIR/Module.symvers" ]; then
	echo "$0: $KDIR is not a kernel build (no Module.symvers)" >&2
	exit 1
fi

mkdir -p "$DEST/kselftest" "$DEST/$COLLECTION"
DEST=$(cd "$DEST" && pwd)

cp "$SELFTESTS/run_kselftest.sh" "$DEST/"
for f in runner.sh ktap_helpers.sh prefix.pl module.sh; do
	cp "$SELFTESTS/kselftest/$f" "$DEST/kselftest/"
done

# Build out of the source dir so that a static build for the guest never
# clobbers a host build there.
BUILD=$(mktemp -d "${TMPDIR:-/tmp}/slub_park_build.XXXXXX")
trap 'rm -rf "$BUILD"' EXIT
make -s -C "$HERE" KSRC="$KSRC" KDIR="$KDIR" OUTPUT="$BUILD" \
	USERLDFLAGS="${USERLDFLAGS--static}" \
	INSTALL_PATH="$DEST/$COLLECTION" install

LIST=$DEST/kselftest-list.txt
touch "$LIST"
grep -v "^$COLLECTION:" "$LIST" > "$BUILD/list" || true
make -s --no-print-directory -C "$HERE" KSRC="$KSRC" OUTPUT="$BUILD" \
	COLLECTION="$COLLECTION" emit_tests >> "$BUILD/list"
cat "$BUILD/list" > "$LIST"
echo "$0: installed $COLLECTION into $DEST (run: $DEST/run_kselftest.sh -c $COLLECTION)"
