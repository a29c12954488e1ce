# SPDX-License-Identifier: GPL-2.0
"""What the guest scripts leave, read into Run records (the module runs:
slabpark.record.full_runs).

Layouts (FILES is a guest's returned /slabpark/out, i.e. guest/files):

- module runs (tools/guest/guest-compare.sh):
  FILES/runs/<placement>/park<mode>/<round>.results   key: value
  FILES/runs/<placement>/park<mode>/<round>.json      slabstat delta
  FILES/lockstat/<placement>-park<mode>-<round>.txt   with LOCKSTAT=1
- workload runs (tools/guest/guest-workloads.sh):
  FILES/workloads/<workload>-t<tasks>/park<mode>/<round>.txt
- one boot: RESULTS/guest/files; alternating boots (BASE=1):
  RESULTS/boot<NN>-<kernel>/files (slabpark.vm.run's out)

The group of a run is its mode as printed: 'base' (the unpatched kernel,
mode directory parkbase) or 'park=<mode>'.
"""

import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

# the call sites of &n->list_lock whose waits a report shows
LOCKSTAT_SITES = ('__slab_free', '__refill_objects_node',
                  'get_from_partial_node', 'alloc_from_new_slab')
# the contention points lock_stat keeps per class (LOCKSTAT_POINTS)
LOCKSTAT_POINTS = 4
SCENARIO_ORDER = ('cross', 'local', 'balanced')
WORKLOAD_CACHES = ('maple_node', 'vm_area_struct')
WORKLOAD_COUNTERS = (
    'free_slowpath', 'free_add_partial', 'park_slab', 'alloc_slab',
    'free_slab', 'barn_put_fail', 'sheaf_flush', 'cmpxchg_double_fail',
)


@dataclass
class Run:
    scenario: str           # placement, or <workload>-t<tasks>
    group: str              # 'base' or 'park=<mode>'
    boot: str               # boot directory name, '' for one boot
    round: int
    metrics: Dict[str, float] = field(default_factory=dict)


def group_key(g: str) -> Tuple[int, str]:
    """base first, then the modes; 'park=0 mp=5' before 'park=0 mp=10'"""
    if g == 'base':
        return (0, '')
    mode, _, rest = g.partition(' ')
    return (1, mode + ' ' + rest.rjust(12))


def scenario_key(s: str) -> Tuple[int, str, int]:
    """cross, local, balanced first; then by name, numbers as numbers
    (local-sc60 before local-sc120)"""
    if s in SCENARIO_ORDER:
        return (SCENARIO_ORDER.index(s), '', 0)
    m = re.fullmatch(r'(.*?)(\d+)', s)
    if m:
        return (len(SCENARIO_ORDER), m.group(1), int(m.group(2)))
    return (len(SCENARIO_ORDER), s, 0)


def _num(s: Optional[str]) -> Optional[float]:
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def group_of(mode_dir: str) -> str:
    m = mode_dir[len('park'):]
    return 'base' if m == 'base' else 'park=' + m


def boot_dirs(results: str) -> List[Tuple[str, str]]:
    """(boot name, files dir) of a results directory, in boot order"""
    boots = sorted(d for d in os.listdir(results)
                   if re.fullmatch(r'boot\d+-[a-z]+', d))
    if boots:
        return [(b, os.path.join(results, b, 'files'))
                for b in boots
                if os.path.isdir(os.path.join(results, b, 'files'))]
    one = os.path.join(results, 'guest', 'files')
    return [('', one)] if os.path.isdir(one) else []


def _rounds(d: str, ext: str) -> List[Tuple[int, str]]:
    out = []
    for f in os.listdir(d):
        m = re.fullmatch(r'(\d+)' + re.escape(ext), f)
        if m:
            out.append((int(m.group(1)), os.path.join(d, f)))
    return sorted(out)


Site = Tuple[str, float, str]


def number(path: str, text: str) -> float:
    """TEXT of the file PATH as a number; a ValueError naming PATH"""
    try:
        return float(text)
    except ValueError:
        raise ValueError('%s: %r is not a number' % (path, text)) from None


def read_lockstat(path: str) -> Tuple[Dict[str, str], List[Site]]:
    """one excerpt of tools/report/lockstat-report.sh report: its 'key:
    value' lines, and its call sites as (kind, count, function): kind
    'waiter' for a contention_point, 'holder' for a contending_point"""
    kv: Dict[str, str] = {}
    sites = []
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip('\n').partition(': ')
            kv[k] = v.strip()
            kind = {'contention_point': 'waiter',
                    'contending_point': 'holder'}.get(k)
            w = v.split()
            if kind and len(w) >= 2:
                sites.append((kind, number(path, w[0]),
                              w[1].split('+0x', 1)[0]))
    return kv, sites


def parse_lockstat(path: str) -> Dict[str, float]:
    """contentions, wait time and waits per call site of one excerpt"""
    kv, sites = read_lockstat(path)
    out: Dict[str, float] = {}
    for k in ('contentions', 'acquisitions'):
        if k in kv:
            out['lock_' + k] = number(path, kv[k])
    if 'waittime_total_us' in kv:
        out['lock_wait_ms'] = number(path, kv['waittime_total_us']) / 1000
    points = 0
    for kind, n, fn in sites:
        if kind == 'waiter':
            points += 1
            out['waits_' + fn] = out.get('waits_' + fn, 0) + n
    # lock_stat keeps 4 contention points: a site not among fewer than 4
    # had no waits, one not among 4 is unknown
    if points < LOCKSTAT_POINTS:
        for s in LOCKSTAT_SITES:
            out.setdefault('waits_' + s, 0.0)
    return out


def run_files(dirs: List[Tuple[str, str]], subdir: str, ext: str):
    """(boot, files dir, scenario, mode dir, round, path) of every run file
    FILES/SUBDIR/<scenario>/park<mode>/<round>EXT of DIRS ((boot, FILES)),
    in order; stray files beside the directories are passed over"""
    for boot, files in dirs:
        top = os.path.join(files, subdir)
        scs = sorted(os.listdir(top)) if os.path.isdir(top) else []
        for sc in (s for s in scs if os.path.isdir(os.path.join(top, s))):
            for md in sorted(os.listdir(os.path.join(top, sc))):
                d = os.path.join(top, sc, md)
                for r, path in _rounds(d, ext) if os.path.isdir(d) else []:
                    yield boot, files, sc, md, r, path


def parse_workload(path: str) -> Dict[str, float]:
    before: Dict[str, float] = {}
    after: Dict[str, float] = {}
    out: Dict[str, float] = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == 'result':
                out[w[1]] = float(w[2])
            elif len(w) == 4 and w[0] == 'peak':
                out['%s.peak_slabs' % w[1]] = float(w[3])
            elif len(w) == 4 and w[0] in ('before', 'after') and \
                    _num(w[3]) is not None:
                (before if w[0] == 'before' else after)[w[1] + '.' + w[2]] = \
                    float(w[3])
    for c in WORKLOAD_CACHES:
        for k in WORKLOAD_COUNTERS:
            key = c + '.' + k
            if key in after:
                out[key] = after[key] - before.get(key, 0)
        if c + '.slabs' in after:
            out[c + '.rest_slabs'] = after[c + '.slabs']
    return out


def workload_runs(results: str) -> List[Run]:
    return [Run(sc, group_of(md), boot, r, parse_workload(path))
            for boot, _, sc, md, r, path
            in run_files(boot_dirs(results), 'workloads', '.txt')]


def min_partial_runs(results: str) -> List[Run]:
    """rows of tools/guest/guest-min-partial.sh's minpartial.txt"""
    out = []
    for boot, files in boot_dirs(results):
        path = os.path.join(files, 'minpartial.txt')
        if not os.path.exists(path):
            continue
        cols: List[str] = []
        with open(path) as f:
            for line in f:
                w = line.split()
                if not w or w[0] == '#':
                    continue
                if w[0] == 'round':
                    cols = w
                    continue
                if len(w) != len(cols):
                    raise ValueError('%s: %d fields in a row of %d columns: '
                                     '%s' % (path, len(w), len(cols),
                                             line.strip()))
                row = dict(zip(cols, w))
                group = 'park=%s mp=%s' % (row['mode'], row['min_partial'])
                out.append(Run('cross', group, boot, int(row['round']),
                               {k: float(v) for k, v in row.items()
                                if k not in ('round', 'mode')}))
    return out
