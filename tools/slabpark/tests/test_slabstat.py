# SPDX-License-Identifier: GPL-2.0
"""Tests of slabpark.slabstat on fixture dumps in Linux 7.3's formats
(mk_dump), and of tools/guest/slab-dump.sh, which must dump a dump's tree
(mk_tree) back to it.  Each table holds the cases of one output."""

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

TOOLS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DUMP_SH = os.path.join(TOOLS, 'guest', 'slab-dump.sh')
CACHE = 'nfs_page_test'
CACHE2 = 'c,q"x'                # CSV quotes it

# per-CPU counts at scale 1 on the 2-node 4-CPU box (CPUs 0-1 node 0, 2-3 node 1)
FIX_COUNTERS = {
    'alloc_fastpath': (1000000, 1000000, 0, 0), 'alloc_slab': (2500, 0, 0, 0),
    'barn_get': (10, 0, 0, 0), 'barn_get_fail': (3, 0, 0, 0),
    'barn_put': (0, 0, 7, 0), 'barn_put_fail': (0, 0, 4000, 500),
    'free_add_partial': (0, 0, 60000, 40000), 'free_fastpath': (750000, 750000, 0, 0),
    'free_remove_partial': (0, 0, 1500, 500), 'free_slab': (0, 0, 2000, 0),
    'free_slowpath': (62500, 62500, 187500, 187500), 'sheaf_alloc': (5, 5, 5, 5),
    'sheaf_flush': (0, 0, 300000, 0), 'sheaf_free': (5, 5, 5, 5),
    'sheaf_refill': (600000, 0, 0, 0),
    **{n: (0, 0, 0, 0) for n in (
        'alloc_slowpath alloc_node_mismatch free_rcu_sheaf free_rcu_sheaf_fail '
        'order_fallback sheaf_prefill_fast sheaf_prefill_oversize sheaf_prefill_slow '
        'sheaf_return_fast sheaf_return_slow').split()}}
FIX_PARK_COUNTERS = {'park_slab': (0, 0, 50000, 25000), 'unpark_slab': (74500, 0, 0, 0)}
# name, node 0's and node 1's count at scale 1
FIX_GAUGES = (('slabs', 12, 8), ('objects', 400, 200), ('partial', 3, 1),
              ('objects_partial', 60, 40), ('total_objects', 384, 256))
# the other files of a cache directory: name, mode, value
CACHE_FILES = (
    ('object_size', 'r', '96'), ('slab_size', 'r', '128'), ('align', 'r', '64'),
    ('objs_per_slab', 'r', '32'), ('sheaf_capacity', 'r', '60'), ('min_partial', 'w', '5'),
    ('cpu_partial', 'w', '0'), ('remote_node_defrag_ratio', 'w', '100'),
    ('hwcache_align', 'r', '1'), ('slabs_cpu_partial', 'r', '0(0)'), ('ctor', 'r', ''),
    ('validate', 'w', ''), ('shrink', 'w', ''),
    *((n, 'r', '0') for n in 'order aliases reclaim_account destroy_by_rcu poison red_zone '
      'sanity_checks store_user trace cpu_slabs'.split()))
# /proc/stat's cpuN user nice system idle iowait irq softirq at scale 1
FIX_STAT = ((200, 0, 100, 100), (200, 0, 0, 150, 50), (0, 0, 0, 400), (50, 0, 0, 300, 0, 25, 25))


def parts(letter, vals):
    return '%d%s' % (sum(vals), ''.join(' %s%d=%d' % (letter, i, v)
                                        for i, v in enumerate(vals) if v))


def mk_dump(k, patched, ncpu=4, results=(), caches=(CACHE,), kernel='7.3.4-fixture'):
    """the dump of the 2-node 4-CPU box (or a 1-node 2-CPU one) at scale k;
    patched: with the parking counters and the debugfs park and parked"""
    counters = dict(FIX_COUNTERS, **(FIX_PARK_COUNTERS if patched else {}))
    files = [(n, 'w', parts('C', [k * x for x in v[:ncpu]])) for n, v in counters.items()]
    files.append(('cmpxchg_double_fail', 'w', parts('C', (0, 0, 1234 if k >= 3 else 0, 0)[:ncpu])))
    files += [(n, 'r', parts('N', [v0 * k, v1 * k] if ncpu == 4 else [(v0 + v1) * k]))
              for n, v0, v1 in FIX_GAUGES] + list(CACHE_FILES)
    if patched:
        files += [('debugfs/park', 'w', '1'), ('debugfs/parked', 'r', str(2 * k))]
    return '\n'.join(
        ['@slab-dump 1', '@mono %d.25' % (1000 + k)] +
        ['@stat cpu%d %s' % (i, ' '.join(str(k * x) for x in (s + (0,) * 10)[:10]))
         for i, s in enumerate(FIX_STAT[:ncpu])] +
        ['%s %s %s %s' % ((c,) + f) for c in caches for f in sorted(files)] +
        ['@node 0 0-1'] + (['@node 1 2-3'] if ncpu == 4 else []) +
        ['@kernel ' + kernel, '@time 1796348518 2026-12-04T01:41:58Z'] +
        ['@result ' + r for r in results] + ['@end', ''])


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, mode)


def mk_tree(root, dump):
    """the sysfs and proc of DUMP under ROOT, its @result lines in ROOT/results"""
    stat, res = ['cpu  1 2 3 4', 'intr 0'], []
    for line in dump.split('\n'):
        key, _, rest = line.partition(' ')
        if key in ('@stat', '@result'):
            (stat if key == '@stat' else res).append(rest)
        elif key == '@node':
            n, _, cpus = rest.partition(' ')
            write(os.path.join(root, 'sys/devices/system/node/node%s/cpulist' % n), cpus + '\n')
        elif key == '@kernel':
            write(os.path.join(root, 'proc/sys/kernel/osrelease'), rest + '\n')
        elif key and key[0] != '@':
            c, a, mode, v = line.split(' ', 3)
            d, a = ('debug/slab', a[len('debugfs/'):]) if a.startswith('debugfs/') else ('slab', a)
            write(os.path.join(root, 'sys/kernel', d, c, a), v + '\n' if v else '',
                  0o600 if mode == 'w' else 0o400)
    write(os.path.join(root, 'proc/stat'), '\n'.join(stat) + '\n')
    if res:
        write(os.path.join(root, 'results'), '\n'.join(res) + '\n')


def mk_box(root, k, patched):
    mk_tree(root, mk_dump(k, patched))


def run_dump(root, *args, pre=()):
    env = dict(os.environ, SYSFS=os.path.join(root, 'sys'), PROC=os.path.join(root, 'proc'))
    return subprocess.run(list(pre) + ['sh', DUMP_SH] + list(args), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def row(metric, text):
    """the first line of METRIC (a table row), its fields one space apart"""
    for line in map(str.lstrip, text.split('\n')):
        if line.startswith(metric + ' '):
            return metric + ' ' + ' '.join(line[len(metric):].split())


def flat(doc, prefix=''):
    """'path': value of every leaf of a JSON document"""
    out = {}
    for k, v in doc.items() if isinstance(doc, dict) else enumerate(doc):
        if isinstance(v, (dict, list)):
            out.update(flat(v, '%s%s.' % (prefix, k)))
        else:
            out['%s%s' % (prefix, k)] = v
    return out


def edit(text, attr, value):
    """TEXT with the value of CACHE's ATTR lines (all caches') replaced"""
    return re.sub(r'(?m)^(\S+ %s [rw] ).*$' % re.escape(attr), r'\g<1>' + value, text)


P1, U1 = mk_dump(1, 1), mk_dump(1, 0)
RES_P3 = ('run: 3', 'state: done', 'error: -12', 'placement: cross', 'alloc_thread_nodes: 0 0',
          'ops_per_sec: 123456', 'remote_free_pct: 100.00', 'free_lat_p50_ns: 850',
          'free_lat_hist: 0 0 1 2 3', 'cache_name: nfs_page_test', 'huge: 1e999')
INPUTS = {
    'p1': P1, 'p3': mk_dump(3, 1), 'u1': U1, 'u3': mk_dump(3, 0), 'u0': mk_dump(0, 0),
    'p0': mk_dump(0, 1), 'o1': mk_dump(1, 0, 2), 'o3': mk_dump(3, 0, 2),
    'p3r': mk_dump(3, 1, results=RES_P3),
    'miss3': re.sub(r'(?m)^\S+ barn_get .*\n', '', mk_dump(3, 1)),
    'nosheaf1': edit(U1, 'sheaf_capacity', '0'),
    'nosheaf3': edit(mk_dump(3, 0), 'sheaf_capacity', '0'),
    # per-CPU u32 counters: CPU 0 wraps (2^32 - 296 -> 704), CPU 1 is cleared (1,000 -> 0)
    'wrap1': edit(U1, 'alloc_fastpath', parts('C', (4294967000, 1000, 0, 500))),
    'wrap3': edit(U1, 'alloc_fastpath', parts('C', (704, 0, 0, 800))),
    'two1': mk_dump(1, 1, caches=(CACHE, CACHE2)),
    'two3': mk_dump(3, 1, caches=(CACHE, CACHE2), kernel='7.3.5-other'),
    'nonuma': re.sub(r'@node 0 0-1\n', '@nonuma\n', mk_dump(1, 0, 2)),
    'badparked': edit(P1, 'debugfs/parked', '2 N1=2'),
    'n64': mk_dump(3, 1, results=('a,b: 1',)).replace('@node 1 ', '@node 64 '),
    **{'cu%dr' % k: mk_dump(k, 0, results=('ops_per_sec: %d' % (k * 100),
                                           'free_lat_p99_ns: %d' % (k * 1000))) for k in (1, 2, 3)},
    **{'cp%dr' % k: mk_dump(k, 1, results=('ops_per_sec: %d' % (k * 100 - 50),
                                           'free_lat_p99_ns: %d' % (k * 1000))) for k in (2, 3, 4)},
    'broken.json': '{"slabstat": "delta", "caches": {\n',
    'line.dump': '@slab-dump 1\nnfs_page_test free_slowpath\n@end\n',
    'cut.dump': P1[:len(P1) // 2], 'hello.dump': 'hello\n',
    'mono.dump': '@slab-dump 1\n@mono abc\n@end\n',
    'nan.dump': P1.replace('@end\n', '@mono nan\n@end\n'),
    'time.dump': '@slab-dump 1\n@time x 2026-01-01T00:00:00Z\n@end\n',
    'nostats.dump': '@slab-dump 1\nx object_size r 96\nx slabs r 20 N0=12 N1=8\n@end\n',
    'node.dump': P1.replace('@node 1 2-3', '@node 1024 2-3'),
    'cpu.dump': P1.replace('@node 1 2-3', '@node 1 2-65536'),
    'stat.dump': P1.replace('@stat cpu3 ', '@stat cpu65536 '),
    'sup.dump': P1.replace('@node 1 2-3', '@node \u00b2 2-3'),
    'sup2.dump': P1.replace('@stat cpu3 50 ', '@stat cpu3 \u00b2 '),
    'caches.json': '{"slabstat": "delta", "caches": [{}]}',
    'results.json': '{"slabstat": "delta", "results": 5}',
}
# delta documents: the dumps before and after (neg: park_slab - unpark_slab < 0)
DELTAS = dict({'off%d' % k: ('u0', 'cu%dr' % k) for k in (1, 2, 3)},
              nosheaf=('nosheaf1', 'nosheaf3'), neg1=('two3', 'two1'), neg2=('cp4r', 'two3'),
              **{'on%d' % k: ('p0', 'cp%dr' % k) for k in (2, 3, 4)})


class Fixtures:
    """INPUTS and DELTAS as files, made once; dumps: name -> path"""
    _made = None

    @classmethod
    def get(cls):
        cls._made = cls._made or cls()
        return cls._made

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory()
        names = list(INPUTS) + list(DELTAS) + ['typed', 'snap.json', 'nonexistent']
        self.dumps = {n: self.p(n) for n in names}
        for n, text in INPUTS.items():
            write(self.p(n), text)
        for n, (a, b) in DELTAS.items():
            write(self.p(n), slabstat.run(['diff', '--json', self.p(a), self.p(b)]))
        write(self.p('snap.json'), slabstat.run(['snap', self.p('p1')]))
        doc = json.loads(slabstat.run(['diff', '--json', self.p('u0'), self.p('cu1r')]))
        doc['caches'][CACHE]['metrics']['free_slowpath']['type'] = 'derived'
        write(self.p('typed'), json.dumps(doc))

    def p(self, *parts):
        return os.path.join(self.tmp.name, *parts)


class SlabstatCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fx = Fixtures.get()

    def sl(self, *argv):
        """slabstat ARGV, the fixtures by name (not --labels' argument)"""
        return slabstat.run([a if o == '--labels' else self.fx.dumps.get(a, a)
                             for o, a in zip(('',) + argv, argv)])


OFF, ON = ('off1', 'off2', 'off3'), ('on2', 'on3', 'on4')
OFF_ON = ('compare', '--labels', 'off,on') + OFF + ('--',) + ON
CHURN = 'page allocator churn (alloc_slab + free_slab)'

# the command, the text from the first line starting with this, its rows (fields one space apart)
TEXT_ROWS = (
    # options end at '--'
    (('diff', '--', 'p1', 'p3'), '', (
        ('metric', 'before after delta change'),
        ('alloc_fastpath', '2,000,000 6,000,000 4,000,000 +200.00%'),
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
    (('diff', 'nosheaf1', 'nosheaf3'), '', (('SHEAF_FLUSH / sheaf_capacity', 'n/a'),)),
    # a per-CPU u32 wrap is corrected, a clear stays negative
    (('split', 'wrap1', 'wrap3'), '', (
        ('alloc_fastpath', '4,294,968,500 1,504 300 +0.00%'),)),
    (('split', 'wrap1', 'wrap3'), 'per-node split', (('alloc_fastpath', '0 300 300'),)),
    (('split', 'p1', 'p3'), 'per-node split', (
        ('metric', 'node0 node1 all'), ('free_slowpath', '250,000 750,000 1,000,000'),
        ('park_slab', '0 150,000 150,000'), ('%idle', '37.50 87.50 62.50'))),
    (('split', 'o1', 'o3'), 'per-node split', (
        ('metric', 'node0 all'), ('free_slowpath', '250,000 250,000'), ('%idle', '37.50 37.50'))),
    (('diff', 'two1', 'two3'), 'cache: ' + CACHE2, (
        ('free_slowpath', '500,000 1,500,000 1,000,000 +200.00%'),)),
    (('diff', 'two1', 'two3'), '', (('kernel:', '7.3.4-fixture -> 7.3.5-other'),
                                    ('interval:', '2.00 s (2026-12-04T01:41:58Z -> '
                                     '2026-12-04T01:41:58Z)'))),
    (('diff', 'p3r', 'p3r'), 'results', (('results', '(after):'), ('run:', '3'),
                                         ('ops_per_sec:', '123,456'))),
    (('compare', 'neg1', 'neg2'), '', (
        ('group G1:', '2 runs, kernel mixed: 7.3.4-fixture, 7.3.5-other, ...'),
        # a range with a negative end: '..' (not '-')
        ('PARK_SLAB - UNPARK_SLAB', '-750 (-1,000..-500)'))),
    (OFF_ON, '', (
        ('group on:', '3 runs, kernel 7.3.4-fixture'),
        ('metric', 'off on delta change'),
        ('free_slowpath', '1,000,000 (500,000-1,500,000) 1,500,000 (1,000,000-2,000,000) '
         '500,000 +50.00%'),
        ('park_slab', 'absent 225,000 (150,000-300,000) - absent'),
        (CHURN, '9,000 (4,500-13,500) 13,500 (9,000-18,000) +50.00%'),
        ('PARK_SLAB / FREE_ADD_PARTIAL', 'absent 75.00% (75.00%-75.00%) absent'),
        ('ops_per_sec', '200 (100-300) 250 (150-350) 50 +25.00%'),
        ('alloc_lat_p50_ns', 'absent absent - absent'))),
    (('compare', 'off1', 'off2', '--', 'on2', 'on3'), '', (
        ('free_slowpath', '750,000 (500,000-1,000,000) 1,250,000 (1,000,000-1,500,000) '
         '500,000 +66.67%'),
        ('metric', 'G1 G2 delta change'))),
    (OFF_ON[:2] + ('off,on,always',) + OFF_ON[3:] + ('--', 'on2', 'on3'), '', (
        ('metric', 'off on always delta on change on delta always change always'),
        ('free_slowpath', '1,000,000 (500,000-1,500,000) 1,500,000 (1,000,000-2,000,000) '
         '1,250,000 (1,000,000-1,500,000) 500,000 +50.00% 250,000 +25.00%'))),
    (('compare', '--labels', 'nosheaves,sheaves', 'nosheaf', '--', 'off1', 'off2'), '', (
        ('SHEAF_FLUSH / sheaf_capacity', 'n/a 7,500 (5,000-10,000) n/a'),
        # one run: no range
        ('free_slowpath', '1,000,000 750,000 (500,000-1,000,000) -250,000 -25.00%'))),
)

# the command, the CSV's header, lines it has (compare's others: outputs/guest-2x2/cross.csv)
CSV_LINES = (
    (('diff', '--csv', 'u1', 'p3r'), 'cache,kind,metric,before,after,delta,change_pct', (
        'nfs_page_test,counter,free_slowpath,500000,1500000,1000000,200.00',
        'nfs_page_test,counter,park_slab,,225000,,absent',
        'nfs_page_test,derived,free_slowpath_ratio,,,25,',
        'nfs_page_test,derived,park_ratio,,,,absent', ',result,remote_free_pct,,,100,')),
    (('diff', '--csv', 'two1', 'two3'), 'cache,kind,metric,before,after,delta,change_pct', (
        '"c,q""x",counter,free_slowpath,500000,1500000,1000000,200.00',)),
    (('split', '--csv', 'p1', 'p3'),
     'cache,kind,metric,before,after,delta,change_pct,node0,node1', (
         'nfs_page_test,counter,free_slowpath,500000,1500000,1000000,200.00,250000,750000',
         'nfs_page_test,gauge,slabs,20,60,40,200.00,24,16',
         'nfs_page_test,fact,sheaf_capacity,60,60,0,0.00,,',
         ',idle,idle_pct,,,62.50,,37.50,87.50')),
    # a result key with a comma quoted
    (('diff', '--csv', 'p1', 'n64'), 'cache,kind,metric,before,after,delta,change_pct', (
        ',result,"a,b",,,1,',)),
    (('compare', '--csv') + OFF_ON[1:],
     'metric,off,on,kind,cache,off_runs,off_min,off_max,on_runs,on_min,on_max,on_delta,'
     'on_change_pct', ('park_slab,,225000,counter,nfs_page_test,0,,,3,150000,300000,,absent',)),
)

C = 'caches.nfs_page_test.'
M = C + 'metrics.'
# the command, leaves of its JSON document (flat's paths), what no path may match
# (compare's others: outputs/guest-2x2/cross.json)
JSON_LEAVES = (
    (('snap', 'p3r'), {
        C + 'counters.free_slowpath.cpus.2': 562500, C + 'counters.free_slowpath.sum': 1500000,
        C + 'gauges.slabs.nodes.1': 24,
        # parked (debugfs) is a gauge on the patched kernel
        C + 'gauges.parked.sum': 6, C + 'facts.sheaf_capacity': 60, C + 'facts.park': 1,
        'cpu_node.0': 0, 'cpu_node.1': 0, 'cpu_node.2': 1, 'cpu_node.3': 1, 'cpu_node.4': None,
        'cpus.3.idle': 900, 'cpus.3.busy': 300, 'kernel': '7.3.4-fixture',
        'results.run': 3, 'results.error': -12, 'results.remote_free_pct': 100,
        'results.free_lat_p50_ns': 850},
     # parked has no node parts; settings and flags are no statistics; results numbers only
     re.escape(C) + r'gauges\.parked\.nodes\.|\.(hwcache_align|cpu_partial|'
     r'remote_node_defrag_ratio|slabs_cpu_partial|cpu_slabs|aliases|validate|shrink|ctor|'
     r'poison)([.]|$)|results\.(state|placement|alloc_thread_nodes|free_lat_hist|cache_name|'
     r'huge)$'),
    (('snap', 'u1'), {}, r'\.(park_slab|unpark_slab|parked|park)([.]|$)'),
    # without node directories every CPU is node 0
    (('snap', 'nonuma'), {'cpu_node.0': 0, 'cpu_node.1': 0, 'cpu_node.2': None}, None),
    (('diff', '--json', 'p1', 'p3r'), {
        'slabstat': 'delta', M + 'free_slowpath.delta': 1000000,
        M + 'free_slowpath.cpus.2': 375000, M + 'free_slowpath.nodes.1': 750000,
        M + 'slabs.nodes.0': 24, C + 'derived.park_ratio.value': 75,
        'results.ops_per_sec': 123456, 'idle.nodes_pct.1': 87.5, 'idle.all_pct': 62.5},
     None),
    # node 64 is a node
    (('diff', '--json', 'p1', 'n64'), {
        M + 'free_slowpath.nodes.0': 250000, M + 'free_slowpath.nodes.63': 0,
        M + 'free_slowpath.nodes.64': 750000, 'idle.nodes_pct.64': 87.5}, r'\.nodes\.65$'),
    # a '\u00b2' (str.isdigit's, not int's) is no number: the line is left out
    (('snap', 'sup.dump'), {'cpu_node.1': 0, 'cpu_node.2': -1}, None),
    (('snap', 'sup2.dump'), {'cpus.2.cpu': 2, 'cpus.3.cpu': None}, None),
    (('diff', '--json', 'u1', 'p3'), {M + 'park_slab.absent': 'before'}, None),
    (('diff', '--json', 'wrap1', 'wrap3'), {M + 'alloc_fastpath.wrapped_cpus': 1}, None),
    # a derived row has a label, a metric of that type not
    (('compare', '--json', 'typed'), {M + 'free_slowpath.kind': 'derived'},
     re.escape(M) + r'free_slowpath\.label'),
)


class OutputTest(SlabstatCase):
    def test_text_rows(self):
        for argv, start, rows in TEXT_ROWS:
            text = self.sl(*argv)
            text = text[text.index('\n' + start) + 1:] if start else text
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
                self.assertFalse([k for k in f if none and re.search(none, k)])

    def test_diff_text(self):
        """the layout of the tables, the notes, the caches in order"""
        d = self.sl('diff', 'p1', 'p3')
        tbl = d[d.index('metric '):].split('\n\n')[0].split('\n')
        self.assertEqual(len({len(x) for x in tbl}), 1, 'metric table columns right-aligned')
        self.assertTrue(d.endswith("""
derived                                            value
========================================================
FREE_SLOWPATH / (FREE_FASTPATH + FREE_SLOWPATH)   25.00%
SHEAF_FLUSH / sheaf_capacity                      10,000
BARN_PUT_FAIL / (SHEAF_FLUSH / sheaf_capacity)      0.90
PARK_SLAB / FREE_ADD_PARTIAL                      75.00%
PARK_SLAB - UNPARK_SLAB                            1,000
page allocator churn (alloc_slab + free_slab)      9,000
"""))
        self.assertNotRegex(d, r'(?m)^per-node')
        self.assertIn('\nnote: alloc_fastpath: the per-CPU counter wrapped at 2^32 on 1 CPU(s); '
                      'delta corrected\n', self.sl('split', 'wrap1', 'wrap3'))
        self.assertEqual(re.findall(r'(?m)^cache: .*$', self.sl('diff', 'two1', 'two3')),
                         ['cache: nfs_page_test', 'cache: ' + CACHE2])

    def test_counters_found(self):
        f = flat(json.loads(self.sl('snap', 'p1')))
        self.assertEqual(len([k for k in f if re.fullmatch(
            re.escape(C) + r'counters\.[a-z_]*\.sum', k)]), len(FIX_COUNTERS) + 3)

    def test_bad_parked(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            f = flat(json.loads(self.sl('snap', 'badparked')))
        self.assertIn('parked: not a single number', err.getvalue())
        self.assertFalse([k for k in f if '.gauges.parked' in k])

    def test_parse_stat(self):
        for text, want in (('5', (5, '', [])), ('5\n', (5, '', [])),
                           ('3 C0=1 C2=2', (3, 'C', [(0, 1), (2, 2)])),
                           ('20 N0=12 N1=8', (20, 'N', [(0, 12), (1, 8)])),
                           *((bad, None) for bad in ('', '0(0)', '1 C0=1 N1=1', 'x', '1 C0=',
                                                     '1 C=1', '0 0', ' 1'))):
            self.assertEqual(slabstat.parse_stat(text), want, text)

    def test_write_deltas(self):
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, 'runs', 'cross', 'park1')
            for src, dst in (('p1', '1.before'), ('p3r', '1.after'), ('u1', '2.before'),
                             ('u3', '2.after')):
                write(os.path.join(d, dst + '.dump'), INPUTS[src])
            self.assertEqual(slabstat.write_deltas(t), 2)
            with open(os.path.join(d, '1.json')) as f:
                self.assertEqual(f.read(), self.sl('diff', '--json', 'p1', 'p3r'))
            os.remove(os.path.join(d, '2.after.dump'))
            with self.assertRaisesRegex(slabstat.Error,
                                        r'2\.before\.dump has no \.after\.dump beside it'):
                slabstat.write_deltas(t)
            # results without dumps (older ones, the report's fixtures): none
            self.assertEqual(slabstat.write_deltas(os.path.join(t, 'x')), 0)


U, E = slabstat.UsageError, slabstat.Error
# the exception, its message, the command
ERRORS = (
    (U, '^missing command$', ()),
    (U, "unknown command 'frobnicate'", ('frobnicate',)),
    (U, "unknown option '--bogus'", ('diff', '--bogus', 'a', 'b')),
    (U, "unknown option '--labels'", ('diff', '--labels', 'a', 'p1', 'p3')),
    (U, 'diff needs two dumps', ('diff', 'p1')),
    (U, 'snap needs one DUMP', ('snap', 'p1', 'p3')),
    (U, "'snap' takes no --csv/--json", ('snap', '--json', 'p1')),
    (U, 'exclude each other', ('diff', '--csv', '--json', 'p1', 'p3')),
    (U, '--labels needs an argument', ('compare', 'off1', '--labels')),
    (U, 'names more groups', ('compare', '--labels', 'a,b,c', 'off1', '--', 'on2')),
    (U, 'names fewer groups', ('compare', '--labels', 'a', 'off1', '--', 'on2')),
    (U, 'empty group', ('compare', 'off1', '--')),
    (U, 'at most 8 groups', ('compare',) + ('off1', '--') * 8 + ('off1',)),
    (E, 'not a delta document.*this is a slab dump', ('compare', 'p1', '--', 'off1')),
    (E, 'not a delta document.*this is a snapshot', ('compare', 'snap.json', '--', 'off1')),
    (E, 'not a slab dump', ('diff', 'off1', 'p3')),
    (E, 'not valid JSON', ('compare', 'broken.json')),
    (E, r"line\.dump:2: not a 'CACHE ATTR MODE VALUE' line", ('diff', 'line.dump', 'p3')),
    # a dump cut short (a full disk, a killed dump): refused
    (E, r"cut\.dump: truncated: no '@end' line", ('diff', 'cut.dump', 'p3')),
    (E, 'not a slab dump', ('diff', 'hello.dump', 'p3')),
    (E, r"mono\.dump:2: @mono: not a number: 'abc'", ('snap', 'mono.dump')),
    # JSON has no NaN
    (E, r"nan\.dump:\d+: @mono: not a number: 'nan'", ('snap', 'nan.dump')),
    (E, r"time\.dump:2: @time: not a number: 'x'", ('snap', 'time.dump')),
    (E, "cache 'x' has no statistics files .*lacks CONFIG_SLUB_STATS", ('snap', 'nostats.dump')),
    # no kernel has a node above 1023 (MAX_NUMNODES) or a CPU above 65535
    (E, r'node\.dump:\d+: @node: node 1024 above 1023$', ('snap', 'node.dump')),
    (E, r'cpu\.dump:\d+: @node: CPU 65536 above 65535$', ('snap', 'cpu.dump')),
    (E, r'stat\.dump: @stat: CPU 65536 above 65535$', ('snap', 'stat.dump')),
    (E, r"caches\.json: the delta document's 'caches' is not an object$",
     ('compare', 'caches.json')),
    (E, r"results\.json: the delta document's 'results' is not an object$",
     ('compare', 'results.json')),
    (E, 'cannot read .*nonexistent', ('diff', 'nonexistent', 'p3')),
)
# what slab-dump.sh dumps back (-r ROOT/results where the dump has @result lines)
ROUND_TRIPS = ('p3r', 'two1', 'o1', 'nonuma')
# slab-dump.sh's arguments on the tree ERR, its status, its stderr
DUMP_ERRORS = (
    # the names that share 4 characters or contain the name, in directory order
    (('nfs_page_tst',), 1, r"no cache 'nfs_page_tst' .*close names: "
     r"nfs_page, nfs_page_test, nfs_page_test2$"),
    (('kmalloc-64',), 1, r"no cache 'kmalloc-64'.*no similar names"),
    (('nfs_page',), 1, r"'nfs_page' is an alias of the merged cache ':a-0000128'"),
    ((CACHE, CACHE), 1, 'given twice'),
    (('-r', 'nonexistent', CACHE), 1, 'cannot read results file'),
    ((), 2, '^usage:'),
)


class ErrorTest(SlabstatCase):
    def test_errors(self):
        for exc, regex, argv in ERRORS:
            with self.subTest(argv=argv):
                with contextlib.redirect_stderr(io.StringIO()):
                    with self.assertRaisesRegex(exc, regex):
                        self.sl(*argv)

    def test_cli_exit_status(self):
        env = dict(os.environ, PYTHONPATH=TOOLS)
        for argv, rc, regex in ((['diff', 'p1', 'p3'], 0, '^$'),
                                (['diff', 'off1', 'p3'], 1, r'^slabstat: .*not a slab dump'),
                                (['frob'], 2, r"^slabstat: unknown command 'frob'\n\nusage:")):
            r = subprocess.run([sys.executable, '-m', 'slabpark.slabstat'] +
                               [self.fx.dumps.get(a, a) for a in argv], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True)
            self.assertEqual(r.returncode, rc, r.stderr)
            self.assertRegex(r.stderr, regex)


class DumpTest(unittest.TestCase):
    """slab-dump.sh on the trees of the dumps"""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        os.chmod(self.tmp.name, 0o755)

    def test_round_trip(self):
        for name in ROUND_TRIPS:
            with self.subTest(dump=name):
                root, text = os.path.join(self.tmp.name, name), INPUTS[name]
                mk_tree(root, text)
                caches = dict.fromkeys(ln.split(' ')[0] for ln in text.split('\n')
                                       if ln and ln[0] != '@')
                res = ['-r', os.path.join(root, 'results')] if '@result' in text else []
                r = run_dump(root, *res, *caches)
                self.assertEqual((r.returncode, r.stderr), (0, ''))
                self.assertRegex(r.stdout, r'(?m)^@time \d+ \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$')
                self.assertRegex(r.stdout, r'(?m)^@mono \d+\.\d+$')
                self.assertEqual(r.stdout.split('\n')[:1] + r.stdout.split('\n')[-2:],
                                 ['@slab-dump 1', '@end', ''])
                self.assertEqual(*[sorted(ln for ln in t.split('\n')
                                          if not ln.startswith(('@mono ', '@time ')))
                                   for t in (r.stdout, text)])

    def err_tree(self):
        root = os.path.join(self.tmp.name, 'err')
        mk_tree(root, mk_dump(1, 1, caches=(CACHE, CACHE + '2', ':a-0000128')))
        os.symlink(':a-0000128', os.path.join(root, 'sys/kernel/slab/nfs_page'))
        return root

    def test_dump_errors(self):
        root = self.err_tree()
        r = run_dump(os.path.join(root, 'nonexistent'), 'x')
        self.assertEqual((r.returncode, r.stdout), (1, ''))
        self.assertRegex(r.stderr, r'cannot open .*/kernel/slab')
        for args, rc, regex in DUMP_ERRORS:
            with self.subTest(args=args):
                r = run_dump(root, *[os.path.join(root, a) if a == 'nonexistent' else a
                                     for a in args])
                self.assertEqual((r.returncode, r.stdout), (rc, ''), r.stderr)
                self.assertRegex(r.stderr, regex)

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which('setpriv'), 'needs root, setpriv')
    def test_permission(self):
        nobody = ('setpriv', '--reuid=65534', '--regid=65534', '--clear-groups')
        r = run_dump(self.err_tree(), CACHE, pre=nobody)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('@unreadable nfs_page_test free_slowpath', r.stdout.split('\n'))
        with self.assertRaisesRegex(slabstat.Error,
                                    r'permission denied .*run slab-dump.sh as root'):
            slabstat.parse_dump(r.stdout)


if __name__ == '__main__':
    unittest.main()
