# SPDX-License-Identifier: GPL-2.0
"""Results directories in the guest scripts' layout for the tests of the
reports; CASES: those whose outputs tests/data/outputs/<case>/ keeps
(refresh() writes them anew after a change of a format)."""

import json
import os
import re
import shutil
import subprocess
import tempfile
from contextlib import redirect_stdout
from io import StringIO
from typing import Callable, Dict, Optional, Sequence, Tuple
from unittest import mock

from slabpark import runs

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def results(place: str, rnd: int, ops: float, peak: int, rest: int) -> Dict[str, object]:
    return dict(
        run=rnd, state='done', error=0, placement=place, alloc_node=0, free_node=1,
        alloc_threads=2, free_threads=2, threads_per_cpu=1, inflight=256, batch=16,
        duration_ms=3000, shrink_ms=0, free_burst=0, elapsed_ms=3001, allocs=int(ops * 3),
        frees=int(ops * 3), ops_per_sec=int(ops), remote_frees=5, remote_free_pct='99.50',
        alloc_failures=0, shrinks=0, free_lat_samples=100, free_lat_p50_ns=512,
        free_lat_p99_ns=2048, free_lat_max_ns=90000, free_lat_hist='1 2 3',
        alloc_lat_samples=100, alloc_lat_p50_ns=256, alloc_lat_p99_ns=4096,
        alloc_lat_max_ns=80000, cache_name='nfs_page_test', cache_object_size=64,
        shrunk_slabs=10, peak_slabs=peak, rest_slabs=rest, rest_partial=4, slab_churn=300)


def delta_doc(mode: str, extra: Optional[Dict[str, float]] = None) -> dict:
    mets = {
        'free_fastpath': ('counter', 1000), 'free_slowpath': ('counter', 900000),
        'free_add_partial': ('counter', 50000), 'park_slab': ('counter', 0),
        'unpark_slab': ('counter', 0), 'alloc_slab': ('counter', 200),
        'free_slab': ('counter', 100), 'sheaf_flush': ('counter', 6000),
        'barn_put_fail': ('counter', 90), 'order_fallback': ('counter', 0),
        'slabs': ('gauge', 100), 'objects': ('gauge', 5000), 'partial': ('gauge', 4),
        'parked': ('gauge', 0), 'object_size': ('fact', 64), 'order': ('fact', 0),
        'sheaf_capacity': ('fact', 60), 'min_partial': ('fact', 5),
        'park': ('fact', int(mode) if mode.isdigit() else 0), 'objs_per_slab': ('fact', 64)}
    for k, v in (extra or {}).items():
        mets[k] = ('counter', v)
    return {'slabstat': 'delta', 'version': 1, 'kernel': '7.3.4-slabpark',
            'caches': {'nfs_page_test': {'metrics': {
                k: {'type': t, 'before': 0, 'after': v, 'delta': v, 'value': v}
                for k, (t, v) in mets.items()}}},
            'results': {}}


def synth(dst: str, ops: Dict[str, Sequence[float]], places: Sequence[str] = ('cross', 'local'),
          host: bool = False, lockstat: bool = False, park: Optional[Dict[str, float]] = None,
          counters: Callable[[int, int], Dict[str, float]] = lambda m, r: {},
          rest: Optional[int] = None) -> str:
    """OPS: mode -> the ops/s of its rounds (every placement the same);
    park_slab per mode from PARK, the COUNTERS of (mode, round) beside it;
    REST slabs at rest, or by mode"""
    park = park or {'0': 0, '1': 20000, '2': 50000, '3': 50000}
    files = os.path.join(dst, 'host') if host else os.path.join(dst, 'guest', 'files')
    os.makedirs(files, exist_ok=True)
    shutil.copy(os.path.join(DATA, 'topology-host' if host else 'topology-guest'),
                files + '/topology')
    write(os.path.join(dst, 'meta.txt'),
          'series: RFC PATCH v2\nproject: 0123abc\nwhere: %s\n'
          'host cpu: AMD EPYC 7B13, 2 CPUs, SMT off\n'
          'runs: %d x 3000 ms per placement and mode\n' % (
              'host, 2 nodes x 64 CPUs, nodes 0 -> 1' if host else 'TCG guest, 2 nodes x 2 vCPUs',
              len(next(iter(ops.values())))))
    for p in places:
        for m, rounds in ops.items():
            mi = int(m) if m.isdigit() else 0
            for r, o in enumerate(rounds, 1):
                pk = park.get(m, 0) if p != 'local' else 0
                extra = dict(counters(mi, r), park_slab=pk, unpark_slab=pk)
                module_run(files, p, m, r, results(p, r, o, 400 + r, rest or 100 - 20 * mi + r),
                           extra)
                if lockstat:
                    lock_dump(files, p, m, r, lock_stat(
                        600 - 100 * mi + r, 90000, 2500.0, 100.0, (
                            (500 - 100 * mi + r, '__slab_free+0xb3/0x530'),
                            (7, '__refill_objects_node+0xad/0x860'))))
    return dst


def measured(mode: int, rnd: int) -> Dict[str, float]:
    return dict(free_wait_full_partial=300 - 100 * mode, free_wait_full_empty=10,
                free_wait_empty_on=5, free_wait_empty_off=0)


def module_run(files: str, place: str, mode: str, rnd: int, results: Dict[str, object],
               counters: Optional[Dict[str, float]] = None) -> str:
    """the path of its delta document"""
    d = os.path.join(files, 'runs', place, 'park' + mode)
    write(os.path.join(d, '%d.results' % rnd), ''.join('%s: %s\n' % kv for kv in results.items()))
    write(os.path.join(d, '%d.json' % rnd), json.dumps(delta_doc(mode, counters)))
    return os.path.join(d, '%d.json' % rnd)


def lock_stat(con: int, acq: int, total: float, top: float,
              waiters: Sequence[Tuple[int, str]] = (),
              holders: Sequence[Tuple[int, str]] = ()) -> str:
    """as kernel/locking/lockdep_proc.c prints one class, &n->list_lock:
    WAITERS contention points, HOLDERS contending ones (count, symbol)"""
    name, width = runs.LOCK_CLASS, 40 + 1 + 12 * (14 + 1)
    text = '%s\n%s\n%40s' % (runs.LOCK_HEADER, '-' * width, 'class name')
    text += ''.join(' %14s' % c for c in (
        'con-bounces', 'contentions', 'waittime-min', 'waittime-max', 'waittime-total',
        'waittime-avg', 'acq-bounces', 'acquisitions', 'holdtime-min', 'holdtime-max',
        'holdtime-total', 'holdtime-avg'))
    text += '\n%s\n\n' % ('-' * width)
    text += '%40s:%14d %14d %14.2f %14.2f %14.2f %14.2f %14d %14d' % (
        name, con // 2, con, 0.1 if con else 0, top, total, total / con if con else 0,
        acq // 10, acq)
    text += ' %14s %14s %14s %14s\n' % ('0.05', '80.00', '90000.00', '0.09')
    for sites in (waiters, holders):
        text += ''.join('%s%40s %14d %29s %s\n' % (
            '' if i else ' ' * (40 - len(name)) + '-' * len(name) + '\n',
            name, n, '[<00000000c0ffee%02x>]' % i, sym) for i, (n, sym) in enumerate(sites))
    return text + ('\n%s\n\n' % ('.' * width) if holders else '')


def lock_dump(files: str, place: str, mode: str, rnd: int, text: str) -> None:
    write(os.path.join(files, 'lockstat', '%s-park%s-%d.txt' % (place, mode, rnd)), text)


NO_CLASS = lock_stat(0, 0, 0, 0).split('\n\n')[0] + '\n\n'


def _footprint(dst: str) -> None:
    # modes 0 and 1, three runs, and a stray file beside the placements
    files = os.path.join(dst, 'guest', 'files')
    for r in (1, 2, 3):
        for m in ('0', '1'):
            module_run(files, 'cross', m, r, {
                'ops_per_sec': 1000 * r, 'threads_per_cpu': 1, 'allocs': 1000000,
                'shrunk_slabs': 4, 'peak_slabs': 7 + r, 'rest_slabs': 5, 'rest_partial': 4,
                'slab_churn': 2000 * (int(m) + 1) + r})
    write(os.path.join(files, 'runs', 'notes.txt'), 'x\n')


def _measure(dst: str) -> None:
    # the measurement kernel's: park=1 unparks, park=2 has scans only
    files = os.path.join(dst, 'guest', 'files')
    for r in (1, 2):
        res = {'ops_per_sec': 1}
        module_run(files, 'cross', '0', r, res, {
            'partial_scan_bulk': 10, 'partial_scan_bulk_slabs': 20 + 10 * r,
            'partial_scan_one': 0, 'partial_scan_one_slabs': 0, 'free_lock_full_partial': 100,
            'free_wait_full_partial': 8 + 2 * r, 'free_lock_empty_on': 50,
            'free_wait_empty_on': 5, 'unpark_slab': 0, 'partial_scan_bulk_listed': 40 * r})
        module_run(files, 'cross', '1', r, res, {
            'partial_scan_bulk': 10, 'partial_scan_bulk_slabs': 30, 'unpark_slab': 10,
            'unpark_free_1': 1, 'unpark_free_2_3': 0, 'unpark_free_4_7': 0,
            'unpark_free_8_15': 0, 'unpark_free_16': 4, 'unpark_free_all': 5,
            'free_lock_full_partial': 90, 'free_wait_full_partial': 0})
        module_run(files, 'cross', '2', r, res, {
            'partial_scan_bulk': 10, 'partial_scan_bulk_slabs': 30})


def _asked(dst: str) -> None:
    module_run(os.path.join(dst, 'guest', 'files'), 'cross', '0', 1, {'ops_per_sec': 1},
               {'alloc_slab': 5})
    write(os.path.join(dst, 'meta.txt'),
          'where: TCG guest\nruns: 1 x 1000 ms; PLACEMENTS="cross" MEASURE=1 LOCKSTAT=1\n')


def _no_class(dst: str) -> None:
    _asked(dst)
    lock_dump(os.path.join(dst, 'guest', 'files'), 'cross', '0', 1, NO_CLASS)


def _lockstat(dst: str) -> None:
    # park=0's delta documents missing; park=1's second dump empty (a
    # failed cat), its third without &n->list_lock; park=2 one run
    files = os.path.join(dst, 'guest', 'files')
    for m, r, nums, waiters, holders in (
            ('0', 1, (5002, 1000004, 25100.50, 7000.25), (
                (3000, '__slab_free+0x1a0/0x3c0'), (2000, 'get_partial_node_bulk+0x50/0x200')),
             ((4000, 'refill_sheaf+0x10/0x90 [slub_stress]'),)),
            ('0', 2, (1000, 1000000, 100.00, 3.00), ((1000, '__slab_free+0x10/0x3c0'),), ()),
            ('2', 1, (2, 900000, 1.00, 0.70), ((2, 'get_partial_node_bulk+0x50/0x200'),), ()),
            ('1', 1, (2500, 1000000, 10.00, 2.00), ((2000, '__slab_free+0x1a0/0x3c0'),), ()),
            # the 4 points lock_stat keeps, __slab_free twice: waits on
            # park=0's lower quartile, within its spread
            ('3', 1, (9000, 1000000, 50.00, 9.00), (
                (1000, '__slab_free+0x1a0/0x3c0'), (500, '__slab_free+0x20/0x3c0'),
                (300, 'get_partial_node_bulk+0x50/0x200'),
                (200, '__refill_objects_node+0xad/0x860')),
             ((100, 'refill_sheaf+0x10/0x90'),))):
        lock_dump(files, 'cross', m, r, lock_stat(*nums, waiters, holders))
    lock_dump(files, 'cross', '1', 2, '')
    lock_dump(files, 'cross', '1', 3, NO_CLASS)
    for m, r, parks in (('0', 1, None), ('0', 2, None), ('1', 1, 40), ('1', 2, 30),
                        ('1', 3, 35), ('2', 1, 900), ('3', 1, 50)):
        doc = module_run(files, 'cross', m, r, {'ops_per_sec': 1}, {'park_slab': parks or 0})
        if parks is None:
            os.remove(doc)


def _boots(dst: str) -> None:
    # three boots of each kernel, local; cross only on the patched one,
    # park=1 overlapping park=0, park=2 not
    for b, cross in enumerate(((100, 101, 150), (110, 120, 160), (105, 130, 155)), 1):
        for k, mode, o in (('base', 'base', 1000), ('patched', '0', 500), ('patched', '1', 700)):
            files = os.path.join(dst, 'boot%02d-%s' % (2 * b - (k == 'base'), k), 'files')
            module_run(files, 'local', mode, 1, {
                'state': 'done', 'ops_per_sec': o + b, 'peak_slabs': 8, 'rest_slabs': 5})
        for m, o in zip('012', cross):
            module_run(os.path.join(dst, 'boot%02d-patched' % (2 * b), 'files'), 'cross', m, 1,
                       {'ops_per_sec': o})


def _workloads(dst: str) -> None:
    for t in (4, 8):
        for m in '012':
            for r in (1, 2):
                write(os.path.join(dst, 'guest', 'files', 'workloads', 'mmap1-t%d' % t,
                                   'park' + m, '%d.txt' % r),
                      'before maple_node alloc_slab 10\nbefore maple_node slabs 3\n'
                      'result ops_per_sec %d\npeak maple_node slabs %d\n'
                      'after maple_node alloc_slab 110\nafter maple_node free_add_partial 100\n'
                      'after maple_node park_slab %d\nafter maple_node slabs %d\n'
                      'after vm_area_struct park_slab 4\n' % (
                          500 + r, 30 + r + t, 40 * int(m), 9 - int(m)))


def _min_partial(dst: str) -> None:
    files = os.path.join(dst, 'guest', 'files')
    os.makedirs(files)
    shutil.copy(os.path.join(DATA, 'minpartial.txt'), files)


CASES = {
    'footprint': _footprint,
    'measure': _measure,
    'asked': _asked,
    'no-class': _no_class,
    'lockstat': _lockstat,
    # the noise floor of a sweep: local at the smallest capacity (by number)
    'sweep': lambda d: [synth(d, ops, places=p) for ops, p in (
        ({'0': [100e3, 110e3], '1': [120e3, 118e3]}, ('cross-sc60', 'cross-sc120', 'local-sc60')),
        ({'0': [300e3, 310e3]}, ('local-sc8',)))],
    # one run a mode: nothing claimed
    'no-local': lambda d: synth(d, {'0': [100e3], '1': [120e3]}, places=('cross',)),
    'no-meta': lambda d: os.remove(os.path.join(synth(d, {'0': [100e3, 110e3]}), 'meta.txt')),
    # the counters plot of a placement without park=0
    # (local: two runs against one of park=0, noise unknown all the same)
    'plot-modes': lambda d: [synth(d, ops, places=(p,)) for ops, p in (
        ({'1': [100e3]}, 'cross'), ({'0': [100e3], '1': [100e3] * 2}, 'local'))],
    # park=1 apart from park=0, park=2 overlapping; no noise floor
    'beyond': lambda d: synth(d, {'0': [100e3, 105e3], '1': [150e3, 155e3], '2': [101e3, 112e3]},
                              places=('cross', 'balanced')),
    # every mode the same as printed: nothing beyond noise (slowpath shares
    # apart, 99.991-99.992% against 99.995-99.996%, both 100%)
    'within': lambda d: synth(d, {'0': [100e3, 105e3], '1': [101e3, 110e3], '2': [96e3, 103e3]},
                              places=('cross',), park={'0': 0, '1': 0, '2': 0}, rest=50,
                              counters=lambda m, r: {'free_fastpath': (90 - 9 * r) // (1 + m)}),
    # ops/s apart by range, not by more than local's spread
    'ops-floor': lambda d: synth(d, {'0': [100e3, 105e3], '1': [150e3, 155e3],
                                     '2': [40e3, 45e3]}),
    'one-mode': lambda d: synth(d, {'base': [100e3, 105e3]}),
    'measure-waits': lambda d: synth(d, {'0': [100e3, 105e3], '1': [101e3, 104e3],
                                         '2': [100e3, 103e3]}, counters=measured),
    # a sheaf sweep's 12 placements: rows, then placements given up, the
    # next one left out for the line that says so
    'many': lambda d: synth(d, {'0': [100e3, 105e3], '1': [150e3, 155e3]},
                            places=['%s-sc%d' % (p, c) for p in runs.SCENARIO_ORDER
                                    for c in (60, 120, 240, 480)], lockstat=True),
    # a host, park=0-3, lock_stat and the measurement counters
    'every-mode': lambda d: synth(d, {'0': [100e3, 105e3], '1': [150e3, 155e3],
                                      '2': [101e3, 104e3], '3': [99e3, 102e3]},
                                  places=('cross', 'local', 'balanced'), lockstat=True,
                                  counters=measured, host=True),
    'boots': _boots,
    'workloads': _workloads,
    'min-partial': _min_partial,
    # the real run, its outputs in the order written
    'guest-2x2': lambda d: shutil.copytree(os.path.join(DATA, 'guest-2x2'), d),
}


def outputs(case: str, dst: str) -> Dict[str, str]:
    """CASES[CASE] made in DST, then python3 -m slabpark report DST: the
    texts of its files, stdout, rc and plot.in (gnuplot's input and data;
    gnuplot is not run), DST written DIR"""
    from slabpark import __main__ as cli
    CASES[case](dst)
    plot = []

    def gnuplot(argv, input=None, **kw):
        plot.append(input)
        for path in sorted(set(re.findall(r"'(/[^']*\.dat)'", input))):
            with open(path) as f:
                plot.append('--- %s\n%s' % (os.path.basename(path), f.read()))
        plot[:] = [x.replace(os.path.dirname(path), 'TMP') for x in plot]
        return subprocess.CompletedProcess(argv, 0)
    out = StringIO()
    # the report runs no other command
    with mock.patch.object(shutil, 'which', lambda c: c), \
            mock.patch.object(subprocess, 'run', gnuplot), redirect_stdout(out):
        rc = cli.main(['report', dst])
    got = {'stdout': out.getvalue(), 'rc': str(rc)}
    if plot:
        got['plot.in'] = ''.join(plot)
    for name in os.listdir(dst):
        if name.endswith(('.txt', '.csv', '.json')):
            with open(os.path.join(dst, name)) as f:
                got[name] = f.read()
    return {k: v.replace(dst, 'DIR') for k, v in got.items()}


# beside report.txt and summary.txt
KEEP = {'footprint': ('summary.csv', 'plot.in'), 'plot-modes': ('plot.in',),
        'boots': ('summary-module.csv',), 'workloads': ('summary-workloads.csv',),
        'min-partial': ('summary-min-partial.csv',),
        'guest-2x2': ('summary.csv', 'cross.csv', 'cross.json')}


def refresh() -> None:
    """tests/data/outputs/ anew: PYTHONPATH=tools python3 -c 'from
    slabpark.tests import fixtures; fixtures.refresh()'"""
    shutil.rmtree(os.path.join(DATA, 'outputs'), ignore_errors=True)
    for case in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            got = outputs(case, os.path.join(tmp, case))
        for name in ('report.txt', 'summary.txt') + KEEP.get(case, ()):
            write(os.path.join(DATA, 'outputs', case, name), got[name])
    from slabpark.tests import test_slabstat
    test_slabstat.refresh()
