# SPDX-License-Identifier: GPL-2.0
"""What the guest scripts leave, read into Run records.  FILES is
RESULTS/guest/files, RESULTS/boot<NN>-<kernel>/files (BASE=1) or
RESULTS/host (HOST=1):

  FILES/runs/<placement>/park<mode>/<round>.{results,json}  guest-compare.sh
  FILES/lockstat/<placement>-park<mode>-<round>.txt         LOCKSTAT=1
  FILES/workloads/<workload>-t<tasks>/park<mode>/<round>.txt
  FILES/minpartial.txt                                      guest-min-partial.sh

A run's group is 'base' (directory parkbase) or 'park=<mode>'.
"""

import glob
import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from . import facts as F
from . import slabstat
from .stats import Spread

CACHE = 'nfs_page_test'
LATENCY = ('free_lat_p50_ns', 'free_lat_p99_ns', 'alloc_lat_p50_ns', 'alloc_lat_p99_ns')
# the kind of a .results key other than 'result'; run and error: none
RESULT_KIND = {
    **dict.fromkeys(('alloc_node', 'free_node', 'alloc_threads', 'free_threads',
                     'threads_per_cpu', 'inflight', 'batch', 'duration_ms', 'shrink_ms',
                     'free_burst', 'cache_object_size'), 'const'),
    **dict.fromkeys(LATENCY, 'latency'),
    **dict.fromkeys(('shrunk_slabs', 'peak_slabs', 'rest_slabs', 'rest_partial'), 'gauge'),
    **dict.fromkeys(('run', 'error'), None)}
LOCKSTAT_SITES = ('__slab_free', '__refill_objects_node', 'get_from_partial_node',
                  'alloc_from_new_slab')
LOCKSTAT_POINTS = 4     # the contention points lock_stat keeps per class
# /proc/lock_stat (kernel/locking/lockdep_proc.c): a class's lines are
# NAME: and 12 columns; after a dash line its contention points, after
# another its contending points: NAME COUNT [<ADDRESS>] SYMBOL
LOCK_CLASS = '&n->list_lock'
LOCK_HEADER = 'lock_stat version 0.4'
LOCK_HEAD = re.compile(re.escape(LOCK_HEADER) + r'\n-+\n +class name .* holdtime-avg\n-+\n')
LOCK_OFF = '\n*WARNING* lock debugging disabled'
LOCK_SITE = re.compile(r'(.{40}) +(\S+) +\[<[0-9a-f]+>\] +(\S+)')
LOCK_KEYS = ('contentions', 'acquisitions', 'waittime_total_us', 'waittime_avg_us',
             'waittime_max_us')
# the measurement kernel's transitions in __slab_free() (MEASURE=1)
TRANSITIONS = (('full_partial', 'full->partial'), ('full_empty', 'full->empty'),
               ('empty_on', 'partial->empty on list'), ('empty_off', 'partial->empty isolated'))
SCENARIO_ORDER = ('cross', 'local', 'balanced')
WORKLOAD_CACHES = ('maple_node', 'vm_area_struct')
WORKLOAD_COUNTERS = ('free_slowpath', 'free_add_partial', 'park_slab', 'alloc_slab', 'free_slab',
                     'barn_put_fail', 'sheaf_flush', 'cmpxchg_double_fail')

Site = Tuple[str, float, str]   # 'waiter' or 'holder', count, function


@dataclass
class Run:
    scenario: str           # placement, or <workload>-t<tasks>
    group: str
    boot: str               # boot directory name, '' for one boot
    round: int
    metrics: Dict[str, float] = field(default_factory=dict)
    # a module run's: each metric's kind (counter, gauge, const, result,
    # latency, lockstat, derived); lock: LOCK_KEYS, None without a dump,
    # {} for one without LOCK_CLASS
    kind: Dict[str, str] = field(default_factory=dict)
    raw: Dict[str, str] = field(default_factory=dict)
    kernel: str = ''
    lock: Optional[Dict[str, float]] = None
    sites: List[Site] = field(default_factory=list)

    @property
    def mode(self) -> str:
        return self.group[len('park='):] if self.group != 'base' else 'base'

    def of(self, kind: str) -> Dict[str, float]:
        return {k: self.metrics[k] for k, t in self.kind.items() if t == kind}

    def add(self, kind: str, values: Dict[str, float]) -> None:
        for k in values:
            if self.kind.get(k, kind) != kind:
                raise ValueError('%s %s round %d: %s is a %s and a %s' % (
                    self.scenario, self.group, self.round, k, self.kind[k], kind))
        self.metrics.update(values)
        self.kind.update(dict.fromkeys(values, kind))


def group_key(g: str) -> Tuple[int, str]:
    """base first; 'park=0 mp=5' before 'park=0 mp=10'"""
    mode, _, rest = g.partition(' ')
    return (0, '') if g == 'base' else (1, mode + ' ' + rest.rjust(12))


def scenario_key(s: str) -> Tuple[int, str, int]:
    """SCENARIO_ORDER, then by name, numbers as numbers"""
    if s in SCENARIO_ORDER:
        return (SCENARIO_ORDER.index(s), '', 0)
    m = re.fullmatch(r'(.*?)(\d+)', s)
    return (len(SCENARIO_ORDER),) + ((m.group(1), int(m.group(2))) if m else (s, 0))


def scenarios(runs) -> List[str]:
    return sorted({r.scenario for r in runs}, key=scenario_key)


def groups(runs, sc: Optional[str] = None) -> List[str]:
    return sorted({r.group for r in runs if sc is None or r.scenario == sc}, key=group_key)


def spreads(runs, keys) -> Dict[Tuple[str, str, str], Spread]:
    vals: Dict[Tuple[str, str, str], List[float]] = {}
    for r in runs:
        for k in keys:
            if k in r.metrics:
                vals.setdefault((r.scenario, r.group, k), []).append(r.metrics[k])
    return {k: Spread.of(v) for k, v in vals.items()}


def num(s: Optional[str], path: str = '') -> Optional[float]:
    """None for no number; with PATH a ValueError that names it"""
    try:
        return float(s)
    except (TypeError, ValueError):
        if path:
            raise ValueError('%s: %r is not a number' % (path, s))
        return None


def group_of(mode_dir: str) -> str:
    m = mode_dir[len('park'):]
    return 'base' if m == 'base' else 'park=' + m


def data_dirs(results: str) -> List[Tuple[str, str]]:
    """(boot name, FILES) in boot order"""
    host = os.path.join(results, 'host')
    if os.path.isdir(os.path.join(host, 'runs')):
        return [('', host)]
    boots = sorted(d for d in os.listdir(results) if re.fullmatch(r'boot\d+-[a-z]+', d))
    one = os.path.join(results, 'guest', 'files')
    if boots and os.path.isdir(one):
        raise ValueError('%s: both %s/ and guest/files: the runs of two make runs in one '
                         'directory' % (results, boots[0]))
    if boots:
        return [(b, os.path.join(results, b, 'files')) for b in boots
                if os.path.isdir(os.path.join(results, b, 'files'))]
    return [('', one)] if os.path.isdir(one) else []


def run_files(results: str, subdir: str, ext: str):
    """(boot, FILES, scenario, mode dir, round, path) of each
    FILES/SUBDIR/<scenario>/park<mode>/<round>EXT, in order"""
    for boot, files in data_dirs(results):
        found = []
        for path in glob.glob(os.path.join(glob.escape(files), subdir, '*', '*', '*' + ext)):
            sc, md, f = path.split(os.sep)[-3:]
            if re.fullmatch(r'\d+' + re.escape(ext), f):
                found.append((sc, md, int(f[:-len(ext)]), path))
        for sc, md, r, path in sorted(found):
            yield boot, files, sc, md, r, path


def lock_class(name: str) -> str:
    """without its #version, /subclass and a rwlock's -W or -R"""
    return re.fullmatch(r'\s*(.*?)(#\d+)?(/\d+)?(-[WR])?', name)[1]


def add_lockstat(r: Run, path: str) -> None:
    """LOCK_CLASS's LOCK_KEYS (summed over its lines), call sites, and
    per-site waits as metrics.  An empty dump (a failed cat) adds nothing;
    a cut one, or one of lock debugging disabled (figures of part of the
    run), is a ValueError.  A dump cut after a line's end is not told
    from a whole one"""
    with open(path) as f:
        text = f.read()
    if not text:
        return
    if text.startswith(LOCK_HEADER + LOCK_OFF):
        raise ValueError('%s: lock debugging disabled (a lockdep warning): lock_stat stopped '
                         'counting in the run' % path)
    if not LOCK_HEAD.match(text) or not text.endswith('\n'):
        raise ValueError('%s: not a whole %s dump' % (path, LOCK_HEADER))
    nums = dict.fromkeys(LOCK_KEYS, 0.0)
    dashes = None   # the dash lines since a line of the class, else None
    seen = False
    for line in text.splitlines():
        site = LOCK_SITE.match(line)
        if re.fullmatch(r' *-+', line):
            dashes = None if dashes is None else dashes + 1
        elif site:
            if dashes is not None and lock_class(site[1]) == LOCK_CLASS:
                r.sites.append(('waiter' if dashes == 1 else 'holder', num(site[2], path),
                                site[3].split('+0x', 1)[0]))
        else:
            name, colon, cols = line.rpartition(':')
            dashes = 0 if colon and lock_class(name) == LOCK_CLASS else None
            if dashes is not None:
                c = cols.split()
                if len(c) != 12:
                    raise ValueError('%s: a %s line of %d columns, not 12: %r' % (
                        path, LOCK_CLASS, len(c), line))
                seen = True
                con, top, total, acq = (num(c[i], path) for i in (1, 3, 4, 7))
                nums['contentions'] += con
                nums['acquisitions'] += acq
                nums['waittime_total_us'] += total
                nums['waittime_max_us'] = max(nums['waittime_max_us'], top)
    if nums['contentions']:
        nums['waittime_avg_us'] = nums['waittime_total_us'] / nums['contentions']
    r.lock = nums if seen else {}
    if not seen:
        return
    m = {'lock_contentions': nums['contentions'], 'lock_acquisitions': nums['acquisitions'],
         'lock_wait_ms': nums['waittime_total_us'] / 1000}
    waiters = [(n, fn) for kind, n, fn in r.sites if kind == 'waiter']
    for n, fn in waiters:
        m['waits_' + fn] = m.get('waits_' + fn, 0) + n
    # a site not among fewer than 4 points had no waits; among 4, unknown
    if len(waiters) < LOCKSTAT_POINTS:
        for s in LOCKSTAT_SITES:
            m.setdefault('waits_' + s, 0.0)
    r.add('lockstat', m)


def derive(r: Run) -> None:
    """slabstat's derived rows, the waits in __slab_free(), the slab
    churn per million allocations"""
    m, d = r.metrics, {}
    for i, row in enumerate(slabstat.DERIVED):
        st, v = slabstat.derive(i, m.get)
        if st == slabstat.OK:
            d[row[0]] = v
    if r.kind.get('free_add_partial') == 'counter' and 'park_ratio' not in d:
        d['park_ratio'] = 0.0   # a kernel without parking parks nothing
    waits = ['free_wait_' + t for t, _ in TRANSITIONS]
    if 'waits___slab_free' in m:
        d['waits_slab_free'] = m['waits___slab_free']
    elif all(r.kind.get(k) == 'counter' for k in waits):
        d['waits_slab_free'] = sum(m[k] for k in waits)
    if 'slab_churn' in m and m.get('allocs'):
        d['churn_per_m'] = m['slab_churn'] * 1e6 / m['allocs']
    r.add('derived', d)


def module_run(boot: str, files: str, sc: str, md: str, rnd: int, path: str) -> Run:
    r = Run(sc, group_of(md), boot, rnd, raw=F.read_pairs(path))
    doc_path = path[:-len('.results')] + '.json'
    res: Dict[str, float] = {}
    if os.path.exists(doc_path):
        with open(doc_path) as f:
            doc = json.load(f)
        r.kernel = doc.get('kernel', '')
        caches = doc.get('caches', {})
        cache = CACHE if CACHE in caches else next(iter(caches), None)
        for k, m in caches.get(cache, {}).get('metrics', {}).items():
            if m.get('value') is not None:
                t = m.get('type')
                r.add(t if t in ('counter', 'gauge') else 'const', {k: float(m['value'])})
        res = {k: float(v) for k, v in doc.get('results', {}).items()
               if isinstance(v, (int, float))}
    for k, v in r.raw.items():
        if num(v) is not None:
            res.setdefault(k, num(v))
    for k, v in res.items():
        kind = RESULT_KIND.get(k, 'result')
        if kind:
            r.add(kind, {k: v})
    ls = os.path.join(files, 'lockstat', '%s-%s-%d.txt' % (sc, md, rnd))
    if os.path.exists(ls):
        add_lockstat(r, ls)
    derive(r)
    return r


def module_runs(results: str) -> List[Run]:
    """first the delta documents of runs that have only their dumps"""
    for _, files in data_dirs(results):
        slabstat.write_deltas(files)
    return [module_run(*f) for f in run_files(results, 'runs', '.results')]


def parse_workload(path: str) -> Dict[str, float]:
    """results, the caches' counter deltas, slabs at the peak and at
    rest, park ratio"""
    seen: Dict[str, Dict[str, float]] = {'before': {}, 'after': {}}
    out: Dict[str, float] = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == 'result':
                out[w[1]] = float(w[2])
            elif len(w) == 4 and w[0] == 'peak':
                out['%s.peak_slabs' % w[1]] = float(w[3])
            elif len(w) == 4 and w[0] in seen and num(w[3]) is not None:
                seen[w[0]][w[1] + '.' + w[2]] = float(w[3])
    before, after = seen['before'], seen['after']
    for c in WORKLOAD_CACHES:
        for k in WORKLOAD_COUNTERS:
            key = c + '.' + k
            if key in after:
                out[key] = after[key] - before.get(key, 0)
        if c + '.slabs' in after:
            out[c + '.rest_slabs'] = after[c + '.slabs']
        fap = out.get(c + '.free_add_partial')
        if fap is not None:
            out[c + '.park_ratio'] = 100.0 * out.get(c + '.park_slab', 0) / fap if fap else 0.0
    return out


def workload_runs(results: str) -> List[Run]:
    return [Run(sc, group_of(md), boot, r, parse_workload(path))
            for boot, _, sc, md, r, path in run_files(results, 'workloads', '.txt')]


def min_partial_runs(results: str) -> List[Run]:
    """minpartial.txt's rows, with churn per million allocations and the
    mean of the parked samples"""
    out = []
    for boot, files in data_dirs(results):
        path = os.path.join(files, 'minpartial.txt')
        if not os.path.exists(path):
            continue
        cols: List[str] = []
        # line by line: a bad row is refused before a later line fails to decode
        with open(path) as f:
            for line in f:
                w = line.split()
                if w[:1] == ['round']:
                    cols = w
                elif w and w[0] != '#':
                    if len(w) != len(cols):
                        raise ValueError('%s: %d fields in a row of %d columns: %s' % (
                            path, len(w), len(cols), line.strip()))
                    row = dict(zip(cols, w))
                    m = {k: float(v) for k, v in row.items() if k not in ('round', 'mode')}
                    if m.get('allocs'):
                        m['churn_per_m'] = m.get('churn', 0) * 1e6 / m['allocs']
                    if m.get('parked_samples'):
                        m['parked_mean'] = m.get('parked_sum', 0) / m['parked_samples']
                    out.append(Run('cross', 'park=%s mp=%s' % (row['mode'], row['min_partial']),
                                   boot, int(row['round']), m))
    return out
