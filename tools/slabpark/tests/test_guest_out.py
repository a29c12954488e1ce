# SPDX-License-Identifier: GPL-2.0
"""Tests of slabpark.guest_out on test_slabstat's fixture dumps and
hand-made result files."""

import os
import re
import shutil
import tempfile
import unittest

from slabpark import guest_out, slabstat

from . import fixtures
from .test_slabstat import Fixtures


def failed(checks):
    return [name for ok, name, _ in checks if not ok]


class WindowTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fx = Fixtures.get()
        cls.tmp = tempfile.TemporaryDirectory()

    def dumps(self, edit=None):
        """p1, and p3 with free_slowpath's parts EDIT"""
        after = slabstat.read_text(self.fx.dumps['p3'])
        if edit:
            after = re.sub(r'(?m)^(nfs_page_test free_slowpath w ).*$',
                           r'\g<1>' + edit, after)
        paths = []
        for n, text in (('before', slabstat.read_text(self.fx.dumps['p1'])),
                        ('after', after)):
            p = os.path.join(self.tmp.name, n + '.dump')
            with open(p, 'w') as f:
                f.write(text)
            paths.append(p)
        return paths

    def test_window(self):
        split = 'per-node split: >= 90% of free_slowpath on node 1'
        for edit, want in (
                # p1: 62500 62500 187500 187500; the freers (CPUs 2-3,
                # node 1) freed 10^6 more, the allocators 10 more
                ('1500010 C0=62510 C1=62500 C2=687500 C3=687500', []),
                # the fixture's own p1 -> p3: node 1 has 75% of it
                (None, [split]),
                # nothing freed in the window
                ('500000 C0=62500 C1=62500 C2=187500 C3=187500', [
                    'free_slowpath delta is non-zero',
                    'per-node split: node-1 free_slowpath is non-zero '
                    '(freers on node 1)', split])):
            with self.subTest(edit=edit):
                b, a = self.dumps(edit)
                self.assertEqual(failed(guest_out.window_checks(b, a)),
                                 want)


class ReportTest(unittest.TestCase):
    WANT = guest_out.HOST_MODE_REPORT['base']

    def results(self, report, csv_head, summary):
        t = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, t)
        for f in self.WANT['files'] + ('host/compare.log', 'host/knobs') + tuple(
                'host/runs/cross/parkbase/1.' + f for f in ('before.dump', 'after.dump',
                                                            'results')):
            fixtures.write(os.path.join(t, f), 'x\n')
        for f, text in (('report.txt', report), ('cross.csv', csv_head),
                        ('summary.csv', summary)):
            fixtures.write(os.path.join(t, f), text)
        return t

    REPORT = ("modes (the cache's debugfs park switch): base kernel\n"
              '\n== placement cross: base 1 runs of 1000 ms\n'
              'results: x: report.txt\n')

    def test_pass(self):
        t = self.results(self.REPORT, 'metric,base,kind,cache\n'
                         'ops_per_sec,730779,result,\n',
                         'placement,mode\ncross,base,1,5\n')
        self.assertEqual(failed(guest_out.report_checks(t, self.WANT)), [])

    def test_fail(self):
        t = self.results(self.REPORT.replace('1 runs of 1000', '2 runs of '
                                             '1000'),
                         'metric,off,kind\n', 'cross,0,1,5\n')
        os.remove(os.path.join(t, 'host/runs/cross/parkbase/1.json'))
        os.remove(os.path.join(t, 'host/runs/cross/parkbase/1.after.dump'))
        fixtures.write(os.path.join(t, 'summary.txt'), '')
        self.assertEqual(failed(guest_out.report_checks(t, self.WANT)), [
            'report file host/runs/cross/parkbase/1.after.dump',
            'report file summary.txt',
            'report file host/runs/cross/parkbase/1.json',
            'cross.csv groups metric,base,kind',
            "cross.csv has the runs' ops_per_sec",
            'report.txt has /^== placement cross: base 1 runs of 1000 ms$/',
            'summary.csv has a row cross,base,1,...'])


class HostRunsTest(unittest.TestCase):
    OK = 'slabpark: prerequisites ok: 4 nodes, x, nodes 0 -> 2, 1 threads\n'
    NO = 'slabpark: error: FREE_NODE=3: node 3 has no online CPUs (x)\n'

    def test_runs(self):
        """guest-check.sh's topology runs: (check-only's, free3's (status,
        stdout, stderr)), the checks failed"""
        ran, refused = [guest_out.HOST_RUNS[('topology', None)][i][2] for i in (0, 1)]
        ran = 'make run HOST=1 check-only: exit status 0, said /%s/' % ran
        refused = 'make run HOST=1 free3: refused with /%s/' % refused
        for runs, want in (
                ((('0', self.OK, ''), ('1', '', self.NO)), []),
                ((('0', '', self.OK), ('1', '', self.NO)), []),
                ((('1', self.OK, ''), ('0', '', self.NO)), [ran, refused]),
                ((('0', 'nodes 0 -> 1\n', ''), ('1', 'x\n', self.NO)), [ran, refused]),
                ((('0', self.OK, ''), ('1', '', self.NO + 'more\n')), [refused]),
                ((('0', self.OK, ''), ('1', '', 'other\n')), [refused]),
                ((), [ran, refused])):
            with self.subTest(runs=runs), tempfile.TemporaryDirectory() as d:
                for name, texts in zip(('check-only', 'free3'), runs):
                    for x, t in zip(('.rc', '.out', '.err'), texts):
                        fixtures.write(os.path.join(d, name + x), t)
                self.assertEqual(failed(guest_out.host_runs(d, 'topology', 'base')), want)


if __name__ == '__main__':
    unittest.main()
