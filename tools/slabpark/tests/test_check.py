# SPDX-License-Identifier: GPL-2.0
"""Unit tests of make check's runner (slabpark.check) and its KTAP
(slabpark.ktap): the steps table, needs, skip/fail accounting, the last
line, the nesting of a step's own KTAP.  Fixtures: step logs of real make
check runs (fixtures/check/, *-old.log from the runner before the
nesting, tools/check/check.sh).  Where a kernel tree is in the cache, its
tools/testing/kunit/kunit_parser.py reads the output too: no errors, and
the failures named down to the case."""

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

FIXTURES = os.path.join(os.path.dirname(__file__), 'fixtures', 'check')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read().splitlines()


def nest(steps):
    """[(step name, lines, ok)] -> the KTAP document of make check."""
    out = ['KTAP version 1', '1..%d' % len(steps)]
    for i, (name, lines, ok) in enumerate(steps, 1):
        n = ktap.Nester(name, out.append)
        for t in lines:
            n.feed(t)
        n.finish()
        out.append(ktap.result_line(ok, i, name))
    return out


# ---- a reader of the normalized output (the shape Nester writes)

class Node:
    def __init__(self, name, ok=None, directive=None):
        self.name, self.ok, self.directive = name, ok, directive
        self.children = []
        self.plan = None

    def find(self, path):
        node = self
        for p in path:
            node = [c for c in node.children if c.name == p][0]
        return node

    def failed(self, prefix=''):
        """the names of the failed leaves, kunit.py's way (a.b.c)"""
        out = []
        for c in self.children:
            full = prefix + c.name
            if c.children:
                out += c.failed(full + '.')
            elif c.ok is False:
                out.append(full)
        return out


def read_ktap(lines):
    """Parse what Nester (and the runner) write, strictly: a subtest is
    "KTAP version 1" and "# Subtest: NAME" indented 4 more than its
    result line, which names it; its plan (if any) before its children,
    which are numbered from 1 and as many as the plan says; diagnostics
    anywhere."""
    pos = [0]

    def ind(line):
        return len(line) - len(line.lstrip(' '))

    def level(node, indent, named):
        expect = 1
        while pos[0] < len(lines):
            no, line = pos[0], lines[pos[0]]
            body = line.strip()
            if not body or (body.startswith('#') and
                            not body.startswith('# Subtest:')):
                pos[0] += 1
                continue
            i = ind(line)
            if i == indent + 4 and body == 'KTAP version 1':
                sub = lines[no + 1]
                assert ind(sub) == i and sub.strip().startswith(
                    '# Subtest: '), (no + 1, sub)
                child = Node(sub.strip()[len('# Subtest: '):])
                pos[0] += 2
                level(child, i, True)
                assert child.num == expect, (child.name, child.num, expect)
                node.children.append(child)
                expect += 1
                continue
            r = ktap.parse_result(body)
            if named and i == indent - 4:
                assert r and r[2] == node.name, (no, line, node.name)
                node.ok, node.num, _, node.directive = r
                # (a subtest cut short fails, its plan not met)
                if node.plan is not None and node.ok:
                    assert node.plan == len(node.children), node.name
                pos[0] += 1
                return
            assert i == indent, 'line %d: indent: %r' % (no, line)
            pos[0] += 1
            if body.startswith('1..'):
                assert node.plan is None and not node.children, (no, line)
                node.plan = int(body[3:])
                continue
            assert r, 'line %d: %r' % (no, line)
            ok, num, name, directive = r
            assert num == expect, 'line %d: %d, want %d' % (no, num, expect)
            node.children.append(Node(name, ok, directive))
            expect += 1
        assert not named, 'subtest %s not closed' % node.name

    assert lines[0] == 'KTAP version 1', lines[0]
    pos[0] = 1
    root = Node('main')
    level(root, 0, False)
    if root.plan is not None:
        assert root.plan == len(root.children)
    return root


# ---- kunit_parser.py of the cached kernel tree, where there is one

def kunit_parser():
    cache = os.environ.get('SLABPARK_CACHE') or os.path.join(
        os.path.expanduser('~'), '.cache', 'slabpark')
    for d in sorted(glob.glob(os.path.join(cache, 'src', 'linux-*', 'tools',
                                           'testing', 'kunit'))):
        if os.path.exists(os.path.join(d, 'kunit_parser.py')):
            if d not in sys.path:
                sys.path.insert(0, d)
            import kunit_parser
            import kunit_printer
            return kunit_parser, kunit_printer
    return None, None


def kunit_parse(test, lines):
    """(errors, the failed cases as a.b.c) of kunit_parser on lines."""
    kp, pr = kunit_parser()
    if kp is None:
        test.skipTest('no kernel tree with tools/testing/kunit in the cache')
    printer = pr.Printer(print=False)
    result = kp.parse_run_tests(lines, printer)

    def failed(t, prefix):
        if not t.subtests:
            return [] if t.ok_status() else [prefix + t.name]
        return [f for c in t.subtests for f in failed(c, prefix + t.name + '.')]
    return result.counts.errors, [f[len('main.'):] for f in failed(result, '')]


RUNNER = ['KTAP version 1', '1..1', '# timeout set to 600',
          '# selftests: slub_park: ksft_slub_park.sh',
          '[    3.42] slub_park kselftest canary 1',
          '# TAP version 13', '# 1..3', '# # module loaded',
          '# ok 1 bad_params_load',
          '[    4.01] slub_stress: loading out-of-tree module taints kernel.',
          '# not ok 2 run_cross', '# ok 3 taint # SKIP no taint',
          '# # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0',
          'not ok 1 selftests: slub_park: ksft_slub_park.sh # exit=1']
KUNIT = ['KTAP version 1', '1..1', '    KTAP version 1',
         '    # Subtest: slub_test', '    # module: slub_kunit', '    1..3',
         '    ok 1 test_clobber_zone',
         '    # test_park_shrink: EXPECTATION FAILED at lib/tests/slub_kunit.c',
         '    not ok 2 test_park_shrink',
         '        KTAP version 1', '        # Subtest: test_param',
         '        ok 1 a', '        ok 2 b', '    ok 3 test_param',
         '# slub_test: pass:2 fail:1 skip:0 total:3', 'not ok 1 slub_test']


def suite(name, lines, ok):
    return ['KTAP version 1', '# Subtest: ' + name] + lines + \
        ['%s %s' % ('ok 1' if ok else 'not ok 1', name)]


class NesterTest(unittest.TestCase):
    def test_plain_output_is_one_result(self):
        out = nest([('deps', ['[  0m00s] installing', 'present'], True)])
        self.assertEqual(out, ['KTAP version 1', '1..1',
                               '    # [  0m00s] installing',
                               '    # present', 'ok 1 deps'])

    def test_step_tap_children(self):
        out = nest([('slabstat-host', fixture('slabstat-host.log'), True)])
        root = read_ktap(out)
        st = root.find(['slabstat-host'])
        self.assertEqual(len(st.children), 134)
        self.assertEqual(st.children[0].name,
                         'snap: exit 0 on the 2-node patched fixture')

    def test_kselftest_runner_nested(self):
        lines = ['SLABPARK-GUEST-START nodes=0-1'] + \
            ['KTAP version 1', '1..1'] + suite('kselftest', RUNNER, False)
        root = read_ktap(nest([('guest-patched', lines, False)]))
        self.assertEqual(root.failed(), [
            'guest-patched.kselftest.selftests: slub_park: '
            'ksft_slub_park.sh.run_cross'])
        ks = root.find(['guest-patched', 'kselftest',
                        'selftests: slub_park: ksft_slub_park.sh'])
        self.assertEqual([c.name for c in ks.children],
                         ['bad_params_load', 'run_cross', 'taint'])
        self.assertEqual(ks.plan, 3)
        self.assertEqual(ks.directive, 'exit=1')
        self.assertEqual(ks.children[2].directive, 'SKIP no taint')

    def test_kunit_debugfs_nested_as_is(self):
        lines = ['KTAP version 1', '1..1'] + suite('kunit', KUNIT, False)
        out = nest([('boot-rt', lines, False)])
        root = read_ktap(out)
        st = root.find(['boot-rt', 'kunit', 'slub_test'])
        self.assertEqual(st.plan, 3)
        self.assertEqual(root.failed(),
                         ['boot-rt.kunit.slub_test.test_park_shrink'])
        self.assertIn('            # test_park_shrink: EXPECTATION FAILED at '
                      'lib/tests/slub_kunit.c', out)
        self.assertEqual(len(st.find(['test_param']).children), 2)

    def test_old_guest_logs(self):
        # the guest output before suites were subtests: the runner's own
        # document and then the next suite's, which becomes part-2
        for f, skips in (('guest-patched-old.log', 0),
                         ('guest-base-old.log', 4)):
            root = read_ktap(nest([('g', fixture(f), True)]))
            ks = root.find(['g', 'selftests: slub_park: ksft_slub_park.sh'])
            self.assertEqual(len(ks.children), 17)
            self.assertEqual(sum(1 for c in ks.children
                                 if ktap.is_skip(c.directive)), skips)
            self.assertEqual(root.failed(), [])
            self.assertEqual(len(root.find(['g', 'part-2']).children), 8)

    def test_broken_kernel_log(self):
        # guest-patched with a kselftest expectation broken on purpose
        # (slub_park.sh: cross's remote_free_pct >= 101), the guest's
        # suites as subtests: the case is named, and only it
        lines = fixture('guest-patched-broken.log')
        root = read_ktap(nest([('guest-patched', lines, False)]))
        name = ('guest-patched.kselftest.selftests: slub_park: '
                'ksft_slub_park.sh.remote_free_pct')
        self.assertEqual(root.failed(), [name])
        g = root.find(['guest-patched'])
        self.assertEqual([(c.name, c.ok) for c in g.children],
                         [('kselftest', False), ('slabstat-window', True),
                          ('host-mode', True)])
        ks = g.find(['kselftest', 'selftests: slub_park: ksft_slub_park.sh'])
        self.assertEqual((len(ks.children), ks.plan), (17, 17))
        errors, failed = kunit_parse(self, nest([('guest-patched', lines,
                                                  False)]))
        self.assertEqual((errors, failed), (0, [name]))

    def test_old_gate_log(self):
        # debug-gate.sh before it named the boot's subtest
        root = read_ktap(nest([('debug-gate', fixture('debug-gate-old.log'),
                                True)]))
        part = root.find(['debug-gate', 'part-1'])
        self.assertEqual(len(part.children), 18)
        self.assertEqual(part.children[0].name, 'kunit')
        self.assertEqual(root.find(['debug-gate']).children[1].name,
                         'debug-gate-default')
        self.assertEqual(root.failed(), [])

    def test_anonymous_part_closed_by_indent(self):
        # debug-gate.sh before it named the boot: the guest's document,
        # indented, its plan late, then the host's point
        lines = ['TAP version 13', '1..1', '    SLABPARK-GUEST-START',
                 '    TAP version 13', '    ok 1 kunit # 30s',
                 '    not ok 2 kselftest # 100s', '    1..2',
                 'not ok 1 debug-gate-default # 200s']
        root = read_ktap(nest([('debug-gate', lines, False)]))
        self.assertEqual(root.failed(), ['debug-gate.part-1.kselftest',
                                         'debug-gate.debug-gate-default'])

    def test_named_boot(self):
        lines = ['TAP version 13', '1..1', '    KTAP version 1',
                 '    # Subtest: debug-gate-default', '    TAP version 13',
                 '    ok 1 kunit # 30s', '    not ok 2 kselftest # 100s',
                 '    1..2', 'not ok 1 debug-gate-default # 200s']
        root = read_ktap(nest([('debug-gate', lines, False)]))
        self.assertEqual(root.failed(),
                         ['debug-gate.debug-gate-default.kselftest'])

    def test_gate_points_nest(self):
        # debug-gate.sh: a boot's subtest, the guest's points (indented),
        # the kunit and kselftest points holding their own KTAP
        guest = ['TAP version 13'] + \
            suite('kunit', KUNIT, False)[:-1] + ['not ok 1 kunit # 30s'] + \
            suite('kselftest', RUNNER, False)[:-1] + \
            ['not ok 2 kselftest # 90s', 'ok 3 dmesg # 0 problem lines',
             '1..3', 'SLABPARK-DEBUG-GATE label=default pass=1 fail=2']
        lines = ['TAP version 13', '1..1', '    KTAP version 1',
                 '    # Subtest: debug-gate-default'] + \
            ['    ' + t for t in guest] + \
            ['not ok 1 debug-gate-default # 200s']
        root = read_ktap(nest([('debug-gate', lines, False)]))
        self.assertEqual(root.failed(), [
            'debug-gate.debug-gate-default.kunit.slub_test.test_park_shrink',
            'debug-gate.debug-gate-default.kselftest.selftests: slub_park: '
            'ksft_slub_park.sh.run_cross'])
        errors, failed = kunit_parse(self, nest([('debug-gate', lines,
                                                  False)]))
        self.assertEqual((errors, failed), (0, root.failed()))

    def test_unclosed_subtests_fail(self):
        # the guest died in the kselftest: what is open fails
        lines = suite('kselftest', RUNNER[:9], True)[:-1]
        root = read_ktap(nest([('guest-patched', lines, False)]))
        ks = root.find(['guest-patched', 'kselftest'])
        self.assertIs(ks.ok, False)
        self.assertIn('no result line', ks.children[0].directive)
        self.assertIs(ks.children[0].ok, False)

    def test_result_named_as_the_step(self):
        root = read_ktap(nest([('x', ['ok 1 x', 'ok 2 y'], True)]))
        self.assertEqual([c.name for c in root.find(['x']).children],
                         ['x (result)', 'y'])

    def test_diagnostics_cannot_end_or_open(self):
        out = nest([('g', ['Subtest: fake', 'reboot: System halted',
                           'ok 1 real'], True)])
        self.assertNotIn('    # Subtest: fake', out)
        self.assertFalse(any('reboot: System halted' in t for t in out))
        self.assertEqual(read_ktap(out).find(['g']).children[0].name, 'real')

    def test_late_and_skip_plans_are_diagnostics(self):
        out = nest([('s', ['TAP version 13', '1..0 # SKIP nothing'], True),
                    ('t', ['KTAP version 1', '1..2', 'ok 1 a', 'ok 2 b',
                           'ok 3 c', '1..3'], True)])
        root = read_ktap(out)
        self.assertEqual(root.find(['s']).children, [])
        self.assertEqual(len(root.find(['t']).children), 3)

    def test_kunit_parser_reads_it(self):
        doc = nest([
            ('slabstat-host', fixture('slabstat-host.log'), True),
            ('host-refusals', fixture('host-refusals.log'), True),
            ('guest-patched', ['KTAP version 1', '1..2'] +
             suite('kselftest', RUNNER, False) +
             suite('kunit', KUNIT, False), False),
            ('guest-base', fixture('guest-base-old.log'), True),
            ('race-widen', fixture('race-widen-old.log'), True),
            ('deps', ['present'], True)])
        errors, failed = kunit_parse(self, doc + ['check: 5 passed, '
                                                  '1 failed, 0 skipped'])
        self.assertEqual(errors, 0)
        self.assertEqual(failed, [
            'guest-patched.kselftest.selftests: slub_park: '
            'ksft_slub_park.sh.run_cross',
            'guest-patched.kunit.slub_test.test_park_shrink'])


# ---- the runner

def fake(rc=0, say=(), results=()):
    def run(ctx):
        for t in say:
            ctx.say(t)
        for ok, name in results:
            ctx.result(ok, name)
        if isinstance(rc, Exception):
            raise rc
        return rc
    return run


class RunnerTest(unittest.TestCase):
    def run_steps(self, steps, env=None):
        out = io.StringIO()
        with tempfile.TemporaryDirectory() as logs:
            r = check.Runner(logs, out=out,
                             env=dict(env or {}, SLABPARK_START='0'))
            rc = r.run(steps)
            self.logs = {}
            for f in os.listdir(logs):
                with open(os.path.join(logs, f)) as fh:
                    self.logs[f] = fh.read()
            self.logdir = logs
        return rc, out.getvalue().splitlines()

    def test_accounting_and_last_line(self):
        steps = [check.Step('a', fake(0, ['hello'])),
                 check.Step('b', fake(4, ['no reason here', 'why not'])),
                 check.Step('c', fake(1, ['broken'])),
                 check.Step('d', fake(check.Fail('it broke'))),
                 check.Step('e', fake(None, results=[(True, 'x')]))]
        rc, out = self.run_steps(steps)
        self.assertEqual(rc, 1)
        self.assertEqual(out[-1], 'check: 2 passed, 2 failed, 1 skipped')
        self.assertIn('ok 2 b # SKIP why not', out)
        self.assertTrue([t for t in out if t.startswith('not ok 3 c # ') and
                         t.endswith('log: %s/c.log' % self.logdir)])
        i = out.index('# failed steps:')
        self.assertEqual(out[i + 1], '#   c (%s/c.log)' % self.logdir)
        self.assertEqual(out[i + 2], '#   d (%s/d.log)' % self.logdir)
        self.assertTrue(out[i + 3].startswith('# make check took '))
        self.assertEqual(self.logs['d.log'], 'it broke\n')
        self.assertEqual(self.logs['e.log'], 'ok 1 x\n')
        read_ktap(out[:-1])

    def test_needs_and_skips(self):
        steps = [check.Step('k', fake(1)),
                 check.Step('g', fake(0), needs=('k',)),
                 check.Step('m', fake(1), skip=check.ksrc('not yours')),
                 check.Step('n', fake(1), skip=check.NODEBUG)]
        rc, out = self.run_steps(steps, {'KSRC': '/x', 'CHECK_DEBUG': '0'})
        self.assertEqual(out[-1], 'check: 0 passed, 2 failed, 2 skipped')
        self.assertEqual(self.logs['g.log'],
                         "cannot run: step 'k' did not pass\n")
        self.assertIn('ok 3 m # SKIP KSRC set: not yours', out)
        self.assertIn('ok 4 n # SKIP CHECK_DEBUG=0: debug gate not run', out)
        rc, out = self.run_steps([check.Step('k', fake(0)),
                                  check.Step('g', fake(0), needs=('k',))])
        self.assertEqual((rc, out[-1]), (0, 'check: 2 passed, 0 failed, '
                                         '0 skipped'))

    def test_exception_is_the_steps_failure(self):
        # a step's bug fails that step, its traceback in its log; the
        # steps after it still run and the last line is printed
        steps = [check.Step('a', fake(KeyError('nokey'))),
                 check.Step('b', fake(0))]
        rc, out = self.run_steps(steps)
        self.assertEqual(rc, 1)
        self.assertEqual(out[-1], 'check: 1 passed, 1 failed, 0 skipped')
        self.assertIn("KeyError: 'nokey'", self.logs['a.log'])

    def test_failing_subtest_fails_the_step(self):
        # exit status 0, but a child KTAP result not ok (here: a subtest
        # left open) -- KTAP: the parent fails too
        steps = [check.Step('g', check.cmd(
            'sh', '-c', 'echo KTAP version 1; echo "# Subtest: s"; '
            'echo ok 1 a'))]
        rc, out = self.run_steps(steps)
        self.assertEqual(rc, 1)
        self.assertTrue([t for t in out if t.startswith('not ok 1 g ')])
        self.assertEqual(out[-1], 'check: 0 passed, 1 failed, 0 skipped')

    def test_interrupt_stops_children(self):
        # SIGINT/SIGTERM while a step runs: its child's process group is
        # stopped, the step fails, the rest is not run, the last line is
        # printed and the status is 130
        pidfile = tempfile.mktemp()

        def interrupted(ctx):
            def later():
                time.sleep(1)
                os.kill(os.getpid(), signal.SIGINT)
            threading.Thread(target=later, daemon=True).start()
            return ctx.run(['sh', '-c', 'sleep 60 & echo $! > %s; wait'
                            % pidfile])
        steps = [check.Step('i', interrupted), check.Step('j', fake(0))]
        t0 = time.time()
        rc, out = self.run_steps(steps)
        self.assertLess(time.time() - t0, 20)
        self.assertEqual(rc, 130)
        self.assertEqual(out[-1], 'check: 0 passed, 1 failed, 0 skipped')
        with open(pidfile) as f:
            pid = int(f.read())
        os.unlink(pidfile)
        time.sleep(0.2)
        try:        # gone, or a zombie that nobody has reaped yet
            with open('/proc/%d/stat' % pid) as f:
                state = f.read().rsplit(')', 1)[1].split()[0]
        except FileNotFoundError:
            state = 'gone'
        self.assertIn(state, ('gone', 'Z'))

    def test_command_streams(self):
        steps = [check.Step('sh', check.cmd(
            'sh', '-c', 'echo TAP version 13; echo 1..2; echo ok 1 a; '
            'echo oops >&2; echo not ok 2 b; exit 3'))]
        rc, out = self.run_steps(steps)
        self.assertEqual(rc, 1)
        self.assertEqual(read_ktap(out[:-1]).failed(), ['sh.b'])
        self.assertIn('    # oops', out)
        self.assertEqual(self.logs['sh.log'].splitlines()[3], 'oops')

    def test_subtest_and_capture(self):
        def run(ctx):
            with ctx.subtest('one') as st:
                st.result(True, 'a')
                st.result(False, 'b')
            self.assertEqual(ctx.capture(['sh', '-c', 'echo out; echo err >&2']),
                             'out')
            return 0 if st.ok else 1
        rc, out = self.run_steps([check.Step('s', run)])
        self.assertEqual(read_ktap(out[:-1]).failed(), ['s.one.b'])
        self.assertIn('    # err', out)
        self.assertEqual(out[-1], 'check: 0 passed, 1 failed, 0 skipped')


class TableTest(unittest.TestCase):
    def test_names_needs_full(self):
        names = [s.name for s in check.STEPS]
        self.assertEqual(len(names), len(set(names)))
        for i, s in enumerate(check.STEPS):
            for n in s.needs:
                self.assertIn(n, names[:i], '%s needs %s' % (s.name, n))
            self.assertTrue(s.what, s.name)
        full = [s.full for s in check.STEPS]
        self.assertEqual(full, sorted(full), 'full-only steps come last')
        self.assertEqual(names[:3], ['deps', 'shellcheck', 'python-lint'])
        self.assertEqual(names[-5:], ['debug-gate', 'debug-gate-park2',
                                      'boot-rt', 'boot-numa-off',
                                      'kunit-mutants'])

    def test_select(self):
        default = check.select([], False)
        self.assertEqual(len(default), len(check.STEPS) - 4)
        self.assertEqual(check.select([], True), list(check.STEPS))
        self.assertEqual([s.name for s in check.select(['docs', 'deps'],
                                                       False)],
                         ['docs', 'deps'])
        with self.assertRaisesRegex(ValueError, "unknown step 'nope'"):
            check.select(['deps', 'nope'], False)
        with self.assertRaisesRegex(ValueError, 'takes no steps'):
            check.select(['deps'], True)

    def test_skips(self):
        by = check.BY_NAME
        ksrc = {'KSRC': '/k'}
        for n in ('series-bisect', 'bench-patches', 'matrix-tiny',
                  'kernel-base', 'guest-base', 'race-widen', 'boot-rt',
                  'boot-numa-off', 'kunit-mutants'):
            self.assertTrue(by[n].skip(ksrc).startswith('KSRC set: '), n)
            self.assertIsNone(by[n].skip({}), n)
        for n in ('kernel-patched', 'guest-patched', 'checkpatch'):
            self.assertIsNone(by[n].skip, n)
        for n in ('debug-gate', 'debug-gate-park2'):
            self.assertTrue(by[n].skip({'CHECK_DEBUG': '0'}))
            self.assertIsNone(by[n].skip({'CHECK_DEBUG': '1'}))

    def test_refusals(self):
        for case, why in check.RUN_REFUSALS:
            re.compile(why)
            self.assertRegex(why, '^[A-Z_]+=', case)
        self.assertEqual(check.knobs({'BASE': '1', 'MODES': '1 1'}),
                         'BASE=1 MODES=1 1')

    def test_shell_split(self):
        bash, sh = check.shell_files()
        self.assertIn('tools/lib.sh', bash)
        self.assertIn('tools/guest/guest-check.sh', sh)
        self.assertIn('tools/vm/init', sh)


# ---- the steps of slabpark.steps: their logic, without a kernel

class HostRefusalsTest(unittest.TestCase):
    def test_judge(self):
        j = steps.judge
        self.assertEqual(j(1, '^slabpark: error: x', 1, '', 'slabpark: error: x y\n'), [])
        self.assertEqual(j(0, 'ok$', 0, 'prerequisites ok\n', ''), [])
        # make's own "***" line is not the script's
        self.assertEqual(j(2, 'root', 2, '', 'run it as root\nmake: *** [run] 1\n'), [])
        self.assertEqual(j(1, 'x', 1, 'x', 'x'), ['stdout: x'])
        self.assertEqual(j(0, 'x', 0, 'x', 'oops'), ['stderr: oops'])
        self.assertEqual(j(1, 'x', 0, '', 'x')[0], 'exit status 0, want 1')
        self.assertEqual(j(1, 'x', 1, '', 'x\nx')[0], 'want exactly one line, got:')
        self.assertEqual(j(1, 'x', 1, '', '')[0], 'want exactly one line, got:')
        self.assertEqual(j(1, '^x', 1, '', 'y x')[0], 'the line does not match /^x/:')

    def test_cases(self):
        names = set()
        for what, want, regex, settings, argv in steps.HOST_REFUSALS + \
                steps.NOBODY_REFUSALS:
            self.assertNotIn(what, names)
            names.add(what)
            self.assertIn(want, (0, 1, 2), what)
            re.compile(regex)
            tree = settings.get('SLABPARK_SYSFS')
            self.assertTrue(tree is None or tree in steps.FAKE_TREES, what)
            self.assertTrue(argv is steps.FAKE or argv[-1] != '--check-only' or
                            'SLABPARK_SYSFS' in settings, what)
            if want:
                self.assertTrue(regex.startswith(steps.ERR) or want == 2, what)

    def test_fake_trees(self):
        full = steps.fake_tree()
        self.assertEqual(full['devices/system/node/online'], '0-1')
        self.assertEqual(full['kernel/debug/slab/dentry/park'], '1')
        self.assertEqual(steps.fake_tree(('nodes',))['devices/system/node/online'], '0')
        for leave, gone in (('numa', 'devices/system/node/online'),
                            ('stats', 'kernel/slab/dentry/alloc_fastpath'),
                            ('park', 'kernel/debug/slab/dentry/park'),
                            ('debugfs', 'kernel/debug/slab/dentry')):
            t = steps.fake_tree((leave,))
            self.assertNotIn(gone, t, leave)
            self.assertLess(set(t), set(full), leave)
        self.assertIn('module/slub_stress', steps.fake_tree(('loaded',)))
        with tempfile.TemporaryDirectory() as d:
            steps.make_tree(d, *steps.FAKE_TREES['cpuless'])
            node = os.path.join(d, 'devices/system/node')
            with open(os.path.join(node, 'node1/cpulist')) as f:
                self.assertEqual(f.read(), '')
            with open(os.path.join(node, 'online')) as f:
                self.assertEqual(f.read(), '0-2\n')
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
+		debugfs_create_file_unsafe("park", 0600, dir, s,
 STAT_ATTR(OLD, old);
diff --git a/%s b/%s
+++ b/%s
+What:		/sys/kernel/slab/<cache>/park_slab
 What:		/sys/kernel/slab/<cache>/old
""" % (ABI, ABI, ABI)


class DocsTest(unittest.TestCase):
    def test_parsers(self):
        self.assertEqual(steps.module_params(SRC),
                         ['cache_name', 'hwcache_align', 'obj_size'])
        self.assertEqual(sorted({a or b or c for a, b, c in
                                 steps.SYSFS_ATTR.findall(PATCH)}),
                         ['nr_parked', 'park_slab', 'parkx'])
        self.assertEqual(steps.DEBUGFS_FILE.findall(PATCH), ['park'])
        self.assertEqual(steps.patch_added(PATCH, steps.ABI_FILE),
                         ['+What:\t\t/sys/kernel/slab/<cache>/park_slab'])
        self.assertEqual(steps.make_exports('X ?= 1\nexport A B_1 \\\n\tC\nexport D\n'),
                         ['A', 'B_1', 'C'])
        rst = 'T\n=\n\nA\n=\na1\n\nB\n=\nb1\n'
        self.assertEqual(steps.rst_section(rst, 'A'), ['a1', ''])
        self.assertEqual(steps.rst_section(rst, 'B'), ['b1'])

    def copy(self, d):
        """The files doc_checks reads, into D (links as files)."""
        for f in ('Documentation', 'patches', 'README', 'Makefile',
                  steps.MODULE_SRC, check.PARK_SWITCH):
            src, dst = os.path.join(check.TOP, f), os.path.join(d, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, dst)

    def problems(self, d):
        return {name: bad for name, bad, _ in steps.doc_checks(d)}

    def edit(self, d, path, old, new, count=1):
        p = os.path.join(d, path)
        with open(p) as f:
            text = f.read()
        self.assertIn(old, text)
        with open(p, 'w') as f:
            f.write(text.replace(old, new, count))

    def test_each_check_fails(self):
        with tempfile.TemporaryDirectory() as d:
            self.copy(d)
            self.assertEqual({k: v for k, v in self.problems(d).items() if v}, {})
            self.edit(d, steps.STRESS_DOC, '``obj_size``', 'obj_size')
            self.edit(d, steps.PARK_DOC, '``park_slab``', 'park-slab', -1)
            self.edit(d, steps.PARK_DOC, '/sys/kernel/debug/slab/<cache>/parked',
                      '/sys/kernel/debug/slab/<cache>/pa rked', -1)
            self.edit(d, 'Makefile', 'export KSRC PATCHES RUNS ',
                      'export KSRC PATCHES BOGUS ')
            with open(os.path.join(d, 'README'), 'a') as f:
                f.write('x\n' * 200)
            bad = self.problems(d)
            self.assertEqual([t.split(' (')[0] for t in bad['module-parameters']],
                             ["module parameter 'obj_size'"])
            self.assertEqual(bad['sysfs-attributes'],
                             ["sysfs attribute 'park_slab' is not named as ``park_slab`` in "
                              + steps.PARK_DOC])
            self.assertEqual([t.split(':')[0] for t in bad['debugfs-files']],
                             ['debugfs file parked'])
            self.assertRegex(bad['readme'][0], r'^README has \d+ lines, more than 200')
            self.assertEqual([t.split(' (')[0] for t in bad['make-variables']],
                             ["Make variable 'BOGUS'", "knob 'RUNS'"])

    def test_abi_and_rst_fail(self):
        if importlib.util.find_spec('docutils') is None:
            self.skipTest('no docutils')
        with tempfile.TemporaryDirectory() as d:
            self.copy(d)
            for p in glob.glob(os.path.join(d, 'patches', '*.patch')):
                with open(p) as f:
                    text = f.read()
                with open(p, 'w') as f:
                    f.write(text.replace('+What:', '+Wat:'))
            self.edit(d, steps.STRESS_DOC, steps.SPDX_RST, '.. SPDX')
            self.edit(d, steps.PARK_DOC, '\n\n', '\n\n*unclosed emphasis\n\n')
            bad = self.problems(d)
            self.assertTrue(bad['sysfs-attributes'])
            self.assertTrue(all("has no '+What:" in t for t in bad['sysfs-attributes']))
            self.assertEqual(len(bad['rst']), 2, bad['rst'])
            self.assertIn('the first line is not', bad['rst'][0])
            self.assertIn('slab-parking.rst', ' '.join(bad['rst'][1:]))


class BuildStepsTest(unittest.TestCase):
    def test_warnings_without_line_numbers(self):
        log = ('  CC mm/slub.o\n'
               'mm/slub.c:10:5: warning: unused variable [-Wunused]\n'
               '   10 | int x;\n'
               'mm/slub.c:99:1: error: expected\n')
        self.assertEqual(steps.warnings_of(log),
                         {'mm/slub.c: warning: unused variable [-Wunused]',
                          'mm/slub.c: error: expected'})
        moved = steps.warnings_of('mm/slub.c:12:5: warning: unused variable [-Wunused]\n')
        self.assertTrue(moved <= steps.warnings_of(log))
        self.assertFalse(steps.warnings_of('mm/a.c:1:1: warning: new\n') <= moved)

    def test_vermagic(self):
        ko = b'\x7fELF\0license=GPL\0vermagic=7.3.4-slabpark SMP mod_unload \0'
        self.assertEqual(steps.vermagic(ko), '7.3.4-slabpark')
        self.assertIsNone(steps.vermagic(b'not a module\n'))

    def test_last_line(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'console.txt')
            with open(p, 'w') as f:
                f.write('SLABPARK-SOAK 1\nx\nSLABPARK-SOAK 2 runs\n')
            self.assertEqual(steps.last_line(p, 'SLABPARK-SOAK '), '2 runs')
            self.assertIsNone(steps.last_line(p, 'SLABPARK-DEBUG-GATE '))
            self.assertIsNone(steps.last_line(p + '.none', 'SLABPARK-SOAK '))

    def test_soak_settings(self):
        self.assertEqual(steps.soak_settings({}),
                         {'DURATION': '600', 'DEBUG': '0', 'NO_SHEAVES': 'random',
                          'NODES': '2', 'CPUS_PER_NODE': '2'})
        self.assertEqual(steps.soak_settings({'DURATION': '60', 'DEBUG': '1'})['DURATION'],
                         '60')
        for k, v in (('DURATION', '0'), ('DURATION', '1m'), ('DEBUG', '2'),
                     ('NO_SHEAVES', 'yes'), ('NODES', 'x')):
            with self.assertRaisesRegex(ValueError, '^%s=%s: must be ' % (k, v)):
                steps.soak_settings({k: v})

    def test_child_stopped_with_its_jobs(self):
        """a step's child stopped by make check's stop (SIGTERM as
        KeyboardInterrupt) takes what it started with it (make -j's jobs)"""
        tag = 'sleep 30.%d' % os.getpid()

        def interrupt(sig, frame):
            raise KeyboardInterrupt
        old = signal.signal(signal.SIGALRM, interrupt)
        try:
            signal.setitimer(signal.ITIMER_REAL, 0.5)
            with self.assertRaises(KeyboardInterrupt):
                check.Context.child(['sh', '-c', '%s & %s' % (tag, tag)])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        time.sleep(0.2)
        left = [p for p in os.listdir('/proc') if p.isdigit()
                and self._cmdline(p) == tag.replace(' ', '\0') + '\0']
        for p in left:
            os.kill(int(p), signal.SIGKILL)
        self.assertEqual(left, [])

    @staticmethod
    def _cmdline(pid):
        try:
            with open('/proc/%s/cmdline' % pid) as f:
                return f.read()
        except OSError:
            return ''

    def test_bisect_refuses_another_clones_series(self):
        """series-bisect builds the series this clone applied: when the
        tree's series branch has another series (another clone applied
        its own after this one's apply), it fails instead of stamping"""
        class Ctx:
            def __init__(self):
                self.ran = []

            def run(self, argv, **kw):
                self.ran.append(argv)
                return 0

            def capture(self, argv, check=True, **kw):
                self.ran.append(argv)
                if argv[-1] == 'branch.slabpark.slabparkSeries':
                    return 'another0series'
                return 'abc123' if 'rev-parse' in argv else '7.3.4'

            def say(self, msg):
                pass
        ctx = Ctx()
        with tempfile.TemporaryDirectory() as cache, \
                mock.patch.dict(os.environ, SLABPARK_CACHE=cache), \
                mock.patch.object(check, 'kernel_src', lambda c: '/src'), \
                mock.patch.object(steps, 'lib_sh',
                                  lambda c, *a: ['ours0series', 'cfg', '2']):
            with self.assertRaisesRegex(check.Fail, 'is not series '
                                        'ours0series: another clone'):
                steps.do_series_bisect(ctx)
        self.assertFalse(any('rev-list' in a for a in ctx.ran))

    def test_subtest_directive(self):
        lines = []
        ctx = check.Context('s', io.StringIO(), lines.append)
        with ctx.subtest('boot') as st:
            st.directive = '12s summary'
        self.assertEqual(ctx.last, 'ok 1 boot # 12s summary')


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
                        'class V(unittest.TestCase):\n'
                        '    @classmethod\n'
                        '    def setUpClass(cls): raise OSError("no")\n'
                        '    def test_e(self): pass\n')
            out = io.StringIO()
            rc = ktap.run_unittests(os.path.join(d, 'pkgx'), d, out)
            sys.modules.pop('pkgx.test_x', None)
            sys.modules.pop('pkgx', None)
        lines = out.getvalue().splitlines()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[:2], ['KTAP version 1',
                                     'ok 1 pkgx.test_x.T.test_a'])
        self.assertIn('not ok 2 pkgx.test_x.T.test_b', lines)
        self.assertIn('ok 3 pkgx.test_x.T.test_c # SKIP later', lines)
        self.assertIn('# AssertionError: 1 != 2', lines)
        self.assertIn('ok 4 pkgx.test_x.U.test_d', lines)
        self.assertIn('not ok 5 setUpClass (pkgx.test_x.V)', lines)
        self.assertIn('# OSError: no', lines)
        self.assertEqual(lines[-1], '# unittest: 3 passed, 2 failed')


if __name__ == '__main__':
    unittest.main()
