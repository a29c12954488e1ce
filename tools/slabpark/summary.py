# SPDX-License-Identifier: GPL-2.0
"""summary.txt: what a tester pastes to the list (at most 80 columns and
40 lines).

A header (kernel, series version, project commit, where it ran, the CPU
and topology, runs x duration), then per placement (or workload) the key
rows, one column per mode: park ratio, free_slowpath share, the waits in
__slab_free() where LOCKSTAT=1 or MEASURE=1 measured them, slabs at the
peak and at rest, ops/s.  Each cell of a mode other than off (park=0)
says "beyond noise" or "within noise" against park=0: beyond where the
min-max ranges of the runs do not overlap (slabpark.stats.beyond_noise,
the noise floor of the whole package), "noise unknown" with one run.
The last line is one computed sentence: what is beyond noise, or
"nothing beyond noise at this scale".  report.txt keeps every number.
"""

import os
import textwrap
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import facts as F
from . import record as REC
from . import runs as R
from .report import min_partial_derive, spreads
from .stats import Spread

MAX_COLS = 80
MAX_LINES = 40
LABEL_W = 19
REF_W = 13
CELL_W = 24

# (label, key): the key rows, in order
MODULE_ROWS = (
    ('park ratio', 'park_ratio'),
    ('slowpath share', 'free_slowpath_ratio'),
    ('__slab_free waits', 'waits_slab_free'),
    ('slabs at peak', 'peak_slabs'),
    ('slabs at rest', 'rest_slabs'),
    ('ops/s', 'ops_per_sec'),
)
# rows given up first when the summary would pass MAX_LINES
DROP_ORDER = ('free_slowpath_ratio', 'peak_slabs', 'rest_slabs',
              'waits_slab_free', 'park_ratio')
# in report.txt, not in the summary (the measurement kernel's experiment)
SUMMARY_SKIP_GROUPS = ('park=3',)


@dataclass
class Data:
    """the runs of one kind, read into spreads"""
    kind: str                       # 'module', 'workload', 'min_partial'
    rows: Tuple[Tuple[str, str], ...]
    scenarios: List[str]
    groups: Dict[str, List[str]]    # scenario -> groups, reference first
    get: Callable[[str, str, str], Optional[Spread]]
    nruns: int
    duration_ms: Optional[float]
    floor: Optional[float] = None   # the noise floor of ops/s, percent


def _ordered(gs: Sequence[str], ref: str) -> List[str]:
    return [ref] + [g for g in gs if g != ref]


def module_data(runs: Sequence[REC.FullRun]) -> Data:
    scs = REC.scenarios(runs)
    groups = {}
    for sc in scs:
        gs = [g for g in REC.groups(runs, sc) if g not in SUMMARY_SKIP_GROUPS]
        groups[sc] = _ordered(gs, REC.reference(gs))
    cache: Dict[Tuple[str, str, str], Optional[Spread]] = {}

    def get(sc: str, g: str, key: str) -> Optional[Spread]:
        if (sc, g, key) not in cache:
            cache[(sc, g, key)] = REC.spread(runs, sc, g, key)
        return cache[(sc, g, key)]

    dur = {r.consts.get('duration_ms') for r in runs} - {None}
    n = min(sum(1 for r in runs if r.scenario == sc and r.group == g)
            for sc in scs for g in groups[sc])
    return Data('module', MODULE_ROWS, scs, groups, get, n,
                next(iter(dur)) if len(dur) == 1 else None,
                REC.ops_floor(runs))


def _generic_data(kind: str, runs: Sequence[R.Run],
                  rows: Tuple[Tuple[str, str], ...],
                  ref_of: Callable[[List[str]], str]) -> Data:
    scs = sorted({r.scenario for r in runs}, key=R.scenario_key)
    groups = {}
    for sc in scs:
        gs = sorted({r.group for r in runs if r.scenario == sc},
                    key=R.group_key)
        groups[sc] = _ordered(gs, ref_of(gs))

    sp = spreads(runs, rows)
    n = min(sum(1 for r in runs if r.scenario == sc and r.group == g)
            for sc in scs for g in groups[sc])
    return Data(kind, rows, scs, groups,
                lambda sc, g, key: sp.get((sc, g, key)), n, None)


def workload_data(runs: Sequence[R.Run]) -> Data:
    rows: List[Tuple[str, str]] = [('ops/s', 'ops_per_sec')]
    for c in R.WORKLOAD_CACHES:
        short = c.split('_')[0]
        for r in runs:
            m = r.metrics
            a, b = m.get(c + '.park_slab'), m.get(c + '.free_add_partial')
            if b is not None:
                m[c + '.park_ratio'] = 100.0 * (a or 0) / b if b else 0.0
        rows += [(short + ' park ratio', c + '.park_ratio'),
                 (short + ' slabs peak', c + '.peak_slabs'),
                 (short + ' slabs rest', c + '.rest_slabs')]
    return _generic_data('workload', runs, tuple(rows), REC.reference)


def min_partial_data(runs: Sequence[R.Run]) -> Data:
    rows = (('ops/s', 'ops_per_sec'), ('slabs at peak', 'peak'),
            ('slabs at rest', 'rest'), ('parked max', 'parked_max'))

    def ref(gs: List[str]) -> str:
        p0 = sorted((g for g in gs if g.startswith('park=0 ')),
                    key=lambda g: float(g.split('mp=')[-1]))
        return p0[0] if p0 else gs[0]
    return _generic_data('min_partial', runs, rows, ref)


def fmt(key: str, s: Optional[Spread]) -> str:
    """the median, as report.txt prints it"""
    return '-' if s is None else REC.fmt_value(_fkey(key), s.med)


def _fkey(key: str) -> str:
    """the key fmt_value formats KEY as (a workload's park ratio too)"""
    return 'park_ratio' if key.endswith('park_ratio') else key


def group_name(g: str) -> str:
    return REC.MODE_NAME.get(g, g)


def block_lines(d: Data, sc: str, rows: Sequence[Tuple[str, str]]
                ) -> List[str]:
    """the table of one scenario: the reference column, then the other
    groups two at a time"""
    gs = d.groups[sc]
    ref, others = gs[0], gs[1:]
    present = [(lab, k) for lab, k in rows
               if any(d.get(sc, g, k) is not None for g in gs)]
    out = []
    chunks = [others[i:i + 2] for i in range(0, len(others), 2)] or [[]]
    for ci, chunk in enumerate(chunks):
        head = (sc if ci == 0 else '').ljust(LABEL_W) + \
            group_name(ref).rjust(REF_W) + \
            ''.join(group_name(g).rjust(CELL_W) for g in chunk)
        out.append(head.rstrip())
        for lab, k in present:
            rs = d.get(sc, ref, k)
            line = ('  ' + lab).ljust(LABEL_W) + fmt(k, rs).rjust(REF_W)
            for g in chunk:
                s = d.get(sc, g, k)
                cell = '%s %s' % (fmt(k, s), REC.verdict(rs, s, _fkey(k), d.floor))
                line += cell.rjust(CELL_W)
            out.append(line.rstrip())
    return out


def findings(d: Data, rows: Sequence[Tuple[str, str]]
             ) -> Tuple[List[str], int]:
    """the phrases of the conclusion, and how many cells had a verdict"""
    out = []
    judged = 0
    for sc in d.scenarios:
        gs = d.groups[sc]
        ref = gs[0]
        parts = []
        for lab, k in rows:
            rs = d.get(sc, ref, k)
            hits = []
            for g in gs[1:]:
                s = d.get(sc, g, k)
                v = REC.verdict(rs, s, _fkey(k), d.floor)
                if v != 'noise unknown':
                    judged += 1
                if v != 'beyond noise':
                    continue
                if k.endswith('park_ratio') or k in REC.PERCENT or \
                        rs is None or rs.med == 0:
                    hits.append('%s %s' % (g, fmt(k, s)))
                else:
                    hits.append('%s %.2fx' % (g, s.med / rs.med))
            if hits:
                parts.append('%s (%s)' % (lab, ', '.join(hits)))
        if parts:
            out.append('in %s: %s' % (sc, ', '.join(parts)))
    return out, judged


def conclusion(d: Data, rows: Sequence[Tuple[str, str]]) -> str:
    found, judged = findings(d, rows)
    ref = {d.groups[sc][0] for sc in d.scenarios}
    against = group_name(next(iter(ref))) if len(ref) == 1 else \
        'the first column'
    scale = '%d run%s per mode%s' % (
        d.nruns, '' if d.nruns == 1 else 's',
        ' of %d ms' % d.duration_ms if d.duration_ms else '')
    if all(len(d.groups[sc]) < 2 for sc in d.scenarios):
        return ('Conclusion: one mode only (%s), nothing to compare it with.'
                % ', '.join(sorted({group_name(g) for sc in d.scenarios
                                    for g in d.groups[sc]})))
    if not judged:
        return ('Conclusion: no noise floor with %s (a range needs 2 runs '
                'or more): nothing is claimed.' % scale)
    if not found:
        return 'Conclusion: nothing beyond noise at this scale (%s).' % scale
    return ('Conclusion: against %s, with %s, beyond noise are %s; '
            'the rest is within noise.' % (against, scale, '; '.join(found)))


def _wrap(text: str, indent: str = '  ') -> List[str]:
    return textwrap.wrap(text, MAX_COLS, subsequent_indent=indent,
                         break_on_hyphens=False)


def header(results: str, runs: Sequence[REC.FullRun], d: Data) -> List[str]:
    out = ['slab parking: summary (every number: report.txt)']
    out += REC.header_lines(results, runs, MAX_COLS)
    if not F.read_meta(results).get('runs'):
        out.append('runs: %d per mode%s' % (
            d.nruns, ' x %d ms' % d.duration_ms if d.duration_ms else ''))
    ref = {d.groups[sc][0] for sc in d.scenarios}
    out += _wrap('noise: "beyond noise" = the min-max range of the runs '
                 'is apart from %s\'s%s; "within" otherwise' % (
                     group_name(next(iter(ref))) if len(ref) == 1
                     else 'the first column',
                     ', for ops/s also by more than the noise floor %.0f%% '
                     '(the spread of local\'s ops/s, all modes)' % d.floor
                     if d.floor is not None else ''))
    return out


def summary_lines(results: str, runs: Sequence[REC.FullRun], d: Data
                  ) -> List[str]:
    """the summary, cut to MAX_LINES: rows of DROP_ORDER go first, then
    the last scenarios"""
    head = header(results, runs, d)
    rows = list(d.rows)
    drop = list(DROP_ORDER)
    while True:
        body: List[str] = []
        for sc in d.scenarios:
            body.append('')
            body += block_lines(d, sc, rows)
        tail = [''] + _wrap(conclusion(d, rows), '')
        if len(head) + len(body) + len(tail) <= MAX_LINES:
            break
        keys = [k for _, k in rows]
        drop = [k for k in drop if k in keys]
        if not drop or len(rows) <= 1:
            break
        gone = drop.pop(0)
        rows = [(lab, k) for lab, k in rows if k != gone]
    if len(head) + len(body) + len(tail) > MAX_LINES:
        room = MAX_LINES - len(head) - len(tail) - 1
        shown = 0
        cut: List[str] = []
        for sc in d.scenarios:
            block = [''] + block_lines(d, sc, rows)
            if len(cut) + len(block) > room:
                break
            cut += block
            shown += 1
        body = cut + ['(%d more in report.txt)' %
                      (len(d.scenarios) - shown)]
    return head + body + tail


def summary(results: str) -> List[str]:
    runs = REC.full_runs(results)
    if runs:
        d = module_data(runs)
    else:
        wl = R.workload_runs(results)
        mp = R.min_partial_runs(results) if not wl else []
        if wl:
            d = workload_data(wl)
        elif mp:
            min_partial_derive(mp)
            d = min_partial_data(mp)
        else:
            raise FileNotFoundError(
                '%s: no runs (guest/files, host/ or boot<NN>-<kernel>/files)'
                % results)
    return summary_lines(results, runs, d)


def write(results: str) -> str:
    text = '\n'.join(summary(results)) + '\n'
    with open(os.path.join(results, 'summary.txt'), 'w') as f:
        f.write(text)
    return text
