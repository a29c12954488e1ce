# SPDX-License-Identifier: GPL-2.0
"""Tests of slabpark.slabstat and tools/guest/slab-dump.sh on fixture trees
(the cases of the retired C slabstat's tests, whose output the Python's
matched byte for byte).

  PYTHONPATH=tools python3 -m unittest discover -s tools/slabpark/tests \
      -t tools

The fixture trees (mk_box) have Linux 7.3's formats: stat files "<sum>
C<cpu>=<n> ..." mode 0600, object files "<sum> N<node>=<n> ..." mode
0400, facts mode 0400.
"""

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from slabpark import slabstat

TOOLS = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DUMP_SH = os.path.join(TOOLS, 'guest', 'slab-dump.sh')
CACHE = 'nfs_page_test'

# per-CPU unit deltas on the 2-node 4-CPU box (CPUs 0-1 node 0, 2-3 node 1);
# a tree of scale K holds K times these
FIX_COUNTERS = """
alloc_fastpath 1000000 1000000 0 0
alloc_slowpath 0 0 0 0
alloc_slab 2500 0 0 0
alloc_node_mismatch 0 0 0 0
barn_get 10 0 0 0
barn_get_fail 3 0 0 0
barn_put 0 0 7 0
barn_put_fail 0 0 4000 500
free_add_partial 0 0 60000 40000
free_fastpath 750000 750000 0 0
free_rcu_sheaf 0 0 0 0
free_rcu_sheaf_fail 0 0 0 0
free_remove_partial 0 0 1500 500
free_slab 0 0 2000 0
free_slowpath 62500 62500 187500 187500
order_fallback 0 0 0 0
sheaf_alloc 5 5 5 5
sheaf_flush 0 0 300000 0
sheaf_free 5 5 5 5
sheaf_prefill_fast 0 0 0 0
sheaf_prefill_oversize 0 0 0 0
sheaf_prefill_slow 0 0 0 0
sheaf_refill 600000 0 0 0
sheaf_return_fast 0 0 0 0
sheaf_return_slow 0 0 0 0
"""
FIX_PARK_COUNTERS = """
park_slab 0 0 50000 25000
unpark_slab 74500 0 0 0
"""


def write(path, text, mode=0o400):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.chmod(path, 0o600)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, mode)


def parts_file(path, letter, mode, vals):
    """'<sum> <letter><i>=<v> ...' for the non-zero values"""
    parts = ''.join(' %s%d=%d' % (letter, i, v)
                    for i, v in enumerate(vals) if v)
    write(path, '%d%s\n' % (sum(vals), parts), mode)


def stat_file(path, *vals):
    parts_file(path, 'C', 0o600, vals)


def node_file(path, *vals):
    parts_file(path, 'N', 0o400, vals)


def cache_misc(d):
    for name, val, mode in (
            ('object_size', 96, 0o400), ('slab_size', 128, 0o400),
            ('align', 64, 0o400), ('objs_per_slab', 32, 0o400),
            ('order', 0, 0o400), ('sheaf_capacity', 60, 0o400),
            ('min_partial', 5, 0o600), ('cpu_partial', 0, 0o600),
            ('remote_node_defrag_ratio', 100, 0o600), ('aliases', 0, 0o400),
            ('hwcache_align', 1, 0o400), ('reclaim_account', 0, 0o400),
            ('destroy_by_rcu', 0, 0o400), ('poison', 0, 0o400),
            ('red_zone', 0, 0o400), ('sanity_checks', 0, 0o400),
            ('store_user', 0, 0o400), ('trace', 0, 0o400),
            ('cpu_slabs', 0, 0o400), ('slabs_cpu_partial', '0(0)', 0o400)):
        write(os.path.join(d, name), '%s\n' % val, mode)
    write(os.path.join(d, 'ctor'), '', 0o400)
    write(os.path.join(d, 'validate'), '', 0o600)
    write(os.path.join(d, 'shrink'), '', 0o600)


def mk_box(root, k, patched, ncpu=4):
    """fixtures.sh's mk_box: a 2-node 4-CPU box (or 1-node 2-CPU) with the
    cache nfs_page_test at scale k; patched adds the parking counters and
    the debugfs park (0600) and parked (0400)"""
    d = os.path.join(root, 'sys/kernel/slab', CACHE)
    nd = os.path.join(root, 'sys/devices/system/node')
    write(os.path.join(root, 'proc/sys/kernel/osrelease'), '7.3.4-fixture\n',
          0o644)
    stat = ['cpu  %d 0 0 %d 0 0 0 0 0 0' % (600 * k, 1000 * k),
            'cpu0 %d 0 %d %d 0 0 0 0 0 0' % (200 * k, 100 * k, 100 * k),
            'cpu1 %d 0 0 %d %d 0 0 0 0 0' % (200 * k, 150 * k, 50 * k),
            'cpu2 0 0 0 %d 0 0 0 0 0 0' % (400 * k),
            'cpu3 %d 0 0 %d 0 %d %d 0 0 0' % (50 * k, 300 * k, 25 * k, 25 * k),
            'intr 0', 'ctxt 0', 'btime 0']
    if ncpu == 2:
        stat = [s for s in stat if not re.match(r'cpu[23] ', s)]
    write(os.path.join(root, 'proc/stat'), '\n'.join(stat) + '\n', 0o644)
    write(os.path.join(nd, 'node0/cpulist'), '0-1\n', 0o644)
    if ncpu == 4:
        write(os.path.join(nd, 'node1/cpulist'), '2-3\n', 0o644)
    write(os.path.join(nd, 'online'), '0-1\n', 0o644)
    cache_misc(d)
    text = FIX_COUNTERS + (FIX_PARK_COUNTERS if patched else '')
    for line in text.split('\n'):
        w = line.split()
        if not w:
            continue
        vals = [k * int(x) for x in w[1:1 + ncpu]]
        stat_file(os.path.join(d, w[0]), *vals)
    if k >= 3 and ncpu == 4:
        stat_file(os.path.join(d, 'cmpxchg_double_fail'), 0, 0, 1234, 0)
    else:
        stat_file(os.path.join(d, 'cmpxchg_double_fail'), *[0] * ncpu)
    if ncpu == 2:
        gauges = (('slabs', 20), ('objects', 600), ('partial', 4),
                  ('objects_partial', 100), ('total_objects', 640))
        for n, v in gauges:
            node_file(os.path.join(d, n), v * k)
    else:
        gauges = (('slabs', 12, 8), ('objects', 400, 200), ('partial', 3, 1),
                  ('objects_partial', 60, 40), ('total_objects', 384, 256))
        for n, v0, v1 in gauges:
            node_file(os.path.join(d, n), v0 * k, v1 * k)
    if patched:
        dbg = os.path.join(root, 'sys/kernel/debug/slab', CACHE)
        write(os.path.join(dbg, 'parked'), '%d\n' % (2 * k), 0o400)
        write(os.path.join(dbg, 'park'), '1\n', 0o600)


def run_dump(root, *caches, results=None, pre=()):
    env = dict(os.environ, SYSFS=os.path.join(root, 'sys'),
               PROC=os.path.join(root, 'proc'))
    argv = list(pre) + ['sh', DUMP_SH] + \
        (['-r', results] if results else []) + list(caches or [CACHE])
    return subprocess.run(argv, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def row(metric, text):
    """the fields of the first table row of METRIC, one space apart"""
    for line in text.split('\n'):
        if line.startswith(metric + '  '):
            return metric + ' ' + ' '.join(line[len(metric):].split())
    return None


def section(text, start):
    """text from the first line starting with START"""
    i = text.find('\n' + start)
    return text[i + 1:] if i >= 0 else ''


class Fixtures:
    """the trees, dumps and files of run.sh, made once"""
    _made = None

    @classmethod
    def get(cls):
        if cls._made is None:
            cls._made = cls()
        return cls._made

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = t = self.tmp.name
        os.chmod(t, 0o755)
        boxes = {'p1': (1, 1), 'p3': (3, 1), 'u1': (1, 0), 'u3': (3, 0),
                 'o1': (1, 0, 2), 'o3': (3, 0, 2), 'u0': (0, 0),
                 'p0': (0, 1)}
        for k in (1, 2, 3):
            boxes['cu%d' % k] = (k, 0)
        for k in (2, 3, 4):
            boxes['cp%d' % k] = (k, 1)
        for name, args in boxes.items():
            mk_box(self.p(name), *args)
        shutil.copytree(self.p('p3'), self.p('miss3'), symlinks=True)
        os.remove(self.p('miss3/sys/kernel/slab', CACHE, 'barn_get'))
        for n, src in (('nosheaf1', 'u1'), ('nosheaf3', 'u3')):
            shutil.copytree(self.p(src), self.p(n), symlinks=True)
            write(self.p(n, 'sys/kernel/slab', CACHE, 'sheaf_capacity'),
                  '0\n')
        # per-CPU u32 counters: CPU 0 wraps (2^32 - 296 -> 704), CPU 1 is
        # cleared (1,000 -> 0)
        for n, vals in (('wrap1', (4294967000, 1000, 0, 500)),
                        ('wrap3', (704, 0, 0, 800))):
            shutil.copytree(self.p('u1'), self.p(n), symlinks=True)
            stat_file(self.p(n, 'sys/kernel/slab', CACHE, 'alloc_fastpath'),
                      *vals)
        write(self.p('results'), 'run: 3\nstate: done\nerror: -12\n'
              'placement: cross\nalloc_thread_nodes: 0 0\n'
              'ops_per_sec: 123456\nremote_free_pct: 100.00\n'
              'free_lat_p50_ns: 850\nfree_lat_hist: 0 0 1 2 3\n'
              'cache_name: nfs_page_test\n', 0o644)
        for k in (1, 2, 3):
            write(self.p('r%d' % k), 'ops_per_sec: %d\nfree_lat_p99_ns: %d\n'
                  % (k * 100, k * 1000), 0o644)
        for k in (2, 3, 4):
            write(self.p('rp%d' % k), 'ops_per_sec: %d\nfree_lat_p99_ns: %d\n'
                  % (k * 100 - 50, k * 1000), 0o644)
        # two caches
        for n, src in (('two1', 'p1'), ('two3', 'p3')):
            shutil.copytree(self.p(src, 'proc'), self.p(n, 'proc'))
            shutil.copytree(self.p(src, 'sys/devices'),
                            self.p(n, 'sys/devices'))
            for c in (CACHE, 'other_cache'):
                shutil.copytree(self.p(src, 'sys/kernel/slab', CACHE),
                                self.p(n, 'sys/kernel/slab', c))
        self.dumps = {}
        for n in list(boxes) + ['miss3', 'nosheaf1', 'nosheaf3', 'wrap1',
                                'wrap3']:
            self.dumps[n] = self.dump(n)
        self.dumps['p3r'] = self.dump('p3', results=self.p('results'))
        for k in (1, 2, 3):
            self.dumps['cu%dr' % k] = self.dump('cu%d' % k,
                                                results=self.p('r%d' % k))
        for k in (2, 3, 4):
            self.dumps['cp%dr' % k] = self.dump('cp%d' % k,
                                                results=self.p('rp%d' % k))
        for n in ('two1', 'two3'):
            self.dumps[n] = self.dump(n, caches=(CACHE, 'other_cache'))
        # the delta documents of compare, made by the Python
        self.deltas = {}
        for k in (1, 2, 3):
            self.deltas['off%d' % k] = self.delta('u0', 'cu%dr' % k)
        for k in (2, 3, 4):
            self.deltas['on%d' % k] = self.delta('p0', 'cp%dr' % k)
            self.deltas['always%d' % k] = self.delta('p0', 'cp%dr' % k)
        self.deltas['nosheaf'] = self.delta('nosheaf1', 'nosheaf3')

    def p(self, *parts):
        return os.path.join(self.t, *parts)

    def dump(self, name, results=None, caches=(CACHE,)):
        r = run_dump(self.p(name), *caches, results=results)
        if r.returncode:
            raise RuntimeError('slab-dump.sh %s: %s' % (name, r.stderr))
        path = self.p(name + ('r' if results else '') + '.dump')
        if name == 'p3' and results:
            path = self.p('p3r.dump')
        with open(path, 'w') as f:
            f.write(r.stdout)
        return path

    def delta(self, a, b):
        path = self.p('%s-%s.delta.json' % (a, b))
        with open(path, 'w') as f:
            f.write(slabstat.run(['diff', '--json', self.dumps[a],
                                  self.dumps[b]]))
        return path


def flat(doc, prefix=''):
    """'path=value' of every leaf of a JSON document"""
    out = {}
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for k, v in items:
        key = '%s%s' % (prefix, k)
        if isinstance(v, (dict, list)):
            out.update(flat(v, key + '.'))
        else:
            out[key] = v
    return out


class SlabstatCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fx = Fixtures.get()

    def sl(self, *argv):
        return slabstat.run(list(argv))

    def d(self, name):
        return self.fx.dumps[name]

    def err(self, exc, regex, *argv):
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(exc) as cm:
                self.sl(*argv)
        self.assertRegex(str(cm.exception), regex)


class DumpTest(SlabstatCase):
    """slab-dump.sh and its parse (run.sh's snap cases)"""

    def snap(self, name):
        return flat(json.loads(self.sl('snap', self.d(name))))

    def test_dump_lines(self):
        with open(self.d('p1')) as f:
            lines = f.read().split('\n')
        self.assertEqual(lines[0], '@slab-dump 1')
        self.assertIn('nfs_page_test free_slowpath w 500000 C0=62500 '
                      'C1=62500 C2=187500 C3=187500', lines)
        self.assertIn('nfs_page_test slabs r 20 N0=12 N1=8', lines)
        self.assertIn('nfs_page_test validate w ', lines)
        self.assertIn('nfs_page_test debugfs/parked r 2', lines)
        self.assertIn('nfs_page_test debugfs/park w 1', lines)
        self.assertIn('@node 1 2-3', lines)
        self.assertIn('@stat cpu3 50 0 0 300 0 25 25 0 0 0', lines)
        self.assertIn('@kernel 7.3.4-fixture', lines)
        self.assertTrue(any(re.fullmatch(r'@time \d+ \d{4}-\d\d-\d\dT'
                                         r'\d\d:\d\d:\d\dZ', ln)
                            for ln in lines))

    def test_snap(self):
        f = self.snap('p1')
        c = 'caches.nfs_page_test.'
        self.assertEqual(f[c + 'counters.free_slowpath.cpus.2'], 187500)
        self.assertEqual(f[c + 'counters.free_slowpath.sum'], 500000)
        self.assertEqual(f[c + 'gauges.slabs.nodes.1'], 8)
        # parked (debugfs) is a gauge on the patched kernel, no node parts
        self.assertEqual(f[c + 'gauges.parked.sum'], 2)
        self.assertFalse([k for k in f
                          if k.startswith(c + 'gauges.parked.nodes.')])
        self.assertEqual(f[c + 'facts.sheaf_capacity'], 60)
        self.assertEqual(f[c + 'facts.park'], 1)
        # every stat file found (25 + cmpxchg + 2 park)
        self.assertEqual(len([k for k in f if re.fullmatch(
            re.escape(c) + r'counters\.[a-z_]*\.sum', k)]), 28)
        bad = re.compile(r'\.(hwcache_align|cpu_partial|'
                         r'remote_node_defrag_ratio|slabs_cpu_partial|'
                         r'cpu_slabs|aliases|validate|shrink|ctor|poison)'
                         r'([.]|$)')
        self.assertFalse([k for k in f if bad.search(k)])
        self.assertEqual([f['cpu_node.%d' % i] for i in range(4)],
                         [0, 0, 1, 1])
        self.assertEqual((f['cpus.3.idle'], f['cpus.3.busy']), (300, 100))
        self.assertEqual(f['kernel'], '7.3.4-fixture')

    def test_unpatched(self):
        f = self.snap('u1')
        self.assertFalse([k for k in f if re.search(
            r'\.(park_slab|unpark_slab|parked|park)([.]|$)', k)])

    def test_bad_parked(self):
        root = self.fx.p('badparked')
        if not os.path.exists(root):
            shutil.copytree(self.fx.p('p1'), root, symlinks=True)
            write(os.path.join(root, 'sys/kernel/debug/slab', CACHE,
                               'parked'), '2 N1=2\n')
        r = run_dump(root)
        self.assertEqual(r.returncode, 0)
        path = os.path.join(root, 'dump')
        with open(path, 'w') as f:
            f.write(r.stdout)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            f = flat(json.loads(self.sl('snap', path)))
        self.assertIn('parked: not a single number', err.getvalue())
        self.assertFalse([k for k in f if '.gauges.parked' in k])

    def test_results(self):
        f = self.snap('p3r')
        self.assertEqual([(k, v) for k, v in f.items()
                          if k.startswith('results.')],
                         [('results.run', 3), ('results.error', -12),
                          ('results.ops_per_sec', 123456),
                          ('results.remote_free_pct', 100),
                          ('results.free_lat_p50_ns', 850)])

    def test_nonuma(self):
        root = self.fx.p('nonuma')
        if not os.path.exists(root):
            shutil.copytree(self.fx.p('o1'), root, symlinks=True)
            shutil.rmtree(os.path.join(root, 'sys/devices/system/node'))
        r = run_dump(root)
        self.assertIn('@nonuma', r.stdout.split('\n'))
        s = slabstat.parse_dump(r.stdout)
        self.assertEqual(s.cpu_node, [0, 0])

    def test_parse_stat(self):
        ps = slabstat.parse_stat
        self.assertEqual(ps('5'), (5, '', []))
        self.assertEqual(ps('5\n'), (5, '', []))
        self.assertEqual(ps('3 C0=1 C2=2'), (3, 'C', [(0, 1), (2, 2)]))
        self.assertEqual(ps('20 N0=12 N1=8'), (20, 'N', [(0, 12), (1, 8)]))
        for bad in ('', '0(0)', '1 C0=1 N1=1', 'x', '1 C0=', '1 C=1', '0 0',
                    ' 1'):
            self.assertIsNone(ps(bad), bad)


class DiffTest(SlabstatCase):
    def test_table(self):
        d = self.sl('diff', self.d('p1'), self.d('p3'))
        self.assertEqual(row('metric', d), 'metric before after delta change')
        for want in (
                'alloc_fastpath 2,000,000 6,000,000 4,000,000 +200.00%',
                'free_slowpath 500,000 1,500,000 1,000,000 +200.00%',
                # zero before, non-zero after: change n/a
                'cmpxchg_double_fail 0 1,234 1,234 n/a',
                'alloc_slowpath 0 0 0 +0.00%',
                'objects 600 1,800 1,200 +200.00%',        # a gauge
                'sheaf_capacity 60 60 0 +0.00%'):          # a fact
            self.assertEqual(row(want.split()[0], d), want)
        tbl = section(d, 'metric ').split('\n\n')[0].split('\n')
        self.assertEqual(len({len(x) for x in tbl if x}), 1,
                         'metric table columns right-aligned')
        der = section(d, 'derived ').rstrip('\n').split('\n\n')[0]
        der = der.split('\n')[2:]
        self.assertEqual('\n'.join(der), """\
FREE_SLOWPATH / (FREE_FASTPATH + FREE_SLOWPATH)   25.00%
SHEAF_FLUSH / sheaf_capacity                      10,000
BARN_PUT_FAIL / (SHEAF_FLUSH / sheaf_capacity)      0.90
PARK_SLAB / FREE_ADD_PARTIAL                      75.00%
PARK_SLAB - UNPARK_SLAB                            1,000
page allocator churn (alloc_slab + free_slab)      9,000""")
        self.assertNotRegex(d, r'(?m)^per-node')

    def test_absent(self):
        d = self.sl('diff', self.d('u1'), self.d('p3'))
        self.assertEqual(row('park_slab', d), 'park_slab - 225,000 - absent')
        self.assertEqual(row('parked', d), 'parked - 6 - absent')
        d = self.sl('diff', self.d('p1'), self.d('miss3'))
        self.assertEqual(row('barn_get', d), 'barn_get 10 - - absent')
        d = self.sl('diff', self.d('u1'), self.d('u3'))
        self.assertEqual(row('PARK_SLAB / FREE_ADD_PARTIAL', d),
                         'PARK_SLAB / FREE_ADD_PARTIAL absent')
        self.assertEqual(row('PARK_SLAB - UNPARK_SLAB', d),
                         'PARK_SLAB - UNPARK_SLAB absent')
        d = self.sl('diff', self.d('nosheaf1'), self.d('nosheaf3'))
        self.assertEqual(row('SHEAF_FLUSH / sheaf_capacity', d),
                         'SHEAF_FLUSH / sheaf_capacity n/a')

    def test_wrap(self):
        d = self.sl('split', self.d('wrap1'), self.d('wrap3'))
        # a per-CPU u32 wrap is corrected, a clear stays negative
        self.assertEqual(row('alloc_fastpath', d),
                         'alloc_fastpath 4,294,968,500 1,504 300 +0.00%')
        self.assertIn('\nnote: alloc_fastpath: the per-CPU counter wrapped '
                      'at 2^32 on 1 CPU(s); delta corrected\n', d)
        self.assertEqual(row('alloc_fastpath', section(d, 'per-node split')),
                         'alloc_fastpath 0 300 300')

    def test_csv(self):
        d = self.sl('diff', '--csv', self.d('u1'), self.d('p3')).split('\n')
        self.assertEqual(d[0], 'cache,kind,metric,before,after,delta,'
                         'change_pct')
        self.assertIn('nfs_page_test,counter,free_slowpath,500000,1500000,'
                      '1000000,200.00', d)
        self.assertIn('nfs_page_test,counter,park_slab,,225000,,absent', d)
        self.assertIn('nfs_page_test,derived,free_slowpath_ratio,,,25,', d)

    def test_json(self):
        f = flat(json.loads(self.sl('diff', '--json', self.d('p1'),
                                    self.d('p3r'))))
        m = 'caches.nfs_page_test.metrics.'
        self.assertEqual(f['slabstat'], 'delta')
        self.assertEqual(f[m + 'free_slowpath.delta'], 1000000)
        self.assertEqual(f[m + 'free_slowpath.cpus.2'], 375000)
        self.assertEqual(f[m + 'free_slowpath.nodes.1'], 750000)
        self.assertEqual(f[m + 'slabs.nodes.0'], 24)
        self.assertEqual(f['caches.nfs_page_test.derived.park_ratio.value'],
                         75)
        self.assertEqual(f['results.ops_per_sec'], 123456)
        f = flat(json.loads(self.sl('diff', '--json', self.d('u1'),
                                    self.d('p3'))))
        self.assertEqual(f[m + 'park_slab.absent'], 'before')

    def test_per_node(self):
        p = section(self.sl('split', self.d('p1'), self.d('p3')),
                    'per-node split')
        self.assertEqual(row('metric', p), 'metric node0 node1 all')
        self.assertEqual(row('free_slowpath', p),
                         'free_slowpath 250,000 750,000 1,000,000')
        self.assertEqual(row('park_slab', p), 'park_slab 0 150,000 150,000')
        self.assertEqual(row('%idle', p), '%idle 37.50 87.50 62.50')
        p = section(self.sl('split', self.d('o1'), self.d('o3')),
                    'per-node split')
        self.assertEqual(row('metric', p), 'metric node0 all')
        self.assertEqual(row('free_slowpath', p),
                         'free_slowpath 250,000 250,000')
        self.assertEqual(row('%idle', p), '%idle 37.50 37.50')

    def test_split_csv(self):
        d = self.sl('split', '--csv', self.d('p1'), self.d('p3')).split('\n')
        self.assertEqual(d[0], 'cache,kind,metric,before,after,delta,'
                         'change_pct,node0,node1')
        self.assertIn('nfs_page_test,counter,free_slowpath,500000,1500000,'
                      '1000000,200.00,250000,750000', d)
        self.assertIn(',idle,idle_pct,,,62.50,,37.50,87.50', d)

    def test_two_caches(self):
        d = self.sl('diff', self.d('two1'), self.d('two3'))
        self.assertEqual(re.findall(r'(?m)^cache: .*$', d),
                         ['cache: nfs_page_test', 'cache: other_cache'])
        self.assertEqual(row('free_slowpath', section(d, 'cache: other')),
                         'free_slowpath 500,000 1,500,000 1,000,000 +200.00%')


class CompareTest(SlabstatCase):
    def g(self, *names):
        return [self.fx.deltas[n] for n in names]

    def test_text(self):
        c = self.sl('compare', '--labels', 'off,on',
                    *self.g('off1', 'off2', 'off3'), '--',
                    *self.g('on2', 'on3', 'on4'))
        self.assertEqual(row('metric', c), 'metric off on delta change')
        self.assertEqual(row('free_slowpath', c),
                         'free_slowpath 1,000,000 (500,000-1,500,000) '
                         '1,500,000 (1,000,000-2,000,000) 500,000 +50.00%')
        self.assertEqual(row('park_slab', c),
                         'park_slab absent 225,000 (150,000-300,000) - '
                         'absent')
        churn = 'page allocator churn (alloc_slab + free_slab)'
        self.assertEqual(row(churn, c), churn + ' 9,000 (4,500-13,500) '
                         '13,500 (9,000-18,000) +50.00%')
        self.assertEqual(row('PARK_SLAB / FREE_ADD_PARTIAL', c),
                         'PARK_SLAB / FREE_ADD_PARTIAL absent 75.00% '
                         '(75.00%-75.00%) absent')
        self.assertEqual(row('ops_per_sec', c),
                         'ops_per_sec 200 (100-300) 250 (150-350) 50 +25.00%')
        self.assertEqual(row('alloc_lat_p50_ns', c),
                         'alloc_lat_p50_ns absent absent - absent')
        self.assertIn('\ngroup on: 3 runs, kernel 7.3.4-fixture\n', c)

    def test_even_default_labels(self):
        c = self.sl('compare', *self.g('off1', 'off2'), '--',
                    *self.g('on2', 'on3'))
        self.assertEqual(row('free_slowpath', c),
                         'free_slowpath 750,000 (500,000-1,000,000) '
                         '1,250,000 (1,000,000-1,500,000) 500,000 +66.67%')
        self.assertEqual(row('metric', c), 'metric G1 G2 delta change')

    def test_three_groups(self):
        c = self.sl('compare', '--labels', 'off,on,always',
                    *self.g('off1', 'off2', 'off3'), '--',
                    *self.g('on2', 'on3', 'on4'), '--',
                    *self.g('always2', 'always3'))
        self.assertEqual(row('metric', c), 'metric off on always delta on '
                         'change on delta always change always')
        self.assertEqual(row('free_slowpath', c),
                         'free_slowpath 1,000,000 (500,000-1,500,000) '
                         '1,500,000 (1,000,000-2,000,000) 1,250,000 '
                         '(1,000,000-1,500,000) 500,000 +50.00% 250,000 '
                         '+25.00%')

    def test_undefined(self):
        c = self.sl('compare', '--labels', 'nosheaves,sheaves',
                    *self.g('nosheaf'), '--', *self.g('off1', 'off2'))
        self.assertEqual(row('SHEAF_FLUSH / sheaf_capacity', c),
                         'SHEAF_FLUSH / sheaf_capacity n/a 7,500 '
                         '(5,000-10,000) n/a')

    def test_csv(self):
        c = self.sl('compare', '--csv', '--labels', 'off,on',
                    *self.g('off1', 'off2', 'off3'), '--',
                    *self.g('on2', 'on3', 'on4')).split('\n')
        self.assertEqual(c[0], 'metric,off,on,kind,cache,off_runs,off_min,'
                         'off_max,on_runs,on_min,on_max,on_delta,'
                         'on_change_pct')
        for want in ('free_slowpath,1000000,1500000,counter,nfs_page_test,3,'
                     '500000,1500000,3,1000000,2000000,500000,50.00',
                     'park_slab,,225000,counter,nfs_page_test,0,,,3,150000,'
                     '300000,,absent',
                     'ops_per_sec,200,250,result,,3,100,300,3,150,350,50,'
                     '25.00'):
            self.assertIn(want, c)

    def test_json(self):
        f = flat(json.loads(self.sl('compare', '--json', '--labels', 'off,on',
                                    *self.g('off1', 'off2', 'off3'), '--',
                                    *self.g('on2', 'on3', 'on4'))))
        m = 'caches.nfs_page_test.metrics.free_slowpath.groups.1.'
        self.assertEqual(f[m + 'median'], 1500000)
        self.assertEqual(f[m + 'change_pct'], 50)
        self.assertEqual(f['results.free_lat_p99_ns.groups.0.median'], 2000)


class DeltasTest(SlabstatCase):
    """deltas: the delta documents of guest-compare.sh's dumps"""

    def test_write_deltas(self):
        fx = self.fx
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, 'runs', 'cross', 'park1')
            os.makedirs(d)
            for src, dst in (('p1', '1.before.dump'), ('p3r', '1.after.dump'),
                             ('u1', '2.before.dump'), ('u3', '2.after.dump')):
                with open(fx.dumps[src]) as f, \
                        open(os.path.join(d, dst), 'w') as g:
                    g.write(f.read())
            self.assertEqual(slabstat.write_deltas(t), 2)
            with open(os.path.join(d, '1.json')) as f:
                self.assertEqual(f.read(), slabstat.run(
                    ['diff', '--json', fx.dumps['p1'], fx.dumps['p3r']]))
            os.remove(os.path.join(d, '2.after.dump'))
            with self.assertRaisesRegex(slabstat.Error,
                                        r'2\.before\.dump has no '
                                        r'\.after\.dump beside it'):
                slabstat.write_deltas(t)
            # results without dumps (older ones, the fixtures): none
            self.assertEqual(slabstat.write_deltas(os.path.join(t, 'x')), 0)


class ErrorTest(SlabstatCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        e = cls.fx.p('err/sys/kernel/slab')
        if not os.path.exists(e):
            src = cls.fx.p('p1/sys/kernel/slab', CACHE)
            for n in (CACHE, CACHE + '2', ':a-0000128'):
                shutil.copytree(src, os.path.join(e, n))
            os.symlink(':a-0000128', os.path.join(e, 'nfs_page'))
            os.makedirs(os.path.join(e, 'nostats'))
            for n in ('object_size', 'slabs', 'objects', 'partial'):
                shutil.copy2(os.path.join(src, n),
                             os.path.join(e, 'nostats', n))

    def dump_err(self, cache, regex, root=None):
        r = run_dump(root or self.fx.p('err'), cache)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, '', 'nothing printed on an error')
        self.assertRegex(r.stderr, regex)

    def test_dump_errors(self):
        # (slabstat sorted close names by edit distance; the sh lists
        # the names that share 4 characters or contain the name, in
        # directory order)
        self.dump_err('nfs_page_tst', r"no cache 'nfs_page_tst' .*close "
                      r"names: nfs_page, nfs_page_test, nfs_page_test2$")
        self.dump_err('kmalloc-64', r"no cache 'kmalloc-64'.*no similar "
                      r"names")
        self.dump_err('nfs_page', r"'nfs_page' is an alias of the merged "
                      r"cache ':a-0000128'")
        self.dump_err('x', r'cannot open .*/kernel/slab',
                      root=self.fx.p('nonexistent'))
        r = run_dump(self.fx.p('two1'), CACHE, CACHE)
        self.assertEqual(r.returncode, 1)
        self.assertIn('given twice', r.stderr)
        r = run_dump(self.fx.p('p1'), results=self.fx.p('nonexistent'))
        self.assertEqual(r.returncode, 1)
        self.assertIn('cannot read results file', r.stderr)
        r = subprocess.run(['sh', DUMP_SH], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, '^usage:')

    def test_nostats(self):
        r = run_dump(self.fx.p('err'), 'nostats')
        self.assertEqual(r.returncode, 0)
        with self.assertRaisesRegex(slabstat.Error,
                                    'lacks CONFIG_SLUB_STATS'):
            slabstat.parse_dump(r.stdout)

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which('setpriv'),
                         'needs root and setpriv')
    def test_permission(self):
        r = run_dump(self.fx.p('p1'), pre=('setpriv', '--reuid=65534',
                                           '--regid=65534', '--clear-groups'))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('@unreadable nfs_page_test free_slowpath',
                      r.stdout.split('\n'))
        with self.assertRaisesRegex(slabstat.Error, r'permission denied '
                                    r'.*run slab-dump.sh as root'):
            slabstat.parse_dump(r.stdout)

    def test_usage(self):
        u = slabstat.UsageError
        off1, on2 = self.fx.deltas['off1'], self.fx.deltas['on2']
        self.err(u, '^missing command$')
        self.err(u, "unknown command 'frobnicate'", 'frobnicate')
        self.err(u, "unknown option '--bogus'", 'diff', '--bogus', 'a', 'b')
        self.err(u, "unknown command 'window'", 'window', CACHE)
        self.err(u, "unknown option '--labels'", 'diff', '--labels', 'a',
                 self.d('p1'), self.d('p3'))
        self.err(u, 'diff needs two dumps', 'diff', self.d('p1'))
        self.err(u, 'exclude each other', 'diff', '--csv', '--json',
                 self.d('p1'), self.d('p3'))
        self.err(u, 'names more groups', 'compare', '--labels', 'a,b,c',
                 off1, '--', on2)
        self.err(u, 'empty group', 'compare', off1, '--')

    def test_bad_input(self):
        e = slabstat.Error
        off1 = self.fx.deltas['off1']
        self.err(e, 'not a delta document.*this is a slab dump', 'compare',
                 self.d('p1'), '--', off1)
        snap = self.fx.p('p1.snap.json')
        write(snap, self.sl('snap', self.d('p1')), 0o644)
        self.err(e, 'not a delta document.*this is a snapshot', 'compare',
                 snap, '--', off1)
        self.err(e, 'not a slab dump', 'diff', off1, self.d('p3'))
        broken = self.fx.p('broken.json')
        write(broken, '{"slabstat": "delta", "caches": {\n', 0o644)
        self.err(e, 'not valid JSON', 'compare', broken)
        junk = self.fx.p('junk.dump')
        write(junk, '@slab-dump 1\nnfs_page_test free_slowpath\n@end\n',
              0o644)
        self.err(e, r"junk.dump:2: not a 'CACHE ATTR MODE VALUE' line",
                 'diff', junk, self.d('p3'))
        # a dump cut short (a full disk, a killed dump): refused
        with open(self.d('p1')) as f:
            whole = f.read()
        write(junk, whole[:len(whole) // 2], 0o644)
        self.err(e, r"junk.dump: truncated: no '@end' line", 'diff', junk,
                 self.d('p3'))
        write(junk, 'hello\n', 0o644)
        self.err(e, 'not a slab dump', 'diff', junk, self.d('p3'))
        self.err(e, 'cannot read .*nonexistent', 'diff',
                 self.fx.p('nonexistent'), self.d('p3'))

    def test_cli_exit_status(self):
        env = dict(os.environ, PYTHONPATH=TOOLS)
        for argv, rc, regex in (
                (['diff', self.d('p1'), self.d('p3')], 0, '^'),
                (['diff', self.fx.deltas['off1'], self.d('p3')], 1,
                 r'^slabstat: .*not a slab dump'),
                (['frob'], 2, r"^slabstat: unknown command 'frob'\n\nusage:")):
            r = subprocess.run([sys.executable, '-m', 'slabpark.slabstat'] +
                               argv, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE,
                               universal_newlines=True)
            self.assertEqual(r.returncode, rc, r.stderr)
            self.assertRegex(r.stderr, regex)


if __name__ == '__main__':
    unittest.main()
