# SPDX-License-Identifier: GPL-2.0
"""Tests of summary.txt (slabpark.summary) and report.txt's tables
(slabpark.record): limits, the conclusion, the rows present only when
measured, the headers, and that both reports give the same numbers.

Fixtures: tests/data/ holds trimmed real results directories of make run
(tests/data/README says how they were made); fixtures.synth() writes
synthetic ones in the same layout."""

import io
import os
import re
import socket
import tempfile
import unittest
from contextlib import redirect_stdout

from slabpark import __main__ as cli
from slabpark import record, summary
from slabpark.tests import fixtures

REAL = 'guest-2x2'
# summary.txt's row labels -> report.txt's
ROW_MAP = {'park ratio': 'park ratio', 'slowpath share': 'free_slowpath share',
           '__slab_free waits': 'waits __slab_free',
           'slabs at peak': 'peak_slabs', 'slabs at rest': 'rest_slabs',
           'ops/s': 'ops_per_sec'}
CELL = re.compile(r'(\S+) (beyond noise|within noise|noise unknown)')


def limits(test, lines, what):
    """the limits of summary.txt: <= 80 columns, <= 40 lines"""
    test.assertLessEqual(len(lines), summary.MAX_LINES,
                         '%s: %d lines' % (what, len(lines)))
    for line in lines:
        test.assertLessEqual(len(line), summary.MAX_COLS,
                             '%s: %d columns: %s' % (what, len(line), line))


def parse_summary(lines):
    """{(scenario, label): [(median, verdict or '')...]} in column order"""
    out = {}
    sc = None
    for line in lines:
        if line and not line.startswith(' ') and \
                line.split()[0] in ('cross', 'local', 'balanced'):
            sc = line.split()[0]
            continue
        if sc and line.startswith('  ') and line.strip():
            label = line[:summary.LABEL_W].strip()
            rest = line[summary.LABEL_W:]
            ref = rest[:summary.REF_W].strip()
            cells = CELL.findall(rest[summary.REF_W:])
            if (sc, label) not in out:
                # a second block of a placement repeats the reference
                out[(sc, label)] = [(ref, '')]
            out[(sc, label)].extend(cells)
        elif not line.strip():
            sc = None
    return out


def parse_record(lines):
    """{(scenario, label): [median...]} of report.txt's placement tables"""
    out = {}
    sc = None
    for line in lines:
        m = re.match(r'== placement (\S+):', line)
        if m:
            sc = m.group(1)
            continue
        if line.startswith('=='):
            sc = None
        if sc and line.startswith('  ') and not line.startswith('   ') \
                and not line.startswith('  0 in'):
            label = line[:record.LABEL_W].strip()
            rest = line[record.LABEL_W:]
            cells = [rest[i:i + record.CELL_W]
                     for i in range(0, len(rest), record.CELL_W)]
            out[(sc, label)] = [c.split()[0].rstrip('*') for c in cells
                                if c.strip()]
    return out


class SummaryRealTest(unittest.TestCase):
    """the summary of a real 2 x 2 guest run (make run RUNS=2
    DURATION_MS=3000), trimmed"""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = fixtures.copy_real(REAL, self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_limits(self):
        lines = summary.summary(self.dir)
        limits(self, lines, REAL)
        # the layout of the summary: header, a block per placement
        self.assertTrue(lines[0].startswith('slab parking: summary'))
        self.assertTrue(lines[-1].endswith('.'))
        self.assertTrue(any(x.startswith('Conclusion: ') for x in lines))
        for p in ('cross', 'local', 'balanced'):
            head = next(x for x in lines if x.startswith(p + ' '))
            for name in ('off (park=0)', 'on contention (park=1)',
                         'always (park=2)'):
                self.assertIn(name, head)

    def test_as_the_run_wrote_it(self):
        """summary.txt made again from the trimmed fixture is the one make
        run printed (a change of the format refreshes tests/data/)"""
        with open(os.path.join(self.dir, 'summary.txt')) as f:
            self.assertEqual(summary.summary(self.dir), f.read().splitlines())

    def test_header(self):
        text = '\n'.join(summary.summary(self.dir))
        self.assertRegex(text, r'kernel 7\.3\.4\S*, series RFC PATCH v2, '
                         r'project \S+')
        self.assertIn('ran on: TCG guest, 2 nodes x 2 vCPUs', text)
        self.assertIn('topology: 2 nodes, ', text)
        self.assertRegex(text, r'runs: 2 x 3000 ms')

    def test_cli_writes_summary_txt(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = cli.main(['summary', self.dir])
        self.assertEqual(rc, 0)
        with open(os.path.join(self.dir, 'summary.txt')) as f:
            text = f.read()
        self.assertEqual(text, out.getvalue())
        limits(self, text.splitlines(), 'summary.txt')

    def test_no_lockstat_rows_unmeasured(self):
        text = '\n'.join(summary.summary(self.dir))
        self.assertNotIn('__slab_free waits', text)

    def test_parity_with_report_txt(self):
        """the medians of summary.txt are those of report.txt: the
        placement tables (as make run wrote them), and the ops/s and
        slabs of slabpark.comparison's tables, another code path"""
        sm = parse_summary(summary.summary(self.dir))
        with open(os.path.join(self.dir, 'report.txt')) as f:
            rep = f.read().splitlines()
        rc = parse_record(rep)
        self.assertEqual(rc, parse_record(record.record(self.dir)))
        n = 0
        for (sc, label), cells in sm.items():
            want = rc[(sc, ROW_MAP[label])]
            self.assertEqual([c[0] for c in cells], want, (sc, label))
            n += 1
        self.assertGreaterEqual(n, 12)
        # comparison.placements: median ops/s per placement and mode
        i = rep.index(next(x for x in rep if x.startswith(
            '== placements at equal threads')))
        for line in rep[i + 2:]:
            w = line.split()
            if not w or w[0] not in ('cross', 'local', 'balanced'):
                break
            got = [c[0] for c in sm[(w[0], 'ops/s')]]
            self.assertEqual(got, [record.fmt_value('ops_per_sec', float(x))
                                   for x in w[2:]], line)
        # the footprint table: slabs at peak and at rest, rounded
        place = None
        for line in rep[rep.index(next(x for x in rep if x.startswith(
                '== footprint'))):]:
            w = line.split()
            if w and w[0] in ('cross', 'local', 'balanced'):
                place = w.pop(0)
            what = ' '.join(w[:2])
            key = {'peak slabs': 'slabs at peak',
                   'rest slabs': 'slabs at rest'}.get(what)
            if not key:
                continue
            meds = [float(x) for x in w[2::2]]
            for (med, _), awk in zip(sm[(place, key)], meds):
                self.assertLessEqual(abs(float(med) - awk), 0.5, line)

    def test_no_hostname(self):
        """no host name, as a word, in what a tester pastes: the fixture
        was made on this project's machine, and the reports made here"""
        word = re.compile(r'(?<![\w.-])%s(?![\w-])' %
                          re.escape(socket.gethostname()))
        with open(os.path.join(self.dir, 'report.txt')) as f:
            lines = f.read().splitlines()
        lines += summary.summary(self.dir) + record.record(self.dir)
        for line in lines:
            self.assertIsNone(word.search(line), line)


class SummarySynthTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_conclusion_beyond(self):
        # park=1 apart from park=0; park=2 overlaps it with another median;
        # no local placement: no noise floor of ops/s
        fixtures.synth(self.dir, {'0': [100e3, 105e3], '1': [150e3, 155e3],
                                  '2': [101e3, 112e3]},
                       places=('cross', 'balanced'))
        lines = summary.summary(self.dir)
        limits(self, lines, 'beyond')
        text = ' '.join(x.strip() for x in lines[lines.index(next(
            x for x in lines if x.startswith('Conclusion: '))):])
        self.assertIn('beyond noise are in cross: park ratio (park=1 40%, '
                      'park=2 100%), slabs at rest (park=1 0.80x, park=2 '
                      '0.61x), ops/s (park=1 1.49x); in balanced: park ratio',
                      text)
        self.assertIn('the rest is within noise.', text)
        row = next(x for x in lines if x.startswith('  ops/s'))
        self.assertEqual(CELL.findall(row), [('152k', 'beyond noise'),
                                             ('106k', 'within noise')])

    def test_conclusion_within(self):
        # every mode the same: nothing beyond noise, the sentence says so
        same = {'0': [100e3, 105e3], '1': [101e3, 110e3],
                '2': [96e3, 103e3]}
        fixtures.synth(self.dir, same, places=('cross',),
                       park={'0': 0, '1': 0, '2': 0})
        for m in '012':
            for r in (1, 2):
                p = os.path.join(self.dir, 'guest', 'files', 'runs', 'cross',
                                 'park' + m, '%d.results' % r)
                with open(p) as f:
                    t = f.read()
                t = re.sub(r'rest_slabs: \d+', 'rest_slabs: 50', t)
                with open(p, 'w') as f:
                    f.write(t)
        lines = summary.summary(self.dir)
        limits(self, lines, 'within')
        cross = lines[lines.index(next(
            x for x in lines if x.startswith('cross'))):]
        text = ' '.join(lines[lines.index(next(
            x for x in lines if x.startswith('Conclusion: '))):])
        self.assertEqual(text, 'Conclusion: nothing beyond noise at this '
                         'scale (2 runs per mode of 3000 ms).')
        self.assertNotIn('beyond noise ', ' '.join(cross[:7]))

    def test_ops_noise_floor(self):
        """ops/s apart by range, but by less than the local placement's
        spread over its modes (the noise floor): within noise"""
        fixtures.synth(self.dir, {'0': [100e3, 105e3], '1': [150e3, 155e3],
                                  '2': [40e3, 45e3]})
        lines = summary.summary(self.dir)
        # local: 40k-155k over all modes, median 102.5k
        self.assertIn('noise floor 112%', ' '.join(lines[:12]))
        row = next(x for x in lines if x.startswith('  ops/s'))
        self.assertEqual(CELL.findall(row), [('152k', 'within noise'),
                                             ('42.5k', 'within noise')])
        rec = parse_record(record.record(self.dir))
        self.assertEqual(rec[('cross', 'ops_per_sec')], ['102k', '152k',
                                                         '42.5k'])
        self.assertNotIn('*', next(x for x in record.record(self.dir)
                                   if x.startswith('  ops_per_sec')))

    def test_one_run_claims_nothing(self):
        fixtures.synth(self.dir, {'0': [100e3], '1': [150e3], '2': [160e3]})
        lines = summary.summary(self.dir)
        self.assertIn('noise unknown', '\n'.join(lines))
        self.assertIn('nothing is claimed', ' '.join(lines[-2:]))

    def test_one_mode(self):
        fixtures.synth(self.dir, {'base': [100e3, 105e3]})
        lines = summary.summary(self.dir)
        self.assertEqual(lines[-1], 'Conclusion: one mode only (base '
                         'kernel), nothing to compare it with.')

    def test_lockstat_rows_only_when_measured(self):
        ops = {'0': [100e3, 105e3], '1': [101e3, 104e3], '2': [100e3, 103e3]}
        fixtures.synth(self.dir, ops, lockstat=True)
        lines = summary.summary(self.dir)
        limits(self, lines, 'lockstat')
        rows = [x for x in lines if x.startswith('  __slab_free waits')]
        self.assertEqual(len(rows), 2)    # cross and local
        self.assertEqual(CELL.findall(rows[0]), [('302', 'beyond noise'),
                                                 ('102', 'beyond noise')])
        rec = parse_record(record.record(self.dir))
        self.assertEqual(rec[('cross', 'waits __slab_free')],
                         ['502', '302', '102'])

    def test_measure_waits(self):
        ops = {'0': [100e3, 105e3], '1': [101e3, 104e3], '2': [100e3, 103e3]}
        fixtures.synth(self.dir, ops, measure=True)
        row = next(x for x in summary.summary(self.dir)
                   if x.startswith('  __slab_free waits'))
        # the sum of the measurement kernel's free_wait_* counters
        self.assertEqual(row.split()[2:4], ['315', '215'])

    def test_host_topology_header(self):
        ops = {'0': [100e3, 105e3], '1': [101e3, 104e3], '2': [100e3, 103e3]}
        fixtures.synth(self.dir, ops, host=True)
        lines = summary.summary(self.dir)
        limits(self, lines, 'host')
        self.assertIn('ran on: host, 2 nodes x 64 CPUs, nodes 0 -> 1', lines)
        self.assertIn('CPU: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', lines)
        self.assertIn('topology: 2 nodes, 2 socket(s), 128 CPUs online, SMT '
                      '2 threads/core', lines)
        self.assertIn('topology: alloc node 0, free node 1, distance 20; 64 '
                      'threads a side', lines)
        rec = record.record(self.dir)
        self.assertIn('CPU: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', rec)

    def test_many_scenarios_fit(self):
        """a sheaf sweep has 8 placements: rows are given up, then
        placements, so that the summary stays in its limits"""
        ops = {'0': [100e3, 105e3], '1': [150e3, 155e3]}
        places = ['%s-sc%d' % (p, c) for p in ('cross', 'local')
                  for c in (60, 120, 240, 480)]
        fixtures.synth(self.dir, ops, places=places, lockstat=True)
        lines = summary.summary(self.dir)
        limits(self, lines, 'sweep')
        self.assertTrue(lines[-1].endswith('.'))

    def test_record_limits(self):
        """report.txt's tables: lines <= 100 columns, a configuration
        block, no change columns"""
        ops = {'0': [100e3, 105e3], '1': [150e3, 155e3], '2': [101e3, 104e3],
               '3': [99e3, 102e3]}
        fixtures.synth(self.dir, ops, places=('cross', 'local', 'balanced'),
                       lockstat=True, measure=True)
        lines = record.record(self.dir)
        for line in lines:
            self.assertLessEqual(len(line), record.WIDTH, line)
        conf = lines.index(next(x for x in lines
                                if x.startswith('== configuration')))
        block = ' '.join(lines[conf:lines.index('', conf)])
        for k in ('min_partial 5', 'object_size 64', 'order 0',
                  'sheaf_capacity 60', 'park: park=0 0, park=1 1, '
                  'park=2 2, park=3 3'):
            self.assertIn(k, block)
        rows = parse_record(lines)
        for k in ('min_partial', 'object_size', 'order', 'sheaf_capacity',
                  'park'):
            self.assertNotIn(('cross', k), rows)
        self.assertNotIn('change', '\n'.join(lines))
        self.assertEqual(rows[('cross', 'free_lat_p99_ns')],
                         ['2.05k'] * 4)

    def test_experiments(self):
        """BASE=1's boots, WORKLOAD= and MIN_PARTIAL=1: within the limits,
        against park=0, with a conclusion"""
        from slabpark.tests.test_slabpark import module_run, write
        base = os.path.join(self.dir, 'base')
        for b in range(1, 4):
            module_run(os.path.join(base, 'boot%02d-base' % (2 * b - 1),
                                    'files'), 'local', 'base', 1, 1000 + b, 0)
            for m, ops in (('0', 500), ('1', 700)):
                module_run(os.path.join(base, 'boot%02d-patched' % (2 * b),
                                        'files'), 'local', m, 1, ops + b, 0)
        wl = os.path.join(self.dir, 'wl')
        for t in (4, 8):
            for m in '012':
                for r in (1, 2):
                    write(os.path.join(wl, 'guest', 'files', 'workloads',
                                       'mmap1-t%d' % t, 'park' + m,
                                       '%d.txt' % r),
                          'after maple_node free_add_partial 100\n'
                          'after maple_node park_slab %d\n'
                          'result ops_per_sec %d\n' % (40 * int(m), 500 + r))
        mp = os.path.join(self.dir, 'mp')
        rows = ''.join('%d %s %d %d 2000000 400 200 %d 5 2 0 0 40\n' % (
            r, m, d, 100 + r + 50 * int(m), 8 + d) for r in (1, 2)
            for m, d in (('0', 5), ('0', 10), ('0', 20), ('0', 40), ('1', 5),
                         ('2', 5)))
        write(os.path.join(mp, 'guest', 'files', 'minpartial.txt'),
              'round mode min_partial ops_per_sec allocs churn alloc_slab '
              'peak rest rest_partial parked_max parked_sum '
              'parked_samples\n' + rows)
        want = {base: ('local', 'off (park=0)', 'base kernel', 'ops/s (base '
                       '2.00x, park=1 1.40x)'),
                wl: ('mmap1-t4', 'on contention (park=1)', 'always (park=2)',
                     'maple park ratio (park=1 40%, park=2 80%)'),
                mp: ('cross', 'park=0 mp=5', 'park=0 mp=40',
                     'ops/s (park=1 mp=5 1.49x, park=2 mp=5 1.99x)')}
        for d, words in want.items():
            lines = summary.summary(d)
            limits(self, lines, d)
            text = ' '.join(lines)
            for w in words:
                self.assertIn(w, text)

    def test_no_data(self):
        with self.assertRaises(FileNotFoundError):
            summary.summary(self.dir)
        err = io.StringIO()
        from contextlib import redirect_stderr
        with redirect_stderr(err):
            self.assertEqual(cli.main(['summary', self.dir]), 1)
        self.assertEqual(len(err.getvalue().splitlines()), 1)
        self.assertIn('no runs', err.getvalue())


if __name__ == '__main__':
    unittest.main()
