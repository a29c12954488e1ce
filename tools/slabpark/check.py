# SPDX-License-Identifier: GPL-2.0
"""make check: every test of the project as one KTAP document: the step
table and the runner.

    python3 -m slabpark check [STEP...]   the steps named (default: STEPS
                                          but the full-only ones), in order
    python3 -m slabpark check --full      every step (make check-full)
    python3 -m slabpark check --list      the table below

Each step is a KTAP subtest whose children are its own results, nested
as they come (slabpark.ktap.Nester); its output is also kept in
$SLABPARK_LOGDIR/check/<step>.log (default $SLABPARK_CACHE/logs), which a
failed step's result line names.  The last line is "check: N passed, N
failed, N skipped"; exit status 0 when no step failed, 2 for a bad
argument.  A step's run (a function of its slabpark.steps.Context)
returns 0 or None (pass), SKIP (the reason its last line) or another
status (fail), or raises steps.Fail or vm.Error.
"""

import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

from . import config, guest_out, steps, vm
# (TOP, elapsed and setup_env: slabpark.vm's, run's and __main__'s too)
from .steps import TOP, Fail, build_kernel, elapsed, git_files, setup_env

SKIP = 4


def cmd(*argv):
    """A step that is a command (run from the top of the tree)."""
    return lambda ctx: ctx.run(list(argv))


def ksrc(why):
    """skip= of a step that needs the bench tree, not KSRC's."""
    return lambda env: 'KSRC set: ' + why if env.get('KSRC') else None


def NODEBUG(env):
    return 'CHECK_DEBUG=0: debug gate not run' \
        if env.get('CHECK_DEBUG', '1') == '0' else None


# ---- steps that are code

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
        steps.copy_package(work)
        # the knobs of this make check (the Makefile exports them) left
        # out: each case is its knobs alone
        base = {k: v for k, v in os.environ.items()
                if k not in config.BY_NAME or k == 'SLABPARK_CACHE'}
        base['PYTHONPATH'] = os.path.join(work, 'tools')
        for case, why in RUN_REFUSALS:
            p = steps.child([sys.executable, '-m', 'slabpark', 'run'],
                            cwd=work, env=dict(base, **case), capture=True)
            ctx.say('# make run %s: %s' % (knobs(case), p.stderr.strip()))
            bad = steps.judge(2, steps.ERR + why, p.returncode, p.stdout,
                              p.stderr)
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
            out = steps.child([cp, '--strict', '--show-types', *args],
                              cwd=neutral, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT).stdout.decode(
                                  'utf-8', 'replace')
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
            steps.PARK_SWITCH), '*.patch'))):
        rel = os.path.relpath(p, TOP)
        on, stack = 'the series', [p]
        if rel != steps.PARK_SWITCH:
            on, stack = 'the series + park-switch', [os.path.join(
                TOP, steps.PARK_SWITCH), p]
        with tempfile.TemporaryDirectory() as tmp:
            idx = {'GIT_INDEX_FILE': os.path.join(tmp, 'index')}
            ctx.run(git + ['read-tree', 'slabpark'], env=idx, check=True)
            if len(stack) > 1 and ctx.run(git + ['apply', '--cached', stack[0]],
                                          env=idx):
                ctx.say('%s does not apply to the series' % steps.PARK_SWITCH)
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
        self.result = {}        # step: pass, fail or skip, for needs=
        self.done = []          # (step, verdict) of each run
        self.interrupted = False

    def emit(self, line):
        self.out.write(line + '\n')
        self.out.flush()

    def step(self, n, st):
        t0 = time.time()
        self.emit('# [%s] check %d: %s' % (elapsed(self.env), n, st.name))
        log = os.path.join(self.logs, st.name + '.log')
        with open(log, 'w') as f:
            ctx = steps.Context(st.name, f, self.emit, self.result)
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
        elif rc == SKIP:
            self.emit('ok %d %s # SKIP %s' % (n, st.name, ctx.last.strip()))
        else:
            self.emit('not ok %d %s # %ds, log: %s' % (n, st.name, dt, log))
        self.result[st.name] = {0: 'pass', SKIP: 'skip'}.get(rc, 'fail')
        self.done.append((st.name, self.result[st.name]))

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
        return rc or 0

    def run(self, steps):
        self.emit('KTAP version 1')
        self.emit('1..%d' % len(steps))
        for n, st in enumerate(steps, 1):
            self.step(n, st)
            if self.interrupted:
                break
        failed = [s for s, v in self.done if v == 'fail']
        if failed:
            self.emit('# failed steps:')
            for s in failed:
                self.emit('#   %s (%s.log)' % (s, os.path.join(self.logs, s)))
        self.emit('# make check took %s' % elapsed(self.env))
        count = [v for _, v in self.done].count
        self.emit('check: %d passed, %d failed, %d skipped' % (
            count('pass'), count('fail'), count('skip')))
        return 130 if self.interrupted else 1 if failed else 0


def select(names, full):
    """The steps to run: NAMES in the order given, all but the full-only
    ones, or with full every step.  ValueError for a bad request."""
    if full and names:
        raise ValueError('--full takes no steps')
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise ValueError("unknown step '%s' (steps: %s)" % (
            unknown[0], ' '.join(s.name for s in STEPS)))
    return [BY_NAME[n] for n in names] or [s for s in STEPS
                                           if full or not s.full]


def main(names, full=False, listing=False):
    if listing:
        for s in STEPS:
            extra = '; '.join((['needs ' + ','.join(s.needs)] if s.needs
                               else []) + (['check-full'] if s.full else []))
            print('%-17s %s%s' % (s.name, s.what,
                                  ' (%s)' % extra if extra else ''))
        return 0
    try:
        todo = select(names, full)
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
        return Runner(logs).run(todo)
    except KeyboardInterrupt:
        print('slabpark check: interrupted', file=sys.stderr)
        return 130
