# SPDX-License-Identifier: GPL-2.0
"""Tests of slabpark.slabstat and tools/guest/slab-dump.sh on fixture trees
(the cases of the retired C slabstat's tests, whose output the Python's
matched byte for byte).  Each table holds the cases of one output, the
expectations next to each case.

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
CACHE2 = 'c,q"x'                # the second cache of two1/two3: CSV quotes it

# per-CPU unit deltas on the 2-node 4-CPU box (CPUs 0-1 node 0, 2-3 node 1);
# a tree of scale K holds K times these
FIX_COUNTERS = {
    'alloc_fastpath': (1000000, 1000000, 0, 0), 'alloc_slab': (2500, 0, 0, 0),
    'barn_get': (10, 0, 0, 0), 'barn_get_fail': (3, 0, 0, 0),
    'barn_put': (0, 0, 7, 0), 'barn_put_fail': (0, 0, 4000, 500),
    'free_add_partial': (0, 0, 60000, 40000),
    'free_fastpath': (750000, 750000, 0, 0),
    'free_remove_partial': (0, 0, 1500, 500), 'free_slab': (0, 0, 2000, 0),
    'free_slowpath': (62500, 62500, 187500, 187500),
    'sheaf_alloc': (5, 5, 5, 5), 'sheaf_flush': (0, 0, 300000, 0),
    'sheaf_free': (5, 5, 5, 5), 'sheaf_refill': (600000, 0, 0, 0),
    **{n: (0, 0, 0, 0) for n in (
        'alloc_slowpath alloc_node_mismatch free_rcu_sheaf '
        'free_rcu_sheaf_fail order_fallback sheaf_prefill_fast '
        'sheaf_prefill_oversize sheaf_prefill_slow sheaf_return_fast '
        'sheaf_return_slow').split()}}
FIX_PARK_COUNTERS = {'park_slab': (0, 0, 50000, 25000),
                     'unpark_slab': (74500, 0, 0, 0)}
# name, value, mode of the other files of a cache directory
CACHE_FILES = (
    ('object_size', 96, 0o400), ('slab_size', 128, 0o400),
    ('align', 64, 0o400), ('objs_per_slab', 32, 0o400),
    ('sheaf_capacity', 60, 0o400), ('min_partial', 5, 0o600),
    ('cpu_partial', 0, 0o600), ('remote_node_defrag_ratio', 100, 0o600),
    ('hwcache_align', 1, 0o400), ('slabs_cpu_partial', '0(0)', 0o400),
    ('ctor', '', 0o400), ('validate', '', 0o600), ('shrink', '', 0o600),
    *((n, 0, 0o400) for n in (
        'order aliases reclaim_account destroy_by_rcu poison red_zone '
        'sanity_checks store_user trace cpu_slabs').split()))


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


def mk_box(root, k, patched, ncpu=4):
    """a 2-node 4-CPU box (or 1-node 2-CPU) with the cache nfs_page_test
    at scale k; patched adds the parking counters and the debugfs park
    (0600) and parked (0400)"""
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
    for name, val, mode in CACHE_FILES:
        write(os.path.join(d, name), '%s\n' % val if val != '' else '', mode)
    for n, vals in dict(FIX_COUNTERS, **(FIX_PARK_COUNTERS if patched
                                         else {})).items():
        parts_file(os.path.join(d, n), 'C', 0o600,
                   [k * x for x in vals[:ncpu]])
    parts_file(os.path.join(d, 'cmpxchg_double_fail'), 'C', 0o600,
               [0, 0, 1234, 0] if k >= 3 and ncpu == 4 else [0] * ncpu)
    gauges = (('slabs', 12, 8), ('objects', 400, 200), ('partial', 3, 1),
              ('objects_partial', 60, 40), ('total_objects', 384, 256))
    for n, v0, v1 in gauges:
        # the 1-node box: 20, 600, 4, 100, 640
        parts_file(os.path.join(d, n), 'N', 0o400,
                   [v0 * k, v1 * k] if ncpu == 4 else [(v0 + v1) * k])
    if patched:
        dbg = os.path.join(root, 'sys/kernel/debug/slab', CACHE)
        write(os.path.join(dbg, 'parked'), '%d\n' % (2 * k), 0o400)
        write(os.path.join(dbg, 'park'), '1\n', 0o600)


def run_dump(root, *args, pre=()):
    """slab-dump.sh ARGS on the tree ROOT"""
    env = dict(os.environ, SYSFS=os.path.join(root, 'sys'),
               PROC=os.path.join(root, 'proc'))
    return subprocess.run(list(pre) + ['sh', DUMP_SH] + list(args),
                          env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)


def row(metric, text):
    """the fields of the first line (a table row) of METRIC, one space
    apart"""
    for line in text.split('\n'):
        if line.startswith(metric + ' '):
            return metric + ' ' + ' '.join(line[len(metric):].split())
    return None


def section(text, start):
    """text from the first line starting with START"""
    i = text.find('\n' + start)
    return text[i + 1:] if i >= 0 else ''


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


# box: mk_box's k, patched[, ncpu]
BOXES = {'p1': (1, 1), 'p3': (3, 1), 'u1': (1, 0), 'u3': (3, 0),
         'o1': (1, 0, 2), 'o3': (3, 0, 2), 'u0': (0, 0), 'p0': (0, 1),
         'cu1': (1, 0), 'cu2': (2, 0), 'cu3': (3, 0), 'cp2': (2, 1),
         'cp3': (3, 1), 'cp4': (4, 1)}
# dump: its tree and slab-dump.sh's arguments (a results file by name)
DUMPS = dict({n: (n, CACHE) for n in list(BOXES) + [
    'miss3', 'nosheaf1', 'nosheaf3', 'wrap1', 'wrap3']},
    p3r=('p3', '-r', 'results', CACHE),
    two1=('two1', CACHE, CACHE2), two3=('two3', CACHE, CACHE2),
    **{'cu%dr' % k: ('cu%d' % k, '-r', 'r%d' % k, CACHE) for k in (1, 2, 3)},
    **{'cp%dr' % k: ('cp%d' % k, '-r', 'rp%d' % k, CACHE) for k in (2, 3, 4)})
# delta document: its dumps before and after (neg: park_slab - unpark_slab
# < 0; neg2 of two3's kernel)
DELTAS = dict({'off%d' % k: ('u0', 'cu%dr' % k) for k in (1, 2, 3)},
              nosheaf=('nosheaf1', 'nosheaf3'), neg1=('two3', 'two1'),
              neg2=('cp4r', 'two3'),
              **{'on%d' % k: ('p0', 'cp%dr' % k) for k in (2, 3, 4)})


class Fixtures:
    """the trees, dumps and delta documents, made once"""
    _made = None

    @classmethod
    def get(cls):
        if cls._made is None:
            cls._made = cls()
        return cls._made

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name
        os.chmod(self.t, 0o755)
        for name, args in BOXES.items():
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
            parts_file(self.p(n, 'sys/kernel/slab', CACHE, 'alloc_fastpath'),
                       'C', 0o600, vals)
        write(self.p('results'), 'run: 3\nstate: done\nerror: -12\n'
              'placement: cross\nalloc_thread_nodes: 0 0\n'
              'ops_per_sec: 123456\nremote_free_pct: 100.00\n'
              'free_lat_p50_ns: 850\nfree_lat_hist: 0 0 1 2 3\n'
              'cache_name: nfs_page_test\nhuge: 1e999\n', 0o644)
        for k in (1, 2, 3, 4):
            write(self.p('r%d' % k), 'ops_per_sec: %d\nfree_lat_p99_ns: %d\n'
                  % (k * 100, k * 1000), 0o644)
            write(self.p('rp%d' % k), 'ops_per_sec: %d\nfree_lat_p99_ns: '
                  '%d\n' % (k * 100 - 50, k * 1000), 0o644)
        # two caches; two3 of another kernel
        for n, src in (('two1', 'p1'), ('two3', 'p3')):
            for sub in ('proc', 'sys/devices'):
                shutil.copytree(self.p(src, sub), self.p(n, sub))
            for c in (CACHE, CACHE2):
                shutil.copytree(self.p(src, 'sys/kernel/slab', CACHE),
                                self.p(n, 'sys/kernel/slab', c))
        write(self.p('two3/proc/sys/kernel/osrelease'), '7.3.5-other\n', 0o644)
        self.dumps = {n: self.dump(n, tree, *args)
                      for n, (tree, *args) in DUMPS.items()}
        self.deltas = {n: self.delta(n, a, b) for n, (a, b) in DELTAS.items()}
        # a metric of the type 'derived' (no derived row)
        with open(self.deltas['off1']) as f:
            doc = json.load(f)
        doc['caches'][CACHE]['metrics']['free_slowpath']['type'] = 'derived'
        self.deltas['typed'] = self.p('typed.delta.json')
        write(self.deltas['typed'], json.dumps(doc), 0o644)

    def p(self, *parts):
        return os.path.join(self.t, *parts)

    def dump(self, name, tree, *args):
        """slab-dump.sh ARGS on TREE, -r's file by name"""
        args = [self.p(a) if o == '-r' else a
                for o, a in zip(('',) + args, args)]
        r = run_dump(self.p(tree), *args)
        if r.returncode:
            raise RuntimeError('slab-dump.sh %s: %s' % (name, r.stderr))
        write(self.p(name + '.dump'), r.stdout, 0o644)
        return self.p(name + '.dump')

    def delta(self, name, a, b):
        write(self.p(name + '.delta.json'), slabstat.run(
            ['diff', '--json', self.dumps[a], self.dumps[b]]), 0o644)
        return self.p(name + '.delta.json')


class SlabstatCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fx = Fixtures.get()

    def sl(self, *argv):
        """slabstat ARGV, the fixtures' dumps and deltas by name (not
        --labels' argument)"""
        f = self.fx
        return slabstat.run([a if o == '--labels' else
                             f.dumps.get(a, f.deltas.get(a, a))
                             for o, a in zip(('',) + argv, argv)])


OFF, ON = ('off1', 'off2', 'off3'), ('on2', 'on3', 'on4')
OFF_ON = ('compare', '--labels', 'off,on') + OFF + ('--',) + ON
CHURN = 'page allocator churn (alloc_slab + free_slab)'

# the command, the section of its text the rows are in, the rows (the
# fields of each one space apart)
TEXT_ROWS = (
    # options end at '--'
    (('diff', '--', 'p1', 'p3'), '', (
        ('metric', 'before after delta change'),
        ('alloc_fastpath', '2,000,000 6,000,000 4,000,000 +200.00%'),
        ('free_slowpath', '500,000 1,500,000 1,000,000 +200.00%'),
        # zero before, non-zero after: change n/a
        ('cmpxchg_double_fail', '0 1,234 1,234 n/a'),
        ('alloc_slowpath', '0 0 0 +0.00%'),
        ('objects', '600 1,800 1,200 +200.00%'),           # a gauge
        ('sheaf_capacity', '60 60 0 +0.00%'))),            # a fact
    (('diff', 'u1', 'p3'), '', (('park_slab', '- 225,000 - absent'),
                                ('parked', '- 6 - absent'))),
    (('diff', 'p1', 'miss3'), '', (('barn_get', '10 - - absent'),)),
    (('diff', 'u1', 'u3'), '', (('PARK_SLAB / FREE_ADD_PARTIAL', 'absent'),
                                ('PARK_SLAB - UNPARK_SLAB', 'absent'))),
    (('diff', 'nosheaf1', 'nosheaf3'), '', (
        ('SHEAF_FLUSH / sheaf_capacity', 'n/a'),)),
    # a per-CPU u32 wrap is corrected, a clear stays negative
    (('split', 'wrap1', 'wrap3'), '', (
        ('alloc_fastpath', '4,294,968,500 1,504 300 +0.00%'),)),
    (('split', 'wrap1', 'wrap3'), 'per-node split', (
        ('alloc_fastpath', '0 300 300'),)),
    (('split', 'p1', 'p3'), 'per-node split', (
        ('metric', 'node0 node1 all'),
        ('free_slowpath', '250,000 750,000 1,000,000'),
        ('park_slab', '0 150,000 150,000'), ('%idle', '37.50 87.50 62.50'))),
    (('split', 'o1', 'o3'), 'per-node split', (
        ('metric', 'node0 all'), ('free_slowpath', '250,000 250,000'),
        ('%idle', '37.50 37.50'))),
    (('diff', 'two1', 'two3'), 'cache: ' + CACHE2, (
        ('free_slowpath', '500,000 1,500,000 1,000,000 +200.00%'),)),
    (('diff', 'two1', 'two3'), '', (
        ('kernel:', '7.3.4-fixture -> 7.3.5-other'),)),
    (('compare', 'neg1', 'neg2'), '', (
        ('group G1:', '2 runs, kernel mixed: 7.3.4-fixture, 7.3.5-other, ...'),
        # a range with a negative end: '..' (not '-')
        ('PARK_SLAB - UNPARK_SLAB', '-750 (-1,000..-500)'))),
    (OFF_ON, '', (
        ('group on:', '3 runs, kernel 7.3.4-fixture'),
        ('metric', 'off on delta change'),
        ('free_slowpath', '1,000,000 (500,000-1,500,000) 1,500,000 '
         '(1,000,000-2,000,000) 500,000 +50.00%'),
        ('park_slab', 'absent 225,000 (150,000-300,000) - absent'),
        (CHURN, '9,000 (4,500-13,500) 13,500 (9,000-18,000) +50.00%'),
        ('PARK_SLAB / FREE_ADD_PARTIAL', 'absent 75.00% (75.00%-75.00%) '
         'absent'),
        ('ops_per_sec', '200 (100-300) 250 (150-350) 50 +25.00%'),
        ('alloc_lat_p50_ns', 'absent absent - absent'))),
    (('compare', 'off1', 'off2', '--', 'on2', 'on3'), '', (
        ('free_slowpath', '750,000 (500,000-1,000,000) 1,250,000 '
         '(1,000,000-1,500,000) 500,000 +66.67%'),
        ('metric', 'G1 G2 delta change'))),
    (OFF_ON[:2] + ('off,on,always',) + OFF_ON[3:] + ('--', 'on2', 'on3'),
     '', (('metric', 'off on always delta on change on delta always change '
           'always'),
          ('free_slowpath', '1,000,000 (500,000-1,500,000) 1,500,000 '
           '(1,000,000-2,000,000) 1,250,000 (1,000,000-1,500,000) 500,000 '
           '+50.00% 250,000 +25.00%'))),
    (('compare', '--labels', 'nosheaves,sheaves', 'nosheaf', '--', 'off1',
      'off2'), '', (('SHEAF_FLUSH / sheaf_capacity',
                     'n/a 7,500 (5,000-10,000) n/a'),)),
)

# the command, the CSV's header, lines it has
CSV_LINES = (
    (('diff', '--csv', 'u1', 'p3'),
     'cache,kind,metric,before,after,delta,change_pct', (
         'nfs_page_test,counter,free_slowpath,500000,1500000,1000000,200.00',
         'nfs_page_test,counter,park_slab,,225000,,absent',
         'nfs_page_test,derived,free_slowpath_ratio,,,25,')),
    (('diff', '--csv', 'two1', 'two3'),
     'cache,kind,metric,before,after,delta,change_pct', (
         '"c,q""x",counter,free_slowpath,500000,1500000,1000000,200.00',)),
    (('split', '--csv', 'p1', 'p3'),
     'cache,kind,metric,before,after,delta,change_pct,node0,node1', (
         'nfs_page_test,counter,free_slowpath,500000,1500000,1000000,200.00,'
         '250000,750000',
         ',idle,idle_pct,,,62.50,,37.50,87.50')),
    (('compare', '--csv') + OFF_ON[1:],
     'metric,off,on,kind,cache,off_runs,off_min,off_max,on_runs,on_min,'
     'on_max,on_delta,on_change_pct', (
         'free_slowpath,1000000,1500000,counter,nfs_page_test,3,500000,'
         '1500000,3,1000000,2000000,500000,50.00',
         'park_slab,,225000,counter,nfs_page_test,0,,,3,150000,300000,,'
         'absent',
         'ops_per_sec,200,250,result,,3,100,300,3,150,350,50,25.00')),
)

C = 'caches.nfs_page_test.'
M = C + 'metrics.'
# the command, leaves of its JSON document (flat's paths), what no path
# may match
JSON_LEAVES = (
    (('snap', 'p1'), {
        C + 'counters.free_slowpath.cpus.2': 187500,
        C + 'counters.free_slowpath.sum': 500000,
        C + 'gauges.slabs.nodes.1': 8,
        # parked (debugfs) is a gauge on the patched kernel
        C + 'gauges.parked.sum': 2, C + 'facts.sheaf_capacity': 60,
        C + 'facts.park': 1, 'cpu_node.0': 0, 'cpu_node.1': 0,
        'cpu_node.2': 1, 'cpu_node.3': 1, 'cpu_node.4': None,  # 4 CPUs
        'cpus.3.idle': 300, 'cpus.3.busy': 100, 'kernel': '7.3.4-fixture'},
     # parked has no node parts; settings and flags are no statistics
     re.escape(C) + r'gauges\.parked\.nodes\.|\.(hwcache_align|cpu_partial|'
     r'remote_node_defrag_ratio|slabs_cpu_partial|cpu_slabs|aliases|'
     r'validate|shrink|ctor|poison)([.]|$)'),
    (('snap', 'u1'), {}, r'\.(park_slab|unpark_slab|parked|park)([.]|$)'),
    (('diff', '--json', 'p1', 'p3r'), {
        'slabstat': 'delta', M + 'free_slowpath.delta': 1000000,
        M + 'free_slowpath.cpus.2': 375000,
        M + 'free_slowpath.nodes.1': 750000, M + 'slabs.nodes.0': 24,
        C + 'derived.park_ratio.value': 75, 'results.ops_per_sec': 123456},
     None),
    (('diff', '--json', 'u1', 'p3'), {M + 'park_slab.absent': 'before'},
     None),
    (('compare', '--json') + OFF_ON[1:], {
        M + 'free_slowpath.groups.1.median': 1500000,
        M + 'free_slowpath.groups.1.change_pct': 50,
        C + 'derived.park_ratio.label': 'PARK_SLAB / FREE_ADD_PARTIAL',
        'results.free_lat_p99_ns.groups.0.median': 2000}, None),
    # a derived row has a label, a metric of that type not
    (('compare', '--json', 'typed'), {M + 'free_slowpath.kind': 'derived'},
     re.escape(M) + r'free_slowpath\.label'),
)


class OutputTest(SlabstatCase):
    def test_text_rows(self):
        for argv, start, rows in TEXT_ROWS:
            text = self.sl(*argv)
            text = section(text, start) if start else text
            for metric, fields in rows:
                with self.subTest(argv=argv, metric=metric):
                    self.assertEqual(row(metric, text), metric + ' ' + fields)

    def test_csv_lines(self):
        for argv, header, lines in CSV_LINES:
            with self.subTest(argv=argv):
                out = self.sl(*argv).split('\n')
                self.assertEqual(out[0], header)
                for line in lines:
                    self.assertIn(line, out)

    def test_json_leaves(self):
        for argv, leaves, none in JSON_LEAVES:
            with self.subTest(argv=argv):
                f = flat(json.loads(self.sl(*argv)))
                self.assertEqual({k: f.get(k) for k in leaves}, leaves)
                if none:
                    self.assertFalse([k for k in f if re.search(none, k)])

    def test_diff_text(self):
        d = self.sl('diff', 'p1', 'p3')
        tbl = section(d, 'metric ').split('\n\n')[0].split('\n')
        self.assertEqual(len({len(x) for x in tbl if x}), 1,
                         'metric table columns right-aligned')
        der = section(d, 'derived ').rstrip('\n').split('\n\n')[0]
        self.assertEqual('\n'.join(der.split('\n')[2:]), """\
FREE_SLOWPATH / (FREE_FASTPATH + FREE_SLOWPATH)   25.00%
SHEAF_FLUSH / sheaf_capacity                      10,000
BARN_PUT_FAIL / (SHEAF_FLUSH / sheaf_capacity)      0.90
PARK_SLAB / FREE_ADD_PARTIAL                      75.00%
PARK_SLAB - UNPARK_SLAB                            1,000
page allocator churn (alloc_slab + free_slab)      9,000""")
        self.assertNotRegex(d, r'(?m)^per-node')
        self.assertIn('\nnote: alloc_fastpath: the per-CPU counter wrapped '
                      'at 2^32 on 1 CPU(s); delta corrected\n',
                      self.sl('split', 'wrap1', 'wrap3'))
        self.assertEqual(re.findall(r'(?m)^cache: .*$',
                                    self.sl('diff', 'two1', 'two3')),
                         ['cache: nfs_page_test', 'cache: ' + CACHE2])

    def test_snap(self):
        f = flat(json.loads(self.sl('snap', 'p1')))
        # every stat file found (25 + cmpxchg + 2 park)
        self.assertEqual(len([k for k in f if re.fullmatch(
            re.escape(C) + r'counters\.[a-z_]*\.sum', k)]), 28)
        f = flat(json.loads(self.sl('snap', 'p3r')))
        self.assertEqual([(k, v) for k, v in f.items()
                          if k.startswith('results.')],
                         [('results.run', 3), ('results.error', -12),
                          ('results.ops_per_sec', 123456),
                          ('results.remote_free_pct', 100),
                          ('results.free_lat_p50_ns', 850)])


class DumpTest(SlabstatCase):
    """slab-dump.sh and its parse"""

    def copy(self, src, name):
        root = self.fx.p(name)
        if not os.path.exists(root):
            shutil.copytree(self.fx.p(src), root, symlinks=True)
        return root

    def test_dump_lines(self):
        with open(self.fx.dumps['p1']) as f:
            lines = f.read().split('\n')
        self.assertEqual(lines[0], '@slab-dump 1')
        for want in ('nfs_page_test free_slowpath w 500000 C0=62500 '
                     'C1=62500 C2=187500 C3=187500',
                     'nfs_page_test slabs r 20 N0=12 N1=8',
                     'nfs_page_test validate w ',
                     'nfs_page_test debugfs/parked r 2',
                     'nfs_page_test debugfs/park w 1', '@node 1 2-3',
                     '@stat cpu3 50 0 0 300 0 25 25 0 0 0',
                     '@kernel 7.3.4-fixture'):
            self.assertIn(want, lines)
        self.assertTrue(any(re.fullmatch(r'@time \d+ \d{4}-\d\d-\d\dT'
                                         r'\d\d:\d\d:\d\dZ', ln)
                            for ln in lines))

    def test_bad_parked(self):
        root = self.copy('p1', 'badparked')
        write(os.path.join(root, 'sys/kernel/debug/slab', CACHE, 'parked'),
              '2 N1=2\n')
        r = run_dump(root, CACHE)
        self.assertEqual(r.returncode, 0)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            f = flat(slabstat.snap_json(slabstat.parse_dump(r.stdout)))
        self.assertIn('parked: not a single number', err.getvalue())
        self.assertFalse([k for k in f if '.gauges.parked' in k])

    def test_nonuma(self):
        root = self.copy('o1', 'nonuma')
        shutil.rmtree(os.path.join(root, 'sys/devices/system/node'),
                      ignore_errors=True)
        r = run_dump(root, CACHE)
        self.assertIn('@nonuma', r.stdout.split('\n'))
        self.assertEqual(slabstat.parse_dump(r.stdout).cpu_node, [0, 0])

    def test_parse_stat(self):
        ps = slabstat.parse_stat
        self.assertEqual(ps('5'), (5, '', []))
        self.assertEqual(ps('5\n'), (5, '', []))
        self.assertEqual(ps('3 C0=1 C2=2'), (3, 'C', [(0, 1), (2, 2)]))
        self.assertEqual(ps('20 N0=12 N1=8'), (20, 'N', [(0, 12), (1, 8)]))
        for bad in ('', '0(0)', '1 C0=1 N1=1', 'x', '1 C0=', '1 C=1', '0 0',
                    ' 1'):
            self.assertIsNone(ps(bad), bad)

    def test_write_deltas(self):
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, 'runs', 'cross', 'park1')
            os.makedirs(d)
            for src, dst in (('p1', '1.before'), ('p3r', '1.after'),
                             ('u1', '2.before'), ('u3', '2.after')):
                shutil.copy(self.fx.dumps[src], os.path.join(d, dst + '.dump'))
            self.assertEqual(slabstat.write_deltas(t), 2)
            with open(os.path.join(d, '1.json')) as f:
                self.assertEqual(f.read(), self.sl('diff', '--json', 'p1',
                                                   'p3r'))
            os.remove(os.path.join(d, '2.after.dump'))
            with self.assertRaisesRegex(slabstat.Error,
                                        r'2\.before\.dump has no '
                                        r'\.after\.dump beside it'):
                slabstat.write_deltas(t)
            # results without dumps (older ones, the fixtures): none
            self.assertEqual(slabstat.write_deltas(os.path.join(t, 'x')), 0)


U, E = slabstat.UsageError, slabstat.Error
# the exception, its message, the command
ERRORS = (
    (U, '^missing command$', ()),
    (U, "unknown command 'frobnicate'", ('frobnicate',)),
    (U, "unknown option '--bogus'", ('diff', '--bogus', 'a', 'b')),
    (U, "unknown command 'window'", ('window', CACHE)),
    (U, "unknown option '--labels'", ('diff', '--labels', 'a', 'p1', 'p3')),
    (U, 'diff needs two dumps', ('diff', 'p1')),
    (U, 'exclude each other', ('diff', '--csv', '--json', 'p1', 'p3')),
    (U, 'names more groups', ('compare', '--labels', 'a,b,c', 'off1', '--',
                              'on2')),
    (U, 'names fewer groups', ('compare', '--labels', 'a', 'off1', '--',
                               'on2')),
    (U, 'empty group', ('compare', 'off1', '--')),
    (E, 'not a delta document.*this is a slab dump', ('compare', 'p1', '--',
                                                      'off1')),
    (E, 'not a delta document.*this is a snapshot', ('compare', 'snap.json',
                                                     '--', 'off1')),
    (E, 'not a slab dump', ('diff', 'off1', 'p3')),
    (E, 'not valid JSON', ('compare', 'broken.json')),
    (E, r"line\.dump:2: not a 'CACHE ATTR MODE VALUE' line", (
        'diff', 'line.dump', 'p3')),
    # a dump cut short (a full disk, a killed dump): refused
    (E, r"cut\.dump: truncated: no '@end' line", ('diff', 'cut.dump', 'p3')),
    (E, 'not a slab dump', ('diff', 'hello.dump', 'p3')),
    (E, r"mono\.dump:2: @mono: not a number: 'abc'", ('snap', 'mono.dump')),
    # JSON has no NaN
    (E, r"nan\.dump:\d+: @mono: not a number: 'nan'", ('snap', 'nan.dump')),
    (E, r"time\.dump:2: @time: not a number: 'x'", ('snap', 'time.dump')),
    (E, 'cannot read .*nonexistent', ('diff', 'nonexistent', 'p3')),
)
# the tree, slab-dump.sh's arguments, its status, its stderr
DUMP_ERRORS = (
    # (slabstat sorted close names by edit distance; the sh lists the
    # names that share 4 characters or contain the name, in directory
    # order)
    ('err', ('nfs_page_tst',), 1, r"no cache 'nfs_page_tst' .*close names: "
     r"nfs_page, nfs_page_test, nfs_page_test2$"),
    ('err', ('kmalloc-64',), 1, r"no cache 'kmalloc-64'.*no similar names"),
    ('err', ('nfs_page',), 1, r"'nfs_page' is an alias of the merged cache "
     r"':a-0000128'"),
    ('nonexistent', ('x',), 1, r'cannot open .*/kernel/slab'),
    ('two1', (CACHE, CACHE), 1, 'given twice'),
    ('p1', ('-r', 'nonexistent', CACHE), 1, 'cannot read results file'),
    ('p1', (), 2, '^usage:'),
)


class ErrorTest(SlabstatCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        fx = cls.fx
        e = fx.p('err/sys/kernel/slab')
        if not os.path.exists(e):
            src = fx.p('p1/sys/kernel/slab', CACHE)
            for n in (CACHE, CACHE + '2', ':a-0000128'):
                shutil.copytree(src, os.path.join(e, n))
            os.symlink(':a-0000128', os.path.join(e, 'nfs_page'))
            os.makedirs(os.path.join(e, 'nostats'))
            for n in ('object_size', 'slabs', 'objects', 'partial'):
                shutil.copy2(os.path.join(src, n),
                             os.path.join(e, 'nostats', n))
        with open(fx.dumps['p1']) as f:
            whole = f.read()
        for name, text in (
                ('snap.json', slabstat.run(['snap', fx.dumps['p1']])),
                ('broken.json', '{"slabstat": "delta", "caches": {\n'),
                ('line.dump', '@slab-dump 1\nnfs_page_test free_slowpath\n'
                 '@end\n'),
                ('cut.dump', whole[:len(whole) // 2]),
                ('hello.dump', 'hello\n'),
                ('mono.dump', '@slab-dump 1\n@mono abc\n@end\n'),
                ('nan.dump', whole.replace('@end\n', '@mono nan\n@end\n')),
                ('time.dump', '@slab-dump 1\n@time x 2026-01-01T00:00:00Z\n'
                 '@end\n')):
            write(fx.p(name), text, 0o644)

    def test_errors(self):
        for exc, regex, argv in ERRORS:
            with self.subTest(argv=argv):
                argv = [self.fx.p(a) if a.endswith(('.json', '.dump')) or
                        a == 'nonexistent' else a for a in argv]
                with contextlib.redirect_stderr(io.StringIO()):
                    with self.assertRaisesRegex(exc, regex):
                        self.sl(*argv)

    def test_dump_errors(self):
        for tree, args, rc, regex in DUMP_ERRORS:
            with self.subTest(args=args):
                args = [self.fx.p(a) if a == 'nonexistent' else a
                        for a in args]
                r = run_dump(self.fx.p(tree), *args)
                self.assertEqual(r.returncode, rc, r.stderr)
                self.assertEqual(r.stdout, '', 'nothing printed on an error')
                self.assertRegex(r.stderr, regex)

    def test_nostats(self):
        r = run_dump(self.fx.p('err'), 'nostats')
        self.assertEqual(r.returncode, 0)
        with self.assertRaisesRegex(slabstat.Error,
                                    'lacks CONFIG_SLUB_STATS'):
            slabstat.parse_dump(r.stdout)

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which('setpriv'),
                         'needs root and setpriv')
    def test_permission(self):
        r = run_dump(self.fx.p('p1'), CACHE, pre=(
            'setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('@unreadable nfs_page_test free_slowpath',
                      r.stdout.split('\n'))
        with self.assertRaisesRegex(slabstat.Error, r'permission denied '
                                    r'.*run slab-dump.sh as root'):
            slabstat.parse_dump(r.stdout)

    def test_cli_exit_status(self):
        env = dict(os.environ, PYTHONPATH=TOOLS)
        for argv, rc, regex in (
                (['diff', 'p1', 'p3'], 0, '^'),
                (['diff', 'off1', 'p3'], 1, r'^slabstat: .*not a slab dump'),
                (['frob'], 2, r"^slabstat: unknown command 'frob'\n\nusage:")):
            argv = [self.fx.dumps.get(a, self.fx.deltas.get(a, a))
                    for a in argv]
            r = subprocess.run([sys.executable, '-m', 'slabpark.slabstat'] +
                               argv, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE,
                               universal_newlines=True)
            self.assertEqual(r.returncode, rc, r.stderr)
            self.assertRegex(r.stderr, regex)


if __name__ == '__main__':
    unittest.main()
