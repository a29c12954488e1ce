#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# usage: [KSRC=/path/to/linux] tools/kernel/kernel-src.sh
# Prints the path of a Linux 7.3 tree: KSRC as it is, else Debian's
# linux-source-7.3 (trixie-backports; installed as root if missing)
# unpacked into $SLABPARK_CACHE/src/linux-<version>, a git repository whose
# branch 'base' is the pristine tree, renamed into place once complete.
# Shell: build-kernel.sh's first step, in the helpers it shares (lib.sh).

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

KVER=7.3
PKG=linux-source-$KVER
TARBALL=/usr/src/$PKG.tar.xz
BPO_LIST=/etc/apt/sources.list.d/slabpark-trixie-backports.sources
BPO_PIN=/etc/apt/preferences.d/slabpark-trixie-backports

[ $# -eq 0 ] || { echo "usage: [KSRC=/path/to/linux] $0" >&2; exit 2; }

if [ -n "${KSRC:-}" ]; then
	[ -d "$KSRC" ] || sp_die "KSRC=$KSRC: no such directory"
	KSRC=$(cd "$KSRC" && pwd)
	[[ -f $KSRC/Makefile && -f $KSRC/mm/slub.c ]] ||
		sp_die "$KSRC is not a Linux source tree (no Makefile or mm/slub.c)"
	ver=$(make -s -C "$KSRC" kernelversion 2>/dev/null) ||
		sp_die "$KSRC is not a Linux source tree (make kernelversion fails there)"
	[[ $ver == "$KVER" || $ver == "$KVER".* ]] ||
		sp_die "$KSRC is Linux $ver, not $KVER: the series is for $KVER"
	sp_stage "kernel source: $KSRC (Linux $ver, your own tree, used as is)"
	echo "$KSRC"
	exit 0
fi

install_linux_source() {
	[ "$(id -u)" = 0 ] || sp_die "$TARBALL is missing; as root run: apt-get install -t" \
		"trixie-backports $PKG (or set KSRC=/path/to/linux-7.3)"
	command -v apt-get >/dev/null || sp_die "$TARBALL is missing and this is not a Debian" \
		"system; set KSRC=/path/to/linux-7.3"
	if ! grep -rqsE '(^|[[:space:]])trixie-backports([[:space:]]|$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/; then
		sp_stage "adding the trixie-backports source ($BPO_LIST), pinned: only $PKG from it"
		printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
			'Suites: trixie-backports' 'Components: main' \
			'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$BPO_LIST"
		printf '%s\n' 'Package: *' 'Pin: release n=trixie-backports' \
			'Pin-Priority: 100' >"$BPO_PIN"
	fi
	sp_stage "installing $PKG from trixie-backports"
	sp_run_logged "$SLABPARK_LOGDIR/apt-update.log" "apt-get update" apt-get update
	sp_run_logged "$SLABPARK_LOGDIR/apt-linux-source.log" "apt-get install $PKG" \
		env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends -t trixie-backports "$PKG"
}

[ -f "$TARBALL" ] || install_linux_source
debver=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || echo unknown)
ver=${debver%%-*}
[[ $ver == "$KVER".* ]] || sp_die "$PKG has version $debver, expected $KVER.x"

tree=$SLABPARK_CACHE/src/linux-$ver
mkdir -p "$SLABPARK_CACHE/src" "$SLABPARK_LOGDIR"
exec 8>"$SLABPARK_CACHE/src/.unpack-lock"	# one unpack at a time: the next finds it cached
flock 8
if [ "$(cat "$tree/.git/slabpark-base" 2>/dev/null)" = "$debver" ]; then
	sp_stage "kernel source: $tree (Linux $ver, Debian $PKG $debver, cached)"
	echo "$tree"
	exit 0
fi

# the tree ~1.6 GB, its git objects ~1 GB, the builds the rest
avail_kb=$(df -Pk "$SLABPARK_CACHE/src" | awk 'NR == 2 { print $4 }')
[ "${avail_kb:-0}" -ge $((8 * 1024 * 1024)) ] || sp_die "no space in the cache:" \
	"$SLABPARK_CACHE has $((${avail_kb:-0} / 1024)) MiB free, the bench needs 8 GiB (set SLABPARK_CACHE)"
rm -rf "$tree" "$SLABPARK_CACHE"/src/.unpack.*
tmp=$(mktemp -d "$SLABPARK_CACHE/src/.unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
sp_stage "unpacking $TARBALL ($debver)"
sp_run_logged "$SLABPARK_LOGDIR/unpack.log" "unpacking $TARBALL" tar -C "$tmp" -xJf "$TARBALL"

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
