# SPDX-License-Identifier: GPL-2.0
"""make check's steps, each with the data it checks beside it, and their table STEPS
(which slabpark.check runs); and make soak."""

import collections
import fcntl
import glob
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import config, guest_judge, guest_out, vm
from .check import TOP, Fail, child, elapsed, setup_env


def git_files(*patterns):
    """The files git has (its index) matching PATTERNS: what a CI's checkout holds."""
    p = child(['git', 'ls-files', '-z', '--cached', '--', *patterns], cwd=TOP, capture=True)
    if p.returncode:
        raise Fail('%s: needs a git checkout (git ls-files: %s)' % (TOP, p.stderr.strip()))
    return sorted(set(p.stdout.split('\0')) - {''})


def build_kernel(ctx, *args):
    return ctx.capture(['tools/kernel/build-kernel.sh', *args])


def into(log, argv, mode='a', **kw):
    """ARGV's stdout and stderr into the file LOG (MODE: open()'s); (its status, LOG's text)."""
    with open(log, mode) as f:
        rc = child(argv, stdout=f, stderr=subprocess.STDOUT, **kw).returncode
    with open(log, errors='replace') as f:
        return rc, f.read()


def logged(ctx, argv, log, **kw):
    """ARGV into LOG; when it fails, the log's last 20 lines said and Fail naming the log."""
    rc, text = into(log, argv, **kw)
    if rc:
        ctx.say(*text.splitlines()[-20:], prefix='    ')
        raise Fail('%s failed (log: %s)' % (' '.join(argv), log))


def copy_package(top):
    """tools/slabpark alone under TOP, which cannot build or boot."""
    shutil.copytree(os.path.join(TOP, 'tools/slabpark'), os.path.join(top, 'tools/slabpark'),
                    ignore=shutil.ignore_patterns('tests', '__pycache__'))


def judge(want, regex, rc, out, err):
    """What is wrong with an outcome: [] when it exited WANT with one line matching REGEX,
    on stderr for a refusal (WANT 1 or 2), on stdout for a pass, and nothing on the other
    (make's own "make: ***" line aside); else the reason, the status and both outputs."""
    err = '\n'.join(t for t in err.splitlines() if not re.match(r'make(\[\d+\])?: \*\*\*', t))
    out, err = out.rstrip('\n'), err.rstrip('\n')
    lines, other, where = (out, err, 'stderr') if want == 0 else (err, out, 'stdout')
    why = ('want nothing on ' + where if other else
           'exit status %d, want %d' % (rc, want) if rc != want else
           'want exactly one line' if not lines or '\n' in lines else
           'the line does not match /%s/' % regex if not re.search(regex, lines) else None)
    return [why, 'exit status %d' % rc, 'stdout: ' + out, 'stderr: ' + err] if why else []


# ---- host-refusals: make run HOST=1's prerequisite checks on fake sysfs trees

MODULE = 'slub_stress'
ERR = '^slabpark: error: '
NODE = 'devices/system/node/'
CPU = 'devices/system/cpu/cpu%d/topology/'


def fake_tree(leave='', files=()):
    """{path: text, None for a directory}: sysfs with every prerequisite of make run HOST=1
    on a 2-node patched kernel, but those LEAVE names ('loaded' adds module/slub_stress);
    FILES over it."""
    leave = leave.split()
    t = {'kernel/debug': None, 'module': None}
    if 'numa' not in leave:
        t.update({NODE + 'node0/cpulist': '0-1', NODE + 'node1/cpulist': '2-3',
                  NODE + 'online': '0' if 'nodes' in leave else '0-1'})
    for c in ('kmalloc-64', 'dentry'):
        t['kernel/slab/%s/objects' % c] = '0'
        if 'stats' not in leave:
            t['kernel/slab/%s/alloc_fastpath' % c] = '0 C0=0'
        if 'debugfs' not in leave:
            t['kernel/debug/slab/' + c] = None
            if 'park' not in leave:
                t['kernel/debug/slab/%s/park' % c] = '1'
    if 'loaded' in leave:
        t['module/' + MODULE] = None
    return dict(t, **dict(files))


FAKE_TREES = {
    'full': fake_tree(), 'onenode': fake_tree('nodes'), 'numa-off': fake_tree('numa'),
    'nostats': fake_tree('stats'), 'nopark': fake_tree('park'),
    'nostats-nopark': fake_tree('stats park'), 'nodebugfs': fake_tree('debugfs'),
    'loaded': fake_tree('loaded'),
    'oldpark': fake_tree('park', {'kernel/slab/kmalloc-64/park': '1'}),
    'cpuless': fake_tree('', {NODE + 'node1/cpulist': '', NODE + 'node2/cpulist': '2-3',
                              NODE + 'online': '0-2', NODE + 'has_normal_memory': '0-2'}),
    'memless': fake_tree('', {NODE + 'has_normal_memory': '0'}),
    # each node one core of 2 SMT threads
    'smt': fake_tree('', {'devices/system/cpu/online': '0-3', **{
        CPU % c + f: v for c in range(4) for f, v in (
            ('physical_package_id', str(c // 2)),
            ('thread_siblings_list', '%d-%d' % (c // 2 * 2, c // 2 * 2 + 1)))}}),
}


def write_tree(root, tree):
    for path, text in tree.items():
        p = os.path.join(root, path)
        os.makedirs(p if text is None else os.path.dirname(p), exist_ok=True)
        if text is not None:
            with open(p, 'w') as f:
                f.write(text + '\n' if text else '')


def make_run(top, *args):
    return ('env', 'PYTHONPATH=%s/tools' % top, 'python3', '-m', 'slabpark', 'run', *args)


CHECK_ONLY = make_run('{top}', '--check-only')
# a case is its knobs alone, not this make check's (the Makefile exports them) nor the
# caller's test hook SLABPARK_SYSFS
UNSET = dict.fromkeys(set(config.BY_NAME) - {'SLABPARK_CACHE'} | {'SLABPARK_SYSFS'})
HOST_CHECK = dict(UNSET, HOST='1', SLABPARK_SYSFS='full', KDIR='{work}/kdir')


def fake(tree, **knobs):
    return dict(knobs, SLABPARK_SYSFS=tree)


# (what, exit status, the regex of its one line, settings[, command]): without a command
# CHECK_ONLY on top of HOST_CHECK, with one on top of UNSET; SLABPARK_SYSFS names a
# FAKE_TREES tree; {top}: this tree; {work}: the scratch directory (kdir, bogus.ko); None
# unsets.  make run's refusals of a knob exit 2, run-host.sh's 1.
HOST_REFUSALS = (
    ('complete tree passes', 0, '^slabpark: prerequisites ok: 2 nodes, SLUB counters, park '
     'switch, kernel ', {}),
    ('no park switch, HOST_BASE_ONLY=1: passes, base only', 0,
     r'prerequisites ok: .*no park switch \(base only\)', fake('nopark', HOST_BASE_ONLY='1')),
    ('one online node: refused', 1,
     ERR + r'this machine has 1 online NUMA node\(s\) .*needs 2', fake('onenode')),
    ('no NUMA (no node/online): refused', 1,
     ERR + r'this machine has 0 online NUMA node\(s\)', fake('numa-off')),
    ('no SLUB_STATS: refused', 1,
     ERR + 'kernel .* has no SLUB counters .*CONFIG_SLUB_STATS=y', fake('nostats')),
    ('no park switch: refused, unpatched, base-only offered', 1, ERR + 'kernel .* has no park '
     'switch .*unpatched.*rerun with HOST_BASE_ONLY=1 for base-only numbers$', fake('nopark')),
    ('no stats and no park switch: the stats are named first', 1,
     ERR + '.*has no SLUB counters', fake('nostats-nopark')),
    ('debugfs not mounted: refused as such, not as unpatched', 1,
     ERR + 'debugfs is not mounted', fake('nodebugfs')),
    ('debugfs not mounted, HOST_BASE_ONLY=1: refused', 1,
     ERR + 'debugfs is not mounted', fake('nodebugfs', HOST_BASE_ONLY='1')),
    ('the v5 sysfs park only: refused as unpatched', 1,
     ERR + r'kernel .* has no park switch \(no .*/kernel/debug/slab/\*/park\)', fake('oldpark')),
    ('no kernel build tree (KDIR): refused', 1, ERR + 'no build tree for the running kernel .* at '
     '/nonexistent/kdir: install linux-headers-', {'KDIR': '/nonexistent/kdir'}),
    ('HOST_MODULE missing: refused', 1, ERR + 'HOST_MODULE=/nonexistent/x.ko: no such file',
     {'HOST_MODULE': '/nonexistent/x.ko'}),
    ('HOST_MODULE not built for this kernel: refused', 1,
     ERR + 'HOST_MODULE=.* was built for kernel .*, this is ', {'HOST_MODULE': '{work}/bogus.ko'}),
    ('slub_stress already loaded: refused', 1, ERR + 'slub_stress is already loaded: unload it',
     fake('loaded')),
    ('SLABPARK_SYSFS without --check-only: refused', 1, ERR + 'SLABPARK_SYSFS=.* only with '
     '--check-only', fake('full', HOST='1'), make_run('{top}')),
    ('a bad knob: refused', 2, ERR + 'RUNS=0: must be a positive integer', {'RUNS': '0'}),
    ('HOST=2: refused', 2, ERR + 'HOST=2: must be 0 or 1', {'HOST': '2'}),
    ('HOST_BASE_ONLY=yes: refused', 1, ERR + 'HOST_BASE_ONLY=yes: must be 0 or 1',
     {'HOST_BASE_ONLY': 'yes'}),
    ('CPU-less node 1: the default pair is nodes 0 and 2, not 0 and 1', 0,
     'prerequisites ok: .*, nodes 0 -> 2, 2 threads$', fake('cpuless', PLACEMENTS='cross')),
    ('FREE_NODE=1 (CPU-less): refused, the reason named', 1, ERR + 'FREE_NODE=1: node 1 has no '
     r'online CPUs \(a memory-only node\)', fake('cpuless', PLACEMENTS='cross', FREE_NODE='1')),
    ('FREE_NODE=7 (not online): refused', 1, ERR + r'FREE_NODE=7: node 7 is not online \(online '
     r'nodes: 0,1,2\)', fake('cpuless', PLACEMENTS='cross', FREE_NODE='7')),
    ('memoryless node 1: the default pair refused', 1, ERR + 'only node 0 has online CPUs and '
     'normal memory .*: cross and balanced need two such nodes$',
     fake('memless', PLACEMENTS='cross')),
    ('FREE_NODE=1 without normal memory: passes with the warning', 0, r'prerequisites ok: .*, '
     r'nodes 0 -> 1, 2 threads \(warning: free node 1 has no normal memory: ',
     fake('memless', PLACEMENTS='cross', FREE_NODE='1')),
    ('ALLOC_NODE=1 without normal memory: refused', 1, ERR + 'ALLOC_NODE=1: node 1 has no normal '
     'memory', fake('memless', PLACEMENTS='cross', ALLOC_NODE='1', FREE_NODE='0')),
    ("SMT siblings: local's freers on the allocators' siblings, warned", 0, r'prerequisites ok: '
     r'.*, nodes 0 -> 1, 2 threads \(warning: SMT: in local, 1 of 1 freers run on an '
     'allocator.s sibling thread', fake('smt')),
    ('a wrong argument: usage', 2, r'^python3 -m slabpark: error: unrecognized arguments: '
     '--bogus$', {'HOST': '1'}, make_run('{top}', '--bogus')),
    ('run-host.sh without the knobs: usage', 2, r'^usage: .*tools/run-host.sh \[--check-only\]',
     {'HOST': '1'}, ('tools/run-host.sh',)),
)
# as nobody, from {work}/top (a copy of what make run HOST=1 runs first, which nobody can
# read wherever the checkout is); MAKE* unset: a top-level make
NOBODY = ('setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'env', 'HOME=/nonexistent')
NOBODY_REFUSALS = (
    ('not root (nobody, complete tree): refused', 1, ERR + '.*run it as root',
     fake('full', HOST='1', KDIR='{work}/kdir'),
     NOBODY + make_run('{work}/top', '--check-only')),
    ('not root, make run HOST=1: refused', 2, ERR + r'.*run it as root \(sudo make run HOST=1\)',
     {'MAKELEVEL': None, 'MAKEFLAGS': None, 'MFLAGS': None},
     NOBODY + ('make', '-s', '--no-print-directory', '-C', '{work}/top', 'run', 'HOST=1')),
)


def host_case(ctx, work, case):
    what, want, regex, settings, *argv = case
    env = dict(os.environ)
    for k, v in dict(UNSET if argv else HOST_CHECK, **settings).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = os.path.join(work, v) if k == 'SLABPARK_SYSFS' and v in FAKE_TREES else \
                v.format(work=work)
    p = child([a.format(work=work, top=TOP) for a in (argv or [CHECK_ONLY])[0]], env=env,
              cwd=TOP, capture=True)
    bad = judge(want, regex, p.returncode, p.stdout, p.stderr)
    if not bad and os.path.exists('/sys/module/' + MODULE):
        bad = ['%s is loaded afterwards' % MODULE]
    ctx.say(*bad, prefix='# ')
    return ctx.result(not bad, what)


def do_host_refusals(ctx):
    """tools/run-host.sh's checks as make run HOST=1 runs them, loading nothing: on the fake
    trees, as nobody (when root), and on this host's kernel as it is (refused or passed)."""
    if os.path.exists('/sys/module/' + MODULE):
        raise Fail('%s is loaded on this host: cannot tell whether a test loaded it' % MODULE)
    with tempfile.TemporaryDirectory() as work:
        os.chmod(work, 0o755)
        for name, tree in FAKE_TREES.items():
            write_tree(os.path.join(work, name), tree)
        write_tree(work, {'kdir/Makefile': '# a fake kernel build tree', 'bogus.ko': 'no'})
        copy_package(os.path.join(work, 'top'))
        for f in ('Makefile', 'tools/run-host.sh', 'tools/lib.sh'):
            shutil.copy2(os.path.join(TOP, f), os.path.join(work, 'top', f))
        nobody = os.getuid() == 0 and shutil.which('setpriv')
        cases = HOST_REFUSALS + (NOBODY_REFUSALS if nobody else ())
        for c in cases:
            host_case(ctx, work, c)
        if not nobody:
            ctx.result(True, 'not root', 'SKIP needs root and setpriv to run as nobody')
        host_case(ctx, work, this_host())
    ctx.say('host-refusals: %d cases' % (len(cases) + 1))


def this_host():
    """The case of this host's kernel as make run HOST=1 checks it with make check's knobs
    (KDIR, HOST_MODULE, HOST_BASE_ONLY, ...): refused (by a knob: status 2) or passed."""
    p = child([a.format(top=TOP) for a in CHECK_ONLY], capture=True, cwd=TOP,
              env=dict(os.environ, HOST='1'))
    rc = p.returncode
    mine = {k: os.environ[k].replace('{', '{{').replace('}', '}}') if k in os.environ else None
            for k in UNSET}     # host_case formats them
    return ('this host (%s): ' % os.uname().release + (
        'refused (%s...)' % p.stderr[:60].strip() if rc else 'meets the prerequisites'),
        0 if not rc else 2 if rc == 2 else 1, ERR if rc else '^slabpark: prerequisites ok',
        dict(mine, HOST='1'), CHECK_ONLY)


# ---- docs: the facts of the code that the documentation must name

SPDX_RST = '.. SPDX-License-Identifier: GPL-2.0'
MODULE_SRC = 'mm/slub_stress.c'
STRESS_DOC = 'Documentation/dev-tools/slub-stress.rst'
PARK_DOC = 'Documentation/mm/slab-parking.rst'
ABI_FILE = 'Documentation/ABI/testing/sysfs-kernel-slab'
PARK_SWITCH = 'tools/kernel/bench-patches/park-switch.patch'
README_LINES = 200
ID = r'[A-Za-z_][A-Za-z0-9_]*'
PARAM = re.compile(r'\b__param\(\s*%s\s*,\s*(%s)|\b(?:SS_PARAM|module_param'
                   r'(?:_named|_cb|_array|_string|_unsafe)?)\(\s*(%s)' % (ID, ID, ID))
SYSFS_ATTR = re.compile(r'^\+\s*STAT_ATTR\(\s*[A-Z0-9_]+\s*,\s*([a-z0-9_]+)\s*\)'
                        r'|^\+\s*SLAB_ATTR(?:_RO|_WO|_RW)?\(\s*([a-z0-9_]+)\s*\)'
                        r'|^\+.*struct\s+slab_attribute\s+([a-z0-9_]+)_attr\s*=', re.M)
DEBUGFS_FILE = re.compile(r'^\+.*debugfs_create_file[a-z_]*\(\s*"([a-z0-9_]+)"', re.M)


def module_params(src):
    """The module parameters of a C source outside #define bodies, a call spanning lines."""
    code = ' '.join(t for t in src.splitlines()
                    if not re.match(r'\s*#\s*define', t) and not t.endswith('\\'))
    return sorted({a or b for a, b in PARAM.findall(code)})


def rst_section(text, title):
    """The lines of the '='-underlined section TITLE."""
    m = re.search(r'^%s\n=+\n(.*?)(?=^[^\n]+\n=+$|\Z)' % re.escape(title), text, re.M | re.S)
    return m.group(1).split('\n')[:-1] if m else []


def patch_added(patch, path):
    """The lines ('+' kept) a patch adds to PATH."""
    return [t for d in re.split('^diff --git ', patch, flags=re.M) if d.startswith('a/%s ' % path)
            for t in d.splitlines()[1:] if t.startswith('+') and not t.startswith('+++ ')]


def make_exports(makefile):
    m = re.search(r'^export ((?:.*\\\n)*.*)$', makefile, re.M)
    words = m.group(1).replace('\\', ' ').split() if m else []
    return sorted({w for w in words if re.fullmatch('[A-Z_][A-Z0-9_]*', w)})


def rst_problems(top, paths):
    try:
        import docutils.core
    except ImportError:
        return ['%s has no docutils (Debian: python3-docutils, python3 -m slabpark deps)'
                % sys.executable]
    bad = []
    for path in paths:
        with open(os.path.join(top, path), encoding='utf-8') as f:
            src = f.read()
        if not src.startswith(SPDX_RST + '\n'):
            bad.append("%s: the first line is not '%s'" % (path, SPDX_RST))
        warn = io.StringIO()
        try:
            docutils.core.publish_string(src, source_path=path, writer_name='html',
                                         settings_overrides={
                                             'halt_level': 2, 'report_level': 2,
                                             'warning_stream': warn, 'traceback': True})
        except Exception as e:     # docutils.utils.SystemMessage and more
            bad.append(warn.getvalue().strip() or '%s: %s' % (path, e))
    return bad


def doc_checks(top):
    """(check, [problems], what it checked) of the tree TOP."""
    def read(path):
        with open(os.path.join(top, path), encoding='utf-8') as f:
            return f.read()

    rst = sorted(os.path.relpath(os.path.join(d, f), top) for d, _, fs in
                 os.walk(os.path.join(top, 'Documentation')) for f in fs if f.endswith('.rst'))
    yield ('rst', rst_problems(top, rst) if rst else ['no .rst under Documentation/'],
           '%d .rst files: SPDX line, docutils --strict' % len(rst))

    params = module_params(read(MODULE_SRC))
    section = rst_section(read(STRESS_DOC), 'Module parameters')
    bad = [] if params else ['%s: no module parameter found (has the macro changed?)'
                             % MODULE_SRC]
    bad += ["module parameter '%s' (%s) has no entry ``%s`` in %s's 'Module parameters'"
            % (p, MODULE_SRC, p, STRESS_DOC)
            for p in params if not any(t.startswith('``%s``' % p) for t in section)]
    yield 'module-parameters', bad, '%d in %s' % (len(params), STRESS_DOC)

    series = ''.join(read('patches/' + p) for p in sorted(os.listdir(os.path.join(
        top, 'patches'))) if p.endswith('.patch'))
    park = read(PARK_DOC)
    attrs = sorted({a or b or c for a, b, c in SYSFS_ATTR.findall(series)})
    abi = '\n'.join(patch_added(series, ABI_FILE))
    bad = ["sysfs attribute '%s' has no '+What: /sys/kernel/slab/<cache>/%s' in the series' "
           "%s" % (a, a, ABI_FILE) for a in attrs if not re.search(
               r'^\+What:\s+/sys/kernel/slab/<cache>/%s\s*$' % a, abi, re.M)]
    bad += ["sysfs attribute '%s' is not named as ``%s`` in %s" % (a, a, PARK_DOC)
            for a in attrs if '``%s``' % a not in park]
    yield 'sysfs-attributes', bad, 'the series adds %s' % ' '.join(attrs)

    files = sorted(set(DEBUGFS_FILE.findall(series + read(PARK_SWITCH))))
    bad = ['debugfs file %s: its path /sys/kernel/debug/slab/<cache>/%s is not in %s'
           % (a, a, PARK_DOC) for a in files if '/sys/kernel/debug/slab/<cache>/' + a not in park]
    yield 'debugfs-files', bad, 'the series and %s add %s' % (PARK_SWITCH, ' '.join(files))

    n = len(read('README').splitlines())
    yield ('readme', ['README has %d lines, more than %d: details go to Documentation/'
                      % (n, README_LINES)] if n > README_LINES else [], '%d lines' % n)

    mvars = make_exports(read('Makefile'))
    bad = [] if mvars else ['Makefile: no export line (has it changed?)']
    bad += ["Make variable '%s' (exported by the Makefile) is not in the knob table "
            "(tools/slabpark/config.py KNOBS)" % v for v in mvars if v not in config.BY_NAME]
    bad += ["knob '%s' (tools/slabpark/config.py) is not exported by the Makefile" % k
            for k in config.BY_NAME if k not in mvars]
    yield 'make-variables', bad, '%d, each in the knob table' % len(mvars)


def do_docs(ctx):
    for name, bad, what in doc_checks(TOP):
        ctx.say(*bad, prefix='# ')
        ctx.result(not bad, name, None if bad else what)


# ---- series-bisect: every patch builds mm/ with W=1, no new warnings

def warnings_of(log):
    """The warnings and errors of a build log, less line numbers (code moved compares equal)."""
    return {re.sub(r':[0-9]+:[0-9]+:', ':', t, count=1)
            for t in log.splitlines() if re.match(r'[^ ]+:[0-9]+:[0-9]+: (warning|error):', t)}


def do_series_bisect(ctx):
    """mm/ with W=1 at the base and after each patch, which may add no warning; cached per
    series content."""
    src = ctx.capture(['tools/kernel/kernel-src.sh'])
    ctx.run(['tools/kernel/series.sh', 'apply', '--tree', src], check=True)
    ver = ctx.capture(['make', '-s', '-C', src, 'kernelversion'])
    calls = ('. tools/lib.sh', 'sp_series_hash', 'sp_hash_files tools/kernel/configs/base.config',
             'sp_jobs', '{ ! sp_use_ccache || env | grep ^CCACHE_; }')
    series, cfghash, jobs, *ccache = ctx.capture(['bash', '-c', ' && '.join(calls)]).splitlines()
    cache = os.environ['SLABPARK_CACHE']
    wt = os.path.join(cache, 'src', 'bisect-' + ver)
    bdir = os.path.join(cache, 'build', '%s-bisect-base-%s' % (ver, cfghash))
    stamp = os.path.join(bdir, 'slabpark-bisect.ok')
    os.makedirs(bdir, exist_ok=True)
    # one bisect at a time in the cache's worktree; the lock goes with the file object
    lock = open(bdir + '.lock', 'w')
    fcntl.flock(lock, fcntl.LOCK_EX)
    if os.path.isfile(stamp):
        with open(stamp) as f:
            if f.read().strip() == series:
                ctx.say('series %s: every patch built with W=1 without new warnings (cached)'
                        % series)
                return
    git = ['git', '-C', src]
    tip = ctx.capture(git + ['rev-parse', 'slabpark'])
    if ctx.capture(git + ['config', '--get', 'branch.slabpark.slabparkSeries'],
                   check=False) != series:
        raise Fail("the tree's series branch is not series %s: another clone applied its "
                   "own; run again" % series)
    if not os.path.exists(os.path.join(wt, '.git')):
        shutil.rmtree(wt, ignore_errors=True)
        ctx.run(git + ['worktree', 'prune'], check=True)
        ctx.run(git + ['worktree', 'add', '-q', '--detach', wt, 'base'], check=True)
    make = ['make', '-C', wt, 'O=' + bdir, 'ARCH=x86_64', '-j' + jobs, 'W=1'] + \
        ['CC=ccache gcc'] * bool(ccache)
    env = dict(os.environ, **dict(v.split('=', 1) for v in ccache))
    shutil.copy(os.path.join(TOP, 'tools/kernel/configs/base.config'),
                os.path.join(bdir, 'slabpark.fragment'))
    commits = ctx.capture(git + ['rev-list', '--reverse', 'base..' + tip]).split()
    prev = None
    for i, c in enumerate([ctx.capture(git + ['rev-parse', 'base'])] + commits):
        subj = ctx.capture(git + ['log', '-1', '--format=%s', c])
        ctx.run(['git', '-C', wt, 'checkout', '-q', '--detach', '-f', c], check=True)
        if not os.path.isfile(os.path.join(bdir, '.config')):
            logged(ctx, make + ['KCONFIG_ALLCONFIG=%s/slabpark.fragment' % bdir, 'allnoconfig'],
                   os.path.join(bdir, 'config.log'), env=env)
        log = os.path.join(bdir, 'build-%d.log' % i)
        ctx.say('# [%s] bisect build %d/%d: %s' % (elapsed(), i, len(commits), subj))
        rc, text = into(log, make + ['-k', 'mm/'], 'w', env=env)  # -k: errors listed too
        cur = warnings_of(text)
        if rc:
            ctx.say(*[t for t in text.splitlines() if 'error' in t][:20])
            ctx.result(False, subj)
            raise Fail("mm/ does not build at '%s' (log: %s)" % (subj, log))
        if prev is None:
            ctx.say('base: %d W=1 warning(s) in mm/ before the series' % len(cur))
        else:
            ctx.say(*sorted(cur - prev))
            if not ctx.result(cur <= prev, subj):
                raise Fail("'%s' adds W=1 warnings (log: %s)" % (subj, log))
        prev = cur
    with open(stamp, 'w') as f:
        f.write(series + '\n')


# ---- kselftest-intree: the collection as a CI (KernelCI, LKFT) builds it

INTREE_LIST = 'slub_park:ksft_slub_park.sh'
INTREE_FILES = ['run_kselftest.sh', 'kselftest/runner.sh', 'kselftest/ktap_helpers.sh',
                'kselftest-list.txt'] + ['slub_park/' + f for f in (
                    'ksft_slub_park.sh slub_park.sh slub_park_lib.sh runs.sh parking.sh '
                    'lifecycle.sh params.sh slub_park_params settings config splat.ere '
                    'param_fuzz.txt slub_stress/slub_stress.ko').split()]
INTREE_PROG = 'slub_park_params'     # TEST_GEN_PROGS_EXTENDED, static for the guest


def vermagic(ko):
    m = re.search(rb'\0vermagic=([^ \0]*)', ko)
    return m.group(1).decode('utf-8', 'replace') if m else None


def intree_result(ctx, bad, name, what):
    ctx.say(*bad or [what])
    ctx.result(not bad, name)
    if bad:
        raise Fail('kselftest-intree: %s failed' % name)


def do_kselftest_intree(ctx):
    """Built against the patched kernel's O= build in a scratch copy of the kernel tree's
    tools/testing/selftests (only O's kselftest/ written to): static, a KDIR other than O
    refused, installed with kselftest_install.sh (which step guest-patched runs)."""
    bdir = os.path.realpath(build_kernel(ctx, '--variant', 'patched'))
    with open(os.path.join(bdir, 'include/config/kernel.release')) as f:
        release = f.read().strip()
    # a CI names the kernel build with O= alone (make exports the running kernel's KDIR)
    env = {k: v for k, v in os.environ.items() if k != 'KDIR'}
    out = os.path.join(os.environ['SLABPARK_CACHE'], 'kselftest-intree')
    tree, inst, log = (os.path.join(out, f) for f in ('tree', 'install', 'log'))
    ksft = os.path.join(tree, 'tools/testing/selftests')
    park = os.path.join(ksft, 'slub_park')
    make = ['make', '-C', ksft, 'TARGETS=slub_park', 'O=' + bdir]
    t0 = time.time()
    # one at a time: the scratch tree and O's kselftest/ are every clone's of this cache
    with open(out + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(inst)
        os.makedirs(tree)
        ctx.run(['cp', '-a', '--parents', 'tools/testing/selftests', 'scripts/subarch.include',
                 tree], cwd=vm.source_tree(bdir), check=True)
        # as a CI's cp -r of its checkout: the files git has, not what is left untracked here
        for f in git_files('selftests/slub_park'):
            if os.path.lexists(os.path.join(TOP, f)):   # not deleted
                dst = os.path.join(park, os.path.relpath(f, 'selftests/slub_park'))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(os.path.join(TOP, f), dst, follow_symlinks=False)
        c = os.path.join(park, 'slub_stress/slub_stress.c')
        intree_result(ctx, ['cp -r did not carry the module source (selftests/slub_park/'
                            'slub_stress/slub_stress.c must be a file git has, not a link)']
                      if os.path.islink(c) or not os.path.isfile(c) or not os.path.getsize(c)
                      else [], 'scratch-tree', tree)

        logged(ctx, make + ['USERLDFLAGS=-static'], log, env=env)
        ko = os.path.join(park, 'slub_stress/slub_stress.ko')
        bad = ['the build made no %s (log: %s)' % (ko, log)]
        if os.path.isfile(ko):
            with open(ko, 'rb') as f:
                magic = vermagic(f.read())
            bad = [] if magic == release else ['%s has vermagic %s, the kernel of %s is %s'
                                               % (ko, magic, bdir, release)]
        prog = os.path.join(bdir, 'kselftest/slub_park', INTREE_PROG)
        if not os.access(prog, os.X_OK):
            bad.append("no %s (O='s kselftest output)" % prog)
        elif 'statically linked' not in ctx.capture(['file', prog]):
            bad.append('%s is not static: USERLDFLAGS=-static did not reach lib.mk' % INTREE_PROG)
        intree_result(ctx, bad, 'build', 'slub_stress.ko (vermagic %s), %s (static)'
                      % (release, INTREE_PROG))

        p = child(make + ['-s', 'KDIR=%s/not-a-kernel' % out], env=env, capture=True)
        refusal = [t for t in (p.stdout + p.stderr).splitlines()
                   if re.search('slub_park: KDIR=.* differs from O=', t)]
        intree_result(ctx, [] if p.returncode and len(refusal) == 1 else [
            p.stdout + p.stderr, "want a failure with one 'KDIR=... differs from O=' line, got "
            "status %d" % p.returncode], 'kdir-refused', refusal[:1] and refusal[0])

        logged(ctx, ['./kselftest_install.sh', inst], log, cwd=ksft, env=dict(
            env, MAKEFLAGS='TARGETS=slub_park USERLDFLAGS=-static', KBUILD_OUTPUT=bdir))
        bad = ['kselftest_install.sh left no %s/%s' % (inst, f) for f in INTREE_FILES
               if not os.path.exists(os.path.join(inst, f))]
        if not bad:     # -l lists kselftest-list.txt
            listed = ctx.capture([os.path.join(inst, 'run_kselftest.sh'), '-l'])
            bad = [] if listed == INTREE_LIST else ["run_kselftest.sh -l lists '%s'" % listed]
        intree_result(ctx, bad, 'install', 'run_kselftest.sh -l lists ' + INTREE_LIST)
    ctx.say('built and installed in %d s: %s' % (time.time() - t0, inst))


# ---- the guest steps: guest-*, race-widen, boot-*, debug-gate*, kunit-mutants

def boot(ctx, bdir, label, script, args, stages, **kw):
    """tools/guest/SCRIPT ARGS in a guest of BDIR's kernel with STAGES (SRC:DST; KW: more of
    vm.run's arguments), its files in $SLABPARK_LOGDIR/check/LABEL/: (its status, that dir)."""
    out = os.path.join(os.environ['SLABPARK_LOGDIR'], 'check', label)
    return vm.run(bdir, 'tools/guest/' + script, args, out, stages, emit=ctx.line, **kw), out


def guest(label, kernel, suites, build, **kw):
    """Boot build-kernel.sh BUILD's kernel running guest-check.sh KERNEL SUITES with the stage;
    then the host's checks of the files (slabpark.guest_out, slabpark.guest_judge).  SUITES
    may be a function of the step's Context: (suites, more stages SRC:DST)."""
    def run(ctx):
        want, more = suites(ctx) if callable(suites) else (suites, ())
        bdir = build_kernel(ctx, *build)
        rc, out = boot(ctx, bdir, label, 'guest-check.sh', [kernel, *want],
                       [vm.stage(bdir, ctx.line) + ':.', *more], **kw)
        files = os.path.join(out, 'files')
        if not (guest_out.check(ctx, files, kernel, want) &
                guest_judge.check(ctx, files, kernel, want, bdir)):
            raise Fail('the files the guest returned failed their checks')
        return rc
    return run


def debug_kernel(ctx, variant):
    """build-kernel.sh VARIANT's debug kernel, with kmemleak and slub_kunit.ko: (it, its stage)."""
    bdir = build_kernel(ctx, '--variant', variant, '--config', 'debug')
    with open(os.path.join(bdir, '.config')) as f:
        if not re.search('^CONFIG_DEBUG_KMEMLEAK=y', f.read(), re.M):
            raise Fail('%s is not a debug kernel (no CONFIG_DEBUG_KMEMLEAK)' % bdir)
    stage = vm.stage(bdir, ctx.line)
    if not os.path.isfile(os.path.join(stage, 'kunit/slub_kunit.ko')):
        raise Fail('no slub_kunit.ko in %s: the debug kernel needs CONFIG_SLUB_KUNIT_TEST=m'
                   % bdir)
    return bdir, stage


def last_line(path, prefix):
    try:
        with open(path, errors='replace') as f:
            return [t[len(prefix):].strip() for t in f if t.startswith(prefix)][-1]
    except (OSError, IndexError):
        return None


def guest_timeout(default):
    return None if os.environ.get('GUEST_TIMEOUT') else default     # None: vm.run's


def debug_gate(mode):
    """tools/guest/guest-debug-gate.sh (any splat fails) on the patched debug kernel, every
    cache at its default parking mode (MODE default) or park=2 (park2); the park2 boot
    leaves the groups that do not depend on the mode to the default boot."""
    def run(ctx):
        bdir, stage = debug_kernel(ctx, 'patched')
        name = 'debug-gate-' + mode
        skips = ('kselftest', 'fuzz-params', 'rmmod') if mode == 'park2' else ()
        t0 = time.time()
        with ctx.subtest(name) as st:
            rc, out = boot(ctx, bdir, name, 'guest-debug-gate.sh', [mode, *skips],
                           [stage + ':.'], timeout=guest_timeout(3000))
            line = last_line(os.path.join(out, 'console.txt'), 'SLABPARK-DEBUG-GATE ')
            judged = guest_judge.check(
                ctx, os.path.join(out, 'files'), 'debug',
                [g for g in ('kunit', 'kselftest', 'kmemleak') if g not in skips], bdir)
            st.ok = rc == 0 and bool(line) and judged
            st.directive = '%ds %s' % (time.time() - t0, line) if st.ok else \
                '%ds, guest status %d, %s; console: %s/console.log' % (
                    time.time() - t0, rc, line or 'no summary', out)
    return run


# slub_break_parking= modes of tools/kernel/bench-patches/break-parking.patch; the cases
# each must fail: tools/guest/guest-kunit-mutants.sh
BREAK_MODES = (0, 1, 2, 4, 8, 16, 32, 64)


def do_kunit_mutants(ctx):
    """slub_kunit's parking cases on the debug kernel with parking broken on purpose, a
    boot per mode: each fails exactly the cases that test what it breaks."""
    bdir, stage = debug_kernel(ctx, 'break')
    lib = 'kselftest/slub_park/slub_park_lib.sh'
    for m in BREAK_MODES:
        with ctx.subtest('break-mode-%d' % m) as st:
            rc, out = boot(ctx, bdir, 'kunit-mutant-%d' % m, 'guest-kunit-mutants.sh', [str(m)],
                           [stage + '/tools:tools', stage + '/kunit:kunit',
                            '%s/%s:%s' % (stage, lib, lib)],
                           append='slub_break_parking=%d kunit.filter_glob=%s' % (
                               m, guest_judge.mutant_glob(m)), timeout=guest_timeout(900))
            st.ok = guest_judge.result(ctx, 'mode-%d-host' % m, guest_judge.mutant(
                guest_judge.read(out, 'files/kunit-slub_test.ktap'), m)) and rc == 0
            if rc:
                st.directive = 'guest status %d, console: %s/console.log' % (rc, out)


# ---- the other steps, and the step kinds of the table

def cmd(*argv):
    return lambda ctx: ctx.run(list(argv))


def ksrc(why):
    """skip= of a step that needs the bench tree, not KSRC's."""
    return lambda env: 'KSRC set: ' + why if env.get('KSRC') else None


def NODEBUG(env):
    return 'CHECK_DEBUG=0: debug gate not run' if env.get('CHECK_DEBUG', '1') == '0' else None


def do_deps(ctx):
    ctx.run([sys.executable, '-m', 'slabpark', 'deps'],
            env={'PYTHONPATH': os.path.join(TOP, 'tools')}, check=True)


def shell_files():
    """(bash files, sh files): the tracked shell scripts by their #! line."""
    bash, sh = [], []
    for f in git_files('*.sh', '.ci/run', 'tools/vm/init'):
        with open(os.path.join(TOP, f), errors='replace') as fh:
            (sh if re.match(r'#!/bin/(busybox )?sh', fh.readline()) else bash).append(f)
    return bash, sh


def do_shellcheck(ctx):
    bash, sh = shell_files()
    ctx.run(['shellcheck', '-x', *bash], check=True)
    ctx.run(['shellcheck', '-s', 'sh', '-x', *sh], check=True)
    ctx.say('ShellCheck clean: %d bash and %d sh scripts' % (len(bash), len(sh)))


def do_python_lint(ctx):
    files = git_files('*.py')     # pyflakes3: a file that does not compile too
    ctx.result(ctx.run(['pyflakes3', *files]) == 0, 'pyflakes3')
    if shutil.which('flake8'):
        ctx.result(ctx.run(['flake8', '--config', 'tools/slabpark/setup.cfg', *files]) == 0,
                   'flake8')
    else:
        ctx.result(True, 'flake8', 'SKIP not installed (Debian: flake8)')


# make run's refusals (slabpark.config), exit status 2 before anything is built or booted:
# (the knobs, the regex of its line after "slabpark: error: ")
RUN_REFUSALS = (
    ({'BASE': '2'}, 'BASE=2: must be 0 or 1'),
    ({'BOOTS': '0'}, 'BOOTS=0: must be a positive integer'),
    ({'RUNS': 'x'}, 'RUNS=x: must be a positive integer'),
    ({'WORKLOAD': 'mmap2'}, r'WORKLOAD=mmap2: unknown \(.*mmap1, mmapaddr\)'),
    ({'TASKS': 'x'}, 'TASKS=x: must be a positive integer'),
    ({'MODES': '3'}, "MODES=3: unknown mode '3'"),
    ({'PLACEMENTS': 'far'}, "PLACEMENTS=far: unknown placement 'far'"),
    ({'SWEEP': 'barn'}, 'SWEEP=barn: unknown'),
    ({'NODES': '1'}, 'NODES=1: cross and balanced need 2 nodes'),
    ({'NODES': '1', 'PLACEMENTS': 'cross'}, 'NODES=1: cross and balanced need '
     '2 nodes'),
    ({'MIN_PARTIAL': '1', 'BASE': '1'}, 'MIN_PARTIAL=1: .*not with BASE=1'),
    ({'WORKLOAD': 'mmap1', 'LOCKSTAT': '1'}, 'LOCKSTAT=1: .*not lock_stat'),
    ({'WORKLOAD': 'mmap1', 'MIN_PARTIAL': '1'}, 'MIN_PARTIAL=1: .*one at a time'),
    ({'BASE': '1', 'MEASURE': '1'}, 'MEASURE=1: goes with the plain module comparison only'),
    ({'FLUSH': 'yes'}, 'FLUSH=yes: must be 0 or 1'),
    ({'FLUSH': '1', 'MIN_PARTIAL': '1'}, 'FLUSH=1: .*one at a time'),
    ({'FLUSH': '1', 'HOST': '1'}, 'HOST=1: runs the module comparison only'),
    ({'BOOTS': '3'}, 'BOOTS=3: goes with BASE=1'),
    ({'BASE': '1', 'PATCHES': 'none'}, 'BASE=1: .*not with PATCHES=none'),
    ({'BASE': '1', 'KSRC': '/'}, 'BASE=1: .*not with KSRC='),
    ({'KSRC': '/nonexistent'}, 'KSRC=/nonexistent: no such directory'),
    ({'NODES': '9'}, 'NODES=9: must be 1..8'),
    ({'CPUS_PER_NODE': '33'}, 'CPUS_PER_NODE=33: must be 1..32'),
    ({'RESULTS_DIR': '/etc/hostname'}, 'RESULTS_DIR=/etc/hostname: exists and is not a directory'),
    ({'MEASURE': '1', 'PATCHES': 'none'}, 'MEASURE=1: .*not with PATCHES'),
    ({'MODES': '1 1'}, 'MODES=1 1: mode 1 twice'),
    ({'WORKLOAD': 'mmap1', 'TASKS': '1025'}, 'TASKS=1025: at most 1024'),
    ({'WORKLOAD': 'mmap1', 'DURATION_MS': '500'}, r'DURATION_MS=500: .*whole seconds \(>= 1000\)'),
    ({'MIN_PARTIAL': '1', 'MODES': '1'}, 'MODES=1: .*not MIN_PARTIAL=1'),
    ({'ALLOC_NODE': '1', 'FREE_NODE': '1'}, 'FREE_NODE=1: the same node as ALLOC_NODE'),
    ({'GUEST_TIMEOUT': '-1'}, 'GUEST_TIMEOUT=-1: must be a positive integer'),
    ({'RESULTS_DIR': TOP}, 'RESULTS_DIR=.*: not empty'),
    ({'NODES': '2', 'ALLOC_NODE': 'x'}, 'ALLOC_NODE=x: not a node number'),
    ({'NODES': '2', 'FREE_NODE': '2'}, r'FREE_NODE=2: the guest has nodes 0..1 \(NODES=2\)'),
)


def knobs(case):
    return ' '.join('%s=%s' % kv for kv in case.items())


def do_python(ctx):
    """The package's unit tests, and RUN_REFUSALS from a copy of the package alone (which
    a refusal that fails cannot build or boot with)."""
    with ctx.subtest('unittest') as ut:
        ut.ok = ctx.run([sys.executable, '-m', 'slabpark', 'test'],
                        env={'PYTHONPATH': os.path.join(TOP, 'tools')}) == 0
    with ctx.subtest('run-refusals') as st, tempfile.TemporaryDirectory() as work:
        copy_package(work)
        bad = ['make run ' + knobs(case) for case, why in RUN_REFUSALS if not host_case(
            ctx, work, ('make run ' + knobs(case), 2, ERR + why, case, make_run('{work}')))]
        st.ok = not bad
    if bad or not ut.ok:
        raise Fail('tools/slabpark: failed: ' + ', '.join(['the unit tests'] * (not ut.ok) + bad))
    ctx.say('tools/slabpark: unit tests and %d refusals pass' % len(RUN_REFUSALS))


# MISSING_SIGN_OFF: by Documentation/process/coding-assistants.rst the submitter adds it.
# UNKNOWN_COMMIT_ID: Debian's tarball has no history to look a Fixes: id up in.
CHECKPATCH_PATCH_IGNORE = 'MISSING_SIGN_OFF,UNKNOWN_COMMIT_ID'
# checkpatch -f of the tracked sources, but links: (glob, types ignored), the first match.
# MACRO_ARG_REUSE: __param() (lib/test_vmalloc.c's) pastes an identifier, no side effects.
# The kselftest_harness.h program: EXPECT_*() ends in a for-loop, so one under if() keeps
# its braces (BRACES); FIXTURE_DATA(slab) *self is a type (SPACING); exact stat equality
# is asserted on x86 only (ARCH_DEFINES).
CHECKPATCH_SOURCES = (
    ('selftests/slub_park/slub_stress/*.c', 'MACRO_ARG_REUSE'),
    ('mm/*.c', 'MACRO_ARG_REUSE'),
    ('selftests/slub_park/*.c', 'MACRO_ARG_REUSE,BRACES,SPACING,ARCH_DEFINES'),
)
CHECKPATCH_CLEAN = 'total: 0 errors, 0 warnings, 0 checks'


def do_checkpatch(ctx):
    """checkpatch.pl --strict of each patch and tracked source, from a neutral directory
    (inside a git work tree it can take a tracked .patch for a source file)."""
    cp = os.path.join(ctx.capture(['tools/kernel/kernel-src.sh']), 'scripts/checkpatch.pl')
    jobs = {os.path.basename(f): ['--ignore', CHECKPATCH_PATCH_IGNORE, f] for f in sorted(
        glob.glob(os.path.join(TOP, 'patches/0*.patch'))) if '/0000-cover-letter' not in f}
    for pat, ignore in CHECKPATCH_SOURCES:
        for f in git_files(pat):
            if f not in jobs and not os.path.islink(os.path.join(TOP, f)):
                jobs[f] = ['--no-tree', '--ignore', ignore, '-f', os.path.join(TOP, f)]
    with tempfile.TemporaryDirectory() as neutral:
        for name, args in jobs.items():
            out = child([cp, '--strict', '--show-types', *args], cwd=neutral, capture=True)
            out = out.stdout + out.stderr
            total = [t for t in out.splitlines() if t.startswith('total:')]
            ctx.say('%s: %s' % (name, total[-1] if total else '(no total)'))
            if CHECKPATCH_CLEAN not in out:
                ctx.say(out)
            ctx.result(CHECKPATCH_CLEAN in out, name)


def do_bench_patches(ctx):
    """Each patch of tools/kernel/bench-patches/ applies as build-kernel.sh stacks them:
    park-switch on the series, each other on the series + park-switch (in a temporary
    index on the series branch's tree)."""
    src = ctx.capture(['tools/kernel/kernel-src.sh'])
    ctx.capture(['tools/kernel/series.sh', 'apply', '--tree', src])
    git = ['git', '-C', src]
    for p in sorted(glob.glob(os.path.join(TOP, os.path.dirname(PARK_SWITCH), '*.patch'))):
        rel = os.path.relpath(p, TOP)
        on, below = ('the series', []) if rel == PARK_SWITCH else \
            ('the series + park-switch', [os.path.join(TOP, PARK_SWITCH)])
        with tempfile.TemporaryDirectory() as tmp:
            idx = {'GIT_INDEX_FILE': os.path.join(tmp, 'index')}
            ctx.run(git + ['read-tree', 'slabpark'], env=idx, check=True)
            if below and ctx.run(git + ['apply', '--cached', *below], env=idx):
                bad = '%s does not apply to the series' % PARK_SWITCH
            elif ctx.run(git + ['apply', '--cached', '--check', p], env=idx):
                bad = '%s does not apply to %s: rebase it (see its branch in README)' % (rel, on)
            else:
                bad = None
        ctx.say(bad or '%s applies to %s' % (rel, on))
        ctx.result(not bad, rel)


def matrix(cfg):
    """The series alone: mm/slub.o with W=1 in CFG, then with slub_kunit and its parking
    cases (kunit.config: DEBUG_VM, KPROBES) where CFG can have it (not SLUB_TINY)."""
    def run(ctx):
        for c, targets in ((cfg, ['mm/slub.o']), (cfg + '+kunit', [
                'mm/slub.o', 'lib/tests/slub_kunit.o']))[:1 if cfg == 'tiny' else 2]:
            bdir = build_kernel(ctx, '--variant', 'series', '--config', c,
                                '--target', ' '.join(targets), '--w1')
            with open(os.path.join(bdir, 'build.log'), errors='replace') as f:
                warn = [t.rstrip('\n') for t in f if re.match(
                    r'[^ ]*(mm/slub|lib/tests/slub_kunit)\.c:[0-9]+:[0-9]+: (warning|error)', t)]
            missing = ['%s was not built with config %s' % (o, c) for o in targets
                       if not os.path.isfile(os.path.join(bdir, o))]
            ctx.say(*warn + missing)
            if not ctx.result(not warn and not missing, c):
                raise Fail('W=1 warnings with config %s' % c if warn else
                           'not built with config %s' % c)
            ctx.say('%s build with W=1 and no warnings: base + %s'
                    % (' '.join(targets), c.replace('+', ' + ')))
    return run


# ---- the steps

# needs: the steps that must pass before in the same call; full: make check-full only;
# skip: a function of the environment, the reason it does not apply
Step = collections.namedtuple('Step', 'name run needs full skip what',
                              defaults=((), False, None, ''))


SUITES = ('kselftest', 'slab-window', 'host-mode')


def intree(ctx):
    """guest-patched's suites: the in-tree install's kselftest when step kselftest-intree
    made it, else the collection's own."""
    if ctx.results.get('kselftest-intree') != 'pass':
        return SUITES, ()
    return ('kselftest-intree',) + SUITES[1:], (os.path.join(
        os.environ['SLABPARK_CACHE'], 'kselftest-intree/install') + ':kselftest-intree',)


STEPS = (
    Step('deps', do_deps, what='python3 -m slabpark deps'),
    Step('shellcheck', do_shellcheck, what='shellcheck -x of every script'),
    Step('python-lint', do_python_lint, what='pyflakes3, flake8 of every Python file'),
    Step('host-refusals', do_host_refusals,
         what="make run HOST=1's refusals on fake trees and this host"),
    Step('docs', do_docs, what='every .rst valid; parameters, attributes, variables named'),
    Step('kernel-source', cmd('tools/kernel/kernel-src.sh'), what='the 7.3 tree'),
    # after kernel-source: test_check's reading by the tree's kunit_parser.py runs, not
    # skips, on a fresh cache
    Step('python', do_python, what="tools/slabpark's unit tests, make run's refusals"),
    Step('checkpatch', do_checkpatch, what='checkpatch --strict of the patches and sources'),
    Step('series-bisect', do_series_bisect, skip=ksrc('the series is not applied to your tree'),
         what='every patch builds mm/ with W=1, no new warnings'),
    Step('bench-patches', do_bench_patches, skip=ksrc('the bench patches are for the bench tree'),
         what='each bench-only patch applies to the series'),
    *(Step('matrix-' + c, matrix(c), skip=ksrc('the build matrix is for the bench tree'),
           what='mm/slub.o (and slub_kunit.o) with W=1, config ' + c)
      for c in ('numa-off', 'stats-off', 'tiny', 'rt', 'i386')),
    Step('kernel-patched', cmd('tools/kernel/build-kernel.sh', '--variant', 'patched'),
         what='the patched kernel'),
    Step('kernel-base', cmd('tools/kernel/build-kernel.sh', '--variant', 'base'),
         skip=ksrc('there is no separate base kernel'), what='the base kernel'),
    Step('kselftest-intree', do_kselftest_intree, needs=('kernel-patched',),
         what='the kselftest built and installed in the kernel tree'),
    Step('guest-patched', guest('patched', 'patched', intree, ('--variant', 'patched')),
         needs=('kernel-patched',), what='2-node guest, patched kernel'),
    Step('guest-base', guest('base', 'base', SUITES + ('topology',), ('--variant', 'base'),
                             shape='cpuless4'),
         needs=('kernel-base',), skip=ksrc('there is no separate base kernel'),
         what='4-node guest (a memory-only node), base kernel'),
    Step('race-widen', guest('widen', 'patched', ('race-widen',), ('--variant', 'widen')),
         needs=('kernel-patched',), skip=ksrc('the widen kernel is built from the bench tree'),
         what='guest-race-widen.sh on the widen kernel'),
    # its park2 boot in check-full only (make check near 20 min warm)
    Step('debug-gate', debug_gate('default'), skip=NODEBUG,
         what='debug kernel: slub_kunit, kselftest, stress, fuzz, kmemleak'),
    Step('debug-gate-park2', debug_gate('park2'), full=True, skip=NODEBUG,
         what='the debug gate with every cache at park=2'),
    # slub_kunit's slow kprobe case included (no KASAN); W=1 as the matrix entries of the
    # same configuration, which share the build directory
    Step('boot-rt', guest('rt', 'rt', ('kselftest', 'kunit'),
                          ('--variant', 'patched', '--config', 'rt+kunit', '--w1')),
         full=True, skip=ksrc('the RT kernel is built from the bench tree'),
         what='PREEMPT_RT guest: kselftest, slub_kunit'),
    Step('boot-numa-off', guest('uma', 'uma', ('kselftest', 'kunit'),
                                ('--variant', 'patched', '--config', 'numa-off+kunit', '--w1'),
                                nodes=1, cpus_per_node=4),
         full=True, skip=ksrc('the UMA kernel is built from the bench tree'),
         what='CONFIG_NUMA=n guest: kselftest, slub_kunit'),
    Step('kunit-mutants', do_kunit_mutants, full=True,
         skip=ksrc('the break kernel is built from the bench tree'),
         what='slub_kunit on kernels with parking broken on purpose'),
)


# ---- make soak: not a step of make check

# setting: (default, pattern, what it must be)
SOAK_SETTINGS = {
    'DURATION': ('600', '[1-9][0-9]*', 'a positive number of seconds'),
    'DEBUG': ('0', '[01]', '0 or 1'),
    'NO_SHEAVES': ('random', '0|1|random', '0, 1 or random'),
    'NODES': ('2', '[1-9][0-9]*', 'a positive integer'),
    'CPUS_PER_NODE': ('2', '[1-9][0-9]*', 'a positive integer'),
}


def soak_settings(env):
    s = {k: env.get(k) or v[0] for k, v in SOAK_SETTINGS.items()}
    for k, (_, pattern, must) in SOAK_SETTINGS.items():
        if not re.fullmatch(pattern, s[k]):
            raise ValueError('%s=%s: must be %s' % (k, s[k], must))
    return s


def soak():
    """tools/guest/guest-soak.sh, DURATION randomized seconds with invariant checks, on the
    patched kernel (DEBUG=1: the debug kernel); NO_SHEAVES: each load with (0) or without
    (1) sheaves, or random; the guest's timeout with a margin for the boot, the last run and
    kmemleak."""
    env = setup_env()
    try:
        s = soak_settings(env)
        dur = int(s['DURATION'])
        cfg, margin = ([], 300 + dur // 10) if s['DEBUG'] == '0' else \
            (['--config', 'debug'], 600 + dur // 5)
        os.chdir(TOP)
        out = os.path.join(env['SLABPARK_CACHE'], 'runs', time.strftime('soak-%Y%m%d-%H%M%S'))
        bdir = subprocess.run(['tools/kernel/build-kernel.sh', *cfg], stdout=subprocess.PIPE,
                              text=True, check=True).stdout.strip()
        stage = vm.stage(bdir, lambda t: print(t, file=sys.stderr))
        print('[%s] soak: %ds on %s (guest timeout %ds, output %s)' % (
            elapsed(), dur, bdir, dur + margin, out), file=sys.stderr)
        rc = vm.run(bdir, 'tools/guest/guest-soak.sh', [s['DURATION'], s['NO_SHEAVES']], out,
                    [stage + ':.'], int(s['NODES']), int(s['CPUS_PER_NODE']),
                    timeout=dur + margin, emit=lambda t: print(t, flush=True))
    except subprocess.CalledProcessError as e:
        print('slabpark: error: %s failed' % e.cmd[0], file=sys.stderr)
        return 1
    except (ValueError, vm.Error) as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1
    line = last_line(os.path.join(out, 'console.txt'), 'SLABPARK-SOAK ')
    print('soak: ' + (line or 'no summary from the guest'))
    if rc or not line:      # no summary: the guest script did not end
        print('soak: FAILED (guest status %d; console: %s/console.log)' % (rc, out),
              file=sys.stderr)
        return 1
    print('soak: passed')
    return 0
