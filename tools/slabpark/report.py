# SPDX-License-Identifier: GPL-2.0
"""Tables of medians with ranges, per scenario and group.

One table per scenario (placement or workload): a row per metric, a
column per group (base, park=0, ...), each cell 'median min-max' over the
runs of that group.  A '*' marks a cell whose range does not overlap the
first column's (beyond noise); only those differences are claims.  The
noise line of each scenario is the spread of its first group's ops/s.
"""

import csv
import os
from typing import Dict, List, Optional, Sequence, Tuple

from . import record as REC
from . import runs as R
from .stats import Spread, beyond_noise, fmt_spread

# (label, key); a row is printed where some group has the key
MODULE_ROWS: Tuple[Tuple[str, str], ...] = (
    ('ops/s', 'ops_per_sec'),
    ('free p99 ns', 'free_lat_p99_ns'),
    ('alloc p99 ns', 'alloc_lat_p99_ns'),
    ('free_slowpath', 'free_slowpath'),
    ('free_add_partial', 'free_add_partial'),
    ('park_slab', 'park_slab'),
    ('cmpxchg_dbl_fail', 'cmpxchg_double_fail'),
    ('alloc_slab', 'alloc_slab'),
    ('barn_put_fail', 'barn_put_fail'),
    ('sheaf_flush', 'sheaf_flush'),
    ('lock contentions', 'lock_contentions'),
    ('lock wait ms', 'lock_wait_ms'),
    ('waits slab_free', 'waits___slab_free'),
    ('waits refill', 'waits___refill_objects_node'),
    ('waits get_partial', 'waits_get_from_partial_node'),
    ('slabs peak', 'peak_slabs'),
    ('slabs rest', 'rest_slabs'),
)

# a row with no key is a section header
WORKLOAD_ROWS: Tuple[Tuple[str, str], ...] = (('ops/s', 'ops_per_sec'),) + \
    tuple(row for c in R.WORKLOAD_CACHES
          for row in ((c + ':', ''),) + tuple(
              ('  ' + k.replace('cmpxchg_double', 'cmpxchg_dbl'),
               '%s.%s' % (c, k))
              for k in R.WORKLOAD_COUNTERS + ('peak_slabs', 'rest_slabs')))

MIN_PARTIAL_ROWS: Tuple[Tuple[str, str], ...] = (
    ('ops/s', 'ops_per_sec'),
    ('alloc_slab', 'alloc_slab'),
    ('churn/M allocs', 'churn_per_m'),
    ('slabs peak', 'peak'),
    ('slabs rest', 'rest'),
    ('partial rest', 'rest_partial'),
    ('parked max', 'parked_max'),
    ('parked mean', 'parked_mean'),
)

LABEL_W = 18
CELL_W = 20


def spreads(runs: Sequence[R.Run], rows) -> Dict[Tuple[str, str, str], Spread]:
    """(scenario, group, key) -> Spread"""
    vals: Dict[Tuple[str, str, str], List[float]] = {}
    for r in runs:
        for _, k in rows:
            if k and k in r.metrics:
                vals.setdefault((r.scenario, r.group, k), []).append(
                    r.metrics[k])
    return {k: s for k, v in vals.items() if (s := Spread.of(v))}


def table(runs: Sequence[R.Run], rows, title: str) -> List[str]:
    sp = spreads(runs, rows)
    lines = ['== ' + title,
             '   median min-max over the runs; * = range apart from the '
             'first column']
    for sc in sorted({r.scenario for r in runs}, key=R.scenario_key):
        groups = sorted({r.group for r in runs if r.scenario == sc},
                        key=R.group_key)
        n = {g: sum(1 for r in runs if r.scenario == sc and r.group == g)
             for g in groups}
        boots = {r.boot for r in runs if r.scenario == sc and r.boot}
        lines.append('')
        lines.append('-- %s: %s%s' % (
            sc, ', '.join('%s %d runs' % (g, n[g]) for g in groups),
            ' (%d boots)' % len(boots) if boots else ''))
        lines.append(' ' * LABEL_W + ''.join(g.rjust(CELL_W)
                                             for g in groups))
        for label, k in rows:
            if not k:
                lines.append(label)
                continue
            cells = [sp.get((sc, g, k)) for g in groups]
            if all(c is None for c in cells):
                continue
            ref = cells[0]
            out = label.ljust(LABEL_W)
            for i, c in enumerate(cells):
                mark = '*' if i and beyond_noise(ref, c) else ' '
                out += (fmt_spread(c) + mark).rjust(CELL_W)
            lines.append(out.rstrip())
        noise = sp.get((sc, groups[0], 'ops_per_sec'))
        if noise and noise.n < 2:
            lines.append('noise: unknown (one run of %s): no difference is '
                         'claimed' % groups[0])
        elif noise and noise.rel_spread_pct() is not None:
            lines.append('noise: ops/s of %s spread %.0f%% of its median '
                         'over %d runs' % (groups[0], noise.rel_spread_pct(),
                                           noise.n))
    return lines


def write_csv(path: str, runs: Sequence[R.Run], rows) -> None:
    sp = spreads(runs, rows)
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['scenario', 'group', 'metric', 'n', 'median', 'min',
                    'max'])
        for (sc, g, k), s in sorted(sp.items()):
            w.writerow([sc, g, k, s.n, s.med, s.lo, s.hi])


def ratio_line(runs: Sequence[R.Run], scenario: str, a: str, b: str,
               key: str = 'ops_per_sec') -> Optional[str]:
    """'<scenario>, b vs a: ratio of medians, beyond/within noise'"""
    sp = spreads(runs, ((key, key),))
    x, y = sp.get((scenario, a, key)), sp.get((scenario, b, key))
    if not x or not y or x.med == 0:
        return None
    return '%s, %s against %s: %s %.2fx (%s)' % (
        scenario, b, a, key, y.med / x.med,
        'beyond noise' if beyond_noise(x, y) else 'within noise')


def header(results: str) -> List[str]:
    meta = os.path.join(results, 'meta.txt')
    if not os.path.exists(meta):
        return []
    with open(meta) as f:
        return ['# ' + line.rstrip() for line in f if line.strip()]


def min_partial_derive(runs: Sequence[R.Run]) -> None:
    for r in runs:
        m = r.metrics
        if m.get('allocs'):
            m['churn_per_m'] = m.get('churn', 0) * 1e6 / m['allocs']
        if m.get('parked_samples'):
            m['parked_mean'] = m.get('parked_sum', 0) / m['parked_samples']


def report(results: str) -> List[str]:
    """every table the results directory has data for"""
    out = header(results)
    mod = [R.Run(r.scenario, r.group, r.boot, r.round,
                 {k: v for _, k in MODULE_ROWS for v in (r.value(k),)
                  if v is not None}) for r in REC.full_runs(results)]
    wl = R.workload_runs(results)
    mp = R.min_partial_runs(results)
    if mod:
        out += table(mod, MODULE_ROWS, 'the stress module')
        write_csv(os.path.join(results, 'summary-module.csv'), mod,
                  MODULE_ROWS)
        groups = {r.group for r in mod}
        if 'base' in groups:
            out.append('')
            for sc in sorted({r.scenario for r in mod}, key=R.scenario_key):
                for g in ('park=0', 'park=1'):
                    line = ratio_line(mod, sc, 'base', g)
                    if line:
                        out.append(line)
    if wl:
        out.append('')
        out += table(wl, WORKLOAD_ROWS, 'workloads (maple_node and '
                     'vm_area_struct counters)')
        write_csv(os.path.join(results, 'summary-workloads.csv'), wl,
                  WORKLOAD_ROWS)
    if mp:
        min_partial_derive(mp)
        out.append('')
        out += table(mp, MIN_PARTIAL_ROWS, 'min_partial control (cross)')
        write_csv(os.path.join(results, 'summary-min-partial.csv'), mp,
                  MIN_PARTIAL_ROWS)
    if not (mod or wl or mp):
        raise FileNotFoundError('%s: no guest results (guest/files or '
                                'boot<NN>-<kernel>/files)' % results)
    return out + ['', 'results: %s: summary.txt report.txt summary-*.csv '
                  "meta.txt, the boots' directories" % results]
