# SPDX-License-Identifier: GPL-2.0
"""Results directories in the layout the guest scripts leave, for the
tests of slabpark.summary and slabpark.record.

- copy_real(name, dst): one of the trimmed real results directories under
  tests/data/ (see tests/data/README)
- synth(dst, ...): a module comparison with chosen ops/s and park counts,
  in the guest layout (RESULTS/guest/files) or HOST=1's (RESULTS/host)
"""

import json
import os
import shutil
from typing import Dict, Optional, Sequence

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')

GUEST_TOPOLOGY = """cpu_model=QEMU Virtual CPU version 2.5+
sockets=1
smt=1
nodes=0:cpus=0,1:mem=normal:socket=0 1:cpus=2,3:mem=normal:socket=0
alloc_node=0
free_node=1
alloc_cpus=0,1
free_cpus=2,3
distance=20
distance_table=10 20;20 10
threads=2
local_threads=1
local_placement=node 0
warnings=
"""

HOST_TOPOLOGY = """cpu_model=Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz
sockets=2
smt=2
nodes=0:cpus=0-31,64-95:mem=normal:socket=0 1:cpus=32-63,96-127:mem=normal:socket=1
alloc_node=0
free_node=1
alloc_cpus=0-31,64-95
free_cpus=32-63,96-127
distance=20
distance_table=10 20;20 10
threads=64
local_threads=32
local_placement=node 0
warnings=
"""


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def copy_real(name: str, dst: str) -> str:
    """tests/data/NAME copied to DST/NAME (the tests write into it)"""
    out = os.path.join(dst, name)
    shutil.copytree(os.path.join(DATA, name), out)
    return out


def results_text(place: str, rnd: int, ops: float, peak: int,
                 rest: int) -> str:
    return ''.join('%s: %s\n' % kv for kv in (
        ('run', rnd), ('state', 'done'), ('error', 0),
        ('placement', place), ('alloc_node', 0), ('free_node', 1),
        ('alloc_threads', 2), ('free_threads', 2), ('threads_per_cpu', 1),
        ('inflight', 256), ('batch', 16), ('duration_ms', 3000),
        ('shrink_ms', 0), ('free_burst', 0), ('elapsed_ms', 3001),
        ('allocs', int(ops * 3)), ('frees', int(ops * 3)),
        ('ops_per_sec', int(ops)), ('remote_frees', 5),
        ('remote_free_pct', '99.50'), ('alloc_failures', 0),
        ('shrinks', 0), ('free_lat_samples', 100),
        ('free_lat_p50_ns', 512), ('free_lat_p99_ns', 2048),
        ('free_lat_max_ns', 90000), ('free_lat_hist', '1 2 3'),
        ('alloc_lat_samples', 100), ('alloc_lat_p50_ns', 256),
        ('alloc_lat_p99_ns', 4096), ('alloc_lat_max_ns', 80000),
        ('cache_name', 'nfs_page_test'), ('cache_object_size', 64),
        ('shrunk_slabs', 10), ('peak_slabs', peak), ('rest_slabs', rest),
        ('rest_partial', 4), ('slab_churn', 300)))


def delta_doc(mode: str, park: float, fap: float = 50000,
              slow: float = 900000, fast: float = 1000,
              extra: Optional[Dict[str, float]] = None) -> dict:
    mets = {
        'free_fastpath': ('counter', fast), 'free_slowpath': ('counter', slow),
        'free_add_partial': ('counter', fap), 'park_slab': ('counter', park),
        'unpark_slab': ('counter', park), 'alloc_slab': ('counter', 200),
        'free_slab': ('counter', 100), 'sheaf_flush': ('counter', 6000),
        'barn_put_fail': ('counter', 90), 'order_fallback': ('counter', 0),
        'slabs': ('gauge', 100), 'objects': ('gauge', 5000),
        'partial': ('gauge', 4), 'parked': ('gauge', 0),
        'object_size': ('fact', 64), 'order': ('fact', 0),
        'sheaf_capacity': ('fact', 60), 'min_partial': ('fact', 5),
        'park': ('fact', int(mode) if mode.isdigit() else 0),
        'objs_per_slab': ('fact', 64)}
    for k, v in (extra or {}).items():
        mets[k] = ('counter', v)
    return {'slabstat': 'delta', 'version': 1, 'kernel': '7.3.4-slabpark',
            'caches': {'nfs_page_test': {'metrics': {
                k: {'type': t, 'before': 0, 'after': v, 'delta': v,
                    'value': v} for k, (t, v) in mets.items()}}},
            'results': {}}


def synth(dst: str, ops: Dict[str, Sequence[float]],
          places: Sequence[str] = ('cross', 'local'), host: bool = False,
          lockstat: bool = False, park: Optional[Dict[str, float]] = None,
          measure: bool = False) -> str:
    """a module comparison: OPS maps a mode ('0', '1', '2') to the ops/s
    of its rounds (every placement the same); park_slab per mode from
    PARK (default 0, 20000, 50000)"""
    park = park or {'0': 0, '1': 20000, '2': 50000, '3': 50000}
    files = os.path.join(dst, 'host') if host else \
        os.path.join(dst, 'guest', 'files')
    write(os.path.join(files, 'topology'),
          HOST_TOPOLOGY if host else GUEST_TOPOLOGY)
    write(os.path.join(dst, 'meta.txt'),
          'series: RFC PATCH v2\nproject: 0123abc\nwhere: %s\n'
          'host cpu: AMD EPYC 7B13, 2 CPUs, SMT off\n'
          'runs: %d x 3000 ms per placement and mode\n' % (
              'host, 2 nodes x 64 CPUs, nodes 0 -> 1' if host
              else 'TCG guest, 2 nodes x 2 vCPUs',
              len(next(iter(ops.values())))))
    for p in places:
        for m, rounds in ops.items():
            d = os.path.join(files, 'runs', p, 'park' + m)
            mi = int(m) if m.isdigit() else 0
            for r, o in enumerate(rounds, 1):
                pk = park.get(m, 0) if p != 'local' else 0
                write(os.path.join(d, '%d.results' % r),
                      results_text(p, r, o, 400 + r, 100 - 20 * mi + r))
                extra = None
                if measure:
                    extra = {'free_wait_full_partial': 300 - 100 * mi,
                             'free_wait_full_empty': 10,
                             'free_wait_empty_on': 5,
                             'free_wait_empty_off': 0}
                write(os.path.join(d, '%d.json' % r),
                      json.dumps(delta_doc(m, pk, extra=extra)))
                if lockstat:
                    write(os.path.join(files, 'lockstat',
                                       '%s-park%s-%d.txt' % (p, m, r)),
                          'class: &n->list_lock\ncontentions: %d\n'
                          'acquisitions: 90000\nwaittime_total_us: 2500.0\n'
                          'contention_point: %d __slab_free+0xb3/0x530\n'
                          'contention_point: 7 __refill_objects_node+0xad'
                          '/0x860\n' % (600 - 100 * mi + r,
                                        500 - 200 * mi + r))
    return dst


def trim(src: str, dst: str) -> None:
    """a real results directory SRC made into a fixture DST: meta.txt,
    report.txt, summary.txt, summary.csv, guest/files/topology and the
    runs, each delta document cut to what the reports read (kernel,
    type/before/after/delta/value of each metric of the cache, the
    results); the per-CPU and per-node parts go.  Refresh tests/data/
    with: PYTHONPATH=tools python3 -c 'from slabpark.tests import
    fixtures; fixtures.trim("results/<date>-<time>",
    "tools/slabpark/tests/data/guest-2x2")'"""
    keep = ('type', 'before', 'after', 'delta', 'value')
    for name in ('meta.txt', 'report.txt', 'summary.txt', 'summary.csv'):
        if os.path.exists(os.path.join(src, name)):
            os.makedirs(dst, exist_ok=True)
            shutil.copy(os.path.join(src, name), os.path.join(dst, name))
    for root, _, names in os.walk(os.path.join(src, 'guest', 'files')):
        rel = os.path.relpath(root, src)
        for n in names:
            path = os.path.join(root, n)
            out = os.path.join(dst, rel, n)
            if n == 'topology' or n.endswith('.results') or \
                    rel.endswith('lockstat'):
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copy(path, out)
            elif n.endswith('.json') and '/runs/' in path:
                with open(path) as f:
                    doc = json.load(f)
                doc = {'slabstat': doc.get('slabstat'),
                       'kernel': doc.get('kernel'),
                       'caches': {c: {'metrics': {
                           k: {x: m[x] for x in keep if x in m}
                           for k, m in v.get('metrics', {}).items()}}
                           for c, v in doc.get('caches', {}).items()},
                       'results': doc.get('results', {})}
                write(out, json.dumps(doc, sort_keys=True) + "\n")
