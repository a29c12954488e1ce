# SPDX-License-Identifier: GPL-2.0
"""slabstat: snapshots, deltas, per-node split, derived rows and group
comparison of SLUB's statistics, in text, CSV and JSON.

Inputs: the dumps of tools/guest/slab-dump.sh (what the guest and make
run HOST=1 write; 'snap' shows one as a snapshot document) for diff;
delta documents ('diff --json', the
runs/<placement>/park<mode>/<round>.json of a results directory, which
write_deltas makes of guest-compare.sh's dumps) for compare.  The formats
are those of the C tools/slabstat this replaced (its output matched byte
for byte; Documentation/dev-tools/slabstat.rst).

What the consumers read of the outputs:

- tools/slabpark/runs.py: delta document caches.<cache>.metrics.<m>.value
- tools/slabpark/comparison.py: writes the compare CSV and JSON beside
  report.txt, and reads the CSV back (the sweep table, the plot): its
  header (metric, <label>..., kind, cache, <label>_runs/_min/_max,
  <label>_delta/_change_pct) and the rows park_slab, free_add_partial,
  alloc_slab, free_slab, free_slowpath_ratio, page_churn, park_ratio,
  ops_per_sec
- tools/slabpark/guest_out.py: compute()'s per-node split of a window

CLI: python3 -m slabpark slabstat {snap,diff,split,compare} (main).
"""

import glob
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from .stats import median

PROG = 'slabstat'
MAX_NODES = 64
MAX_GROUPS = 8

# object/slab gauges; with CONFIG_NUMA and a non-zero value they carry N parts
GAUGE_NAMES = ('slabs', 'objects', 'partial', 'total_objects',
               'objects_partial')
# scalar facts recorded in every snapshot (when the file exists)
FACT_NAMES = ('object_size', 'slab_size', 'sheaf_capacity', 'objs_per_slab',
              'order', 'min_partial')
# writable attributes that are settings or triggers, not statistics
SETTING_NAMES = ('cpu_partial', 'remote_node_defrag_ratio', 'failslab',
                 'skip_kfence', 'validate', 'shrink')
# the series' debugfs files: the switch (a fact), the parked count (a gauge)
DEBUGFS_FILES = {'park': 'fact', 'parked': 'gauge'}
RESULT_KEYS = ('ops_per_sec', 'free_lat_p50_ns', 'free_lat_p99_ns',
               'alloc_lat_p50_ns', 'alloc_lat_p99_ns')
SECTIONS = (('counter', 'counters'), ('gauge', 'gauges'), ('fact', 'facts'))


class Error(ValueError):
    """bad data, a one-line error; the CLI prints 'slabstat: MSG' and
    exits 1"""


class UsageError(Exception):
    """the CLI prints 'slabstat: MSG', the usage, and exits 2"""


def warn(msg: str) -> None:
    print('%s: warning: %s' % (PROG, msg), file=sys.stderr)


# ------------------------------------------------------------ derived rows

OK, ABSENT, UNDEF = 'ok', 'absent', 'undefined'

Getter = Callable[[str], Optional[float]]


def _ratio(num: float, den: float, scale: float) -> Tuple[str, float]:
    if den == 0:
        return UNDEF, 0.0
    return OK, num / den * scale


# key, label, unit ('%' percent, 'x' ratio, '#' count), the per-run values
# it is made of (counter delta, gauge/fact value), (state, value) of them
DERIVED = (
    ('free_slowpath_ratio',
     'FREE_SLOWPATH / (FREE_FASTPATH + FREE_SLOWPATH)', '%',
     ('free_slowpath', 'free_fastpath'), lambda s, f: _ratio(s, s + f, 100)),
    ('sheaf_flushes', 'SHEAF_FLUSH / sheaf_capacity', '#',
     ('sheaf_flush', 'sheaf_capacity'), lambda f, c: _ratio(f, c, 1)),
    ('barn_put_fail_per_flush',
     'BARN_PUT_FAIL / (SHEAF_FLUSH / sheaf_capacity)', 'x',
     ('barn_put_fail', 'sheaf_flush', 'sheaf_capacity'),
     lambda b, f, c: (UNDEF, 0.0) if c == 0 else _ratio(b, f / c, 1)),
    # a park counts free_add_partial too: at most 100%
    ('park_ratio', 'PARK_SLAB / FREE_ADD_PARTIAL', '%',
     ('park_slab', 'free_add_partial'), lambda p, a: _ratio(p, a, 100)),
    ('park_balance', 'PARK_SLAB - UNPARK_SLAB', '#',
     ('park_slab', 'unpark_slab'), lambda p, u: (OK, p - u)),
    ('page_churn', 'page allocator churn (alloc_slab + free_slab)', '#',
     ('alloc_slab', 'free_slab'), lambda a, f: (OK, a + f)),
)


def derive(i: int, get: Getter) -> Tuple[str, float]:
    """row i of DERIVED from per-run values; (state, value)"""
    v = [get(n) for n in DERIVED[i][3]]
    return (ABSENT, 0.0) if any(x is None for x in v) else DERIVED[i][4](*v)


# ------------------------------------------------------------ formatting

def fmt_int(v: int) -> str:
    """1234567 -> '1,234,567'"""
    return '{:,}'.format(int(v))


def fmt_num(v: float) -> str:
    """integers with separators, other values with separators and 2
    decimals"""
    if math.isfinite(v) and v == int(v):
        return fmt_int(int(v))
    return '{:,.2f}'.format(v)


def fmt_derived(i: int, v: float) -> str:
    unit = DERIVED[i][2]
    if unit == '%':
        return '%.2f%%' % v
    if unit == 'x':
        return '%.2f' % v
    return fmt_num(v)


def table(rows: List[List[Optional[str]]]) -> str:
    """first column left-aligned, the others right-aligned 3 apart, a '='
    rule under the header; None prints as '-'"""
    rows = [['-' if c is None else c for c in r] for r in rows]
    ncol = len(rows[0])
    w = [max(len(r[j]) for r in rows) + (3 if j else 0) for j in range(ncol)]
    out = []
    for i, r in enumerate(rows):
        out.append(''.join(c.ljust(w[j]) if j == 0 else c.rjust(w[j])
                           for j, c in enumerate(r)) + '\n')
        if i == 0:
            out.append('=' * sum(w) + '\n')
    return ''.join(out)


def csv_cell(s: str, last: bool) -> str:
    if any(c in s for c in ',"\n'):
        s = '"' + s.replace('"', '""') + '"'
    return s + ('\n' if last else ',')


def write_json(doc) -> str:
    """2-space indent, one member a line"""
    return json.dumps(doc, indent=2, allow_nan=False) + '\n'


# ------------------------------------------------------------ snapshots

@dataclass
class Metric:
    name: str
    type: str                   # counter, gauge, fact
    sum: int
    parts: List[Tuple[int, int]] = field(default_factory=list)


@dataclass
class Snapshot:
    kernel: str = ''
    time: str = ''
    timestamp: float = 0.0
    mono: float = 0.0
    cpu_node: List[int] = field(default_factory=list)
    cpus: List[Tuple[int, int, int]] = field(default_factory=list)
    caches: Dict[str, Dict[str, Metric]] = field(default_factory=dict)
    results: List[Tuple[str, float]] = field(default_factory=list)

    def node_of(self, cpu: int) -> int:
        return self.cpu_node[cpu] if 0 <= cpu < len(self.cpu_node) else -1


STAT = re.compile(r'(\d+)((?: *[CN]\d+=\d+)*) *\n?')


def parse_stat(text: str) -> Optional[Tuple[int, str, List[Tuple[int, int]]]]:
    """'<sum>[ C<n>=<v>...]' or '<sum>[ N<n>=<v>...]': (sum, kind, parts),
    kind 'C', 'N' or '' without parts; None for anything else"""
    m = STAT.fullmatch(text)
    parts = re.findall(r'([CN])(\d+)=(\d+)', m.group(2)) if m else []
    kinds = ''.join(sorted({k for k, _, _ in parts}))
    if not m or len(kinds) > 1:
        return None
    return int(m.group(1)), kinds, [(int(i), int(v)) for _, i, v in parts]


def classify(name: str, kind: str, writable: bool) -> Optional[str]:
    if kind == 'C':
        return 'counter'
    if kind == 'N' or name in GAUGE_NAMES:
        return 'gauge'
    if name in FACT_NAMES:
        return 'fact'
    if writable and name not in SETTING_NAMES:
        return 'counter'
    return None


def parse_cpulist(text: str, node: int, s: Snapshot) -> None:
    """'0-3,8,10-11' into s.cpu_node"""
    for tok in text.strip().split(','):
        m = re.fullmatch(r'(\d+)(?:-(\d+))?', tok)
        if not m:
            return
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if b > 65535 or b < a:
            return
        while len(s.cpu_node) <= b:
            s.cpu_node.append(-1)
        for c in range(a, b + 1):
            s.cpu_node[c] = node


def parse_results_line(line: str) -> Optional[Tuple[str, float]]:
    """'key: value' with one number (a dump's @result line)"""
    k, sep, v = line.partition(':')
    k = k.strip()
    if not sep or not k:
        return None
    # one decimal number and nothing else (not placement, not lists)
    if not re.fullmatch(r'\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*', v):
        return None
    return k, float(v)


def _proc_stat_line(line: str) -> Optional[Tuple[int, int, int]]:
    """(cpu, idle, busy) of a 'cpuN user nice system idle ...' line"""
    m = re.match(r'cpu(\d+)', line)
    if not m:
        return None
    v = []
    for w in line[m.end():].split()[:8]:
        if not w.isdigit():
            break
        v.append(int(w))
    if len(v) < 4:
        return None
    v += [0] * (8 - len(v))
    # user nice system idle iowait irq softirq steal
    return (int(m.group(1)), v[3] + v[4],
            v[0] + v[1] + v[2] + v[5] + v[6] + v[7])


def _finish_cache(path: str, name: str, files: List[str],
                  mets: Dict[str, Metric]) -> Dict[str, Metric]:
    mets = dict(sorted(mets.items()))
    if any(m.type == 'counter' for m in mets.values()):
        return mets
    if any(f in GAUGE_NAMES or f == 'object_size' for f in files):
        raise Error("%s: cache '%s' has no statistics files (no "
                    "alloc_fastpath, free_slowpath, ...): the kernel lacks "
                    "CONFIG_SLUB_STATS" % (path, name))
    raise Error('%s: cache %s has no SLUB statistics or object files'
                % (path, name))


def parse_dump(text: str, path: str = 'dump') -> Snapshot:
    """a dump of tools/guest/slab-dump.sh"""
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if not lines or lines[0] != '@slab-dump 1':
        raise Error("%s: not a slab dump (first line is not '@slab-dump 1')"
                    % path)
    if lines[-1] != '@end':
        raise Error("%s: truncated: no '@end' line (slab-dump.sh writes it "
                    "last)" % path)
    lines.pop()
    s = Snapshot()
    files: Dict[str, List[str]] = {}
    mets: Dict[str, Dict[str, Metric]] = {}
    numa = True
    for no, line in enumerate(lines[1:], 2):
        if line.startswith('@'):
            key, _, rest = line.partition(' ')
            if key == '@mono':
                s.mono = float(rest)
            elif key == '@stat':
                cs = _proc_stat_line(rest)
                if cs:
                    s.cpus.append(cs)
            elif key == '@node':
                n, _, cl = rest.partition(' ')
                if n.isdigit() and int(n) < MAX_NODES:
                    parse_cpulist(cl, int(n), s)
            elif key == '@nonuma':
                numa = False
            elif key == '@kernel':
                s.kernel = rest
            elif key == '@time':
                ep, _, iso = rest.partition(' ')
                s.timestamp, s.time = float(ep), iso
            elif key == '@result':
                kv = parse_results_line(rest)
                if kv:
                    s.results.append(kv)
            elif key == '@unreadable':
                c, _, a = rest.partition(' ')
                what = ('debugfs is readable by root only'
                        if a.startswith('debugfs/') else
                        'SLUB statistics are readable by root only '
                        '(mode 0400/0600)')
                raise Error('%s: permission denied reading %s/%s: %s; run '
                            'slab-dump.sh as root' % (path, c, a, what))
            else:
                raise Error("%s:%d: unknown record '%s'" % (path, no, key))
            continue
        f = line.split(' ', 3)
        if len(f) < 3 or f[2] not in ('r', 'w') or not f[0] or not f[1]:
            raise Error("%s:%d: not a 'CACHE ATTR MODE VALUE' line: '%.60s'"
                        % (path, no, line))
        c, a, mode = f[0], f[1], f[2]
        val = f[3] if len(f) > 3 else ''
        if c not in mets:
            files[c], mets[c] = [], {}
        files[c].append(a)
        if a.startswith('debugfs/'):
            a = a[len('debugfs/'):]
            if a not in DEBUGFS_FILES:
                continue
            st = parse_stat(val)
            if st is None or st[1]:
                warn("%s: %s debugfs/%s: not a single number: '%.40s'; "
                     "left out" % (path, c, a, val))
                continue
            mets[c][a] = Metric(a, DEBUGFS_FILES[a], st[0])
            continue
        st = parse_stat(val)
        if st is None:
            continue
        t = classify(a, st[1], mode == 'w')
        if t:
            mets[c][a] = Metric(a, t, st[0], st[2])
    for c in mets:
        s.caches[c] = _finish_cache(path, c, files[c], mets[c])
    if not s.caches:
        raise Error('%s: no cache in the dump' % path)
    # without node directories (!CONFIG_NUMA) every CPU is node 0
    for cpu, _, _ in s.cpus:
        while len(s.cpu_node) <= cpu:
            s.cpu_node.append(-1 if numa else 0)
        if not numa:
            s.cpu_node[cpu] = 0
    return s


def _jnum(v) -> Optional[float]:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def read_text(path: str) -> str:
    try:
        with open(path, encoding='utf-8', errors='surrogateescape') as f:
            return f.read()
    except OSError as e:
        raise Error('cannot read %s: %s' % (path, e.strerror))


def load_json(path: str):
    try:
        return json.loads(read_text(path))
    except ValueError as e:
        raise Error('%s: not valid JSON: %s' % (path, e))


def load_snapshot(path: str) -> Snapshot:
    """the snapshot of a dump of tools/guest/slab-dump.sh"""
    return parse_dump(read_text(path), path)


def snap_json(s: Snapshot) -> dict:
    """the snapshot document of 'slabstat snap'"""
    caches = {}
    for cname, mets in s.caches.items():
        cd = {}
        for t, sec in SECTIONS:
            d = {}
            for m in mets.values():
                if m.type != t:
                    continue
                if t == 'fact':
                    d[m.name] = m.sum
                else:
                    d[m.name] = {'sum': m.sum, ('cpus' if t == 'counter'
                                                else 'nodes'):
                                 {str(i): v for i, v in m.parts}}
            cd[sec] = d
        caches[cname] = cd
    doc = {'slabstat': 'snapshot', 'version': 1, 'kernel': s.kernel,
           'time': s.time, 'timestamp': float(s.timestamp),
           'monotonic': float(s.mono), 'cpu_node': list(s.cpu_node),
           'cpus': [{'cpu': c, 'idle': i, 'busy': b} for c, i, b in s.cpus],
           'caches': caches}
    if s.results:
        doc['results'] = {k: float(v) for k, v in s.results}
    return doc


# ------------------------------------------------------------ deltas

@dataclass
class MDelta:
    name: str
    type: str
    has_a: bool
    has_b: bool
    a: int
    b: int
    delta: int = 0
    value: float = 0.0
    parts: List[List[int]] = field(default_factory=list)   # [id, delta]
    node: List[int] = field(default_factory=lambda: [0] * MAX_NODES)
    wrapped: int = 0


@dataclass
class CDelta:
    name: str
    m: List[MDelta]
    derived: List[Tuple[str, float]]

    def get(self, name: str) -> Optional[float]:
        for m in self.m:
            if m.name == name:
                return m.value if m.has_a and m.has_b else None
        return None


@dataclass
class Delta:
    a: Snapshot
    b: Snapshot
    c: List[CDelta]
    nnodes: int = 0
    idle_pct: Dict[int, float] = field(default_factory=dict)
    idle_all: Optional[float] = None


def _unwrap(d: int, md: MDelta) -> int:
    """the per-CPU statistics are unsigned int: a per-CPU value that
    dropped by more than 2^31 wrapped and gets 2^32 back; a smaller drop
    (a clear, a CPU gone offline) stays negative"""
    if d < -(1 << 31):
        md.wrapped += 1
        return d + (1 << 32)
    return d


def metric_delta(name: str, ma: Optional[Metric], mb: Optional[Metric],
                 b: Snapshot) -> MDelta:
    md = MDelta(name, mb.type if mb else ma.type, ma is not None,
                mb is not None, ma.sum if ma else 0, mb.sum if mb else 0)
    if not ma or not mb:
        return md
    md.delta = md.b - md.a
    md.value = float(md.delta) if md.type == 'counter' else float(md.b)
    if md.type == 'fact':
        return md
    pa = dict(ma.parts)
    pb = dict(mb.parts)
    ids = []
    for i, _ in ma.parts + mb.parts:
        if i not in ids:
            ids.append(i)
    total = 0
    for i in sorted(ids):
        d = pb.get(i, 0) - pa.get(i, 0)
        if md.type == 'counter':
            d = _unwrap(d, md)
        md.parts.append([i, d])
        total += d
        node = b.node_of(i) if md.type == 'counter' else i
        if 0 <= node < MAX_NODES:
            md.node[node] += d
    if md.type != 'counter':
        return md
    # without CONFIG_SMP there are no C parts: the sum is the one CPU
    md.delta = total if md.parts else _unwrap(md.delta, md)
    md.value = float(md.delta)
    return md


def cache_delta(name: str, ca: Optional[Dict[str, Metric]],
                cb: Optional[Dict[str, Metric]], b: Snapshot) -> CDelta:
    ca = ca or {}
    cb = cb or {}
    names = sorted(set(ca) | set(cb))
    cd = CDelta(name, [metric_delta(n, ca.get(n), cb.get(n), b)
                       for n in names], [])
    cd.derived = [derive(i, cd.get) for i in range(len(DERIVED))]
    return cd


def compute(a: Snapshot, b: Snapshot) -> Delta:
    cs = [cache_delta(n, a.caches.get(n), b.caches[n], b) for n in b.caches]
    cs += [cache_delta(n, a.caches[n], None, b) for n in a.caches
           if n not in b.caches]
    d = Delta(a, b, cs)
    for n in b.cpu_node:
        if d.nnodes <= n < MAX_NODES:
            d.nnodes = n + 1
    idle = [0.0] * MAX_NODES
    busy = [0.0] * MAX_NODES
    seen = set()
    ti = tb = 0.0
    acpu = {}
    for c in a.cpus:
        acpu.setdefault(c[0], c)
    for cpu, ib, bb in b.cpus:
        ca = acpu.get(cpu)
        if ca is None:
            continue
        di = float(ib - ca[1])
        db = float(bb - ca[2])
        ti += di
        tb += db
        node = b.node_of(cpu)
        if not 0 <= node < MAX_NODES:
            continue
        idle[node] += di
        busy[node] += db
        seen.add(node)
    if ti + tb > 0:
        d.idle_all = ti / (ti + tb) * 100
    for node in sorted(seen):
        if idle[node] + busy[node] > 0:
            d.idle_pct[node] = idle[node] / (idle[node] + busy[node]) * 100
    return d


def _change_pct(m: MDelta) -> Optional[float]:
    if m.a == 0:
        return None if m.b != 0 else 0.0
    return float(m.delta) / float(m.a) * 100


def diff_text(d: Delta, per_node: bool) -> str:
    o = []
    if d.a.kernel == d.b.kernel:
        o.append('kernel: %s\n' % d.b.kernel)
    else:
        o.append('kernel: %s -> %s\n' % (d.a.kernel, d.b.kernel))
    if d.a.mono and d.b.mono:
        o.append('interval: %.2f s (%s -> %s)\n'
                 % (d.b.mono - d.a.mono, d.a.time, d.b.time))
    for cd in d.c:
        o.append('\ncache: %s\n\n' % cd.name)
        rows = [['metric', 'before', 'after', 'delta', 'change']]
        for m in cd.m:
            if m.has_a and m.has_b:
                pct = _change_pct(m)
                change = 'n/a' if pct is None else '%+.2f%%' % pct
                dl = fmt_int(m.delta)
            else:
                change, dl = 'absent', None
            rows.append([m.name, fmt_int(m.a) if m.has_a else None,
                         fmt_int(m.b) if m.has_b else None, dl, change])
        o.append(table(rows))
        for m in cd.m:
            if m.wrapped:
                o.append('note: %s: the per-CPU counter wrapped at 2^32 on '
                         '%d CPU(s); delta corrected\n' % (m.name, m.wrapped))
        o.append('\n')
        rows = [['derived', 'value']]
        for i, (st, v) in enumerate(cd.derived):
            rows.append([DERIVED[i][1], fmt_derived(i, v) if st == OK else
                         'absent' if st == ABSENT else 'n/a'])
        o.append(table(rows))
        if not per_node:
            continue
        o.append('\nper-node split of the counter deltas (C<cpu> parts '
                 'summed by the node of the CPU)\n\n')
        rows = [['metric'] + ['node%d' % n for n in range(d.nnodes)] +
                ['all']]
        for m in cd.m:
            if m.type != 'counter' or not m.has_a or not m.has_b:
                continue
            rows.append([m.name] + [fmt_int(m.node[n])
                                    for n in range(d.nnodes)] +
                        [fmt_int(m.delta)])
        if d.idle_all is not None:
            rows.append(['%idle'] + ['%.2f' % d.idle_pct[n]
                                     if n in d.idle_pct else '-'
                                     for n in range(d.nnodes)] +
                        ['%.2f' % d.idle_all])
        o.append(table(rows))
    if d.b.results:
        o.append('\nresults (after):\n')
        for k, v in d.b.results:
            o.append('  %s: %s\n' % (k, fmt_num(v)))
    return ''.join(o)


def _csv_num(v: float) -> str:
    if math.isfinite(v) and abs(v) < 9.2e18 and v == float(int(v)):
        return '%d' % int(v)
    return '%.4f' % v


def diff_csv(d: Delta, per_node: bool) -> str:
    o = ['cache,kind,metric,before,after,delta,change_pct']
    nn = d.nnodes if per_node else 0
    o += [',node%d' % n for n in range(nn)]
    o.append('\n')
    for cd in d.c:
        for m in cd.m:
            both = m.has_a and m.has_b
            if not both:
                b4 = 'absent'
            else:
                pct = _change_pct(m)
                b4 = '' if pct is None else '%.2f' % pct
            o += [csv_cell(cd.name, False), csv_cell(m.type, False),
                  csv_cell(m.name, False),
                  csv_cell(str(m.a) if m.has_a else '', False),
                  csv_cell(str(m.b) if m.has_b else '', False),
                  csv_cell(str(m.delta) if both else '', False),
                  csv_cell(b4, not per_node or not d.nnodes)]
            for n in range(nn):
                cell = '' if m.type == 'fact' or not both else str(m.node[n])
                o.append(csv_cell(cell, n == nn - 1))
        for j, (st, v) in enumerate(cd.derived):
            o += [csv_cell(cd.name, False), csv_cell('derived', False),
                  csv_cell(DERIVED[j][0], False), csv_cell('', False),
                  csv_cell('', False),
                  csv_cell(_csv_num(v) if st == OK else '', False),
                  csv_cell('absent' if st == ABSENT else '',
                           not per_node or not d.nnodes)]
            o += [csv_cell('', n == nn - 1) for n in range(nn)]
    if per_node and d.idle_all is not None:
        o.append(',idle,idle_pct,,,%.2f,%s' % (d.idle_all,
                                               ',' if d.nnodes else '\n'))
        o += [csv_cell('%.2f' % d.idle_pct[n] if n in d.idle_pct else '',
                       n == nn - 1) for n in range(nn)]
    for k, v in d.b.results:
        o.append(',result,%s,,,%s,%s\n' % (k, _csv_num(v), ',' * nn))
    return ''.join(o)


def delta_json(d: Delta) -> dict:
    """the delta document of 'slabstat diff --json' (what compare reads)"""
    caches = {}
    for cd in d.c:
        mets = {}
        for m in cd.m:
            e = {'type': m.type, 'before': m.a if m.has_a else None,
                 'after': m.b if m.has_b else None}
            if not (m.has_a and m.has_b):
                e.update(delta=None, value=None,
                         absent='after' if m.has_a else 'before')
                mets[m.name] = e
                continue
            e['delta'] = m.delta
            e['value'] = float(m.value)
            if m.wrapped:
                e['wrapped_cpus'] = m.wrapped
            pct = _change_pct(m)
            e['change_pct'] = pct
            if m.type != 'fact':
                e['cpus' if m.type == 'counter' else 'nodes'] = \
                    {str(i): v for i, v in m.parts}
            if m.type == 'counter':
                e['nodes'] = {str(n): m.node[n] for n in range(d.nnodes)}
            mets[m.name] = e
        der = {}
        for j, (st, v) in enumerate(cd.derived):
            key, label, unit = DERIVED[j][:3]
            der[key] = {'label': label,
                        'unit': {'%': '%', 'x': 'ratio'}.get(unit, 'count'),
                        'value': float(v) if st == OK else None,
                        'state': st}
        caches[cd.name] = {'metrics': mets, 'derived': der}
    idle: Dict[str, object] = {}
    if d.idle_all is not None:
        idle['all_pct'] = d.idle_all
    idle['nodes_pct'] = {str(n): d.idle_pct[n] for n in range(d.nnodes)
                         if n in d.idle_pct}
    return {'slabstat': 'delta', 'version': 1, 'kernel': d.b.kernel,
            'kernel_before': d.a.kernel, 'time_before': d.a.time,
            'time_after': d.b.time,
            'interval_s': float(d.b.mono - d.a.mono),
            'cpu_node': list(d.b.cpu_node), 'caches': caches, 'idle': idle,
            'results': {k: float(v) for k, v in d.b.results}}


def diff(a: Snapshot, b: Snapshot, fmt: str = 'text',
         per_node: bool = False) -> str:
    d = compute(a, b)
    if fmt == 'json':
        return write_json(delta_json(d))
    if fmt == 'csv':
        return diff_csv(d, per_node)
    return diff_text(d, per_node)


# ------------------------------------------------------------ compare

@dataclass
class Stats:
    n: int = 0
    undef: int = 0
    med: float = 0.0
    lo: float = 0.0
    hi: float = 0.0

    def missing(self) -> str:
        """what a group without values shows: n/a if a denominator was 0"""
        return 'n/a' if self.undef else 'absent'


@dataclass
class Row:
    name: str
    kind: str                   # counter, gauge, fact, derived, result
    dindex: int = -1
    g: List[Stats] = field(default_factory=list)

    @property
    def key(self) -> str:
        return DERIVED[self.dindex][0] if self.dindex >= 0 else self.name

    @property
    def label(self) -> str:
        return DERIVED[self.dindex][1] if self.dindex >= 0 else self.name

    def fmt(self, v: float) -> str:
        return fmt_derived(self.dindex, v) if self.dindex >= 0 else fmt_num(v)


def _metrics(doc, cache: str):
    c = doc.get('caches')
    c = c.get(cache) if isinstance(c, dict) else None
    m = c.get('metrics') if isinstance(c, dict) else None
    return m if isinstance(m, dict) else None


def _run_value(mets, name: str) -> Optional[float]:
    m = mets.get(name) if isinstance(mets, dict) else None
    return _jnum(m.get('value')) if isinstance(m, dict) else None


class Compare:
    """groups of delta documents (lists of (path, doc))"""

    def __init__(self, groups: List[List[Tuple[str, dict]]],
                 labels: List[str]):
        self.groups = groups
        self.labels = labels
        self.caches: List[str] = []
        self.any_results = False
        for g in groups:
            for _, doc in g:
                for c in (doc.get('caches') or {}):
                    if c not in self.caches:
                        self.caches.append(c)
                if isinstance(doc.get('results'), dict) and doc['results']:
                    self.any_results = True
        self.results = [self.collect(Row(k, 'result'), '')
                        for k in RESULT_KEYS]

    def collect(self, row: Row, cache: str) -> Row:
        row.g = []
        for g in self.groups:
            v = []
            undef = 0
            for _, doc in g:
                if row.kind == 'result':
                    r = doc.get('results')
                    x = _jnum(r.get(row.name)) if isinstance(r, dict) \
                        else None
                    if x is not None:
                        v.append(x)
                elif row.dindex >= 0:
                    m = _metrics(doc, cache)
                    st, x = derive(row.dindex, lambda n: _run_value(m, n)) \
                        if m is not None else (ABSENT, 0.0)
                    if st == OK:
                        v.append(x)
                    elif st == UNDEF:
                        undef += 1
                else:
                    x = _run_value(_metrics(doc, cache), row.name)
                    if x is not None:
                        v.append(x)
            s = Stats(len(v), undef)
            if v:
                s.lo, s.hi, s.med = min(v), max(v), median(v)
            row.g.append(s)
        return row

    def cache_rows(self, cache: str) -> Tuple[List[Row], List[Row]]:
        names: List[str] = []
        for g in self.groups:
            for _, doc in g:
                for n in (_metrics(doc, cache) or {}):
                    if n not in names:
                        names.append(n)
        rows = []
        for n in sorted(names):
            kind = 'counter'
            for g in self.groups:
                for _, doc in g:
                    e = (_metrics(doc, cache) or {}).get(n)
                    if isinstance(e, dict) and isinstance(e.get('type'), str):
                        kind = e['type']
            rows.append(self.collect(Row(n, kind), cache))
        der = [self.collect(Row(DERIVED[i][0], 'derived', i), cache)
               for i in range(len(DERIVED))]
        return rows, der

    def kernel(self, g: int) -> str:
        """the kernel release of a group's runs, 'mixed: ...' if they differ"""
        k0 = None
        for _, doc in self.groups[g]:
            k = doc.get('kernel') if isinstance(doc.get('kernel'), str) \
                else '?'
            if k0 is None:
                k0 = k
            elif k != k0:
                return 'mixed: %s, %s, ...' % (k0, k)
        return k0 if k0 is not None else '?'


def _fmt_stats(row: Row, s: Stats) -> str:
    if not s.n:
        return s.missing()
    med = row.fmt(s.med)
    if s.n == 1:
        return med
    return '%s (%s%s%s)' % (med, row.fmt(s.lo),
                            '..' if s.lo < 0 or s.hi < 0 else '-',
                            row.fmt(s.hi))


def _change_vs_first(row: Row, g: int) -> Optional[float]:
    f, s = row.g[0], row.g[g]
    if not f.n or not s.n:
        return None
    if f.med == 0:
        return None if s.med != 0 else 0.0
    return (s.med - f.med) / abs(f.med) * 100


def _text_rows(c: Compare, rows: List[Row], title: str,
               with_delta: bool) -> str:
    ng = len(c.groups)
    hdr = [title] + list(c.labels)
    for g in range(1, ng):
        if with_delta:
            hdr.append('delta %s' % c.labels[g] if ng > 2 else 'delta')
        hdr.append('change %s' % c.labels[g] if ng > 2 else 'change')
    out = [hdr]
    for row in rows:
        cells: List[Optional[str]] = [row.label]
        cells += [_fmt_stats(row, s) for s in row.g]
        for g in range(1, ng):
            both = row.g[0].n and row.g[g].n
            if with_delta:
                cells.append(row.fmt(row.g[g].med - row.g[0].med)
                             if both else None)
            if not both:
                cells.append(row.g[g].missing() if row.g[0].n
                             else row.g[0].missing())
            else:
                pct = _change_vs_first(row, g)
                cells.append('n/a' if pct is None else '%+.2f%%' % pct)
        out.append(cells)
    return table(out)


def _g10(s: Stats, v: float) -> str:
    return '%.10g' % v if s.n else ''


def _csv_rows(c: Compare, rows: List[Row], cache: str) -> str:
    ng = len(c.groups)
    o = []
    for row in rows:
        o.append(csv_cell(row.key, False))
        o += [csv_cell(_g10(s, s.med), False) for s in row.g]
        o += [csv_cell(row.kind, False), csv_cell(cache, False)]
        for g, s in enumerate(row.g):
            last = g == ng - 1 and ng == 1
            o += [csv_cell('%d' % s.n, False), csv_cell(_g10(s, s.lo), False),
                  csv_cell(_g10(s, s.hi), last)]
        for g in range(1, ng):
            s = row.g[g]
            both = row.g[0].n and s.n
            o.append(csv_cell('%.10g' % (s.med - row.g[0].med)
                              if both else '', False))
            if not both:
                b = s.missing() if row.g[0].n else row.g[0].missing()
            else:
                pct = _change_vs_first(row, g)
                b = '' if pct is None else '%.2f' % pct
            o.append(csv_cell(b, g == ng - 1))
    return ''.join(o)


def _json_rows(c: Compare, rows: List[Row]) -> dict:
    out = {}
    for row in rows:
        e: Dict[str, object] = {'kind': row.kind}
        if row.dindex >= 0:
            e['label'] = row.label
        gs = []
        for g, s in enumerate(row.g):
            x: Dict[str, object] = {'label': c.labels[g], 'runs': s.n}
            if s.n:
                x.update(median=float(s.med), min=float(s.lo),
                         max=float(s.hi))
            elif s.undef:
                x['undefined'] = 'zero denominator in every run'
            else:
                x['absent'] = 'no run has it'
            if g and row.g[0].n and s.n:
                x['delta'] = float(s.med - row.g[0].med)
                x['change_pct'] = _change_vs_first(row, g)
            gs.append(x)
        e['groups'] = gs
        out[row.key] = e
    return out


def load_delta(path: str) -> dict:
    if read_text(path).startswith('@slab-dump'):
        raise Error("%s is not a delta document: compare takes the output of "
                    "'slabstat diff --json A B' (this is a slab dump)" % path)
    doc = load_json(path)
    kind = doc.get('slabstat') if isinstance(doc, dict) else None
    if kind != 'delta':
        raise Error("%s is not a delta document: compare takes the output of "
                    "'slabstat diff --json A B'%s"
                    % (path, ' (this is a snapshot)'
                       if kind == 'snapshot' else ''))
    return doc


def compare(groups: List[List[str]], labels: Optional[List[str]] = None,
            fmt: str = 'text') -> str:
    """median (min-max) per group of delta documents, delta and change of
    each later group against the first"""
    labels = labels or ['G%d' % (i + 1) for i in range(len(groups))]
    c = Compare([[(p, load_delta(p)) for p in g] for g in groups], labels)
    ng = len(groups)
    if fmt == 'json':
        caches = {}
        for cache in c.caches:
            rows, der = c.cache_rows(cache)
            caches[cache] = {'metrics': _json_rows(c, rows),
                             'derived': _json_rows(c, der)}
        return write_json({
            'slabstat': 'compare', 'version': 1,
            'groups': [{'label': labels[g], 'runs': list(groups[g])}
                       for g in range(ng)],
            'caches': caches, 'results': _json_rows(c, c.results)})
    if fmt == 'csv':
        o = ['metric'] + [',%s' % lb for lb in labels] + [',kind,cache']
        o += [',%s_runs,%s_min,%s_max' % (lb, lb, lb) for lb in labels]
        o += [',%s_delta,%s_change_pct' % (lb, lb) for lb in labels[1:]]
        o.append('\n')
        for cache in c.caches:
            rows, der = c.cache_rows(cache)
            o.append(_csv_rows(c, rows + der, cache))
        o.append(_csv_rows(c, c.results, ''))
        return ''.join(o)
    o = ['values are median (min-max) over the runs of a group\n']
    for g in range(ng):
        n = len(groups[g])
        o.append('group %s: %d run%s, kernel %s\n'
                 % (labels[g], n, '' if n == 1 else 's', c.kernel(g)))
    for cache in c.caches:
        rows, der = c.cache_rows(cache)
        o.append('\ncache: %s\n\n' % cache)
        o.append(_text_rows(c, rows, 'metric', True))
        o.append('\n')
        o.append(_text_rows(c, der, 'derived', False))
    if c.any_results:
        o.append('\nresults\n\n')
        o.append(_text_rows(c, c.results, 'result', True))
    return ''.join(o)


# ------------------------------------------------------------ results

# tools/guest/guest-compare.sh's dumps of a run, before and after it
BEFORE, AFTER = '.before.dump', '.after.dump'


def write_deltas(files: str) -> int:
    """FILES/runs/<placement>/park<mode>/<round>.json, the delta document
    ('diff --json') of the run's <round>.before.dump and .after.dump, for
    every run there (what the reports read); how many"""
    n = 0
    for before in sorted(glob.glob(os.path.join(files, 'runs', '*', 'park*',
                                                '*' + BEFORE))):
        stem = before[:-len(BEFORE)]
        if not os.path.exists(stem + AFTER):
            raise Error('%s has no %s beside it' % (before, AFTER))
        text = diff(load_snapshot(before), load_snapshot(stem + AFTER),
                    'json')
        with open(stem + '.json', 'w') as f:
            f.write(text)
        n += 1
    return n


# ------------------------------------------------------------ CLI

HELP = """\
usage: python3 -m slabpark.slabstat COMMAND ...

  snap DUMP
      the slabstat snapshot (JSON) of a dump of tools/guest/slab-dump.sh
  diff [--csv|--json] BEFORE AFTER
      metric/before/after/delta/change table and derived rows of two
      dumps; --json writes the delta document that 'compare' reads.
  split [--csv|--json] BEFORE AFTER
      diff with the per-node split of every counter and per-node %idle.
  compare [--labels L1,L2[,L3...]] [--csv|--json] D1... -- D2... [-- D3...]
      median (min-max) of repeated runs per group (each D is a delta
      document of 'diff --json'), delta and change of each group vs the first.

  Exit status: 0 ok, 1 error, 2 usage.
"""


def _parse(args: List[str], groups: bool) -> dict:
    o = {'fmt': 'text', 'labels': None, 'pos': [], 'group_starts': [0]}
    end_opts = False
    i = 0
    while i < len(args):
        a = args[i]
        if not end_opts and a.startswith('-') and len(a) > 1:
            if a == '--':
                if not groups:
                    end_opts = True
                else:
                    if len(o['group_starts']) == MAX_GROUPS:
                        raise UsageError('at most 8 groups')
                    o['group_starts'].append(len(o['pos']))
            elif a in ('--csv', '--json'):
                if o['fmt'] not in ('text', a[2:]):
                    raise UsageError('--csv and --json exclude each other')
                o['fmt'] = a[2:]
            elif a == '--labels' and groups:
                if i + 1 >= len(args):
                    raise UsageError('option %s needs an argument' % a)
                i += 1
                o['labels'] = args[i]
            elif a in ('-h', '--help'):
                sys.stdout.write(HELP)
                raise SystemExit(0)
            else:
                raise UsageError("unknown option '%s'" % a)
        else:
            o['pos'].append(a)
        i += 1
    return o


def _labels(s: Optional[str], want: int) -> Optional[List[str]]:
    if s is None:
        return None
    lab = [t for t in s.split(',') if t]
    if len(lab) > want:
        raise UsageError("--labels names more groups than given ('%s')" % s)
    if len(lab) < want:
        raise UsageError("--labels names fewer groups than given ('%s')" % s)
    return lab


def run(argv: List[str]) -> str:
    """the output of one command; raises Error or UsageError"""
    if argv[:1] in (['-h'], ['--help']):
        sys.stdout.write(HELP)
        raise SystemExit(0)
    if not argv:
        raise UsageError('missing command')
    cmd, rest = argv[0], argv[1:]
    if cmd not in ('snap', 'diff', 'split', 'compare'):
        raise UsageError("unknown command '%s'" % cmd)
    o = _parse(rest, cmd == 'compare')
    if cmd == 'snap':
        if o['fmt'] != 'text':
            raise UsageError("'snap' takes no --csv/--json")
        if len(o['pos']) != 1:
            raise UsageError('snap needs one DUMP (of tools/guest/'
                             'slab-dump.sh)')
        return write_json(snap_json(load_snapshot(o['pos'][0])))
    if cmd in ('diff', 'split'):
        if len(o['pos']) != 2:
            raise UsageError('%s needs two dumps: BEFORE AFTER' % cmd)
        a = load_snapshot(o['pos'][0])
        b = load_snapshot(o['pos'][1])
        return diff(a, b, o['fmt'], cmd == 'split')
    starts = o['group_starts'] + [len(o['pos'])]
    groups = [o['pos'][starts[g]:starts[g + 1]]
              for g in range(len(starts) - 1)]
    if any(not g for g in groups):
        raise UsageError("compare: empty group (runs are separated by '--')")
    return compare(groups, _labels(o['labels'], len(groups)), o['fmt'])


def main(argv: List[str]) -> int:
    try:
        sys.stdout.write(run(argv))
    except UsageError as e:
        sys.stderr.write('%s: %s\n\n%s' % (PROG, e, HELP))
        return 2
    except Error as e:
        print('%s: %s' % (PROG, e), file=sys.stderr)
        return 1
    try:
        sys.stdout.flush()
    except OSError:
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
