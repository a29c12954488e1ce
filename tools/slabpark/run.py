# SPDX-License-Identifier: GPL-2.0
"""make run: the knobs (slabpark.config), the build, the boots, the report.

    python3 -m slabpark run                 make run
    HOST=1 python3 -m slabpark run [--check-only]
                                            make run HOST=1: tools/run-host.sh
    python3 -m slabpark run --report DIR    the report of make run HOST=1's
                                            runs in DIR/host (from a box
                                            without python3)

The knobs are checked before anything is built (one line "slabpark:
error: NAME=VALUE: why", exit status 2).  HOST=1 hands over to
tools/run-host.sh with the knobs resolved.  Otherwise the build
dependencies (slabpark.deps), the kernels (tools/kernel/build-kernel.sh),
and the boots (guest(): slabpark.vm's stage and run): the
module comparison (tools/guest/guest-compare.sh) into RESULTS/guest/, or
an experiment, BASE=1 (alternating boots base, patched, base, ...,
BOOTS of each, into RESULTS/boot<NN>-<kernel>/), WORKLOAD=, MIN_PARTIAL=1
or FLUSH=1.  Then report.txt, summary.txt (printed) and the tables.
"""

import os
import subprocess
import sys
from typing import Dict, List

from . import check, comparison, config, deps, facts, report, summary, vm

# objects a burst frees: above 12 sheaves (2 per CPU + the barn's 10 full)
# of the default capacity of nfs_page_test (60) up to 4x it
FLUSH_INFLIGHT = 4096
TOP = config.TOP
# what a HOST=1 run keeps in RESULTS/host/knobs (tools/run-host.sh)
HOST_KNOBS = ('RUNS', 'DURATION_MS', 'PLACEMENTS', 'LOCKSTAT', 'MEASURE',
              'SWEEP')


class Failed(Exception):
    """A step of the run failed (exit status 1)."""


def kernels(cfg) -> List[str]:
    if cfg.BASE:
        return ['base', 'patched']
    return ['base'] if cfg.PATCHES else ['patched']


def patched_modes(cfg) -> str:
    return cfg.env['MODES'] or ('0 1' if cfg.BASE else '')


def guest_cmd(cfg, kernel: str, boot: int = 0) -> List[str]:
    """the guest script of a boot; with BASE=1 every other patched boot
    runs its modes in reverse order, so that no mode is always the first
    run of a boot (the first 5 alternating boots, in fixed order, put
    local park=1 at 0.84x base beyond noise, though it runs the same code
    as park=0)"""
    modes = patched_modes(cfg) if kernel == 'patched' else ''
    if modes and cfg.BASE and boot % 2:
        modes = ' '.join(reversed(modes.split()))
    runs = cfg.RUNS
    if cfg.BASE and kernel == 'base':
        # the same runs at the same places in the boot: each of the
        # patched boot's modes is one more base run
        runs *= len((patched_modes(cfg) or '0 1 2').split())
    lockstat = cfg.env['LOCKSTAT']
    if cfg.WORKLOAD:
        # a base boot repeats its run where a patched one runs modes
        if cfg.BASE and kernel == 'base':
            modes = ' '.join(['base'] * len(patched_modes(cfg).split()))
        cmd = ['tools/guest/guest-workloads.sh', cfg.WORKLOAD, str(cfg.RUNS),
               str(cfg.DURATION_MS // 1000), cfg.env['TASKS']]
        return cmd + ([modes] if modes else [])
    if cfg.MIN_PARTIAL:
        return ['tools/guest/guest-min-partial.sh', str(cfg.RUNS),
                str(cfg.DURATION_MS)]
    if cfg.FLUSH:
        return ['tools/guest/guest-compare.sh', str(runs),
                str(cfg.DURATION_MS), 'local', lockstat, 'sheaf', modes,
                'free_burst=1 inflight=%d' % FLUSH_INFLIGHT]
    return ['tools/guest/guest-compare.sh', str(runs), str(cfg.DURATION_MS),
            cfg.env['PLACEMENTS'], lockstat, cfg.SWEEP, modes]


def guest_timeout(cfg) -> int:
    """a boot's: its runs of DURATION_MS + ~4 s each, and 300 s"""
    per_run = cfg.DURATION_MS // 1000 + 4
    if cfg.WORKLOAD:
        per = len(cfg.TASKS) * 3 * per_run
    elif cfg.MIN_PARTIAL:
        per = 6 * per_run
    elif cfg.FLUSH:
        per = 4 * 2 * per_run
    else:
        # the measurement kernel's park=3 too; the sweep's 4 capacities
        # of 2 modes
        per = len(cfg.PLACEMENTS) * (4 if cfg.MEASURE else 3) * per_run
        if cfg.SWEEP:
            per = per * 8 // 3
    return cfg.RUNS * per + 300


def _out(cmd: List[str]) -> str:
    """the last line of CMD's stdout (a directory it made)"""
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True,
                          cwd=TOP).stdout.strip().splitlines()[-1]


def build(cfg, kernel: str) -> str:
    cmd = [os.path.join(TOP, 'tools/kernel/build-kernel.sh')]
    if cfg.LOCKSTAT:
        cmd += ['--config', 'lockstat']
    if cfg.MEASURE:
        cmd += ['--variant', 'measure']
    elif kernel == 'base' and cfg.BASE:
        cmd += ['--variant', 'base']
    return _out(cmd)


_STAGED: Dict[str, str] = {}


def guest(cfg, bdir: str, out: str, cmd: List[str], stages: List[str],
          env: List[str]) -> int:
    """Boot BDIR's kernel with its stage (vm.stage, once a kernel) and
    STAGES, run CMD there with ENV (NAME=VALUE), console and files into
    OUT (vm.run); its status."""
    if bdir not in _STAGED:
        _STAGED[bdir] = vm.stage(bdir, lambda t: print(t, file=sys.stderr))
    return vm.run(bdir, os.path.join(TOP, cmd[0]), cmd[1:], out,
                  [_STAGED[bdir] + ':.'] + stages, cfg.NODES,
                  cfg.CPUS_PER_NODE, env=env,
                  timeout=None if cfg.env['GUEST_TIMEOUT']
                  else guest_timeout(cfg),
                  emit=lambda t: print(t, flush=True))


def runs_line(cfg) -> str:
    """meta.txt's runs line: what ran (slabpark.comparison.asked reads
    MEASURE=1 and LOCKSTAT=1 in it)"""
    if not cfg.experiment():
        return '%d x %d ms per placement and mode; PLACEMENTS="%s"%s' % (
            cfg.RUNS, cfg.DURATION_MS, cfg.env['PLACEMENTS'], ''.join(
                ' %s=%s' % (k, cfg.env[k]) for k in ('SWEEP', 'MEASURE',
                                                     'LOCKSTAT')
                if cfg.env[k] not in ('', '0')))
    what = ('WORKLOAD=%s TASKS="%s"' % (cfg.WORKLOAD, cfg.env['TASKS'])
            if cfg.WORKLOAD else 'MIN_PARTIAL=1' if cfg.MIN_PARTIAL
            else 'FLUSH=1 (local, free_burst=1 inflight=%d, sheaf sweep)'
            % FLUSH_INFLIGHT if cfg.FLUSH
            else 'module PLACEMENTS="%s"' % cfg.env['PLACEMENTS'])
    return '%d rounds x %d ms, %s%s' % (
        cfg.RUNS, cfg.DURATION_MS, what,
        ', %d boots of each kernel alternating' % cfg.BOOTS
        if cfg.BASE else '')


def write_report(results: str, where: str = '', runs: str = ''):
    """RESULTS' report.txt (slabpark.comparison's for a module
    comparison, slabpark.report's tables otherwise; first meta.txt with
    WHERE and RUNS where WHERE is given) and summary.txt: (the report's
    lines, summary.txt's text)"""
    data = comparison.data_dir(results)
    if where:
        facts.write_meta(results, where, runs)
    lines = comparison.report(results, data) if data else \
        report.report(results)
    with open(os.path.join(results, 'report.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return lines, summary.write(results)


def finish(results: str, where: str = '', runs: str = '') -> int:
    """write_report(), summary.txt on the terminal (report.txt the full
    record) and the files written (the report's last line)"""
    try:
        lines, short = write_report(results, where, runs)
    except (FileNotFoundError, KeyError, ValueError) as e:
        raise Failed('no report: %s' % e)
    print('\n' + short + '\n' + lines[-1])
    return 0


def host_report(results: str) -> int:
    """--report: the report of make run HOST=1's runs in RESULTS/host
    with the knobs and the shape they ran with (RESULTS/host/knobs)"""
    path = os.path.join(results, 'host', 'knobs')
    try:
        with open(path) as f:
            knobs = dict(t.rstrip('\n').split('=', 1) for t in f if '=' in t)
    except OSError as e:
        raise config.ConfigError('--report %s: %s (not a results directory '
                                 'of make run HOST=1)' % (results,
                                                          e.strerror))
    cfg = config.load(dict({k: knobs.get(k, '') for k in HOST_KNOBS},
                           HOST='1'))
    return finish(results, 'host, ' + knobs.get('SHAPE', ''), runs_line(cfg))


def vm_run(cfg) -> int:
    results = cfg.RESULTS_DIR
    deps.ensure()
    builds = {k: build(cfg, k) for k in kernels(cfg)}
    os.makedirs(results, exist_ok=True)
    stages = [vm.stage_stress_ng() + ':stress-ng'] \
        if cfg.WORKLOAD == 'mmapaddr' else []
    # the nodes, into guest-compare.sh's environment
    env = ['%s=%s' % (k, cfg.env[k]) for k in ('ALLOC_NODE', 'FREE_NODE')
           if cfg.env[k]]
    extra = {}
    if cfg.experiment():
        extra = {'kernel %s' % k: os.path.basename(b)
                 for k, b in builds.items()}
        extra['lock_stat'] = 'yes' if cfg.LOCKSTAT else 'no'
    where = 'TCG guest, %d nodes x %d vCPUs' % (cfg.NODES, cfg.CPUS_PER_NODE)
    facts.write_meta(results, where, runs_line(cfg), extra)
    if cfg.BASE:
        boots = [(b, k) for b in range(cfg.BOOTS) for k in kernels(cfg)]
        outs = [os.path.join(results, 'boot%02d-%s' % (i + 1, k))
                for i, (_, k) in enumerate(boots)]
    else:
        boots = [(0, kernels(cfg)[0])]
        outs = [os.path.join(results, 'guest')]
    for (b, k), out in zip(boots, outs):
        print('== %s: %s kernel (%s)' % (os.path.basename(out), k,
                                         os.path.basename(builds[k])),
              flush=True)
        rc = guest(cfg, builds[k], out, guest_cmd(cfg, k, b), stages, env)
        if rc:
            raise Failed('the %s boot %s failed (guest status %d; console: '
                         '%s/console.log)' % (k, out, rc, out))
    return finish(results)


def main(check_only: bool = False, report_dir: str = '') -> int:
    check.setup_env()
    try:
        if report_dir:
            return host_report(report_dir)
        cfg = config.load()
        if check_only and not cfg.HOST:
            raise config.ConfigError('HOST=%s: --check-only checks make run '
                                     "HOST=1's prerequisites (HOST=1)"
                                     % cfg.env['HOST'])
        if cfg.HOST:
            argv = [os.path.join(TOP, 'tools/run-host.sh')] + \
                (['--check-only'] if check_only else [])
            os.execve(argv[0], argv, dict(os.environ, **cfg.env))
        return vm_run(cfg)
    except config.ConfigError as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:
        # the tool has said why; only which one failed
        print('slabpark: error: %s failed (status %d)' % (
            os.path.basename(e.cmd[0]), e.returncode), file=sys.stderr)
        return 1
    except (Failed, OSError, deps.Missing, vm.Error) as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print('slabpark: interrupted', file=sys.stderr)
        return 130
