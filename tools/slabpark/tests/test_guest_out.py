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
        for f in self.WANT['files']:
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
        fixtures.write(os.path.join(t, 'summary.txt'), '')
        self.assertEqual(failed(guest_out.report_checks(t, self.WANT)), [
            'report file summary.txt',
            'report file host/runs/cross/parkbase/1.json',
            'cross.csv groups metric,base,kind',
            "cross.csv has the runs' ops_per_sec",
            'report.txt has /^== placement cross: base 1 runs of 1000 ms$/',
            'summary.csv has a row cross,base,1,...'])


if __name__ == '__main__':
    unittest.main()
