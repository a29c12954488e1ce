# SPDX-License-Identifier: GPL-2.0
"""Tests of the guest's judgments in busybox sh, as the guest runs them:
guest-lib.sh's kunit_judge, kml_leaks and tp_skip/tp_end (with the
kernel's ktap_helpers.sh), and guest-kunit-mutants.sh, on hand-made
slub_kunit results and kmemleak reports."""

import glob
import os
import re
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

OTHER_CASES = (
    'test_clobber_zone', 'test_next_pointer', 'test_first_word',
    'test_kfree_rcu', 'test_leak_destroy',
    'test_kmalloc_nolock_and_friends_perf',
    'test_kmalloc_nolock_and_friends_kprobe')
# the first column of guest-lib.sh's KUNIT_PARK_TABLE
with open(os.path.join(check.TOP, 'tools/guest/guest-lib.sh')) as f:
    PARK_CASES = tuple(re.findall(r'(?m)^(test_park_\w+) ', f.read()))


def results(changes=None, suite='ok', cases=OTHER_CASES + PARK_CASES):
    """slub_kunit's KTAP: every case ok (the perf one skipped: no PMU),
    but for CHANGES: case -> 'not ok', 'SKIP reason' or None (left out);
    cases not in CASES are added at the end."""
    st = {c: 'SKIP no PMU' if c.endswith('_perf') else 'ok' for c in cases}
    st.update(changes or {})
    lines = [(r if r == 'not ok' else 'ok', c, ' # ' + r if 'SKIP' in r else '')
             for c, r in st.items() if r]
    return '\n'.join(
        ['KTAP version 1', '1..1', '    KTAP version 1',
         '    # Subtest: slub_test', '    1..%d' % len(lines)] +
        ['    %s %d %s%s' % (r, i, c, d) for i, (r, c, d) in
         enumerate(lines, 1)] + ['%s 1 slub_test' % suite, ''])


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
        self.sys = os.path.join(self.tmp, 'sys')
        self.res = self.file('sys/kernel/debug/kunit/slub_test/results', '')
        self.file('sys/module/kunit/parameters/filter_glob', '')
        self.config('# CONFIG_SLUB_RCU_DEBUG is not set')

    def file(self, rel, text):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)
        return path

    def config(self, line):
        self.file('S/kernel.config', line + '\n')

    def sh(self, script, *args, shell=(BUSYBOX, 'sh')):
        """SCRIPT in SHELL under set -u after sourcing guest-lib.sh and
        ktap_load, with ARGS: (exit status, output)"""
        env = dict(os.environ, SLABPARK_DIR=self.s, SLABPARK_SYSFS=self.sys,
                   SLABPARK_OUT=os.path.join(self.tmp, 'out'))
        p = subprocess.run(
            [*shell, '-c', 'set -u; . "$SLABPARK_DIR/tools/guest/'
             'guest-lib.sh"; ktap_load; ' + script, 'sh', *args], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout

    def test_kunit_judge(self):
        y = 'CONFIG_SLUB_RCU_DEBUG=y'
        rcu_skip = {'test_park_work_unparks': 'SKIP needs no SLUB_RCU_DEBUG'}
        # (what, CONFIG_SLUB_RCU_DEBUG line, strict, changes, suite,
        # the failure it must report or None)
        for what, rcu, strict, changes, suite, want in (
                ('all pass', None, 'strict', {}, 'ok', None),
                ('all pass, not strict', None, '', {}, 'ok', None),
                ('unknown parking case', None, '', {'test_park_new': 'ok'},
                 'ok', 'unknown parking case test_park_new'),
                ('missing case', None, '', {'test_park_shrink': None}, 'ok',
                 'test_park_shrink did not run'),
                ('failed parking case', None, '',
                 {'test_park_shrink': 'not ok'}, 'ok',
                 'kunit: test_park_shrink failed'),
                ('suite not ok', None, '', {}, 'not ok',
                 "suite line 'not ok'"),
                ('RCU skip allowed', y, '', rcu_skip, 'ok', None),
                ('RCU skip without SLUB_RCU_DEBUG', None, '', rcu_skip, 'ok',
                 'test_park_work_unparks skipped (CONFIG_SLUB_RCU_DEBUG: unset)'),
                ('RCU skip of a case that has none', y, '',
                 {'test_park_shrink': 'SKIP SLUB_RCU_DEBUG'}, 'ok',
                 'test_park_shrink skipped'),
                ('strict: another case skipped', None, 'strict',
                 {'test_kfree_rcu': 'SKIP x'}, 'ok',
                 'cases skipped: test_kfree_rcu'),
                ('not strict: another case skipped', None, '',
                 {'test_kfree_rcu': 'SKIP x'}, 'ok', None)):
            with self.subTest(what):
                self.config(rcu or '# CONFIG_SLUB_RCU_DEBUG is not set')
                with open(self.res, 'w') as f:
                    f.write(results(changes, suite))
                rc, out = self.sh('kunit_judge "$@"', self.res,
                                  *([strict] if strict else []))
                self.assertEqual(rc, 0 if want is None else 1, out)
                if want is None:
                    self.assertNotIn('# FAIL', out)
                else:
                    self.assertIn(want, out)

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

    def test_mutants(self):
        # the kunit filter's glob of each mode leaves out what it does not
        # run: the results hold the parking cases only
        fail = {'test_park_shrink': 'not ok'}
        # (mode, changes, the failure it must report or None)
        for mode, changes, want in (
                ('0', {}, None),
                ('0', fail, 'test_park_shrink: want pass, got fail'),
                ('8', fail, None),
                ('8', {}, 'test_park_shrink: want fail, got pass'),
                ('64', {'test_park_work_unparks': 'not ok',
                        'test_park_free_under_timer_lock': None}, None),
                ('64', {'test_park_work_unparks': 'not ok'},
                 'test_park_free_under_timer_lock: ran, but mode 64 leaves '
                 'it out'),
                ('0', {'test_park_destroy': None},
                 'test_park_destroy: did not run'),
                ('3', {}, "unknown mode '3'")):
            with self.subTest(mode=mode, changes=changes):
                self.file('sys/module/kernel/parameters/slub_break_parking',
                          mode + '\n')
                with open(self.res, 'w') as f:
                    f.write(results(changes, cases=PARK_CASES))
                rc, out = self.sh('insmod() { :; }; . "$SLABPARK_DIR/tools/'
                                  'guest/guest-kunit-mutants.sh"', mode)
                self.assertEqual(rc, {None: 0, "unknown mode '3'": 2}.get(
                    want, 1), out)
                if want is None:
                    self.assertTrue(re.search('^ok 1 mode-%s ' % mode, out,
                                              re.M), out)
                else:
                    self.assertIn(want, out)


if __name__ == '__main__':
    unittest.main()
