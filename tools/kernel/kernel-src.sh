#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Provide a Linux 7.3 source tree and print its path on stdout.
#
#   KSRC=/path   use that tree as it is (it must be a 7.3 tree)
#   otherwise    install Debian's linux-source-7.3 (trixie-backports) and
#                unpack it into $SLABPARK_CACHE/src/linux-<version> as a
#                git repository whose branch 'base' is the pristine tree.
#
# A half-unpacked tree is never reused: the tree is unpacked into a
# temporary directory and renamed into place only when complete.

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

PKG=linux-source-$SLABPARK_KVER_WANT
TARBALL=/usr/src/$PKG.tar.xz
BPO_LIST=/etc/apt/sources.list.d/slabpark-trixie-backports.sources
BPO_PIN=/etc/apt/preferences.d/slabpark-trixie-backports

usage() {
	echo "usage: [KSRC=/path/to/linux] $0" >&2
	exit 2
}
[ $# -eq 0 ] || usage

tree_version() {
	make -s -C "$1" kernelversion 2>/dev/null ||
		sp_die "$1: cannot read the kernel version from its Makefile"
}

check_is_73() {
	local dir=$1 ver
	if [ ! -f "$dir/Makefile" ] || [ ! -f "$dir/mm/slub.c" ]; then
		sp_die "$dir is not a Linux source tree (no Makefile or mm/slub.c)"
	fi
	ver=$(tree_version "$dir")
	case "$ver" in
	"$SLABPARK_KVER_WANT"|"$SLABPARK_KVER_WANT".*) ;;
	*) sp_die "$dir is Linux $ver, not $SLABPARK_KVER_WANT: the series is for $SLABPARK_KVER_WANT" ;;
	esac
	echo "$ver"
}

if [ -n "${KSRC:-}" ]; then
	[ -d "$KSRC" ] || sp_die "KSRC=$KSRC: no such directory"
	KSRC=$(cd "$KSRC" && pwd)
	ver=$(check_is_73 "$KSRC")
	sp_stage "kernel source: $KSRC (Linux $ver, your own tree, used as is)"
	echo "$KSRC"
	exit 0
fi

have_bpo_source() {
	grep -rqsE '(^|[[:space:]])trixie-backports([[:space:]]|$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}

install_linux_source() {
	[ "$(id -u)" = 0 ] ||
		sp_die "$TARBALL is missing; as root run: apt-get install -t trixie-backports $PKG (or set KSRC=/path/to/linux-7.3)"
	command -v apt-get >/dev/null ||
		sp_die "$TARBALL is missing and this is not a Debian system; set KSRC=/path/to/linux-7.3"
	if ! have_bpo_source; then
		sp_stage "adding the trixie-backports source ($BPO_LIST), pinned so that only $PKG comes from it"
		cat >"$BPO_LIST" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		cat >"$BPO_PIN" <<'PIN'
Package: *
Pin: release n=trixie-backports
Pin-Priority: 100
PIN
	fi
	sp_stage "installing $PKG from trixie-backports"
	sp_run_logged "$SLABPARK_LOGDIR/apt-update.log" "apt-get update" apt-get update
	sp_run_logged "$SLABPARK_LOGDIR/apt-linux-source.log" "apt-get install $PKG" \
		env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends -t trixie-backports "$PKG"
	[ -f "$TARBALL" ] || sp_die "$PKG is installed but $TARBALL is missing"
}

[ -f "$TARBALL" ] || install_linux_source
debver=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || echo unknown)
upver=${debver%%-*}
case "$upver" in
"$SLABPARK_KVER_WANT".*) ;;
*) sp_die "$PKG has version $debver, expected $SLABPARK_KVER_WANT.x" ;;
esac

tree=$SLABPARK_CACHE/src/linux-$upver
stamp=$tree/.git/slabpark-base
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$debver" ]; then
	sp_stage "kernel source: $tree (Linux $upver, Debian $PKG $debver, cached)"
	echo "$tree"
	exit 0
fi

mkdir -p "$SLABPARK_CACHE/src" "$SLABPARK_LOGDIR"
# The tree is ~1.6 GB and its git objects ~1 GB more; builds need more.
avail_kb=$(df -Pk "$SLABPARK_CACHE/src" | awk 'NR==2 {print $4}')
[ "${avail_kb:-0}" -ge $((8 * 1024 * 1024)) ] ||
	sp_die "no space in the cache: $SLABPARK_CACHE has $((avail_kb / 1024)) MiB free, the bench needs 8 GiB (set SLABPARK_CACHE)"

rm -rf "$tree" "$SLABPARK_CACHE"/src/.unpack.*
tmp=$(mktemp -d "$SLABPARK_CACHE/src/.unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sp_stage "unpacking $TARBALL ($debver)"
sp_run_logged "$SLABPARK_LOGDIR/unpack.log" "unpacking $TARBALL" \
	tar -C "$tmp" -xJf "$TARBALL"
[ -d "$tmp/$PKG" ] || sp_die "$TARBALL did not contain $PKG/"
ver=$(check_is_73 "$tmp/$PKG")
[ "$ver" = "$upver" ] || sp_die "$TARBALL holds Linux $ver, but the package says $debver"

sp_stage "making $tree a git repository (branch 'base' = pristine $ver)"
git_base() {
	cd "$tmp/$PKG"
	git init -q -b base
	git config user.name "slabpark bench"
	git config user.email "slabpark@localhost"
	git config core.autocrlf false
	git config gc.auto 0
	git add -A -f .
	git commit -q -m "Linux $ver (Debian $PKG $debver)"
	git tag "v$ver-debian"
}
sp_run_logged "$SLABPARK_LOGDIR/git-base.log" "creating the git repository" git_base
echo "$debver" >"$tmp/$PKG/.git/slabpark-base"
mv "$tmp/$PKG" "$tree"
sp_stage "kernel source: $tree (Linux $ver, Debian $PKG $debver)"
echo "$tree"
