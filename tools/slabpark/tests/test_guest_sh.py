# SPDX-License-Identifier: GPL-2.0
"""Tests of guest-lib.sh in busybox sh, as the guest runs it: kml_leaks
on hand-made kmemleak reports, tp_skip/tp_end with the kernel's
ktap_helpers.sh."""

import glob
import os
import shutil
import subprocess
import tempfile
import unittest

from slabpark import check

BUSYBOX = shutil.which('busybox')


def ktap_helpers():
    """The kernel tree's ktap_helpers.sh: KSRC's, else a cached tree's."""
    env = check.setup_env(dict(os.environ))
    rel = 'tools/testing/selftests/kselftest/ktap_helpers.sh'
    found = sorted(glob.glob(os.path.join(env['SLABPARK_CACHE'], 'src', '*',
                                          rel)))
    if env.get('KSRC'):
        found.insert(0, os.path.join(env['KSRC'], rel))
    return next((f for f in found if os.path.isfile(f)), None)


KTAP_HELPERS = ktap_helpers()

KMLEAK = '''unreferenced object 0xffff888100a1b2c0 (size 64):
  comm "%s", pid 123, jiffies 4294901234
  backtrace (crc 1234abcd):
    kmem_cache_alloc_noprof+0x2a5/0x3d0
    %s+0x5a/0x120 [%s]
'''
EXPECTED = KMLEAK % ('kunit_try_catch', 'test_leak_destroy', 'slub_kunit')
UNEXPECTED = KMLEAK % ('insmod', 'slub_stress_init', 'slub_stress')
KUNIT_ERE = 'slub_kunit|test_leak_destroy'


@unittest.skipUnless(BUSYBOX, 'no busybox (busybox-static)')
@unittest.skipUnless(KTAP_HELPERS, "no kernel tree's ktap_helpers.sh "
                     '(KSRC, or a make check kernel build)')
class GuestShTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.s = os.path.join(self.tmp, 'S')
        os.makedirs(os.path.join(self.s, 'kselftest/kselftest'))
        for d in ('selftests', 'tools'):
            os.symlink(os.path.join(check.TOP, d), os.path.join(self.s, d))
        shutil.copy(KTAP_HELPERS, os.path.join(self.s, 'kselftest/kselftest'))

    def file(self, rel, text):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def sh(self, script, *args, shell=(BUSYBOX, 'sh')):
        """SCRIPT in SHELL under set -u after sourcing guest-lib.sh and
        ktap_load, with ARGS: (exit status, output)"""
        env = dict(os.environ, SLABPARK_DIR=self.s,
                   SLABPARK_OUT=os.path.join(self.tmp, 'out'))
        p = subprocess.run(
            [*shell, '-c', 'set -u; . "$SLABPARK_DIR/tools/guest/'
             'guest-lib.sh"; ktap_load; ' + script, 'sh', *args], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout

    def test_kml_leaks(self):
        # kmemleak's report is what the cat of $KML gives, /dev/null taking
        # kml_scan's writes; a directory that does not exist fails them
        for what, report, ere, kml, want in (
                ('empty', '', KUNIT_ERE, '/dev/null', '0 0'),
                ('expected only', EXPECTED, KUNIT_ERE, '/dev/null', '0 0'),
                ('one unexpected', EXPECTED + UNEXPECTED, KUNIT_ERE,
                 '/dev/null', '1 1'),
                ('none expected (soak)', EXPECTED, '', '/dev/null', '1 1'),
                ('failed scan', EXPECTED, KUNIT_ERE, self.tmp + '/no/kml',
                 '- 1')):
            with self.subTest(what):
                fix = self.file('report', report)
                rc, out = self.sh(
                    'sleep() { :; }; cat() { command cat "$FIX"; }; KML=$1 FIX=$2; '
                    'kml_leaks "$OUT/kml.txt" "$3"; echo "$LEAKS $CASE_BAD"',
                    kml, fix, ere)
                self.assertEqual((rc, out.splitlines()[-1]), (0, want), out)
                if want == '- 1':
                    self.assertIn('# FAIL: kmemleak scan failed', out)

    def test_test_points(self):
        # bash too: an unset variable in $((...)) is 0 to busybox sh
        for shell in (BUSYBOX, 'sh'), ('bash',):
            rc, out = self.sh('tp_end no-begin; tp_skip b "no x (y)"; '
                              'echo "$KTAP_CNT_PASS $KTAP_CNT_SKIP"',
                              shell=shell)
            self.assertRegex(out, r'\Aok 1 no-begin # [0-9]+s\n'
                             r'ok 2 b # SKIP no x \(y\)\n1 1\n\Z', shell)
            self.assertEqual(rc, 0, shell)


if __name__ == '__main__':
    unittest.main()
