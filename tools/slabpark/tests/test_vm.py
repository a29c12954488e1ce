# SPDX-License-Identifier: GPL-2.0
"""slabpark.vm without booting: runs against a fake QEMU (it prints a console, writes the
files' serial line, sleeps); make device-kit's tree."""

import _ctypes
import base64
import io
import os
import signal
import shutil
import sys
import tarfile
import tempfile
import time
import unittest
from unittest import mock

from slabpark import run, vm

FAKE_QEMU = '''#!/bin/sh
# the fake qemu-system-x86_64 of test_vm
for a; do case $a in file:*) data=${a#file:} ;; esac; done
echo $$ >"$FAKE_PID"
[ -z "$FAKE_DATA" ] || cp "$FAKE_DATA" "$data"
cat "$FAKE_CONSOLE"
[ -z "$FAKE_TRAP" ] || trap '' TERM     # a hung QEMU: timeout(1)'s -k
exec sleep "${FAKE_SLEEP:-0}"
'''

BZ = '/arch/x86/boot/bzImage'
# topology()'s keywords: what QEMU's command line must hold
ARGV = (
    # the 2 x 2 guest of Documentation/dev-tools/slabpark-bench.rst, whole
    ({}, 'qemu-system-x86_64 -nodefaults -nographic -no-reboot -smp 4,sockets=2,cores=2,'
     'threads=1 -m 2048M -serial stdio -serial file:DATA -kernel BZ -initrd RD -accel '
     'tcg,thread=multi -cpu max -object memory-backend-ram,id=mem0,size=1024M -numa '
     'node,nodeid=0,cpus=0-1,memdev=mem0 -object memory-backend-ram,id=mem1,size=1024M '
     '-numa node,nodeid=1,cpus=2-3,memdev=mem1 -append console=ttyS0 panic=-1 oops=panic '
     'quiet loglevel=5 no_timer_check rdinit=/init'),
    ({'nodes': 8, 'cpus_per_node': 1}, '-numa node,nodeid=7,cpus=7-7,memdev=mem7 -append'),
    # the shape wins
    ({'shape': 'cpuless4', 'nodes': 99}, '-smp 4,sockets=4,cores=1,threads=1 -m 4096M'),
    ({'shape': 'cpuless4'}, '-numa node,nodeid=1,memdev=mem1 -object'),
    ({'shape': 'cpuless4'}, '-numa node,nodeid=3,cpus=2-3,memdev=mem3 -numa '
     'dist,src=0,dst=1,val=11 -numa dist,src=0,dst=2,val=11 -numa dist,src=0,dst=3,val=21 '
     '-numa dist,src=1,dst=2,val=11 -numa dist,src=1,dst=3,val=21 -numa '
     'dist,src=2,dst=3,val=21 -append'),
)

# bad arguments of run: its keywords, the refusal
REFUSALS = (
    ({'nodes': 0}, 'NODES=0: must be 1..8'),
    ({'nodes': 9}, 'NODES=9: must be 1..8'),
    ({'cpus_per_node': 33}, 'CPUS_PER_NODE=33: must be 1..32'),
    ({'stages': ['/nonexistent:x']}, 'stage /nonexistent: no such file'),
    ({'script': '/nonexistent'}, 'no guest script /nonexistent'),
)

START = 'SLABPARK-GUEST-START nodes=0-1 cpus=0-3 kernel=7.3.4'
SPLAT = ['------------[ cut here ]------------',
         'WARNING: CPU: 1 PID: 7 at mm/slub.c:100 park+0x1/0x2', 'Call Trace:', ' <TASK>',
         '---[ end trace 0000000000000000 ]---']
PANIC = 'Kernel panic - not syncing: VFS'
# console lines, the status, what it must print, problem.txt's lines
CONSOLES = (
    ('passed', ['SeaBIOS', START, 'ok 1 a', 'SLABPARK-GUEST-RC=0'], 0, 'guest run passed',
     None),
    ('script failed', [START, 'not ok 1 a', 'SLABPARK-GUEST-RC=1'], 1,
     'guest: FAIL: guest script exited with 1', None),
    ('the last marker', [START, 'SLABPARK-GUEST-RC=1', 'SLABPARK-GUEST-RC=0'], 0,
     'guest run passed', None),
    ('kernel problem', [START] + SPLAT + ['after', 'SLABPARK-GUEST-RC=0'], 2,
     'guest: FAIL: the kernel reported a problem at console line 2:', SPLAT),
    ('topology warning', [START, '# warning: topology: one socket', 'SLABPARK-GUEST-RC=0'], 0,
     'guest run passed', None),
    ('no exit marker', [START, 'ok 1 a'], 3,
     'guest: FAIL: the guest ended without an exit marker (qemu status 0)', None),
    ('no start', [PANIC], 2, 'the kernel reported a problem at console line 1:\n%s\nguest: '
     'full console: ' % PANIC, [PANIC]),
)


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, mode)


class ArgvTest(unittest.TestCase):
    def test_argv(self):
        with tempfile.TemporaryDirectory() as k:
            for kw, want in ARGV:
                a = ' '.join(vm.qemu_argv(k, 'RD', 'DATA', vm.topology(**kw)))
                if kw:
                    self.assertIn(want, a, kw)
                else:       # the whole line
                    self.assertEqual(a, want.replace('BZ', k + BZ))
            a = vm.qemu_argv(k, 'RD', 'D', vm.topology(), 'x=1', True)
            self.assertIn('-accel kvm -cpu host', ' '.join(a))
            self.assertTrue(a[-1].endswith('rdinit=/init x=1'))
            write(os.path.join(k, '.config'), 'CONFIG_KASAN_GENERIC=y\n')
            for append, end in (('a=1', 'init no5lvl a=1'), ('', 'init no5lvl')):
                self.assertTrue(vm.qemu_argv(k, 'RD', 'D', vm.topology(),
                                             append)[-1].endswith(end))


class StagedTest(unittest.TestCase):
    def test_tree(self):
        with tempfile.TemporaryDirectory() as d:
            write(os.path.join(d, 's/tools/a.sh'), 'x', 0o755)
            write(os.path.join(d, 's/kernel.config'), 'x')
            os.symlink('a.sh', os.path.join(d, 's/tools/b.sh'))
            write(os.path.join(d, 'one'), 'y')
            write(os.path.join(d, 'two'), 'z')
            tree = vm.staged([d + '/s:.', d + '/one:one', d + '/two:x/y', d + '/two:kernel.config'])
            self.assertEqual(tree, {k: v + ' 0 0' for k, v in {
                '/slabpark': 'dir /slabpark 0755',
                '/slabpark/tools': 'dir /slabpark/tools 0755',
                '/slabpark/tools/a.sh': 'file /slabpark/tools/a.sh %s/s/tools/a.sh 0755' % d,
                '/slabpark/tools/b.sh': 'slink /slabpark/tools/b.sh a.sh 0777',
                '/slabpark/kernel.config': 'file /slabpark/kernel.config %s/two 0644' % d,
                '/slabpark/one': 'file /slabpark/one %s/one 0644' % d,
                '/slabpark/x': 'dir /slabpark/x 0755',
                '/slabpark/x/y': 'file /slabpark/x/y %s/two 0644' % d,
            }.items()})
            write(os.path.join(d, 'a b'), '')
            with self.assertRaisesRegex(vm.Error, 'white space'):
                vm.staged([d + '/a b:x'])
            # a link to a directory: a directory; not outside /slabpark
            os.symlink('s', os.path.join(d, 'l'))
            self.assertEqual(vm.staged([d + '/l:x'])['/slabpark/x'],
                             'dir /slabpark/x 0755 0 0')
            for bad in (d + '/one:../init', d + '/one'):
                with self.assertRaisesRegex(vm.Error, 'inside /slabpark'):
                    vm.staged([bad])


class KitTest(unittest.TestCase):
    def test_copy_libs(self):
        with tempfile.TemporaryDirectory() as d:
            vm.copy_libs(d, sys.executable, _ctypes.__file__)
            self.assertLessEqual({'ld-linux-x86-64.so.2', 'libc.so.6', 'libm.so.6',
                                  'libffi.so.8'}, set(os.listdir(d)))
            write(os.path.join(d, 'bin/ldd'), '#!/bin/sh\necho "\tlibnope.so.1 => not found"\n',
                  0o755)
            with mock.patch.dict(os.environ, PATH=d + '/bin'), \
                    self.assertRaisesRegex(vm.Error, 'ldd finds no libnope.so.1 for /x /y'):
                vm.copy_libs(d, '/x', '/y')

    def test_device_kit(self):
        """the kit's tree, refused over KIT_MAX_MIB or without QEMU"""
        with tempfile.TemporaryDirectory() as d:
            for f in ('build/arch/x86/boot/bzImage', 'qemu', 'tcg.so', 'bios'):
                write(os.path.join(d, f), '')

            def out(cmd, must=True):
                return d + '/build' if 'build-kernel' in cmd[0] else 'x'
            tarball = os.path.join(d, 'kit.tar.xz')
            for qemu, refusal in ((d + '/qemu', tarball + ' is 1 MiB, over 0'),
                                  (None, 'qemu-system-x86_64 is missing')):
                with mock.patch.object(run, '_out', out), \
                        mock.patch.object(run.deps, 'main', return_value=0), \
                        mock.patch.multiple(vm, stage=mock.DEFAULT, initramfs=mock.DEFAULT,
                                            copy_libs=mock.DEFAULT), \
                        mock.patch('shutil.which', return_value=qemu), \
                        mock.patch.multiple(run, QEMU_TCG=d + '/tcg.so',
                                            QEMU_FIRMWARE=[d + '/bios'], KIT_MAX_MIB=0), \
                        self.assertRaisesRegex(run.Failed, refusal):
                    run.device_kit(tarball, False)
            with tarfile.open(tarball) as tar:
                self.assertEqual(sorted(m.name for m in tar if m.isfile()), [
                    'slabpark-kit/' + f for f in (
                        'VERSION', 'base/bzImage', 'patched/bzImage', 'qemu/bin/qemu',
                        'qemu/modules/tcg.so', 'qemu/share/bios', 'run.sh')])


@unittest.skipUnless(shutil.which('busybox'), 'no busybox')
class RunTest(unittest.TestCase):
    """a fake build's gen_init_cpio prints /slabpark/args and env"""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        t = self.tmp
        self.kernel = os.path.join(t, 'build')
        write(os.path.join(self.kernel, 'arch/x86/boot/bzImage'), '')
        write(os.path.join(self.kernel, 'usr/gen_init_cpio'), '#!/bin/sh\nawk \'$2 ~ '
              '/^.slabpark.(args|env)$/ { print $3 }\' "$1" | xargs cat\n', 0o755)
        write(os.path.join(t, 'bin/qemu-system-x86_64'), FAKE_QEMU, 0o755)
        self.script = os.path.join(t, 'guest.sh')
        write(self.script, 'exit 0\n')
        # a link: the script itself goes in, not the link
        os.symlink(self.script, os.path.join(t, 'link.sh'))
        self.out = os.path.join(t, 'out')
        self.pidfile = os.path.join(t, 'pid')
        env = {'PATH': os.path.join(t, 'bin') + ':' + os.environ['PATH'],
               'FAKE_PID': self.pidfile, 'FAKE_CONSOLE': os.path.join(t, 'console'),
               'FAKE_DATA': '', 'FAKE_SLEEP': '0', 'FAKE_TRAP': '', 'KVM': '0'}
        p = mock.patch.dict(os.environ, env)
        p.start()
        self.addCleanup(p.stop)
        self.addCleanup(shutil.rmtree, t)

    def boot(self, console, **kw):
        write(os.environ['FAKE_CONSOLE'], ''.join(t + '\r\n' for t in console))
        self.emitted = []
        kw = dict(dict(timeout=20, emit=self.emitted.append), **kw)
        return vm.run(self.kernel, kw.pop('script', self.tmp + '/link.sh'), ['a', ''],
                      self.out, env=['A=1'], **kw)

    def test_consoles(self):
        for name, console, status, message, report in CONSOLES:
            with self.subTest(name):
                self.assertEqual(self.boot(console), status)
                self.assertIn(message, '\n'.join(self.emitted))
                with open(os.path.join(self.out, 'console.log'), 'rb') as f:
                    self.assertIn(b'\r\n', f.read())
                problem = os.path.join(self.out, 'problem.txt')
                if report:
                    with open(problem) as f:
                        self.assertEqual(f.read().splitlines(), report)
                else:
                    self.assertFalse(os.path.exists(problem))
        # the console from the start line on, without CRs, a step's KTAP
        self.boot(CONSOLES[0][1])
        self.assertEqual(self.emitted[1:4], CONSOLES[0][1][1:])
        with open(os.path.join(self.out, 'initramfs.list')) as f:
            listing = f.read()
        self.assertIn('file /slabpark/run.sh %s 0644 0 0' % self.script, listing)
        for f in ('/init', '/slabpark/args', '/slabpark/env'):
            self.assertIn('file %s ' % f, listing)
        self.assertIn('file /bin/busybox %s 0755 0 0\n' % shutil.which('busybox'), listing)
        names = [t.split()[1] for t in listing.splitlines()]
        for i, n in enumerate(names):       # a directory before its entries
            self.assertIn(os.path.dirname(n), ['/'] + names[:i], n)
        # OUT a link: replaced, not followed
        shutil.rmtree(self.out)
        os.symlink(os.path.join(self.tmp, 'bin'), self.out)
        self.assertEqual(self.boot(CONSOLES[0][1]), 0)
        self.assertFalse(os.path.islink(self.out))

    def test_initramfs(self):
        cpio = os.path.join(self.tmp, 'cpio')
        vm.initramfs(self.kernel, self.script, ['a', '', 'b c'], cpio, env=['A=1', 'B=x y'])
        with open(cpio) as f:
            self.assertEqual(f.read(), 'a\n\nb c\nA=1\nB=x y\n')

    def test_timeout(self):
        os.environ['FAKE_SLEEP'] = '60'
        t0 = time.time()
        console = [START] + ['x%d' % i for i in range(41)]
        self.assertEqual(self.boot(console, timeout=1), 3)
        self.assertLess(time.time() - t0, 15)
        # the console's last 40 lines after the verdict
        self.assertEqual(self.emitted[-43:], [
            'guest: FAIL: guest timed out after 1s',
            '---- last console lines (%s/console.log) ----' % self.out] + console[-40:] + ['----'])
        os.environ['GUEST_TIMEOUT'] = '1'
        self.assertEqual(self.boot([START], timeout=None), 3)
        os.environ['GUEST_TIMEOUT'] = '1s'
        with self.assertRaisesRegex(vm.Error, "GUEST_TIMEOUT: not a positive"):
            self.boot([START], timeout=None)
        # a marker on the console, then deaf to SIGTERM: still a timeout
        os.environ['FAKE_TRAP'] = '1'
        with mock.patch.object(vm, 'KILL_AFTER', 1):
            self.assertEqual(self.boot(CONSOLES[0][1], timeout=1), 3)

    def test_interrupted(self):
        """SIGTERM, SIGHUP and an exception of emit at the start line stop QEMU and give the
        signals their handlers back"""
        os.environ['FAKE_SLEEP'] = '60'

        def mine(*_):
            pass
        for s in (signal.SIGTERM, signal.SIGHUP):
            self.addCleanup(signal.signal, s, signal.signal(s, mine))

        def kill(s):
            return lambda: os.kill(os.getpid(), s)
        for act, raised in ((kill(signal.SIGTERM), KeyboardInterrupt),
                            (kill(signal.SIGHUP), KeyboardInterrupt),
                            (lambda: 1 / 0, ZeroDivisionError)):
            t0 = time.time()
            with self.assertRaises(raised):
                self.boot([START], emit=lambda t: START in t and act())
            self.assertLess(time.time() - t0, 15)
            for s in (signal.SIGTERM, signal.SIGHUP):
                self.assertIs(signal.getsignal(s), mine)
            with open(self.pidfile) as f:
                pid = int(f.read())
            with self.assertRaises(ProcessLookupError):
                os.kill(pid, 0)

    def test_files_back(self):
        blob = io.BytesIO()
        with tarfile.open(fileobj=blob, mode='w:gz') as tar:
            info = tarfile.TarInfo('./runs/r.json')
            info.size = 2
            tar.addfile(info, io.BytesIO(b'{}'))
        data = os.path.join(self.tmp, 'data')
        write(data, 'noise\r\nSLABPARK-FILES-BEGIN\r\n%s\r\nSLABPARK-FILES-END\r\n'
              % base64.encodebytes(blob.getvalue()).decode())
        os.environ['FAKE_DATA'] = data
        self.assertEqual(self.boot(CONSOLES[0][1]), 0)
        with open(os.path.join(self.out, 'files/runs/r.json')) as f:
            self.assertEqual(f.read(), '{}')
        write(data, 'SLABPARK-FILES-BEGIN\nnot base64!\nSLABPARK-FILES-END\n')
        self.assertEqual(self.boot(CONSOLES[0][1]), 0)
        self.assertIn("guest: could not unpack the guest's files (%s/data.b64)" % self.out,
                      self.emitted)

    def test_members(self):
        """what comes back is unpacked inside OUT/files only, on every Python (Debian 12's
        3.11.2 has no tarfile filter=)"""
        def member(name, kind=tarfile.REGTYPE, link=''):
            m = tarfile.TarInfo(name)
            m.type, m.linkname = kind, link
            return m
        for m, ok in ((member('./runs/r.json'), True), (member('runs'), True),
                      (member('a/l', tarfile.SYMTYPE, 'r.json'), True),
                      (member('a/h', tarfile.LNKTYPE, 'runs/r.json'), True),
                      (member('a/h', tarfile.LNKTYPE, '../x'), False),
                      (member('a/h', tarfile.LNKTYPE, '/etc/passwd'), False),
                      (member('/etc/passwd'), False), (member('runs/../../x'), False),
                      (member('a/l', tarfile.SYMTYPE, '../../etc'), False),
                      (member('a/l', tarfile.SYMTYPE, '/etc'), False),
                      (member('dev', tarfile.CHRTYPE), False)):
            self.assertEqual(vm.plain_member(m), ok, m.name)

    def test_refusals(self):
        for kw, message in REFUSALS:
            with self.subTest(kw):
                with self.assertRaisesRegex(vm.Error, message):
                    self.boot([], **kw)
        self.assertFalse(os.path.exists(self.pidfile))
        write(os.path.join(self.tmp, 'bin/busybox'), '#!/bin/sh\n', 0o755)
        with self.assertRaisesRegex(vm.Error, 'a static busybox is needed'):
            self.boot([])
        os.unlink(os.path.join(self.kernel, 'arch/x86/boot/bzImage'))
        with self.assertRaisesRegex(vm.Error, 'no kernel image'):
            self.boot([])
