# SPDX-License-Identifier: GPL-2.0
"""The guest: a NUMA guest under QEMU with a busybox initramfs whose /init (tools/vm/init)
runs one script, as kunit_kernel.py is kunit's."""

import base64
import contextlib
import io
import itertools
import os
import re
import shlex
import shutil
import signal
import subprocess
import tarfile
import tempfile
import zlib
from collections import namedtuple

from . import check, config, deps

MEM_MIB = 1024      # a node's memory
KILL_AFTER = 10     # s from timeout(1)'s SIGTERM to its SIGKILL
CPIO_ROOT = ['dir /bin 0755 0 0', 'dir /dev 0755 0 0', 'nod /dev/console 0600 0 0 c 5 1',
             'nod /dev/ttyS1 0600 0 0 c 4 65', 'dir /proc 0755 0 0', 'dir /sys 0755 0 0',
             'dir /tmp 1777 0 0', 'slink /bin/sh /bin/busybox 0777 0 0']


class Error(Exception):
    """A bad argument or a missing piece: nothing was booted."""


# -smp's sockets and cores; each node's CPUs ('' none); each node's socket for the distance
# table (11 within, 21 across), None: QEMU's
Topology = namedtuple('Topology', 'sockets cores cpus socket', defaults=[None])


SHAPES = {
    # as the guest numbers them (memory-only nodes last): nodes 0 (CPU 0) and 1 (CPU 1) on
    # socket 0, node 2 (CPUs 2-3) on socket 1, node 3 memory only; a vCPU a package (QEMU's
    # LLC is per package: one split over nodes is a kernel WARNING)
    'cpuless4': Topology(4, 1, ('0', '', '1', '2-3'), (0, 0, 0, 1)),
}


def topology(nodes=2, cpus_per_node=2, shape=None):
    if shape is not None:
        return SHAPES[shape]
    for name, v, most in (('NODES', nodes, config.MAX_NODES),
                          ('CPUS_PER_NODE', cpus_per_node, config.MAX_CPUS_PER_NODE)):
        if not 1 <= v <= most:
            raise Error('%s=%s: must be 1..%d' % (name, v, most))
    c = cpus_per_node
    return Topology(nodes, c, tuple('%d-%d' % (n * c, n * c + c - 1) for n in range(nodes)))


def qemu_argv(kernel, initrd, data, topo, append='', kvm=False):
    """QEMU's command line for the build KERNEL: the console on stdout, the guest's files
    (ttyS1) into DATA."""
    argv = ['qemu-system-x86_64', '-nodefaults', '-nographic', '-no-reboot', '-smp',
            '%d,sockets=%d,cores=%d,threads=1' % (topo.sockets * topo.cores, topo.sockets,
                                                  topo.cores),
            '-m', '%dM' % (len(topo.cpus) * MEM_MIB), '-serial', 'stdio', '-serial',
            'file:' + data, '-kernel', os.path.join(kernel, 'arch/x86/boot/bzImage'),
            '-initrd', initrd, '-accel', *(('kvm', '-cpu', 'host') if kvm else
                                           ('tcg,thread=multi', '-cpu', 'max'))]
    for n, cpus in enumerate(topo.cpus):
        argv += ['-object', 'memory-backend-ram,id=mem%d,size=%dM' % (n, MEM_MIB), '-numa',
                 'node,nodeid=%d%s,memdev=mem%d' % (n, ',cpus=' + cpus if cpus else '', n)]
    s = topo.socket or ()
    for n, m in itertools.combinations(range(len(s)), 2):
        argv += ['-numa', 'dist,src=%d,dst=%d,val=%d' % (n, m, 11 if s[n] == s[m] else 21)]
    # no5lvl with generic KASAN: -cpu max offers LA57, and an interrupt between
    # identify_cpu() and the alternatives' patching sees pgtable_l5_enabled() false: KASAN
    # takes a 5-level direct-map address for a wild access (a 7.3 x86 boot race, ~1 in 20
    # debug boots)
    append = ' ' + append if append else ''
    with contextlib.suppress(OSError), open(os.path.join(kernel, '.config')) as f:
        if 'CONFIG_KASAN_GENERIC=y' in f.read().splitlines():
            append = ' no5lvl' + append
    # no_timer_check: on a loaded host TCG can fail the IO-APIC timer check and panic.
    # loglevel=5 after quiet: WARN, lockdep, KASAN reach the console.  oops=panic: an oops
    # holding list_lock leaves the other vCPUs spinning on it; with panic=-1 and -no-reboot
    # the guest stops
    return argv + ['-append', 'console=ttyS0 panic=-1 oops=panic quiet loglevel=5 '
                   'no_timer_check rdinit=/init' + append]


def source_tree(bdir):
    """The source tree of an O= build ('include <tree>/Makefile'), or None."""
    try:
        with open(os.path.join(bdir, 'Makefile')) as f:
            m = re.search(r'^include (/.*)/Makefile$', f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def cpio_line(guest, path):
    """gen_init_cpio's line of the host's PATH at GUEST."""
    if os.path.islink(path):
        words = ['slink', guest, os.readlink(path), '0777']
    elif os.path.isdir(path):
        words = ['dir', guest, '0755']
    else:
        words = ['file', guest, path, '0755' if os.stat(path).st_mode & 0o111 else '0644']
    if any(c.isspace() for c in ''.join(words)):
        raise Error('%s: a name with white space cannot be staged' % path)
    return ' '.join(words) + ' 0 0'


def staged(stages):
    """{guest path: gen_init_cpio line} of the SRC:DST stages: SRC (a directory with its
    contents) at /slabpark/DST; a later stage wins."""
    tree = {}
    for s in stages:
        src, colon, dst = s.partition(':')
        top = os.path.normpath('/slabpark/' + dst)
        if not colon or not (top + '/').startswith('/slabpark/'):
            raise Error('stage %s: not SRC:DST inside /slabpark' % s)
        if not os.path.exists(src):
            raise Error('stage %s: no such file' % src)
        parts = top.split('/')
        for i in range(2, len(parts)):
            tree['/'.join(parts[:i])] = 'dir %s 0755 0 0' % '/'.join(parts[:i])
        tree[top] = 'dir %s 0755 0 0' % top if os.path.isdir(src) else cpio_line(top, src)
        for d, dirs, files in os.walk(src):
            for p in (os.path.join(d, n) for n in dirs + files):
                g = os.path.normpath(os.path.join(top, os.path.relpath(p, src)))
                tree[g] = cpio_line(g, p)
    return tree


def initramfs(kernel, script, args, dest, stages=(), env=(), listing=None):
    """KERNEL's (a build's) initramfs for SCRIPT ARGS with STAGES (SRC:DST) and the
    script's environment ENV (NAME=VALUE) to DEST; its gen_init_cpio list to LISTING."""
    gen = os.path.join(kernel, 'usr/gen_init_cpio')
    if not os.access(gen, os.X_OK):
        raise Error('no %s (kernel built without BLK_DEV_INITRD?)' % gen)
    if not os.path.isfile(script):
        raise Error('no guest script %s' % script)
    busybox = shutil.which('busybox')
    if not busybox or not deps.static(busybox):
        raise Error('a static busybox is needed (apt-get install busybox-static)')
    assert not any('\n' in t for t in (*args, *env)), 'a line each'
    with tempfile.TemporaryDirectory() as work:
        tree = {'/slabpark': 'dir /slabpark 0755 0 0',
                '/slabpark/run.sh': cpio_line('/slabpark/run.sh', os.path.realpath(script))}
        for name, lines in (('args', args), ('env', env)):
            with open(os.path.join(work, name), 'w') as f:
                f.writelines(t + '\n' for t in lines)
            tree['/slabpark/' + name] = cpio_line('/slabpark/' + name, os.path.join(work, name))
        tree.update(staged(stages))
        listing = listing or os.path.join(work, 'initramfs.list')
        with open(listing, 'w') as f:
            f.writelines(t + '\n' for t in CPIO_ROOT + [
                'file /bin/busybox %s 0755 0 0' % busybox,
                'file /init %s/tools/vm/init 0755 0 0' % check.TOP] +
                [tree[p] for p in sorted(tree)])
        with open(dest, 'wb') as f:
            if subprocess.run([gen, listing], stdout=f, stdin=subprocess.DEVNULL).returncode:
                raise Error('gen_init_cpio failed (list: %s)' % listing)


def stop(p):
    """Stop P's session (QEMU's own): SIGTERM, then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
            p.wait(wait)
            return
        except ProcessLookupError:
            return
        except subprocess.TimeoutExpired:
            pass


def boot(argv, timeout, console, emit):
    """ARGV (QEMU) for at most TIMEOUT seconds (timeout(1)), its output into the file
    CONSOLE and from SLABPARK-GUEST-START on (without CRs) to emit: (its status, whether it
    timed out).  SIGINT, SIGTERM, SIGHUP and an exception of emit stop it."""
    old = {}
    try:
        p = subprocess.Popen(['timeout', '-k', str(KILL_AFTER), str(timeout), *argv],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as e:
        raise Error('%s: %s' % (e.filename or 'timeout', e.strerror))
    try:
        for s in (signal.SIGTERM, signal.SIGHUP):
            old[s] = signal.signal(s, signal.default_int_handler)
        on = False
        with open(console, 'wb') as log:
            for raw in iter(p.stdout.readline, b''):
                log.write(raw)
                log.flush()
                text = raw.decode('utf-8', 'replace').rstrip('\n').removesuffix('\r')
                i = text.rfind('SLABPARK-GUEST-START')
                if i >= 0 and not on:
                    on, text = True, text[i:]
                if on:
                    emit(text)
        p.wait()
    except BaseException:
        stop(p)
        raise
    finally:
        p.stdout.close()
        for s, h in old.items():
            signal.signal(s, h)
    # SIGKILL (-k) reaches timeout(1) too: its group is QEMU's
    return p.returncode, p.returncode in (124, 137, -signal.SIGKILL)


def plain_member(m):
    """what tarfile's 'data' filter (not in Debian 12's 3.11.2) lets through: files,
    directories, symbolic and hard links inside the archive"""
    def inside(name):
        return not os.path.isabs(name) and '..' not in name.split('/')
    link = m.linkname if m.islnk() else os.path.join(
        os.path.dirname(m.name), m.linkname) if m.issym() else ''
    return inside(m.name) and inside(link) and (m.isfile() or m.isdir() or m.issym() or
                                                m.islnk())


def unpack_files(data, dest):
    """The guest's /slabpark/out, base64 between SLABPARK-FILES-BEGIN and -END lines in
    DATA (its ttyS1), unpacked into DEST; False if broken."""
    try:
        with open(data, 'rb') as f:
            text = f.read().decode('ascii', 'replace')
    except OSError:
        return True
    m = re.search('^SLABPARK-FILES-BEGIN.*?$(.*?)(^SLABPARK-FILES-END|\\Z)', text, re.M | re.S)
    if not m:
        return True
    os.makedirs(dest, exist_ok=True)
    try:
        blob = base64.b64decode(''.join(m.group(1).split()), validate=True)
        with tarfile.open(fileobj=io.BytesIO(blob), mode='r:gz') as tar:
            if not all(map(plain_member, tar.getmembers())):
                return False
            tar.extractall(dest, **({'filter': 'data'} if hasattr(tarfile, 'data_filter')
                                    else {}))
    except (ValueError, tarfile.TarError, EOFError, zlib.error, OSError):
        return False
    return True


def problem(lines):
    """(line number, the report) of the first kernel problem in LINES
    (selftests/slub_park/splat.ere; kmemleak's is the debug gate's): to the next
    '---[ end trace' or 60 lines; None when there is none."""
    with open(os.path.join(check.TOP, 'selftests/slub_park/splat.ere')) as f:
        regex = re.compile(f.read().strip())
    for i, t in enumerate(lines):
        if regex.search(t):
            report = lines[i:i + 60]
            end = next((j for j, u in enumerate(report) if '---[ end trace' in u), len(report))
            return i + 1, report[:end + 1]
    return None


def decode(kernel, report):
    """The lines of the file REPORT, through scripts/decode_stacktrace.sh where the build
    has vmlinux and its source tree the script."""
    src = source_tree(kernel) or ''
    dec = os.path.join(src, 'scripts/decode_stacktrace.sh')
    vmlinux = os.path.join(kernel, 'vmlinux')
    if src and os.path.isfile(vmlinux) and os.access(dec, os.X_OK):
        with open(report) as f:
            p = subprocess.run([dec, vmlinux, src], stdin=f, capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            with open(report + '.decoded', 'w') as f:
                f.write(p.stdout)
            return ['(decoded by scripts/decode_stacktrace.sh; raw: %s)' % report] + \
                p.stdout.splitlines()
    with open(report) as f:
        return f.read().splitlines()


def number(text, name):
    if not re.fullmatch('[0-9]+', text or '') or int(text) < 1:
        raise Error('%s: not a positive number: %r' % (name, text))
    return int(text)


def run(kernel, script, args, out, stages=(), nodes=2, cpus_per_node=2, shape=None, env=(),
        append='', timeout=None, emit=print):
    """Boot KERNEL (a build) running SCRIPT ARGS as /slabpark/run.sh with STAGES (SRC:DST),
    the script's environment ENV (NAME=VALUE), NODES x CPUS_PER_NODE vCPUs or SHAPE, kernel
    arguments APPEND, TCG unless KVM=1, for TIMEOUT s (default GUEST_TIMEOUT, 1800); OUT
    (made anew): console.log, console.txt, qemu.cmd, initramfs.list, files/ (the guest's
    /slabpark/out), problem.txt.  Status: 0 ok, 1 the script failed, 2 the kernel reported a
    problem, 3 timeout or no exit marker; the console from SLABPARK-GUEST-START on and the
    verdict to emit."""
    if timeout is None:
        timeout = number(os.environ.get('GUEST_TIMEOUT') or '1800', 'GUEST_TIMEOUT')
    topo = topology(nodes, cpus_per_node, shape)
    bzimage = os.path.join(kernel, 'arch/x86/boot/bzImage')
    if not os.path.isfile(bzimage):
        raise Error('no kernel image %s (build it first)' % bzimage)
    if not shutil.which('qemu-system-x86_64'):
        raise Error('qemu-system-x86_64 is missing (apt-get install qemu-system-x86)')
    if os.path.islink(out):
        os.unlink(out)
    elif os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    console, data = os.path.join(out, 'console.log'), os.path.join(out, 'data.b64')
    kvm = os.environ.get('KVM', '0') == '1'
    with tempfile.TemporaryDirectory() as work:
        initrd = os.path.join(work, 'initramfs.cpio')
        initramfs(kernel, script, args, initrd, stages, env, os.path.join(out, 'initramfs.list'))
        argv = qemu_argv(kernel, initrd, data, topo, append, kvm)
        with open(os.path.join(out, 'qemu.cmd'), 'w') as f:
            f.write(shlex.join(argv) + '\n')
        emit('[%s] booting %d-node %sguest (%d vCPUs, %s): %s (console: %s)' % (
            check.elapsed(), len(topo.cpus), shape + ' ' if shape else '',
            topo.sockets * topo.cores, 'KVM' if kvm else 'TCG',
            ' '.join([os.path.basename(script), *args]), console))
        qrc, timed_out = boot(argv, timeout, console, emit)
    if not unpack_files(data, os.path.join(out, 'files')):
        emit("guest: could not unpack the guest's files (%s)" % data)
    with open(console, 'rb') as f:
        text = f.read().decode('utf-8', 'replace').replace('\r', '')
    with open(os.path.join(out, 'console.txt'), 'w') as f:
        f.write(text)
    lines = text.splitlines()
    found = problem(lines)
    rcs = re.findall('^SLABPARK-GUEST-RC=([0-9]+)', text, re.M)
    if found:
        report = os.path.join(out, 'problem.txt')
        with open(report, 'w') as f:
            f.write('\n'.join(found[1]) + '\n')
        status, verdict = 2, ['guest: FAIL: the kernel reported a problem at console line %d:'
                              % found[0], *decode(kernel, report),
                              'guest: full console: ' + console]
    elif timed_out or not rcs:
        why = 'guest timed out after %ds' % timeout if timed_out else \
            'the guest ended without an exit marker (qemu status %d)' % qrc
        status, verdict = 3, ['guest: FAIL: ' + why, '---- last console lines (%s) ----'
                              % console, *lines[-40:], '----']
    elif rcs[-1] != '0':
        status, verdict = 1, ['guest: FAIL: guest script exited with %s' % rcs[-1]]
    else:
        status, verdict = 0, ['[%s] guest run passed (output in %s)' % (check.elapsed(), out)]
    for t in verdict:
        emit(t)
    return status


def logged(log, what, argv):
    """ARGV with its output into LOG; Error with LOG's tail if it fails."""
    os.makedirs(os.path.dirname(log), exist_ok=True)
    with open(log, 'w') as f:
        rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL).returncode
    if rc:
        with open(log, errors='replace') as f:
            tail = f.read().splitlines()[-30:]
        raise Error('\n'.join(['%s failed; last lines of %s:' % (what, log)] +
                              ['    ' + t for t in tail] + ['full log: ' + log]))


def stage(bdir, emit=print):
    """The guest's /slabpark for the kernel build BDIR, in BDIR/slabpark-stage (its path):
    mm/slub_stress.ko built against it, kunit/ its slub_kunit.ko and kunit.ko if built, bin/
    static bash (make run HOST=1) and mmap_loop, kselftest/, kernel.config, tools/."""
    logs = check.setup_env()['SLABPARK_LOGDIR']
    top = check.TOP
    bdir = os.path.realpath(bdir)
    if not os.path.isfile(os.path.join(bdir, 'Module.symvers')):
        raise Error('%s has no Module.symvers: build the kernel first' % bdir)
    src = source_tree(bdir)
    if not src or not os.path.isdir(os.path.join(src, 'tools/testing/selftests')):
        raise Error('cannot find the source tree of %s' % bdir)
    bash = shutil.which('bash-static')
    if not bash:
        raise Error('bash-static is missing (apt-get install bash-static, or python3 -m '
                    'slabpark deps)')
    st = os.path.join(bdir, 'slabpark-stage')
    shutil.rmtree(st, ignore_errors=True)
    for d in ('mm', 'bin', 'tools'):
        os.makedirs(os.path.join(st, d))
    # kbuild refuses an MO= build while the sources hold an in-tree one
    modout = os.path.join(bdir, 'slabpark-module')
    if os.path.isfile(os.path.join(top, 'modules.order')) or \
            any(f.endswith('.o') for f in os.listdir(os.path.join(top, 'mm'))):
        emit('[%s] removing the in-tree module build of %s (make clean) for the out-of-tree '
             'one' % (check.elapsed(), top))
        subprocess.run(['make', '-s', '-C', bdir, 'M=' + top, 'clean'],
                       stdout=subprocess.DEVNULL, check=True)
    logged(modout + '.log', 'building the stress module against ' + bdir,
           ['make', '-C', bdir, 'M=' + top, 'MO=' + modout, 'modules'])
    logged(os.path.join(logs, 'mmap-loop.log'), 'building mmap_loop (static)',
           ['gcc', '-O2', '-Wall', '-Wextra', '-Werror', '-static', '-o',
            os.path.join(st, 'bin/mmap_loop'), os.path.join(top, 'tools/guest/mmap_loop.c')])
    logged(os.path.join(logs, 'selftest-install.log'), 'building and installing '
           'selftests/slub_park', [os.path.join(top, 'selftests/slub_park/install-kselftest.sh'),
                                   src, os.path.join(st, 'kselftest'), bdir])
    for f, to in ((modout + '/mm/slub_stress.ko', 'mm'), (bash, 'bin/bash'),
                  (bdir + '/.config', 'kernel.config'), (top + '/tools/lib.sh', 'tools'),
                  (top + '/tools/run-host.sh', 'tools')):
        shutil.copy(f, os.path.join(st, to))
    kos = [bdir + '/lib/tests/slub_kunit.ko', bdir + '/lib/kunit/kunit.ko']
    if os.path.isfile(kos[0]):
        os.makedirs(os.path.join(st, 'kunit'))
        for ko in filter(os.path.isfile, kos):
            shutil.copy(ko, os.path.join(st, 'kunit'))
    shutil.copytree(os.path.join(top, 'tools/guest'), os.path.join(st, 'tools/guest'),
                    symlinks=True)
    return st


def copy_libs(dest, *binaries):
    """Every shared library of BINARIES (ldd), the loader among them, into DEST, to run one
    as DEST/ld-linux-x86-64.so.2 --library-path DEST."""
    os.makedirs(dest, exist_ok=True)
    out = subprocess.run(['ldd', *binaries], capture_output=True, text=True, check=True).stdout
    missing = re.findall(r'^\s*(\S+) => not found', out, re.M)
    if missing:
        raise Error('ldd finds no %s for %s' % (', '.join(missing), ' '.join(binaries)))
    for lib in sorted(set(re.findall(r'^\s*(?:\S+ => )?(/\S+) ', out, re.M))):
        shutil.copy(lib, dest)
    if not os.path.isfile(os.path.join(dest, 'ld-linux-x86-64.so.2')):
        raise Error('no ld-linux-x86-64.so.2 among the libraries of ' + ' '.join(binaries))


def stage_stress_ng():
    """Debian's stress-ng (WORKLOAD=mmapaddr) in $SLABPARK_CACHE/stress-ng-stage (its path):
    bin/, and lib/ with the loader that tools/guest/guest-workloads.sh runs it through."""
    sng = shutil.which('stress-ng')
    if not sng:
        raise Error('stress-ng is missing (apt-get install stress-ng, or python3 -m slabpark '
                    'deps)')
    d = os.path.join(check.setup_env()['SLABPARK_CACHE'], 'stress-ng-stage')
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, 'bin'))
    shutil.copy(sng, os.path.join(d, 'bin'))
    copy_libs(os.path.join(d, 'lib'), sng)
    return d
