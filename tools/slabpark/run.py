# SPDX-License-Identifier: GPL-2.0
"""make run, run --report DIR (HOST=1's runs, reported elsewhere) and make device-kit."""

import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List

from . import check, comparison, config, deps, facts, report, summary, vm

# objects a burst frees: above 12 sheaves (2 per CPU + the barn's 10 full) of the default
# capacity of nfs_page_test (60) up to 4x it
FLUSH_INFLIGHT = 4096
TOP = config.TOP
# make device-kit: what each boot runs, the most a device run carries, QEMU's TCG module
# and the firmware of a -nodefaults PC booted -kernel
KIT_GUEST = ('tools/guest/guest-device.sh', '4000', '16 32')
KIT_MAX_MIB = 60
QEMU_TCG = '/usr/lib/x86_64-linux-gnu/qemu/accel-tcg-x86_64.so'
QEMU_FIRMWARE = ('/usr/share/seabios/bios-256k.bin', '/usr/share/qemu/linuxboot_dma.bin',
                 '/usr/share/qemu/kvmvapic.bin')


class Failed(Exception):
    """exit status 1"""


def kernels(cfg) -> List[str]:
    return ['base', 'patched'] if cfg.BASE else ['base'] if cfg.PATCHES else ['patched']


def patched_modes(cfg) -> str:
    return cfg.env['MODES'] or ('0 1' if cfg.BASE else '')


def guest_cmd(cfg, kernel: str, boot: int = 0) -> List[str]:
    """the guest script of a boot.  With BASE=1, every other patched boot runs its modes
    reversed (in fixed order, local park=1 came out 0.84x base beyond noise, running
    park=0's code), and a base boot runs once where a patched one runs each mode"""
    modes = patched_modes(cfg) if kernel == 'patched' else ''
    if modes and cfg.BASE and boot % 2:
        modes = ' '.join(reversed(modes.split()))
    runs = cfg.RUNS
    if cfg.BASE and kernel == 'base':
        runs *= len((patched_modes(cfg) or '0 1 2').split())
    lockstat = cfg.env['LOCKSTAT']
    if cfg.WORKLOAD:
        if cfg.BASE and kernel == 'base':
            modes = ' '.join(['base'] * len(patched_modes(cfg).split()))
        cmd = ['tools/guest/guest-workloads.sh', cfg.WORKLOAD, str(cfg.RUNS),
               str(cfg.DURATION_MS // 1000), cfg.env['TASKS']]
        return cmd + ([modes] if modes else [])
    if cfg.MIN_PARTIAL:
        return ['tools/guest/guest-min-partial.sh', str(cfg.RUNS), str(cfg.DURATION_MS)]
    if cfg.FLUSH:
        return ['tools/guest/guest-compare.sh', str(runs), str(cfg.DURATION_MS), 'local',
                lockstat, 'sheaf', modes, 'free_burst=1 inflight=%d' % FLUSH_INFLIGHT]
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
        # MEASURE: park=3 too; SWEEP: 4 capacities of 2 modes
        per = len(cfg.PLACEMENTS) * (4 if cfg.MEASURE else 3) * per_run
        if cfg.SWEEP:
            per = per * 8 // 3
    return cfg.RUNS * per + 300


def say(text: str):
    print(text, file=sys.stderr, flush=True)


def _out(cmd: List[str], must: bool = True) -> str:
    """the last line of CMD's stdout"""
    out = subprocess.run(cmd, check=must, stdout=subprocess.PIPE, text=True,
                         cwd=TOP).stdout.strip()
    return out.splitlines()[-1] if out else ''


def build(cfg, kernel: str) -> str:
    cmd = [os.path.join(TOP, 'tools/kernel/build-kernel.sh')]
    if cfg.LOCKSTAT:
        cmd += ['--config', 'lockstat']
    if cfg.MEASURE:
        cmd += ['--variant', 'measure']
    elif kernel == 'base' and cfg.BASE:
        cmd += ['--variant', 'base']
    return _out(cmd)


def runs_line(cfg) -> str:
    """meta.txt's runs line (slabpark.comparison.asked reads it)"""
    if not cfg.experiment():
        return '%d x %d ms per placement and mode; PLACEMENTS="%s"%s' % (
            cfg.RUNS, cfg.DURATION_MS, cfg.env['PLACEMENTS'], ''.join(
                ' %s=%s' % (k, cfg.env[k]) for k in ('SWEEP', 'MEASURE', 'LOCKSTAT')
                if cfg.env[k] not in ('', '0')))
    what = ('WORKLOAD=%s TASKS="%s"' % (cfg.WORKLOAD, cfg.env['TASKS']) if cfg.WORKLOAD
            else 'MIN_PARTIAL=1' if cfg.MIN_PARTIAL
            else 'FLUSH=1 (local, free_burst=1 inflight=%d, sheaf sweep)' % FLUSH_INFLIGHT
            if cfg.FLUSH else 'module PLACEMENTS="%s"' % cfg.env['PLACEMENTS'])
    return '%d rounds x %d ms, %s%s' % (cfg.RUNS, cfg.DURATION_MS, what, ', %d boots of each '
                                        'kernel alternating' % cfg.BOOTS if cfg.BASE else '')


def write_report(results: str, where: str = '', runs: str = ''):
    """RESULTS' report.txt (and first meta.txt where WHERE is given) and summary.txt: (the
    report's lines, summary.txt's text)"""
    data = comparison.data_dir(results)
    if where:
        facts.write_meta(results, where, runs)
    lines = comparison.report(results, data) if data else report.report(results)
    with open(os.path.join(results, 'report.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return lines, summary.write(results)


def report_of(results: str, where: str = '', runs: str = ''):
    try:
        return write_report(results, where, runs)
    except (FileNotFoundError, KeyError, ValueError) as e:
        raise Failed('no report: %s' % e)


def finish(results: str, where: str = '', runs: str = '') -> int:
    lines, short = report_of(results, where, runs)
    print('\n' + short + '\n' + lines[-1])
    return 0


def host_report(results: str) -> int:
    """--report: RESULTS/host's runs with the knobs and shape of RESULTS/host/knobs
    (tools/run-host.sh)"""
    path = os.path.join(results, 'host', 'knobs')
    try:
        with open(path) as f:
            knobs = dict(t.rstrip('\n').split('=', 1) for t in f if '=' in t)
    except OSError as e:
        raise config.ConfigError('--report %s: %s (not a results directory of make run '
                                 'HOST=1)' % (results, e.strerror))
    cfg = config.load({k: v for k, v in dict(knobs, HOST='1').items() if k in config.BY_NAME})
    return finish(results, 'host, ' + knobs.get('SHAPE', ''), runs_line(cfg))


def vm_run(cfg) -> int:
    results = cfg.RESULTS_DIR
    deps.ensure()
    builds = {k: build(cfg, k) for k in kernels(cfg)}
    os.makedirs(results, exist_ok=True)
    stages = [vm.stage_stress_ng() + ':stress-ng'] if cfg.WORKLOAD == 'mmapaddr' else []
    env = ['%s=%s' % (k, cfg.env[k]) for k in ('ALLOC_NODE', 'FREE_NODE') if cfg.env[k]]
    extra = dict({'kernel %s' % k: os.path.basename(b) for k, b in builds.items()},
                 lock_stat='yes' if cfg.LOCKSTAT else 'no') if cfg.experiment() else {}
    where = 'TCG guest, %d nodes x %d vCPUs' % (cfg.NODES, cfg.CPUS_PER_NODE)
    facts.write_meta(results, where, runs_line(cfg), extra)
    boots = [(b, k) for b in range(cfg.BOOTS) for k in kernels(cfg)] if cfg.BASE else \
        [(0, kernels(cfg)[0])]
    staged: Dict[str, str] = {}
    for i, (b, k) in enumerate(boots):
        out = os.path.join(results, 'boot%02d-%s' % (i + 1, k) if cfg.BASE else 'guest')
        print('== %s: %s kernel (%s)' % (os.path.basename(out), k, os.path.basename(builds[k])),
              flush=True)
        if k not in staged:
            staged[k] = vm.stage(builds[k], say)
        cmd = guest_cmd(cfg, k, b)
        rc = vm.run(builds[k], os.path.join(TOP, cmd[0]), cmd[1:], out,
                    [staged[k] + ':.'] + stages, cfg.NODES, cfg.CPUS_PER_NODE, env=env,
                    timeout=None if cfg.env['GUEST_TIMEOUT'] else guest_timeout(cfg),
                    emit=lambda t: print(t, flush=True))
        if rc:
            raise Failed('the %s boot %s failed (guest status %d; console: %s/console.log)'
                         % (k, out, rc, out))
    return finish(results)


def make_kit(kit: str):
    qemu = shutil.which('qemu-system-x86_64')
    if not qemu:
        raise Failed('qemu-system-x86_64 is missing (apt-get install qemu-system-x86)')
    if not os.path.isfile(QEMU_TCG):
        raise Failed("no %s (Debian's qemu-system-x86 has it)" % QEMU_TCG)
    kernels = []
    for k in ('base', 'patched'):
        bdir = _out([os.path.join(TOP, 'tools/kernel/build-kernel.sh')] +
                    (['--variant', 'base'] if k == 'base' else []))
        os.makedirs(os.path.join(kit, k))
        shutil.copy(os.path.join(bdir, 'arch/x86/boot/bzImage'), os.path.join(kit, k))
        vm.initramfs(bdir, os.path.join(TOP, KIT_GUEST[0]), KIT_GUEST[1:],
                     os.path.join(kit, k, 'initramfs.cpio'), [vm.stage(bdir, say) + ':.'])
        kernels.append('  %s: %s' % (k, os.path.basename(bdir)))
    for d, files in (('bin', [qemu]), ('modules', [QEMU_TCG]), ('share', QEMU_FIRMWARE)):
        os.makedirs(os.path.join(kit, 'qemu', d))
        for f in files:
            shutil.copy(f, os.path.join(kit, 'qemu', d))
    vm.copy_libs(os.path.join(kit, 'qemu/lib'), qemu, QEMU_TCG)
    shutil.copy(os.path.join(TOP, 'tools/vm/device-run.sh'), os.path.join(kit, 'run.sh'))
    with open(os.path.join(kit, 'VERSION'), 'w') as f:
        f.write('\n'.join(['slabpark %s, series %s, built %s' % (
            _out(['git', 'describe', '--always', '--dirty'], False),
            _out(['bash', '-c', '. tools/lib.sh && sp_series_hash']),
            time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime()))] + kernels) + '\n')


def try_kit(tarball: str, work: str):
    subprocess.run(['tar', '-C', work, '-xJf', tarball], check=True)
    say('[%s] device kit test: the tarball as a 2 x 2 guest, one boot of each kernel'
        % check.elapsed())
    subprocess.run([os.path.join(work, 'slabpark-kit/run.sh'), os.path.join(work, 'out')],
                   stdout=sys.stderr, check=True,
                   env=dict(os.environ, CPUS_PER_NODE='2', MEM_PER_NODE='1024', BOOTS='1'))
    res = os.path.join(os.environ['SLABPARK_CACHE'], 'device-kit',
                       time.strftime('test-%Y%m%d-%H%M%S'))
    shutil.copytree(os.path.join(work, 'out'), res, symlinks=True)
    if subprocess.run(['grep', '-lE', '-f', 'selftests/slub_park/splat.ere',
                       *sorted(glob.glob(res + '/boot*/console.log'))], cwd=TOP,
                      stdin=subprocess.DEVNULL, stdout=sys.stderr).returncode == 0:
        raise Failed('device kit test: a kernel reported a problem (the consoles above)')
    say('\n'.join(report_of(res)[0]))
    say('[%s] device kit test passed: %s' % (check.elapsed(), res))


def device_kit(tarball: str, test: bool) -> int:
    """make device-kit: a tarball (<= KIT_MAX_MIB) for a machine without a package registry:
    QEMU with its libraries, TCG module and firmware, the base and patched kernels with their
    initramfs, and run.sh (tools/vm/device-run.sh).  TEST: then run it here (2 x 2, a boot
    of each kernel) and print the report."""
    tarball = os.path.abspath(tarball or os.path.join(
        os.environ['SLABPARK_CACHE'], 'device-kit', 'slabpark-kit.tar.xz'))
    with contextlib.redirect_stdout(sys.stderr):
        if deps.main():
            return 1
    with tempfile.TemporaryDirectory() as work:
        make_kit(os.path.join(work, 'slabpark-kit'))
        os.makedirs(os.path.dirname(tarball), exist_ok=True)
        subprocess.run(['tar', '-C', work, '-cJf', tarball, 'slabpark-kit'], check=True)
    mib = (os.path.getsize(tarball) + 1048575) // 1048576
    if mib > KIT_MAX_MIB:
        raise Failed('%s is %d MiB, over %d MiB' % (tarball, mib, KIT_MAX_MIB))
    say('[%s] device kit: %s (%d MiB, at most %d)' % (check.elapsed(), tarball, mib,
                                                      KIT_MAX_MIB))
    print(tarball, flush=True)
    if test:
        with tempfile.TemporaryDirectory() as work:
            try_kit(tarball, work)
    return 0


def main(check_only: bool = False, report_dir: str = '', kit=None) -> int:
    """make run, run --report DIR, or KIT (device_kit's arguments); a refused knob is one
    line and status 2, before anything is built"""
    check.setup_env()
    try:
        if kit:
            return device_kit(*kit)
        if report_dir:
            return host_report(report_dir)
        cfg = config.load()
        if check_only and not cfg.HOST:
            raise config.ConfigError("HOST=%s: --check-only checks make run HOST=1's "
                                     'prerequisites (HOST=1)' % cfg.env['HOST'])
        if cfg.HOST:
            argv = [os.path.join(TOP, 'tools/run-host.sh')] + \
                (['--check-only'] if check_only else [])
            os.execve(argv[0], argv, dict(os.environ, **cfg.env))
        return vm_run(cfg)
    except config.ConfigError as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as e:     # the tool said why
        print('slabpark: error: %s failed (status %d)' % (os.path.basename(e.cmd[0]),
                                                          e.returncode), file=sys.stderr)
        return 1
    except (Failed, OSError, deps.Missing, vm.Error) as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print('slabpark: interrupted', file=sys.stderr)
        return 130
