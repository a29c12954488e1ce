# SPDX-License-Identifier: GPL-2.0
"""make run BASE=1 / WORKLOAD= / MIN_PARTIAL=1: build, boot, report.

tools/run.sh checks the knobs and hands over here (its environment):
the kernels are built by tools/kernel/build-kernel.sh and staged by
vm.stage(), each boot is vm.run() running one guest script, and the
tables are report.report().  With BASE=1 the
boots alternate base, patched, base, ... (BOOTS of each), into
RESULTS/boot<NN>-<kernel>/ (console.log, files/); otherwise one boot into RESULTS/guest/.
"""

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Dict, List

from . import facts, report, summary, vm

# objects a burst frees: above 12 sheaves (2 per CPU + the barn's 10 full)
# of the default capacity of nfs_page_test (60) up to 4x it
FLUSH_INFLIGHT = 4096

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


@dataclass
class Config:
    runs: int
    duration_ms: int
    placements: str
    lockstat: bool
    nodes: int
    cpus_per_node: int
    base: bool
    boots: int
    workload: str
    tasks: str
    min_partial: bool
    modes: str
    patches_none: bool
    flush: bool

    @classmethod
    def from_env(cls, env) -> 'Config':
        return cls(int(env['RUNS']), int(env['DURATION_MS']),
                   env['PLACEMENTS'], env['LOCKSTAT'] == '1',
                   int(env['NODES']), int(env['CPUS_PER_NODE']),
                   env['BASE'] == '1', int(env['BOOTS']),
                   env.get('WORKLOAD', ''), env.get('TASKS', '4 8'),
                   env.get('MIN_PARTIAL', '0') == '1', env.get('MODES', ''),
                   env.get('PATCHES', '') == 'none',
                   env.get('FLUSH', '0') == '1')

    def kernels(self) -> List[str]:
        if self.base:
            return ['base', 'patched']
        return ['base'] if self.patches_none else ['patched']

    def patched_modes(self) -> str:
        return self.modes or ('0 1' if self.base else '')

    def guest_cmd(self, kernel: str, boot: int = 0) -> List[str]:
        """the guest script of a boot; with BASE=1 every other patched
        boot runs its modes in reverse order, so that no mode is always
        the first run of a boot (the first 5 alternating boots, in fixed
        order, put local park=1 at 0.84x base beyond noise, though it runs
        the same code as park=0)"""
        modes = self.patched_modes() if kernel == 'patched' else ''
        if modes and self.base and boot % 2:
            modes = ' '.join(reversed(modes.split()))
        runs = self.runs
        if self.base and kernel == 'base':
            # the same runs at the same places in the boot: each of the
            # patched boot's modes is one more base run
            runs *= len((self.patched_modes() or '0 1 2').split())
        if self.workload:
            # a base boot repeats its run where a patched one runs modes
            if self.base and kernel == 'base':
                modes = ' '.join(['base'] * len(
                    self.patched_modes().split()))
            cmd = ['tools/guest/guest-workloads.sh', self.workload,
                   str(self.runs), str(max(1, self.duration_ms // 1000)),
                   self.tasks]
            return cmd + ([modes] if modes else [])
        if self.min_partial:
            return ['tools/guest/guest-min-partial.sh', str(self.runs),
                    str(self.duration_ms)]
        if self.flush:
            return ['tools/guest/guest-compare.sh', str(runs),
                    str(self.duration_ms), 'local',
                    '1' if self.lockstat else '0', 'sheaf', modes,
                    'free_burst=1 inflight=%d' % FLUSH_INFLIGHT]
        return ['tools/guest/guest-compare.sh', str(runs),
                str(self.duration_ms), self.placements,
                '1' if self.lockstat else '0', '', modes]

    def guest_timeout(self) -> int:
        nmodes = 3
        if self.workload:
            per = len(self.tasks.split()) * nmodes * \
                (max(1, self.duration_ms // 1000) + 4)
        elif self.min_partial:
            per = 6 * (self.duration_ms // 1000 + 4)
        elif self.flush:
            per = 4 * 2 * (self.duration_ms // 1000 + 4)
        else:
            per = len(self.placements.split()) * nmodes * \
                (self.duration_ms // 1000 + 4)
        return self.runs * per + 300


def _out(cmd: List[str], **kw) -> str:
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True,
                          cwd=TOP, **kw).stdout.strip()


def build(kernel: str, cfg: Config) -> str:
    cmd = [os.path.join(TOP, 'tools/kernel/build-kernel.sh')]
    if cfg.lockstat:
        cmd += ['--config', 'lockstat']
    if kernel == 'base':
        cmd += ['--variant', 'base']
    return _out(cmd).splitlines()[-1]


def meta(cfg: Config, builds: Dict[str, str]) -> Dict[str, str]:
    """the facts beyond slabpark.facts' own: what ran, the kernels"""
    what = ('WORKLOAD=%s TASKS="%s"' % (cfg.workload, cfg.tasks)
            if cfg.workload else 'MIN_PARTIAL=1' if cfg.min_partial
            else 'FLUSH=1 (local, free_burst=1 inflight=%d, sheaf sweep)'
            % FLUSH_INFLIGHT if cfg.flush
            else 'module PLACEMENTS="%s"' % cfg.placements)
    out = {'runs': '%d rounds x %d ms, %s%s' % (
        cfg.runs, cfg.duration_ms, what,
        ', %d boots of each kernel alternating' % cfg.boots
        if cfg.base else ''),
        'lock_stat': 'yes' if cfg.lockstat else 'no'}
    for k, b in builds.items():
        out['kernel %s' % k] = os.path.basename(b)
    return out


def main() -> int:
    try:
        return experiment()
    except vm.Error as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1


def experiment() -> int:
    cfg = Config.from_env(os.environ)
    results = os.environ.get('RESULTS_DIR') or os.path.join(
        TOP, 'results', time.strftime('%Y%m%d-%H%M%S'))
    if os.path.isdir(results) and os.listdir(results):
        # an earlier run's boots would join the report
        print('make run: RESULTS_DIR=%s is not empty' % results,
              file=sys.stderr)
        return 1
    os.makedirs(results, exist_ok=True)
    builds = {k: build(k, cfg) for k in cfg.kernels()}
    stages = {k: [vm.stage(b, lambda t: print(t, file=sys.stderr)) + ':.']
              for k, b in builds.items()}
    if cfg.workload == 'mmapaddr':
        sng = vm.stage_stress_ng() + ':stress-ng'
        stages = {k: s + [sng] for k, s in stages.items()}
    m = meta(cfg, builds)
    facts.write_meta(results, 'TCG guest, %d nodes x %d vCPUs' % (
        cfg.nodes, cfg.cpus_per_node), m.pop('runs'), m)
    if cfg.base:
        boots = [(b, k) for b in range(cfg.boots) for k in cfg.kernels()]
        outs = [os.path.join(results, 'boot%02d-%s' % (i + 1, k))
                for i, (_, k) in enumerate(boots)]
    else:
        boots = [(0, cfg.kernels()[0])]
        outs = [os.path.join(results, 'guest')]
    for (b, k), out in zip(boots, outs):
        print('== %s: %s kernel (%s)' % (os.path.basename(out), k,
                                         os.path.basename(builds[k])),
              flush=True)
        cmd = cfg.guest_cmd(k, b)
        rc = vm.run(builds[k], os.path.join(TOP, cmd[0]), cmd[1:], out,
                    stages[k], cfg.nodes, cfg.cpus_per_node,
                    timeout=None if os.environ.get('GUEST_TIMEOUT')
                    else cfg.guest_timeout(),
                    emit=lambda t: print(t, flush=True))
        if rc:
            print('make run: the %s boot %s failed (guest status %d; '
                  'console: %s/console.log)' % (k, out, rc, out),
                  file=sys.stderr)
            return 1
    try:
        text = '\n'.join(report.report(results)) + '\n'
        with open(os.path.join(results, 'report.txt'), 'w') as f:
            f.write(text)
        short = summary.write(results)
    except (FileNotFoundError, KeyError, ValueError) as e:
        print('make run: no report: %s' % e, file=sys.stderr)
        return 1
    # summary.txt on the terminal, report.txt the full record
    sys.stdout.write('\n' + short + '\n')
    print('results: %s (summary.txt, report.txt, summary-*.csv, meta.txt, '
          'the boots\' guest/ directories)' % results)
    return 0
