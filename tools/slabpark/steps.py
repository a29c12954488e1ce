# SPDX-License-Identifier: GPL-2.0
"""The steps of make check that check the host side against its own
documentation and refusals (host-refusals, docs), build (series-bisect,
kselftest-intree) or boot the debug kernels (debug-gate, kunit-mutants),
and make soak.  The guest's part of each is a script of tools/guest/;
what a step checks is data beside it here.
"""

import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# ---- host-refusals: make run HOST=1's prerequisite checks on fake trees

MODULE = 'slub_stress'
ERR = '^slabpark: error: '
NODE = 'devices/system/node/'


def fake_tree(leave=()):
    """{path: text, or None for a directory} of a sysfs tree with every
    prerequisite of make run HOST=1 on a 2-node patched kernel, but the
    parts LEAVE names: nodes (one node online), numa (no node directory:
    CONFIG_NUMA=n), stats (no SLUB counters), park (no debugfs switch
    kernel/debug/slab/<cache>/park), debugfs (nothing under kernel/debug:
    not mounted), loaded (adds module/slub_stress)."""
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


SMT = {'devices/system/cpu/online': '0-3'}
for _c in range(4):
    SMT['devices/system/cpu/cpu%d/topology/physical_package_id' % _c] = \
        str(_c // 2)
    SMT['devices/system/cpu/cpu%d/topology/thread_siblings_list' % _c] = \
        '%d-%d' % (_c // 2 * 2, _c // 2 * 2 + 1)

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
    'smt': ((), SMT),
}


def make_tree(root, leave=(), files=None):
    tree = dict(fake_tree(leave), **(files or {}))
    for path, text in sorted(tree.items()):
        p = os.path.join(root, path)
        if text is None:
            os.makedirs(p, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(p), exist_ok=True)
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
FAKE = None     # CHECK_ONLY with HOST_CHECK
# (what, exit status, the one line's regex: on stderr for a refusal, on
# stdout for a pass, settings, command).  With the command FAKE (CHECK_ONLY)
# the settings go on top of HOST_CHECK, else on top of make check's
# environment; SLABPARK_SYSFS names a FAKE_TREES tree; {top}: this tree;
# {work}: the step's scratch directory (kdir, bogus.ko, vmtop: a copy of
# tools/slabpark alone, which cannot build or boot); None unsets.  make
# run's refusals of a knob exit 2 (slabpark.config), run-host.sh's 1.
HOST_REFUSALS = (
    ('complete tree passes', 0, '^slabpark: prerequisites ok: 2 nodes, SLUB '
     'counters, park switch, kernel ', {}, FAKE),
    ('no park switch, HOST_BASE_ONLY=1: passes, base only', 0,
     r'prerequisites ok: .*no park switch \(base only\)',
     {'SLABPARK_SYSFS': 'nopark', 'HOST_BASE_ONLY': '1'}, FAKE),
    ('one online node: refused', 1, ERR + r'this machine has 1 online NUMA '
     r'node\(s\) .*needs 2', {'SLABPARK_SYSFS': 'onenode'}, FAKE),
    ('no NUMA (no node/online): refused', 1,
     ERR + r'this machine has 0 online NUMA node\(s\)',
     {'SLABPARK_SYSFS': 'numa-off'}, FAKE),
    ('no SLUB_STATS: refused', 1,
     ERR + 'kernel .* has no SLUB counters .*CONFIG_SLUB_STATS=y',
     {'SLABPARK_SYSFS': 'nostats'}, FAKE),
    ('no park switch: refused, unpatched, base-only offered', 1,
     ERR + 'kernel .* has no park switch .*unpatched.*rerun with '
     'HOST_BASE_ONLY=1 for base-only numbers',
     {'SLABPARK_SYSFS': 'nopark'}, FAKE),
    ('no stats and no park switch: the stats are named first', 1,
     ERR + '.*has no SLUB counters', {'SLABPARK_SYSFS': 'nostats-nopark'},
     FAKE),
    ('debugfs not mounted: refused as such, not as unpatched (the switch is '
     'in debugfs)', 1, ERR + 'debugfs is not mounted',
     {'SLABPARK_SYSFS': 'nodebugfs'}, FAKE),
    ("debugfs not mounted, HOST_BASE_ONLY=1: refused (the module's controls "
     "are there)", 1, ERR + 'debugfs is not mounted',
     {'SLABPARK_SYSFS': 'nodebugfs', 'HOST_BASE_ONLY': '1'}, FAKE),
    ('the v5 sysfs park only (no debugfs switch): refused as unpatched', 1,
     ERR + r'kernel .* has no park switch \(no .*/kernel/debug/slab/\*/park\)',
     {'SLABPARK_SYSFS': 'oldpark'}, FAKE),
    ('no kernel build tree (KDIR): refused', 1,
     ERR + 'no build tree for the running kernel .* at /nonexistent/kdir: '
     'install linux-headers-', {'KDIR': '/nonexistent/kdir'}, FAKE),
    ('HOST_MODULE missing: refused', 1,
     ERR + 'HOST_MODULE=/nonexistent/slub_stress.ko: no such file',
     {'HOST_MODULE': '/nonexistent/slub_stress.ko'}, FAKE),
    ('HOST_MODULE not built for this kernel: refused', 1,
     ERR + 'HOST_MODULE=.* was built for kernel .*, this is ',
     {'HOST_MODULE': '{work}/bogus.ko'}, FAKE),
    ('slub_stress already loaded: refused', 1,
     ERR + 'slub_stress is already loaded: unload it',
     {'SLABPARK_SYSFS': 'loaded'}, FAKE),
    ('SLABPARK_SYSFS without --check-only: refused', 1,
     ERR + 'SLABPARK_SYSFS=.* only with --check-only',
     {'HOST': '1', 'SLABPARK_SYSFS': 'full'}, make_run('{top}')),
    ('a bad knob: refused', 2, ERR + 'RUNS=0: must be a positive integer',
     {'RUNS': '0'}, FAKE),
    ('HOST=2: refused', 2, ERR + 'HOST=2: must be 0 or 1', {'HOST': '2'},
     FAKE),
    ('HOST_BASE_ONLY=yes: refused', 1, ERR + 'HOST_BASE_ONLY=yes: must be 0 '
     'or 1', {'HOST_BASE_ONLY': 'yes'}, FAKE),
    ('CPU-less node 1: the default pair is nodes 0 and 2, not 0 and 1', 0,
     'prerequisites ok: .*, nodes 0 -> 2, 2 threads$',
     {'SLABPARK_SYSFS': 'cpuless', 'PLACEMENTS': 'cross'}, FAKE),
    ('FREE_NODE=1 (CPU-less): refused, the reason named', 1,
     ERR + r'FREE_NODE=1: node 1 has no online CPUs \(a memory-only node\)',
     {'SLABPARK_SYSFS': 'cpuless', 'PLACEMENTS': 'cross', 'FREE_NODE': '1'},
     FAKE),
    ('FREE_NODE=7 (not online): refused', 1,
     ERR + r'FREE_NODE=7: node 7 is not online \(online nodes: 0,1,2\)',
     {'SLABPARK_SYSFS': 'cpuless', 'PLACEMENTS': 'cross', 'FREE_NODE': '7'},
     FAKE),
    ('memoryless node 1: the default pair refused (one node with CPUs and '
     'memory)', 1, ERR + 'only node 0 has online CPUs and normal memory '
     '.*cross and balanced need two such nodes',
     {'SLABPARK_SYSFS': 'memless', 'PLACEMENTS': 'cross'}, FAKE),
    ('FREE_NODE=1 without normal memory: passes with the warning', 0,
     r'prerequisites ok: .*, nodes 0 -> 1, 2 threads \(warning: free node 1 '
     'has no normal memory: ',
     {'SLABPARK_SYSFS': 'memless', 'PLACEMENTS': 'cross', 'FREE_NODE': '1'},
     FAKE),
    ('ALLOC_NODE=1 without normal memory: refused', 1,
     ERR + 'ALLOC_NODE=1: node 1 has no normal memory',
     {'SLABPARK_SYSFS': 'memless', 'PLACEMENTS': 'cross', 'ALLOC_NODE': '1',
      'FREE_NODE': '0'}, FAKE),
    ("SMT siblings: local's freers on the allocators' siblings, warned", 0,
     r'prerequisites ok: .*, nodes 0 -> 1, 2 threads \(warning: SMT: in '
     "local, 1 of 1 freers run on an allocator.s sibling thread",
     {'SLABPARK_SYSFS': 'smt'}, FAKE),
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
# top-level make as a tester runs it)
NOBODY = ('setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
          'env', 'HOME=/nonexistent')
NOBODY_REFUSALS = (
    ('not root (nobody, complete tree): refused', 1, ERR + '.*run it as root',
     {'HOST': '1', 'SLABPARK_SYSFS': 'full', 'KDIR': '{work}/kdir'},
     NOBODY + make_run('{work}/top', '--check-only')),
    ('not root, make run HOST=1: refused', 2,
     ERR + r'.*run it as root \(sudo make run HOST=1\)',
     {'MAKELEVEL': None, 'MAKEFLAGS': None, 'MFLAGS': None},
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
    """Run one case of HOST_REFUSALS; its result line."""
    what, want, regex, settings, argv = case
    env = dict(os.environ)
    if argv is FAKE:
        settings = dict(HOST_CHECK, **settings)
        argv = CHECK_ONLY
    for k, v in settings.items():
        if v is None:
            env.pop(k, None)
        elif k == 'SLABPARK_SYSFS' and v in FAKE_TREES:
            env[k] = os.path.join(work, v)
        else:
            env[k] = v.format(work=work)
    p = check.Context.child([a.format(work=work, top=check.TOP)
                             for a in argv], env=env, cwd=check.TOP,
                            capture=True)
    bad = judge(want, regex, p.returncode, p.stdout, p.stderr)
    if not bad and module_loaded():
        bad = ['%s is loaded afterwards' % MODULE]
    for t in bad:
        for s in t.splitlines() or ['']:
            ctx.say('# ' + s)
    return ctx.result(not bad, what)


def do_host_refusals(ctx):
    """make run HOST=1's prerequisite checks (tools/run-host.sh, through
    python3 -m slabpark run as make runs it) on fake sysfs trees (SLABPARK_SYSFS,
    with --check-only), one prerequisite taken away at a time, without
    loading anything: HOST_REFUSALS, NOBODY_REFUSALS as root, and this
    host's own kernel as it is (refused in one line, or passed)."""
    if module_loaded():
        raise check.Fail('%s is loaded on this host: cannot tell whether a '
                         'test loaded it' % MODULE)
    with tempfile.TemporaryDirectory() as work:
        os.chmod(work, 0o755)
        for name, (leave, files) in FAKE_TREES.items():
            make_tree(os.path.join(work, name), leave, files)
        os.makedirs(os.path.join(work, 'kdir'))
        with open(os.path.join(work, 'kdir', 'Makefile'), 'w') as f:
            f.write('# a fake kernel build tree\n')
        with open(os.path.join(work, 'bogus.ko'), 'w') as f:
            f.write('not a module\n')
        for top, files in (('vmtop', ()),
                           ('top', ('Makefile', 'tools/run-host.sh',
                                    'tools/lib.sh'))):
            shutil.copytree(os.path.join(check.TOP, 'tools', 'slabpark'),
                            os.path.join(work, top, 'tools', 'slabpark'),
                            ignore=shutil.ignore_patterns('tests',
                                                          '__pycache__'))
            for f in files:
                shutil.copy2(os.path.join(check.TOP, f),
                             os.path.join(work, top, f))
        cases = list(HOST_REFUSALS)
        nobody = os.getuid() == 0 and shutil.which('setpriv')
        if nobody:
            cases += NOBODY_REFUSALS
        ok = all([host_case(ctx, work, c) for c in cases])
        if not nobody:
            ctx.result(True, 'not root', 'SKIP needs root and setpriv to run '
                       'as nobody')
        p = check.Context.child([a.format(top=check.TOP) for a in CHECK_ONLY],
                                env=dict(os.environ, HOST='1'),
                                cwd=check.TOP, capture=True)
        host = ('this host (%s): meets the prerequisites' % os.uname().release,
                0, '^slabpark: prerequisites ok', {'HOST': '1'}, CHECK_ONLY)
        if p.returncode:
            host = ('this host (%s): refused (%s...)' % (
                os.uname().release, p.stderr[:60].strip()), 1, ERR,
                {'HOST': '1'}, CHECK_ONLY)
        ok &= host_case(ctx, work, host)
    if not ok:
        raise check.Fail('host-refusals: a refusal is not as it should be')
    ctx.say('host-refusals: %d cases' % (len(cases) + 1))


# ---- docs: the facts of the code that the documentation must name

SPDX_RST = '.. SPDX-License-Identifier: GPL-2.0'
MODULE_SRC = 'mm/slub_stress.c'
STRESS_DOC = 'Documentation/dev-tools/slub-stress.rst'
PARK_DOC = 'Documentation/mm/slab-parking.rst'
ABI_FILE = 'Documentation/ABI/testing/sysfs-kernel-slab'
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
    """The module parameters of a C source: __param(type, name, ...),
    SS_PARAM(name, ...), module_param*(name, ...) outside macro bodies
    (#define and continuation lines), a call spanning lines."""
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
    """The variables of the Makefile's export line (and its continuation
    lines)."""
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
    import io

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
    files = sorted(set(DEBUGFS_FILE.findall(series + read(check.PARK_SWITCH))))
    bad = ['debugfs file %s: its path /sys/kernel/debug/slab/<cache>/%s is '
           'not in %s' % (a, a, PARK_DOC) for a in files
           if '/sys/kernel/debug/slab/<cache>/' + a not in park]
    yield 'debugfs-files', bad, 'the series and %s add %s' % (
        check.PARK_SWITCH, ' '.join(files))

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


def do_docs(ctx, top=None):
    """The facts of the code that the documentation must name: every .rst
    valid, every module parameter, sysfs attribute and debugfs file of
    the series documented, every exported Make variable in the knob
    table (slabpark.config); README a map
    of <= 200 lines."""
    ok = True
    for name, bad, what in doc_checks(top or check.TOP):
        for t in bad:
            ctx.say('# ' + t)
        ok &= ctx.result(not bad, name, None if bad else what)
    if not ok:
        raise check.Fail('docs: the documentation does not match the code')


# ---- series-bisect: every patch builds mm/ with W=1, no new warnings

W1_WARNING = re.compile(r'^[^ ]+:[0-9]+:[0-9]+: (warning|error):')


def warnings_of(log):
    """The warnings and errors of a build log, without line numbers (so
    that code moved by a patch compares equal)."""
    return {re.sub(r':[0-9]+:[0-9]+:', ':', t, count=1)
            for t in log.splitlines() if W1_WARNING.match(t)}


def lib_sh(ctx, *calls):
    """The output lines of tools/lib.sh's functions (the hashes and the
    build settings the shell scripts share)."""
    return ctx.capture(['bash', '-c', '. tools/lib.sh && ' +
                        ' && '.join(calls)]).splitlines()


def do_series_bisect(ctx):
    """The series on the pristine tree, patch by patch: mm/ with W=1 at
    the base and after each patch, which may add no warning; cached per
    series content."""
    src = check.kernel_src(ctx)
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
        raise check.Fail('the tree\'s series branch is not series %s: '
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
    shutil.copy(os.path.join(check.TOP, 'tools/kernel/configs/base.config'),
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
        ctx.say('# [%s] bisect build %d/%d: %s' % (check.elapsed(), i,
                                                   len(commits), subj))
        # -k: an error is in the warning list too
        with open(log, 'w') as f:
            rc = check.Context.child(make + ['-k', 'mm/'], stdout=f,
                                     stderr=subprocess.STDOUT,
                                     env=env).returncode
        with open(log, errors='replace') as f:
            text = f.read()
        cur = warnings_of(text)
        if rc:
            for t in [t for t in text.splitlines() if 'error' in t][:20]:
                ctx.say(t)
            ctx.result(False, subj)
            raise check.Fail("mm/ does not build at '%s' (log: %s)"
                             % (subj, log))
        if prev is None:
            ctx.say('base: %d W=1 warning(s) in mm/ before the series'
                    % len(cur))
        else:
            for t in sorted(cur - prev):
                ctx.say(t)
            if not ctx.result(cur <= prev, subj):
                raise check.Fail("'%s' adds W=1 warnings (log: %s)"
                                 % (subj, log))
        prev = cur
    with open(stamp, 'w') as f:
        f.write(series + '\n')


def logged(ctx, argv, log, env=None, cwd=None):
    """Run argv with its output into LOG; Fail naming the log, with its
    last lines, when it fails."""
    with open(log, 'a') as f:
        rc = check.Context.child(argv, stdout=f, stderr=subprocess.STDOUT,
                                 env=env, cwd=cwd).returncode
    if rc:
        with open(log, errors='replace') as f:
            for t in f.read().splitlines()[-20:]:
                ctx.say('    ' + t)
        raise check.Fail('%s failed (log: %s)' % (' '.join(argv), log))


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
    for s in ko.split(b'\0'):
        if s.startswith(b'vermagic='):
            return s[9:].decode('utf-8', 'replace').split(' ')[0]
    return None


def do_kselftest_intree(ctx):
    """The kselftest as a CI (KernelCI, LKFT) builds it against the
    patched kernel's O= build: selftests/slub_park copied (cp -r) into a
    scratch copy of the kernel tree's tools/testing/selftests (git archive;
    the tree and the build are not written to but O's kselftest/), built
    with make -C tools/testing/selftests TARGETS=slub_park O=BUILD
    USERLDFLAGS=-static (the guest's busybox), a KDIR other than O refused
    in one line, installed with kselftest_install.sh (its make arguments
    in MAKEFLAGS).  Step guest-patched runs the install."""
    bdir = os.path.realpath(check.build_kernel(ctx, '--variant', 'patched'))
    src = vm.source_tree(bdir) or ''
    if not os.path.isdir(os.path.join(src, 'tools/testing/selftests')):
        raise check.Fail("%s: cannot find its source tree (no 'include "
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
        if check.Context.child(['git', '-C', src, 'rev-parse', '--verify',
                                '-q', 'HEAD'], capture=True).returncode:
            # KSRC that is not a git tree: its files as they are
            shutil.copytree(os.path.join(src, parts[0]),
                            os.path.join(tree, parts[0]), symlinks=True)
            os.makedirs(os.path.join(tree, 'scripts'))
            shutil.copy2(os.path.join(src, parts[1]),
                         os.path.join(tree, parts[1]))
        else:
            ctx.run(['sh', '-c', 'git -C "$1" archive HEAD -- "$3" "$4" | '
                     'tar -x -C "$2"', '-', src, tree, *parts], check=True)
        # cp -r, links as links; a fresh checkout's files, no build outputs
        park = os.path.join(ksft, 'slub_park')
        shutil.copytree(os.path.join(check.TOP, 'selftests/slub_park'), park,
                        symlinks=True)
        for d, _, fs in os.walk(park):
            for f in fs:
                p = os.path.join(d, f)
                if f in INTREE_PROGS and d == park or \
                        d == os.path.join(park, 'slub_stress') and \
                        f not in ('Makefile', '.gitignore') and \
                        not f.endswith('.c'):
                    os.unlink(p)
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

        p = check.Context.child(['make', '-s', '-C', ksft,
                                 'TARGETS=slub_park', 'O=' + bdir,
                                 'KDIR=%s/not-a-kernel' % out],
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
        raise check.Fail('kselftest-intree: %s failed' % name)


# ---- the debug kernels: debug-gate, kunit-mutants

def stage_debug(ctx, bdir):
    """The guest's stage of a debug kernel (slub_kunit under kunit/)."""
    if not os.path.isfile(os.path.join(bdir, 'arch/x86/boot/bzImage')):
        raise check.Fail('%s has no bzImage' % bdir)
    with open(os.path.join(bdir, '.config')) as f:
        if not re.search('^CONFIG_DEBUG_KMEMLEAK=y', f.read(), re.M):
            raise check.Fail('%s is not a debug kernel (no '
                             'CONFIG_DEBUG_KMEMLEAK)' % bdir)
    stage = vm.stage(bdir, ctx.line)
    if not os.path.isfile(os.path.join(stage, 'kunit/slub_kunit.ko')):
        raise check.Fail('no slub_kunit.ko in %s: the debug kernel needs '
                         'CONFIG_SLUB_KUNIT_TEST=m' % bdir)
    return stage


def guest_timeout(default):
    """GUEST_TIMEOUT, else DEFAULT seconds."""
    return vm.number(os.environ.get('GUEST_TIMEOUT') or str(default),
                     'GUEST_TIMEOUT')


def last_line(path, prefix):
    """What follows PREFIX on the last line of PATH that starts with it."""
    found = None
    try:
        with open(path, errors='replace') as f:
            for t in f:
                if t.startswith(prefix):
                    found = t[len(prefix):].strip()
    except OSError:
        pass
    return found


# the groups of tools/guest/guest-debug-gate.sh the park2 boot leaves to
# the default boot (they do not depend on the parking mode)
PARK2_SKIPS = ('kselftest', 'fuzz-params', 'rmmod')


def debug_gate(boot):
    """The robustness gate: the patched kernel with
    tools/kernel/configs/debug.config (lockdep, KASAN, DEBUG_VM/LIST/
    OBJECTS, kmemleak, slub_kunit) booted with every cache at its default
    parking mode (BOOT default) or switched to park=2 by the guest right
    after boot (park2), running tools/guest/guest-debug-gate.sh, which
    fails on any splat.  GUEST_TIMEOUT (default 3000 s), GUEST_APPEND;
    KSRC: your tree, e.g. with a bug, to see it fail."""
    def run(ctx):
        bdir = check.build_kernel(ctx, '--variant', 'patched', '--config',
                                  'debug')
        stage = stage_debug(ctx, bdir)
        out = os.path.join(os.environ['SLABPARK_LOGDIR'], 'check',
                           'debug-gate-' + boot)
        name = 'debug-gate-' + boot
        t0 = time.time()
        with ctx.subtest(name) as st:
            rc = vm.run(bdir, 'tools/guest/guest-debug-gate.sh',
                        [boot, *(PARK2_SKIPS if boot == 'park2' else ())],
                        out, [stage + ':.'], append=check.guest_append(),
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
    bdir = check.build_kernel(ctx, '--variant', 'break', '--config', 'debug')
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
    s = {}
    for k, (default, pattern, must) in SOAK_SETTINGS.items():
        s[k] = env.get(k) or default
        if not re.fullmatch(pattern, s[k]):
            raise ValueError('%s=%s: must be %s' % (k, s[k], must))
    return s


def soak():
    """make soak: a randomized long run with invariant checks
    (tools/guest/guest-soak.sh) on the patched kernel (DEBUG=1: the debug
    kernel), DURATION seconds of stress, NO_SHEAVES: every load with (0)
    or without (1) sheaves, or random (1 in 4 without); PATCHES=none,
    KSRC, KVM as for make run.  The guest gets DURATION and a margin for
    the boot, the last run and the final kmemleak scan.  Exit status 1 on
    a failed invariant, a kernel splat or a timeout."""
    env = check.setup_env()
    try:
        s = soak_settings(env)
    except ValueError as e:
        print('slabpark: error: %s' % e, file=sys.stderr)
        return 1
    dur = int(s['DURATION'])
    cfg, margin = ([], 300 + dur // 10) if s['DEBUG'] == '0' else \
        (['--config', 'debug'], 600 + dur // 5)
    os.chdir(check.TOP)
    out = os.path.join(env['SLABPARK_CACHE'], 'runs',
                       time.strftime('soak-%Y%m%d-%H%M%S'))
    try:
        bdir = subprocess.run(['tools/kernel/build-kernel.sh', *cfg],
                              stdout=subprocess.PIPE, text=True,
                              check=True).stdout.strip()
        stage = vm.stage(bdir, lambda t: print(t, file=sys.stderr))
        print('[%s] soak: %ds on %s (guest timeout %ds, output %s)' % (
            check.elapsed(), dur, bdir, dur + margin, out), file=sys.stderr)
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
    if not rc and not line:
        rc = 1      # the guest script ended without its summary line
    if rc:
        print('soak: FAILED (guest status %d; console: %s/console.log)'
              % (rc, out), file=sys.stderr)
        return 1
    print('soak: passed')
    return 0


# after the definitions: check imports this module for its STEPS table
from . import check, config, vm  # noqa: E402
