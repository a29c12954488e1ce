# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the host package: python3 -m unittest discover -s tools
(make check's python step).  Fixtures are written to a temporary
directory in the guest scripts' layouts."""

import json
import os
import tempfile
import unittest

from slabpark import config, record, report, run, runs, stats


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def module_run(files, place, mode, rnd, ops, park_slab, lock=None):
    d = os.path.join(files, 'runs', place, 'park' + mode)
    write(os.path.join(d, '%d.results' % rnd),
          'state: done\nops_per_sec: %d\npeak_slabs: 8\nrest_slabs: 5\n'
          % ops)
    doc = {'caches': {'nfs_page_test': {'metrics': {
        'park_slab': {'type': 'counter', 'value': park_slab},
        'free_slowpath': {'type': 'counter', 'value': 1000}}}}}
    write(os.path.join(d, '%d.json' % rnd), json.dumps(doc))
    if lock is not None:
        write(os.path.join(files, 'lockstat',
                           '%s-park%s-%d.txt' % (place, mode, rnd)),
              'class: &n->list_lock\ncontentions: %d\n'
              'waittime_total_us: 2500.0\n'
              'contention_point: %d __slab_free+0xb3/0x530\n'
              'contention_point: 7 __refill_objects_node+0xad/0x860\n'
              'contention_point: 3 __slab_free+0x1ff/0x530\n'
              'contending_point: 99 __slab_free+0xb3/0x530\n'
              % (lock, lock - 10))


class StatsTest(unittest.TestCase):
    def test_median(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 2, 3]), 2.5)
        with self.assertRaises(ValueError):
            stats.median([])

    def test_beyond_noise(self):
        a = stats.Spread.of([10, 12, 11])
        self.assertTrue(stats.beyond_noise(a, stats.Spread.of([13, 14])))
        self.assertFalse(stats.beyond_noise(a, stats.Spread.of([12, 20])))
        self.assertFalse(stats.beyond_noise(a, None))

    def test_format(self):
        self.assertEqual(stats.fmt_num(412345), '412k')
        self.assertEqual(stats.fmt_num(1500000), '1.5M')
        self.assertEqual(stats.fmt_num(0), '0')
        self.assertEqual(stats.fmt_num(999.6), '1k')
        self.assertEqual(stats.fmt_num(999999), '1M')
        self.assertEqual(stats.fmt_num(1.234), '1.23')
        self.assertEqual(stats.fmt_spread(stats.Spread.of([5, 5])), '5')
        self.assertEqual(stats.fmt_spread(stats.Spread.of([4, 5, 6])),
                         '5 4-6')
        self.assertEqual(stats.Spread.of([90, 100, 110]).rel_spread_pct(),
                         20.0)


class RunsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_lockstat_sites(self):
        files = os.path.join(self.dir, 'guest', 'files')
        module_run(files, 'cross', '1', 1, 100, 5, lock=50)
        r = record.full_runs(self.dir)[0]
        # the two __slab_free contention points, not the contending one
        self.assertEqual(r.lockstat['waits___slab_free'], 43)
        self.assertEqual(r.lockstat['waits___refill_objects_node'], 7)
        self.assertEqual(r.lockstat['waits_get_from_partial_node'], 0)
        self.assertEqual(r.lockstat['lock_contentions'], 50)
        self.assertEqual(r.lockstat['lock_wait_ms'], 2.5)
        self.assertEqual(r.counters['park_slab'], 5)

    def test_boots_and_groups(self):
        for b, k, mode in ((1, 'base', 'base'), (2, 'patched', '1'),
                           (3, 'base', 'base'), (4, 'patched', '1')):
            files = os.path.join(self.dir, 'boot%02d-%s' % (b, k), 'files')
            module_run(files, 'local', mode, 1, 1000 + b, 0)
        rs = record.full_runs(self.dir)
        self.assertEqual(sorted((r.boot, r.group) for r in rs),
                         [('boot01-base', 'base'), ('boot02-patched', 'park=1'),
                          ('boot03-base', 'base'),
                          ('boot04-patched', 'park=1')])

    def test_workload_deltas(self):
        path = os.path.join(self.dir, 'guest', 'files', 'workloads',
                            'mmap1-t4', 'park1', '1.txt')
        write(path, 'before maple_node alloc_slab 10\n'
                    'before maple_node slabs 3\n'
                    'result ops_per_sec 500\n'
                    'peak maple_node slabs 40\n'
                    'after maple_node alloc_slab 110\n'
                    'after maple_node slabs 7\n'
                    'after vm_area_struct park_slab 4\n')
        (r,) = runs.workload_runs(self.dir)
        self.assertEqual((r.scenario, r.group), ('mmap1-t4', 'park=1'))
        self.assertEqual(r.metrics['maple_node.alloc_slab'], 100)
        self.assertEqual(r.metrics['maple_node.rest_slabs'], 7)
        self.assertEqual(r.metrics['maple_node.peak_slabs'], 40)
        self.assertEqual(r.metrics['vm_area_struct.park_slab'], 4)
        self.assertEqual(r.metrics['ops_per_sec'], 500)


ENV = {'RUNS': '1', 'DURATION_MS': '4000', 'PLACEMENTS': 'cross local',
       'BASE': '1', 'BOOTS': '5'}


class ConfigTest(unittest.TestCase):
    def test_defaults(self):
        """a default may depend on the knobs before it"""
        cfg = config.load({})
        self.assertEqual((cfg.RUNS, cfg.PLACEMENTS, cfg.BOOTS, cfg.HOST),
                         (3, ['cross', 'local', 'balanced'], 5, False))
        self.assertEqual(config.load({'LOCKSTAT': '1'}).RUNS, 10)
        self.assertEqual(config.load({'BASE': '1', 'LOCKSTAT': '1'}).RUNS, 1)
        self.assertEqual(config.load({'MIN_PARTIAL': '1'}).RUNS, 5)
        self.assertEqual(config.load({'SWEEP': 'sheaf'}).env['PLACEMENTS'],
                         'cross local')
        # empty is the default, as make passes an unset variable
        self.assertEqual(config.load({'RUNS': '', 'NODES': ''}).NODES, 2)

    def test_refusal_names_the_knob(self):
        with self.assertRaisesRegex(config.ConfigError,
                                    '^NODES=1: cross and balanced'):
            config.load({'NODES': '1', 'PLACEMENTS': 'cross'})
        self.assertEqual(config.load({'NODES': '1',
                                      'PLACEMENTS': 'local'}).NODES, 1)
        # HOST=1: tools/run-host.sh checks the nodes against the machine
        self.assertEqual(config.load({'HOST': '1', 'FREE_NODE': '7'})
                         .FREE_NODE, 7)

    def test_reference(self):
        """every knob in make help's reference, with its default"""
        text = config.reference()
        for k in config.KNOBS:
            self.assertIn('\n  ' + k.name, '\n' + text)
        self.assertIn('  PLACEMENTS\n', text)
        self.assertIn('  DURATION_MS=4000\n', text)


class ExperimentTest(unittest.TestCase):
    def test_same_places(self):
        cfg = config.load(ENV)
        self.assertEqual(run.kernels(cfg), ['base', 'patched'])
        # base: one run per patched mode; patched: modes reversed in odd
        # boots
        self.assertEqual(run.guest_cmd(cfg, 'base', 0)[1], '2')
        self.assertEqual(run.guest_cmd(cfg, 'patched', 0)[1:], [
            '1', '4000', 'cross local', '0', '', '0 1'])
        self.assertEqual(run.guest_cmd(cfg, 'patched', 1)[-1], '1 0')

    def test_workload_base_repeats(self):
        cfg = config.load(dict(ENV, WORKLOAD='mmap1', TASKS='4 8',
                               PLACEMENTS=''))
        self.assertEqual(run.guest_cmd(cfg, 'base', 0), [
            'tools/guest/guest-workloads.sh', 'mmap1', '1', '4', '4 8',
            'base base'])
        self.assertEqual(run.guest_cmd(cfg, 'patched', 1)[-1], '1 0')

    def test_flush(self):
        cfg = config.load(dict(ENV, BASE='0', BOOTS='', FLUSH='1', RUNS='3'))
        self.assertEqual(run.kernels(cfg), ['patched'])
        self.assertEqual(run.guest_cmd(cfg, 'patched', 0)[1:], [
            '3', '4000', 'local', '0', 'sheaf', '',
            'free_burst=1 inflight=4096'])

    def test_module_comparison(self):
        """make run: guest-compare.sh with the knobs, MEASURE's park=3 and
        the sweep in the guest's time"""
        cfg = config.load({'SWEEP': 'sheaf', 'RUNS': '2',
                           'DURATION_MS': '1000'})
        self.assertEqual(run.guest_cmd(cfg, 'patched'), [
            'tools/guest/guest-compare.sh', '2', '1000', 'cross local', '0',
            'sheaf', ''])
        self.assertEqual(run.guest_timeout(cfg), 2 * 2 * 3 * 5 * 8 // 3 + 300)
        self.assertEqual(run.guest_timeout(config.load(
            {'MEASURE': '1', 'RUNS': '1', 'DURATION_MS': '1000',
             'PLACEMENTS': 'cross'})), 4 * 5 + 300)
        self.assertEqual(run.runs_line(config.load({'MEASURE': '1'})),
                         '3 x 4000 ms per placement and mode; PLACEMENTS='
                         '"cross local balanced" MEASURE=1')


class MinPartialTest(unittest.TestCase):
    HEAD = ('round mode min_partial ops_per_sec allocs churn alloc_slab '
            'peak rest rest_partial parked_max parked_sum parked_samples\n')

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, 'guest', 'files',
                                 'minpartial.txt')

    def tearDown(self):
        self.tmp.cleanup()

    def test_rows(self):
        write(self.path, '# default min_partial 5\n' + self.HEAD +
              '1 0 5 100 2000000 400 200 8 5 2 0 0 40\n'
              '1 1 5 100 2000000 200 100 8 5 2 3 60 40\n')
        rs = runs.min_partial_runs(self.tmp.name)
        self.assertEqual([r.group for r in rs], ['park=0 mp=5',
                                                 'park=1 mp=5'])
        rows = {x[:18].strip(): x[18:].split()
                for x in report.report(self.tmp.name)}
        self.assertEqual(rows['churn/M allocs'], ['200', '100'])
        self.assertEqual(rows['parked mean'], ['0', '1.5'])

    def test_short_row(self):
        write(self.path, self.HEAD + '1 0 5  2000000 400\n')
        with self.assertRaises(ValueError):
            runs.min_partial_runs(self.tmp.name)


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.files = os.path.join(self.dir, 'guest', 'files')

    def tearDown(self):
        self.tmp.cleanup()

    def test_marks_only_separated_ranges(self):
        for r, (a, b, c) in enumerate(((100, 101, 150), (110, 120, 160),
                                       (105, 130, 155)), 1):
            module_run(self.files, 'cross', '0', r, a, 0)
            module_run(self.files, 'cross', '1', r, b, 3)
            module_run(self.files, 'cross', '2', r, c, 9)
        lines = report.report(self.dir)
        ops = next(x for x in lines if x.startswith('ops/s'))
        # park=1 (101-130) overlaps park=0 (100-110); park=2 does not
        self.assertEqual(ops.split()[1:], ['105', '100-110', '120',
                                           '101-130', '155', '150-160*'])
        self.assertIn('noise: ops/s of park=0 spread 10% of its median '
                      'over 3 runs', lines)
        self.assertTrue(os.path.exists(os.path.join(
            self.dir, 'summary-module.csv')))

    def test_base_ratio(self):
        for b in range(1, 4):
            module_run(os.path.join(self.dir, 'boot%02d-base' % (2 * b - 1),
                                    'files'),
                       'local', 'base', 1, 1000 + b, 0)
            module_run(os.path.join(self.dir, 'boot%02d-patched' % (2 * b),
                                    'files'),
                       'local', '0', 1, 500 + b, 0)
        lines = report.report(self.dir)
        self.assertIn('local, park=0 against base: ops_per_sec 0.50x '
                      '(beyond noise)', lines)

    def test_no_data(self):
        with self.assertRaises(FileNotFoundError):
            report.report(self.dir)


if __name__ == '__main__':
    unittest.main()
