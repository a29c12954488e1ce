# SPDX-License-Identifier: GPL-2.0
"""The facts of a run for the headers: what ran where.

RESULTS/meta.txt holds them as 'key: value' lines, written when the run
ends (write_meta: the experiments once, make run and HOST=1 by
python3 -m slabpark report --where), so that summary.txt, made from the
directory, names the series and the commit that ran:

  series   the version of patches/0000-cover-letter.patch's subject
           ('RFC PATCH v2')
  project  git describe --always --dirty of the project
  where    'TCG guest, 2 nodes x 2 vCPUs' or 'host, 2 nodes x 8 CPUs, ...'
  host cpu the CPU model of the machine that ran the bench, its CPUs and
           SMT state (never its host name)
  runs     rounds x duration of a run, the placements

The kernel release and the topology come from the run data themselves
(the delta documents' 'kernel', DATA/topology of tools/guest/guest-lib.sh's
topo_write).
"""

import os
import re
import subprocess
import time
from typing import Dict, List, Optional

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

META_ORDER = ('date', 'series', 'project', 'where', 'host cpu', 'runs',
              'lock_stat', 'measure')


def series_version(top: str = TOP) -> str:
    """'RFC PATCH v2' from 'Subject: [RFC PATCH v2 0/6] ...'; '' when the
    cover letter is missing or has no version"""
    path = os.path.join(top, 'patches', '0000-cover-letter.patch')
    try:
        with open(path) as f:
            for line in f:
                if line.startswith('Subject:'):
                    m = re.search(r'\[([^\]]*?)\s*\d+/\d+\]', line)
                    return m.group(1).strip() if m else ''
    except OSError:
        pass
    return ''


def project_commit(top: str = TOP) -> str:
    try:
        return subprocess.run(['git', 'describe', '--always', '--dirty'],
                              cwd=top, check=True, text=True,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def cpu_model(cpuinfo: str = '/proc/cpuinfo') -> str:
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith('model name'):
                    return ' '.join(line.split(':', 1)[1].split())
    except OSError:
        pass
    return ''


def smt_state(sysfs: str = '/sys') -> str:
    """'on', 'off' or 'not supported' (the kernel's smt/control words)"""
    for name in ('active', 'control'):
        try:
            with open(os.path.join(sysfs, 'devices/system/cpu/smt',
                                   name)) as f:
                v = f.read().strip()
        except OSError:
            continue
        if name == 'active':
            return 'on' if v == '1' else 'off'
        return {'notsupported': 'not supported',
                'notimplemented': 'not supported',
                'forceoff': 'off'}.get(v, v)
    return 'unknown'


def host_cpu_line() -> str:
    return '%s, %d CPUs, SMT %s' % (cpu_model() or 'unknown CPU',
                                    os.cpu_count() or 0, smt_state())


def read_pairs(path: str, sep: str = ':') -> Dict[str, str]:
    """the 'KEY<SEP>VALUE' lines of PATH (meta.txt and a run's .results
    'key: value', DATA/topology of guest-lib.sh's topo_write KEY=VALUE),
    both sides stripped; {} for a file that cannot be read"""
    out: Dict[str, str] = {}
    try:
        with open(path) as f:
            for line in f:
                k, s, v = line.partition(sep)
                if s:
                    out[k.strip()] = v.strip()
    except OSError:
        pass
    return out


def read_meta(results: str) -> Dict[str, str]:
    return read_pairs(os.path.join(results, 'meta.txt'))


def write_meta(results: str, where: str, runs: str,
               extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """RESULTS/meta.txt: the facts above, and EXTRA's lines after them"""
    meta = {
        'date': time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()),
        'series': series_version() or 'unknown',
        'project': project_commit(),
        'where': where,
        'host cpu': host_cpu_line(),
        'runs': runs,
    }
    meta.update(extra or {})
    keys = [k for k in META_ORDER if k in meta] + \
        [k for k in meta if k not in META_ORDER]
    with open(os.path.join(results, 'meta.txt'), 'w') as f:
        for k in keys:
            f.write('%s: %s\n' % (k, meta[k]))
    return meta


def topology_lines(topo: Dict[str, str]) -> List[str]:
    """the topology facts in short lines: nodes, sockets, SMT, the pair"""
    if not topo:
        return []
    nodes = topo.get('nodes', '').split()
    cpus = 0
    for n in nodes:
        f = dict(p.partition('=')[::2] for p in n.split(':')[1:])
        c = f.get('cpus', '-')
        if c != '-':
            cpus += sum(int(b) - int(a) + 1 if b else 1 for a, _, b in
                        (r.partition('-') for r in c.split(',')))
    smt = topo.get('smt', '')
    smt_s = 'SMT off' if smt in ('', '1') else 'SMT %s threads/core' % smt
    pair = 'alloc node %s' % topo.get('alloc_node', '?')
    if topo.get('free_node'):
        pair += ', free node %s, distance %s' % (
            topo['free_node'], topo.get('distance') or '?')
    out = ['%d nodes, %s socket(s), %d CPUs online, %s' % (
        len(nodes), topo.get('sockets', '?'), cpus, smt_s),
        '%s; %s threads a side' % (pair, topo.get('threads', '?'))]
    if topo.get('warnings'):
        out.append('warning: ' + topo['warnings'])
    return out
