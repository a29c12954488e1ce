# SPDX-License-Identifier: GPL-2.0
"""The steps of make check, each checking what is data beside it, and
their table STEPS, which slabpark.check runs; and make soak.
"""

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

from . import config, guest_out, vm
from .check import TOP, Fail, child, elapsed, setup_env


def git_files(*patterns, others=False):
    """The tracked files (OTHERS: and those git would add) of PATTERNS;
    Fail outside a git checkout."""
    more = ['--others', '--exclude-standard'] if others else []
    p = child(['git', 'ls-files', '--cached', *more, '--', *patterns],
              cwd=TOP, capture=True)
    if p.returncode:
        raise Fail('%s: needs a git checkout (git ls-files: %s)' % (
            TOP, p.stderr.strip()))
    return sorted(set(p.stdout.split()))


def build_kernel(ctx, *args):
    """tools/kernel/build-kernel.sh ARGS: the build directory."""
    return ctx.capture(['tools/kernel/build-kernel.sh', *args])


# ---- host-refusals: make run HOST=1's prerequisite checks on fake trees

MODULE = 'slub_stress'
ERR = '^slabpark: error: '
NODE = 'devices/system/node/'


def fake_tree(leave=()):
    """{path: text, or None for a directory} of a sysfs tree with every
    prerequisite of make run HOST=1 on a 2-node patched kernel, but those
    LEAVE names: nodes (one online), numa, stats, park (the debugfs
    switch), debugfs (not mounted); loaded adds module/slub_stress."""
    t = {'kernel/debug': None, 'module': None}
    if 'numa' not in leave:
        t[NODE + 'node0/cpulist'] = '0-1'
        t[NODE + 'node1/cpulist'] = '2-3'
        t[NODE + 'online'] = '0' if 'nodes' in leave else '0-1'
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
    return t


CPU = 'devices/system/cpu/cpu%d/topology/'
# name: (the parts fake_tree leaves out, files written on top)
FAKE_TREES = {
    'full': ((), {}),
    'onenode': (('nodes',), {}),
    'numa-off': (('numa',), {}),
    'nostats': (('stats',), {}),
    'nopark': (('park',), {}),
    'nostats-nopark': (('stats', 'park'), {}),
    'nodebugfs': (('debugfs',), {}),
    'loaded': (('loaded',), {}),
    # the v5 sysfs park only
    'oldpark': (('park',), {'kernel/slab/kmalloc-64/park': '1'}),
    # 3 nodes, node 1 with memory but no CPUs (a CXL/HBM node)
    'cpuless': ((), {NODE + 'node1/cpulist': '', NODE + 'node2/cpulist':
                     '2-3', NODE + 'online': '0-2',
                     NODE + 'has_normal_memory': '0-2'}),
    # node 1 with CPUs but without normal memory (a memoryless freer)
    'memless': ((), {NODE + 'has_normal_memory': '0'}),
    # each node one core of 2 SMT threads
    'smt': ((), dict({'devices/system/cpu/online': '0-3'}, **{
        CPU % c + f: v for c in range(4) for f, v in (
            ('physical_package_id', str(c // 2)),
            ('thread_siblings_list', '%d-%d' % (c // 2 * 2, c // 2 * 2 + 1)))})),
}


def write_tree(root, tree):
    """TREE ({path: text, None for a directory}) under ROOT"""
    for path, text in tree.items():
        p = os.path.join(root, path)
        os.makedirs(p if text is None else os.path.dirname(p), exist_ok=True)
        if text is not None:
            with open(p, 'w') as f:
                f.write(text + '\n' if text else '')


def make_run(top, *args):
    """make run (python3 -m slabpark run ARGS) of the tree TOP"""
    return ('env', 'PYTHONPATH=%s/tools' % top, 'python3', '-m',
            'slabpark', 'run', *args)


# HOST=1 python3 -m slabpark run --check-only on the complete fake tree and
# a fake KDIR, make run's knobs unset; a case's settings go on top
HOST_CHECK = {'HOST': '1', 'SLABPARK_SYSFS': 'full', 'KDIR': '{work}/kdir',
              'HOST_BASE_ONLY': '', 'HOST_MODULE': '', 'RUNS': '',
              'DURATION_MS': '', 'PLACEMENTS': '', 'LOCKSTAT': '',
              'MEASURE': '', 'SWEEP': ''}
CHECK_ONLY = make_run('{top}', '--check-only')
# (what, exit status, the one line's regex: on stderr for a refusal, on
# stdout for a pass, settings[, command]).  Without a command: CHECK_ONLY,
# the settings on top of HOST_CHECK; with one, on top of make check's
# environment.  SLABPARK_SYSFS names a FAKE_TREES tree; {top}: this tree;
# {work}: the step's scratch directory (kdir, bogus.ko, vmtop: a copy of
# tools/slabpark alone, which cannot build or boot); None unsets.  make
# run's refusals of a knob exit 2 (slabpark.config), run-host.sh's 1.
HOST_REFUSALS = (
    ('complete tree passes', 0, '^slabpark: prerequisites ok: 2 nodes, SLUB '
     'counters, park switch, kernel ', {}),
    ('no park switch, HOST_BASE_ONLY=1: passes, base only', 0,
     r'prerequisites ok: .*no park switch \(base only\)',
     {'SLABPARK_SYSFS': 'nopark', 'HOST_BASE_ONLY': '1'}),
    ('one online node: refused', 1, ERR + r'this machine has 1 online NUMA '
     r'node\(s\) .*needs 2', {'SLABPARK_SYSFS': 'onenode'}),
    ('no NUMA (no node/online): refused', 1,
     ERR + r'this machine has 0 online NUMA node\(s\)',
     {'SLABPARK_SYSFS': 'numa-off'}),
    ('no SLUB_STATS: refused', 1,
     ERR + 'kernel .* has no SLUB counters .*CONFIG_SLUB_STATS=y',
     {'SLABPARK_SYSFS': 'nostats'}),
    ('no park switch: refused, unpatched, base-only offered', 1,
     ERR + 'kernel .* has no park switch .*unpatched.*rerun with '
     'HOST_BASE_ONLY=1 for base-only numbers', {'SLABPARK_SYSFS': 'nopark'}),
    ('no stats and no park switch: the stats are named first', 1,
     ERR + '.*has no SLUB counters', {'SLABPARK_SYSFS': 'nostats-nopark'}),
    ('debugfs not mounted: refused as such, not as unpatched (the switch is '
     'in debugfs)', 1, ERR + 'debugfs is not mounted',
     {'SLABPARK_SYSFS': 'nodebugfs'}),
    ("debugfs not mounted, HOST_BASE_ONLY=1: refused (the module's controls "
     "are there)", 1, ERR + 'debugfs is not mounted',
     {'SLABPARK_SYSFS': 'nodebugfs', 'HOST_BASE_ONLY': '1'}),
    ('the v5 sysfs park only (no debugfs switch): refused as unpatched', 1,
     ERR + r'kernel .* has no park switch \(no .*/kernel/debug/slab/\*/park\)',
     {'SLABPARK_SYSFS': 'oldpark'}),
    ('no kernel build tree (KDIR): refused', 1,
     ERR + 'no build tree for the running kernel .* at /nonexistent/kdir: '
     'install linux-headers-', {'KDIR': '/nonexistent/kdir'}),
    ('HOST_MODULE missing: refused', 1,
     ERR + 'HOST_MODULE=/nonexistent/slub_stress.ko: no such file',
     {'HOST_MODULE': '/nonexistent/slub_stress.ko'}),
    ('HOST_MODULE not built for this kernel: refused', 1,
     ERR + 'HOST_MODULE=.* was built for kernel .*, this is ',
     {'HOST_MODULE': '{work}/bogus.ko'}),
    ('slub_stress already loaded: refused', 1,
     ERR + 'slub_stress is already loaded: unload it',
     {'SLABPARK_SYSFS': 'loaded'}),
    ('SLABPARK_SYSFS without --check-only: refused', 1,
     ERR + 'SLABPARK_SYSFS=.* only with --check-only',
     {'HOST': '1', 'SLABPARK_SYSFS': 'full'}, make_run('{top}')),
    ('a bad knob: refused', 2, ERR + 'RUNS=0: must be a positive integer',
     {'RUNS': '0'}),
    ('HOST=2: refused', 2, ERR + 'HOST=2: must be 0 or 1', {'HOST': '2'}),
    ('HOST_BASE_ONLY=yes: refused', 1, ERR + 'HOST_BASE_ONLY=yes: must be 0 '
     'or 1', {'HOST_BASE_ONLY': 'yes'}),
    ('CPU-less node 1: the default pair is nodes 0 and 2, not 0 and 1', 0,
     'prerequisites ok: .*, nodes 0 -> 2, 2 threads$',
     {'SLABPARK_SYSFS': 'cpuless', 'PLACEMENTS': 'cross'}),
    ('FREE_NODE=1 (CPU-less): refused, the reason named', 1,
     ERR + r'FREE_NODE=1: node 1 has no online CPUs \(a memory-only node\)',
     {'SLABPARK_SYSFS': 'cpuless', 'PLACEMENTS': 'cross', 'FREE_NODE': '1'}),
    ('FREE_NODE=7 (not online): refused', 1,
     ERR + r'FREE_NODE=7: node 7 is not online \(online nodes: 0,1,2\)',
     {'SLABPARK_SYSFS': 'cpuless', 'PLACEMENTS': 'cross', 'FREE_NODE': '7'}),
    ('memoryless node 1: the default pair refused (one node with CPUs and '
     'memory)', 1, ERR + 'only node 0 has online CPUs and normal memory '
     '.*cross and balanced need two such nodes',
     {'SLABPARK_SYSFS': 'memless', 'PLACEMENTS': 'cross'}),
    ('FREE_NODE=1 without normal memory: passes with the warning', 0,
     r'prerequisites ok: .*, nodes 0 -> 1, 2 threads \(warning: free node 1 '
     'has no normal memory: ',
     {'SLABPARK_SYSFS': 'memless', 'PLACEMENTS': 'cross', 'FREE_NODE': '1'}),
    ('ALLOC_NODE=1 without normal memory: refused', 1,
     ERR + 'ALLOC_NODE=1: node 1 has no normal memory',
     {'SLABPARK_SYSFS': 'memless', 'PLACEMENTS': 'cross', 'ALLOC_NODE': '1',
      'FREE_NODE': '0'}),
    ("SMT siblings: local's freers on the allocators' siblings, warned", 0,
     r'prerequisites ok: .*, nodes 0 -> 1, 2 threads \(warning: SMT: in '
     "local, 1 of 1 freers run on an allocator.s sibling thread",
     {'SLABPARK_SYSFS': 'smt'}),
    ('make run (VM) ALLOC_NODE=x: refused before the boot', 2,
     ERR + 'ALLOC_NODE=x: not a node number',
     {'HOST': '', 'NODES': '2', 'ALLOC_NODE': 'x'}, make_run('{work}/vmtop')),
    ('make run (VM) FREE_NODE=2 with NODES=2: refused before the boot', 2,
     ERR + r'FREE_NODE=2: the guest has nodes 0..1 \(NODES=2\)',
     {'HOST': '', 'NODES': '2', 'FREE_NODE': '2'}, make_run('{work}/vmtop')),
    ('a wrong argument: usage', 2,
     r'^python3 -m slabpark: error: unrecognized arguments: --bogus$',
     {'HOST': '1'}, make_run('{top}', '--bogus')),
    ('run-host.sh without the knobs: usage', 2,
     r'^usage: .*tools/run-host.sh \[--check-only\]',
     {'HOST': '1', 'RUNS': None}, ('tools/run-host.sh',)),
)
# as "nobody", from {work}/top: a copy of what make run HOST=1 runs
# first, which nobody can read wherever the checkout is; make's own
# "make: ***" line is not the script's (MAKELEVEL, MAKEFLAGS unset: a
# top-level make as a tester runs it; KSRC unset: nobody cannot see one
# under /root)
NOBODY = ('setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
          'env', 'HOME=/nonexistent')
NOBODY_REFUSALS = (
    ('not root (nobody, complete tree): refused', 1, ERR + '.*run it as root',
     {'HOST': '1', 'SLABPARK_SYSFS': 'full', 'KDIR': '{work}/kdir', 'KSRC': None},
     NOBODY + make_run('{work}/top', '--check-only')),
    ('not root, make run HOST=1: refused', 2,
     ERR + r'.*run it as root \(sudo make run HOST=1\)',
     {'MAKELEVEL': None, 'MAKEFLAGS': None, 'MFLAGS': None, 'KSRC': None},
     NOBODY + ('make', '-s', '--no-print-directory', '-C', '{work}/top',
               'run', 'HOST=1')),
)
MAKE_ERROR = re.compile(r'^make(\[[0-9]+\])?: \*\*\*')


def judge(want, regex, rc, out, err):
    """What is wrong with a case's outcome (exit status RC, stdout OUT,
    stderr ERR): [] when it exited WANT with exactly one line matching
    REGEX, on stderr for a refusal (WANT 1 or 2), on stdout for a pass,
    and nothing on the other."""
    err = '\n'.join(t for t in err.splitlines() if not MAKE_ERROR.match(t))
    out, err = out.rstrip('\n'), err.rstrip('\n')
    lines, other, where = (out, err, 'stderr') if want == 0 else \
        (err, out, 'stdout')
    if other:
        return ['%s: %s' % (where, other)]
    if rc != want:
        return ['exit status %d, want %d' % (rc, want), 'stdout: ' + out,
                'stderr: ' + err]
    if not lines or '\n' in lines:
        return ['want exactly one line, got:', lines]
    if not re.search(regex, lines):
        return ['the line does not match /%s/:' % regex, lines]
    return []


def module_loaded():
    if os.path.exists('/sys/module/' + MODULE):
        return True
    try:
        with open('/proc/modules') as f:
            return any(t.startswith(MODULE + ' ') for t in f)
    except OSError:
        return False


def host_case(ctx, work, case):
    """Run one case of HOST_REFUSALS, its result line."""
    what, want, regex, settings, *argv = case
    if not argv:
        settings = dict(HOST_CHECK, **settings)
    env = dict(os.environ)
    for k, v in settings.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = os.path.join(work, v) if k == 'SLABPARK_SYSFS' and \
                v in FAKE_TREES else v.format(work=work)
    p = child([a.format(work=work, top=TOP) for a in (argv or [CHECK_ONLY])[0]],
              env=env, cwd=TOP, capture=True)
    bad = judge(want, regex, p.returncode, p.stdout, p.stderr)
    if not bad and module_loaded():
        bad = ['%s is loaded afterwards' % MODULE]
    for t in bad:
        for s in t.splitlines() or ['']:
            ctx.say('# ' + s)
    ctx.result(not bad, what)


def do_host_refusals(ctx):
    """make run HOST=1's prerequisite checks (tools/run-host.sh, through
    python3 -m slabpark run as make runs it) on fake sysfs trees
    (SLABPARK_SYSFS, with --check-only), without loading anything:
    HOST_REFUSALS, NOBODY_REFUSALS as root, and this host's own kernel as
    it is (refused in one line, or passed)."""
    if module_loaded():
        raise Fail('%s is loaded on this host: cannot tell whether a '
                   'test loaded it' % MODULE)
    with tempfile.TemporaryDirectory() as work:
        os.chmod(work, 0o755)
        for name, (leave, files) in FAKE_TREES.items():
            write_tree(os.path.join(work, name), dict(fake_tree(leave), **files))
        write_tree(work, {'kdir/Makefile': '# a fake kernel build tree',
                          'bogus.ko': 'not a module'})
        for top, files in (('vmtop', ()),
                           ('top', ('Makefile', 'tools/run-host.sh',
                                    'tools/lib.sh'))):
            copy_package(os.path.join(work, top))
            for f in files:
                shutil.copy2(os.path.join(TOP, f), os.path.join(work, top, f))
        cases = list(HOST_REFUSALS)
        nobody = os.getuid() == 0 and shutil.which('setpriv')
        if nobody:
            cases += NOBODY_REFUSALS
        for c in cases:
            host_case(ctx, work, c)
        if not nobody:
            ctx.result(True, 'not root', 'SKIP needs root and setpriv to run '
                       'as nobody')
        p = child([a.format(top=TOP) for a in CHECK_ONLY], capture=True,
                  env=dict(os.environ, HOST='1'), cwd=TOP)
        this = 'this host (%s): ' % os.uname().release
        host_case(ctx, work, (
            this + 'refused (%s...)' % p.stderr[:60].strip(), 1, ERR,
            {'HOST': '1'}, CHECK_ONLY) if p.returncode else (
            this + 'meets the prerequisites', 0, '^slabpark: prerequisites ok',
            {'HOST': '1'}, CHECK_ONLY))
    ctx.say('host-refusals: %d cases' % (len(cases) + 1))


def copy_package(top):
    """A copy of tools/slabpark alone under TOP, which cannot build or
    boot."""
    shutil.copytree(os.path.join(TOP, 'tools', 'slabpark'),
                    os.path.join(top, 'tools', 'slabpark'),
                    ignore=shutil.ignore_patterns('tests', '__pycache__'))


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
                   r'(?:_named|_cb|_array|_string|_unsafe)?)\(\s*(%s)'
                   % (ID, ID, ID))
SYSFS_ATTR = re.compile(
    r'^\+\s*STAT_ATTR\(\s*[A-Z0-9_]+\s*,\s*([a-z0-9_]+)\s*\)'
    r'|^\+\s*SLAB_ATTR(?:_RO|_WO|_RW)?\(\s*([a-z0-9_]+)\s*\)'
    r'|^\+.*struct\s+slab_attribute\s+([a-z0-9_]+)_attr\s*=', re.M)
DEBUGFS_FILE = re.compile(r'^\+.*debugfs_create_file[a-z_]*\(\s*"([a-z0-9_]+)"',
                          re.M)


def module_params(src):
    """The module parameters of a C source outside macro bodies (#define
    and continuation lines), a call spanning lines."""
    code = ' '.join(t for t in src.splitlines()
                    if not re.match(r'\s*#\s*define', t) and
                    not t.endswith('\\'))
    return sorted({a or b for a, b in PARAM.findall(code)})


def rst_section(text, title):
    """The lines of the section TITLE (underlined with '=') up to the
    next such section."""
    out, insec, prev = [], False, ''
    for t in text.splitlines():
        if re.fullmatch('=+', t) and prev and not re.fullmatch('=+', prev):
            insec = prev == title
            if out and out[-1] == prev:
                out.pop()
        elif insec:
            out.append(t)
        prev = t
    return out


def patch_added(patch, path):
    """The lines a patch adds to PATH (their '+' kept)."""
    out, inf = [], False
    for t in patch.splitlines():
        if t.startswith('diff --git '):
            inf = (' a/%s ' % path) in t or t.split()[-1] == 'b/' + path
        elif inf and t.startswith('+') and not t.startswith('+++ '):
            out.append(t)
    return out


def make_exports(makefile):
    """The variables of the Makefile's export line (continued)."""
    m = re.search(r'^export ((?:.*\\\n)*.*)$', makefile, re.M)
    words = m.group(1).replace('\\', ' ').split() if m else []
    return sorted({w for w in words if re.fullmatch('[A-Z_][A-Z0-9_]*', w)})


def rst_problems(top, paths):
    """docutils --strict (a warning is an error) of each file, the
    Sphinx-only roles and directives the kernel uses as no-ops: the first
    problem of each bad file."""
    try:
        import docutils.core
        from docutils.parsers.rst import Directive, directives, roles
    except ImportError:
        return ['%s has no docutils (Debian: python3-docutils, '
                'python3 -m slabpark deps)' % sys.executable]

    class NoOp(Directive):
        optional_arguments = 100
        final_argument_whitespace = True
        has_content = True

        def run(self):
            return []

    for d in ('kernel-doc', 'toctree', 'kernel-abi', 'kernel-feat'):
        directives.register_directive(d, NoOp)
    for r in ('doc', 'ref'):
        roles.register_local_role(r, lambda *a, **k: ([], []))
    bad = []
    for path in paths:
        with open(os.path.join(top, path), encoding='utf-8') as f:
            src = f.read()
        if not src.startswith(SPDX_RST + '\n'):
            bad.append("%s: the first line is not '%s'" % (path, SPDX_RST))
        warn = io.StringIO()
        try:
            docutils.core.publish_string(src, source_path=path,
                                         writer_name='html',
                                         settings_overrides={
                                             'halt_level': 2,
                                             'report_level': 2,
                                             'warning_stream': warn,
                                             'traceback': True})
        except Exception as e:     # docutils.utils.SystemMessage and more
            bad.append(warn.getvalue().strip() or '%s: %s' % (path, e))
    return bad


def doc_checks(top):
    """[(check, [problems], what it checked)] of the tree TOP."""
    def read(path):
        with open(os.path.join(top, path), encoding='utf-8') as f:
            return f.read()

    rst = sorted(os.path.relpath(os.path.join(d, f), top) for d, _, fs in
                 os.walk(os.path.join(top, 'Documentation'))
                 for f in fs if f.endswith('.rst'))
    yield ('rst', rst_problems(top, rst) if rst else ['no .rst under Documentation/'],
           '%d .rst files: SPDX line, docutils --strict' % len(rst))

    params = module_params(read(MODULE_SRC))
    section = rst_section(read(STRESS_DOC), 'Module parameters')
    bad = [] if params else ['%s: no module parameter found (has the macro '
                             'changed?)' % MODULE_SRC]
    bad += ["module parameter '%s' (%s) has no entry ``%s`` in %s's 'Module "
            "parameters'" % (p, MODULE_SRC, p, STRESS_DOC)
            for p in params if not any(t.startswith('``%s``' % p)
                                       for t in section)]
    yield 'module-parameters', bad, '%d in %s' % (len(params), STRESS_DOC)

    series = ''.join(read(os.path.join('patches', p)) for p in
                     sorted(os.listdir(os.path.join(top, 'patches')))
                     if p.endswith('.patch'))
    park = read(PARK_DOC)
    attrs = sorted({a or b or c for a, b, c in SYSFS_ATTR.findall(series)})
    abi = '\n'.join(patch_added(series, ABI_FILE))
    bad = []
    for a in attrs:
        if not re.search(r'^\+What:\s+/sys/kernel/slab/<cache>/%s\s*$' % a,
                         abi, re.M):
            bad.append("sysfs attribute '%s' has no '+What: /sys/kernel/slab"
                       "/<cache>/%s' in the series' %s" % (a, a, ABI_FILE))
        if '``%s``' % a not in park:
            bad.append("sysfs attribute '%s' is not named as ``%s`` in %s"
                       % (a, a, PARK_DOC))
    yield 'sysfs-attributes', bad, 'the series adds %s' % ' '.join(attrs)

    # the series' and the park switch's (in every bench kernel)
    files = sorted(set(DEBUGFS_FILE.findall(series + read(PARK_SWITCH))))
    bad = ['debugfs file %s: its path /sys/kernel/debug/slab/<cache>/%s is '
           'not in %s' % (a, a, PARK_DOC) for a in files
           if '/sys/kernel/debug/slab/<cache>/' + a not in park]
    yield 'debugfs-files', bad, 'the series and %s add %s' % (
        PARK_SWITCH, ' '.join(files))

    n = len(read('README').splitlines())
    yield ('readme', [] if n <= README_LINES else
           ['README has %d lines, more than %d: details go to '
            'Documentation/' % (n, README_LINES)], '%d lines' % n)

    mvars = make_exports(read('Makefile'))
    bad = [] if mvars else ['Makefile: no export line (has it changed?)']
    bad += ["Make variable '%s' (exported by the Makefile) is not in the knob "
            "table (tools/slabpark/config.py KNOBS)" % v
            for v in mvars if v not in config.BY_NAME]
    bad += ["knob '%s' (tools/slabpark/config.py) is not exported by the "
            "Makefile" % k for k in config.BY_NAME if k not in mvars]
    yield 'make-variables', bad, '%d, each in the knob table' % len(mvars)


def do_docs(ctx):
    """doc_checks of this tree, a result each."""
    for name, bad, what in doc_checks(TOP):
        for t in bad:
            ctx.say('# ' + t)
        ctx.result(not bad, name, None if bad else what)


# ---- series-bisect: every patch builds mm/ with W=1, no new warnings

W1_WARNING = re.compile(r'^[^ ]+:[0-9]+:[0-9]+: (warning|error):')


def warnings_of(log):
    """The warnings and errors of a build log, without line numbers (so
    that code moved by a patch compares equal)."""
    return {re.sub(r':[0-9]+:[0-9]+:', ':', t, count=1)
            for t in log.splitlines() if W1_WARNING.match(t)}


def lib_sh(ctx, *calls):
    """The output lines of tools/lib.sh's functions."""
    return ctx.capture(['bash', '-c', '. tools/lib.sh && ' +
                        ' && '.join(calls)]).splitlines()


def do_series_bisect(ctx):
    """The series on the pristine tree, patch by patch: mm/ with W=1 at
    the base and after each patch, which may add no warning; cached per
    series content."""
    src = ctx.capture(['tools/kernel/kernel-src.sh'])
    ctx.run(['tools/kernel/series.sh', 'apply', '--tree', src], check=True)
    ver = ctx.capture(['make', '-s', '-C', src, 'kernelversion'])
    series, cfghash, jobs, *ccache = lib_sh(
        ctx, 'sp_series_hash',
        'sp_hash_files tools/kernel/configs/base.config', 'sp_jobs',
        '{ ! sp_use_ccache || env | grep ^CCACHE_; }')
    cache = os.environ['SLABPARK_CACHE']
    wt = os.path.join(cache, 'src', 'bisect-' + ver)
    bdir = os.path.join(cache, 'build', '%s-bisect-base-%s' % (ver, cfghash))
    stamp = os.path.join(bdir, 'slabpark-bisect.ok')
    os.makedirs(bdir, exist_ok=True)
    # one bisect at a time in the cache's worktree and build directory;
    # the lock goes with the file object when this returns
    lock = open(bdir + '.lock', 'w')
    fcntl.flock(lock, fcntl.LOCK_EX)
    if os.path.isfile(stamp):
        with open(stamp) as f:
            if f.read().strip() == series:
                ctx.say('series %s: every patch built with W=1 without new '
                        'warnings (cached)' % series)
                return
    git = ['git', '-C', src]
    # the series this clone applied, not one another clone applied since
    tip = ctx.capture(git + ['rev-parse', 'slabpark'])
    if ctx.capture(git + ['config', '--get', 'branch.slabpark.'
                          'slabparkSeries'], check=False) != series:
        raise Fail('the tree\'s series branch is not series %s: '
                   'another clone applied its own; run again' % series)
    if not os.path.exists(os.path.join(wt, '.git')):
        shutil.rmtree(wt, ignore_errors=True)
        ctx.run(git + ['worktree', 'prune'], check=True)
        ctx.run(git + ['worktree', 'add', '-q', '--detach', wt, 'base'],
                check=True)
    make = ['make', '-C', wt, 'O=' + bdir, 'ARCH=x86_64', '-j' + jobs, 'W=1']
    env = dict(os.environ, **dict(v.split('=', 1) for v in ccache))
    if ccache:
        make.append('CC=ccache gcc')
    shutil.copy(os.path.join(TOP, 'tools/kernel/configs/base.config'),
                os.path.join(bdir, 'slabpark.fragment'))
    base = ctx.capture(git + ['rev-parse', 'base'])
    commits = ctx.capture(git + ['rev-list', '--reverse',
                                 'base..' + tip]).split()
    prev = None
    for i, c in enumerate([base] + commits):
        subj = ctx.capture(git + ['log', '-1', '--format=%s', c])
        ctx.run(['git', '-C', wt, 'checkout', '-q', '--detach', '-f', c],
                check=True)
        if not os.path.isfile(os.path.join(bdir, '.config')):
            logged(ctx, make + ['KCONFIG_ALLCONFIG=' + bdir +
                                '/slabpark.fragment', 'allnoconfig'],
                   os.path.join(bdir, 'config.log'), env)
        log = os.path.join(bdir, 'build-%d.log' % i)
        ctx.say('# [%s] bisect build %d/%d: %s' % (elapsed(), i,
                                                   len(commits), subj))
        # -k: an error is in the warning list too
        with open(log, 'w') as f:
            rc = child(make + ['-k', 'mm/'], stdout=f,
                       stderr=subprocess.STDOUT, env=env).returncode
        with open(log, errors='replace') as f:
            text = f.read()
        cur = warnings_of(text)
        if rc:
            for t in [t for t in text.splitlines() if 'error' in t][:20]:
                ctx.say(t)
            ctx.result(False, subj)
            raise Fail("mm/ does not build at '%s' (log: %s)" % (subj, log))
        if prev is None:
            ctx.say('base: %d W=1 warning(s) in mm/ before the series'
                    % len(cur))
        else:
            for t in sorted(cur - prev):
                ctx.say(t)
            if not ctx.result(cur <= prev, subj):
                raise Fail("'%s' adds W=1 warnings (log: %s)" % (subj, log))
        prev = cur
    with open(stamp, 'w') as f:
        f.write(series + '\n')


def logged(ctx, argv, log, env=None, cwd=None):
    """Run argv with its output into LOG; Fail naming the log, with its
    last lines, when it fails."""
    with open(log, 'a') as f:
        rc = child(argv, stdout=f, stderr=subprocess.STDOUT, env=env,
                   cwd=cwd).returncode
    if rc:
        with open(log, errors='replace') as f:
            for t in f.read().splitlines()[-20:]:
                ctx.say('    ' + t)
        raise Fail('%s failed (log: %s)' % (' '.join(argv), log))


# ---- kselftest-intree: the collection as a CI builds it

# what kselftest_install.sh must install
INTREE_FILES = (
    'run_kselftest.sh', 'kselftest/runner.sh', 'kselftest/ktap_helpers.sh',
    'kselftest-list.txt', 'slub_park/ksft_slub_park.sh', 'slub_park/slub_park.sh',
    'slub_park/slub_park_lib.sh', 'slub_park/runs.sh', 'slub_park/parking.sh',
    'slub_park/lifecycle.sh', 'slub_park/params.sh',
    'slub_park/slub_park_params',
    'slub_park/settings',
    'slub_park/config', 'slub_park/splat.ere', 'slub_park/param_fuzz.txt',
    'slub_park/slub_stress/slub_stress.ko')
INTREE_LIST = 'slub_park:ksft_slub_park.sh'
# the collection's C program (TEST_GEN_PROGS_EXTENDED), static for the guest
INTREE_PROGS = ('slub_park_params',)


def vermagic(ko):
    """The release in a module's vermagic= (its first word)."""
    m = re.search(rb'\0vermagic=([^ \0]*)', ko)
    return m.group(1).decode('utf-8', 'replace') if m else None


def do_kselftest_intree(ctx):
    """The kselftest as a CI (KernelCI, LKFT) builds it against the
    patched kernel's O= build, in a scratch copy of the kernel tree's
    tools/testing/selftests (only O's kselftest/ written to): built
    static (the guest's busybox), a KDIR other than O refused, installed
    with kselftest_install.sh.  Step guest-patched runs the install."""
    bdir = os.path.realpath(build_kernel(ctx, '--variant', 'patched'))
    src = vm.source_tree(bdir) or ''
    if not os.path.isdir(os.path.join(src, 'tools/testing/selftests')):
        raise Fail("%s: cannot find its source tree (no 'include "
                   "<tree>/Makefile' in its Makefile)" % bdir)
    with open(os.path.join(bdir, 'include/config/kernel.release')) as f:
        release = f.read().strip()
    # a CI names the kernel build with O= alone: make's KDIR (the
    # Makefile exports the running kernel's) is not this kernel's
    env = {k: v for k, v in os.environ.items() if k != 'KDIR'}
    out = os.path.join(os.environ['SLABPARK_CACHE'], 'kselftest-intree')
    os.makedirs(os.path.dirname(out), exist_ok=True)
    t0 = time.time()
    # one run at a time: the scratch tree and O's kselftest/ are shared
    # by every clone that uses this cache
    with open(out + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(out, ignore_errors=True)
        tree, inst = os.path.join(out, 'tree'), os.path.join(out, 'install')
        os.makedirs(tree)
        os.makedirs(inst)
        log = os.path.join(out, 'log')
        ksft = os.path.join(tree, 'tools/testing/selftests')
        parts = ('tools/testing/selftests', 'scripts/subarch.include')
        if child(['git', '-C', src, 'rev-parse', '--verify', '-q', 'HEAD'],
                 capture=True).returncode:
            # KSRC that is not a git tree: its files as they are
            shutil.copytree(os.path.join(src, parts[0]),
                            os.path.join(tree, parts[0]), symlinks=True)
            os.makedirs(os.path.join(tree, 'scripts'))
            shutil.copy2(os.path.join(src, parts[1]),
                         os.path.join(tree, parts[1]))
        else:
            ctx.run(['sh', '-c', 'git -C "$1" archive HEAD -- "$3" "$4" | '
                     'tar -x -C "$2"', '-', src, tree, *parts], check=True)
        # as a CI's cp -r of a checkout: the files git has or would add
        park = os.path.join(ksft, 'slub_park')
        for f in git_files('selftests/slub_park', others=True):
            if not os.path.lexists(os.path.join(TOP, f)):
                continue        # deleted, not yet committed
            dst = os.path.join(park, os.path.relpath(f, 'selftests/slub_park'))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(TOP, f), dst, follow_symlinks=False)
        c = os.path.join(park, 'slub_stress/slub_stress.c')
        intree_result(ctx, ['cp -r did not carry the module source (selftests/'
                            'slub_park/slub_stress/slub_stress.c must be the '
                            'file, not a link)']
                      if os.path.islink(c) or not os.path.getsize(c) else [],
                      'scratch-tree', tree)

        logged(ctx, ['make', '-C', ksft, 'TARGETS=slub_park', 'O=' + bdir,
                     'USERLDFLAGS=-static'], log, env)
        ko = os.path.join(park, 'slub_stress/slub_stress.ko')
        bad = []
        if not os.path.isfile(ko):
            bad.append('the build made no %s (log: %s)' % (ko, log))
        else:
            with open(ko, 'rb') as f:
                magic = vermagic(f.read())
            if magic != release:
                bad.append('%s has vermagic %s, the kernel of %s is %s'
                           % (ko, magic, bdir, release))
        for prog in INTREE_PROGS:
            path = os.path.join(bdir, 'kselftest/slub_park', prog)
            if not os.access(path, os.X_OK):
                bad.append("no %s (O='s kselftest output)" % path)
            elif 'statically linked' not in ctx.capture(['file', path]):
                bad.append('%s is not static: USERLDFLAGS=-static did not '
                           'reach lib.mk' % prog)
        intree_result(ctx, bad, 'build', 'slub_stress.ko (vermagic %s), '
                      '%s (static)' % (release, ', '.join(INTREE_PROGS)))

        p = child(['make', '-s', '-C', ksft, 'TARGETS=slub_park',
                   'O=' + bdir, 'KDIR=%s/not-a-kernel' % out],
                  env=env, capture=True)
        refusal = [t for t in (p.stdout + p.stderr).splitlines()
                   if re.search('slub_park: KDIR=.* differs from O=', t)]
        intree_result(ctx, [] if p.returncode and len(refusal) == 1 else
                      [p.stdout + p.stderr, "want a failure with one 'KDIR="
                       "... differs from O=' line, got status %d"
                       % p.returncode], 'kdir-refused', refusal[:1] and
                      refusal[0])

        logged(ctx, ['./kselftest_install.sh', inst], log,
               dict(env, MAKEFLAGS='TARGETS=slub_park USERLDFLAGS=-static',
                    KBUILD_OUTPUT=bdir), cwd=ksft)
        bad = ['kselftest_install.sh left no %s/%s' % (inst, f)
               for f in INTREE_FILES if not os.path.exists(os.path.join(inst,
                                                                        f))]
        if not bad:
            with open(os.path.join(inst, 'kselftest-list.txt')) as f:
                listed = f.read().strip()
            if listed != INTREE_LIST:
                bad.append('kselftest-list.txt is not just %s: %s'
                           % (INTREE_LIST, listed))
            listed = ctx.capture([os.path.join(inst, 'run_kselftest.sh'),
                                  '-l'])
            if listed != INTREE_LIST:
                bad.append("run_kselftest.sh -l lists '%s'" % listed)
        intree_result(ctx, bad, 'install', 'run_kselftest.sh -l lists ' +
                      INTREE_LIST)
    ctx.say('built and installed in %d s: %s' % (time.time() - t0, inst))


def intree_result(ctx, bad, name, what):
    for t in bad or [what]:
        ctx.say(t)
    ctx.result(not bad, name)
    if bad:
        raise Fail('kselftest-intree: %s failed' % name)


# ---- the debug kernels: debug-gate, kunit-mutants

def stage_debug(ctx, bdir):
    """The guest's stage of a debug kernel (slub_kunit under kunit/)."""
    if not os.path.isfile(os.path.join(bdir, 'arch/x86/boot/bzImage')):
        raise Fail('%s has no bzImage' % bdir)
    with open(os.path.join(bdir, '.config')) as f:
        if not re.search('^CONFIG_DEBUG_KMEMLEAK=y', f.read(), re.M):
            raise Fail('%s is not a debug kernel (no CONFIG_DEBUG_KMEMLEAK)'
                       % bdir)
    stage = vm.stage(bdir, ctx.line)
    if not os.path.isfile(os.path.join(stage, 'kunit/slub_kunit.ko')):
        raise Fail('no slub_kunit.ko in %s: the debug kernel needs '
                   'CONFIG_SLUB_KUNIT_TEST=m' % bdir)
    return stage


def guest_timeout(default):
    """GUEST_TIMEOUT, else DEFAULT seconds."""
    return vm.number(os.environ.get('GUEST_TIMEOUT') or str(default),
                     'GUEST_TIMEOUT')


def last_line(path, prefix):
    """What follows PREFIX on the last line of PATH that starts with it."""
    try:
        with open(path, errors='replace') as f:
            found = [t[len(prefix):].strip() for t in f if t.startswith(prefix)]
    except OSError:
        return None
    return found[-1] if found else None


# the groups of tools/guest/guest-debug-gate.sh the park2 boot leaves to
# the default boot (they do not depend on the parking mode)
PARK2_SKIPS = ('kselftest', 'fuzz-params', 'rmmod')


def debug_gate(boot):
    """The robustness gate: tools/guest/guest-debug-gate.sh, which fails
    on any splat, on the patched kernel with configs/debug.config, every
    cache at its default parking mode (BOOT default) or at park=2 (park2).
    GUEST_TIMEOUT (default 3000 s), GUEST_APPEND."""
    def run(ctx):
        bdir = build_kernel(ctx, '--variant', 'patched', '--config', 'debug')
        stage = stage_debug(ctx, bdir)
        name = 'debug-gate-' + boot
        out = os.path.join(os.environ['SLABPARK_LOGDIR'], 'check', name)
        t0 = time.time()
        with ctx.subtest(name) as st:
            rc = vm.run(bdir, 'tools/guest/guest-debug-gate.sh',
                        [boot, *(PARK2_SKIPS if boot == 'park2' else ())],
                        out, [stage + ':.'],
                        append=os.environ.get('GUEST_APPEND', ''),
                        timeout=guest_timeout(3000), emit=ctx.line)
            line = last_line(os.path.join(out, 'console.txt'),
                             'SLABPARK-DEBUG-GATE ')
            st.ok = rc == 0 and bool(line)
            st.directive = '%ds %s' % (time.time() - t0, line) if st.ok else \
                '%ds, guest status %d, %s; console: %s/console.log' % (
                    time.time() - t0, rc, line or 'no summary', out)
    return run


# slub_break_parking= modes of the break kernel
# (tools/kernel/bench-patches/break-parking.patch); the parking cases
# each must fail: tools/guest/guest-kunit-mutants.sh, next to each mode
BREAK_MODES = (0, 1, 2, 4, 8, 16, 32, 64)


def do_kunit_mutants(ctx):
    """slub_kunit's parking cases on the debug kernel with parking broken
    on purpose, booted once per BREAK_MODES mode: each mode makes exactly
    the cases fail that test what it breaks."""
    bdir = build_kernel(ctx, '--variant', 'break', '--config', 'debug')
    stage = stage_debug(ctx, bdir)
    lib = 'kselftest/slub_park/slub_park_lib.sh'
    for m in BREAK_MODES:
        out = os.path.join(os.environ['SLABPARK_LOGDIR'], 'check',
                           'kunit-mutant-%d' % m)
        with ctx.subtest('break-mode-%d' % m) as st:
            rc = vm.run(
                bdir, 'tools/guest/guest-kunit-mutants.sh', [str(m)], out,
                [stage + '/tools:tools', stage + '/kunit:kunit',
                 '%s/%s:%s' % (stage, lib, lib)],
                append='slub_break_parking=%d kunit.filter_glob='
                'slub_test.test_park_*' % m, timeout=guest_timeout(900),
                emit=ctx.line)
            st.ok = rc == 0
            if rc:
                st.directive = 'guest status %d, console: %s/console.log' % (
                    rc, out)


# ---- the other steps, and the step kinds of the table

def cmd(*argv):
    """A step that is a command (run from the top of the tree)."""
    return lambda ctx: ctx.run(list(argv))


def ksrc(why):
    """skip= of a step that needs the bench tree, not KSRC's."""
    return lambda env: 'KSRC set: ' + why if env.get('KSRC') else None


def NODEBUG(env):
    return 'CHECK_DEBUG=0: debug gate not run' \
        if env.get('CHECK_DEBUG', '1') == '0' else None


def do_deps(ctx):
    ctx.run([sys.executable, '-m', 'slabpark', 'deps'],
            env={'PYTHONPATH': os.path.join(TOP, 'tools')}, check=True)


def shell_files():
    """(bash files, sh files): the tracked shell scripts, split by their
    first line (POSIX sh: #!/bin/sh or #!/bin/busybox sh)."""
    bash, sh = [], []
    for f in git_files('*.sh', '.ci/run', 'tools/vm/init'):
        with open(os.path.join(TOP, f), errors='replace') as fh:
            first = fh.readline()
        (sh if re.match(r'#!/bin/(busybox )?sh', first) else bash).append(f)
    return bash, sh


def do_shellcheck(ctx):
    bash, sh = shell_files()
    ctx.run(['shellcheck', '-x', *bash], check=True)
    ctx.run(['shellcheck', '-s', 'sh', '-x', *sh], check=True)
    ctx.say('ShellCheck clean: %d bash and %d sh scripts' % (len(bash),
                                                             len(sh)))


def do_python_lint(ctx):
    """py_compile of every tracked Python file, pyflakes3, and flake8
    where Debian's is installed (the style of tools/slabpark/setup.cfg)."""
    files = git_files('*.py')
    bad = []
    for f in files:
        try:
            with open(os.path.join(TOP, f), 'rb') as fh:
                compile(fh.read(), f, 'exec')
        except (SyntaxError, ValueError) as e:
            ctx.say('%s: %s' % (f, e))
            bad.append(f)
    ctx.result(not bad, 'py_compile', '%d files' % len(files))
    ctx.result(ctx.run(['pyflakes3', *files]) == 0, 'pyflakes3')
    if shutil.which('flake8'):
        ctx.result(ctx.run(['flake8', '--config', 'tools/slabpark/setup.cfg',
                            *files]) == 0, 'flake8')
    else:
        ctx.result(True, 'flake8', 'SKIP not installed (Debian: flake8)')


# make run's refusals (slabpark.config): each case VAR=VALUE settings and
# the why of its one line, "slabpark: error: NAME=VALUE: why", with exit
# status 2 before anything is built
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
    ({'WORKLOAD': 'mmap1', 'MIN_PARTIAL': '1'}, 'MIN_PARTIAL=1: .*one at a '
     'time'),
    ({'BASE': '1', 'MEASURE': '1'}, 'MEASURE=1: goes with the plain module '
     'comparison only'),
    ({'FLUSH': 'yes'}, 'FLUSH=yes: must be 0 or 1'),
    ({'FLUSH': '1', 'MIN_PARTIAL': '1'}, 'FLUSH=1: .*one at a time'),
    ({'FLUSH': '1', 'HOST': '1'}, 'HOST=1: runs the module comparison only'),
    ({'BOOTS': '3'}, 'BOOTS=3: goes with BASE=1'),
    ({'BASE': '1', 'PATCHES': 'none'}, 'BASE=1: .*not with PATCHES=none'),
    ({'BASE': '1', 'KSRC': '/'}, 'BASE=1: .*not with KSRC='),
    ({'KSRC': '/nonexistent'}, 'KSRC=/nonexistent: no such directory'),
    ({'NODES': '9'}, 'NODES=9: must be 1..8'),
    ({'CPUS_PER_NODE': '33'}, 'CPUS_PER_NODE=33: must be 1..32'),
    ({'RESULTS_DIR': '/etc/hostname'}, 'RESULTS_DIR=/etc/hostname: exists '
     'and is not a directory'),
    ({'MEASURE': '1', 'PATCHES': 'none'}, 'MEASURE=1: .*not with PATCHES'),
    ({'MODES': '1 1'}, 'MODES=1 1: mode 1 twice'),
    ({'WORKLOAD': 'mmap1', 'TASKS': '1025'}, 'TASKS=1025: at most 1024'),
    ({'WORKLOAD': 'mmap1', 'DURATION_MS': '500'}, r'DURATION_MS=500: .*whole '
     r'seconds \(>= 1000\)'),
    ({'MIN_PARTIAL': '1', 'MODES': '1'}, 'MODES=1: .*not MIN_PARTIAL=1'),
    ({'ALLOC_NODE': '1', 'FREE_NODE': '1'}, 'FREE_NODE=1: the same node as '
     'ALLOC_NODE'),
    ({'GUEST_TIMEOUT': '-1'}, 'GUEST_TIMEOUT=-1: must be a positive '
     'integer'),
    ({'RESULTS_DIR': TOP}, 'RESULTS_DIR=.*: not empty'),
)


def knobs(case):
    return ' '.join('%s=%s' % kv for kv in case.items())


def do_python(ctx):
    """The package's unit tests (python3 -m slabpark test, KTAP) and
    make run's refusals of RUN_REFUSALS, from a copy of the package
    alone, which a refusal that fails cannot build or boot with."""
    with ctx.subtest('unittest') as st:
        st.ok = ctx.run([sys.executable, '-m', 'slabpark', 'test'],
                        env={'PYTHONPATH': os.path.join(TOP, 'tools')}) == 0
    ok = st.ok
    with ctx.subtest('run-refusals') as st, \
            tempfile.TemporaryDirectory() as work:
        copy_package(work)
        # the knobs of this make check (the Makefile exports them) left
        # out: each case is its knobs alone
        base = {k: v for k, v in os.environ.items()
                if k not in config.BY_NAME or k == 'SLABPARK_CACHE'}
        base['PYTHONPATH'] = os.path.join(work, 'tools')
        for case, why in RUN_REFUSALS:
            p = child([sys.executable, '-m', 'slabpark', 'run'], cwd=work,
                      env=dict(base, **case), capture=True)
            ctx.say('# make run %s: %s' % (knobs(case), p.stderr.strip()))
            bad = judge(2, ERR + why, p.returncode, p.stdout, p.stderr)
            for t in bad:
                ctx.say('#   ' + t)
            st.result(not bad, 'make run ' + knobs(case))
    if not ok or not st.ok:
        raise Fail('tools/slabpark: unit tests or refusals failed')
    ctx.say('tools/slabpark: unit tests and %d refusals pass'
            % len(RUN_REFUSALS))


CHECKPATCH_CLEAN = 'total: 0 errors, 0 warnings, 0 checks'
# checkpatch of the series: MISSING_SIGN_OFF: by
# Documentation/process/coding-assistants.rst the series carries
# Assisted-by: and the human submitter adds Signed-off-by:.
# UNKNOWN_COMMIT_ID: the tree is Debian's tarball, without the upstream
# history that a Fixes: id is looked up in (the id was checked against the
# public commit when it was written).
CHECKPATCH_PATCH_IGNORE = ('MISSING_SIGN_OFF', 'UNKNOWN_COMMIT_ID')
# checkpatch -f of the tracked sources: (glob, types ignored).
# MACRO_ARG_REUSE: lib/test_vmalloc.c's __param(type, name, ...) macro,
# which the module follows, pastes the identifier 'name' three times; an
# identifier has no side effects, so that check is a false positive.  In the
# kselftest_harness.h program: EXPECT_*() end in a for-loop (the TH_LOG
# handler), so a lone one under if() must keep its braces (BRACES);
# FIXTURE_DATA(slab) *self is a type (SPACING); exact stat equality is
# only asserted on x86, where stat() is one instruction (ARCH_DEFINES).
# A file takes the first pattern it matches; links are not checked (the
# module's source is selftests/slub_park/slub_stress/slub_stress.c, and
# mm/slub_stress.c links to it).
CHECKPATCH_SOURCES = (
    ('selftests/slub_park/slub_stress/*.c', ('MACRO_ARG_REUSE',)),
    ('mm/*.c', ('MACRO_ARG_REUSE',)),
    ('selftests/slub_park/*.c', ('MACRO_ARG_REUSE', 'BRACES', 'SPACING',
                                 'ARCH_DEFINES')),
)


def do_checkpatch(ctx):
    """scripts/checkpatch.pl --strict of each patch of the series and of
    each tracked source, from a neutral directory: inside a git work tree
    checkpatch can take a tracked .patch for a source file."""
    cp = os.path.join(ctx.capture(['tools/kernel/kernel-src.sh']), 'scripts',
                      'checkpatch.pl')
    jobs = [(os.path.basename(f), ['--ignore', ','.join(
        CHECKPATCH_PATCH_IGNORE), f]) for f in sorted(glob.glob(os.path.join(
            TOP, 'patches', '0*.patch'))) if '/0000-cover-letter' not in f]
    seen = set()
    for pat, ignore in CHECKPATCH_SOURCES:
        for f in git_files(pat):
            if f not in seen and not os.path.islink(os.path.join(TOP, f)):
                seen.add(f)
                jobs.append((f, ['--no-tree', '--ignore', ','.join(ignore),
                                 '-f', os.path.join(TOP, f)]))
    with tempfile.TemporaryDirectory() as neutral:
        for name, args in jobs:
            out = child([cp, '--strict', '--show-types', *args],
                        cwd=neutral, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT).stdout.decode('utf-8',
                                                                'replace')
            total = [t for t in out.splitlines() if t.startswith('total:')]
            ctx.say('%s: %s' % (name, total[-1] if total else '(no total)'))
            if CHECKPATCH_CLEAN not in out:
                ctx.say(out)
            ctx.result(CHECKPATCH_CLEAN in out, name)


def do_bench_patches(ctx):
    """The bench-only patches of tools/kernel/bench-patches/ apply as
    build-kernel.sh stacks them: park-switch on the series, each other one
    on the series + park-switch.  Checked against the tree of the series
    branch in a temporary index, the work tree untouched."""
    src = ctx.capture(['tools/kernel/kernel-src.sh'])
    # the series branch up to date (series.sh takes the tree's lock)
    ctx.capture(['tools/kernel/series.sh', 'apply', '--tree', src])
    git = ['git', '-C', src]
    for p in sorted(glob.glob(os.path.join(TOP, os.path.dirname(
            PARK_SWITCH), '*.patch'))):
        rel = os.path.relpath(p, TOP)
        on, stack = 'the series', [p]
        if rel != PARK_SWITCH:
            on, stack = 'the series + park-switch', [os.path.join(
                TOP, PARK_SWITCH), p]
        with tempfile.TemporaryDirectory() as tmp:
            idx = {'GIT_INDEX_FILE': os.path.join(tmp, 'index')}
            ctx.run(git + ['read-tree', 'slabpark'], env=idx, check=True)
            if len(stack) > 1 and ctx.run(git + ['apply', '--cached', stack[0]],
                                          env=idx):
                ctx.say('%s does not apply to the series' % PARK_SWITCH)
            elif ctx.run(git + ['apply', '--cached', '--check', p], env=idx):
                ctx.say('%s does not apply to %s: rebase it (see its branch '
                        'in README)' % (rel, on))
            else:
                ctx.say('%s applies to %s' % (rel, on))
                ctx.result(True, rel)
                continue
        ctx.result(False, rel)


W1_PROBLEM = re.compile(r'^[^ ]*(mm/slub|lib/tests/slub_kunit)\.c:[0-9]+:'
                        r'[0-9]+: (warning|error)')


def matrix(config):
    """The series alone (what is sent): mm/slub.o with W=1 in CONFIG, then
    again with slub_kunit (tools/kernel/configs/kunit.config, which adds
    DEBUG_VM and KPROBES) with the series' parking cases, where the
    configuration can have it (not with SLUB_TINY)."""
    def run(ctx):
        for cfg, targets in ((config, ['mm/slub.o']), (config + '+kunit', [
                'mm/slub.o', 'lib/tests/slub_kunit.o'])):
            if config == 'tiny' and cfg != config:
                continue
            bdir = build_kernel(ctx, '--variant', 'series', '--config', cfg,
                                '--target', ' '.join(targets), '--w1')
            with open(os.path.join(bdir, 'build.log'),
                      errors='replace') as f:
                warn = [t.rstrip('\n') for t in f if W1_PROBLEM.match(t)]
            for t in warn:
                ctx.say(t)
            missing = [o for o in targets
                       if not os.path.isfile(os.path.join(bdir, o))]
            for o in missing:
                ctx.say('%s was not built with config %s' % (o, cfg))
            ctx.result(not warn and not missing, cfg)
            if warn or missing:
                raise Fail('W=1 warnings with config %s' % cfg if warn else
                           'not built with config %s' % cfg)
            ctx.say('%s build with W=1 and no warnings: base + %s'
                    % (' '.join(targets), cfg.replace('+', ' + ')))
    return run


def guest(label, kernel, suites, build, stages=(), **boot):
    """Boot build-kernel.sh BUILD's kernel with the guest's stage (and
    STAGES, more SRC:DST; BOOT: more of vm.run's arguments) running
    tools/guest/guest-check.sh KERNEL SUITES (KERNEL: the kselftest
    outcome to expect, tools/guest/guest-lib.sh), console and files in
    $SLABPARK_LOGDIR/check/LABEL/; GUEST_APPEND: more kernel arguments.
    SUITES and STAGES may be functions of the step's Context.  Then the
    host's checks of the files the suites returned (slabpark.guest_out)."""
    def run(ctx):
        want = suites(ctx) if callable(suites) else suites
        more = stages(ctx) if callable(stages) else stages
        bdir = build_kernel(ctx, *build)
        out = os.path.join(os.environ['SLABPARK_LOGDIR'], 'check', label)
        rc = vm.run(bdir, 'tools/guest/guest-check.sh', [kernel, *want],
                    out, [vm.stage(bdir, ctx.line) + ':.', *more],
                    append=os.environ.get('GUEST_APPEND', ''),
                    emit=ctx.line, **boot)
        if not guest_out.check(ctx, os.path.join(out, 'files'), kernel, want):
            raise Fail('the files the guest returned failed their checks')
        return rc
    return run


# ---- the steps

class Step:
    def __init__(self, name, run, needs=(), full=False, skip=None,
                 what=''):
        self.name, self.run, self.needs = name, run, tuple(needs)
        self.full, self.skip, self.what = full, skip, what


SUITES = ('kselftest', 'slab-window', 'host-mode')


def intree(ctx):
    """guest-patched runs the in-tree install (suite kselftest-intree,
    its stage) when step kselftest-intree made it, else the collection's
    own."""
    return ctx.results.get('kselftest-intree') == 'pass'


# name, what it runs; needs= the steps that must pass before in the same
# call, full=True only in make check-full, skip= when it does not apply
STEPS = (
    Step('deps', do_deps, what='python3 -m slabpark deps'),
    Step('shellcheck', do_shellcheck, what='shellcheck -x of every script'),
    Step('python-lint', do_python_lint,
         what='py_compile, pyflakes3, flake8 of every Python file'),
    Step('host-refusals', do_host_refusals,
         what="make run HOST=1's refusals on fake trees and this host"),
    Step('docs', do_docs,
         what='every .rst valid; parameters, attributes, variables named'),
    Step('kernel-source', cmd('tools/kernel/kernel-src.sh'),
         what='the 7.3 tree'),
    # after kernel-source: the tests that need the tree's ktap_helpers.sh
    # and kunit_parser.py run, not skip, on a fresh cache
    Step('python', do_python,
         what="tools/slabpark's unit tests, make run's refusals"),
    Step('checkpatch', do_checkpatch,
         what='checkpatch --strict of the patches and sources'),
    Step('series-bisect', do_series_bisect,
         skip=ksrc('the series is not applied to your tree'),
         what='every patch builds mm/ with W=1, no new warnings'),
    Step('bench-patches', do_bench_patches,
         skip=ksrc('the bench patches are for the bench tree'),
         what='each bench-only patch applies to the series'),
    *(Step('matrix-' + c, matrix(c),
           skip=ksrc('the build matrix is for the bench tree'),
           what='mm/slub.o (and slub_kunit.o) with W=1, config ' + c)
      for c in ('numa-off', 'stats-off', 'tiny', 'rt', 'i386')),
    Step('kernel-patched', cmd('tools/kernel/build-kernel.sh', '--variant',
                               'patched'), what='the patched kernel'),
    Step('kernel-base', cmd('tools/kernel/build-kernel.sh', '--variant',
                            'base'),
         skip=ksrc('there is no separate base kernel'),
         what='the base kernel'),
    Step('kselftest-intree', do_kselftest_intree,
         needs=('kernel-patched',),
         what='the kselftest built and installed in the kernel tree'),
    # make run HOST=1 as a tester runs it, with the module prebuilt
    # (suite host-mode; on the base kernel: refused as unpatched)
    Step('guest-patched', guest(
        'patched', 'patched', lambda ctx: ('kselftest-intree',) + SUITES[1:]
        if intree(ctx) else SUITES, ('--variant', 'patched'),
        stages=lambda ctx: (os.path.join(os.environ['SLABPARK_CACHE'],
                                         'kselftest-intree', 'install') +
                            ':kselftest-intree',) if intree(ctx) else ()),
         needs=('kernel-patched',), what='2-node guest, patched kernel'),
    # in a guest with a memory-only node (cpuless4): the kselftest's and
    # HOST=1's choice of nodes (suite topology)
    Step('guest-base', guest('base', 'base', SUITES + ('topology',),
                             ('--variant', 'base'), shape='cpuless4'),
         needs=('kernel-base',),
         skip=ksrc('there is no separate base kernel'),
         what='4-node guest (a memory-only node), base kernel'),
    # the parking races widened by the bench-only delays of
    # tools/kernel/bench-patches/widen-park-races.patch
    Step('race-widen', guest('widen', 'patched', ('race-widen',),
                             ('--variant', 'widen')),
         needs=('kernel-patched',),
         skip=ksrc('the widen kernel is built from the bench tree'),
         what='guest-race-widen.sh on the widen kernel'),
    # the debug gate's default boot here, its park2 boot in check-full
    # (make check near 20 min warm)
    Step('debug-gate', debug_gate('default'), skip=NODEBUG,
         what='debug kernel: slub_kunit, kselftest, stress, fuzz, kmemleak'),
    # ---- make check-full (on every series change)
    Step('debug-gate-park2', debug_gate('park2'), full=True,
         skip=NODEBUG,
         what='the debug gate with every cache at park=2'),
    # PREEMPT_RT and UMA kernels booted: the kselftest and slub_kunit
    # (the slow kprobe case included, without KASAN); W=1 like the matrix
    # entries of the same configuration, which share the build directory
    Step('boot-rt', guest('rt', 'rt', ('kselftest', 'kunit'),
                          ('--variant', 'patched', '--config', 'rt+kunit',
                           '--w1')), full=True,
         skip=ksrc('the RT kernel is built from the bench tree'),
         what='PREEMPT_RT guest: kselftest, slub_kunit'),
    Step('boot-numa-off', guest('uma', 'uma', ('kselftest', 'kunit'),
                                ('--variant', 'patched', '--config',
                                 'numa-off+kunit', '--w1'),
                                nodes=1, cpus_per_node=4),
         full=True, skip=ksrc('the UMA kernel is built from the bench tree'),
         what='CONFIG_NUMA=n guest: kselftest, slub_kunit'),
    Step('kunit-mutants', do_kunit_mutants, full=True,
         skip=ksrc('the break kernel is built from the bench tree'),
         what='slub_kunit on kernels with parking broken on purpose'),
)


# ---- make soak: not a step of make check

# setting: (default, its values' pattern, what it must be)
SOAK_SETTINGS = {
    'DURATION': ('600', '[1-9][0-9]*', 'a positive number of seconds'),
    'DEBUG': ('0', '[01]', '0 or 1'),
    'NO_SHEAVES': ('random', '0|1|random', '0, 1 or random'),
    'NODES': ('2', '[1-9][0-9]*', 'a positive integer'),
    'CPUS_PER_NODE': ('2', '[1-9][0-9]*', 'a positive integer'),
}


def soak_settings(env):
    """make soak's settings from ENV; ValueError for a bad one."""
    s = {k: env.get(k) or v[0] for k, v in SOAK_SETTINGS.items()}
    for k, (_, pattern, must) in SOAK_SETTINGS.items():
        if not re.fullmatch(pattern, s[k]):
            raise ValueError('%s=%s: must be %s' % (k, s[k], must))
    return s


def soak():
    """make soak: tools/guest/guest-soak.sh, a randomized run of DURATION
    seconds with invariant checks, on the patched kernel (DEBUG=1: the
    debug kernel); NO_SHEAVES: every load with (0) or without (1) sheaves,
    or random (1 in 4 without).  The guest's timeout has a margin for the
    boot, the last run and kmemleak.  Exit status 1 on a failure."""
    env = setup_env()
    try:
        s = soak_settings(env)
    except ValueError as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1
    dur = int(s['DURATION'])
    cfg, margin = ([], 300 + dur // 10) if s['DEBUG'] == '0' else \
        (['--config', 'debug'], 600 + dur // 5)
    os.chdir(TOP)
    out = os.path.join(env['SLABPARK_CACHE'], 'runs',
                       time.strftime('soak-%Y%m%d-%H%M%S'))
    try:
        bdir = subprocess.run(['tools/kernel/build-kernel.sh', *cfg],
                              stdout=subprocess.PIPE, text=True,
                              check=True).stdout.strip()
        stage = vm.stage(bdir, lambda t: print(t, file=sys.stderr))
        print('[%s] soak: %ds on %s (guest timeout %ds, output %s)' % (
            elapsed(), dur, bdir, dur + margin, out), file=sys.stderr)
        rc = vm.run(bdir, 'tools/guest/guest-soak.sh',
                    [s['DURATION'], s['NO_SHEAVES']], out, [stage + ':.'],
                    int(s['NODES']), int(s['CPUS_PER_NODE']),
                    timeout=dur + margin,
                    emit=lambda t: print(t, flush=True))
    except subprocess.CalledProcessError as e:
        print('slabpark: error: %s failed' % e.cmd[0], file=sys.stderr)
        return 1
    except vm.Error as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1
    line = last_line(os.path.join(out, 'console.txt'), 'SLABPARK-SOAK ')
    print('soak: ' + (line or 'no summary from the guest'))
    if rc or not line:      # no summary: the guest script did not end
        print('soak: FAILED (guest status %d; console: %s/console.log)'
              % (rc, out), file=sys.stderr)
        return 1
    print('soak: passed')
    return 0
