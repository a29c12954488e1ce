# SPDX-License-Identifier: GPL-2.0
"""The Debian packages the bench needs (python3 -m slabpark deps, make check's step deps,
make run first): as root the missing ones are installed (the log in $SLABPARK_LOGDIR),
else Missing names them and the apt-get line."""

import os
import shutil
import subprocess
import sys

# command -> Debian package; bash-static: the guest's, where make check runs make run
# HOST=1; stress-ng: make run WORKLOAD=mmapaddr
PKG_OF = {
    'gcc': 'build-essential', 'make': 'build-essential', 'flex': 'flex', 'bison': 'bison',
    'bc': 'bc', 'cpio': 'cpio', 'xz': 'xz-utils', 'git': 'git',
    'qemu-system-x86_64': 'qemu-system-x86', 'busybox': 'busybox-static', 'kmod': 'kmod',
    'ccache': 'ccache', 'rsync': 'rsync', 'shellcheck': 'shellcheck',
    'rst2html': 'python3-docutils', 'gnuplot': 'gnuplot-nox', 'perl': 'perl',
    'python3': 'python3', 'pahole': 'dwarves', 'file': 'file', 'bash-static': 'bash-static',
    'stress-ng': 'stress-ng', 'pyflakes3': 'pyflakes3', 'flake8': 'flake8',
}
# packages without a command to probe for
HEADER_PKGS = ('libelf-dev', 'libssl-dev', 'libc6-dev', 'python3-ply')


class Missing(Exception):
    pass


def installed(pkg):
    """False without dpkg-query (not Debian: the package is named)"""
    return bool(shutil.which('dpkg-query')) and 'ok installed' in subprocess.run(
        ['dpkg-query', '-W', '-f=${Status}', pkg], capture_output=True, text=True).stdout


def static(path):
    return 'statically linked' in subprocess.run(['file', '-L', path], capture_output=True,
                                                 text=True).stdout


def missing():
    out = {pkg for cmd, pkg in PKG_OF.items() if not shutil.which(cmd)}
    bb = shutil.which('busybox')    # the static one: it runs inside the guest
    if bb and shutil.which('file') and not static(bb) and not installed('busybox-static'):
        out.add('busybox-static')
    return sorted(out | {p for p in HEADER_PKGS if not installed(p)})


def apt(args, log):
    with open(log, 'w') as f:
        return subprocess.run(['apt-get', *args], stdout=f, stderr=subprocess.STDOUT,
                              env=dict(os.environ, DEBIAN_FRONTEND='noninteractive')
                              ).returncode == 0


def ensure():
    want = missing()
    if not want:
        return
    line = 'apt-get install ' + ' '.join(want)
    if os.geteuid() != 0:
        raise Missing('missing packages: %s (as root: %s)' % (' '.join(want), line))
    print('slabpark: installing build dependencies: ' + ' '.join(want), flush=True)
    logs = os.environ['SLABPARK_LOGDIR']     # slabpark.check.setup_env
    os.makedirs(logs, exist_ok=True)
    install, log = ['install', '-y', '--no-install-recommends', *want], logs + '/apt-deps.log'
    if not apt(install, log) and not (apt(['update'], logs + '/apt-update.log') and
                                      apt(install, log)):
        raise Missing('%s failed (log: %s)' % (line, log))


def main() -> int:
    try:
        ensure()
    except Missing as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1
    print('build dependencies present')
    return 0
