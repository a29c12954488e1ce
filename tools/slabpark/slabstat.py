# SPDX-License-Identifier: GPL-2.0
"""slabstat: snapshot, delta, per-node split, derived rows and group
comparison of tools/guest/slab-dump.sh's dumps, in text, CSV and JSON
(Documentation/dev-tools/slabstat.rst).  Read by runs.py (a delta
document's caches.<cache>.metrics.<m>.value), comparison.py (compare's CSV)
and guest_out.py (compute()'s per-node split).
"""

import csv
import glob
import io
import itertools
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

from .stats import Spread

PROG = 'slabstat'
MAX_GROUPS = 8
MAX_NODE, MAX_CPU = 1023, 65535     # the kernel's MAX_NUMNODES <= 1 << 10, NR_CPUS
# object/slab counts: gauges, with per-node parts where the value is not 0
GAUGE_NAMES = ('slabs', 'objects', 'partial', 'total_objects', 'objects_partial')
FACT_NAMES = ('object_size', 'slab_size', 'sheaf_capacity', 'objs_per_slab', 'order',
              'min_partial')
# writable but settings or triggers, not counters
SETTING_NAMES = ('cpu_partial', 'remote_node_defrag_ratio', 'failslab', 'skip_kfence',
                 'validate', 'shrink')
DEBUGFS_FILES = {'park': 'fact', 'parked': 'gauge'}
RESULT_KEYS = ('ops_per_sec', 'free_lat_p50_ns', 'free_lat_p99_ns', 'alloc_lat_p50_ns',
               'alloc_lat_p99_ns')
SECTIONS = {'counter': 'counters', 'gauge': 'gauges', 'fact': 'facts'}
PARTS = {'counter': 'cpus', 'gauge': 'nodes'}
OK, ABSENT, UNDEF = 'ok', 'absent', 'undefined'


class Error(ValueError):
    """bad data: exit 1"""


class UsageError(Exception):
    """bad arguments: exit 2, with the usage"""


def _ratio(num: float, den: float, scale: float) -> Tuple[str, float]:
    return (UNDEF, 0.0) if den == 0 else (OK, num / den * scale)


# key, label, unit ('%', 'ratio', 'count'), the values it is made of, (state, value) of them
DERIVED = (
    ('free_slowpath_ratio', 'FREE_SLOWPATH / (FREE_FASTPATH + FREE_SLOWPATH)', '%',
     ('free_slowpath', 'free_fastpath'), lambda s, f: _ratio(s, s + f, 100)),
    ('sheaf_flushes', 'SHEAF_FLUSH / sheaf_capacity', 'count',
     ('sheaf_flush', 'sheaf_capacity'), lambda f, c: _ratio(f, c, 1)),
    ('barn_put_fail_per_flush', 'BARN_PUT_FAIL / (SHEAF_FLUSH / sheaf_capacity)', 'ratio',
     ('barn_put_fail', 'sheaf_flush', 'sheaf_capacity'),
     lambda b, f, c: (UNDEF, 0.0) if c == 0 else _ratio(b, f / c, 1)),
    # a park counts free_add_partial too: at most 100%
    ('park_ratio', 'PARK_SLAB / FREE_ADD_PARTIAL', '%',
     ('park_slab', 'free_add_partial'), lambda p, a: _ratio(p, a, 100)),
    ('park_balance', 'PARK_SLAB - UNPARK_SLAB', 'count',
     ('park_slab', 'unpark_slab'), lambda p, u: (OK, p - u)),
    ('page_churn', 'page allocator churn (alloc_slab + free_slab)', 'count',
     ('alloc_slab', 'free_slab'), lambda a, f: (OK, a + f)),
)


def derive(i: int, get: Callable[[str], Optional[float]]) -> Tuple[str, float]:
    v = [get(n) for n in DERIVED[i][3]]
    return (ABSENT, 0.0) if None in v else DERIVED[i][4](*v)


def fmt_int(v: float) -> str:
    return '{:,}'.format(int(v))


def fmt_num(v: float) -> str:
    return fmt_int(v) if math.isfinite(v) and v == int(v) else '{:,.2f}'.format(v)


def fmt_derived(i: int, v: float) -> str:
    f = {'%': '%.2f%%', 'ratio': '%.2f'}.get(DERIVED[i][2])
    return f % v if f else fmt_num(v)


def fmt_pct(v: Optional[float], f: str, gap: Optional[str]) -> Optional[str]:
    return gap if v is None else f % v


def table(rows: List[List[Optional[str]]]) -> str:
    """the first column left-aligned, the others right-aligned 3 apart, a
    '=' rule under the header, None as '-'"""
    rows = [['-' if c is None else c for c in r] for r in rows]
    w = [max(len(r[j]) for r in rows) + (3 if j else 0) for j in range(len(rows[0]))]
    out = [''.join(c.rjust(w[j]) if j else c.ljust(w[0]) for j, c in enumerate(r)) + '\n'
           for r in rows]
    out.insert(1, '=' * sum(w) + '\n')
    return ''.join(out)


def csv_text(rows: List[List[str]]) -> str:
    f = io.StringIO()
    csv.writer(f, lineterminator='\n').writerows(rows)
    return f.getvalue()


def json_text(doc) -> str:
    return json.dumps(doc, indent=2, allow_nan=False) + '\n'


class Metric(NamedTuple):
    type: str                   # counter, gauge, fact
    sum: int
    parts: List[Tuple[int, int]]


@dataclass
class Snapshot:
    kernel: str = ''
    time: str = ''
    timestamp: float = 0.0
    mono: float = 0.0
    cpu_node: List[int] = field(default_factory=list)   # -1: no node
    cpus: List[Tuple[int, int, int]] = field(default_factory=list)   # cpu, idle, busy
    caches: Dict[str, Dict[str, Metric]] = field(default_factory=dict)
    results: List[Tuple[str, float]] = field(default_factory=list)

    def node_of(self, cpu: int) -> int:
        return self.cpu_node[cpu] if 0 <= cpu < len(self.cpu_node) else -1


def parse_stat(text: str) -> Optional[Tuple[int, str, List[Tuple[int, int]]]]:
    """'<sum>[ C<n>=<v>...]' or '<sum>[ N<n>=<v>...]': (sum, 'C', 'N' or
    '', parts); None for anything else"""
    m = re.fullmatch(r'(\d+)((?: *[CN]\d+=\d+)*) *\n?', text)
    parts = re.findall(r'([CN])(\d+)=(\d+)', m.group(2)) if m else []
    kinds = ''.join({k for k, _, _ in parts})
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
    return 'counter' if writable and name not in SETTING_NAMES else None


def parse_cpulist(text: str, node: int, s: Snapshot, where: str) -> None:
    """'0-3,8' into s.cpu_node, up to a bad range"""
    for tok in text.strip().split(','):
        m = re.fullmatch(r'(\d+)(?:-(\d+))?', tok)
        if not m:
            return
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if b > MAX_CPU:
            raise Error('%s: CPU %d above %d' % (where, b, MAX_CPU))
        if b < a:
            return
        s.cpu_node += [-1] * (b + 1 - len(s.cpu_node))
        s.cpu_node[a:b + 1] = [node] * (b + 1 - a)


def parse_result(line: str) -> Optional[Tuple[str, float]]:
    k, sep, v = line.partition(':')
    if not sep or not k.strip() or not re.fullmatch(
            r'\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*', v) or not math.isfinite(float(v)):
        return None
    return k.strip(), float(v)


def parse_number(text: str, where: str) -> float:
    """a finite number (JSON has no others)"""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not math.isfinite(v):
        raise Error("%s: not a number: '%.40s'" % (where, text))
    return v


def parse_proc_stat(line: str) -> Optional[Tuple[int, int, int]]:
    """(cpu, idle, busy) of 'cpuN user nice system idle iowait irq softirq steal'"""
    m = re.match(r'cpu(\d+)', line)
    words = line[m.end():].split()[:8] if m else []
    v = [int(w) for w in itertools.takewhile(lambda w: w.isascii() and w.isdigit(), words)]
    if len(v) < 4:
        return None
    v += [0] * (8 - len(v))
    return int(m.group(1)), v[3] + v[4], v[0] + v[1] + v[2] + sum(v[5:])


def parse_dump(text: str, path: str = 'dump') -> Snapshot:
    lines = text.split('\n')
    if lines[-1] == '':
        lines.pop()
    if lines[:1] != ['@slab-dump 1']:
        raise Error("%s: not a slab dump (first line is not '@slab-dump 1')" % path)
    if lines[-1] != '@end':
        raise Error("%s: truncated: no '@end' line (slab-dump.sh writes it last)" % path)
    s = Snapshot()
    numa = True
    for no, line in enumerate(lines[1:-1], 2):
        key, _, rest = line.partition(' ')
        if key == '@mono':
            s.mono = parse_number(rest, '%s:%d: @mono' % (path, no))
        elif key == '@stat':
            s.cpus += filter(None, [parse_proc_stat(rest)])
        elif key == '@node':
            n, _, cl = rest.partition(' ')
            if n.isascii() and n.isdigit():
                if int(n) > MAX_NODE:
                    raise Error('%s:%d: @node: node %s above %d' % (path, no, n, MAX_NODE))
                parse_cpulist(cl, int(n), s, '%s:%d: @node' % (path, no))
        elif key == '@nonuma':
            numa = False
        elif key == '@kernel':
            s.kernel = rest
        elif key == '@time':
            ep, _, s.time = rest.partition(' ')
            s.timestamp = parse_number(ep, '%s:%d: @time' % (path, no))
        elif key == '@result':
            s.results += filter(None, [parse_result(rest)])
        elif key == '@unreadable':
            c, _, a = rest.partition(' ')
            what = 'debugfs is readable by root only' if a.startswith('debugfs/') else \
                'SLUB statistics are readable by root only (mode 0400/0600)'
            raise Error('%s: permission denied reading %s/%s: %s; run slab-dump.sh as root'
                        % (path, c, a, what))
        elif key.startswith('@'):
            raise Error("%s:%d: unknown record '%s'" % (path, no, key))
        else:
            c, a, mode, val = (line.split(' ', 3) + ['', '', ''])[:4]
            if not c or not a or mode not in ('r', 'w'):
                raise Error("%s:%d: not a 'CACHE ATTR MODE VALUE' line: '%.60s'"
                            % (path, no, line))
            cm = s.caches.setdefault(c, {})
            st = parse_stat(val)
            if a[len('debugfs/'):] in DEBUGFS_FILES and a.startswith('debugfs/'):
                a = a[len('debugfs/'):]
                if st is None or st[1]:
                    print("%s: warning: %s: %s debugfs/%s: not a single number: '%.40s'; "
                          "left out" % (PROG, path, c, a, val), file=sys.stderr)
                else:
                    cm[a] = Metric(DEBUGFS_FILES[a], st[0], [])
            elif st and not a.startswith('debugfs/') and \
                    (t := classify(a, st[1], mode == 'w')):
                cm[a] = Metric(t, st[0], st[2])
    for c, cm in s.caches.items():
        if not any(m.type == 'counter' for m in cm.values()):
            raise Error("%s: cache '%s' has no statistics files (no alloc_fastpath, "
                        "free_slowpath, ...): the kernel lacks CONFIG_SLUB_STATS" % (path, c))
        s.caches[c] = dict(sorted(cm.items()))
    if not s.caches:
        raise Error('%s: no cache in the dump' % path)
    # without node directories (!CONFIG_NUMA) every CPU is node 0
    for cpu, _, _ in s.cpus:
        if cpu > MAX_CPU:
            raise Error('%s: @stat: CPU %d above %d' % (path, cpu, MAX_CPU))
        s.cpu_node += [-1 if numa else 0] * (cpu + 1 - len(s.cpu_node))
        if not numa:
            s.cpu_node[cpu] = 0
    return s


def read_text(path: str) -> str:
    try:
        with open(path, encoding='utf-8', errors='surrogateescape') as f:
            return f.read()
    except OSError as e:
        raise Error('cannot read %s: %s' % (path, e.strerror))


def load_snapshot(path: str) -> Snapshot:
    return parse_dump(read_text(path), path)


def snap_json(s: Snapshot) -> dict:
    caches = {c: {sec: {n: m.sum if t == 'fact' else
                        {'sum': m.sum, PARTS[t]: {str(i): v for i, v in m.parts}}
                        for n, m in mets.items() if m.type == t}
                  for t, sec in SECTIONS.items()}
              for c, mets in s.caches.items()}
    doc = {'slabstat': 'snapshot', 'version': 1, 'kernel': s.kernel, 'time': s.time,
           'timestamp': s.timestamp, 'monotonic': s.mono, 'cpu_node': s.cpu_node,
           'cpus': [{'cpu': c, 'idle': i, 'busy': b} for c, i, b in s.cpus],
           'caches': caches}
    if s.results:
        doc['results'] = dict(s.results)
    return doc


class Change:
    """a metric from snapshot A to B; a, b None where a dump lacks it"""

    def __init__(self, name: str, ma: Optional[Metric], mb: Optional[Metric], b: Snapshot,
                 nnodes: int):
        self.name = name
        self.type = (mb if mb is not None else ma).type
        self.a = None if ma is None else ma.sum
        self.b = None if mb is None else mb.sum
        self.both = ma is not None and mb is not None
        self.delta = 0
        self.value = 0.0
        self.parts = []
        self.wrapped = 0            # how many CPUs' counters wrapped
        self.node = [0] * nnodes    # a counter's by the node of its CPUs
        if not self.both:
            return
        self.delta = mb.sum - ma.sum
        self.value = float(self.delta if self.type == 'counter' else mb.sum)
        if self.type == 'fact':
            return
        pa, pb = dict(ma.parts), dict(mb.parts)
        for i in sorted(set(pa) | set(pb)):
            d = pb.get(i, 0) - pa.get(i, 0)
            d, node = (self.unwrap(d), b.node_of(i)) if self.type == 'counter' else (d, i)
            self.parts.append((i, d))
            if 0 <= node < nnodes:
                self.node[node] += d
        if self.type == 'counter':
            # without CONFIG_SMP there are no C parts
            self.delta = sum(d for _, d in self.parts) if self.parts else self.unwrap(self.delta)
            self.value = float(self.delta)

    def cells(self, num: Callable, gap, pct: str, undef: str) -> list:
        """before, after, delta (NUM of each, GAP where absent) and change"""
        d = self.delta if self.both else None
        return [gap if x is None else num(x) for x in (self.a, self.b, d)] + \
            ['absent' if d is None else fmt_pct(self.change_pct(), pct, undef)]

    def change_pct(self) -> Optional[float]:
        """None: absent in a dump, or 0 before and not after"""
        if not self.both or (self.a == 0 and self.b != 0):
            return None
        return float(self.delta) / float(self.a) * 100 if self.a else 0.0

    def unwrap(self, d: int) -> int:
        """the per-CPU statistics are u32: a drop of more than 2^31 wrapped,
        a smaller one (a clear, a CPU gone offline) stays negative"""
        if d >= -(1 << 31):
            return d
        self.wrapped += 1
        return d + (1 << 32)


class CacheDelta(NamedTuple):
    name: str
    m: List[Change]
    derived: List[Tuple[str, float]]


class Delta:
    def __init__(self, a: Snapshot, b: Snapshot):
        self.a, self.b, self.nnodes = a, b, max(b.cpu_node, default=-1) + 1
        self.c = []
        for n in list(b.caches) + [n for n in a.caches if n not in b.caches]:
            ca, cb = a.caches.get(n, {}), b.caches.get(n, {})
            ms = [Change(m, ca.get(m), cb.get(m), b, self.nnodes)
                  for m in sorted(set(ca) | set(cb))]
            vals = {m.name: m.value for m in ms if m.both}
            self.c.append(CacheDelta(n, ms, [derive(i, vals.get) for i in range(len(DERIVED))]))
        before = {c[0]: c for c in reversed(a.cpus)}
        per: Dict[Optional[int], List[float]] = {}     # node (None: all): idle, busy
        for cpu, idle, busy in b.cpus:
            if cpu not in before:
                continue
            for n in (None, b.node_of(cpu)):
                if n == -1:         # a CPU of no node
                    continue
                t = per.setdefault(n, [0.0, 0.0])
                t[0] += idle - before[cpu][1]
                t[1] += busy - before[cpu][2]
        pct = {n: t[0] / (t[0] + t[1]) * 100 for n, t in per.items() if t[0] + t[1] > 0}
        self.idle_all = pct.pop(None, None)
        self.idle_pct = dict(sorted(pct.items()))


compute = Delta


def diff_text(d: Delta, per_node: bool) -> str:
    o = ['kernel: %s\n' % (d.b.kernel if d.a.kernel == d.b.kernel else
                           '%s -> %s' % (d.a.kernel, d.b.kernel))]
    if d.a.mono and d.b.mono:
        o.append('interval: %.2f s (%s -> %s)\n' % (d.b.mono - d.a.mono, d.a.time, d.b.time))
    nodes = range(d.nnodes)
    for cd in d.c:
        o.append('\ncache: %s\n\n' % cd.name)
        o.append(table([['metric', 'before', 'after', 'delta', 'change']] +
                       [[m.name] + m.cells(fmt_int, None, '%+.2f%%', 'n/a') for m in cd.m]))
        o += ['note: %s: the per-CPU counter wrapped at 2^32 on %d CPU(s); delta corrected\n'
              % (m.name, m.wrapped) for m in cd.m if m.wrapped]
        o.append('\n' + table([['derived', 'value']] + [
            [DERIVED[i][1], fmt_derived(i, v) if st == OK else
             'absent' if st == ABSENT else 'n/a']
            for i, (st, v) in enumerate(cd.derived)]))
        if not per_node:
            continue
        o.append('\nper-node split of the counter deltas (C<cpu> parts summed by the node of '
                 'the CPU)\n\n')
        rows = [['metric'] + ['node%d' % n for n in nodes] + ['all']]
        rows += [[m.name] + [fmt_int(x) for x in m.node] + [fmt_int(m.delta)]
                 for m in cd.m if m.type == 'counter' and m.both]
        if d.idle_all is not None:
            rows.append(['%idle'] + [fmt_pct(d.idle_pct.get(n), '%.2f', None) for n in nodes] +
                        ['%.2f' % d.idle_all])
        o.append(table(rows))
    if d.b.results:
        o.append('\nresults (after):\n')
        o += ['  %s: %s\n' % (k, fmt_num(v)) for k, v in d.b.results]
    return ''.join(o)


def _csv_num(v: float) -> str:
    return '%d' % v if math.isfinite(v) and abs(v) < 9.2e18 and v == int(v) else '%.4f' % v


def diff_csv(d: Delta, per_node: bool) -> str:
    nodes = range(d.nnodes if per_node else 0)
    rows = [['cache', 'kind', 'metric', 'before', 'after', 'delta', 'change_pct'] +
            ['node%d' % n for n in nodes]]
    for cd in d.c:
        rows += [[cd.name, m.type, m.name] + m.cells(str, '', '%.2f', '') +
                 ['' if m.type == 'fact' or not m.both else str(m.node[n]) for n in nodes]
                 for m in cd.m]
        rows += [[cd.name, 'derived', DERIVED[j][0], '', '', _csv_num(v) if st == OK else '',
                  'absent' if st == ABSENT else ''] + [''] * len(nodes)
                 for j, (st, v) in enumerate(cd.derived)]
    if per_node and d.idle_all is not None:
        rows.append(['', 'idle', 'idle_pct', '', '', '%.2f' % d.idle_all, ''] +
                    [fmt_pct(d.idle_pct.get(n), '%.2f', '') for n in nodes])
    rows += [['', 'result', k, '', '', _csv_num(v), ''] + [''] * len(nodes)
             for k, v in d.b.results]
    return csv_text(rows)


def delta_json(d: Delta) -> dict:
    caches = {}
    for cd in d.c:
        mets = {}
        for m in cd.m:
            e = mets[m.name] = {'type': m.type, 'before': m.a, 'after': m.b}
            if not m.both:
                e.update(delta=None, value=None, absent='before' if m.a is None else 'after')
                continue
            e.update(delta=m.delta, value=m.value)
            if m.wrapped:
                e['wrapped_cpus'] = m.wrapped
            e['change_pct'] = m.change_pct()
            if m.type != 'fact':
                e[PARTS[m.type]] = {str(i): v for i, v in m.parts}
            if m.type == 'counter':
                e['nodes'] = {str(n): v for n, v in enumerate(m.node)}
        der = {key: {'label': label, 'unit': unit, 'value': float(v) if st == OK else None,
                     'state': st}
               for (key, label, unit, _, _), (st, v) in zip(DERIVED, cd.derived)}
        caches[cd.name] = {'metrics': mets, 'derived': der}
    idle: Dict[str, object] = {} if d.idle_all is None else {'all_pct': d.idle_all}
    idle['nodes_pct'] = {str(n): p for n, p in d.idle_pct.items()}
    return {'slabstat': 'delta', 'version': 1, 'kernel': d.b.kernel,
            'kernel_before': d.a.kernel, 'time_before': d.a.time, 'time_after': d.b.time,
            'interval_s': d.b.mono - d.a.mono, 'cpu_node': d.b.cpu_node, 'caches': caches,
            'idle': idle, 'results': dict(d.b.results)}


def _at(doc, *keys):
    """doc[k0][k1]...; None where a level is not an object"""
    for k in keys:
        doc = doc.get(k) if isinstance(doc, dict) else None
    return doc


def _num(v) -> Optional[float]:
    return None if isinstance(v, bool) or not isinstance(v, (int, float)) else float(v)


def _state(x: Optional[float]) -> Tuple[str, float]:
    return (ABSENT, 0.0) if x is None else (OK, x)


class Row:
    """a row of compare: per group the spread of the runs with a value and
    how many runs had a zero denominator"""

    def __init__(self, groups: List[List[dict]], key: str, label: str, kind: str, fmt,
                 get: Callable[[dict], Tuple[str, float]]):
        self.key, self.label, self.kind, self.fmt, self.g = key, label, kind, fmt, []
        for docs in groups:
            vals = [get(doc) for doc in docs]
            self.g.append((Spread.of(x for st, x in vals if st == OK),
                           sum(st == UNDEF for st, _ in vals)))

    def vs_first(self, g: int) -> Tuple[Optional[float], Optional[float], str]:
        """(delta, change in %) of group g's median vs the first's, or
        (None, None, what shows instead: n/a if a denominator was 0)"""
        f, s = self.g[0][0], self.g[g][0]
        if not f or not s:
            return None, None, 'n/a' if self.g[g if f else 0][1] else 'absent'
        pct = (s.med - f.med) / abs(f.med) * 100 if f.med else None if s.med else 0.0
        return s.med - f.med, pct, ''

    def cell(self, g: int) -> str:
        s = self.g[g][0]
        if not s:
            return 'n/a' if self.g[g][1] else 'absent'
        sep = '..' if s.lo < 0 or s.hi < 0 else '-'
        return self.fmt(s.med) if s.n == 1 else \
            '%s (%s%s%s)' % (self.fmt(s.med), self.fmt(s.lo), sep, self.fmt(s.hi))

    def text(self, n: int, with_delta: bool) -> List[Optional[str]]:
        cells = [self.label] + [self.cell(g) for g in range(n)]
        for g in range(1, n):
            delta, pct, gap = self.vs_first(g)
            if with_delta:
                cells.append(None if delta is None else self.fmt(delta))
            cells.append(fmt_pct(pct, '%+.2f%%', gap or 'n/a'))
        return cells

    def csv(self, cache: str) -> List[str]:
        cells = [self.key] + ['%.10g' % s.med if s else '' for s, _ in self.g] + [self.kind, cache]
        for s, _ in self.g:
            cells += ['%d' % s.n, '%.10g' % s.lo, '%.10g' % s.hi] if s else ['0', '', '']
        for g in range(1, len(self.g)):
            delta, pct, gap = self.vs_first(g)
            cells += ['' if delta is None else '%.10g' % delta, fmt_pct(pct, '%.2f', gap)]
        return cells

    def json(self, labels: List[str]) -> dict:
        groups = []
        for g, (s, undef) in enumerate(self.g):
            groups.append({'label': labels[g], 'runs': s.n if s else 0})
            groups[-1].update({'median': s.med, 'min': s.lo, 'max': s.hi} if s else
                              {'undefined': 'zero denominator in every run'} if undef else
                              {'absent': 'no run has it'})
            delta, pct, _ = self.vs_first(g)
            if g and delta is not None:
                groups[-1].update(delta=delta, change_pct=pct)
        label = {'label': self.label} if self.label != self.key else {}     # a derived row's
        return {'kind': self.kind, **label, 'groups': groups}


def _cache_rows(groups: List[List[dict]], cache: str) -> Tuple[List[Row], List[Row]]:
    """the metric rows of CACHE (a metric's kind: the last run's), the derived rows"""
    def mets(doc):
        return _at(doc, 'caches', cache, 'metrics')

    kinds: Dict[str, str] = {}
    for ms in map(mets, itertools.chain(*groups)):
        for n, m in ms.items() if isinstance(ms, dict) else ():
            t = _at(m, 'type')
            kinds[n] = t if isinstance(t, str) else kinds.get(n, 'counter')
    rows = [Row(groups, n, n, kinds[n], fmt_num,
                lambda doc, n=n: _state(_num(_at(mets(doc), n, 'value'))))
            for n in sorted(kinds)]
    der = [Row(groups, key, label, 'derived', lambda v, i=i: fmt_derived(i, v),
               lambda doc, i=i: derive(i, lambda n: _num(_at(mets(doc), n, 'value')))
               if isinstance(mets(doc), dict) else (ABSENT, 0.0))
           for i, (key, label, *_) in enumerate(DERIVED)]
    return rows, der


def _text_rows(labels: List[str], rows: List[Row], title: str, with_delta: bool) -> str:
    hdr = [title] + labels
    for lb in labels[1:]:
        lb = ' ' + lb if len(labels) > 2 else ''
        hdr += (['delta' + lb] if with_delta else []) + ['change' + lb]
    return table([hdr] + [r.text(len(labels), with_delta) for r in rows])


def load_delta(path: str) -> dict:
    text = read_text(path)
    what = ' (this is a slab dump)'
    if not text.startswith('@slab-dump'):
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise Error('%s: not valid JSON: %s' % (path, e))
        kind = doc.get('slabstat') if isinstance(doc, dict) else None
        if kind == 'delta':
            bad = [k for k in ('caches', 'results') if not isinstance(doc.get(k) or {}, dict)]
            if bad:
                raise Error("%s: the delta document's '%s' is not an object" % (path, bad[0]))
            return doc
        what = ' (this is a snapshot)' if kind == 'snapshot' else ''
    raise Error("%s is not a delta document: compare takes the output of 'slabstat diff "
                "--json A B'%s" % (path, what))


def compare(groups: List[List[str]], labels: Optional[List[str]] = None,
            fmt: str = 'text') -> str:
    """median (min-max) per group of delta documents, delta and change of
    each later group against the first"""
    labels = labels or ['G%d' % (i + 1) for i in range(len(groups))]
    docs = [[load_delta(p) for p in g] for g in groups]
    every = [doc for g in docs for doc in g]
    caches = {c: _cache_rows(docs, c) for c in dict.fromkeys(
        c for doc in every for c in (doc.get('caches') or {}))}
    results = [Row(docs, k, k, 'result', fmt_num,
                   lambda doc, k=k: _state(_num(_at(doc, 'results', k)))) for k in RESULT_KEYS]
    if fmt == 'json':
        return json_text({
            'slabstat': 'compare', 'version': 1,
            'groups': [{'label': lb, 'runs': list(g)} for lb, g in zip(labels, groups)],
            'caches': {c: {'metrics': {r.key: r.json(labels) for r in rows},
                           'derived': {r.key: r.json(labels) for r in der}}
                       for c, (rows, der) in caches.items()},
            'results': {r.key: r.json(labels) for r in results}})
    if fmt == 'csv':
        return csv_text([['metric'] + labels + ['kind', 'cache'] +
                         ['%s_%s' % (lb, x) for lb in labels for x in ('runs', 'min', 'max')] +
                         ['%s_%s' % (lb, x) for lb in labels[1:] for x in ('delta', 'change_pct')]]
                        + [r.csv(c) for c, (rows, der) in caches.items() for r in rows + der]
                        + [r.csv('') for r in results])
    o = ['values are median (min-max) over the runs of a group\n']
    for lb, g in zip(labels, docs):
        ks = [k if isinstance(k, str) else '?' for k in (doc.get('kernel') for doc in g)] or ['?']
        other = [k for k in ks if k != ks[0]]
        o.append('group %s: %d run%s, kernel %s\n' % (
            lb, len(g), '' if len(g) == 1 else 's',
            'mixed: %s, %s, ...' % (ks[0], other[0]) if other else ks[0]))
    for c, (rows, der) in caches.items():
        o.append('\ncache: %s\n\n' % c)
        o.append(_text_rows(labels, rows, 'metric', True) + '\n')
        o.append(_text_rows(labels, der, 'derived', False))
    if any(isinstance(doc.get('results'), dict) and doc['results'] for doc in every):
        o.append('\nresults\n\n' + _text_rows(labels, results, 'result', True))
    return ''.join(o)


def write_deltas(files: str) -> int:
    """FILES/runs/<placement>/park<mode>/<round>.json of the run's
    <round>.before.dump and .after.dump (guest-compare.sh's); how many"""
    befores = sorted(glob.glob(os.path.join(files, 'runs', '*', 'park*', '*.before.dump')))
    for before in befores:
        stem = before[:-len('.before.dump')]
        if not os.path.exists(stem + '.after.dump'):
            raise Error('%s has no .after.dump beside it' % before)
        d = compute(load_snapshot(before), load_snapshot(stem + '.after.dump'))
        with open(stem + '.json', 'w') as f:
            f.write(json_text(delta_json(d)))
    return len(befores)


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


def _help() -> None:
    sys.stdout.write(HELP)
    raise SystemExit(0)


def run(argv: List[str]) -> str:
    """the output of one command; raises Error or UsageError"""
    if argv[:1] in (['-h'], ['--help']):
        _help()
    if not argv:
        raise UsageError('missing command')
    cmd, rest = argv[0], iter(argv[1:])
    if cmd not in ('snap', 'diff', 'split', 'compare'):
        raise UsageError("unknown command '%s'" % cmd)
    fmt, labels, groups, opts = 'text', None, [[]], True
    for a in rest:
        if not opts or not a.startswith('-') or a == '-':
            groups[-1].append(a)
        elif a == '--' and cmd != 'compare':
            opts = False
        elif a == '--':
            if len(groups) == MAX_GROUPS:
                raise UsageError('at most %d groups' % MAX_GROUPS)
            groups.append([])
        elif a in ('--csv', '--json'):
            if fmt not in ('text', a[2:]):
                raise UsageError('--csv and --json exclude each other')
            fmt = a[2:]
        elif a == '--labels' and cmd == 'compare':
            labels = next(rest, None)
            if labels is None:
                raise UsageError('option --labels needs an argument')
        elif a in ('-h', '--help'):
            _help()
        else:
            raise UsageError("unknown option '%s'" % a)
    pos = groups[0]
    if cmd == 'snap':
        if fmt != 'text':
            raise UsageError("'snap' takes no --csv/--json")
        if len(pos) != 1:
            raise UsageError('snap needs one DUMP (of tools/guest/slab-dump.sh)')
        return json_text(snap_json(load_snapshot(pos[0])))
    if cmd != 'compare':
        if len(pos) != 2:
            raise UsageError('%s needs two dumps: BEFORE AFTER' % cmd)
        d = compute(load_snapshot(pos[0]), load_snapshot(pos[1]))
        return json_text(delta_json(d)) if fmt == 'json' else \
            (diff_csv if fmt == 'csv' else diff_text)(d, cmd == 'split')
    if not all(groups):
        raise UsageError("compare: empty group (runs are separated by '--')")
    if labels is not None:
        lab = [t for t in labels.split(',') if t]
        if len(lab) != len(groups):
            raise UsageError("--labels names %s groups than given ('%s')"
                             % ('more' if len(lab) > len(groups) else 'fewer', labels))
        labels = lab
    return compare(groups, labels, fmt)


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
