#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the slabpark bench needs from Debian's archive.  Does
# nothing when everything is present; as non-root, lists what to install.
#
# Usage: tools/install-deps.sh [--check]

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/lib.sh"

# command -> Debian package
declare -A PKG_OF=(
	[gcc]=build-essential [make]=build-essential [flex]=flex
	[bison]=bison [bc]=bc [cpio]=cpio [xz]=xz-utils [git]=git
	[qemu-system-x86_64]=qemu-system-x86 [busybox]=busybox-static
	[kmod]=kmod [ccache]=ccache [rsync]=rsync [shellcheck]=shellcheck
	[rst2html]=python3-docutils [gnuplot]=gnuplot-nox [perl]=perl
	[python3]=python3 [pahole]=dwarves
	# a static bash for the guest, where make check runs make run HOST=1
	[bash-static]=bash-static
	# make run WORKLOAD=mmapaddr (staged with its libraries)
	[stress-ng]=stress-ng
	# make check's python lint
	[pyflakes3]=pyflakes3 [flake8]=flake8
)
# packages that provide no command we can probe for
HEADER_PKGS=(libelf-dev libssl-dev libc6-dev python3-ply)

usage() {
	echo "usage: $0 [--check]" >&2
	exit 2
}

check_only=0
case "${1:-}" in
'') ;;
--check) check_only=1 ;;
*) usage ;;
esac

missing=()
for c in "${!PKG_OF[@]}"; do
	command -v "$c" >/dev/null 2>&1 || missing+=("${PKG_OF[$c]}")
done
# busybox must be the static one: it runs inside the guest.
if command -v busybox >/dev/null 2>&1 &&
   ! file -L "$(command -v busybox)" 2>/dev/null | grep -q 'statically linked'; then
	if ! dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q 'ok installed'; then
		missing+=(busybox-static)
	fi
fi
for p in "${HEADER_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
command -v file >/dev/null 2>&1 || missing+=(file)

mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u | sed '/^$/d')
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$check_only" = 1 ] || [ "$(id -u)" != 0 ]; then
	echo "slabpark: missing packages: ${missing[*]}" >&2
	echo "slabpark: install them with: apt-get install ${missing[*]}" >&2
	exit 1
fi

sp_stage "installing build dependencies: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$SLABPARK_LOGDIR/apt-deps.log
mkdir -p "$SLABPARK_LOGDIR"
if ! apt-get install -y --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	sp_run_logged "$SLABPARK_LOGDIR/apt-update.log" "apt-get update" apt-get update
	sp_run_logged "$log" "apt-get install ${missing[*]}" \
		apt-get install -y --no-install-recommends "${missing[@]}"
fi
