# SPDX-License-Identifier: GPL-2.0
"""make check: every test of the project as one KTAP document.

    python3 -m slabpark check [STEP...]   the steps named (default: STEPS
                                          but the full-only ones), in order
    python3 -m slabpark check --full      every step (make check-full)
    python3 -m slabpark check --list      the table below

Each step is a KTAP subtest of the document: its own results (a script's
TAP/KTAP, kselftest's cases, KUnit's debugfs results, the debug gate's
points, the results a step below prints itself) are its children, nested
as they come (slabpark.ktap.Nester); its other output is "#"
diagnostics.  Each step's output, as it printed it, is also kept in
$SLABPARK_LOGDIR/check/<step>.log (SLABPARK_LOGDIR: default
$SLABPARK_CACHE/logs), whose path a failed step's result
line names.  After the steps: "# failed steps:" with their logs, the
time taken, and as the last line the plain "check: N passed, N failed, N
skipped".  Exit status 0 when no step failed, 2 for a bad argument.

A step passes, fails, or skips: a step with skip=ksrc(...) skips when
KSRC is set (your own tree: there is no base kernel, no series to apply),
skip=NODEBUG when CHECK_DEBUG=0; needs=(...) names the steps that must
have passed earlier in the same call.  A step's run is a shell command
(cmd) or a function of this module taking the step's Context: it
returns 0 (pass), 4 (skip, the reason its last line) or another status
(fail), or raises Fail (or vm.Error, a guest not booted).
"""

import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from . import config, guest_out, ktap, steps, vm

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SKIP = 4


class Fail(Exception):
    """A step failed; the message is its last line."""


# ---- the environment of lib.sh (SLABPARK_*), for the scripts and here

def setup_env(env=os.environ):
    cache = env.get('SLABPARK_CACHE') or os.path.join(
        env.get('XDG_CACHE_HOME') or os.path.join(
            os.path.expanduser('~'), '.cache'), 'slabpark')
    env['SLABPARK_TOP'] = TOP
    env['SLABPARK_CACHE'] = cache
    # as lib.sh's ${VAR:-default}: empty is unset
    env['SLABPARK_START'] = env.get('SLABPARK_START') or str(int(time.time()))
    env['SLABPARK_LOGDIR'] = env.get('SLABPARK_LOGDIR') or os.path.join(
        cache, 'logs')
    return env


def elapsed(env=os.environ):
    """lib.sh's sp_elapsed: '%3dm%02ds' since SLABPARK_START."""
    t = int(time.time()) - int(env.get('SLABPARK_START', time.time()))
    return '%3dm%02ds' % (t // 60, t % 60)


# ---- a step's context: its output (log file + KTAP nesting), commands

class Context:
    def __init__(self, name, log, emit, results=None):
        self.name = name
        self.log = log
        self.results = results if results is not None else {}  # step: verdict
        self.last = ''
        self.nester = ktap.Nester(name, emit)
        self._num = [0]     # the result numbers of the levels it opened

    def line(self, text):
        """One line of the step's output."""
        text = text.rstrip('\n')
        self.log.write(text + '\n')
        self.log.flush()
        self.last = text
        self.nester.feed(text)

    def say(self, msg):
        for t in str(msg).splitlines() or ['']:
            self.line(t)

    # results the step prints itself, numbered as KTAP wants
    def result(self, ok, name, directive=None):
        self._num[-1] += 1
        self.line(ktap.result_line(ok, self._num[-1], name, directive))
        return ok

    def subtest(self, name):
        """with ctx.subtest(NAME) as st: ...; st.ok = False to fail it,
    st.directive: its result line's."""
        return _Subtest(self, name)

    def _stream(self, p):
        for raw in iter(p.readline, b''):
            self.line(raw.decode('utf-8', 'replace'))

    @staticmethod
    def _popen(argv, **kw):
        """A child in a session of its own, so that stopping make check
        (SIGINT, SIGTERM) can stop it and what it started with vm.stop;
        OSError as Fail."""
        try:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                    start_new_session=True, **kw)
        except OSError as err:
            raise Fail('%s: %s' % (argv[0], err.strerror))

    @classmethod
    def child(cls, argv, capture=False, **kw):
        """subprocess.run(argv, **kw) in a session of its own (stdin
        /dev/null; CAPTURE: stdout and stderr as text): stopping make
        check stops it and what it started (make -j's jobs) with vm.stop"""
        if capture:
            kw.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                      text=True, errors='replace')
        p = cls._popen(argv, **kw)
        with p:
            try:
                out, err = p.communicate()
            except BaseException:
                vm.stop(p)
                raise
        return subprocess.CompletedProcess(argv, p.returncode, out, err)

    def run(self, argv, env=None, check=False, cwd=TOP):
        """Run argv with its output (stdout and stderr) streamed into
        the step; its exit status, or Fail when check and it failed."""
        e = dict(os.environ, **(env or {}))
        p = self._popen(argv, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, env=e, cwd=cwd)
        with p:
            try:
                self._stream(p.stdout)
            except BaseException:
                vm.stop(p)
                raise
        rc = p.returncode
        if check and rc != 0:
            raise Fail('%s exited with %d' % (' '.join(argv), rc))
        return rc

    def capture(self, argv, env=None, cwd=TOP, check=True):
        """Run argv; its stdout (stripped) returned, its stderr streamed
        into the step.  Fail when it fails."""
        e = dict(os.environ, **(env or {}))
        p = self._popen(argv, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, env=e, cwd=cwd)
        out = []
        with p:
            t = threading.Thread(target=lambda: out.append(p.stdout.read()))
            t.start()
            try:
                self._stream(p.stderr)
            except BaseException:
                vm.stop(p)
                raise
            t.join()
        rc = p.returncode
        if check and rc != 0:
            raise Fail('%s exited with %d' % (' '.join(argv), rc))
        return out[0].decode('utf-8', 'replace').strip()


class _Subtest:
    def __init__(self, ctx, name):
        self.ctx, self.name, self.ok = ctx, name, True
        self.directive = None

    def __enter__(self):
        self.ctx.line('KTAP version 1')
        self.ctx.line('# Subtest: ' + self.name)
        self.ctx._num.append(0)
        return self

    def result(self, ok, name, directive=None):
        self.ok &= bool(ok)
        return self.ctx.result(ok, name, directive)

    def __exit__(self, et, ev, tb):
        self.ctx._num.pop()
        if et is Fail:
            self.ctx.say(str(ev))
        if et is not None:
            self.ok = False
        self.ctx.result(self.ok, self.name, self.directive)
        if et is Fail:
            return False
        return None


# ---- step kinds

def cmd(*argv, env=None):
    """A step that is a command (run from the top of the tree)."""
    def run(ctx):
        return ctx.run(list(argv), env=env)
    return run


def ksrc(why):
    """skip= of a step that needs the bench tree, not KSRC's."""
    def skip(env):
        return 'KSRC set: ' + why if env.get('KSRC') else None
    return skip


def NODEBUG(env):
    if env.get('CHECK_DEBUG', '1') == '0':
        return 'CHECK_DEBUG=0: debug gate not run'
    return None


def git_files(*patterns):
    out = subprocess.run(['git', 'ls-files', '--', *patterns], cwd=TOP,
                         check=True, capture_output=True, text=True).stdout
    return sorted(set(out.split()))


def kernel_src(ctx):
    return ctx.capture(['tools/kernel/kernel-src.sh'])


def build_kernel(ctx, *args):
    """tools/kernel/build-kernel.sh ARGS: the build directory."""
    return ctx.capture(['tools/kernel/build-kernel.sh', *args])


# ---- steps that are code

def do_deps(ctx):
    ctx.run([sys.executable, '-m', 'slabpark', 'deps'],
            env={'PYTHONPATH': os.path.join(TOP, 'tools')}, check=True)


SH_SHEBANG = re.compile(r'^#!/bin/(busybox )?sh')


def shell_files():
    """(bash files, sh files): the tracked shell scripts, split by their
    first line (POSIX sh: #!/bin/sh or #!/bin/busybox sh)."""
    bash, sh = [], []
    for f in git_files('*.sh', '.ci/run', 'tools/vm/init'):
        with open(os.path.join(TOP, f), errors='replace') as fh:
            first = fh.readline()
        (sh if SH_SHEBANG.match(first) else bash).append(f)
    return bash, sh


def do_shellcheck(ctx):
    bash, sh = shell_files()
    ctx.run(['shellcheck', '-x', *bash], check=True)
    ctx.run(['shellcheck', '-s', 'sh', '-x', *sh], check=True)
    ctx.say('ShellCheck clean: %d bash and %d sh scripts' % (len(bash),
                                                             len(sh)))


def python_files():
    return [f for f in git_files('*.py')]


def do_python_lint(ctx):
    """py_compile of every tracked Python file, pyflakes3, and flake8
    where Debian's is installed (the style of tools/slabpark/setup.cfg)."""
    files = python_files()
    bad = []
    for f in files:
        try:
            with open(os.path.join(TOP, f), 'rb') as fh:
                compile(fh.read(), f, 'exec')
        except (SyntaxError, ValueError) as e:
            ctx.say('%s: %s' % (f, e))
            bad.append(f)
    ctx.result(not bad, 'py_compile', '%d files' % len(files))
    ok = not bad
    ok &= ctx.result(ctx.run(['pyflakes3', *files]) == 0, 'pyflakes3')
    if shutil.which('flake8'):
        ok &= ctx.result(ctx.run(['flake8', '--config',
                                  'tools/slabpark/setup.cfg', *files]) == 0,
                         'flake8')
    else:
        ctx.result(True, 'flake8', 'SKIP not installed (Debian: flake8)')
    if not ok:
        raise Fail('python lint: %s' % ', '.join(bad) if bad else
                   'python lint failed')


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
    env = {'PYTHONPATH': os.path.join(TOP, 'tools')}
    with ctx.subtest('unittest') as st:
        st.ok = ctx.run([sys.executable, '-m', 'slabpark', 'test'],
                        env=env) == 0
    ok = st.ok
    with ctx.subtest('run-refusals') as st, \
            tempfile.TemporaryDirectory() as work:
        shutil.copytree(os.path.join(TOP, 'tools', 'slabpark'),
                        os.path.join(work, 'tools', 'slabpark'),
                        ignore=shutil.ignore_patterns('tests', '__pycache__'))
        # the knobs of this make check (the Makefile exports them) left
        # out: each case is its knobs alone
        base = {k: v for k, v in os.environ.items()
                if k not in config.BY_NAME or k == 'SLABPARK_CACHE'}
        base['PYTHONPATH'] = os.path.join(work, 'tools')
        for case, why in RUN_REFUSALS:
            # a refusal: status 2, one line on stderr, nothing on stdout
            p = Context.child([sys.executable, '-m', 'slabpark', 'run'],
                              cwd=work, env=dict(base, **case), capture=True)
            bad = steps.judge(2, '^slabpark: error: ' + why, p.returncode,
                              p.stdout, p.stderr)
            ctx.say('# make run %s: %s' % (knobs(case), p.stderr.strip()))
            for t in bad:
                ctx.say('#   ' + t)
            st.result(not bad, 'make run ' + knobs(case))
    ok &= st.ok
    if not ok:
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
    each tracked source (a local module build's mm/*.mod.c is not
    tracked), from a neutral directory: inside a git work tree checkpatch
    can take a tracked .patch for a source file."""
    cp = os.path.join(kernel_src(ctx), 'scripts', 'checkpatch.pl')
    jobs = []
    for f in sorted(glob.glob(os.path.join(TOP, 'patches', '0*.patch'))):
        if os.path.basename(f).startswith('0000-cover-letter'):
            continue
        jobs.append((os.path.basename(f), [
            '--ignore', ','.join(CHECKPATCH_PATCH_IGNORE), f]))
    seen = set()
    for pat, ignore in CHECKPATCH_SOURCES:
        for f in git_files(pat):
            if f in seen or os.path.islink(os.path.join(TOP, f)):
                continue
            seen.add(f)
            jobs.append((f, ['--no-tree', '--ignore', ','.join(ignore),
                             '-f', os.path.join(TOP, f)]))
    bad = 0
    with tempfile.TemporaryDirectory() as neutral:
        for name, args in jobs:
            p = subprocess.run([cp, '--strict', '--show-types', *args],
                               cwd=neutral, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            out = p.stdout.decode('utf-8', 'replace')
            total = [t for t in out.splitlines() if t.startswith('total:')]
            ctx.say('%s: %s' % (name, total[-1] if total else '(no total)'))
            clean = CHECKPATCH_CLEAN in out
            if not clean:
                ctx.say(out)
                bad += 1
            ctx.result(clean, name)
    if bad:
        raise Fail('checkpatch: %d of %d not clean' % (bad, len(jobs)))


BENCH_PATCHES = 'tools/kernel/bench-patches'
PARK_SWITCH = BENCH_PATCHES + '/park-switch.patch'


def do_bench_patches(ctx):
    """The bench-only patches of tools/kernel/bench-patches/ apply as
    build-kernel.sh stacks them: park-switch on the series, each other one
    on the series + park-switch.  Checked against the tree of the series
    branch in a temporary index, the work tree untouched."""
    src = kernel_src(ctx)
    # the series branch up to date (series.sh takes the tree's lock)
    ctx.capture(['tools/kernel/series.sh', 'apply', '--tree', src])
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        idx = {'GIT_INDEX_FILE': os.path.join(tmp, 'index')}
        git = ['git', '-C', src]
        for p in sorted(glob.glob(os.path.join(TOP, BENCH_PATCHES,
                                               '*.patch'))):
            rel = os.path.relpath(p, TOP)
            if os.path.exists(idx['GIT_INDEX_FILE']):
                os.unlink(idx['GIT_INDEX_FILE'])
            ctx.run(git + ['read-tree', 'slabpark'], env=idx, check=True)
            on = 'the series'
            if rel != PARK_SWITCH:
                on = 'the series + park-switch'
                if ctx.run(git + ['apply', '--cached',
                                  os.path.join(TOP, PARK_SWITCH)],
                           env=idx) != 0:
                    ctx.say('%s does not apply to the series' % PARK_SWITCH)
                    ctx.result(False, rel)
                    bad += 1
                    continue
            if ctx.run(git + ['apply', '--cached', '--check', p],
                       env=idx) == 0:
                ctx.say('%s applies to %s' % (rel, on))
                ctx.result(True, rel)
            else:
                ctx.say('%s does not apply to %s: rebase it (see its branch '
                        'in README)' % (rel, on))
                ctx.result(False, rel)
                bad += 1
    if bad:
        raise Fail('bench-patches: %d do not apply' % bad)


W1_PROBLEM = re.compile(r'^[^ ]*(mm/slub|lib/tests/slub_kunit)\.c:[0-9]+:'
                        r'[0-9]+: (warning|error)')


def matrix(config):
    """The series alone (what is sent): mm/slub.o with W=1 in CONFIG, then
    again with slub_kunit (tools/kernel/configs/kunit.config, which adds
    DEBUG_VM and KPROBES) with the series' parking cases, where the
    configuration can have it (not with SLUB_TINY)."""
    def run(ctx):
        for cfg in (config, config + '+kunit'):
            targets = ['mm/slub.o']
            if cfg != config:
                if config == 'tiny':
                    continue
                targets.append('lib/tests/slub_kunit.o')
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
            if warn:
                raise Fail('W=1 warnings with config %s' % cfg)
            if missing:
                raise Fail('not built with config %s' % cfg)
            ctx.say('%s build with W=1 and no warnings: base + %s'
                    % (' '.join(targets), cfg.replace('+', ' + ')))
    return run


def guest_append():
    """GUEST_APPEND: more kernel arguments for make check's guests."""
    return os.environ.get('GUEST_APPEND', '')


def guest(label, kernel, suites, build, stages=(), **boot):
    """Boot build-kernel.sh BUILD's kernel with the guest's stage (and
    STAGES, more SRC:DST; BOOT: more of vm.run's arguments, e.g. shape=)
    and run tools/guest/guest-check.sh KERNEL SUITES (KERNEL: the
    kselftest outcome to expect, tools/guest/guest-lib.sh); console and
    files in $SLABPARK_LOGDIR/check/LABEL/, beside the step logs (two
    checks with their own SLABPARK_LOGDIR never share them).
    GUEST_APPEND: more kernel arguments.  SUITES and STAGES may be
    functions of the step's Context (e.g. of ctx.results, what the steps
    before gave).  Then the host's checks of the files the suites
    returned (slabpark.guest_out)."""
    def run(ctx):
        want = suites(ctx) if callable(suites) else suites
        more = stages(ctx) if callable(stages) else stages
        bdir = build_kernel(ctx, *build)
        out = os.path.join(os.environ['SLABPARK_LOGDIR'], 'check', label)
        rc = vm.run(bdir, 'tools/guest/guest-check.sh', [kernel, *want],
                    out, [vm.stage(bdir, ctx.line) + ':.', *more],
                    append=guest_append(), emit=ctx.line, **boot)
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


def intree_suites(ctx):
    """guest-patched runs the in-tree install (suite kselftest-intree)
    when step kselftest-intree made it, else the collection's own."""
    if ctx.results.get('kselftest-intree') == 'pass':
        return ('kselftest-intree',) + SUITES[1:]
    return SUITES


def intree_stages(ctx):
    if ctx.results.get('kselftest-intree') == 'pass':
        return (os.path.join(os.environ['SLABPARK_CACHE'], 'kselftest-intree',
                             'install') + ':kselftest-intree',)
    return ()


# name, what it runs; needs= the steps that must pass before in the same
# call, full=True only in make check-full, skip= when it does not apply
STEPS = (
    Step('deps', do_deps, what='python3 -m slabpark deps'),
    Step('shellcheck', do_shellcheck, what='shellcheck -x of every script'),
    Step('python-lint', do_python_lint,
         what='py_compile, pyflakes3, flake8 of every Python file'),
    Step('python', do_python,
         what="tools/slabpark's unit tests, make run's refusals"),
    Step('host-refusals', steps.do_host_refusals,
         what="make run HOST=1's refusals on fake trees and this host"),
    Step('docs', steps.do_docs,
         what='every .rst valid; parameters, attributes, variables named'),
    Step('kernel-source', cmd('tools/kernel/kernel-src.sh'),
         what='the 7.3 tree'),
    Step('checkpatch', do_checkpatch,
         what='checkpatch --strict of the patches and sources'),
    Step('series-bisect', steps.do_series_bisect,
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
    Step('kselftest-intree', steps.do_kselftest_intree,
         needs=('kernel-patched',),
         what='the kselftest built and installed in the kernel tree'),
    # make run HOST=1 as a tester runs it, with the module prebuilt
    # (suite host-mode; on the base kernel: refused as unpatched)
    Step('guest-patched', guest('patched', 'patched', intree_suites,
                                ('--variant', 'patched'),
                                stages=intree_stages),
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
    Step('debug-gate', steps.debug_gate('default'), skip=NODEBUG,
         what='debug kernel: slub_kunit, kselftest, stress, fuzz, kmemleak'),
    # ---- make check-full (on every series change)
    Step('debug-gate-park2', steps.debug_gate('park2'), full=True,
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
    Step('kunit-mutants', steps.do_kunit_mutants, full=True,
         skip=ksrc('the break kernel is built from the bench tree'),
         what='slub_kunit on kernels with parking broken on purpose'),
)
BY_NAME = {s.name: s for s in STEPS}


# ---- the runner

class Runner:
    def __init__(self, logs, out=sys.stdout, env=os.environ):
        self.logs, self.out, self.env = logs, out, env
        self.result = {}
        self.counts = {'pass': 0, 'fail': 0, 'skip': 0}
        self.failures = []
        self.interrupted = False

    def emit(self, line):
        self.out.write(line + '\n')
        self.out.flush()

    def step(self, n, st):
        t0 = time.time()
        self.emit('# [%s] check %d: %s' % (elapsed(self.env), n, st.name))
        log = os.path.join(self.logs, st.name + '.log')
        with open(log, 'w') as f:
            ctx = Context(st.name, f, self.emit, self.result)
            try:
                rc = self._run(ctx, st)
            except KeyboardInterrupt:
                ctx.say('interrupted')
                self.interrupted = True
                rc = 1
            base = ctx.nester.finish()
            if rc == 0 and base.failed:
                # KTAP: a test with a failing subtest fails
                ctx.say('%d of its subtests failed' % base.failed)
                rc = 1
        dt = int(time.time() - t0)
        if rc == 0:
            self.emit('ok %d %s # %ds' % (n, st.name, dt))
            verdict = 'pass'
        elif rc == SKIP:
            self.emit('ok %d %s # SKIP %s' % (n, st.name, ctx.last.strip()))
            verdict = 'skip'
        else:
            self.emit('not ok %d %s # %ds, log: %s' % (n, st.name, dt, log))
            self.failures.append('%s (%s)' % (st.name, log))
            verdict = 'fail'
        self.result[st.name] = verdict
        self.counts[verdict] += 1
        return verdict

    def _run(self, ctx, st):
        why = st.skip(self.env) if st.skip else None
        if why:
            ctx.say(why)
            return SKIP
        for need in st.needs:
            if self.result.get(need) != 'pass':
                ctx.say("cannot run: step '%s' did not pass" % need)
                return 1
        try:
            rc = st.run(ctx)
        except (Fail, vm.Error) as e:
            ctx.say(str(e))
            return 1
        except Exception:
            # a bug of the step (or a file it needs is missing): its
            # failure, the traceback in its log; the other steps run
            ctx.say(traceback.format_exc().rstrip())
            return 1
        return 0 if rc is None else rc

    def run(self, steps):
        self.emit('KTAP version 1')
        self.emit('1..%d' % len(steps))
        for n, st in enumerate(steps, 1):
            self.step(n, st)
            if self.interrupted:
                break
        if self.failures:
            self.emit('# failed steps:')
            for f in self.failures:
                self.emit('#   ' + f)
        self.emit('# make check took %s' % elapsed(self.env))
        self.emit('check: %d passed, %d failed, %d skipped' % (
            self.counts['pass'], self.counts['fail'], self.counts['skip']))
        if self.interrupted:
            return 130
        return 1 if self.counts['fail'] else 0


def select(names, full):
    """The steps to run: NAMES in the order given, all but the full-only
    ones, or with full every step.  ValueError for a bad request."""
    if full and names:
        raise ValueError('--full takes no steps')
    if full:
        return list(STEPS)
    if not names:
        return [s for s in STEPS if not s.full]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise ValueError("unknown step '%s' (steps: %s)" % (
            unknown[0], ' '.join(s.name for s in STEPS)))
    return [BY_NAME[n] for n in names]


def list_steps(out=sys.stdout):
    for s in STEPS:
        extra = []
        if s.needs:
            extra.append('needs ' + ','.join(s.needs))
        if s.full:
            extra.append('check-full')
        out.write('%-17s %s%s\n' % (s.name, s.what,
                                    ' (%s)' % '; '.join(extra)
                                    if extra else ''))


def main(names, full=False, listing=False):
    if listing:
        list_steps()
        return 0
    try:
        steps = select(names, full)
    except ValueError as e:
        print('slabpark check: %s' % e, file=sys.stderr)
        return 2
    env = setup_env()
    os.chdir(TOP)
    # SIGTERM (a CI job's timeout) as SIGINT: the step running and its
    # children are stopped, the summary and the last line still printed
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    logs = os.path.join(env['SLABPARK_LOGDIR'], 'check')
    os.makedirs(logs, exist_ok=True)
    try:
        return Runner(logs).run(steps)
    except KeyboardInterrupt:
        print('slabpark check: interrupted', file=sys.stderr)
        return 130
