# SPDX-License-Identifier: GPL-2.0
"""The guest: a NUMA guest under QEMU with a busybox initramfs that runs
one script, as tools/testing/kunit/kunit_kernel.py is kunit's.

run() boots a kernel build running SCRIPT as /slabpark/run.sh (its /init
is tools/vm/init); what it writes under /slabpark/out/ comes back in
OUT/files/.  Its console from SLABPARK-GUEST-START on goes to emit, all
of it to OUT/console.log.  TCG unless KVM=1; given up after
GUEST_TIMEOUT seconds (default 1800) unless timeout= says.  Status: 0
ok; 1 the script failed; 2 the kernel reported a problem
(selftests/slub_park/splat.ere; OUT/problem.txt); 3 timeout or no exit
marker.  Bad arguments and missing pieces raise Error.  SIGINT, SIGTERM
and SIGHUP stop QEMU.
"""

import base64
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
import threading
import zlib
from typing import NamedTuple, Optional, Tuple

from . import check, config, deps

MEM_MIB = 1024      # a node's memory


class Error(Exception):
    """A bad argument or a missing piece: nothing was booted."""


class Topology(NamedTuple):
    """-smp's sockets and cores a socket (a thread each); each node's CPUs
    ('' none); each node's socket for the distance table (10 local, 11
    within a socket, 21 across), or None for QEMU's default."""
    sockets: int
    cores: int
    cpus: Tuple[str, ...]
    socket: Optional[Tuple[int, ...]] = None


SHAPES = {
    # 4 nodes, 4 vCPUs, 2 sockets: as the guest numbers them (memory-only
    # nodes last), node 0 (CPU 0) and node 1 (CPU 1) on socket 0
    # (SNC-2-like), node 2 (CPUs 2-3) on socket 1, node 3 memory without
    # CPUs; each vCPU a package of its own (QEMU's LLC is per package:
    # one split over nodes is a kernel WARNING)
    'cpuless4': Topology(4, 1, ('0', '', '1', '2-3'), (0, 0, 0, 1)),
}


def topology(nodes=2, cpus_per_node=2, shape=None):
    """SHAPE's Topology, else NODES sockets of a node of CPUS_PER_NODE
    vCPUs each."""
    if shape is not None:
        if shape not in SHAPES:
            raise Error('shape %s: unknown (%s)' % (shape, ', '.join(SHAPES)))
        return SHAPES[shape]
    if not 1 <= nodes <= config.MAX_NODES:
        raise Error('NODES=%s: must be 1..%d' % (nodes, config.MAX_NODES))
    if not 1 <= cpus_per_node <= config.MAX_CPUS_PER_NODE:
        raise Error('CPUS_PER_NODE=%s: must be 1..%d' % (
            cpus_per_node, config.MAX_CPUS_PER_NODE))
    c = cpus_per_node
    return Topology(nodes, c, tuple('%d-%d' % (n * c, n * c + c - 1)
                                    for n in range(nodes)))


def qemu_argv(bzimage, initrd, data, topo, append='', kvm=False):
    """QEMU's command line: the console on stdout, the guest's files
    (ttyS1) into DATA."""
    argv = ['qemu-system-x86_64', '-nodefaults', '-nographic', '-no-reboot',
            '-smp', '%d,sockets=%d,cores=%d,threads=1' % (
                topo.sockets * topo.cores, topo.sockets, topo.cores),
            '-m', '%dM' % (len(topo.cpus) * MEM_MIB),
            '-serial', 'stdio', '-serial', 'file:' + data,
            '-kernel', bzimage, '-initrd', initrd]
    argv += ['-accel', 'kvm', '-cpu', 'host'] if kvm else \
        ['-accel', 'tcg,thread=multi', '-cpu', 'max']
    for n, cpus in enumerate(topo.cpus):
        argv += ['-object', 'memory-backend-ram,id=mem%d,size=%dM'
                 % (n, MEM_MIB), '-numa', 'node,nodeid=%d%s,memdev=mem%d'
                 % (n, ',cpus=' + cpus if cpus else '', n)]
    s = topo.socket or ()
    for n, m in itertools.combinations(range(len(s)), 2):
        argv += ['-numa', 'dist,src=%d,dst=%d,val=%d'
                 % (n, m, 11 if s[n] == s[m] else 21)]
    # no_timer_check: under TCG on a loaded host the IO-APIC timer check
    # can fail spuriously and panic the boot.  loglevel=5 after quiet:
    # warnings (WARN, lockdep, KASAN) reach the console.  oops=panic: an
    # oops in a kthread that holds a spinlock (a list corruption under
    # list_lock) leaves the other vCPUs spinning on it until the timeout;
    # with panic=-1 and -no-reboot the guest stops at once, the report
    # last on the console.
    return argv + ['-append', 'console=ttyS0 panic=-1 oops=panic quiet '
                   'loglevel=5 no_timer_check rdinit=/init' + append]


def kernel_append(kernel, append=''):
    """APPEND with what KERNEL's configuration needs.  no5lvl with
    generic KASAN: -cpu max offers LA57, and an interrupt between
    identify_cpu() clearing the capabilities and the alternatives'
    patching sees pgtable_l5_enabled() false, so KASAN takes a 5-level
    direct-map address for a wild access (seen once in ~20 debug boots;
    a 7.3 x86 boot race, not a slab one)."""
    a = ' ' + append if append else ''
    try:
        with open(os.path.join(kernel, '.config')) as f:
            if 'CONFIG_KASAN_GENERIC=y' in f.read().splitlines():
                a = ' no5lvl' + a
    except OSError:
        pass
    return a


# ---- the initramfs

def source_tree(bdir):
    """The source tree of an O= build ('include <tree>/Makefile' in its
    Makefile), or None."""
    try:
        with open(os.path.join(bdir, 'Makefile')) as f:
            m = re.search(r'^include (/.*)/Makefile$', f.read(), re.M)
    except OSError:
        return None
    return m.group(1) if m else None


def _entry(path):
    """gen_init_cpio's line of the host's PATH, less the guest path."""
    if os.path.islink(path):
        return 'slink', os.readlink(path), '0777'
    if os.path.isdir(path):
        return 'dir', None, '0755'
    return 'file', path, '0755' if os.stat(path).st_mode & 0o111 else '0644'


def staged(stages):
    """{guest path: (kind, source, mode)} of the SRC[:DST] stages: SRC
    at /slabpark/DST (default its basename); a directory's contents (so
    DIR:. fills /slabpark).  A later stage's file replaces an earlier
    one's."""
    tree = {}
    for s in stages:
        src, colon, dst = s.partition(':')
        if not os.path.exists(src):
            raise Error('stage %s: no such file' % src)
        top = os.path.normpath(os.path.join(
            'slabpark', dst if colon else os.path.basename(src.rstrip('/'))))
        assert top.split('/')[0] == 'slabpark', 'staged outside: ' + s
        parts = top.split('/')
        for i in range(1, len(parts)):
            tree['/'.join(parts[:i])] = ('dir', None, '0755')
        tree[top] = ('dir', None, '0755') if os.path.isdir(src) else \
            _entry(src)
        for d, dirs, files in os.walk(src):
            for name in dirs + files:
                p = os.path.join(d, name)
                tree[os.path.normpath(os.path.join(
                    top, os.path.relpath(p, src)))] = _entry(p)
    return tree


def cpio_list(busybox, tree):
    """gen_init_cpio's list: the root, busybox, /init and TREE."""
    lines = ['dir /bin 0755 0 0', 'dir /dev 0755 0 0',
             'nod /dev/console 0600 0 0 c 5 1',
             'nod /dev/ttyS1 0600 0 0 c 4 65', 'dir /proc 0755 0 0',
             'dir /sys 0755 0 0', 'dir /tmp 1777 0 0',
             'file /bin/busybox %s 0755 0 0' % busybox,
             'slink /bin/sh /bin/busybox 0777 0 0',
             'file /init %s 0755 0 0' % os.path.join(check.TOP,
                                                     'tools/vm/init')]
    for p in sorted(tree):
        kind, src, mode = tree[p]
        if any(c.isspace() for c in p + (src or '')):
            raise Error('%s: a name with white space cannot be staged'
                        % (src or p))
        lines.append(' '.join(x for x in (kind, '/' + p, src, mode, '0 0')
                              if x is not None))
    return lines


def initramfs(kernel, script, args, dest, stages=(), env=(), listing=None):
    """Write KERNEL's (a build directory's) initramfs for SCRIPT ARGS,
    with STAGES (SRC[:DST]) and the guest script's environment ENV
    (NAME=VALUE) to DEST; its gen_init_cpio list to LISTING."""
    gen = os.path.join(kernel, 'usr/gen_init_cpio')
    if not os.access(gen, os.X_OK):
        raise Error('no %s (kernel built without BLK_DEV_INITRD?)' % gen)
    if not os.path.isfile(script):
        raise Error('no guest script %s' % script)
    busybox = shutil.which('busybox')
    if not busybox or not deps.static(busybox):
        raise Error('a static busybox is needed (apt-get install '
                    'busybox-static)')
    assert not any('\n' in t for t in (*args, *env)), 'a line each'
    with tempfile.TemporaryDirectory() as work:
        for name, lines in (('args', args), ('env', env)):
            with open(os.path.join(work, name), 'w') as f:
                f.writelines(t + '\n' for t in lines)
        tree = {'slabpark': ('dir', None, '0755'),
                'slabpark/run.sh': _entry(os.path.realpath(script)),
                'slabpark/args': _entry(os.path.join(work, 'args')),
                'slabpark/env': _entry(os.path.join(work, 'env'))}
        tree.update(staged(stages))
        listing = listing or os.path.join(work, 'initramfs.list')
        with open(listing, 'w') as f:
            f.writelines(t + '\n' for t in cpio_list(busybox, tree))
        with open(dest, 'wb') as f:
            if subprocess.run([gen, listing], stdout=f,
                              stdin=subprocess.DEVNULL).returncode:
                raise Error('gen_init_cpio failed (list: %s)' % listing)


# ---- the boot

def stop(p):
    """Stop P's session (QEMU started in a session of its own): SIGTERM,
    then SIGKILL."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(wait)
            return
        except subprocess.TimeoutExpired:
            pass


def boot(argv, timeout, console, emit):
    """Run ARGV (QEMU) for at most TIMEOUT seconds, its output into the
    file CONSOLE and from SLABPARK-GUEST-START on (without CRs) to emit;
    (its exit status, whether it timed out).  SIGINT, SIGTERM, SIGHUP
    and an exception of emit stop it."""
    old, timer, expired = {}, None, threading.Event()
    try:
        # timeout(1) ends QEMU a little after the timer even when this
        # process is killed (SIGKILL) and cannot stop it
        p = subprocess.Popen(['timeout', '-k', '10', str(int(timeout) + 30),
                              *argv], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    except OSError as e:
        raise Error('%s: %s' % (argv[0], e.strerror))
    try:
        # signal() outside the main thread (no caller) raises ValueError:
        # QEMU is stopped then too
        for s in (signal.SIGTERM, signal.SIGHUP):
            old[s] = signal.signal(s, signal.default_int_handler)
        timer = threading.Timer(timeout, lambda: (expired.set(), stop(p)))
        timer.daemon = True
        timer.start()
        on = False
        with open(console, 'wb') as log:
            for raw in iter(p.stdout.readline, b''):
                log.write(raw)
                log.flush()
                text = raw.decode('utf-8', 'replace').rstrip('\n')
                text = text[:-1] if text.endswith('\r') else text
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
        if timer:
            timer.cancel()
        for s, h in old.items():
            signal.signal(s, h)
    return p.returncode, expired.is_set()


def _plain_member(m):
    """what tarfile's 'data' filter lets through: files, directories and
    links inside the archive, none of them absolute or through .."""
    def inside(name):
        return not os.path.isabs(name) and '..' not in name.split('/')
    if not inside(m.name) or not (m.isfile() or m.isdir() or m.issym()):
        return False
    return not m.issym() or inside(os.path.join(os.path.dirname(m.name),
                                                m.linkname))


def unpack_files(data, dest):
    """The guest's /slabpark/out, base64 between SLABPARK-FILES-BEGIN and
    -END lines in DATA (its ttyS1), unpacked into DEST; False when it is
    there but broken."""
    try:
        with open(data, 'rb') as f:
            lines = f.read().decode('ascii', 'replace').splitlines()
    except OSError:
        return True
    lines = list(itertools.dropwhile(
        lambda t: not t.startswith('SLABPARK-FILES-BEGIN'), lines))
    if not lines:
        return True
    body = itertools.takewhile(
        lambda t: not t.startswith('SLABPARK-FILES-END'), lines[1:])
    os.makedirs(dest, exist_ok=True)
    try:
        blob = base64.b64decode(''.join(t.strip() for t in body),
                                validate=True)
        with tarfile.open(fileobj=io.BytesIO(blob), mode='r:gz') as tar:
            if hasattr(tarfile, 'data_filter'):
                tar.extractall(dest, filter='data')
            elif all(_plain_member(m) for m in tar.getmembers()):
                # Python before 3.11.4 (Debian 12's 3.11.2): no filter=
                tar.extractall(dest)
            else:
                return False
    except (ValueError, tarfile.TarError, EOFError, zlib.error, OSError):
        return False
    return True


def problem(lines):
    """(line number, the report) of the first kernel problem in LINES
    (selftests/slub_park/splat.ere, also the kselftest's; not kmemleak,
    whose pr_info report the console at loglevel=5 never shows: the
    debug gate reads /sys/kernel/debug/kmemleak): from its first line to
    the next '---[ end trace' or 60 lines; None when there is none."""
    with open(os.path.join(check.TOP, 'selftests/slub_park/splat.ere')) as f:
        regex = re.compile(f.read().strip())
    for i, t in enumerate(lines):
        if regex.search(t):
            report = [t]
            for u in lines[i + 1:i + 60]:
                report.append(u)
                if '---[ end trace' in u:
                    break
            return i + 1, report
    return None


def decode(kernel, report):
    """The lines of the report file REPORT through the kernel's
    scripts/decode_stacktrace.sh where the build has vmlinux and its
    source tree the script; else as it is."""
    src = source_tree(kernel) or ''
    dec = os.path.join(src, 'scripts/decode_stacktrace.sh')
    vmlinux = os.path.join(kernel, 'vmlinux')
    if src and os.path.isfile(vmlinux) and os.access(dec, os.X_OK):
        with open(report) as f:
            p = subprocess.run([dec, vmlinux, src], stdin=f,
                               capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            with open(report + '.decoded', 'w') as f:
                f.write(p.stdout)
            return ['(decoded by scripts/decode_stacktrace.sh; raw: %s)'
                    % report] + p.stdout.splitlines()
    with open(report) as f:
        return f.read().splitlines()


def number(text, name):
    if not re.fullmatch('[0-9]+', text or '') or int(text) < 1:
        raise Error('%s: not a positive number: %r' % (name, text))
    return int(text)


def run(kernel, script, args, out, stages=(), nodes=2, cpus_per_node=2,
        shape=None, env=(), append='', timeout=None, emit=print):
    """Boot KERNEL (a build directory) running SCRIPT ARGS with STAGES
    (SRC[:DST]), the guest script's environment ENV (NAME=VALUE), NODES
    x CPUS_PER_NODE vCPUs (or SHAPE), more kernel arguments APPEND;
    console.log, console.txt, qemu.cmd, initramfs.list, files/ (and
    problem.txt) in OUT.  Its status; its messages and console to emit."""
    if timeout is None:
        timeout = number(os.environ.get('GUEST_TIMEOUT') or '1800',
                         'GUEST_TIMEOUT')
    topo = topology(nodes, cpus_per_node, shape)
    bzimage = os.path.join(kernel, 'arch/x86/boot/bzImage')
    if not os.path.isfile(bzimage):
        raise Error('no kernel image %s (build it first)' % bzimage)
    if not shutil.which('qemu-system-x86_64'):
        raise Error('qemu-system-x86_64 is missing (apt-get install '
                    'qemu-system-x86)')
    os.makedirs(out, exist_ok=True)
    for f in ('files', 'initramfs.list', 'console.log', 'console.txt',
              'data.b64', 'problem.txt', 'problem.txt.decoded'):
        p = os.path.join(out, f)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.unlink(p)
    console = os.path.join(out, 'console.log')
    data = os.path.join(out, 'data.b64')
    kvm = os.environ.get('KVM', '0') == '1'
    with tempfile.TemporaryDirectory() as work:
        initrd = os.path.join(work, 'initramfs.cpio')
        initramfs(kernel, script, args, initrd, stages, env,
                  os.path.join(out, 'initramfs.list'))
        argv = qemu_argv(bzimage, initrd, data, topo,
                         kernel_append(kernel, append), kvm)
        with open(os.path.join(out, 'qemu.cmd'), 'w') as f:
            f.write(shlex.join(argv) + '\n')
        emit('[%s] booting %d-node %sguest (%d vCPUs, %s): %s (console: %s)'
             % (check.elapsed(), len(topo.cpus), shape + ' ' if shape else '',
                topo.sockets * topo.cores,
                'KVM' if kvm else 'TCG',
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
    rcs = [m.group(1) for m in map(
        re.compile('SLABPARK-GUEST-RC=([0-9]+)').match, lines) if m]
    if found:
        report = os.path.join(out, 'problem.txt')
        with open(report, 'w') as f:
            f.write('\n'.join(found[1]) + '\n')
        emit('guest: FAIL: the kernel reported a problem at console line '
             '%d:' % found[0])
        for t in decode(kernel, report) + ['guest: full console: ' + console]:
            emit(t)
        return 2
    if timed_out or not rcs:
        emit('guest: FAIL: ' + ('guest timed out after %ds' % timeout
                                if timed_out else 'the guest ended without '
                                'an exit marker (qemu status %d)' % qrc))
        for t in ['---- last console lines (%s) ----' % console] + \
                lines[-40:] + ['----']:
            emit(t)
        return 3
    if rcs[-1] != '0':
        emit('guest: FAIL: guest script exited with %s' % rcs[-1])
        return 1
    emit('[%s] guest run passed (output in %s)' % (check.elapsed(), out))
    return 0


# ---- what the guest needs

def _logged(log, what, argv):
    """Run ARGV with its output into LOG; Error with LOG's last lines
    when it fails."""
    os.makedirs(os.path.dirname(log), exist_ok=True)
    with open(log, 'w') as f:
        rc = subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL).returncode
    if rc:
        with open(log, errors='replace') as f:
            tail = f.read().splitlines()[-30:]
        raise Error('\n'.join(['%s failed; last lines of %s:' % (what, log)] +
                              ['    ' + t for t in tail] +
                              ['full log: ' + log]))


def stage(bdir, emit=print):
    """Build what the guest needs for the kernel of BDIR and lay it out
    as the guest's /slabpark tree in BDIR/slabpark-stage (its path): the
    stress module built against it (mm/), its slub_kunit.ko and kunit.ko
    where it has them (kunit/), static bash (for make run HOST=1) and
    mmap_loop (bin/), the kselftest (kselftest/), its .config
    (kernel.config), and tools/ as here for what the guest runs."""
    logs = check.setup_env()['SLABPARK_LOGDIR']
    top = check.TOP
    bdir = os.path.realpath(bdir)
    if not os.path.isfile(os.path.join(bdir, 'Module.symvers')):
        raise Error('%s has no Module.symvers: build the kernel first' % bdir)
    src = source_tree(bdir)
    if not src or not os.path.isdir(os.path.join(src,
                                                 'tools/testing/selftests')):
        raise Error('cannot find the source tree of %s' % bdir)
    st = os.path.join(bdir, 'slabpark-stage')
    shutil.rmtree(st, ignore_errors=True)
    for d in ('mm', 'bin'):
        os.makedirs(os.path.join(st, d))
    # kbuild refuses an MO= build while the sources hold an in-tree one
    # (a plain 'make' of the module for KDIR): remove that build's outputs
    modout = os.path.join(bdir, 'slabpark-module')
    if os.path.isfile(os.path.join(top, 'modules.order')) or \
            any(f.endswith('.o') for f in os.listdir(os.path.join(top, 'mm'))):
        emit('[%s] removing the in-tree module build of %s (make clean) for '
             'the out-of-tree one' % (check.elapsed(), top))
        subprocess.run(['make', '-s', '-C', bdir, 'M=' + top, 'clean'],
                       stdout=subprocess.DEVNULL, check=True)
    _logged(modout + '.log', 'building the stress module against ' + bdir,
            ['make', '-C', bdir, 'M=' + top, 'MO=' + modout, 'modules'])
    shutil.copy(os.path.join(modout, 'mm/slub_stress.ko'),
                os.path.join(st, 'mm'))
    shutil.copy(os.path.join(bdir, '.config'),
                os.path.join(st, 'kernel.config'))
    if os.path.isfile(os.path.join(bdir, 'lib/tests/slub_kunit.ko')):
        os.makedirs(os.path.join(st, 'kunit'))
        for ko in ('lib/tests/slub_kunit.ko', 'lib/kunit/kunit.ko'):
            if os.path.isfile(os.path.join(bdir, ko)):
                shutil.copy(os.path.join(bdir, ko), os.path.join(st, 'kunit'))
    bash = shutil.which('bash-static')
    if not bash:
        raise Error('bash-static is missing (apt-get install bash-static, '
                    'or python3 -m slabpark deps)')
    shutil.copy(bash, os.path.join(st, 'bin/bash'))
    _logged(os.path.join(logs, 'mmap-loop.log'), 'building mmap_loop (static)',
            ['gcc', '-O2', '-Wall', '-Wextra', '-Werror', '-static', '-o',
             os.path.join(st, 'bin/mmap_loop'),
             os.path.join(top, 'tools/guest/mmap_loop.c')])
    _logged(os.path.join(logs, 'selftest-install.log'),
            'building and installing selftests/slub_park',
            [os.path.join(top, 'selftests/slub_park/install-kselftest.sh'),
             src, os.path.join(st, 'kselftest'), bdir])
    shutil.copytree(os.path.join(top, 'tools/guest'),
                    os.path.join(st, 'tools/guest'), symlinks=True)
    for f in ('lib.sh', 'run-host.sh'):
        shutil.copy(os.path.join(top, 'tools', f), os.path.join(st, 'tools'))
    return st


def copy_libs(dest, *binaries):
    """Every shared library BINARIES load (ldd), the dynamic loader among
    them, copied (dereferenced) into DEST: for running one as
    DEST/ld-linux-x86-64.so.2 --library-path DEST BINARY."""
    os.makedirs(dest, exist_ok=True)
    out = subprocess.run(['ldd', *binaries], capture_output=True, text=True,
                         check=True).stdout
    missing = re.findall(r'^\s*(\S+) => not found', out, re.M)
    if missing:
        raise Error('ldd finds no %s for %s' % (', '.join(missing),
                                                ' '.join(binaries)))
    for lib in sorted(set(re.findall(r'^\s*(?:\S+ => )?(/\S+) ', out, re.M))):
        shutil.copy(lib, dest)
    if not os.path.isfile(os.path.join(dest, 'ld-linux-x86-64.so.2')):
        raise Error('no ld-linux-x86-64.so.2 among the libraries of '
                    + ' '.join(binaries))


def stage_stress_ng():
    """Debian's stress-ng for the guest (make run WORKLOAD=mmapaddr,
    about 40 MB): bin/stress-ng and its libraries in lib/ of
    $SLABPARK_CACHE/stress-ng-stage (its path), which
    tools/guest/guest-workloads.sh runs through lib/'s loader."""
    sng = shutil.which('stress-ng')
    if not sng:
        raise Error('stress-ng is missing (apt-get install stress-ng, or '
                    'python3 -m slabpark deps)')
    d = os.path.join(check.setup_env()['SLABPARK_CACHE'], 'stress-ng-stage')
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, 'bin'))
    shutil.copy(sng, os.path.join(d, 'bin'))
    copy_libs(os.path.join(d, 'lib'), sng)
    return d
