# SPDX-License-Identifier: GPL-2.0
"""The full record of a module comparison (make run, make run HOST=1):
the header, one configuration block, and per placement the table of
every counter, gauge, derived row, module result and latency bound.

The tables of report.txt come from here, the short summary.txt from
slabpark.summary; both read the runs with full_runs() and format with
fmt_value(), so their numbers agree.

- counters: the delta over a run (the slabstat delta's 'value')
- gauges: the value after a run (slabs, objects, partial, parked, and
  the footprint lines guest-compare.sh adds to the .results); values,
  never changes
- constants: the cache's facts (object_size, order, sheaf_capacity,
  min_partial, park, ...) and the module's settings (threads, inflight,
  batch, ...): the configuration block, once; a constant that differs
  between the modes or placements is listed there by mode
- latency: the module's p50/p99 are bounds of power-of-2 histogram
  buckets (a change is 0 or 100% or more): shown as values
"""

import json
import os
import textwrap
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import facts as F
from . import runs as R
from . import slabstat
from .stats import (Spread, beyond_noise, fmt_num, fmt_spread,
                    noise_floor_pct)

CACHE = 'nfs_page_test'

# results of the module that are its settings: constants, not metrics
CONFIG_RESULTS = (
    'alloc_node', 'free_node', 'alloc_threads', 'free_threads',
    'threads_per_cpu', 'inflight', 'batch', 'duration_ms', 'shrink_ms',
    'free_burst', 'cache_object_size',
)
# results that say nothing about a run's outcome
SKIP_RESULTS = ('run', 'error')
LATENCY_RESULTS = ('free_lat_p50_ns', 'free_lat_p99_ns',
                   'alloc_lat_p50_ns', 'alloc_lat_p99_ns')
# guest-compare.sh's footprint lines of the .results
FOOTPRINT_GAUGES = ('shrunk_slabs', 'peak_slabs', 'rest_slabs',
                    'rest_partial')
# derived rows: key, label
DERIVED = (
    ('park_ratio', 'park ratio'),
    ('free_slowpath_ratio', 'free_slowpath share'),
    ('waits_slab_free', 'waits __slab_free'),
    ('park_balance', 'park - unpark'),
    ('page_churn', 'alloc_slab+free_slab'),
    ('sheaf_flushes', 'sheaf flushes'),
    ('barn_put_fail_per_flush', 'barn_put_fail/flush'),
)
PERCENT = ('park_ratio', 'free_slowpath_ratio')
# lock_stat's excerpt (LOCKSTAT=1)
LOCKSTAT_ROWS = (
    ('lock_contentions', 'contentions'),
    ('lock_acquisitions', 'acquisitions'),
    ('lock_wait_ms', 'wait ms'),
) + tuple(('waits_' + s, 'waits ' + s) for s in R.LOCKSTAT_SITES)
# the measurement kernel's waits in __slab_free() (MEASURE=1)
TRANSITIONS = (('full_partial', 'full->partial'), ('full_empty', 'full->empty'),
               ('empty_on', 'partial->empty on list'),
               ('empty_off', 'partial->empty isolated'))
MEASURE_WAITS = tuple('free_wait_' + t for t, _ in TRANSITIONS)

# the park modes (mode directory park<mode>) in report order, with their
# words: 0-2 are the series' (the cache's "park" file), 3 exists only on
# the measurement kernel (tools/kernel/bench-patches/measure-parking.patch),
# base is a kernel without the switch
PARK_MODES = (('0', 'off'), ('1', 'on'), ('2', 'always'), ('3', 'on+empty'),
              ('base', 'base'))
# a park mode's column label in report.txt, and its name in summary.txt
MODE_SHORT = {R.group_of('park' + m): w if m == 'base' else 'park=%s %s' %
              (m, w) for m, w in PARK_MODES}
MODE_NAME = {'park=0': 'off (park=0)', 'park=1': 'on contention (park=1)',
             'park=2': 'always (park=2)', 'park=3': 'on+empty (park=3)',
             'base': 'base kernel'}
REFERENCE = 'park=0'

WIDTH = 100
LABEL_W = 24
CELL_W = 19


@dataclass
class FullRun:
    scenario: str
    group: str
    boot: str
    round: int
    kernel: str = ''
    counters: Dict[str, float] = field(default_factory=dict)
    gauges: Dict[str, float] = field(default_factory=dict)
    consts: Dict[str, float] = field(default_factory=dict)
    results: Dict[str, float] = field(default_factory=dict)
    latency: Dict[str, float] = field(default_factory=dict)
    derived: Dict[str, float] = field(default_factory=dict)
    lockstat: Dict[str, float] = field(default_factory=dict)
    raw: Dict[str, str] = field(default_factory=dict)   # the .results

    @property
    def mode(self) -> str:
        """the mode of its directory park<mode>: '0', ..., 'base'"""
        return self.group[len('park='):] if self.group != 'base' else 'base'

    def value(self, key: str) -> Optional[float]:
        for d in (self.derived, self.results, self.gauges, self.counters,
                  self.latency, self.lockstat, self.consts):
            if key in d:
                return d[key]
        return None


def data_dirs(results: str) -> List[Tuple[str, str]]:
    """(boot, files dir): a guest's files, the boots of BASE=1, or the
    host/ directory of make run HOST=1"""
    host = os.path.join(results, 'host')
    if os.path.isdir(os.path.join(host, 'runs')):
        return [('', host)]
    return R.boot_dirs(results)


def _derive(r: FullRun) -> None:
    """slabstat's derived rows of the run, and its waits in __slab_free()"""
    c, d = r.counters, r.derived
    for i, row in enumerate(slabstat.DERIVED):
        st, v = slabstat.derive(i, lambda n: c.get(n, r.consts.get(n)))
        if st == slabstat.OK:
            d[row[0]] = v
    if 'free_add_partial' in c and 'park_ratio' not in d:
        d['park_ratio'] = 0.0   # a kernel without parking parks nothing
    if 'waits___slab_free' in r.lockstat:
        d['waits_slab_free'] = r.lockstat['waits___slab_free']
    elif all(k in c for k in MEASURE_WAITS):
        d['waits_slab_free'] = sum(c[k] for k in MEASURE_WAITS)


def full_run(boot: str, files: str, sc: str, md: str, rnd: int,
             path: str) -> FullRun:
    kv = F.read_pairs(path)
    r = FullRun(sc, R.group_of(md), boot, rnd, raw=kv)
    doc_path = path[:-len('.results')] + '.json'
    res: Dict[str, float] = {}
    if os.path.exists(doc_path):
        with open(doc_path) as f:
            doc = json.load(f)
        r.kernel = doc.get('kernel', '')
        caches = doc.get('caches', {})
        cache = CACHE if CACHE in caches else next(iter(caches), None)
        mets = caches.get(cache, {}).get('metrics', {}) if cache else {}
        for k, m in mets.items():
            v = m.get('value')
            if v is None:
                continue
            t = m.get('type')
            if t == 'counter':
                r.counters[k] = float(v)
            elif t == 'gauge':
                r.gauges[k] = float(v)
            else:
                r.consts[k] = float(v)
        res.update({k: float(v) for k, v in doc.get('results', {}).items()
                    if isinstance(v, (int, float))})
    for k, v in kv.items():
        x = R._num(v)
        if x is not None and k not in res:
            res[k] = x
    for k, v in res.items():
        if k in SKIP_RESULTS:
            continue
        if k in CONFIG_RESULTS:
            r.consts[k] = v
        elif k in LATENCY_RESULTS:
            r.latency[k] = v
        elif k in FOOTPRINT_GAUGES:
            r.gauges[k] = v
        else:
            r.results[k] = v
    ls = os.path.join(files, 'lockstat', '%s-%s-%d.txt' % (sc, md, rnd))
    if os.path.exists(ls):
        r.lockstat = R.parse_lockstat(ls)
    _derive(r)
    return r


def full_runs(results: str) -> List[FullRun]:
    """every module run of RESULTS; first the delta documents of the runs
    that have only their dumps (slabstat.write_deltas)"""
    dirs = data_dirs(results)
    for _, files in dirs:
        slabstat.write_deltas(files)
    return [full_run(*f) for f in R.run_files(dirs, 'runs', '.results')]


def scenarios(runs: Sequence[FullRun]) -> List[str]:
    return sorted({r.scenario for r in runs}, key=R.scenario_key)


def groups(runs: Sequence[FullRun], sc: Optional[str] = None) -> List[str]:
    return sorted({r.group for r in runs if sc is None or r.scenario == sc},
                  key=R.group_key)


def spread(runs: Sequence[FullRun], sc: str, g: str,
           key: str) -> Optional[Spread]:
    return Spread.of(v for r in runs if r.scenario == sc and r.group == g
                     for v in (r.value(key),) if v is not None)


def reference(gs: Sequence[str]) -> str:
    return REFERENCE if REFERENCE in gs else gs[0]


def fmt_value(key: str, x: float) -> str:
    """one number as both reports print it"""
    if key in PERCENT:
        return '%.0f%%' % x if abs(x) >= 10 or x == 0 else '%.1f%%' % x
    if key == 'barn_put_fail_per_flush':
        return '%.2f' % x
    return fmt_num(x)


def local_ops(runs: Sequence[FullRun]) -> List[float]:
    """the ops/s of the noise floor: the local placement's over all its
    runs and modes (it parks nothing and runs the same code in every
    mode); in a sheaf sweep the local runs at the smallest capacity; the
    base kernel's runs of BASE=1 only where there are no others (it runs
    other code); [] without local runs"""
    local = sorted((s for s in {r.scenario for r in runs}
                    if s == 'local' or s.startswith('local-sc')),
                   key=R.scenario_key)
    sr = [r for r in runs if local and r.scenario == local[0]
          and 'ops_per_sec' in r.results]
    # the patched kernel's modes; a base kernel (BASE=1) runs other code
    if any(r.group != 'base' for r in sr):
        sr = [r for r in sr if r.group != 'base']
    return [r.results['ops_per_sec'] for r in sr]


def ops_floor(runs: Sequence[FullRun]) -> Optional[float]:
    """the noise floor of ops/s in percent (report.txt's '== noise
    floor'): the relative spread of local_ops; None without them"""
    return noise_floor_pct(local_ops(runs))


def verdict(ref: Optional[Spread], s: Optional[Spread],
            key: str = '', floor: Optional[float] = None) -> str:
    """'beyond noise', 'within noise', or 'noise unknown' (a single run,
    or no value in the reference).  Beyond: the ranges do not overlap
    (stats.beyond_noise), the medians differ as printed (fmt_value of
    KEY: 50.00% against 50.01% of free_slowpath share is not claimed),
    and for ops/s the medians differ by more than FLOOR percent (the
    noise floor, ops_floor)"""
    if ref is None or s is None or ref.n < 2 or s.n < 2:
        return 'noise unknown'
    if not beyond_noise(ref, s) or \
            fmt_value(key, ref.med) == fmt_value(key, s.med):
        return 'within noise'
    if key == 'ops_per_sec' and floor is not None and ref.med and \
            100.0 * abs(s.med - ref.med) / abs(ref.med) <= floor:
        return 'within noise'
    return 'beyond noise'


def plain(x: float) -> str:
    """a constant as it was set: 3000, not 3k"""
    return '%d' % x if x == int(x) else '%g' % x


def wrap_pairs(title: str, pairs: Sequence[str], width: int = WIDTH,
               indent: str = '  ') -> List[str]:
    """'title  a 1, b 2, ...' wrapped at width"""
    lines: List[str] = []
    cur = title
    for i, p in enumerate(pairs):
        item = p + (', ' if i < len(pairs) - 1 else '')
        if len(cur) + len(item.rstrip()) > width and cur.strip():
            lines.append(cur.rstrip())
            cur = indent
        cur += item
    lines.append(cur.rstrip())
    return lines


def header_lines(results: str, runs: Sequence[FullRun],
                 width: int) -> List[str]:
    """kernel, series, commit; where it ran, the CPU, the topology; the
    runs: each wrapped at width"""
    meta = F.read_meta(results)
    kernel = next((r.kernel for r in runs if r.kernel), '') or \
        meta.get('kernel', 'unknown')
    topo: Dict[str, str] = {}
    for _, files in data_dirs(results):
        topo = F.read_pairs(os.path.join(files, 'topology'), '=')
        if topo:
            break
    lines = ['kernel %s, series %s, project %s' % (
        kernel, meta.get('series', 'unknown'), meta.get('project', 'unknown'))]
    where = meta.get('where', '')
    if where:
        lines.append('ran on: ' + where)
    hc = meta.get('host cpu', '')
    if where.startswith('host') and topo.get('cpu_model'):
        # the host itself: its model as the topology file has it
        lines.append('CPU: %s' % topo['cpu_model'])
    elif hc:
        lines.append('host CPU: ' + hc)
    lines += ['topology: ' + x for x in F.topology_lines(topo)]
    if meta.get('runs'):
        lines.append('runs: ' + meta['runs'])
    out: List[str] = []
    for line in lines:
        out += textwrap.wrap(line, width, subsequent_indent='  ',
                             break_on_hyphens=False)
    return out


def _const_lines(runs: Sequence[FullRun]) -> List[str]:
    """one configuration block: each constant once, or by mode and
    placement where it differs"""
    keys = sorted({k for r in runs for k in r.consts})
    same: List[str] = []
    varying: List[str] = []
    for k in keys:
        vals = {(r.scenario, r.group): r.consts[k] for r in runs
                if k in r.consts}
        distinct = sorted(set(vals.values()))
        if len(distinct) == 1:
            same.append('%s %s' % (k, plain(distinct[0])))
            continue
        by_group: Dict[str, set] = {}
        for (sc, g), v in vals.items():
            by_group.setdefault(g, set()).add(v)
        if all(len(v) == 1 for v in by_group.values()):
            varying.append('%s: %s' % (k, ', '.join(
                '%s %s' % (g, plain(next(iter(by_group[g]))))
                for g in sorted(by_group, key=R.group_key))))
        else:
            by_sc: Dict[str, set] = {}
            for (sc, g), v in vals.items():
                by_sc.setdefault(sc, set()).add(v)
            varying.append('%s: %s' % (k, ', '.join(
                '%s %s' % (sc, '/'.join(plain(x) for x in sorted(by_sc[sc])))
                for sc in sorted(by_sc, key=R.scenario_key))))
    out = ['== configuration (constants of every run: the cache\'s facts, '
           'the module\'s settings)']
    out += wrap_pairs('  ', same)
    for v in varying:
        out += wrap_pairs('  ', [v], indent='    ')
    return out


def scenario_table(runs: Sequence[FullRun], sc: str,
                   floor: Optional[float] = None) -> List[str]:
    gs = groups(runs, sc)
    ref = reference(gs)
    sr = [r for r in runs if r.scenario == sc]
    n = {g: sum(1 for r in sr if r.group == g) for g in gs}
    boots = {r.boot for r in sr if r.boot}
    dur = {r.consts.get('duration_ms') for r in sr} - {None}
    lines = ['', '== placement %s: %s%s%s' % (
        sc, ', '.join('%s %d runs' % (g, n[g]) for g in gs),
        ' of %s ms' % plain(next(iter(dur))) if len(dur) == 1 else '',
        ' (%d boots)' % len(boots) if boots else ''),
        '   median min-max of the runs; * = beyond noise: range apart from '
        '%s\'s' % ref]
    if floor is not None:
        lines.append('   (ops/s also by more than the noise floor, %.0f%%)'
                     % floor)
    head = ''.ljust(LABEL_W) + ''.join(MODE_SHORT.get(g, g).rjust(CELL_W)
                                       for g in gs)

    def section(title: str, rows: Sequence[Tuple[str, str]]) -> None:
        body = []
        for key, label in rows:
            cells = [spread(sr, sc, g, key) for g in gs]
            if all(c is None for c in cells):
                continue
            rs = cells[gs.index(ref)]
            line = ('  ' + label)[:LABEL_W - 1].ljust(LABEL_W)
            for g, c in zip(gs, cells):
                mark = '*' if g != ref and verdict(rs, c, key, floor) == \
                    'beyond noise' else ' '
                cell = fmt_spread(c, lambda x: fmt_value(key, x))
                line += (cell + mark).rjust(CELL_W)
            body.append(line.rstrip())
        if body:
            lines.append(title)
            lines.extend(body)

    lines.append(head.rstrip())

    def keys(attr: str) -> List[str]:
        return sorted({k for r in sr for k in getattr(r, attr)})

    counters = [k for k in keys('counters')
                if any(r.counters.get(k) for r in sr)]
    zero = [k for k in keys('counters') if k not in counters]
    section('counters (delta over a run)', [(k, k) for k in counters])
    if zero:
        lines += wrap_pairs('  0 in every run: ', zero, indent='    ')
    section('gauges (value after a run; footprint: peak and at rest)',
            [(k, k) for k in keys('gauges')])
    section('derived', [(k, lab) for k, lab in DERIVED])
    section('module results', [(k, k) for k in keys('results')])
    section('latency: bounds of power-of-2 buckets, ns (values only)',
            [(k, k) for k in LATENCY_RESULTS])
    section('lock_stat: &n->list_lock', list(LOCKSTAT_ROWS))
    return lines


def record(results: str) -> List[str]:
    """the header, the configuration block and the placement tables"""
    runs = full_runs(results)
    if not runs:
        raise FileNotFoundError('%s: no module runs (guest/files/runs, '
                                'host/runs or boot<NN>-<kernel>/files/runs)'
                                % results)
    gs = groups(runs)
    out = ['slab parking: the full record of make run (summary.txt is the '
           'short one)']
    out += header_lines(results, runs, WIDTH)
    out += textwrap.wrap('modes (the cache\'s debugfs park switch): ' +
                         ', '.join(MODE_NAME.get(g, g) for g in gs), WIDTH,
                         subsequent_indent='  ')
    out.append('')
    out += _const_lines(runs)
    floor = ops_floor(runs)
    for sc in scenarios(runs):
        out += scenario_table(runs, sc, floor)
    return out
