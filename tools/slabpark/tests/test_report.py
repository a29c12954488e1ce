# SPDX-License-Identifier: GPL-2.0
"""Tests of python3 -m slabpark report and summary (the outputs of
fixtures.CASES as tests/data/outputs/ keeps them) and of
tools/report/perf-lock.sh (against tests/data/fake-perf.sh)."""

import io
import os
import re
import shutil
import socket
import subprocess
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from slabpark import __main__ as cli
from slabpark import comparison, record, runs, summary
from slabpark.tests import fixtures, test_slabstat

TOOLS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PERF_LOCK = os.path.join(TOOLS, 'report', 'perf-lock.sh')
HOSTNAME = re.compile(r'(?<![\w.-])%s(?![\w-])' % re.escape(socket.gethostname()))


def limits(test, text, what):
    lines = text.splitlines()
    test.assertLessEqual(len(lines), summary.MAX_LINES, what)
    for line in lines:
        test.assertLessEqual(len(line), summary.MAX_COLS, (what, line))


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.files = os.path.join(self.dir, 'guest', 'files')

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *args, rc=0):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            self.assertEqual(cli.main(['report', self.dir] + list(args)), rc)
        return out.getvalue().splitlines() if rc == 0 else err.getvalue()

    def test_outputs(self):
        """as kept, printed as written; summary.txt within its limits, the
        full record within 100 columns, no host name"""
        for case in fixtures.CASES:
            with self.subTest(case):
                got = fixtures.outputs(case, os.path.join(self.dir, case))
                self.assertEqual((got['rc'], got['stdout']), ('0', got['report.txt']))
                want = os.path.join(fixtures.DATA, 'outputs', case)
                for name in os.listdir(want):
                    with open(os.path.join(want, name)) as f:
                        self.assertEqual(got[name], f.read(), name)
                limits(self, got['summary.txt'], case)
                rec = got['report.txt'].split('== noise floor')[0]
                for line in rec.splitlines() if '\n\n== placement' in rec else []:
                    self.assertLessEqual(len(line), record.WIDTH, line)
                for text in got.values():
                    self.assertIsNone(HOSTNAME.search(text), case)

    def test_summary(self):
        """python3 -m slabpark summary of the real run prints what the run
        printed, which is the golden one"""
        d = os.path.join(self.dir, 'real')
        fixtures.CASES['guest-2x2'](d)
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(cli.main(['summary', d]), 0)
        for want in ('guest-2x2', 'outputs/guest-2x2'):
            with open(os.path.join(fixtures.DATA, want, 'summary.txt')) as f:
                self.assertEqual(out.getvalue(), f.read(), want)

    def test_bad_data(self):
        """a count that is not a number: the error names its file; a
        metric of two kinds, its run; two layouts, both; no runs: one
        line"""
        fixtures.CASES['lockstat'](self.dir)
        bad = os.path.join(self.files, 'lockstat', 'cross-park1-1.txt')
        fixtures.write(bad, '%s\n\n%40s:%s\n' % (
            fixtures.lock_stat(0, 0, 0, 0).split('\n\n')[0], runs.LOCK_CLASS, ' ?' * 12))
        self.assertEqual(self.report(rc=1), "slabpark report: %s: '?' is not a number\n" % bad)
        # a .results key that is a slabstat counter
        fixtures.write(bad, '')
        fixtures.write(os.path.join(self.files, 'runs', 'cross', 'park1', '1.results'),
                       'free_slowpath: 5\n')
        self.assertEqual(self.report(rc=1), 'slabpark report: cross park=1 round 1: '
                         'free_slowpath is a counter and a result\n')
        os.makedirs(os.path.join(self.dir, 'boot01-base', 'files'))
        self.assertEqual(self.report(rc=1), 'slabpark report: %s: both boot01-base/ and '
                         'guest/files: the runs of two make runs in one directory\n' % self.dir)
        shutil.rmtree(os.path.join(self.dir, 'boot01-base'))
        shutil.rmtree(self.files)
        os.makedirs(os.path.join(self.files, 'runs'))
        self.assertIn('no module runs in', self.report(rc=1))
        empty = os.path.join(self.dir, 'empty')
        os.mkdir(empty)
        for cmd, want in (('report', 'no guest results'), ('summary', 'no runs')):
            err = io.StringIO()
            with redirect_stderr(err):
                self.assertEqual(cli.main([cmd, empty]), 1)
            self.assertEqual(len(err.getvalue().splitlines()), 1)
            self.assertIn(want, err.getvalue())

    @unittest.skipUnless(shutil.which('gnuplot'), 'gnuplot not installed')
    def test_plot(self):
        fixtures.synth(self.dir, {'0': [100e3, 110e3], '1': [120e3, 90e3]})
        lines = self.report('--where', 'host, 2 nodes x 64 CPUs', '--runs', '2 x 3000 ms')
        for want in ('ran on: host, 2 nodes x 64 CPUs', 'runs: 2 x 3000 ms'):
            self.assertIn(want, lines)
        self.assertTrue(lines[-1].endswith(' parking.png guest/'), lines[-1])
        png = os.path.join(self.dir, 'parking.png')
        self.assertIn('plot: ' + png, lines)
        with open(png, 'rb') as f:
            self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')
        # made again without gnuplot: the old plot gone
        with mock.patch.object(shutil, 'which', lambda c: None):
            self.assertTrue(self.report()[-1].endswith(' *.json guest/'))
        self.assertFalse(os.path.exists(png))

    def test_fold(self):
        self.assertEqual(comparison.fold('aa bb cc\n' + 'x' * 7, 5),
                         ['aa ', 'bb cc', 'xxxxx', 'xx'])


class ScriptsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def perf_lock(self, *args, argv0=(PERF_LOCK,), cwd=None, **env):
        """fake-perf.sh: BPF works with FAKE_BPF=1; its argv in perf.log"""
        self.log = os.path.join(self.t, 'perf.log')
        fixtures.write(self.log, '')
        return subprocess.run(['bash', *argv0, *args], cwd=cwd, text=True, capture_output=True,
                              env=dict(os.environ, **{
                                  'PERF': os.path.join(fixtures.DATA, 'fake-perf.sh'),
                                  'FAKE_LOG': self.log, **env}))

    def logged(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def test_perf_lock_bpf(self):
        p = self.perf_lock('-t', '0.1', FAKE_BPF='1')
        self.assertEqual((p.returncode, self.logged()[-1]),
                         (0, 'lock con -abl -E 5 -- sleep 0.1'))
        self.assertIn("perf-lock: mode: BPF ('%s/fake-perf.sh lock con -abl -E 5', in-kernel "
                      "aggregation, low perturbation), window 0.1 s" % fixtures.DATA, p.stdout)
        # a PERF relative to the current directory, not to the work one
        p = self.perf_lock('-t', '0.1', cwd=fixtures.DATA, FAKE_BPF='1', PERF='./fake-perf.sh')
        self.assertEqual((p.returncode, self.logged()[-1]),
                         (0, 'lock con -abl -E 5 -- sleep 0.1'), p.stderr)

    def test_perf_lock_record(self):
        p = self.perf_lock('-t', '0.1')
        self.assertEqual(p.returncode, 0)
        self.assertEqual(self.logged()[1].split()[:4], ['lock', 'record', '-a', '-o'])
        for want in ('record mode writes every lock event to perf.data and perturbs the '
                     'workload', 'BPF unavailable: Error: switch', 'throughput halve'):
            self.assertIn(want, p.stdout)

    def test_usage_and_errors(self):
        for args, env, rc, err in (
                (['-t', '1', '--sysfs-root'], {'FAKE_BPF': '1'}, 2, 'usage:'),
                (['-t', '0'], {}, 2, 'positive number of seconds'),
                (['-t', '1'], {'PERF': self.t + '/nonexistent/perf'}, 1,
                 'not found.*linux-perf')):
            p = self.perf_lock(*args, **env)
            self.assertEqual(p.returncode, rc, args)
            self.assertRegex(p.stderr, err)
        # -h when sed cannot read the script for the usage: perf not run
        with open(PERF_LOCK) as f:
            p = self.perf_lock('-h', argv0=('-c', f.read(), self.t + '/none'))
        self.assertEqual((p.returncode != 0, self.logged()), (True, []))

    def test_perf_lock_window(self):
        """slab-dump.sh before and after the window (a fixture box) and
        slabstat split of the two; a wrong cache refused before it"""
        box = os.path.join(self.t, 'box')
        test_slabstat.mk_box(box, 1, True)
        env = dict(FAKE_BPF='1', SYSFS=os.path.join(box, 'sys'), PROC=os.path.join(box, 'proc'))
        out = os.path.join(self.t, 'out')
        p = self.perf_lock('-t', '0.2', '--out', out, 'nfs_page_test', **env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('slabstat split of nfs_page_test (the same window):\n  ', p.stdout)
        self.assertIn('per-node split of the counter deltas', p.stdout)
        with open(os.path.join(out, 'slabstat.txt')) as f:
            self.assertIn('per-node split of the counter deltas', f.read())
        for f in ('slab-before.dump', 'slab-after.dump'):
            with open(os.path.join(out, f)) as d:
                self.assertEqual(d.readline(), '@slab-dump 1\n')
        # the dumps are perf's workload, around the sleep: the same window
        self.assertRegex(self.logged()[-1], r'^lock con -abl -E 5 -- sh -c sh "\$0" "\$@" '
                         r'>slab-before.dump.*sleep "\$SP_SECONDS".*slab-dump\.sh nfs_page_test$')
        p = self.perf_lock('-t', '30', 'nfs_page_tst', **env)
        self.assertEqual(p.returncode, 1)
        self.assertIn('close names: nfs_page_test', p.stderr)
        self.assertIn('cannot read the counters of nfs_page_tst', p.stderr)
        self.assertEqual(self.logged(), [])
        # a kernel without statistics: refused before perf runs
        slab = os.path.join(box, 'sys', 'kernel', 'slab', 'nfs_page_test')
        for f in os.listdir(slab):
            if f in ('alloc_fastpath', 'free_fastpath', 'free_slowpath', 'alloc_slowpath') or \
                    os.stat(os.path.join(slab, f)).st_mode & 0o777 == 0o600:
                os.remove(os.path.join(slab, f))
        p = self.perf_lock('-t', '30', 'nfs_page_test', **env)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn('has no statistics', p.stderr)
        self.assertEqual(self.logged(), [])
