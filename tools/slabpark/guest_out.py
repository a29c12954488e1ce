# SPDX-License-Identifier: GPL-2.0
"""make check's host side of the guest suites that leave files to judge
(guest-check.sh's /slabpark/out, OUT/files here), a KTAP subtest
'<suite>-host' each: host-mode's report of make run HOST=1's short run,
made here as a tester without python3 on the box would; slab-window's
per-node split of a cross run's counters."""

import os
import re
import sys
from typing import Callable, Dict, List, Tuple

from . import config, slabstat

CACHE = 'nfs_page_test'

# make run HOST=1 in the guest (guest-check.sh's hm_run: DIR/NAME.out,
# .err, .rc) of each suite (topology: either kernel): (NAME, refused, a
# line's regexp); a refusal exits non-zero, that line alone on stderr and
# nothing on stdout; else the exit status is 0, the line in either
RUN = ('run', False, r'^slabpark: no python3 here: .*--report')
HOST_RUNS = {
    ('host-mode', 'patched'): (
        ('check-only', False, '^slabpark: prerequisites ok: 2 nodes, SLUB counters, park switch'),
        ('loaded', True, '^slabpark: error: slub_stress is already loaded'), RUN),
    ('host-mode', 'base'): (
        ('unpatched', True, '^slabpark: error: kernel .* has no park switch .*unpatched.*'
         'HOST_BASE_ONLY=1'), RUN),
    ('topology', None): (
        ('check-only', False, '^slabpark: prerequisites ok: 4 nodes, .*nodes 0 -> 2, 1 threads'),
        ('free3', True, '^slabpark: error: FREE_NODE=3: node 3 has no online CPUs')),
}

# of host-mode's run (RUNS=1 DURATION_MS=1000, PLACEMENTS "cross local",
# base: "cross"): the raw runs of (placements, modes), non-empty files,
# cross.csv's groups, report.txt lines (regexps), summary.csv line starts
HOST_MODE_REPORT = {
    'patched': {
        'runs': (('cross', 'local'), ('0', '1', '2')),
        'files': ('report.txt', 'summary.txt', 'cross.csv', 'cross.json',
                  'local.csv', 'local.json', 'summary.csv',
                  'host/runs/cross/park0/1.json',
                  'host/runs/cross/park1/1.json',
                  'host/runs/cross/park2/1.json'),
        'csv_groups': 'metric,off,on,always,kind',
        'report': (r'^== noise floor \(2 nodes x 2 CPUs, ',
                   r'^== placement cross: park=0 1 runs, park=1 1 runs, '
                   r'park=2 1 runs of 1000 ms$',
                   r'^  park ratio ', r'^cross/local ratio ', r'^results: '),
        'summary': ('cross,0,1,', 'cross,1,1,', 'cross,2,1,'),
    },
    'base': {
        'runs': (('cross',), ('base',)),
        'files': ('report.txt', 'summary.txt', 'cross.csv', 'cross.json',
                  'summary.csv', 'host/runs/cross/parkbase/1.json'),
        'csv_groups': 'metric,base,kind',
        'report': (r"^modes \(the cache's debugfs park switch\): base kernel$",
                   r'^== placement cross: base 1 runs of 1000 ms$',
                   r'^results: '),
        'summary': ('cross,base,1,',),
    },
}

Check = Tuple[bool, str, str]   # (ok, name, what was found when not ok)


def _read(path: str) -> str:
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def host_runs(d: str, suite: str, kernel: str) -> List[Check]:
    out = []
    for name, refused, rx in HOST_RUNS.get((suite, kernel)) or HOST_RUNS[(suite, None)]:
        rc, so, se = (_read(os.path.join(d, name + x)) for x in ('.rc', '.out', '.err'))
        rc = rc.strip() or '-'
        said = re.search(rx, se if refused else so + se, re.M) is not None
        ok = rc not in ('-', '0') and said and se.count('\n') == 1 and not so if refused \
            else rc == '0' and said
        out.append((ok, 'make run HOST=1 %s: %s /%s/' % (
            name, 'refused with' if refused else 'exit status 0, said', rx),
            'exit status %s, stdout %r, stderr %r' % (rc, so[-2000:], se[-2000:])))
    return out


def report_checks(results: str, want: Dict) -> List[Check]:
    out = []
    places, modes = want['runs']
    files = ['host/compare.log', 'host/knobs'] + [
        'host/runs/%s/park%s/1.%s' % (p, m, f) for p in places for m in modes
        for f in ('before.dump', 'after.dump', 'results')] + list(want['files'])
    for f in files:
        p = os.path.join(results, f)
        out.append((os.path.isfile(p) and os.path.getsize(p) > 0,
                    'report file ' + f, 'missing or empty'))
    csv = _read(os.path.join(results, 'cross.csv')).split('\n')
    out.append((csv[0].startswith(want['csv_groups'] + ','),
                'cross.csv groups ' + want['csv_groups'], csv[0]))
    # the module's results reached the after dumps (@result lines)
    out.append((any(re.match(r'ops_per_sec,\d', r) for r in csv),
                'cross.csv has the runs\' ops_per_sec', 'no such row'))
    rep = _read(os.path.join(results, 'report.txt'))
    for rx in want['report']:
        out.append((re.search(rx, rep, re.M) is not None,
                    'report.txt has /%s/' % rx, 'no such line'))
    rows = _read(os.path.join(results, 'summary.csv')).split('\n')
    for s in want['summary']:
        out.append((any(r.startswith(s) for r in rows),
                    'summary.csv has a row %s...' % s, 'no such row'))
    return out


def window_checks(before: str, after: str) -> List[Check]:
    """remote frees go to __slab_free(): the free slowpath on node 1,
    where the freers are"""
    d = slabstat.compute(slabstat.load_snapshot(before),
                         slabstat.load_snapshot(after))
    cd = [c for c in d.c if c.name == CACHE]
    fs = [m for m in cd[0].m if m.name == 'free_slowpath'] if cd else []
    if not fs or d.nnodes < 2:
        return [(False, 'free_slowpath of %s on 2 nodes' % CACHE,
                 '%d nodes, caches %s' % (d.nnodes,
                                          [c.name for c in d.c]))]
    m = fs[0]
    n0, n1 = m.node[0], m.node[1]
    split = 'delta %d, node0 %d, node1 %d' % (m.delta, n0, n1)
    return [
        (m.delta > 0, 'free_slowpath delta is non-zero', split),
        (n1 > 0, 'per-node split: node-1 free_slowpath is non-zero '
         '(freers on node 1)', split),
        (n0 + n1 == m.delta, 'per-node split adds up to the delta', split),
        (m.delta > 0 and n1 * 100 >= 90 * m.delta,
         'per-node split: >= 90% of free_slowpath on node 1', split),
        (0 in d.idle_pct and 1 in d.idle_pct,
         'per-node %idle for node 0 and node 1',
         'idle %s' % sorted(d.idle_pct.items())),
    ]


def host_mode(ctx, files: str, kernel: str) -> List[Check]:
    runs = host_runs(os.path.join(files, 'host-mode'), 'host-mode', kernel)
    results = os.path.join(files, 'host-mode', 'results')
    if not os.path.isfile(os.path.join(results, 'host', 'knobs')):
        return runs + [(False, 'host-mode left its runs', 'no %s/host/knobs' % results)]
    rc = ctx.run([sys.executable, '-m', 'slabpark', 'run', '--report',
                  results], env={'PYTHONPATH': os.path.join(config.TOP, 'tools')})
    return runs + [(rc == 0, 'python3 -m slabpark run --report exits 0',
                    'status %d' % rc)] + report_checks(results, HOST_MODE_REPORT[kernel])


def slab_window(ctx, files: str, kernel: str) -> List[Check]:
    d = os.path.join(files, 'slab-window')
    try:
        return window_checks(os.path.join(d, 'before.dump'),
                             os.path.join(d, 'after.dump'))
    except slabstat.Error as e:
        return [(False, 'the window dumps', str(e))]


SUITE_CHECKS: Dict[str, Callable] = {
    'host-mode': host_mode,
    'slab-window': slab_window,
}


def check(ctx, files: str, kernel: str, suites) -> bool:
    """all passed"""
    ok = True
    for s in suites:
        if s not in SUITE_CHECKS:
            continue
        with ctx.subtest(s + '-host') as st:
            for good, name, found in SUITE_CHECKS[s](ctx, files, kernel):
                if not good:
                    ctx.say('# %s: %s' % (name, found))
                st.result(good, name)
        ok &= st.ok
    return ok
