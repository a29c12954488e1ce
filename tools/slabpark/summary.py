# SPDX-License-Identifier: GPL-2.0
"""summary.txt, what a tester pastes to the list (<= 80 columns, 40
lines): per scenario the key rows, each mode judged against the reference
by record.verdict, and one computed sentence of what is beyond noise."""

import os
import textwrap
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import facts as F
from . import record as REC
from . import runs as R

MAX_COLS = 80
MAX_LINES = 40
LABEL_W = 19
REF_W = 13
CELL_W = 24

Rows = Sequence[Tuple[str, str]]   # (label, key)
MODULE_ROWS = (('park ratio', 'park_ratio'), ('slowpath share', 'free_slowpath_ratio'),
               ('__slab_free waits', 'waits_slab_free'), ('slabs at peak', 'peak_slabs'),
               ('slabs at rest', 'rest_slabs'), ('ops/s', 'ops_per_sec'))
WORKLOAD_ROWS = (('ops/s', 'ops_per_sec'),) + tuple(
    (c.split('_')[0] + ' ' + label, c + '.' + k) for c in R.WORKLOAD_CACHES
    for label, k in (('park ratio', 'park_ratio'), ('slabs peak', 'peak_slabs'),
                     ('slabs rest', 'rest_slabs')))
MIN_PARTIAL_ROWS = (('ops/s', 'ops_per_sec'), ('slabs at peak', 'peak'),
                    ('slabs at rest', 'rest'), ('parked max', 'parked_max'))
# rows given up first when the summary would pass MAX_LINES
DROP_ORDER = ('free_slowpath_ratio', 'peak_slabs', 'rest_slabs', 'waits_slab_free', 'park_ratio')
# in report.txt, not in the summary (the measurement kernel's experiment)
SUMMARY_SKIP_GROUPS = ('park=3',)


@dataclass
class Data:
    """groups: per scenario, the reference (REF_OF) first"""
    runs: Sequence[R.Run]
    rows: Rows
    ref_of: Callable[[List[str]], str] = REC.reference
    duration_ms: Optional[float] = None
    floor: Optional[float] = None   # percent
    skip: Sequence[str] = ()

    def __post_init__(self):
        self.spreads = R.spreads(self.runs, [k for _, k in self.rows])
        self.groups: Dict[str, List[str]] = {}
        for sc in R.scenarios(self.runs):
            gs = [g for g in R.groups(self.runs, sc) if g not in self.skip]
            ref = self.ref_of(gs)
            self.groups[sc] = [ref] + [g for g in gs if g != ref]
        self.nruns = min(sum(r.scenario == sc and r.group == g for r in self.runs)
                         for sc, gs in self.groups.items() for g in gs)
        ref = {gs[0] for gs in self.groups.values()}
        self.ref = group_name(next(iter(ref))) if len(ref) == 1 else 'the first column'

    def get(self, sc: str, g: str, key: str):
        return self.spreads.get((sc, g, key))


def module_data(runs: Sequence[R.Run]) -> Data:
    dur = {r.metrics['duration_ms'] for r in runs if r.kind.get('duration_ms') == 'const'}
    return Data(runs, MODULE_ROWS, duration_ms=next(iter(dur)) if len(dur) == 1 else None,
                floor=REC.ops_floor(runs), skip=SUMMARY_SKIP_GROUPS)


def min_partial_ref(gs: List[str]) -> str:
    return min((g for g in gs if g.startswith('park=0 ')), default=gs[0],
               key=lambda g: float(g.split('mp=')[-1]))


def fmt(key: str, s) -> str:
    return '-' if s is None else REC.fmt_value(key, s.med)


def group_name(g: str) -> str:
    return REC.MODE_NAME.get(g, g)


def block_lines(d: Data, sc: str, rows: Rows) -> List[str]:
    """the reference column, then the other groups two at a time"""
    ref, *others = d.groups[sc]
    present = [(lab, k) for lab, k in rows
               if any(d.get(sc, g, k) is not None for g in d.groups[sc])]
    out = []
    for ci in range(0, max(len(others), 1), 2):
        chunk = others[ci:ci + 2]
        out.append(REC.line((sc if ci == 0 else '').ljust(LABEL_W) + group_name(ref).rjust(REF_W),
                            [group_name(g) for g in chunk], 0, CELL_W))
        for lab, k in present:
            rs = d.get(sc, ref, k)
            out.append(REC.line(('  ' + lab).ljust(LABEL_W) + fmt(k, rs).rjust(REF_W), [
                '%s %s' % (fmt(k, d.get(sc, g, k)), REC.verdict(rs, d.get(sc, g, k), k, d.floor))
                for g in chunk], 0, CELL_W))
    return out


def conclusion(d: Data, rows: Rows) -> str:
    found, judged = [], 0
    for sc, (ref, *others) in d.groups.items():
        parts = []
        for lab, k in rows:
            rs = d.get(sc, ref, k)
            hits = []
            for g in others:
                s = d.get(sc, g, k)
                v = REC.verdict(rs, s, k, d.floor)
                judged += v != 'noise unknown'
                if v != 'beyond noise':
                    continue
                if k.split('.')[-1] in REC.PERCENT or rs is None or rs.med == 0:
                    hits.append('%s %s' % (g, fmt(k, s)))
                else:
                    hits.append('%s %.2fx' % (g, s.med / rs.med))
            if hits:
                parts.append('%s (%s)' % (lab, ', '.join(hits)))
        if parts:
            found.append('in %s: %s' % (sc, ', '.join(parts)))
    scale = '%d run%s per mode%s' % (d.nruns, '' if d.nruns == 1 else 's',
                                     ' of %d ms' % d.duration_ms if d.duration_ms else '')
    if all(len(gs) < 2 for gs in d.groups.values()):
        return 'Conclusion: one mode only (%s), nothing to compare it with.' % ', '.join(
            sorted({group_name(g) for gs in d.groups.values() for g in gs}))
    if not judged:
        return ('Conclusion: no noise floor with %s (a range needs 2 runs or more): nothing is '
                'claimed.' % scale)
    if not found:
        return 'Conclusion: nothing beyond noise at this scale (%s).' % scale
    return 'Conclusion: against %s, with %s, beyond noise are %s; the rest is within noise.' % (
        d.ref, scale, '; '.join(found))


def _wrap(text: str, indent: str = '  ') -> List[str]:
    return textwrap.wrap(text, MAX_COLS, subsequent_indent=indent, break_on_hyphens=False)


def header(results: str, d: Data) -> List[str]:
    out = ['slab parking: summary (every number: report.txt)']
    out += REC.header_lines(results, d.runs, MAX_COLS)
    if not F.read_meta(results).get('runs'):
        out.append('runs: %d per mode%s' % (
            d.nruns, ' x %d ms' % d.duration_ms if d.duration_ms else ''))
    return out + _wrap(
        'noise: "beyond noise" = the min-max range of the runs is apart from %s\'s%s; "within" '
        'otherwise' % (d.ref, ', for ops/s also by more than the noise floor %.0f%% (the spread '
                       "of local's ops/s, all modes)" % d.floor if d.floor is not None else ''))


def summary_lines(results: str, d: Data) -> List[str]:
    """cut to MAX_LINES: DROP_ORDER's rows first, then the last
    scenarios"""
    head = header(results, d)
    rows = list(d.rows)
    drop = [k for k in DROP_ORDER if k in [k for _, k in rows]]
    while True:
        body = [x for sc in d.groups for x in [''] + block_lines(d, sc, rows)]
        tail = [''] + _wrap(conclusion(d, rows), '')
        if len(head) + len(body) + len(tail) <= MAX_LINES:
            return head + body + tail
        if not drop or len(rows) <= 1:
            break
        gone = drop.pop(0)
        rows = [(lab, k) for lab, k in rows if k != gone]
    room = MAX_LINES - len(head) - len(tail) - 1
    body = []
    for shown, sc in enumerate(d.groups):
        block = [''] + block_lines(d, sc, rows)
        if len(body) + len(block) > room:
            break
        body += block
    else:
        shown = len(d.groups)
    return head + body + ['(%d more in report.txt)' % (len(d.groups) - shown)] + tail


def summary(results: str) -> List[str]:
    for read, data in ((R.module_runs, module_data),
                       (R.workload_runs, lambda runs: Data(runs, WORKLOAD_ROWS)),
                       (R.min_partial_runs,
                        lambda runs: Data(runs, MIN_PARTIAL_ROWS, min_partial_ref))):
        runs = read(results)
        if runs:
            return summary_lines(results, data(runs))
    raise FileNotFoundError('%s: no runs (guest/files, host/ or boot<NN>-<kernel>/files)'
                            % results)


def write(results: str) -> str:
    text = '\n'.join(summary(results)) + '\n'
    with open(os.path.join(results, 'summary.txt'), 'w') as f:
        f.write(text)
    return text
