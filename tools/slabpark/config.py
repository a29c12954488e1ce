# SPDX-License-Identifier: GPL-2.0
"""The knobs of make run, make check and make soak, one table (KNOBS; make help prints it).
load() reads them from the environment once, in order (empty is the default; a default may
depend on the knobs above), checks each, then RULES; the first problem is
ConfigError("NAME=VALUE: why").  A knob without a check is checked where its help says."""

import os
import textwrap
import time
from collections import namedtuple

PLACEMENTS = ('cross', 'local', 'balanced')
PARK_MODES = ('0', '1', '2')
WORKLOADS = ('mmap1', 'mmapaddr')
MAX_TASKS = 1024
# the guest's size (slabpark.vm.topology's too)
MAX_NODES = 8
MAX_CPUS_PER_NODE = 32


class ConfigError(Exception):
    pass


def upto(most=None):
    def check(v):
        if not v.isdigit() or int(v) == 0:
            raise ValueError('must be a positive integer')
        if most and int(v) > most:
            raise ValueError('must be 1..%d' % most)
        return int(v)
    return check


posint = upto()


def flag(v):
    if v not in ('0', '1'):
        raise ValueError('must be 0 or 1')
    return v == '1'


def choice(*allowed):
    def check(v):
        if v not in allowed:
            raise ValueError('unknown (%s)' % ', '.join(a or "''" for a in allowed))
        return v
    return check


def words(allowed, what):
    def check(v):
        seen = []
        for w in v.split():
            if w not in allowed:
                raise ValueError("unknown %s '%s' (%s)" % (what, w, ', '.join(allowed)))
            if w in seen:
                raise ValueError('%s %s twice' % (what, w))
            seen.append(w)
        return seen
    return check


def tasks(v):
    out = [posint(t) for t in v.split()]
    if not out:
        raise ValueError('empty')
    if max(out) > MAX_TASKS:
        raise ValueError('at most %d tasks' % MAX_TASKS)
    return out


def directory(v):
    if v and not os.path.isdir(v):
        raise ValueError('no such directory')
    return os.path.abspath(v) if v else v


def results_dir(v):
    # absolute: HOST=1's run-host.sh works from the checkout
    if os.path.exists(v) and not os.path.isdir(v):
        raise ValueError('exists and is not a directory')
    return os.path.abspath(v)


def node(v):
    if v and not v.isdigit():
        raise ValueError('not a node number')
    return int(v) if v else None


def runs_default(k):
    # BASE=1: a boot a round; LOCKSTAT=1: a run's few hundred contentions vary a lot, 10
    # rounds tell the modes apart
    return '1' if k['BASE'] else '5' if k['MIN_PARTIAL'] else '10' if k['LOCKSTAT'] else '3'


Knob = namedtuple('Knob', 'name default check help')
KNOBS = (
    Knob('HOST', '0', flag, '1: no VM: the comparison on this machine, a 2-node box booted '
         'into the patched kernel, as root, with python3 (tools/run-host.sh: its '
         'prerequisites; HOST=1 PYTHONPATH=tools python3 -m slabpark run --check-only checks '
         'only)'),
    Knob('PATCHES', '', choice('', 'none'),
         'none: the unpatched base kernel (nothing can be switched)'),
    Knob('KSRC', '', directory, 'your own 7.3 tree, built as is (the series is not applied; '
         'make check skips the steps that need the pristine base; tools/kernel/kernel-src.sh)'),
    Knob('LOCKSTAT', '0', flag, '1: a CONFIG_LOCK_STAT kernel; report &n->list_lock: medians '
         'with ranges, call sites, parks against the waits in __slab_free()'),
    Knob('MEASURE', '0', flag, '1: the measurement kernel (the series + '
         'tools/kernel/bench-patches/measure-parking.patch): free objects per unparked slab, '
         'refill scan length, list_lock acquisitions and waits by transition, and park=3 '
         '(partial -> empty trylock); with LOCKSTAT=1 too'),
    Knob('SWEEP', '', choice('', 'sheaf'), 'sheaf: the same at 1x, 2x, 4x, 8x the default '
         'sheaf capacity, park=0 and 1, and a sweep table'),
    Knob('BASE', '0', flag, '1: the base kernel against the patched one in alternating boots '
         '(BOOTS each), the same runs in each; the patched boots run MODES "0 1"; with '
         'LOCKSTAT=1 both are lock_stat kernels'),
    Knob('BOOTS', '5', posint, 'boots of each kernel with BASE=1'),
    Knob('WORKLOAD', '', choice('', *WORKLOADS), "instead of the module: mmap1, "
         "will-it-scale's (each task maps and unmaps 128 MB in a loop, "
         "tools/guest/mmap_loop.c), or mmapaddr, stress-ng --mmapaddr; maple_node and "
         "vm_area_struct counters; TASKS tasks, DURATION_MS a run, RUNS rounds; with BASE=1 "
         "too"),
    Knob('TASKS', '4 8', tasks, 'the task counts of WORKLOAD'),
    Knob('MIN_PARTIAL', '0', flag, '1: the min_partial control: park=0 at min_partial D, 2D, '
         '4D, 8D against park=1 and 2 at D (cross)'),
    Knob('FLUSH', '0', flag, '1: the flush-driven regime: local frees in bursts of 4096 '
         '(module free_burst=1) that overflow sheaves and barn, at 1x-8x the sheaf capacity, '
         'park=0 and 1; with BASE=1 too'),
    Knob('MODES', '', words(PARK_MODES, 'mode'),
         'the park modes of a patched boot (default all; "0 1" with BASE=1)'),
    Knob('RUNS', runs_default, posint, 'rounds per placement (each: park=0, 1, 2); default 3, '
         '10 with LOCKSTAT=1, 5 with MIN_PARTIAL=1, 1 (a boot) with BASE=1'),
    Knob('DURATION_MS', '4000', posint, 'length of one run'),
    Knob('PLACEMENTS', lambda k: 'cross local' if k['SWEEP'] else ' '.join(PLACEMENTS),
         words(PLACEMENTS, 'placement'), 'which placements run, of cross, local, balanced '
         '(default all; "cross local" with SWEEP)'),
    Knob('NODES', '2', upto(MAX_NODES), 'guest NUMA nodes (cross and balanced need 2)'),
    Knob('CPUS_PER_NODE', '2', upto(MAX_CPUS_PER_NODE), 'vCPUs per guest node'),
    Knob('ALLOC_NODE', '', node, "the allocators' node (default: the first node with CPUs and "
         'normal memory, for FREE_NODE the other such node farthest from it; topo_choose in '
         'tools/guest/guest-lib.sh); in the VM below NODES'),
    Knob('FREE_NODE', '', node, "the remote freers' node, as ALLOC_NODE"),
    Knob('RESULTS_DIR', lambda k: os.path.join(TOP, 'results', time.strftime('%Y%m%d-%H%M%S')),
         results_dir, 'where the report, the tables, CSV/JSON and the plot go (default '
         'results/<date>-<time>; a VM run refuses a directory not empty)'),
    Knob('GUEST_TIMEOUT', '', lambda v: v and posint(v), 'give up on a guest after this many '
         'seconds (make run: computed from the runs; make check: 1800)'),
    Knob('KVM', '0', flag, '1: KVM instead of TCG, only where KVM works (on some hosts '
         '/dev/kvm exists but guests hang)'),
    Knob('SLABPARK_CACHE', '', None, 'the cache (default ~/.cache/slabpark: sources, builds, '
         'ccache, logs)'),
    Knob('KDIR', '', None, 'the kernel build tree of plain make (the module only) and HOST=1 '
         '(default /lib/modules/$(uname -r)/build)'),
    Knob('HOST_MODULE', '', None, 'HOST=1: a slub_stress.ko built for the running kernel '
         'instead of building one (tools/run-host.sh)'),
    Knob('HOST_BASE_ONLY', '', None, 'HOST=1: 1 accepts a kernel without the park switch, '
         'base numbers only (tools/run-host.sh)'),
    Knob('CHECK_DEBUG', '1', None, 'make check: 0 leaves out the debug-kernel gate'),
    Knob('DURATION', '', None, 'make soak: seconds of stress'),
    Knob('NO_SHEAVES', '', None, 'make soak: 1 runs every load without sheaves'),
    Knob('DEBUG', '', None, 'make soak: 1 boots the debug kernel'),
)
BY_NAME = {k.name: k for k in KNOBS}
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Config:
    """.env[NAME]: the string the scripts get; .NAME: the checked value; .given: the names
    set in the environment"""

    def __init__(self, env):
        self.env = {}
        self.given = set()
        for k in KNOBS:
            v = env.get(k.name, '')
            if v:
                self.given.add(k.name)
            else:
                v = k.default(vars(self)) if callable(k.default) else k.default
            self.env[k.name] = v
            try:
                val = k.check(v) if k.check else v
            except ValueError as e:
                raise ConfigError('%s=%s: %s' % (k.name, v, e))
            setattr(self, k.name, val)
            if isinstance(val, str):
                self.env[k.name] = val      # e.g. a directory made absolute

    def experiment(self):
        return self.BASE or self.WORKLOAD or self.MIN_PARTIAL or self.FLUSH


NOT_PLAIN = '(not BASE, WORKLOAD, MIN_PARTIAL or FLUSH)'
ONE_AT_A_TIME = 'WORKLOAD, MIN_PARTIAL=1 and FLUSH=1: one at a time'
# the combinations refused, in order: (the knob named, refused when, why)
RULES = (
    ('MEASURE', lambda c: c.MEASURE and c.PATCHES, 'measures the series: not with PATCHES=none'),
    ('NODES', lambda c: c.NODES < 2 and set(c.PLACEMENTS) - {'local'},
     'cross and balanced need 2 nodes (use PLACEMENTS=local)'),
    *((n, lambda c, n=n: not c.HOST and (getattr(c, n) or 0) >= c.NODES,
       lambda c: 'the guest has nodes 0..%d (NODES=%d)' % (c.NODES - 1, c.NODES))
      for n in ('ALLOC_NODE', 'FREE_NODE')),
    ('FREE_NODE', lambda c: not c.HOST and c.FREE_NODE is not None and
     c.FREE_NODE == c.ALLOC_NODE,
     'the same node as ALLOC_NODE (cross and balanced free on another node)'),
    ('BOOTS', lambda c: 'BOOTS' in c.given and not c.BASE, 'goes with BASE=1 (alternating boots)'),
    ('MODES', lambda c: c.MODES and c.MIN_PARTIAL, 'goes with the module comparison, WORKLOAD '
     'and FLUSH, not MIN_PARTIAL=1 (its own table of modes)'),
    ('MODES', lambda c: c.MODES and c.PATCHES, 'PATCHES=none has no park modes'),
    ('BASE', lambda c: c.BASE and c.PATCHES,
     'builds the base kernel itself: not with PATCHES=none'),
    ('BASE', lambda c: c.BASE and c.KSRC, 'builds base and patched 7.3.4 trees: not with KSRC='),
    ('HOST', lambda c: c.HOST and c.experiment(), 'runs the module comparison only ' + NOT_PLAIN),
    # given (not the default; theirs are strings, not callables) in an experiment
    *((n, lambda c, n=n: c.env[n] != BY_NAME[n].default and c.experiment(),
       'goes with the plain module comparison only ' + NOT_PLAIN)
      for n in ('SWEEP', 'MEASURE', 'ALLOC_NODE', 'FREE_NODE')),
    ('FLUSH', lambda c: c.FLUSH and (c.WORKLOAD or c.MIN_PARTIAL), ONE_AT_A_TIME),
    ('MIN_PARTIAL', lambda c: c.MIN_PARTIAL and c.WORKLOAD, ONE_AT_A_TIME),
    ('DURATION_MS', lambda c: c.WORKLOAD and c.DURATION_MS < 1000,
     'the workloads (WORKLOAD=) run whole seconds (>= 1000)'),
    ('LOCKSTAT', lambda c: c.WORKLOAD and c.LOCKSTAT,
     'the workloads (WORKLOAD=) report SLUB_STATS counters, not lock_stat'),
    ('MIN_PARTIAL', lambda c: c.MIN_PARTIAL and c.BASE, 'needs the parking switch: not with '
     'BASE=1'),
    ('MIN_PARTIAL', lambda c: c.MIN_PARTIAL and c.PATCHES, 'needs the parking switch: not with '
     'PATCHES=none'),
    ('RESULTS_DIR', lambda c: not c.HOST and os.path.isdir(c.RESULTS_DIR) and
     os.listdir(c.RESULTS_DIR), "not empty (an earlier run's data would join the report)"),
)


def load(env=os.environ) -> Config:
    cfg = Config(env)
    for name, refused, why in RULES:
        if refused(cfg):
            raise ConfigError('%s=%s: %s' % (name, cfg.env[name],
                                             why(cfg) if callable(why) else why))
    return cfg


def reference(width=78) -> str:
    out = []
    for k in KNOBS:
        d = k.default if isinstance(k.default, str) else ''
        out.append('  ' + k.name + ('="%s"' % d if ' ' in d else '=' + d if d else ''))
        out += ['      ' + t for t in textwrap.wrap(k.help, width - 6, break_on_hyphens=False)]
    return '\n'.join(out)
