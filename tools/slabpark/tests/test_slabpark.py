# SPDX-License-Identifier: GPL-2.0
"""Unit tests of stats, runs, facts, config and run's commands."""

import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from slabpark import config, facts, run, runs, stats
from slabpark.tests import fixtures

RUN_HOST = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), 'run-host.sh')


class StatsTest(unittest.TestCase):
    def test_beyond_noise(self):
        a = stats.Spread.of([10, 12, 11])
        self.assertTrue(stats.beyond_noise(a, stats.Spread.of([13, 14])))
        self.assertFalse(stats.beyond_noise(a, stats.Spread.of([12, 20])))
        self.assertFalse(stats.beyond_noise(a, None))
        self.assertFalse(stats.beyond_noise(a, stats.Spread.of([20])))

    def test_format(self):
        for x, want in ((412345, '412k'), (1500000, '1.5M'), (0, '0'),
                        (-0.0, '0'), (999.6, '1k'), (999999, '1M'),
                        (1.234, '1.23'), (12.34, '12.3'), (-2e9, '-2G')):
            self.assertEqual(stats.fmt_num(x), want, x)
        for v, want in (([5, 5], '5'), ([4, 5, 6], '5 4-6')):
            self.assertEqual(stats.fmt_spread(stats.Spread.of(v)), want)
        for v, d, want in (([], 0, 'n/a'), ([2.5, 1, 4], 0, '3 (1-4)'),
                           ([0.125, 1], 2, '0.56 (0.12-1.00)')):
            self.assertEqual(stats.fmt_range(v, d), want)
        self.assertEqual(stats.Spread.of([90, 100, 110]).rel_spread_pct(), 20.0)


class RunsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_lockstat(self):
        """&n->list_lock of tests/data/lock_stat: its lines (#2, #3) summed, the sites of each
        in order; waits of the contention points; an empty dump or one without it: no
        figures"""
        files = os.path.join(self.dir, 'guest', 'files')
        with open(os.path.join(fixtures.DATA, 'lock_stat')) as f:
            dump = f.read()
        head = ''.join(dump.splitlines(True)[:5])
        # the other cases' dumps have the header of this one
        self.assertTrue(fixtures.lock_stat(0, 0, 0, 0).startswith(head))
        for rnd, text in ((1, dump), (2, head), (3, '')):
            fixtures.module_run(files, 'cross', '1', rnd, {'ops_per_sec': 100},
                                {'park_slab': 5})
            fixtures.lock_dump(files, 'cross', '1', rnd, text)
        one, none, empty = runs.module_runs(self.dir)
        self.assertEqual(one.lock, {
            'contentions': 52347, 'acquisitions': 1000844, 'waittime_total_us': 25100.5,
            'waittime_max_us': 7000.25, 'waittime_avg_us': 25100.5 / 52347})
        self.assertEqual(one.sites, [
            ('waiter', 30000, '__slab_free'), ('waiter', 12000, '__refill_objects_node'),
            ('waiter', 9000, 'get_partial_node_bulk'), ('waiter', 1345, '__slab_free'),
            ('holder', 40000, 'refill_sheaf'), ('holder', 8000, '__slab_free'),
            ('holder', 3000, '__refill_objects_node'), ('holder', 1345, 'deactivate_slab'),
            ('waiter', 2, '__slab_free')])
        # 5 contention points: the waits of a site not among them unknown
        self.assertEqual(one.of('lockstat'), {
            'lock_contentions': 52347, 'lock_acquisitions': 1000844, 'lock_wait_ms': 25100.5 / 1000,
            'waits___slab_free': 31347, 'waits___refill_objects_node': 12000,
            'waits_get_partial_node_bulk': 9000})
        self.assertEqual((one.metrics['waits_slab_free'], one.kind['park_slab'],
                          one.metrics['park_slab']), (31347, 'counter', 5))
        for r, lock in (none, {}), (empty, None):
            self.assertEqual((r.lock, r.sites, r.of('lockstat')), (lock, [], {}))

    def test_lockstat_dumps(self):
        """&n->list_lock among classes whose names contain it, as a rwlock's -W/-R lines; a
        dump cut, of another version, without the column line, short of columns or over, of
        lock debugging off: an error"""
        def data(name):
            with open(os.path.join(fixtures.DATA, name)) as f:
                return f.read()
        classes = data('lock_stat-classes')
        cut = classes[:classes.index('25000.50')]
        head, rest = classes.splitlines(True)[:5], classes.split('\n', 5)[5]
        whole = 'not a whole lock_stat version 0.4 dump'
        path = os.path.join(self.dir, 'dump')
        for text, lock, sites in (
                (classes, (323, 100004, 25100.5, 25100.5 / 323, 7000.25), [
                    ('waiter', 300, '__slab_free'), ('waiter', 21, 'get_from_partial_node'),
                    ('holder', 200, '__slab_free'), ('holder', 121, 'refill_sheaf'),
                    ('waiter', 2, 'alloc_from_new_slab')]),
                (data('lock_stat-rw'), (30, 300, 3, 0.1, 0.9), [
                    ('waiter', 30, '__slab_free'), ('holder', 30, 'h')]),
                (runs.LOCK_HEADER + '\n*WARNING* lock debugging disabled!! - possibly due to a '
                 'lockdep warning\n' + data('lock_stat-rw').split('\n', 1)[1],
                 'lock debugging disabled (a lockdep warning): lock_stat stopped counting in '
                 'the run', None),
                (cut, whole, None),
                (classes[:classes.index('[<ffffffff81000005>]')], whole, None),
                (classes[:300], whole, None),
                ('lock_stat version 0.3' + classes[len(runs.LOCK_HEADER):], whole, None),
                (''.join(head[:2] + head[3:]) + rest, whole, None),
                (cut + '\n', 'a &n->list_lock line of 4 columns, not 12: %r'
                 % (cut.splitlines()[-1]), None),
                (cut + '9 ' * 9 + '\n', 'a &n->list_lock line of 13 columns, not 12: %r'
                 % (cut.splitlines()[-1] + '9 ' * 9), None)):
            fixtures.write(path, text)
            r = runs.Run('cross', 'park=1', '', 1)
            if sites is None:
                with self.assertRaises(ValueError) as e:
                    runs.add_lockstat(r, path)
                self.assertEqual(str(e.exception), path + ': ' + lock)
                continue
            runs.add_lockstat(r, path)
            self.assertEqual((r.lock, r.sites), (dict(zip(runs.LOCK_KEYS, lock)), sites))


class FactsTest(unittest.TestCase):
    def test_meta(self):
        """SMT as smt/ words it; meta.txt: the cover letter's series, lock_stat first of
        EXTRA"""
        with tempfile.TemporaryDirectory() as d:
            smt = os.path.join(d, 'smt')
            for files, want in (({'active': '1'}, 'on'), ({'active': '0', 'control': 'on'}, 'off'),
                                ({'control': 'forceoff'}, 'off'),
                                ({'control': 'notsupported'}, 'not supported'),
                                ({'control': ''}, 'unknown')):
                shutil.rmtree(smt, ignore_errors=True)
                for f, v in files.items():
                    fixtures.write(os.path.join(smt, f), v + '\n')
                self.assertEqual(facts._smt(smt), want, files)
            fixtures.write(os.path.join(d, 'patches', '0000-cover-letter.patch'),
                           'Subject: [RFC PATCH v2 0/7] mm/slub: park slabs\n')
            with mock.patch.object(facts, 'TOP', d):
                meta = facts.write_meta(d, 'TCG guest', '1 x 1000 ms',
                                        {'kernel base': 'bzImage-base', 'lock_stat': 'yes'})
            self.assertEqual(meta['series'], 'RFC PATCH v2')
            with open(os.path.join(d, 'meta.txt')) as f:
                self.assertEqual([x.split(':')[0] for x in f], [
                    'date', 'series', 'project', 'where', 'host cpu', 'runs', 'lock_stat',
                    'kernel base'])


ENV = {'RUNS': '1', 'DURATION_MS': '4000', 'PLACEMENTS': 'cross local', 'BASE': '1',
       'BOOTS': '5'}
WL = dict(ENV, WORKLOAD='mmap1', TASKS='4 8', PLACEMENTS='')
COMPARE = 'tools/guest/guest-compare.sh'
# BASE=1: a base boot runs once per patched mode, odd patched boots run the modes reversed;
# (knobs, kernel, boot, the guest's command)
GUEST_CMDS = (
    (ENV, 'base', 0, [COMPARE, '2', '4000', 'cross local', '0', '', '']),
    (ENV, 'patched', 0, [COMPARE, '1', '4000', 'cross local', '0', '', '0 1']),
    (ENV, 'patched', 1, [COMPARE, '1', '4000', 'cross local', '0', '', '1 0']),
    (WL, 'base', 0, ['tools/guest/guest-workloads.sh', 'mmap1', '1', '4', '4 8', 'base base']),
    (WL, 'patched', 1, ['tools/guest/guest-workloads.sh', 'mmap1', '1', '4', '4 8', '1 0']),
    ({'FLUSH': '1', 'RUNS': '3'}, 'patched', 0, [
        COMPARE, '3', '4000', 'local', '0', 'sheaf', '', 'free_burst=1 inflight=4096']),
    ({'SWEEP': 'sheaf', 'RUNS': '2', 'DURATION_MS': '1000'}, 'patched', 0,
     [COMPARE, '2', '1000', 'cross local', '0', 'sheaf', '']),
)
# knobs, a resolved knob, its value (a default may depend on the knobs before it; empty is
# the default, as make passes an unset variable)
RESOLVED = (
    ({}, 'RUNS', 3),
    ({}, 'BOOTS', 5),
    ({}, 'HOST', False),
    ({}, 'PLACEMENTS', ['cross', 'local', 'balanced']),
    ({'LOCKSTAT': '1'}, 'RUNS', 10),
    ({'BASE': '1', 'LOCKSTAT': '1'}, 'RUNS', 1),
    ({'MIN_PARTIAL': '1'}, 'RUNS', 5),
    ({'SWEEP': 'sheaf'}, 'PLACEMENTS', ['cross', 'local']),
    ({'RUNS': '', 'NODES': ''}, 'NODES', 2),
    ({'NODES': '1', 'PLACEMENTS': 'local'}, 'NODES', 1),
    # HOST=1: tools/run-host.sh checks the nodes against the machine
    ({'HOST': '1', 'FREE_NODE': '7'}, 'FREE_NODE', 7),
)


class ConfigTest(unittest.TestCase):
    def test_resolved(self):
        for env, name, want in RESOLVED:
            self.assertEqual(getattr(config.load(env), name), want, env)

    def test_host_online_nodes(self):
        """tools/run-host.sh: a node/online it cannot read as ranges (a SLABPARK_SYSFS fake)
        refused with its error line, 08-09 decimal"""
        with tempfile.TemporaryDirectory() as sys:
            online = os.path.join(sys, 'devices', 'system', 'node', 'online')
            env = dict(os.environ, RUNS='1', DURATION_MS='1', PLACEMENTS='x', LOCKSTAT='0',
                       MEASURE='0', RESULTS_DIR=sys, SLABPARK_SYSFS=sys)
            for text, err in (('garbage', "'garbage' is not a list of node ranges"),
                              ('0,a-1', "'0,a-1' is not"),
                              ('08-09', '(run it as root|no SLUB counters)')):
                fixtures.write(online, text + '\n')
                p = subprocess.run(['bash', RUN_HOST, '--check-only'], env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertRegex(p.stderr, '^slabpark: error: .*' + err)

    def test_reference(self):
        text = config.reference()
        for k in config.KNOBS:
            self.assertIn('\n  ' + k.name, '\n' + text)
        self.assertIn('  PLACEMENTS\n', text)
        self.assertIn('  DURATION_MS=4000\n', text)


class ExperimentTest(unittest.TestCase):
    def test_guest_cmd(self):
        for env, kernel, boot, want in GUEST_CMDS:
            cfg = config.load(env)
            self.assertEqual(run.guest_cmd(cfg, kernel, boot), want, env)
            self.assertEqual(run.kernels(cfg), ['base', 'patched'] if cfg.BASE else ['patched'])

    def test_module_comparison(self):
        """MEASURE's park=3 and the sweep in the guest's time"""
        self.assertEqual(run.guest_timeout(config.load(
            {'SWEEP': 'sheaf', 'RUNS': '2', 'DURATION_MS': '1000'})), 2 * 2 * 3 * 5 * 8 // 3 + 300)
        self.assertEqual(run.guest_timeout(config.load(
            {'MEASURE': '1', 'RUNS': '1', 'DURATION_MS': '1000', 'PLACEMENTS': 'cross'})),
            4 * 5 + 300)
        self.assertEqual(run.runs_line(config.load({'MEASURE': '1'})), '3 x 4000 ms per '
                         'placement and mode; PLACEMENTS="cross local balanced" MEASURE=1')


class MinPartialTest(unittest.TestCase):
    def test_short_row(self):
        """refused at the row, not at a later line that does not decode"""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'guest', 'files', 'minpartial.txt')
            fixtures.write(path, 'round mode min_partial ops_per_sec allocs\n'
                           '1 0 5  2000000\n' + '#\n' * 8192)
            with open(path, 'ab') as f:
                f.write(b'# \xff\n')
            with self.assertRaisesRegex(ValueError, '4 fields in a row of 5'):
                runs.min_partial_runs(d)


if __name__ == '__main__':
    unittest.main()
