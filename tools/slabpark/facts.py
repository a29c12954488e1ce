# SPDX-License-Identifier: GPL-2.0
"""What ran where, for the headers: RESULTS/meta.txt ('key: value'
lines; never the host name) and DATA/topology (guest-lib.sh's
topo_write)."""

import os
import re
import subprocess
import time
from typing import Dict, List, Optional

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_pairs(path: str, sep: str = ':') -> Dict[str, str]:
    """{} for a file that cannot be read"""
    try:
        with open(path) as f:
            return {k.strip(): v.strip() for k, s, v in (line.partition(sep) for line in f) if s}
    except OSError:
        return {}


def read_meta(results: str) -> Dict[str, str]:
    return read_pairs(os.path.join(results, 'meta.txt'))


def _first(path: str, pattern: str) -> str:
    try:
        with open(path) as f:
            m = re.search(pattern, f.read(), re.M)
    except OSError:
        return ''
    return m.group(1).strip() if m else ''


def _smt(sysfs: str = '/sys/devices/system/cpu/smt') -> str:
    try:
        with open(os.path.join(sysfs, 'active')) as f:
            return 'on' if f.read().strip() == '1' else 'off'
    except OSError:
        v = _first(os.path.join(sysfs, 'control'), r'(.+)') or 'unknown'
    return {'notsupported': 'not supported', 'notimplemented': 'not supported',
            'forceoff': 'off'}.get(v, v)


def write_meta(results: str, where: str, runs: str,
               extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    try:
        project = subprocess.run(['git', 'describe', '--always', '--dirty'], cwd=TOP, check=True,
                                 text=True, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        project = 'unknown'
    cpu = _first('/proc/cpuinfo', r'^model name\s*:(.*)$')
    meta = {
        'date': time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()),
        'series': _first(os.path.join(TOP, 'patches', '0000-cover-letter.patch'),
                         r'^Subject:.*?\[([^\]]*?)\s*\d+/\d+\]') or 'unknown',
        'project': project,
        'where': where,
        'host cpu': '%s, %d CPUs, SMT %s' % (' '.join(cpu.split()) or 'unknown CPU',
                                             os.cpu_count() or 0, _smt()),
        'runs': runs,
    }
    # lock_stat first of EXTRA, before the kernels
    meta.update(sorted((extra or {}).items(), key=lambda kv: kv[0] != 'lock_stat'))
    with open(os.path.join(results, 'meta.txt'), 'w') as f:
        f.writelines('%s: %s\n' % kv for kv in meta.items())
    return meta


def topology_lines(topo: Dict[str, str]) -> List[str]:
    if not topo:
        return []
    nodes = topo.get('nodes', '').split()
    cpus = 0
    for n in nodes:
        c = dict(p.partition('=')[::2] for p in n.split(':')[1:]).get('cpus', '-')
        if c != '-':
            cpus += sum(int(b) - int(a) + 1 if b else 1
                        for a, _, b in (r.partition('-') for r in c.split(',')))
    smt = topo.get('smt', '')
    pair = 'alloc node %s' % topo.get('alloc_node', '?')
    if topo.get('free_node'):
        pair += ', free node %s, distance %s' % (topo['free_node'], topo.get('distance') or '?')
    out = ['%d nodes, %s socket(s), %d CPUs online, %s' % (
        len(nodes), topo.get('sockets', '?'), cpus,
        'SMT off' if smt in ('', '1') else 'SMT %s threads/core' % smt),
        '%s; %s threads a side' % (pair, topo.get('threads', '?'))]
    if topo.get('warnings'):
        out.append('warning: ' + topo['warnings'])
    return out
