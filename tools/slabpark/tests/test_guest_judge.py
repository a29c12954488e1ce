# SPDX-License-Identifier: GPL-2.0
"""Tests of slabpark.guest_judge on hand-made slub_kunit results,
kselftest output and kmemleak reports."""

import os
import tempfile
import unittest

from slabpark import guest_judge as J

from . import fixtures

OTHER_CASES = (
    'test_clobber_zone', 'test_kfree_rcu', 'test_leak_destroy', J.PERF_CASE,
    J.KPROBE_CASE)


def results(changes=None, suite='ok', cases=OTHER_CASES + tuple(J.KUNIT_PARK)):
    """slub_kunit's KTAP: every case ok (the perf one skipped: no PMU),
    but for CHANGES: case -> 'not ok', 'SKIP reason' or None (left out)"""
    st = {c: 'SKIP no PMU' if c == J.PERF_CASE else 'ok' for c in cases}
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
    %s+0x5a/0x120 [%s]
'''
EXPECTED = KMLEAK % ('kunit_try_catch', 'test_leak_destroy', 'slub_kunit')
UNEXPECTED = KMLEAK % ('insmod', 'slub_stress_init', 'slub_stress')


def kselftest(*tests, top='ok 1 selftests: slub_park: ksft_slub_park.sh'):
    return '\n'.join(['TAP version 13', '1..1', '# TAP version 13',
                      '# 1..%d' % len(tests),
                      '# # nodes: alloc_node=0 free_node=2, distance 21 (x)'] +
                     ['# %s' % t for t in tests] + [top, ''])


class JudgeTest(unittest.TestCase):
    def check(self, bad, want):
        if want is None:
            self.assertEqual(bad, [])
        else:
            self.assertTrue(any(want in b for b in bad), bad)

    def test_kunit(self):
        rcu_skip = {'test_park_work_unparks': 'SKIP needs no SLUB_RCU_DEBUG'}
        # (what, CONFIG_SLUB_RCU_DEBUG, strict, changes, suite, failure)
        for what, rcu, strict, changes, suite, want in (
                ('all pass', False, True, {}, 'ok', None),
                ('unknown parking case', False, False,
                 {'test_park_new': 'ok'}, 'ok', 'unknown parking case'),
                ('missing case', False, False, {'test_park_shrink': None},
                 'ok', 'test_park_shrink did not run'),
                ('failed case', False, False, {'test_kfree_rcu': 'not ok'},
                 'ok', 'test_kfree_rcu failed'),
                ('suite not ok', False, False, {}, 'not ok', 'suite'),
                ('RCU skip allowed', True, False, rcu_skip, 'ok', None),
                ('RCU skip without SLUB_RCU_DEBUG', False, False, rcu_skip,
                 'ok', 'test_park_work_unparks skipped'),
                ('RCU skip of a case that has none', True, False,
                 {'test_park_shrink': 'SKIP SLUB_RCU_DEBUG'}, 'ok',
                 'test_park_shrink skipped'),
                ('strict: kprobe case skipped', False, True,
                 {J.KPROBE_CASE: 'SKIP slow'}, 'ok', 'kprobe case'),
                ('strict: another case skipped', False, True,
                 {'test_kfree_rcu': 'SKIP x'}, 'ok', 'test_kfree_rcu skipped'),
                ('not strict: another case skipped', False, False,
                 {'test_kfree_rcu': 'SKIP x'}, 'ok', None)):
            with self.subTest(what):
                self.check(J.kunit(results(changes, suite), rcu, strict), want)

    def test_mutant(self):
        fail = {'test_park_shrink': 'not ok'}
        # (mode, changes, failure); the results hold the parking cases only
        for mode, changes, want in (
                (0, {}, None),
                (0, fail, 'test_park_shrink: want pass, got fail'),
                (8, fail, None),
                (8, {}, 'test_park_shrink: want fail, got pass'),
                (64, {'test_park_work_unparks': 'not ok',
                      'test_park_free_under_timer_lock': None}, None),
                (64, {'test_park_work_unparks': 'not ok'},
                 'test_park_free_under_timer_lock: want missing, got pass'),
                (0, {'test_park_destroy': None},
                 'test_park_destroy: want pass, got missing'),
                (0, {'test_park_destroy': 'SKIP x'}, 'test_park_destroy skipped'),
                (0, {'test_kfree_rcu': 'ok'}, 'not a parking case'),
                (3, {}, 'mode 3 breaks no case')):
            with self.subTest(mode=mode, changes=changes):
                self.check(J.mutant(results(changes, cases=tuple(J.KUNIT_PARK)),
                                    mode), want)
        self.assertEqual(J.mutant_glob(8), 'slub_test.test_park_*')
        self.assertEqual(J.mutant_glob(64), 'slub_test.test_park_*[!c]?')

    def test_kselftest(self):
        frees = 'ok 2 shrink # SKIP needs frees: nothing parked'
        # (kernel, output, failure)
        for kernel, text, want in (
                ('patched', kselftest('ok 1 load', 'ok 2 shrink'), None),
                ('debug', kselftest('ok 1 load', frees), None),
                ('patched', kselftest('ok 1 load', frees),
                 'shrink skipped for need frees'),
                ('base', kselftest('ok 1 load', 'ok 2 x # SKIP'),
                 'x skipped for need (none)'),
                ('patched', kselftest('ok 1 load', 'not ok 2 shrink'),
                 'not ok: shrink'),
                ('patched', kselftest('ok 1 load', top='ok 1 selftests: '
                                      'slub_park: ksft_slub_park.sh # SKIP'),
                 'whole slub_park suite was skipped'),
                ('patched', kselftest('ok 1 load').replace('# 1..1', '# 1..2'),
                 '1 tests reported of a plan of 2'),
                ('patched', kselftest('ok 1 load', top='not ok 1 selftests: '
                                      'slub_park: ksft_slub_park.sh # exit=1'),
                 'run_kselftest.sh: not ok selftests: slub_park: ksft_slub_park.sh # exit=1'),
                ('patched', kselftest('ok 1 load', top='# timeout'),
                 'no result line of run_kselftest.sh'),
                ('patched', '', 'plan of none')):
            with self.subTest(kernel=kernel, text=text):
                self.check(J.kselftest(text, kernel), want)
        # the runner's line for a test missing or not executable has no directive
        self.assertIn('run_kselftest.sh: not ok selftests: slub_park: ksft_slub_park.sh',
                      J.kselftest(kselftest('ok 1 load', top='not ok 1 selftests: slub_park: '
                                            'ksft_slub_park.sh'), 'patched'))

    def test_kmemleak(self):
        f, ere = J.KMEMLEAK[0]
        with tempfile.TemporaryDirectory() as d:
            self.check(J.kmemleak(d, f, ere), 'no %s: the guest did not return it' % f)
            for report, want in (('', None), (EXPECTED, None),
                                 (EXPECTED + UNEXPECTED + EXPECTED,
                                  '1 suspected leak'),
                                 (UNEXPECTED + UNEXPECTED, '2 suspected leak')):
                with self.subTest(report=report):
                    fixtures.write(os.path.join(d, f), report)
                    self.check(J.kmemleak(d, f, ere), want)

    def test_topology(self):
        self.check(J.topology(kselftest('ok 1 load')), None)
        self.check(J.topology(kselftest('ok 1 load').replace(
            'free_node=2, distance 21', 'free_node=1, distance 11')),
                   'not 0 and 2')


if __name__ == '__main__':
    unittest.main()
