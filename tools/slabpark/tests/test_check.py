# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make check: its runner (slabpark.check), its KTAP (slabpark.ktap) and its steps
(slabpark.steps).  Fixtures (fixtures/check/): step logs of make check runs, and made-up ones
(kselftest-runner.log: the kselftest runner's output; debug-gate-broken.log)."""

import contextlib
import glob
import importlib.util
import io
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

from slabpark import check, ktap, steps
from slabpark.steps import Step

FIXTURES = os.path.join(os.path.dirname(__file__), 'fixtures', 'check')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read().splitlines()


def nest(step, lines, ok=True):
    """The KTAP document of make check with one step that printed LINES."""
    out = ['KTAP version 1', '1..1']
    n = ktap.Nester(step, out.append)
    for t in lines:
        n.feed(t)
    n.finish()
    return out + [ktap.result_line(ok, 1, step)]


def kunit_parser(test):
    """The kernel tree's kunit_parser (KSRC's, else a cached tree's) as parse(LINES) -> its
    main Test; TEST skipped without a tree."""
    rel = os.path.join('tools', 'testing', 'kunit')
    found = sorted(glob.glob(os.path.join(check.setup_env(dict(os.environ))['SLABPARK_CACHE'],
                                          'src', '*', rel, 'kunit_parser.py')))
    if os.environ.get('KSRC'):
        found.insert(0, os.path.join(os.environ['KSRC'], rel, 'kunit_parser.py'))
    found = [f for f in found if os.path.isfile(f)]
    if not found:
        test.skipTest('no kernel tree with tools/testing/kunit (KSRC, the cache)')
    sys.path.insert(0, os.path.dirname(found[0]))
    import kunit_parser
    import kunit_printer
    return lambda lines: kunit_parser.parse_run_tests(lines, kunit_printer.Printer(print=False))


def structure(test, doc):
    """DOC's KTAP as kunit_parser needs it, read with no tree: a subtest's plan before its
    results, which are numbered from 1 and, unless it failed, as many as the plan says; its
    result, one level out, names it."""
    test.assertEqual(doc[0], 'KTAP version 1')
    levels = [[None, None, 0]]  # [name, plan, results] of each open subtest
    for no, line in enumerate(doc[1:], 2):
        body = line.lstrip(' ')
        # 1: a new subtest's line, 0: the innermost one's, -1: its result
        d = (len(line) - len(body)) // 4 + 1 - len(levels)
        top = levels[-1]
        r = ktap.RESULT.match(body)
        if body.startswith('# Subtest: ') or body == 'KTAP version 1':
            test.assertEqual(d, 1, (no, line))
            if body[0] == '#':
                levels.append([body[11:], None, 0])
        elif ktap.PLAN.match(body) and d == 0:
            test.assertEqual(top[1:], [None, 0], (no, line))
            top[1] = int(body[3:])
        elif r:
            test.assertIn(d, (0, -1), (no, line))
            if d == -1:
                test.assertEqual(r[2], top[0], (no, line))
                test.assertIn(top[1], (None, top[2]) if r[1] == 'ok' else (top[1],), top[0])
                levels.pop()
                top = levels[-1]
            top[2] += 1
            test.assertEqual(body.split()[1 + (r[1] != 'ok')], str(top[2]), (no, line))
        else:
            test.assertTrue(body.startswith('#'), (no, line))
    test.assertEqual(len(levels), 1, levels[-1][0])
    test.assertIn(levels[0][1], (None, levels[0][2]))


def failed(t, prefix=''):
    """The failed cases under kunit_parser's Test T, kunit.py's way: a.b.c."""
    return [f for c in t.subtests for f in (
        failed(c, prefix + c.name + '.') if c.subtests else
        [] if c.ok_status() else [prefix + c.name])]


# the kselftest runner's output, a case failed, one skipped
RUNNER = fixture('kselftest-runner.log')
KS = 'selftests: slub_park: ksft_slub_park.sh'


def suite(name, lines, ok):
    return ['KTAP version 1', '# Subtest: ' + name] + lines + \
        ['%s %s' % ('ok 1' if ok else 'not ok 1', name)]


# (step, its output, its failed cases, {subtest: (children, skipped)}, lines written)
NESTED = (
    ('guest-base', fixture('guest-base.log'), [],
     {('guest-base', 'kselftest', KS): (17, 4), ('guest-base',): (6, 0)},
     ['            ok 17 taint', '    ok 4 topology # 1s']),
    # a kselftest expectation broken on purpose (slub_park.sh: cross's remote_free_pct >=
    # 101): the case is named, and only it
    ('guest-patched', fixture('guest-patched-broken.log'),
     ['guest-patched.kselftest.%s.remote_free_pct' % KS],
     {('guest-patched',): (3, 0), ('guest-patched', 'kselftest', KS): (17, 0)},
     ['    ok 2 slabstat-window', '    ok 3 host-mode', '            1..17',
      '        not ok 1 %s # exit=1' % KS]),
    ('debug-gate', fixture('debug-gate.log'), [], {('debug-gate', 'debug-gate-default'): (18, 0)},
     ['        ok 1 kunit # 21s', '        # 1..18']),
    # debug-gate.sh's points, its kunit and kselftest ones holding their own KTAP, each with a
    # failed case
    ('debug-gate', fixture('debug-gate-broken.log'),
     ['debug-gate.debug-gate-default.kunit.slub_test.test_park_shrink',
      'debug-gate.debug-gate-default.kselftest.%s.run_cross' % KS],
     {('debug-gate', 'debug-gate-default', 'kunit', 'slub_test'): (3, 0),
      ('debug-gate', 'debug-gate-default', 'kunit', 'slub_test', 'test_param'): (2, 0)},
     ['                1..3', '                # test_park_shrink: EXPECTATION '
      'FAILED at lib/tests/slub_kunit.c', '                ok 3 taint # SKIP no taint']),
    ('host-refusals', fixture('host-refusals.log'), [],
     {('host-refusals',): (25, 0)}, ['    ok 1 complete tree passes', '    # 1..25']),
    ('race-widen', fixture('race-widen.log'), [], {('race-widen', 'race-widen'): (1, 0)},
     ['        ok 1 race_widen # 10773 parks, 3422 re-adds, 19s']),
    ('x', ['ok 1 x', 'ok 2 y'], [], {}, ['    ok 1 x (result)']),
    # diagnostics can neither open a subtest nor end kunit_parser's input
    ('g', ['Subtest: fake', 'reboot: System halted', 'ok 1 real'], [], {},
     ['    # (Subtest: fake)', '    # reboot : System halted', '    ok 1 real']),
    # a result or a subtest between the runner's line and a version line: that one is no
    # runner's
    ('u', ['# selftests: a: b', 'ok 1 x', '# TAP version 13', '# selftests: a: c',
           '# Subtest: s', '# TAP version 13', 'ok 1 y', 'ok 2 s'], [],
     {('u',): (2, 0), ('u', 's'): (1, 0)}, ['    ok 1 x', '        ok 1 y', '    ok 2 s']),
    # late and SKIP plans are diagnostics
    ('s', ['TAP version 13', '1..0 # SKIP nothing'], [], {('s',): (0, 0)}, []),
    ('t', ['KTAP version 1', '1..2', 'ok 1 a', 'ok 2 b', 'ok 3 c', '1..3'],
     [], {('t',): (3, 0)}, ['    # 1..3']),
)
# the guest died in the kselftest, or run_kselftest.sh was killed (then guest-check.sh's
# 'not ok 1 kselftest', the next suite after): what is open fails (kunit_parser: its plan
# not met, an error; the two cases missing named as KS's of no name)
MISSING = ['guest-patched.kselftest.%s.' % KS] * 2
CUT = (
    ('guest-patched', suite('kselftest', RUNNER[:9], True)[:-1], MISSING, {},
     ['        not ok 1 %s # no result line: the output ended' % KS,
      '    not ok 1 kselftest # no result line: the output ended']),
    ('guest-patched', suite('kselftest', RUNNER[:9], False) + suite('kmemleak', [], True),
     MISSING, {}, ['        not ok 1 %s # no result line before kselftest' % KS,
                   '    not ok 1 kselftest', '    ok 2 kmemleak']),
    ('g', RUNNER[:9] + ['ok 1 other'], ['g.%s.' % KS] * 2, {},
     ['    not ok 1 %s # no result line' % KS, '    ok 2 other']),
)


class NesterTest(unittest.TestCase):
    def test_nested(self):
        """the lines written; kunit_parser reads them without an error (CUT: with one), names
        the failed cases and counts each subtest's"""
        docs = []
        for step, lines, fails, children, written in NESTED + CUT:
            docs.append(nest(step, lines, not fails))
            structure(self, docs[-1])
            for t in written:
                self.assertIn(t, docs[-1], step)
        self.assertEqual(nest('deps', ['TAP version 13', 'installing']), [
            'KTAP version 1', '1..1', '    # installing', 'ok 1 deps'])
        parse = kunit_parser(self)
        for row, doc in zip(NESTED + CUT, docs):
            step, lines, fails, children, _ = row
            with self.subTest(step=step, first=lines[:3]):
                main = parse(doc)
                self.assertEqual((bool(main.counts.errors), failed(main)), (row in CUT, fails))
                for path, n in children.items():
                    t = main
                    for name in path:
                        t = next(c for c in t.subtests if c.name == name)
                    self.assertEqual((len(t.subtests), sum(
                        c.status.name == 'SKIPPED' for c in t.subtests)), n, path)


def fake(rc=0, say=(), results=()):
    def run(ctx):
        ctx.say(*say)
        for ok, name in results:
            ctx.result(ok, name)
        if isinstance(rc, Exception):
            raise rc
        return rc
    return run


def subtest_and_capture(ctx):
    with ctx.subtest('one') as st:
        st.result(True, 'a')
        st.result(False, 'b')
        st.directive = '12s summary'
    ctx.say('captured: %r' % ctx.capture(['sh', '-c', 'echo out; echo err >&2']))
    return 0 if st.ok else 1


def subtest_fails(ctx):
    with ctx.subtest('one'):
        raise check.Fail('x')


# (step, its result line, its log (a regex), lines of the document), run in one document
# with KSRC and CHECK_DEBUG=0 set
RUNS = (
    (Step('a', fake(0, ['hello'])), r'ok 1 a # \d+s', r'\Ahello\n\Z', ['    # hello']),
    (Step('b', fake(check.SKIP, ['no reason here', 'why not'])), 'ok 2 b # SKIP why not',
     'no reason here', []),
    (Step('c', fake(1, ['broken'])), r'not ok 3 c # \d+s, log: .*/c\.log', 'broken', []),
    (Step('d', fake(check.Fail('it broke'))), 'not ok 4 d .*', r'\Ait broke\n\Z', []),
    (Step('e', fake(None, results=[(True, 'x')])), 'ok 5 e .*', r'\Aok 1 x\n\Z', ['    ok 1 x']),
    # a step's bug fails that step, its traceback in its log
    (Step('f', fake(KeyError('nokey'))), 'not ok 6 f .*', "KeyError: 'nokey'", []),
    # status 0, but a subtest left open: KTAP: the step fails too
    (Step('g', steps.cmd('sh', '-c', 'echo KTAP version 1; echo "# Subtest: s"; echo ok 1 a')),
     'not ok 7 g .*', '1 of its subtests failed\n',
     ['    not ok 1 s # no result line: the output ended']),
    (Step('sh', steps.cmd('sh', '-c', 'echo TAP version 13; echo 1..2; echo ok 1 a; '
                          'echo oops >&2; echo not ok 2 b; exit 3')), 'not ok 8 sh .*',
     r'\n1\.\.2\nok 1 a\noops\nnot ok 2 b\n\Z', ['    # oops', '    not ok 2 b']),
    (Step('s', subtest_and_capture), 'not ok 9 s .*',
     "ok 1 a\nnot ok 2 b\nnot ok 1 one # 12s summary\nerr\ncaptured: 'out'\n\\Z",
     ['    not ok 1 one # 12s summary', '    # err']),
    (Step('t', subtest_fails), 'not ok 10 t .*', r'\nx\nnot ok 1 one\nx\n\Z', []),
    (Step('k', fake(0)), 'ok 11 k .*', r'\A\Z', []),
    (Step('n1', fake(0), needs=('k',)), 'ok 12 n1 .*', r'\A\Z', []),
    (Step('n2', fake(0), needs=('c',)), 'not ok 13 n2 .*',
     r"\Acannot run: step 'c' did not pass\n\Z", []),
    (Step('m', fake(1), skip=steps.ksrc('not yours')),
     'ok 14 m # SKIP KSRC set: not yours', r'\AKSRC set: not yours\n\Z', []),
    (Step('o', fake(1), skip=steps.NODEBUG),
     'ok 15 o # SKIP CHECK_DEBUG=0: debug gate not run', 'gate not run\n', []),
)


def run_steps(test, todo, env=None):
    """(status, document) of check.run_steps of TODO (ENV: its environment); test.logs:
    {file: text} of the step logs, test.logdir their directory."""
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as logs:
        rc = check.run_steps(todo, logs, out, dict(env or {}, SLABPARK_START='0'))
        test.logs = {}
        for f in os.listdir(logs):
            with open(os.path.join(logs, f)) as fh:
                test.logs[f] = fh.read()
        test.logdir = logs
    return rc, out.getvalue().splitlines()


class RunnerTest(unittest.TestCase):
    def test_runs(self):
        rc, out = run_steps(self, [r[0] for r in RUNS], {'KSRC': '/x', 'CHECK_DEBUG': '0'})
        for st, result, log, lines in RUNS:
            with self.subTest(step=st.name):
                self.assertTrue([t for t in out if re.fullmatch(result, t)], result)
                self.assertRegex(self.logs[st.name + '.log'], log)
                for t in lines:
                    self.assertIn(t, out)
        self.assertEqual((rc, out[-1]), (1, 'check: 4 passed, 8 failed, 3 skipped'))
        i = out.index('# failed steps:')
        self.assertEqual(out[i + 1:i + 3], ['#   %s (%s/%s.log)' % (s, self.logdir, s)
                                            for s in 'cd'])
        self.assertTrue(out[-2].startswith('# make check took '))
        structure(self, out[:-1])
        self.assertEqual(run_steps(self, [Step('a', fake(0))])[0], 0)
        self.assertEqual(failed(kunit_parser(self)(out)),
                         ['c', 'd', 'f', 'sh.b', 's.one.b', 't.one', 'n2'])

    def test_stop_takes_the_children(self):
        """SIGINT (make check's SIGTERM) while a step runs: the step's child and what it
        started are stopped (Context.run's, its output closed, and check.child's), the step
        fails, the rest is not run, the last line is printed and the status is 130"""
        tag = 'sleep 30.%d' % os.getpid()

        def interrupt():
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()

        def interrupted(ctx):
            interrupt()
            return ctx.run(['sh', '-c', 'exec >&- 2>&-; %s & %s' % (tag, tag)])
        t0 = time.time()
        rc, out = run_steps(self, [Step('i', interrupted), Step('j', fake(0))])
        self.assertLess(time.time() - t0, 20)
        self.assertEqual((rc, out[-1]), (130, 'check: 0 passed, 1 failed, 0 skipped'))
        interrupt()
        with self.assertRaises(KeyboardInterrupt):
            check.child(['sh', '-c', '%s & %s' % (tag, tag)])
        time.sleep(0.2)
        left = []
        for p in filter(str.isdigit, os.listdir('/proc')):
            with contextlib.suppress(OSError), open('/proc/%s/cmdline' % p) as f:
                if f.read() == tag.replace(' ', '\0') + '\0':
                    left.append(p)
                    os.kill(int(p), signal.SIGKILL)
        self.assertEqual(left, [])


class TableTest(unittest.TestCase):
    def test_table(self):
        names = [s.name for s in steps.STEPS]
        self.assertEqual(len(names), len(set(names)))
        for i, s in enumerate(steps.STEPS):
            self.assertTrue(set(s.needs) <= set(names[:i]), s.name)
            self.assertTrue(s.what, s.name)
        full = [s.full for s in steps.STEPS]
        self.assertEqual(full, sorted(full), 'full-only steps come last')
        self.assertEqual(names[:3], ['deps', 'shellcheck', 'python-lint'])
        self.assertEqual(names[-5:], ['debug-gate', 'debug-gate-park2', 'boot-rt',
                                      'boot-numa-off', 'kunit-mutants'])
        by = {s.name: s for s in steps.STEPS}
        for n in ('series-bisect', 'bench-patches', 'matrix-tiny', 'kernel-base', 'guest-base',
                  'race-widen', 'boot-rt', 'boot-numa-off', 'kunit-mutants'):
            self.assertTrue(by[n].skip({'KSRC': '/k'}).startswith('KSRC set: '))
            self.assertIsNone(by[n].skip({}), n)
        for n in ('kernel-patched', 'guest-patched', 'checkpatch'):
            self.assertIsNone(by[n].skip, n)
        for n in ('debug-gate', 'debug-gate-park2'):
            self.assertTrue(by[n].skip({'CHECK_DEBUG': '0'}))
            self.assertIsNone(by[n].skip({'CHECK_DEBUG': '1'}))
        for case, why in steps.RUN_REFUSALS:
            re.compile(why)
            self.assertRegex(why, '^[A-Z_]+=', case)
        self.assertEqual(steps.knobs({'BASE': '1', 'MODES': '1 1'}), 'BASE=1 MODES=1 1')
        bash, sh = steps.shell_files()
        self.assertIn('tools/lib.sh', bash)
        self.assertIn('tools/guest/guest-check.sh', sh)
        self.assertIn('tools/vm/init', sh)
        with tempfile.TemporaryDirectory() as d, mock.patch.object(steps, 'TOP', d):
            with self.assertRaisesRegex(check.Fail, 'needs a git checkout'):
                steps.git_files('*.py')
            steps.child(['git', 'init', '-q', d])
            open(os.path.join(d, 'a b.py'), 'w').close()
            with open(os.path.join(d, 'new.py'), 'w') as f:
                f.write('import os\n')
            self.assertEqual(steps.git_files('*.py'), [])     # untracked: not a CI's
            steps.child(['git', '-C', d, 'add', 'a b.py', 'new.py'])
            self.assertEqual(steps.git_files('*.py'), ['a b.py', 'new.py'])
            # python-lint fails by its own result lines
            with mock.patch.object(steps, 'git_files', lambda p: [f.name]):
                rc, out = run_steps(self, [Step('l', steps.do_python_lint)])
            self.assertIn('    not ok 1 pyflakes3', out)

    def test_select(self):
        def select(names, full=False):
            return [s.name for s in check.select(steps.STEPS, names, full)]
        every = [s.name for s in steps.STEPS]
        self.assertEqual(select([]), every[:-4])
        self.assertEqual(select([], True), every)
        self.assertEqual(select(['docs', 'deps']), ['docs', 'deps'])
        with self.assertRaisesRegex(ValueError, "unknown step 'nope'"):
            select(['deps', 'nope'])
        with self.assertRaisesRegex(ValueError, 'takes no steps'):
            select(['deps'], True)


class HostRefusalsTest(unittest.TestCase):
    def test_judge(self):
        for want, regex, rc, out, err, bad in (
                (1, '^slabpark: error: x', 1, '', 'slabpark: error: x y\n', []),
                (0, 'ok$', 0, 'prerequisites ok\n', '', []),
                # make's own "***" line is not the script's
                (2, 'root', 2, '', 'run it as root\nmake: *** [run] 1\n', []),
                # a failure says why, then the status and both outputs
                (2, 'x', 2, 'built\n', 'y\n', ['want nothing on stdout', 'exit status 2',
                                               'stdout: built', 'stderr: y']),
                (0, 'x', 0, 'x', 'oops', 'want nothing on stderr'),
                (1, 'x', 0, '', 'x', 'exit status 0, want 1'),
                (1, 'x', 1, '', 'x\nx', 'want exactly one line'),
                (1, 'x', 1, '', '', 'want exactly one line'),
                (1, '^x', 1, '', 'y x', 'the line does not match /^x/')):
            got = steps.judge(want, regex, rc, out, err)
            self.assertEqual(got if isinstance(bad, list) else got[0], bad)

    def test_cases(self):
        names = set()
        for what, want, regex, settings, *argv in steps.HOST_REFUSALS + steps.NOBODY_REFUSALS:
            self.assertNotIn(what, names)
            names.add(what)
            self.assertIn(want, (0, 1, 2), what)
            re.compile(regex)
            self.assertIn(settings.get('SLABPARK_SYSFS', 'full'), steps.FAKE_TREES, what)
            self.assertTrue(not argv or argv[0][-1] != '--check-only' or
                            'SLABPARK_SYSFS' in settings, what)
            self.assertTrue(not want or regex.startswith(steps.ERR) or want == 2, what)

    def test_a_case_fails(self):
        """a case's outcome not as wanted fails the step by its line; a case with a command
        runs with make check's knobs unset (RUNS=0 there is not the case's)"""
        cases = (('x', 1, '^never', {}, ('sh', '-c', 'echo no >&2; exit 1')),
                 ('y', 0, '^unset 1$', {'HOST': '1'},
                  ('sh', '-c', 'test "$RUNS" || echo unset $HOST')))
        with mock.patch.dict(os.environ, RUNS='0'):
            rc, out = run_steps(self, [Step('h', lambda ctx: [
                steps.host_case(ctx, '/nonexistent', c) for c in cases] and 0)])
        self.assertEqual([t for t in out if 'ok 1 x' in t or 'ok 2 y' in t],
                         ['    not ok 1 x', '    ok 2 y'])
        self.assertEqual(out[-1], 'check: 0 passed, 1 failed, 0 skipped')

    def test_this_host(self):
        """this host's case runs as make run HOST=1 with make check's knobs would (its KDIR
        there is the case's); a knob's refusal (RUNS=0) is its status 2, not a failure"""
        with mock.patch.dict(os.environ, RUNS='0', KDIR='/k{0}'):
            case = steps.this_host()
            cases = (case, ('kdir', 0, r'^/k\{0\} 0$', case[3], ('sh', '-c', 'echo "$KDIR $RUNS"')))
            rc, out = run_steps(self, [Step('h', lambda ctx: [
                steps.host_case(ctx, '/nonexistent', c) for c in cases] and 0)])
        self.assertEqual([t for t in out if t.startswith(('    ok', '    not ok'))], [
            '    ok 1 this host (%s): refused (slabpark: error: RUNS=0: must be a positive '
            'integer...)' % os.uname().release, '    ok 2 kdir'])

    def test_fake_trees(self):
        full = steps.FAKE_TREES['full']
        self.assertEqual(steps.fake_tree(), full)
        for tree, path, text in (('full', 'devices/system/node/online', '0-1'),
                                 ('full', 'kernel/debug/slab/dentry/park', '1'),
                                 ('onenode', 'devices/system/node/online', '0'),
                                 ('loaded', 'module/slub_stress', None),
                                 ('oldpark', 'kernel/slab/kmalloc-64/park', '1'),
                                 ('cpuless', 'kernel/debug/slab/dentry', None)):
            self.assertIn(path, steps.FAKE_TREES[tree], tree)
            self.assertEqual(steps.FAKE_TREES[tree][path], text, tree)
        for tree, gone in (('numa-off', 'devices/system/node/online'),
                           ('nostats', 'kernel/slab/dentry/alloc_fastpath'),
                           ('nopark', 'kernel/debug/slab/dentry/park'),
                           ('nodebugfs', 'kernel/debug/slab/dentry')):
            self.assertNotIn(gone, steps.FAKE_TREES[tree], tree)
            self.assertLess(set(steps.FAKE_TREES[tree]), set(full), tree)
        self.assertEqual(steps.fake_tree('stats park'), steps.FAKE_TREES['nostats-nopark'])
        with tempfile.TemporaryDirectory() as d:
            steps.write_tree(d, steps.FAKE_TREES['cpuless'])
            node = os.path.join(d, 'devices/system/node')
            for f, text in (('node1/cpulist', ''), ('online', '0-2\n')):
                with open(os.path.join(node, f)) as fh:
                    self.assertEqual(fh.read(), text)
            self.assertTrue(os.path.isdir(os.path.join(d, 'kernel/debug/slab/dentry')))


SRC = """#define SS_PARAM(name_, val_, type_, desc_, ...) \\
        module_param_cb(name_, &ops, &x, 0444); \\
        int y
#define __param(type, name, init, msg) \\
        module_param(name, type, 0444); \\
        MODULE_PARM_DESC(name, msg)
module_param(cache_name, charp, 0444);
__param(bool,
        hwcache_align, true, "x");
SS_PARAM(obj_size, &obj_size, uint, "size");
"""
ABI = 'Documentation/ABI/testing/sysfs-kernel-slab'
PATCH = """diff --git a/mm/slub.c b/mm/slub.c
+STAT_ATTR(PARK_SLAB, park_slab);
+SLAB_ATTR_RO(nr_parked);
+static struct slab_attribute parkx_attr = __ATTR_RO(parkx);
+\t\tdebugfs_create_file_unsafe("park", 0600, dir, s,
 STAT_ATTR(OLD, old);
diff --git a/%s b/%s
+++ b/%s
+What:\t\t/sys/kernel/slab/<cache>/park_slab
 What:\t\t/sys/kernel/slab/<cache>/old
""" % (ABI, ABI, ABI)


class DocsTest(unittest.TestCase):
    def test_parsers(self):
        self.assertEqual(steps.module_params(SRC), ['cache_name', 'hwcache_align', 'obj_size'])
        self.assertEqual(sorted({a or b or c for a, b, c in steps.SYSFS_ATTR.findall(PATCH)}),
                         ['nr_parked', 'park_slab', 'parkx'])
        self.assertEqual(steps.DEBUGFS_FILE.findall(PATCH), ['park'])
        self.assertEqual(steps.patch_added(PATCH, steps.ABI_FILE),
                         ['+What:\t\t/sys/kernel/slab/<cache>/park_slab'])
        self.assertEqual(steps.make_exports('X ?= 1\nexport A B_1 \\\n\tC\nexport D\n'),
                         ['A', 'B_1', 'C'])
        rst = 'T\n=\n\nA\n=\na1\n\nB\n=\nb1\n'
        self.assertEqual(steps.rst_section(rst, 'A'), ['a1', ''])
        self.assertEqual(steps.rst_section(rst, 'B'), ['b1'])

    def problems(self, edits, append='', step=False):
        """doc_checks' problems of a copy of the files it reads, EDITS (path, old, new, count)
        made; the glob of patches too.  STEP: (status, output) of the docs step on it,
        through check.run_steps."""
        with tempfile.TemporaryDirectory() as d:
            for f in ('Documentation', 'patches', 'README', 'Makefile', steps.MODULE_SRC,
                      steps.PARK_SWITCH):
                src, dst = os.path.join(check.TOP, f), os.path.join(d, f)
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)
            for path, old, new, count in edits:
                self.assertTrue(glob.glob(os.path.join(d, path)) or '*' in path, path)
                for p in glob.glob(os.path.join(d, path)):
                    with open(p) as f:
                        text = f.read()
                    self.assertTrue(old in text or '*' in path, (p, old))
                    with open(p, 'w') as f:
                        f.write(text.replace(old, new, count) + append * (path == 'README'))
            if step:
                with mock.patch.object(steps, 'TOP', d):
                    return run_steps(self, [Step('docs', steps.do_docs)])
            return {name: bad for name, bad, _ in steps.doc_checks(d) if bad}

    def test_each_check_fails(self):
        self.assertEqual(self.problems([]), {})
        bad = self.problems([
            (steps.STRESS_DOC, '``obj_size``', 'obj_size', 1),
            (steps.PARK_DOC, '``park_slab``', 'park-slab', -1),
            (steps.PARK_DOC, '/sys/kernel/debug/slab/<cache>/parked',
             '/sys/kernel/debug/slab/<cache>/pa rked', -1),
            ('Makefile', 'export KSRC PATCHES RUNS ', 'export KSRC PATCHES BOGUS ', 1),
            ('README', '', '', 1)], 'x\n' * 200)
        self.assertEqual([t.split(' (')[0] for t in bad['module-parameters']],
                         ["module parameter 'obj_size'"])
        self.assertEqual(bad['sysfs-attributes'], ["sysfs attribute 'park_slab' is not named as "
                                                   "``park_slab`` in " + steps.PARK_DOC])
        self.assertEqual([t.split(':')[0] for t in bad['debugfs-files']], ['debugfs file parked'])
        self.assertRegex(bad['readme'][0], r'^README has \d+ lines, more than 200')
        self.assertEqual([t.split(' (')[0] for t in bad['make-variables']],
                         ["Make variable 'BOGUS'", "knob 'RUNS'"])
        self.assertNotIn('rst', bad)
        rc, out = self.problems([('README', '', '', 1)], 'x\n' * 200, True)
        self.assertEqual(rc, 1)
        self.assertTrue([t for t in out if t.startswith('not ok 1 docs # ')])
        self.assertIn('    # 1 of its subtests failed', out)

    def test_abi_and_rst_fail(self):
        if importlib.util.find_spec('docutils') is None:
            self.skipTest('no docutils')
        bad = self.problems([
            ('patches/*.patch', '+What:', '+Wat:', -1),
            (steps.STRESS_DOC, steps.SPDX_RST, '.. SPDX', 1),
            (steps.PARK_DOC, '\n\n', '\n\n*unclosed emphasis\n\n', 1)])
        self.assertTrue(bad['sysfs-attributes'])
        self.assertTrue(all("has no '+What:" in t for t in bad['sysfs-attributes']))
        self.assertEqual(len(bad['rst']), 2, bad['rst'])
        self.assertIn('the first line is not', bad['rst'][0])
        self.assertIn('slab-parking.rst', ' '.join(bad['rst'][1:]))


class BuildStepsTest(unittest.TestCase):
    def test_parsers(self):
        log = ('  CC mm/slub.o\n'
               'mm/slub.c:10:5: warning: unused variable [-Wunused]\n'
               '   10 | int x;\n'
               'mm/slub.c:99:1: error: expected\n')
        self.assertEqual(steps.warnings_of(log), {'mm/slub.c: warning: unused variable [-Wunused]',
                                                  'mm/slub.c: error: expected'})
        moved = steps.warnings_of('mm/slub.c:12:5: warning: unused variable [-Wunused]\n')
        self.assertTrue(moved <= steps.warnings_of(log))
        self.assertFalse(steps.warnings_of('mm/a.c:1:1: warning: new\n') <= moved)
        ko = b'\x7fELF\0license=GPL\0vermagic=7.3.4-slabpark SMP mod_unload \0'
        self.assertEqual(steps.vermagic(ko), '7.3.4-slabpark')
        self.assertIsNone(steps.vermagic(b'not a module\n'))
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'console.txt')
            with open(p, 'w') as f:
                f.write('SLABPARK-SOAK 1\nx\nSLABPARK-SOAK 2 runs\n')
            self.assertEqual(steps.last_line(p, 'SLABPARK-SOAK '), '2 runs')
            self.assertIsNone(steps.last_line(p, 'SLABPARK-DEBUG-GATE '))
            self.assertIsNone(steps.last_line(p + '.none', 'SLABPARK-SOAK '))

    def test_soak_settings(self):
        self.assertEqual(steps.soak_settings({}), {'DURATION': '600', 'DEBUG': '0',
                                                   'NO_SHEAVES': 'random', 'NODES': '2',
                                                   'CPUS_PER_NODE': '2'})
        self.assertEqual(steps.soak_settings({'DURATION': '60', 'DEBUG': '1'})['DURATION'], '60')
        for k, v in (('DURATION', '0'), ('DURATION', '1m'), ('DEBUG', '2'),
                     ('NO_SHEAVES', 'yes'), ('NODES', 'x')):
            with self.assertRaisesRegex(ValueError, '^%s=%s: must be ' % (k, v)):
                steps.soak_settings({k: v})

    def test_bisect_refuses_another_clones_series(self):
        """series-bisect builds the series this clone applied: when the tree's series branch
        has another series (another clone applied its own after this one's apply), it fails
        instead of stamping"""
        ran = []

        def capture(argv, check=True, **kw):
            ran.append(argv)
            if argv[-1] == 'branch.slabpark.slabparkSeries':
                return 'another0series'
            if argv[0] in ('tools/kernel/kernel-src.sh', 'bash'):
                return '/src' if argv[0] != 'bash' else 'ours0series\ncfg\n2'
            return 'abc123' if 'rev-parse' in argv else '7.3.4'
        ctx = mock.Mock(capture=capture, run=lambda argv, **kw: ran.append(argv))
        with tempfile.TemporaryDirectory() as cache, \
                mock.patch.dict(os.environ, SLABPARK_CACHE=cache):
            with self.assertRaisesRegex(check.Fail, 'is not series ours0series: another clone'):
                steps.do_series_bisect(ctx)
        self.assertFalse(any('rev-list' in a for a in ran))


class UnittestKtapTest(unittest.TestCase):
    def test_ktap_of_unittest(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'pkgx'))
            open(os.path.join(d, 'pkgx', '__init__.py'), 'w').close()
            with open(os.path.join(d, 'pkgx', 'test_x.py'), 'w') as f:
                f.write('import unittest\n'
                        'class T(unittest.TestCase):\n'
                        '    def test_a(self): pass\n'
                        '    def test_b(self): self.assertEqual(1, 2)\n'
                        '    @unittest.skip("later")\n'
                        '    def test_c(self): pass\n'
                        'class U(unittest.TestCase):\n'
                        '    @classmethod\n'
                        '    def setUpClass(cls): cls.x = 1\n'
                        '    def test_d(self): self.assertEqual(self.x, 1)\n'
                        '    def test_f(self):\n'
                        '        for i in 1, 2:\n'
                        '            with self.subTest(i=i):\n'
                        '                self.assertEqual(i, 0)\n'
                        'class V(unittest.TestCase):\n'
                        '    @classmethod\n'
                        '    def setUpClass(cls): raise OSError("no")\n'
                        '    def test_e(self): pass\n')
            out = io.StringIO()
            rc = ktap.run_unittests(os.path.join(d, 'pkgx'), d, out)
            sys.modules.pop('pkgx.test_x', None)
            sys.modules.pop('pkgx', None)
        lines = out.getvalue().splitlines()
        results = [t for t in lines if not t.startswith('# ')]
        self.assertEqual((rc, results), (1, [
            'KTAP version 1', 'ok 1 pkgx.test_x.T.test_a', 'not ok 2 pkgx.test_x.T.test_b',
            'ok 3 pkgx.test_x.T.test_c # SKIP later', 'ok 4 pkgx.test_x.U.test_d',
            'not ok 5 pkgx.test_x.U.test_f', 'not ok 6 setUpClass (pkgx.test_x.V)']))
        # each failure's traceback between its test's line and the one before
        for t, n in (('AssertionError: 1 != 2', 2), ('AssertionError: 1 != 0', 5),
                     ('AssertionError: 2 != 0', 5), ('OSError: no', 6)):
            self.assertIn('# ' + t, lines[lines.index(results[n - 1]):lines.index(results[n])])
        self.assertEqual(lines[-1], '# unittest: 3 passed, 3 failed')
