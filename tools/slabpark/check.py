# SPDX-License-Identifier: GPL-2.0
"""make check's runner: each step of slabpark.steps.STEPS one KTAP subtest of one document, its
output nested by slabpark.ktap.Nester and kept in $SLABPARK_LOGDIR/check/<step>.log; the last
line "check: N passed, N failed, N skipped".  A step's run(ctx) returns 0 or None (pass), SKIP
(its last line the reason) or another status (fail), or raises Fail or vm.Error.
"""

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import types

from . import config, ktap, vm

TOP = config.TOP
SKIP = 4


class Fail(Exception):
    """A step failed; the message is its last line."""


def setup_env(env=os.environ):
    """lib.sh's SLABPARK_* (as its ${VAR:-default}: empty is unset)."""
    cache = env.get('SLABPARK_CACHE') or os.path.join(
        env.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'), 'slabpark')
    env.update(SLABPARK_TOP=TOP, SLABPARK_CACHE=cache,
               SLABPARK_START=env.get('SLABPARK_START') or str(int(time.time())),
               SLABPARK_LOGDIR=env.get('SLABPARK_LOGDIR') or os.path.join(cache, 'logs'))
    return env


def elapsed(env=os.environ):
    """lib.sh's sp_elapsed: '%3dm%02ds' since SLABPARK_START."""
    t = int(time.time()) - int(env.get('SLABPARK_START', time.time()))
    return '%3dm%02ds' % (t // 60, t % 60)


def popen(argv, **kw):
    """A child in a session of its own, so that vm.stop stops it and what it started (make
    -j's jobs); OSError as Fail."""
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True, **kw)
    except OSError as err:
        raise Fail('%s: %s' % (argv[0], err.strerror))


def child(argv, capture=False, **kw):
    """subprocess.run as popen starts it; CAPTURE: stdout and stderr as text."""
    if capture:
        kw.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors='replace')
    with popen(argv, **kw) as p:
        try:
            out, err = p.communicate()
        except BaseException:
            vm.stop(p)
            raise
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


class Context:
    """What a step runs in: each line it prints goes to its log and, nested, to EMIT;
    RESULTS: step: verdict of the steps before."""

    def __init__(self, name, log, emit, results):
        self.log = log
        self.results = results
        self.last = ''          # the last line it printed: a skip's reason
        self.nester = ktap.Nester(name, emit)
        self._num = [0]         # the last result number of each open level

    def line(self, text):
        self.last = text = text.rstrip('\n')
        self.log.write(text + '\n')
        self.log.flush()
        self.nester.feed(text)

    def say(self, *msgs, prefix=''):
        """Each line of each of MSGS (str() of it), PREFIX before it."""
        for msg in msgs:
            for t in str(msg).splitlines() or ['']:
                self.line(prefix + t)

    def result(self, ok, name, directive=None):
        self._num[-1] += 1
        self.line(ktap.result_line(ok, self._num[-1], name, directive))
        return ok

    @contextlib.contextmanager
    def subtest(self, name):
        """with ctx.subtest(NAME) as st: it fails when a st.result does, by st.ok = False or by
        an exception; st.directive: its result's."""
        st = types.SimpleNamespace(ok=True, directive=None)

        def result(ok, what, directive=None):
            st.ok &= bool(ok)
            return self.result(ok, what, directive)
        st.result = result
        self.line('KTAP version 1')
        self.line('# Subtest: ' + name)
        self._num.append(0)
        try:
            yield st
        except BaseException as e:
            if isinstance(e, Fail):
                self.say(e)
            st.ok = False
            raise
        finally:
            self._num.pop()
            self.result(st.ok, name, st.directive)

    def run(self, argv, env=None, check=False, cwd=TOP, capture=False):
        """Run argv (ENV over os.environ), its stderr and, without CAPTURE, its stdout into
        the step; returns its exit status or, with CAPTURE, its stdout stripped.  CHECK: Fail
        when it failed."""
        with tempfile.TemporaryFile() if capture else contextlib.nullcontext() as out:
            p = popen(argv, cwd=cwd, env=dict(os.environ, **(env or {})),
                      stdout=out if capture else subprocess.PIPE,
                      stderr=subprocess.PIPE if capture else subprocess.STDOUT)
            with p:
                try:
                    for raw in p.stderr if capture else p.stdout:
                        self.line(raw.decode('utf-8', 'replace'))
                    p.wait()
                except BaseException:
                    vm.stop(p)
                    raise
            if check and p.returncode:
                raise Fail('%s exited with %d' % (' '.join(argv), p.returncode))
            if not capture:
                return p.returncode
            out.seek(0)
            return out.read().decode('utf-8', 'replace').strip()

    def capture(self, argv, check=True, **kw):
        return self.run(argv, check=check, capture=True, **kw)


def run_step(ctx, st, env):
    """ST's status; a step's bug fails it, the traceback in its log."""
    why = st.skip and st.skip(env)
    if why:
        ctx.say(why)
        return SKIP
    for need in st.needs:
        if ctx.results.get(need) != 'pass':
            ctx.say("cannot run: step '%s' did not pass" % need)
            return 1
    try:
        return st.run(ctx) or 0
    except (Fail, vm.Error) as e:
        ctx.say(e)
    except Exception:
        ctx.say(traceback.format_exc().rstrip())
    return 1


def run_steps(todo, logs, out=sys.stdout, env=os.environ):
    """Run the steps TODO, printing the document to OUT; the exit status."""
    def emit(line):
        out.write(line + '\n')
        out.flush()
    emit('KTAP version 1')
    emit('1..%d' % len(todo))
    done = []               # (step, verdict) of each run: pass, fail or skip
    interrupted = False
    for n, st in enumerate(todo, 1):
        emit('# [%s] check %d: %s' % (elapsed(env), n, st.name))
        t0 = time.time()
        log = os.path.join(logs, st.name + '.log')
        with open(log, 'w') as f:
            ctx = Context(st.name, f, emit, dict(done))
            try:
                rc = run_step(ctx, st, env)
            except KeyboardInterrupt:
                ctx.say('interrupted')
                rc = 1
                interrupted = True
            failed = ctx.nester.finish().failed
            if rc == 0 and failed:
                ctx.say('%d of its subtests failed' % failed)
                rc = 1
        verdict = {0: 'pass', SKIP: 'skip'}.get(rc, 'fail')
        dt = int(time.time() - t0)
        emit(ktap.result_line(verdict != 'fail', n, st.name, {
            'pass': '%ds' % dt, 'skip': 'SKIP ' + ctx.last.strip(),
            'fail': '%ds, log: %s' % (dt, log)}[verdict]))
        done.append((st.name, verdict))
        if interrupted:
            break
    failed = [s for s, v in done if v == 'fail']
    if failed:
        emit('# failed steps:')
        for s in failed:
            emit('#   %s (%s.log)' % (s, os.path.join(logs, s)))
    emit('# make check took %s' % elapsed(env))
    count = [v for _, v in done].count
    emit('check: %d passed, %d failed, %d skipped' % tuple(map(count, ('pass', 'fail', 'skip'))))
    return 130 if interrupted else 1 if failed else 0


def select(table, names, full):
    """NAMES' steps in the order given, else all but the full-only ones (with FULL all);
    ValueError for a bad request."""
    if full and names:
        raise ValueError('--full takes no steps')
    by_name = {s.name: s for s in table}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError("unknown step '%s' (steps: %s)" % (
            unknown[0], ' '.join(s.name for s in table)))
    return [by_name[n] for n in names] or [s for s in table if full or not s.full]


def main(table, names, full=False, listing=False):
    if listing:
        for s in table:
            extra = '; '.join(['needs ' + ','.join(s.needs)] * bool(s.needs) +
                              ['check-full'] * s.full)
            print('%-17s %s%s' % (s.name, s.what, ' (%s)' % extra if extra else ''))
        return 0
    try:
        todo = select(table, names, full)
    except ValueError as e:
        print('slabpark check: %s' % e, file=sys.stderr)
        return 2
    env = setup_env()
    os.chdir(TOP)
    # a CI job's timeout: the step and its children stopped, the last line printed
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    logs = os.path.join(env['SLABPARK_LOGDIR'], 'check')
    os.makedirs(logs, exist_ok=True)
    try:
        return run_steps(todo, logs)
    except KeyboardInterrupt:
        print('slabpark check: interrupted', file=sys.stderr)
        return 130
