# SPDX-License-Identifier: GPL-2.0
"""report.txt of a module comparison (make run, make run HOST=1; DATA:
RESULTS/guest/files or RESULTS/host): the full record (slabpark.record),
then the tables of MEASURE=1, SWEEP=sheaf and LOCKSTAT=1, the topology;
beside it <placement>.csv/.json (slabstat compare), summary.csv and
parking.png (gnuplot, where installed)."""

import csv
import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

from . import facts as F
from . import record as REC
from . import runs as R
from . import slabstat
from .stats import fmt_range, median, quantile, rnd

WORD = REC.WORD
MODE_ORDER = list(WORD)
# summary.csv's .results keys
CSV_KEYS = ('ops_per_sec', 'threads_per_cpu', 'alloc_threads', 'free_threads', 'remote_free_pct',
            'free_lat_p50_ns', 'free_lat_p99_ns', 'alloc_lat_p50_ns', 'alloc_lat_p99_ns',
            'allocs', 'frees', 'shrunk_slabs', 'peak_slabs', 'rest_slabs', 'rest_partial',
            'slab_churn')
FOOTPRINT = (('shrunk slabs', 'shrunk_slabs'), ('peak slabs', 'peak_slabs'),
             ('rest slabs', 'rest_slabs'), ('rest partial', 'rest_partial'),
             ('slab churn', 'slab_churn'), ('churn/M alloc', 'churn_per_m'))
# the measurement kernel: unpark_free_<bucket>, free_{lock,wait}_<transition>
BUCKETS = (('1', '1'), ('2_3', '2-3'), ('4_7', '4-7'), ('8_15', '8-15'), ('16', '16+'),
           ('all', 'empty'))
PLOT_COUNTERS = ('park_slab', 'free_add_partial', 'alloc_slab', 'free_slab')
SWEEP = re.compile(r'(.*)-sc(\d+)')

Runs = Sequence[R.Run]


def _modes(runs: Runs) -> List[str]:
    present = {r.mode for r in runs}
    return [m for m in MODE_ORDER if m in present]


def _vals(runs: Runs, p: str, m: str, key: str) -> List[float]:
    return [r.metrics[key] for r in runs if r.scenario == p and r.mode == m and key in r.metrics]


def write_summary_csv(path: str, runs: Runs) -> None:
    with open(path, 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(('placement', 'mode', 'round') + CSV_KEYS)
        for r in runs:
            w.writerow([r.scenario, r.mode, r.round] + [r.raw.get(k, '') for k in CSV_KEYS])


def noise_floor(runs: Runs, shape: str) -> List[str]:
    v = sorted(REC.local_ops(runs))
    if not v:
        return ['== noise floor: no local placement in this run (placements: %s): unknown'
                % ' '.join(R.scenarios(runs))]
    med, spread = median(v), REC.ops_floor(runs) or 0
    return ['== noise floor%s:' % (' (%s)' % shape if shape else ''),
            '   the local placement, which parks nothing, gave %.2f-%.2f M ops/s over its %d '
            'runs' % (v[0] / 1e6, v[-1] / 1e6, len(v)),
            '   (all modes), median %.2f M: a spread of %.0f%% of the median; ops/s '
            'differences' % (med / 1e6, spread),
            '   smaller than that mean nothing here']


FOOTPRINT_HEAD = """
== footprint, median (min-max) of the runs: slabs of the cache after the shrink before a run
   (the baseline), at the peak of the run (sampled every 0.1 s) and at rest 1 s after it (no
   shrink), partial slabs at rest, and the slab churn of the run (alloc_slab + free_slab up
   to rest; n/a without CONFIG_SLUB_STATS), also per million objects allocated (runs have a
   fixed length, not a fixed number of operations)""".split('\n')


def placements(runs: Runs, csv_path: str) -> List[str]:
    modes, places = _modes(runs), R.scenarios(runs)
    col = [REC.MODE_SHORT[R.group_of('park' + m)] for m in modes]
    out = ['', '== placements at equal threads per CPU (median ops/s of the runs; '
           'threads_per_cpu shown)', '%-10s %8s' % ('placement', 'thr/cpu') +
           ''.join(' %15s' % c for c in col)]
    ops = {}
    for p in places:
        tpc = [r.raw.get('threads_per_cpu', '') for r in runs if r.scenario == p][-1]
        line = '%-10s %8s' % (p, tpc)
        for m in modes:
            v = _vals(runs, p, m, 'ops_per_sec')
            ops[p, m] = median(v) if v else 0
            line += ' %15.0f' % ops[p, m]
        out.append(line)
    if 'cross' in places and 'local' in places:
        out.append('%-19s' % 'cross/local ratio' + ''.join(
            ' %15s' % ('%.3f' % (ops['cross', m] / ops['local', m])
                       if ops['local', m] > 0 else 'n/a') for m in modes))
    out += FOOTPRINT_HEAD + ['%-10s %-13s' % ('placement', '') + ''.join(' %22s' % c for c in col)]
    for p in places:
        for i, (label, key) in enumerate(FOOTPRINT):
            out.append('%-10s %-13s' % ('' if i else p, label) + ''.join(
                ' %22s' % fmt_range(_vals(runs, p, m, key)) for m in modes))
    out.append('per-run numbers: ' + csv_path)
    return out


def asked(results: str, knob: str) -> bool:
    """KNOB=1 in meta.txt's runs line"""
    return (knob + '=1') in F.read_meta(results).get('runs', '').split()


MEASURE_HEAD = """
== refill scan length: walks of the partial list, partial slabs visited per walk and listed
   when it started, median (min-max) of the runs: by get_partial_node_bulk() (bulk: sheaf
   refills), then by get_from_partial_node() (one)""".split('\n')


def measure(runs: Runs, results: str) -> List[str]:
    if not any('partial_scan_bulk' in r.of('counter') for r in runs):
        return ['', '== measurement counters: none in these runs (make run MEASURE=1 boots the '
                'kernel that has them)'] if asked(results, 'MEASURE') else []
    rows = [(p, m, [Counter(r.of('counter')) for r in runs if r.scenario == p and r.mode == m])
            for p in R.scenarios(runs) for m in _modes(runs)]
    out = ['', '== free objects of a slab when it was unparked: share of the unparked slabs '
           '(all runs of a mode)',
           '%-10s %-9s %10s' % ('placement', 'park', 'unparked') +
           ''.join(' %7s' % b for _, b in BUCKETS)]
    for p, m, cs in rows:
        unparked = sum(x['unpark_slab'] for x in cs)
        if unparked:
            out.append('%-10s %-9s %10d' % (p, WORD[m], unparked) + ''.join(
                ' %6.1f%%' % (100 * sum(x['unpark_free_' + b] for x in cs) / unparked)
                for b, _ in BUCKETS))
    out += MEASURE_HEAD
    for walk in ('bulk', 'one'):
        fmt = '%-10s %-9s %22s %18s %18s'
        out.append(fmt % ('placement', 'park', 'walks (%s)' % walk, 'visited/walk',
                          'listed/walk'))
        n = 'partial_scan_' + walk
        for p, m, cs in rows:
            per = [x for x in cs if x[n] > 0]
            out.append(fmt % (p, WORD[m], fmt_range(x[n] for x in cs),
                              fmt_range((x[n + '_slabs'] / x[n] for x in per), 2),
                              fmt_range((x[n + '_listed'] / x[n] for x in per), 2)))
    out += ['', '== list_lock in __slab_free() by transition: acquisitions, and of them those '
            'that waited,', '   median (min-max) of the runs, a table per transition']
    for t, label in R.TRANSITIONS:
        out += ['-- ' + label, 'placement  park      acquisitions                waited']
        out += ['%-10s %-9s %-27s %s' % (p, WORD[m], fmt_range(x['free_lock_' + t] for x in cs),
                                         fmt_range(x['free_wait_' + t] for x in cs))
                for p, m, cs in rows]
    return out


def _compare_csv(results: str, p: str) -> Tuple[List[str], Dict]:
    """<p>.csv's labels, {metric: {column: cell}}"""
    with open(os.path.join(results, p + '.csv')) as f:
        rd = csv.reader(f)
        head = next(rd)
        rows = {row[0]: dict(zip(head, row)) for row in rd}
    return head[1:head.index('kind')], rows


def sweep(runs: Runs, results: str) -> List[str]:
    groups = sorted(((m.group(1), int(m.group(2)), p) for p in R.scenarios(runs)
                     for m in (SWEEP.fullmatch(p),) if m),
                    key=lambda g: (R.scenario_key(g[0]), g[1]))
    if not groups:
        return []

    def cell(rows: Dict, metric: str, label: str, d: int) -> str:
        r = rows.get(metric, {})
        if r.get(label, '') == '':
            return '-'
        return fmt_range((float(r[label]), float(r[label + '_min']), float(r[label + '_max'])), d)

    part1 = ['place  sheaf  park    free slowpath %        park_slab/free_add_p % ops/s']
    part2 = ['place  sheaf  park    free_add_partial             page churn (alloc_slab + '
             'free_slab)']
    for place, cap, p in groups:
        labels, rows = _compare_csv(results, p)
        for lab in labels:
            head = '%-6s %5s  %-7s ' % (place, cap, lab)
            part1.append(head + '%-22s %-22s %s' % (
                cell(rows, 'free_slowpath_ratio', lab, 1), cell(rows, 'park_ratio', lab, 2),
                cell(rows, 'ops_per_sec', lab, 0)))
            part2.append(head + '%-28s %s' % (cell(rows, 'free_add_partial', lab, 0),
                                              cell(rows, 'page_churn', lab, 0)))
    foot = ['%-6s %5s  %-7s %-16s %s' % (place, cap, WORD[m],
                                         fmt_range(_vals(runs, p, m, 'peak_slabs')),
                                         fmt_range(_vals(runs, p, m, 'rest_slabs')))
            for place, cap, p in groups for m in _modes([r for r in runs if r.scenario == p])]
    return ['', '== sheaf capacity sweep: median (min-max) of the runs; remote frees bypass the',
            '   sheaves, so the cross rows should not move with the capacity'] + part1 + part2 + [
        '', '   footprint: slabs at the peak / at rest, median (min-max)',
        'place  sheaf  park     peak             rest'] + foot


def _mode_key(m: str) -> int:
    return MODE_ORDER.index(m) if m in MODE_ORDER else len(MODE_ORDER)


SITES_HEAD = """
== &n->list_lock call sites: waiter = contention point (where a CPU waited),
   holder = contending point (where the CPU it waited for took the lock);
   lockdep keeps the first 4 sites of each kind per run; median (min-max)""".split('\n')
PARKS_HEAD = """
== parks against waits: slabs parked per run (park_slab), waits in __slab_free()
   and all contentions, median (min-max); 'vs park=0' compares the medians;
   'beyond spread' when the interquartile ranges of the mode and of park=0
   do not overlap, 'within spread' when they do (the runs do not separate
   them); lockdep records the first 4 call sites a run, so a run whose
   first sites are elsewhere counts 0 waits in __slab_free()
placement park   runs  parks                waits __slab_free    vs park=0""".split('\n')


def lockstat(runs: Runs, data: str, results: str) -> List[str]:
    ex: Dict[Tuple[str, str], List] = {}
    without = sum(r.lock == {} for r in runs)
    note = ['%d lock_stat dump(s) without &n->list_lock in %s (kernel.lock_stat=0 or lock '
            'debugging off?)' % (without, os.path.join(data, 'lockstat'))] if without else []
    for r in runs:
        if r.lock:
            v = dict(r.lock, parks=r.metrics.get('park_slab', 0), waits=sum(
                n for kind, n, fn in r.sites if kind == 'waiter' and fn == '__slab_free'))
            v['share'] = 100 * v['contentions'] / v['acquisitions'] \
                if v['acquisitions'] > 0 else 0
            ex.setdefault((r.scenario, r.mode), []).append((v, r.sites))
    if not ex and note:
        return ['', '== &n->list_lock: ' + note[0]]
    if not ex:
        return ['', '== &n->list_lock: no lock_stat excerpts in %s' %
                os.path.join(data, 'lockstat')] if asked(results, 'LOCKSTAT') else []
    keys = sorted(ex, key=lambda k: (R.scenario_key(k[0]), _mode_key(k[1])))

    def row(fmt: str, k: Tuple[str, str], *cols: Tuple[str, int, bool]) -> str:
        """COLS (name, decimals, vs0): fmt_range, or with vs0 the median
        against park=0's, beyond spread where the interquartile ranges
        do not overlap"""
        def col(k, name):
            return [v[name] for v, _ in ex[k]]

        def cell(name: str, d: int, vs0: bool) -> str:
            if not vs0:
                return fmt_range(col(k, name), d)
            z = (k[0], '0')
            if k[1] == '0' or z not in ex:
                return '-'
            a, b = col(k, name), col(z, name)
            diff = rnd(median(b)) - rnd(median(a))
            q = [quantile(x, f) for x in (a, b) for f in (.25, .75)]
            return '%.0f %s, %s spread' % (abs(diff), 'more' if diff < 0 else 'fewer',
                                           'beyond' if q[1] < q[2] or q[3] < q[0] else 'within')
        return '%-9s %-6s %4d  ' % (k[0], WORD.get(k[1], k[1]), len(ex[k])) \
            + fmt % tuple(cell(*c) for c in cols)

    out = ['', "== &n->list_lock (CONFIG_LOCK_STAT; all caches' list_locks): median (min-max) "
           'of the runs'] + note + [
           'placement park   runs  contentions            acquisitions                 '
           'contended %']
    out += [row('%-22s %-28s %s%%', k, ('contentions', 0, False), ('acquisitions', 0, False),
                ('share', 2, False)) for k in keys]
    out.append('placement park   runs  wait total us              avg us                 max us')
    out += [row('%-26s %-22s %s', k, ('waittime_total_us', 0, False),
                ('waittime_avg_us', 1, False), ('waittime_max_us', 0, False)) for k in keys]
    out += SITES_HEAD
    site_rows = []
    for k in keys:
        per = [Counter() for _ in ex[k]]     # (kind, function) -> count
        for c, (_, sites) in zip(per, ex[k]):
            for kind, n, fn in sites:
                c[kind, fn] += n
        for kind, fn in {s for c in per for s in c}:
            v = [c[kind, fn] for c in per]   # a run without the site: 0
            site_rows.append(((R.scenario_key(k[0]), _mode_key(k[1]), kind != 'waiter',
                               -rnd(median(v)), fn), '%-9s %-6s %-7s %-32s %s' % (
                                   k[0], WORD.get(k[1], k[1]), kind, fn, fmt_range(v))))
    if site_rows:
        out.append('placement park   site    function                         contentions')
        out += [line for _, line in sorted(site_rows)]
    out += PARKS_HEAD
    out += [row('%-20s %-20s %s', k, ('parks', 0, False), ('waits', 0, False),
                ('waits', 0, True)) for k in keys]
    out.append('placement park   runs  contentions          vs park=0')
    out += [row('%-20s %s', k, ('contentions', 0, False), ('contentions', 0, True))
            for k in keys]
    return out


def _gp_quote(s: str) -> str:
    return "'%s'" % s.replace("'", "''")


PLOTS = (('ops.dat', ('ops_per_sec',), 'throughput', 'ops/s'),
         ('slabs.dat', ('peak_slabs', 'rest_slabs'), 'footprint: slabs at the peak of a run and '
          'at rest 1 s after', 'slabs'),
         ('counters.dat', (), 'SLUB counters (log axis; a zero median has no bar)',
          'count per run (log)'),
         ('p99.dat', ('free_lat_p99_ns',), 'free latency p99', 'ns'))


def plot(runs: Runs, results: str, title: str) -> bool:
    """RESULTS/parking.png: ops/s, slabs, the compare tables' counters,
    free p99, per placement and mode; False without gnuplot or when it
    fails"""
    if not shutil.which('gnuplot'):
        return False
    modes, places = _modes(runs), R.scenarios(runs)

    def stats(*keys: str) -> str:
        vals = {(p, m, k): _vals(runs, p, m, k) for p in places for m in modes for k in keys}
        return ''.join('%s %s\n' % (p if len(keys) == 1 else p + ':' + k, ' '.join(
            '%g %g %g' % (median(v), min(v), max(v)) if v else 'NaN NaN NaN'
            for v in (vals[p, m, k] for m in modes)))
            for p in places for k in keys) if any(vals.values()) else ''

    counters = ''
    for p in places:
        labels, rows = _compare_csv(results, p)
        for metric in (m for m in PLOT_COUNTERS if m in rows):
            counters += '%s:%s %s\n' % (p, metric, ' '.join(
                (rows[metric].get(WORD[m] + s, '') if WORD[m] in labels else '') or 'NaN'
                for m in modes for s in ('', '_min', '_max')))
    gp = ('set terminal png size 1400,1000 noenhanced\nset output %s\n'
          'set multiplot layout 2,2 title %s\nset style data histogram\n'
          'set style histogram errorbars gap 1 lw 1\nset style fill solid 0.7 border -1\n'
          'set key outside top center horizontal\nset bars 2\n' % (
              _gp_quote(os.path.join(results, 'parking.png')), _gp_quote(title)))
    with tempfile.TemporaryDirectory() as work:
        for name, keys, ptitle, ylabel in PLOTS:
            text = stats(*keys) if keys else counters
            path = os.path.join(work, name)
            with open(path, 'w') as f:
                f.write(text)
            gp += "set logscale y; set yrange [1:*]; set offsets 0, 0, 0, 0; " \
                "set xtics rotate by -40 font ',8'" if name == 'counters.dat' \
                else "unset logscale y; set yrange [0:*]; set offsets 0, 0, " \
                "graph 0.08, 0; set xtics rotate by -30 font ',9'"
            gp += '\nset title %s; set ylabel %s\n%s\n' % (
                _gp_quote(ptitle), _gp_quote(ylabel), "plot for [k=1:%d] %s using "
                "(column(3*k-1)):(column(3*k)):(column(3*k+1)):xtic(1) title word(%s, k)" % (
                    len(modes), _gp_quote(path), _gp_quote(' '.join(WORD[m] for m in modes)))
                if text else "plot 0 title 'no data in this run'")
        gp += 'unset multiplot\n'
        return subprocess.run(['gnuplot'], input=gp, text=True).returncode == 0


def fold(text: str, width: int = 100) -> List[str]:
    """fold -s"""
    out = []
    for line in text.splitlines():
        while len(line) > width:
            cut = line.rfind(' ', 0, width) + 1 or width
            out.append(line[:cut])
            line = line[cut:]
        out.append(line)
    return out


def data_dir(results: str) -> Optional[str]:
    """None for a results directory of another kind"""
    dirs = R.data_dirs(results)
    return dirs[0][1] if len(dirs) == 1 and not dirs[0][0] and \
        os.path.isdir(os.path.join(dirs[0][1], 'runs')) else None


def report(results: str, data: str) -> List[str]:
    """report.txt's lines; the files beside it but summary.txt written"""
    runs = R.module_runs(results)
    if not runs:
        raise FileNotFoundError('%s: no module runs in %s/runs' % (results, data))
    where = F.read_meta(results).get('where', '')
    shape = where[len('host, '):] if where.startswith('host, ') else where
    for p in R.scenarios(runs):
        groups, labels = [], []
        for m in MODE_ORDER:
            d = os.path.join(data, 'runs', p, 'park' + m)
            if os.path.isdir(d):
                groups.append([os.path.join(d, f) for f in sorted(os.listdir(d))
                               if f.endswith('.json')])
                labels.append(WORD[m])
        for fmt in ('csv', 'json'):
            with open(os.path.join(results, '%s.%s' % (p, fmt)), 'w') as f:
                f.write(slabstat.compare(groups, labels, fmt))
    csv_path = os.path.join(results, 'summary.csv')
    write_summary_csv(csv_path, runs)
    out = REC.record(results, runs) + [''] + noise_floor(runs, shape)
    out += placements(runs, csv_path) + measure(runs, results) + sweep(runs, results) + \
        lockstat(runs, data, results)
    png = os.path.join(results, 'parking.png')
    if os.path.exists(png):
        os.remove(png)
    title = where
    if where.startswith('host'):
        cpu = F.read_pairs(os.path.join(data, 'topology'), '=').get('cpu_model')
        title = '%s, %s' % (cpu or 'host', shape)
    title = 'slab parking%s, same boot: median of the runs, bars = min-max' % (
        ' on ' + title if title else '')
    if 'TCG' in where:
        title += ' (TCG: compare modes, not absolute numbers)'
    if plot(runs, results, title):
        out.append('plot: ' + png)
    topo = os.path.join(data, 'topology')
    if os.path.exists(topo):
        with open(topo) as f:
            out += ['', '== topology (%s)' % topo] + fold(f.read())
    written = 'summary.txt report.txt *.csv *.json' + \
        (' parking.png' if os.path.exists(png) else '')
    shown = os.path.relpath(results, F.TOP) if os.path.abspath(results).startswith(
        F.TOP + os.sep) else results
    datatop = os.path.relpath(data, results).split(os.sep)[0]
    return out + ['', 'results: %s: %s %s/' % (shown, written, datatop)]
