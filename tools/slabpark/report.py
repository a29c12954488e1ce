# SPDX-License-Identifier: GPL-2.0
"""report.txt of the experiments (BASE=1's boots, WORKLOAD=,
MIN_PARTIAL=1): a table per scenario, a column per group, '*' where a
range is apart from the first column's."""

import csv
import os
from typing import List, Tuple

from . import record as REC
from . import runs as R
from .stats import beyond_noise, fmt_spread

Rows = Tuple[Tuple[str, str], ...]   # (label, key); no key: a title
MODULE_ROWS: Rows = (
    ('ops/s', 'ops_per_sec'), ('free p99 ns', 'free_lat_p99_ns'),
    ('alloc p99 ns', 'alloc_lat_p99_ns'), ('free_slowpath', 'free_slowpath'),
    ('free_add_partial', 'free_add_partial'), ('park_slab', 'park_slab'),
    ('cmpxchg_dbl_fail', 'cmpxchg_double_fail'), ('alloc_slab', 'alloc_slab'),
    ('barn_put_fail', 'barn_put_fail'), ('sheaf_flush', 'sheaf_flush'),
    ('lock contentions', 'lock_contentions'), ('lock wait ms', 'lock_wait_ms'),
    ('waits slab_free', 'waits___slab_free'), ('waits refill', 'waits___refill_objects_node'),
    ('waits get_partial', 'waits_get_from_partial_node'), ('slabs peak', 'peak_slabs'),
    ('slabs rest', 'rest_slabs'))
WORKLOAD_ROWS: Rows = (('ops/s', 'ops_per_sec'),) + tuple(
    row for c in R.WORKLOAD_CACHES for row in ((c + ':', ''),) + tuple(
        ('  ' + k.replace('cmpxchg_double', 'cmpxchg_dbl'), c + '.' + k)
        for k in R.WORKLOAD_COUNTERS + ('peak_slabs', 'rest_slabs')))
MIN_PARTIAL_ROWS: Rows = (
    ('ops/s', 'ops_per_sec'), ('alloc_slab', 'alloc_slab'), ('churn/M allocs', 'churn_per_m'),
    ('slabs peak', 'peak'), ('slabs rest', 'rest'), ('partial rest', 'rest_partial'),
    ('parked max', 'parked_max'), ('parked mean', 'parked_mean'))
KINDS = (
    (R.module_runs, MODULE_ROWS, 'the stress module', 'module'),
    (R.workload_runs, WORKLOAD_ROWS, 'workloads (maple_node and vm_area_struct counters)',
     'workloads'),
    (R.min_partial_runs, MIN_PARTIAL_ROWS, 'min_partial control (cross)', 'min-partial'),
)
LABEL_W = 18
CELL_W = 20


def table(runs, rows: Rows, title: str) -> List[str]:
    sp = R.spreads(runs, [k for _, k in rows])
    lines = ['== ' + title,
             '   median min-max over the runs; * = range apart from the first column']
    for sc in R.scenarios(runs):
        sr = [r for r in runs if r.scenario == sc]
        groups = R.groups(sr)
        lines += ['', '-- %s: %s%s' % ((sc,) + REC.runs_of(sr, groups)),
                  ' ' * LABEL_W + ''.join(g.rjust(CELL_W) for g in groups)]
        for label, k in rows:
            cells = [sp.get((sc, g, k)) for g in groups]
            if not k:
                lines.append(label)
            elif any(cells):
                lines.append(REC.line(label, [
                    fmt_spread(c) + ('*' if i and beyond_noise(cells[0], c) else ' ')
                    for i, c in enumerate(cells)], LABEL_W, CELL_W))
        noise = sp.get((sc, groups[0], 'ops_per_sec'))
        if noise and noise.n < 2:
            lines.append('noise: unknown (one run of %s): no difference is claimed' % groups[0])
        elif noise and noise.rel_spread_pct() is not None:
            lines.append('noise: ops/s of %s spread %.0f%% of its median over %d runs' % (
                groups[0], noise.rel_spread_pct(), noise.n))
    return lines


def write_csv(path: str, runs, rows: Rows) -> None:
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['scenario', 'group', 'metric', 'n', 'median', 'min', 'max'])
        for (sc, g, k), s in sorted(R.spreads(runs, [k for _, k in rows]).items()):
            w.writerow([sc, g, k, s.n, s.med, s.lo, s.hi])


def ratio_lines(runs) -> List[str]:
    key = 'ops_per_sec'
    sp = R.spreads(runs, (key,))
    out = []
    for sc in R.scenarios(runs):
        x = sp.get((sc, 'base', key))
        for g in ('park=0', 'park=1'):
            y = sp.get((sc, g, key))
            if x and y and x.med != 0:
                out.append('%s, %s against base: %s %.2fx (%s)' % (
                    sc, g, key, y.med / x.med,
                    'beyond noise' if beyond_noise(x, y) else 'within noise'))
    return out


def report(results: str) -> List[str]:
    meta = os.path.join(results, 'meta.txt')
    out = []
    if os.path.exists(meta):
        with open(meta) as f:
            out = ['# ' + line.rstrip() for line in f if line.strip()]
    found = False
    for read, rows, title, name in KINDS:
        runs = read(results)
        if not runs:
            continue
        found = True
        if name != 'module':
            out.append('')
        out += table(runs, rows, title)
        write_csv(os.path.join(results, 'summary-%s.csv' % name), runs, rows)
        if name == 'module' and any(r.group == 'base' for r in runs):
            out += [''] + ratio_lines(runs)
    if not found:
        raise FileNotFoundError('%s: no guest results (guest/files or boot<NN>-<kernel>/files)'
                                % results)
    return out + ['', "results: %s: summary.txt report.txt summary-*.csv meta.txt, the boots' "
                  'directories' % results]
