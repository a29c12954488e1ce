# SPDX-License-Identifier: GPL-2.0
"""The guest scripts (tools/guest/) run by busybox sh on a fake /sys
(SLABPARK_SYSFS) whose slub_stress is shell functions: insmod makes the
module's and the cache's files, a run ends at once with RESULTS."""

import glob
import os
import shutil
import subprocess
import tempfile
import unittest

from slabpark import check, config, guest_out, ktap

from . import fixtures
from .test_check import failed, kunit_parser, nest, structure

RESULTS = 'state: done\nerror: 0\nfrees: 1000\nshrinks: 3\n'
# a wrapper of guest-lib.sh: the module and the commands it needs, by /sys
STUBS = r'''
. "$SLABPARK_TOP/tools/guest/guest-lib.sh"
mod_loaded() { [ -d "$SYS/module/$MOD" ]; }
timeout() { shift; "$@"; }
dmesg() { :; }
insmod() {
    case $1 in
    *slub_kunit.ko) cp "$FAKE_KUNIT" "$SYS/kernel/debug/kunit/slub_test/results"; return ;;
    esac
    mkdir -p "$SYS/module/$MOD" "$DBG" "$SLAB"
    for f in status:idle "wait:state: done" objects:10 slabs:1 partial:0 objects_partial:0 \
         park_slab:0 unpark_slab:0 free_add_partial:5 shrink:; do
        echo "${f#*:}" >"$SLAB/${f%%:*}"
    done
    mv "$SLAB/status" "$SLAB/wait" "$DBG"
    printf '%b' "$FAKE_RESULTS" >"$DBG/results"
    [ -z "$FAKE_SWITCH" ] || mkdir -p "$PARKDIR"
    [ -z "$FAKE_SWITCH" ] || { echo 1 >"$PARKDIR/park"; echo 0 >"$PARKDIR/parked"; }
    [ -z "$FAKE_RO" ] || mkdir "$DBG/$FAKE_RO"
}
rmmod() { rm -rf "$SYS/module/$MOD" "$DBG" "$SLAB" "$PARKDIR"; }
'''
# make run HOST=1: its knobs logged, --check-only passes, no park switch
# refused, a run leaves its knobs
RUN_HOST = r'''
echo "$* PLACEMENTS=$PLACEMENTS ${HOST_BASE_ONLY:+HOST_BASE_ONLY=1 }${FREE_NODE:+FREE_NODE=3}" \
    >>"$FAKE_LOG"
case "$*:${HOST_BASE_ONLY:-}:${FREE_NODE:-}" in
--check-only:1:) echo "slabpark: prerequisites ok: 4 nodes, x, nodes 0 -> 2, 1 threads" ;;
:1:3) echo "slabpark: error: FREE_NODE=3: node 3 has no online CPUs" >&2; exit 1 ;;
::) echo "slabpark: error: kernel x has no park switch (x): unpatched; HOST_BASE_ONLY=1" >&2
    exit 1 ;;
*) mkdir -p "$RESULTS_DIR/host"; echo x >"$RESULTS_DIR/host/knobs"
    echo "slabpark: no python3 here: x --report" ;;
esac
'''


@unittest.skipUnless(shutil.which('busybox'), 'no busybox')
class GuestShTest(unittest.TestCase):
    def run_sh(self, script, *args, switch=True, ro='', kunit='', **more):
        """(exit status, stdout) of tools/guest/SCRIPT ARGS (SCRIPT a
        function: the script it stages in SLABPARK_DIR)"""
        t = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, t)
        self.out = os.path.join(t, 'out')
        fixtures.write(os.path.join(t, 'sp/tools/guest/guest-lib.sh'), STUBS)
        os.symlink(os.path.join(config.TOP, 'selftests'), os.path.join(t, 'sp/selftests'))
        sys = os.path.join(t, 'sys')
        for n in (0, 1):
            fixtures.write('%s/devices/system/node/node%d/cpulist' % (sys, n), '%d\n' % n)
        fixtures.write(sys + '/kernel/debug/kunit/slub_test/.keep', '')
        if switch:      # another cache's switch: the kernel has them
            fixtures.write(sys + '/kernel/debug/slab/kmalloc-64/park', '1\n')
        fixtures.write(os.path.join(t, 'kunit.ktap'), kunit)
        fixtures.write(sys + '/module/kernel/parameters/slub_break_parking', '8\n')
        env = dict(os.environ, SLABPARK_TOP=config.TOP, SLABPARK_DIR=t + '/sp',
                   SLABPARK_OUT=self.out, SLABPARK_SYSFS=sys, FAKE_RESULTS=RESULTS,
                   FAKE_SWITCH='1' if switch else '', FAKE_RO=ro,
                   FAKE_KUNIT=os.path.join(t, 'kunit.ktap'), **more)
        if callable(script):
            script = script(t + '/sp')
        p = subprocess.run(['busybox', 'sh', os.path.join(config.TOP, 'tools/guest', script),
                            *args], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=60)
        return p.returncode, p.stdout

    def test_soak(self):
        """with and without the park switch it runs; a run that cannot be
        set up is a failure"""
        # (switch, a read-only module file, status, in the output)
        for switch, ro, rc, want in (
                (True, '', 0, 'failures=0'),
                (False, '', 0, '# no /sys/kernel/debug/slab/<cache>/park: the parking modes '
                 'are not varied'),
                (True, 'threads', 1, 'FAIL: echo')):
            with self.subTest(switch=switch, ro=ro):
                got, out = self.run_sh('guest-soak.sh', '2', '0', switch=switch, ro=ro)
                self.assertEqual(got, rc, out)
                self.assertIn(want, out)
                self.assertNotIn('FAIL' if rc == 0 else 'failures=0', out)

    def test_check_host_runs(self):
        """guest-check.sh base host-mode topology: make run HOST=1 with the
        knobs of each run, its output left for slabpark.guest_out"""
        helpers = sorted(glob.glob(os.path.join(check.setup_env({})['SLABPARK_CACHE'], 'src', '*',
                                                'tools/testing/selftests/kselftest')))
        if not helpers:
            self.skipTest('no kernel tree with ktap_helpers.sh')
        log = os.path.join(tempfile.mkdtemp(), 'log')
        self.addCleanup(shutil.rmtree, os.path.dirname(log))

        def stage(sp):
            fixtures.write(os.path.join(sp, 'tools/run-host.sh'), RUN_HOST)
            fixtures.write(os.path.join(sp, 'bin/bash'), '')
            os.chmod(os.path.join(sp, 'bin/bash'), 0o755)
            os.makedirs(sp + '/kselftest')
            os.symlink(helpers[-1], sp + '/kselftest/kselftest')
            shutil.copy(os.path.join(config.TOP, 'tools/guest/guest-check.sh'), sp + '/run.sh')
            return sp + '/run.sh'
        rc, out = self.run_sh(stage, 'base', 'host-mode', 'topology', FAKE_LOG=log)
        self.assertEqual(rc, 0, out)
        # the output of --check-only and of the refusals, as the guest said it
        for t in ('unpatched; HOST_BASE_ONLY=1', 'prerequisites ok: 4 nodes, x, nodes 0 -> 2',
                  'node 3 has no online CPUs'):
            self.assertRegex(out, r'(?m)^#   slabpark: .*' + t)
        self.assertNotIn('no python3 here', out)
        with open(log) as f:
            self.assertEqual(f.read().splitlines(), [
                ' PLACEMENTS=cross local balanced ', ' PLACEMENTS=cross HOST_BASE_ONLY=1 ',
                '--check-only PLACEMENTS=cross local balanced HOST_BASE_ONLY=1 ',
                ' PLACEMENTS=cross local balanced HOST_BASE_ONLY=1 FREE_NODE=3'])
        for suite in ('host-mode', 'topology'):
            self.assertEqual([c for c in guest_out.host_runs(os.path.join(self.out, suite), suite,
                                                             'base') if not c[0]], [])

    def test_workloads(self):
        """a round of mmap1 twice in one mode (guest-device.sh's base
        boots): each run its own N.txt and N.out"""
        def stage(sp):
            fixtures.write(sp + '/bin/mmap_loop', '#!/bin/sh\necho "ops_per_sec: 5"\n')
            os.chmod(sp + '/bin/mmap_loop', 0o755)
            for c in ('vm_area_struct', 'maple_node'):
                for f in ('slabs', 'objects', 'partial', 'shrink', 'alloc_slab'):
                    fixtures.write('%s/../sys/kernel/slab/%s/%s' % (sp, c, f), '1\n')
                os.chmod('%s/../sys/kernel/slab/%s/alloc_slab' % (sp, c), 0o600)
            return 'guest-workloads.sh'
        rc, out = self.run_sh(stage, 'mmap1', '1', '1', '1', 'base base', switch=False)
        self.assertEqual(rc, 0, out)
        d = os.path.join(self.out, 'workloads/mmap1-t1/parkbase')
        self.assertEqual(sorted(os.listdir(d)), ['1.out', '1.txt', '2.out', '2.txt'])
        with open(d + '/2.txt') as f:
            self.assertIn('result ops_per_sec 5\npeak maple_node slabs 1\n', f.read())

    def test_kunit_mutants(self):
        """its KTAP, nested as do_kunit_mutants nests it, is kunit_parser's:
        no plan beside the host's mode-8-host"""
        kunit = ['KTAP version 1', '1..1', '    KTAP version 1', '    # Subtest: slub_test',
                 '    1..2', '    ok 1 test_park_full_slab', '    not ok 2 test_park_shrink',
                 'not ok 1 slub_test']
        rc, out = self.run_sh('guest-kunit-mutants.sh', '8', kunit='\n'.join(kunit) + '\n')
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.out, 'kunit-slub_test.ktap')) as f:
            self.assertEqual(f.read().splitlines(), kunit)
        doc = nest('kunit-mutants', ['KTAP version 1', '# Subtest: break-mode-8'] +
                   out.splitlines() + ['KTAP version 1', '# Subtest: mode-8-host',
                                       'ok 1 mode-8', 'ok 2 mode-8-host', 'ok 1 break-mode-8'])
        structure(self, doc)
        self.assertIn(ktap.INDENT * 3 + 'ok 1 mode-8', doc)
        # the case mode 8 fails on purpose is a diagnostic, not a failed test
        self.assertIn(ktap.INDENT * 3 + '#     not ok 2 test_park_shrink', doc)
        self.assertEqual(failed(kunit_parser(self)(doc)), [])


if __name__ == '__main__':
    unittest.main()
