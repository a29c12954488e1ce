# SPDX-License-Identifier: GPL-2.0
"""report.txt's full record: the header, the constants once (by mode or
placement where they differ), a table of every metric per placement.
summary.txt formats with fmt_value and judges with verdict too."""

import textwrap
from typing import Dict, List, Optional, Sequence

from . import facts as F
from . import runs as R
from .stats import Spread, beyond_noise, fmt_num, fmt_spread

DERIVED = (('park_ratio', 'park ratio'), ('free_slowpath_ratio', 'free_slowpath share'),
           ('waits_slab_free', 'waits __slab_free'), ('park_balance', 'park - unpark'),
           ('page_churn', 'alloc_slab+free_slab'), ('sheaf_flushes', 'sheaf flushes'),
           ('barn_put_fail_per_flush', 'barn_put_fail/flush'))
PERCENT = ('park_ratio', 'free_slowpath_ratio')
# lock_stat's &n->list_lock (LOCKSTAT=1)
LOCKSTAT_ROWS = (('lock_contentions', 'contentions'), ('lock_acquisitions', 'acquisitions'),
                 ('lock_wait_ms', 'wait ms')) + tuple(('waits_' + s, 'waits ' + s)
                                                      for s in R.LOCKSTAT_SITES)

# mode directory park<mode>, word, name; 3: the measurement kernel's only
PARK_MODES = (('0', 'off', 'off (park=0)'), ('1', 'on', 'on contention (park=1)'),
              ('2', 'always', 'always (park=2)'), ('3', 'on+empty', 'on+empty (park=3)'),
              ('base', 'base', 'base kernel'))
WORD = {m: w for m, w, _ in PARK_MODES}
MODE_SHORT = {R.group_of('park' + m): w if m == 'base' else 'park=%s %s' % (m, w)
              for m, w, _ in PARK_MODES}
MODE_NAME = {R.group_of('park' + m): n for m, _, n in PARK_MODES}
REFERENCE = 'park=0'

WIDTH = 100
LABEL_W = 24
CELL_W = 19


def reference(gs: Sequence[str]) -> str:
    return REFERENCE if REFERENCE in gs else gs[0]


def fmt_value(key: str, x: float) -> str:
    if key.split('.')[-1] in PERCENT:
        return '%.0f%%' % x if abs(x) >= 10 or x == 0 else '%.1f%%' % x
    return '%.2f' % x if key == 'barn_put_fail_per_flush' else fmt_num(x)


def line(label: str, cells: Sequence[str], label_w: int, cell_w: int) -> str:
    """LABEL left in LABEL_W columns, each cell right in CELL_W; no trailing blanks"""
    return (label.ljust(label_w) + ''.join(c.rjust(cell_w) for c in cells)).rstrip()


def runs_of(sr, gs: Sequence[str]) -> str:
    """'G N runs, ...' of the runs SR, and their boots"""
    boots = {r.boot for r in sr if r.boot}
    return ', '.join('%s %d runs' % (g, sum(r.group == g for r in sr)) for g in gs), \
        ' (%d boots)' % len(boots) if boots else ''


def local_ops(runs) -> List[float]:
    """the noise floor's ops/s: local parks nothing, so all its modes
    (a sweep's at the smallest capacity); the base kernel's runs other
    code: only where there are no others"""
    local = [s for s in R.scenarios(runs) if s == 'local' or s.startswith('local-sc')][:1]
    sr = [r for r in runs if r.scenario in local and r.kind.get('ops_per_sec') == 'result']
    if any(r.group != 'base' for r in sr):
        sr = [r for r in sr if r.group != 'base']
    return [r.metrics['ops_per_sec'] for r in sr]


def ops_floor(runs) -> Optional[float]:
    s = Spread.of(local_ops(runs))
    return s.rel_spread_pct() if s else None


def verdict(ref: Optional[Spread], s: Optional[Spread], key: str = '',
            floor: Optional[float] = None) -> str:
    """beyond: ranges apart, the medians differ as printed (50.00% and
    50.01% do not), for ops/s by more than FLOOR percent"""
    if ref is None or s is None or ref.n < 2 or s.n < 2:
        return 'noise unknown'
    if not beyond_noise(ref, s) or fmt_value(key, ref.med) == fmt_value(key, s.med):
        return 'within noise'
    if key == 'ops_per_sec' and floor is not None and ref.med and \
            100.0 * abs(s.med - ref.med) / abs(ref.med) <= floor:
        return 'within noise'
    return 'beyond noise'


def plain(x: float) -> str:
    return '%d' % x if x == int(x) else '%g' % x


def wrap_pairs(title: str, pairs: Sequence[str], indent: str = '  ') -> List[str]:
    lines: List[str] = []
    cur = title
    for i, p in enumerate(pairs):
        item = p + (', ' if i < len(pairs) - 1 else '')
        if len(cur) + len(item.rstrip()) > WIDTH and cur.strip():
            lines.append(cur.rstrip())
            cur = indent
        cur += item
    return lines + [cur.rstrip()]


def header_lines(results: str, runs, width: int) -> List[str]:
    meta = F.read_meta(results)
    kernel = next((r.kernel for r in runs if r.kernel), '') or meta.get('kernel', 'unknown')
    topo = next((t for t in (F.read_pairs(files + '/topology', '=')
                             for _, files in R.data_dirs(results)) if t), {})
    lines = ['kernel %s, series %s, project %s' % (
        kernel, meta.get('series', 'unknown'), meta.get('project', 'unknown'))]
    where = meta.get('where', '')
    if where:
        lines.append('ran on: ' + where)
    if where.startswith('host') and topo.get('cpu_model'):
        lines.append('CPU: %s' % topo['cpu_model'])
    elif meta.get('host cpu'):
        lines.append('host CPU: ' + meta['host cpu'])
    lines += ['topology: ' + x for x in F.topology_lines(topo)]
    if meta.get('runs'):
        lines.append('runs: ' + meta['runs'])
    return [x for line in lines for x in textwrap.wrap(
        line, width, subsequent_indent='  ', break_on_hyphens=False)]


def _const_lines(runs) -> List[str]:
    same: List[str] = []
    out = ["== configuration (constants of every run: the cache's facts, the module's settings)"]
    varying: List[str] = []
    for k in sorted({k for r in runs for k in r.of('const')}):
        vals = {(r.scenario, r.group): r.metrics[k] for r in runs if r.kind.get(k) == 'const'}
        if len(set(vals.values())) == 1:
            same.append('%s %s' % (k, plain(next(iter(vals.values())))))
            continue
        # by mode where each mode has one value, else by placement
        for i, order in ((1, R.group_key), (0, R.scenario_key)):
            by: Dict[str, set] = {}
            for sg, v in vals.items():
                by.setdefault(sg[i], set()).add(v)
            if all(len(v) == 1 for v in by.values()):
                break
        varying += wrap_pairs('  ', ['%s: %s' % (k, ', '.join(
            '%s %s' % (x, '/'.join(plain(v) for v in sorted(by[x])))
            for x in sorted(by, key=order)))], indent='    ')
    return out + wrap_pairs('  ', same) + varying


def scenario_table(runs, sc: str, floor: Optional[float] = None) -> List[str]:
    sr = [r for r in runs if r.scenario == sc]
    gs = R.groups(sr)
    ref = reference(gs)
    sp = R.spreads(sr, {k for r in sr for k in r.metrics})
    dur = {r.metrics.get('duration_ms') for r in sr if r.kind.get('duration_ms') == 'const'}
    counts, boots = runs_of(sr, gs)
    lines = ['', '== placement %s: %s%s%s' % (
        sc, counts, ' of %s ms' % plain(next(iter(dur))) if len(dur) == 1 else '', boots),
        "   median min-max of the runs; * = beyond noise: range apart from %s's" % ref]
    if floor is not None:
        lines.append('   (ops/s also by more than the noise floor, %.0f%%)' % floor)
    lines.append(line('', [MODE_SHORT.get(g, g) for g in gs], LABEL_W, CELL_W))

    def section(title: str, rows) -> None:
        body = []
        for key, label in rows:
            cells = [sp.get((sc, g, key)) for g in gs]
            if all(c is None for c in cells):
                continue
            rs = cells[gs.index(ref)]
            body.append(line(('  ' + label)[:LABEL_W - 1], [
                fmt_spread(c, lambda x: fmt_value(key, x)) + (
                    '*' if g != ref and verdict(rs, c, key, floor) == 'beyond noise' else ' ')
                for g, c in zip(gs, cells)], LABEL_W, CELL_W))
        if body:
            lines.extend([title] + body)

    def keys(kind: str) -> List[str]:
        return sorted({k for r in sr for k in r.of(kind)})

    counters = [k for k in keys('counter') if any(r.metrics.get(k) for r in sr)]
    zero = [k for k in keys('counter') if k not in counters]
    section('counters (delta over a run)', [(k, k) for k in counters])
    if zero:
        lines += wrap_pairs('  0 in every run: ', zero, indent='    ')
    section('gauges (value after a run; footprint: peak and at rest)',
            [(k, k) for k in keys('gauge')])
    section('derived', DERIVED)
    section('module results', [(k, k) for k in keys('result')])
    section('latency: bounds of power-of-2 buckets, ns (values only)', [(k, k) for k in R.LATENCY])
    section('lock_stat: &n->list_lock', LOCKSTAT_ROWS)
    return lines


def record(results: str, runs) -> List[str]:
    out = ['slab parking: the full record of make run (summary.txt is the short one)']
    out += header_lines(results, runs, WIDTH)
    out += textwrap.wrap("modes (the cache's debugfs park switch): " + ', '.join(
        MODE_NAME.get(g, g) for g in R.groups(runs)), WIDTH, subsequent_indent='  ')
    out += [''] + _const_lines(runs)
    floor = ops_floor(runs)
    for sc in R.scenarios(runs):
        out += scenario_table(runs, sc, floor)
    return out
