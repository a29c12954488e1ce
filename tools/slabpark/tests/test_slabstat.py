# SPDX-License-Identifier: GPL-2.0
"""Tests of slabpark.slabstat on fixture dumps in Linux 7.3's formats
(mk_dump), and of tools/guest/slab-dump.sh, which must dump a dump's tree
(mk_tree) back to it.  GOLDEN: the commands whose outputs tests/data/outputs/slabstat/ keeps."""

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
# the commands whose outputs (stdout, the fixtures' directory as DIR) tests/data/outputs/slabstat/
# keeps, named by their words joined with '_' (refresh() writes them)
GOLDEN = (
    # options end at '--'; 0 before and not after: change n/a; a gauge, a fact; derived rows
    ('diff', '--', 'p1', 'p3'), ('snap', 'p1'),
    # absent before, after; derived rows absent; n/a where a denominator is 0
    ('diff', 'u1', 'p3'), ('diff', 'p1', 'miss3'), ('diff', 'u1', 'u3'),
    ('diff', 'nosheaf1', 'nosheaf3'),
    # a per-CPU u32 wrap is corrected (and noted), a clear stays negative
    ('split', 'wrap1', 'wrap3'), ('diff', '--json', 'wrap1', 'wrap3'),
    # the per-node split and %idle, of 2 nodes and of 1
    ('split', 'p1', 'p3'), ('split', 'o1', 'o3'), ('split', '--csv', 'p1', 'p3'),
    # two caches in order, two kernels; results after
    ('diff', 'two1', 'two3'), ('diff', 'p3r', 'p3r'),
    # a group of mixed kernels; a range with a negative end: '..' (not '-')
    ('compare', 'neg1', 'neg2'),
    OFF_ON, ('compare', '--csv') + OFF_ON[1:],
    # G1 G2 without labels; 3 groups: delta and change per group
    ('compare', 'off1', 'off2', '--', 'on2', 'on3'),
    OFF_ON[:2] + ('off,on,always',) + OFF_ON[3:] + ('--', 'on2', 'on3'),
    # n/a in every run; one run: no range
    ('compare', '--labels', 'nosheaves,sheaves', 'nosheaf', '--', 'off1', 'off2'),
    ('diff', '--csv', 'u1', 'p3r'),
    # CSV quotes a cache name with a comma, a result key with one
    ('diff', '--csv', 'two1', 'two3'), ('diff', '--csv', 'p1', 'n64'),
    # parked (debugfs) is a gauge on the patched kernel, without node parts; settings and flags
    # are no statistics; results numbers only
    ('snap', 'p3r'), ('snap', 'u1'), ('diff', '--json', 'p1', 'p3r'),
    ('diff', '--json', 'u1', 'p3'),
    # without node directories every CPU is node 0
    ('snap', 'nonuma'),
    # node 64 is a node
    ('diff', '--json', 'p1', 'n64'),
    # a '\u00b2' (str.isdigit's, not int's) is no number: the line is left out
    ('snap', 'sup.dump'), ('snap', 'sup2.dump'),
    # a derived row has a label, a metric of that type not
    ('compare', '--json', 'typed'),
)


def golden(argv):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'outputs',
                        'slabstat', '_'.join(argv))


def errors(case):
    """'ARGV: EXCEPTION: MESSAGE' of each of ERRORS"""
    out = []
    for argv in ERRORS:
        try:
            case.sl(*argv)
            out.append('%s: no error\n' % ' '.join(argv))
        except (slabstat.UsageError, slabstat.Error) as e:
            out.append('%s: %s: %s\n' % (' '.join(argv), type(e).__name__, e))
    # json's own words differ between Python versions
    return re.sub(r'(not valid JSON: ).*', r"\1(json's message)",
                  ''.join(out).replace(case.fx.tmp.name, 'DIR'))


def refresh():
    """tests/data/outputs/slabstat/ anew (fixtures.refresh() calls it)"""
    case = SlabstatCase()
    case.fx = Fixtures.get()
    for argv in GOLDEN:
        write(golden(argv), case.sl(*argv).replace(case.fx.tmp.name, 'DIR'))
    write(golden(['errors']), errors(case))


class OutputTest(SlabstatCase):
    def test_golden(self):
        """every output of GOLDEN as kept"""
        for argv in GOLDEN:
            with self.subTest(argv=argv), open(golden(argv)) as f:
                self.assertEqual(self.sl(*argv).replace(self.fx.tmp.name, 'DIR'), f.read())

    def test_bad_parked(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            snap = self.sl('snap', 'badparked')
        self.assertIn('parked: not a single number', err.getvalue())
        self.assertNotIn('"parked"', snap)

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


# the commands refused; tests/data/outputs/slabstat/errors keeps how (the exception, its message)
ERRORS = (
    (), ('frobnicate',), ('diff', '--bogus', 'a', 'b'), ('diff', '--labels', 'a', 'p1', 'p3'),
    ('diff', 'p1'), ('snap', 'p1', 'p3'), ('snap', '--json', 'p1'),
    ('diff', '--csv', '--json', 'p1', 'p3'), ('compare', 'off1', '--labels'),
    ('compare', '--labels', 'a,b,c', 'off1', '--', 'on2'),
    ('compare', '--labels', 'a', 'off1', '--', 'on2'), ('compare', 'off1', '--'),
    ('compare',) + ('off1', '--') * 8 + ('off1',),
    # not a delta document: a slab dump, a snapshot, not JSON, not objects
    ('compare', 'p1', '--', 'off1'), ('compare', 'snap.json', '--', 'off1'),
    ('compare', 'broken.json'), ('compare', 'caches.json'), ('compare', 'results.json'),
    ('diff', 'off1', 'p3'), ('diff', 'line.dump', 'p3'), ('diff', 'hello.dump', 'p3'),
    # a dump cut short (a full disk, a killed dump): refused
    ('diff', 'cut.dump', 'p3'),
    # JSON has no NaN
    ('snap', 'mono.dump'), ('snap', 'nan.dump'), ('snap', 'time.dump'), ('snap', 'nostats.dump'),
    # no kernel has a node above 1023 (MAX_NUMNODES) or a CPU above 65535
    ('snap', 'node.dump'), ('snap', 'cpu.dump'), ('snap', 'stat.dump'),
    ('diff', 'nonexistent', 'p3'),
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
        with open(golden(['errors'])) as f:
            self.assertEqual(errors(self), f.read())

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
