# SPDX-License-Identifier: GPL-2.0
"""make check's runner: every step (slabpark.steps.STEPS) a KTAP subtest
of one document.

    python3 -m slabpark check [STEP...]   the steps named (default: STEPS
                                          but the full-only ones), in order
    python3 -m slabpark check --full      every step (make check-full)
    python3 -m slabpark check --list      the table

A step's children are its own results, nested as they come
(slabpark.ktap.Nester); its output is also kept in
$SLABPARK_LOGDIR/check/<step>.log (default $SLABPARK_CACHE/logs), which a
failed step's result line names.  The last line is "check: N passed, N
failed, N skipped"; exit status 0 when no step failed, 2 for a bad
argument.  A step's run (a function of its Context) returns 0 or None
(pass), SKIP (the reason its last line) or another status (fail), or
raises Fail or vm.Error; a step with a failed result of its own fails.
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
    """A child in a session of its own (stdin /dev/null), so that stopping
    make check stops it and what it started (make -j's jobs) with
    vm.stop; OSError as Fail."""
    try:
        return subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                start_new_session=True, **kw)
    except OSError as err:
        raise Fail('%s: %s' % (argv[0], err.strerror))


def child(argv, capture=False, **kw):
    """subprocess.run(argv, **kw) as popen starts it (CAPTURE: stdout and
    stderr as text)."""
    if capture:
        kw.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                  errors='replace')
    with popen(argv, **kw) as p:
        try:
            out, err = p.communicate()
        except BaseException:
            vm.stop(p)
            raise
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


class Context:
    """One step: its output lines (into LOG and, nested, to EMIT), the
    results it prints itself, its commands; RESULTS: step: verdict of the
    steps before."""

    def __init__(self, name, log, emit, results):
        self.name, self.log, self.results = name, log, results
        self.last = ''
        self.nester = ktap.Nester(name, emit)
        self._num = [0]     # the result numbers of the levels it opened

    def line(self, text):
        self.last = text = text.rstrip('\n')
        self.log.write(text + '\n')
        self.log.flush()
        self.nester.feed(text)

    def say(self, msg):
        for t in str(msg).splitlines() or ['']:
            self.line(t)

    def result(self, ok, name, directive=None):
        self._num[-1] += 1
        self.line(ktap.result_line(ok, self._num[-1], name, directive))
        return ok

    @contextlib.contextmanager
    def subtest(self, name):
        """with ctx.subtest(NAME) as st: its results by st.result; it fails
        when one does, by st.ok = False or an exception (a Fail's message
        said); st.directive: its result line's."""
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
        """Run argv (ENV on top of os.environ), its stderr streamed into the
        step and its stdout too, or with CAPTURE returned (stripped);
        else its exit status.  Fail when CHECK and it failed."""
        with tempfile.TemporaryFile() if capture else \
                contextlib.nullcontext() as out:
            p = popen(argv, cwd=cwd, env=dict(os.environ, **(env or {})),
                      stdout=out if capture else subprocess.PIPE,
                      stderr=subprocess.PIPE if capture else subprocess.STDOUT)
            with p:
                try:
                    for raw in p.stderr if capture else p.stdout:
                        self.line(raw.decode('utf-8', 'replace'))
                    # (a child that closed its output may still run)
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


def select(table, names, full):
    """The steps of TABLE to run: NAMES in the order given, all but the
    full-only ones, or with full every step.  ValueError for a bad
    request."""
    if full and names:
        raise ValueError('--full takes no steps')
    by_name = {s.name: s for s in table}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ValueError("unknown step '%s' (steps: %s)" % (
            unknown[0], ' '.join(s.name for s in table)))
    return [by_name[n] for n in names] or [s for s in table
                                           if full or not s.full]


def main(table, names, full=False, listing=False):
    if listing:
        for s in table:
            extra = '; '.join((['needs ' + ','.join(s.needs)] if s.needs
                               else []) + (['check-full'] if s.full else []))
            print('%-17s %s%s' % (s.name, s.what,
                                  ' (%s)' % extra if extra else ''))
        return 0
    try:
        todo = select(table, names, full)
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
