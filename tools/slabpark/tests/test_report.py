# SPDX-License-Identifier: GPL-2.0
"""Tests of the report of a module comparison (slabpark.comparison,
python3 -m slabpark report) and of the report scripts that stay shell:
tools/report/lockstat-report.sh (the guest's lock_stat excerpt, run
with sh on a fixture /proc/lock_stat) and tools/report/perf-lock.sh
(run with bash against a fake perf and a fake slabstat)."""

import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from slabpark import __main__ as cli
from slabpark import comparison, record
from slabpark.tests import fixtures, test_slabstat

TOOLS = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LOCKSTAT_SH = os.path.join(TOOLS, 'report', 'lockstat-report.sh')
PERF_LOCK = os.path.join(TOOLS, 'report', 'perf-lock.sh')


def squeeze(line):
    return ' '.join(line.split())


def section(lines, title):
    """the lines of report.txt from the one starting with TITLE to the
    next '== ' title"""
    i = next(i for i, x in enumerate(lines) if x.startswith(title))
    end = next((j for j in range(i + 1, len(lines))
                if lines[j].startswith('== ')), len(lines))
    return lines[i:end]


def rows(lines, *first):
    """the rows whose first words are FIRST, squeezed"""
    return [squeeze(x) for x in lines if x.split()[:len(first)] ==
            list(first)]


def module_run(files, place, mode, rnd, results, counters=None):
    """a run: RESULTS ('key: value' lines of the .results), COUNTERS of
    its delta document"""
    d = os.path.join(files, 'runs', place, 'park' + mode)
    fixtures.write(os.path.join(d, '%d.results' % rnd), ''.join(
        '%s: %s\n' % kv for kv in results.items()))
    doc = fixtures.delta_doc(mode, 0, extra=counters)
    fixtures.write(os.path.join(d, '%d.json' % rnd), json.dumps(doc))


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.files = os.path.join(self.dir, 'guest', 'files')

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *args):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = cli.main(['report', self.dir] + list(args))
        self.assertEqual(rc, 0)
        with open(os.path.join(self.dir, 'report.txt')) as f:
            text = f.read()
        self.assertEqual(out.getvalue(), text)
        return text.splitlines()

    def test_as_the_run_wrote_it(self):
        """report.txt made again from the trimmed fixture has the lines
        make run wrote (its directory and the plot aside; the order of
        the placement and footprint rows is now the placement tables')"""
        d = fixtures.copy_real('guest-2x2', self.dir)
        with open(os.path.join(d, 'report.txt')) as f:
            want = f.read().splitlines()
        was = [x for x in want if x.startswith('per-run numbers: ')][0]
        was = was[len('per-run numbers: '):-len('/summary.csv')]
        self.dir = d
        got = self.report()

        def norm(lines, *tops):
            for top in tops:
                lines = [x.replace(top, 'DIR') for x in lines]
            return sorted(x.replace(' parking.png', '') for x in lines
                          if not x.startswith('plot: '))
        self.assertEqual(norm(got, d), norm(
            want, was, 'results/' + was.split('/results/', 1)[1]))
        for f in ('summary.txt', 'summary.csv', 'cross.csv', 'cross.json',
                  'local.csv', 'balanced.json'):
            self.assertTrue(os.path.exists(os.path.join(d, f)), f)
        with open(os.path.join(d, 'cross.csv')) as f:
            self.assertEqual(f.readline().split(',')[:4],
                             ['metric', 'off', 'on', 'always'])

    def test_where_and_noise_floor(self):
        fixtures.synth(self.dir, {'0': [100e3, 110e3], '1': [120e3, 90e3]},
                       host=True)
        lines = self.report('--where', 'host, 2 nodes x 64 CPUs',
                            '--runs', '2 x 3000 ms')
        self.assertIn('ran on: host, 2 nodes x 64 CPUs', lines)
        self.assertEqual(section(lines, '== noise floor')[:3], [
            '== noise floor (2 nodes x 64 CPUs):',
            '   the local placement, which parks nothing, gave 0.09-0.12 M '
            'ops/s over its 4 runs',
            '   (all modes), median 0.10 M: a spread of 29% of the median; '
            'ops/s differences'])
        self.assertEqual(lines[-1], 'results: %s: summary.txt report.txt '
                         '*.csv *.json%s host/' % (self.dir, ' parking.png'
                                                   if shutil.which('gnuplot')
                                                   else ''))
        self.assertIn('== topology (%s/host/topology)' % self.dir, lines)

    def test_no_local_placement(self):
        fixtures.synth(self.dir, {'0': [100e3], '1': [120e3]},
                       places=('cross',))
        self.assertIn('== noise floor: no local placement in this run '
                      '(placements: cross): unknown', self.report())

    def test_placements_and_footprint(self):
        for r in (1, 2, 3):
            for m in ('0', '1'):
                module_run(self.files, 'cross', m, r, {
                    'ops_per_sec': 1000 * r, 'threads_per_cpu': 1,
                    'allocs': 1000000, 'shrunk_slabs': 4,
                    'peak_slabs': 7 + r, 'rest_slabs': 5, 'rest_partial': 4,
                    'slab_churn': 2000 * (int(m) + 1) + r})
        runs = record.full_runs(self.dir)
        path = os.path.join(self.dir, 'summary.csv')
        comparison.write_summary_csv(path, runs)
        lines = comparison.placements(runs, path)
        foot = section(lines, '== footprint')
        self.assertEqual(rows(lines, 'cross', '1'),
                         ['cross 1 2000 2000'])
        self.assertEqual(rows(foot, 'cross'),
                         ['cross shrunk slabs 4 (4-4) 4 (4-4)'])
        self.assertEqual(rows(foot, 'peak'), ['peak slabs 9 (8-10) 9 (8-10)'])
        self.assertEqual(rows(foot, 'churn/M'),
                         ['churn/M alloc 2002 (2001-2003) 4002 (4001-4003)'])
        with open(path) as f:
            csv_lines = f.read().splitlines()
        self.assertEqual(len(csv_lines), 7)
        self.assertEqual(csv_lines[1].split(',')[:4],
                         ['cross', '0', '1', '1000'])

    def test_measure(self):
        for r in (1, 2):
            res = {'ops_per_sec': 1}
            module_run(self.files, 'cross', '0', r, res, {
                'partial_scan_bulk': 10, 'partial_scan_bulk_slabs': 20 + 10 * r,
                'partial_scan_one': 0, 'partial_scan_one_slabs': 0,
                'free_lock_full_partial': 100,
                'free_wait_full_partial': 8 + 2 * r,
                'free_lock_empty_on': 50, 'free_wait_empty_on': 5,
                'unpark_slab': 0, 'partial_scan_bulk_listed': 40 * r})
            module_run(self.files, 'cross', '1', r, res, {
                'partial_scan_bulk': 10, 'partial_scan_bulk_slabs': 30,
                'unpark_slab': 10, 'unpark_free_1': 1, 'unpark_free_2_3': 0,
                'unpark_free_4_7': 0, 'unpark_free_8_15': 0,
                'unpark_free_16': 4, 'unpark_free_all': 5,
                'free_lock_full_partial': 90, 'free_wait_full_partial': 0})
            module_run(self.files, 'cross', '2', r, res, {
                'partial_scan_bulk': 10, 'partial_scan_bulk_slabs': 30})
        lines = comparison.measure(record.full_runs(self.dir), self.dir)
        unpark = section(lines, '== free objects')
        # the shares of all runs; no row for a mode that unparked nothing
        self.assertEqual(rows(unpark, 'cross'),
                         ['cross on 20 10.0% 0.0% 0.0% 0.0% 40.0% 50.0%'])
        self.assertEqual(rows(section(lines, '== refill scan'), 'cross',
                              'off'),
                         ['cross off 10 (10-10) 3.50 (3.00-4.00) '
                          '6.00 (4.00-8.00)', 'cross off 0 (0-0) n/a n/a'])
        self.assertEqual(rows(section(lines, '== list_lock in __slab_free'),
                              'cross', 'off'), [
            'cross off 100 (100-100) 11 (10-12)', 'cross off 0 (0-0) 0 (0-0)',
            'cross off 50 (50-50) 5 (5-5)', 'cross off 0 (0-0) 0 (0-0)'])
        self.assertNotRegex('\n'.join(lines),
                            'free_empty_deferred|left listed')

    def test_no_measure_counters(self):
        """runs of a kernel without the measurement counters: no tables"""
        module_run(self.files, 'cross', '0', 1, {'ops_per_sec': 1},
                   {'alloc_slab': 5})
        runs = record.full_runs(self.dir)
        self.assertEqual(comparison.measure(runs, self.dir), [])
        self.assertFalse(any(x.startswith('== free objects')
                             for x in self.report()))
        # asked for (meta.txt's runs line, as slabpark.run.runs_line
        # writes it): a line saying there were none
        self.report('--where', 'TCG guest', '--runs', '1 x 1000 ms; '
                    'PLACEMENTS="cross" MEASURE=1')
        self.assertEqual(comparison.measure(runs, self.dir)[1:], [
            '== measurement counters: none in these runs (make run '
            'MEASURE=1 boots the kernel that has them)'])

    def test_sweep(self):
        fixtures.synth(self.dir, {'0': [100e3, 110e3], '1': [120e3, 118e3]},
                       places=('cross-sc60', 'cross-sc120', 'local-sc60'))
        lines = self.report()
        sw = section(lines, '== sheaf capacity sweep')
        self.assertEqual([x.split()[:3] for x in sw if x.split()[:1] in (
            ['cross'], ['local'])][:6], [
            ['cross', '60', 'off'], ['cross', '60', 'on'],
            ['cross', '120', 'off'], ['cross', '120', 'on'],
            ['local', '60', 'off'], ['local', '60', 'on']])
        # (ops/s: the synthetic delta documents carry no results)
        for want in ('cross 60 on 99.9 (99.9-99.9) 40.00 (40.00-40.00) -',
                     'cross 120 off 50000 (50000-50000) 300 (300-300)',
                     'cross 120 on 402 (401-402) 82 (81-82)'):
            self.assertIn(want, [squeeze(x) for x in sw])
        # the noise floor: the local runs at the smallest capacity
        self.assertIn('over its 4 runs', section(lines, '== noise')[1])

    def test_sweep_noise_floor(self):
        """the noise floor of a sweep: the local runs at the smallest
        capacity (by number: 8 before 60 and 120), not all local runs"""
        fixtures.synth(self.dir, {'0': [100e3, 110e3], '1': [120e3, 90e3]},
                       places=('local-sc60', 'local-sc120'))
        fixtures.synth(self.dir, {'0': [300e3, 310e3]}, places=('local-sc8',))
        self.assertEqual(section(self.report(), '== noise')[1],
                         '   the local placement, which parks nothing, gave '
                         '0.30-0.31 M ops/s over its 2 runs')

    def lockstat_dir(self):
        ls = os.path.join(self.files, 'lockstat')
        fixtures.write(os.path.join(ls, 'cross-park0-1.txt'), '\n'.join((
            'label: cross park=0 round 1', 'class: &n->list_lock',
            'contentions: 5002', 'acquisitions: 1000004',
            'con_bounces: 4322', 'acq_bounces: 70003',
            'waittime_total_us: 25100.50', 'waittime_avg_us: 5.02',
            'waittime_max_us: 7000.25',
            'contention_point: 3000 __slab_free+0x1a0/0x3c0',
            'contention_point: 2000 get_partial_node_bulk+0x50/0x200',
            'contending_point: 4000 refill_sheaf+0x10/0x90 [slub_stress]',
            '')))
        fixtures.write(os.path.join(ls, 'cross-park0-2.txt'), '\n'.join((
            'contentions: 1000', 'acquisitions: 1000000',
            'waittime_total_us: 100.00', 'waittime_avg_us: 0.10',
            'waittime_max_us: 3.00',
            'contention_point: 1000 __slab_free+0x10/0x3c0', '')))
        fixtures.write(os.path.join(ls, 'cross-park2-1.txt'), '\n'.join((
            'contentions: 2', 'acquisitions: 900000',
            'waittime_total_us: 1.00', 'waittime_avg_us: 0.50',
            'waittime_max_us: 0.70',
            'contention_point: 2 get_partial_node_bulk+0x50/0x200', '')))
        fixtures.write(os.path.join(ls, 'cross-park1-1.txt'), '\n'.join((
            'contentions: 2500', 'acquisitions: 1000000',
            'waittime_total_us: 10.00', 'waittime_avg_us: 1.00',
            'waittime_max_us: 2.00',
            'contention_point: 2000 __slab_free+0x1a0/0x3c0', '')))
        # park_slab of the runs (park=0's delta documents: none)
        for m, r, parks in (('0', 1, None), ('0', 2, None), ('1', 1, 40),
                            ('2', 1, 900)):
            module_run(self.files, 'cross', m, r, {'ops_per_sec': 1})
            path = os.path.join(self.files, 'runs', 'cross', 'park' + m,
                                '%d.json' % r)
            if parks is None:
                os.remove(path)
            else:
                with open(path) as f:
                    doc = json.load(f)
                doc['caches']['nfs_page_test']['metrics']['park_slab'][
                    'value'] = parks
                with open(path, 'w') as f:
                    json.dump(doc, f)
        return record.full_runs(self.dir)

    def test_lockstat(self):
        lines = comparison.lockstat(self.lockstat_dir(), self.files,
                                    self.dir)
        cls = section(lines, '== &n->list_lock (')
        # median (min-max); an even count: the mean of the middle two
        self.assertEqual([x for x in cls if x.startswith('cross ')], [
            'cross     off       2  3001 (1000-5002)       '
            '1000002 (1000000-1000004)    0.30 (0.10-0.50)%',
            'cross     on        1  2500 (2500-2500)       '
            '1000000 (1000000-1000000)    0.25 (0.25-0.25)%',
            'cross     always    1  2 (2-2)                '
            '900000 (900000-900000)       0.00 (0.00-0.00)%',
            'cross     off       2  12600 (100-25101)          '
            '2.6 (0.1-5.0)          3502 (3-7000)',
            'cross     on        1  10 (10-10)                 '
            '1.0 (1.0-1.0)          2 (2-2)',
            'cross     always    1  1 (1-1)                    '
            '0.5 (0.5-0.5)          1 (1-1)'])
        # summed per function, median (min-max) over runs, a missing run 0
        self.assertEqual([x for x in section(lines, '== &n->list_lock call')
                          if x.startswith('cross ')], [
            'cross     off    waiter  __slab_free                      '
            '2000 (1000-3000)',
            'cross     off    waiter  get_partial_node_bulk            '
            '1000 (0-2000)',
            'cross     off    holder  refill_sheaf                     '
            '2000 (0-4000)',
            'cross     on     waiter  __slab_free                      '
            '2000 (2000-2000)',
            'cross     always waiter  get_partial_node_bulk            '
            '2 (2-2)'])
        # the differences to park=0 and the spread verdict
        self.assertEqual([x for x in section(lines, '== parks against')
                          if x.startswith('cross ')], [
            'cross     off       2  0 (0-0)              2000 (1000-3000)'
            '     -',
            'cross     on        1  40 (40-40)           2000 (2000-2000)'
            '     0 fewer, within spread',
            'cross     always    1  900 (900-900)        0 (0-0)         '
            '     2000 fewer, beyond spread',
            'cross     off       2  3001 (1000-5002)     -',
            'cross     on        1  2500 (2500-2500)     '
            '501 fewer, within spread',
            'cross     always    1  2 (2-2)              '
            '2999 fewer, beyond spread'])

    def test_no_lockstat(self):
        module_run(self.files, 'cross', '0', 1, {'ops_per_sec': 1})
        runs = record.full_runs(self.dir)
        self.assertEqual(comparison.lockstat(runs, self.files, self.dir), [])
        fixtures.write(os.path.join(self.dir, 'meta.txt'),
                       'runs: 1 x 1000 ms; PLACEMENTS="cross" LOCKSTAT=1\n')
        self.assertEqual(comparison.lockstat(runs, self.files, self.dir), [
            '', '== &n->list_lock: no lock_stat excerpts in %s/lockstat' %
            self.files])

    def test_lockstat_bad_number(self):
        """a count that is not a number: the error names its file"""
        self.lockstat_dir()
        bad = os.path.join(self.files, 'lockstat', 'cross-park1-1.txt')
        fixtures.write(bad, 'contentions: ?\n')
        err = io.StringIO()
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            self.assertEqual(cli.main(['report', self.dir]), 1)
        self.assertEqual(err.getvalue(), "slabpark report: %s: '?' is not "
                         "a number\n" % bad)

    def test_noise_floor_without_where(self):
        fixtures.synth(self.dir, {'0': [100e3, 110e3]})
        os.remove(os.path.join(self.dir, 'meta.txt'))
        self.assertEqual(section(self.report(), '== noise')[0],
                         '== noise floor:')

    def test_stray_file_in_runs(self):
        """a file beside the placements in runs/ is not a placement"""
        fixtures.synth(self.dir, {'0': [100e3]})
        fixtures.write(os.path.join(self.files, 'runs', 'notes.txt'), 'x\n')
        self.assertEqual(record.scenarios(record.full_runs(self.dir)),
                         ['cross', 'local'])

    def test_plot_counters_by_mode(self):
        """the counters panel puts a placement's values under their mode,
        NaN under the modes it lacks (gnuplot's input, read as it runs)"""
        fixtures.synth(self.dir, {'1': [100e3]}, places=('cross',))
        fixtures.synth(self.dir, {'0': [100e3], '1': [100e3]},
                       places=('local',))
        seen = {}

        def gnuplot(argv, input, text):
            path = input.split("plot for [k=1:2] '")[3].split("'")[0]
            with open(path) as f:
                seen['counters'] = f.read().splitlines()
            return subprocess.CompletedProcess(argv, 0)
        with mock.patch.object(comparison.shutil, 'which', lambda c: c), \
                mock.patch.object(comparison.subprocess, 'run', gnuplot):
            self.report()
        cross = [x.split() for x in seen['counters']
                 if x.startswith('cross:park_slab ')][0]
        self.assertEqual(cross[1:4], ['NaN'] * 3)
        self.assertEqual(cross[4:], ['20000'] * 3)

    @unittest.skipUnless(shutil.which('gnuplot'), 'gnuplot not installed')
    def test_plot(self):
        fixtures.synth(self.dir, {'0': [100e3, 110e3], '1': [120e3, 90e3]})
        lines = self.report()
        png = os.path.join(self.dir, 'parking.png')
        self.assertIn('plot: ' + png, lines)
        with open(png, 'rb') as f:
            self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')

    def test_fold(self):
        self.assertEqual(comparison.fold('aa bb cc\n' + 'x' * 7, 5),
                         ['aa ', 'bb cc', 'xxxxx', 'xx'])

    def test_experiments_report(self):
        """BASE=1's boots are not a module comparison: the experiments'
        tables (slabpark.report)"""
        for b in ('boot01-base', 'boot02-patched'):
            module_run(os.path.join(self.dir, b, 'files'), 'cross',
                       'base' if b.endswith('base') else '0', 1,
                       {'ops_per_sec': 1000})
        self.assertIsNone(comparison.data_dir(self.dir))
        self.assertIn('== the stress module', self.report())

    def test_no_runs(self):
        os.makedirs(os.path.join(self.files, 'runs'))
        err = io.StringIO()
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            self.assertEqual(cli.main(['report', self.dir]), 1)
        self.assertIn('no module runs in', err.getvalue())


def lock_stat_file(path):
    """a /proc/lock_stat with &n->list_lock (two versions), &zone->lock"""
    def line(*v):
        return '%40s:%14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s ' \
            '%14s\n' % v

    def site(cls, n, addr, sym):
        return '%40s %14s %29s %s\n' % (cls, n, addr, sym)
    dots = '.' * 221 + '\n'
    text = 'lock_stat version 0.4\n' + '-' * 221 + '\n' + \
        '%40s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s\n' \
        % ('class name', 'con-bounces', 'contentions', 'waittime-min',
           'waittime-max', 'waittime-total', 'waittime-avg', 'acq-bounces',
           'acquisitions', 'holdtime-min', 'holdtime-max', 'holdtime-total',
           'holdtime-avg') + '-' * 221 + '\n\n'
    text += line('&n->list_lock', 4321, 5000, '0.10', '1234.56', '25000.50',
                 '5.00', 70000, 1000000, '0.05', '80.00', '90000.00', '0.09')
    text += '%27s%13s\n' % ('', '-' * 13)
    text += site('&n->list_lock', 3000, '[<00000000c0ffee01>]',
                 '__slab_free+0x1a0/0x3c0')
    text += site('&n->list_lock', 2000, '[<00000000c0ffee02>]',
                 'get_partial_node_bulk+0x50/0x200')
    text += '%27s%13s\n' % ('', '-' * 13)
    text += site('&n->list_lock', 4000, '[<00000000c0ffee03>]',
                 'refill_sheaf+0x10/0x90 [slub_stress]')
    text += '\n' + dots + '\n'
    text += line('&zone->lock', 10, 20, '0.20', '2.00', '10.00', '0.50', 30,
                 40, '0.10', '1.00', '2.00', '0.05')
    text += '%29s%11s\n' % ('', '-' * 11)
    text += site('&zone->lock', 7, '[<00000000c0ffee04>]',
                 'rmqueue_bulk+0x10/0x90')
    text += '\n' + dots + '\n'
    text += line('&n->list_lock#2', 1, 2, '0.10', '7000.25', '100.00',
                 '50.00', 3, 4, '0.10', '1.00', '2.00', '0.50')
    fixtures.write(path, text)


class ScriptsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_sh(self, argv, **env):
        return subprocess.run(argv, env=dict(os.environ, **env), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def test_lockstat_report(self):
        ls = os.path.join(self.t, 'lock_stat')
        lock_stat_file(ls)
        p = self.run_sh(['sh', LOCKSTAT_SH, 'report', 'off'],
                        LOCK_STAT_FILE=ls)
        # &n->list_lock summed over its #versions
        self.assertEqual((p.returncode, p.stdout.splitlines()), (0, [
            'label: off', 'class: &n->list_lock', 'contentions: 5002',
            'acquisitions: 1000004', 'con_bounces: 4322',
            'acq_bounces: 70003', 'waittime_total_us: 25100.50',
            'waittime_avg_us: 5.02', 'waittime_max_us: 7000.25',
            'contention_point: 3000 __slab_free+0x1a0/0x3c0',
            'contention_point: 2000 get_partial_node_bulk+0x50/0x200',
            'contending_point: 4000 refill_sheaf+0x10/0x90 [slub_stress]']))
        p = self.run_sh(['sh', LOCKSTAT_SH, 'report', '--csv', 'on'],
                        LOCK_STAT_FILE=ls)
        self.assertEqual(p.stdout, 'on,&n->list_lock,5002,1000004,4322,'
                         '70003,25100.50,5.02,7000.25\n')
        self.assertEqual(self.run_sh(['sh', LOCKSTAT_SH, 'header']).stdout,
                         'label,class,contentions,acquisitions,con_bounces,'
                         'acq_bounces,waittime_total_us,waittime_avg_us,'
                         'waittime_max_us\n')
        p = self.run_sh(['sh', LOCKSTAT_SH, 'report', '--csv', 'x'],
                        LOCK_STAT_FILE=ls, LOCK_CLASS='&rq->__lock')
        self.assertEqual(p.stdout, 'x,&rq->__lock,0,0,0,0,0.00,0.00,0.00\n')
        self.run_sh(['sh', LOCKSTAT_SH, 'clear'], LOCK_STAT_FILE=ls)
        with open(ls) as f:
            self.assertEqual(f.read().strip(), '0')

    def test_lockstat_report_errors(self):
        p = self.run_sh(['sh', LOCKSTAT_SH, 'report'],
                        LOCK_STAT_FILE=os.path.join(self.t, 'none'))
        self.assertEqual(p.returncode, 1)
        self.assertIn('lacks CONFIG_LOCK_STAT', p.stderr)
        p = self.run_sh(['sh', LOCKSTAT_SH, 'frob'])
        self.assertEqual(p.returncode, 2)
        self.assertRegex(p.stderr, '^usage:')

    def fake(self, name, text):
        path = os.path.join(self.t, 'bin', name)
        fixtures.write(path, '#!/bin/bash\n' + text)
        os.chmod(path, 0o755)
        return path

    def perf_lock(self, *args, **env):
        """perf-lock.sh ARGS with the fake perf: BPF works with
        FAKE_BPF=1; it logs its arguments to perf.log"""
        perf = self.fake('perf', '''echo "$*" >>"$FAKE_LOG"
case "$*" in
"lock con -ab"*)
    [ "${FAKE_BPF:-0}" = 1 ] || { echo " Error: switch \\`b' is not \
available because no BUILD_BPF_SKEL=1" >&2; exit 129; }
    [ "$4" = -- ] || echo "  contended   total wait   type   caller"
    ;;
"lock contention"*) echo "  contended   total wait   type   caller" ;;
esac
# the workload after --, as perf runs it
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
[ $# -gt 1 ] || exit 0
shift
"$@" || echo "fake perf: the workload exited with $?"
''')
        self.log = os.path.join(self.t, 'perf.log')
        with open(self.log, 'w'):
            pass
        return self.run_sh(['bash', PERF_LOCK] + list(args), PERF=perf,
                           FAKE_LOG=self.log, **env)

    def logged(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def test_perf_lock_bpf(self):
        p = self.perf_lock('-t', '0.1', FAKE_BPF='1')
        self.assertEqual((p.returncode, self.logged()[-1]),
                         (0, 'lock con -abl -E 5 -- sleep 0.1'))
        self.assertIn("perf-lock: mode: BPF ('%s/bin/perf lock con -abl -E 5',"
                      " in-kernel aggregation, low perturbation), window 0.1 s"
                      % self.t, p.stdout)

    def test_perf_lock_record(self):
        """without BPF: perf lock record + contention, saying why and that
        it perturbs the workload"""
        p = self.perf_lock('-t', '0.1')
        self.assertEqual(p.returncode, 0)
        self.assertEqual(self.logged()[1].split()[:4],
                         ['lock', 'record', '-a', '-o'])
        for want in ('record mode writes every lock event to perf.data and '
                     'perturbs the workload', 'BPF unavailable: Error: '
                     'switch', 'throughput halve'):
            self.assertIn(want, p.stdout)

    def test_perf_lock_usage(self):
        p = self.perf_lock('-t', '1', '--sysfs-root', FAKE_BPF='1')
        self.assertEqual(p.returncode, 2)
        self.assertIn('usage:', p.stderr)
        p = self.perf_lock('-t', '0')
        self.assertEqual(p.returncode, 2)
        self.assertIn('positive number of seconds', p.stderr)
        p = self.run_sh(['bash', PERF_LOCK, '-t', '1'],
                        PERF=os.path.join(self.t, 'nonexistent', 'perf'))
        self.assertEqual(p.returncode, 1)
        self.assertRegex(p.stderr, 'not found.*linux-perf')

    def test_perf_lock_window(self):
        """the counters of the caches over the same window: slab-dump.sh
        before and after it (a fixture box, SYSFS/PROC) and slabstat
        split of the two; a wrong cache is refused before the window"""
        box = os.path.join(self.t, 'box')
        test_slabstat.mk_box(box, 1, True)
        env = dict(FAKE_BPF='1', SYSFS=os.path.join(box, 'sys'),
                   PROC=os.path.join(box, 'proc'))
        out = os.path.join(self.t, 'out')
        p = self.perf_lock('-t', '0.2', '--out', out, 'nfs_page_test', **env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('slabstat split of nfs_page_test (the same window):\n'
                      '  ', p.stdout)
        self.assertIn('per-node split of the counter deltas', p.stdout)
        for f in ('slab-before.dump', 'slab-after.dump'):
            with open(os.path.join(out, f)) as d:
                self.assertEqual(d.readline(), '@slab-dump 1\n')
        # the dumps are perf's workload, around the sleep: the same window
        self.assertRegex(self.logged()[-1], r'^lock con -abl -E 5 -- sh -c '
                         r'sh "\$0" "\$@" >"\$SP_WORK/slab-before.dump".*'
                         r'sleep "\$SP_SECONDS".*slab-dump\.sh nfs_page_test$')
        p = self.perf_lock('-t', '30', 'nfs_page_tst', **env)
        self.assertEqual(p.returncode, 1)
        self.assertIn('close names: nfs_page_test', p.stderr)
        self.assertIn('cannot read the counters of nfs_page_tst', p.stderr)
        self.assertEqual(self.logged(), [])
        # a kernel without statistics: refused before perf runs
        slab = os.path.join(box, 'sys', 'kernel', 'slab', 'nfs_page_test')
        for f in os.listdir(slab):
            if f in ('alloc_fastpath', 'free_fastpath', 'free_slowpath',
                     'alloc_slowpath') or os.stat(
                         os.path.join(slab, f)).st_mode & 0o777 == 0o600:
                os.remove(os.path.join(slab, f))
        p = self.perf_lock('-t', '30', 'nfs_page_test', **env)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('has no statistics', p.stderr)
        self.assertEqual(self.logged(), [])
