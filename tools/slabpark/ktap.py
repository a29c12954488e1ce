# SPDX-License-Identifier: GPL-2.0
"""KTAP for make check: Nester nests a step's output, as it comes, into its subtest, for
kunit.py parse to read down to the cases, as kunit_parser nests: "# Subtest: NAME" opens a
subtest, the result line named NAME closes it (and, failed, what it holds); other results are
children of the innermost open one, renumbered; a plan before a nested subtest's first child is
kept; version lines go (a subtest's header is written with its first child); the rest are
diagnostics.  After the kselftest runner's "# selftests: DIR: TEST", "# TAP version 13" opens
that subtest, its lines one "# " deeper.  run_unittests: unittest as KTAP (python3 -m slabpark
test).
"""

import os
import re
import sys
import unittest

VERSION = re.compile(r'^K?TAP version \d+$')
PLAN = re.compile(r'^1\.\.[1-9]\d*$')
SUBTEST = re.compile(r'^# Subtest: (.*\S)')
# (ok, its name, its directive): the name ends at the first '#', as in kunit_parser
RESULT = re.compile(r'^(ok|not ok) \d+(?=\s|$)\s*(?:-(?=\s|$))?\s*([^#]*?)\s*(?:#\s*(.*))?$')
SELFTESTS = re.compile(r'^# (selftests: \S+: \S.*)$')
PREFIXED_VERSION = re.compile(r'^# K?TAP version \d+$')
# where kunit_parser stops reading: never in a diagnostic
KTAP_END = re.compile(r'(List of all partitions|Kernel panic - not syncing'
                      r'|reboot): (VFS:|System halted)?')
INDENT = '    '


def result_line(ok, num, name, directive=None):
    s = ('%s %d %s' % ('ok' if ok else 'not ok', num, name)).rstrip()
    return s + ' # ' + directive if directive else s


class Level:
    """An open subtest; DEPTH: the "# " prefixes its lines carry."""

    def __init__(self, name, depth, indent):
        self.name, self.depth, self.indent = name, depth, indent
        self.header = False     # version/Subtest/plan written
        self.plan = None        # the plan, written with the first child
        self.n = 0              # children written
        self.failed = 0         # children written as not ok


class Nester:
    """feed() the lines of one step, then finish(); the body of the step's subtest goes to
    emit(line), its result line is the caller's."""

    def __init__(self, name, emit):
        self.emit = emit
        self.stack = [Level(name, 0, INDENT)]
        self.selftests = None   # the runner's test a '# TAP version 13' opens

    def _child(self, ok, name, directive):
        for lv in self.stack:
            if not lv.header:
                lv.header = True
                self.emit(lv.indent + 'KTAP version 1')
                self.emit(lv.indent + '# Subtest: ' + lv.name)
                if lv.plan:
                    self.emit(lv.indent + '1..%d' % lv.plan)
        top = self.stack[-1]
        top.n += 1
        top.failed += not ok
        self.emit(top.indent + result_line(ok, top.n, name, directive))

    def _close(self, ok, directive):
        self._child(ok, self.stack.pop().name, directive)

    def _diag(self, text):
        text = text.rstrip()
        text = text.lstrip() if text.lstrip().startswith('#') else ('# ' + text).rstrip()
        if SUBTEST.match(text):
            text = '# (' + text[2:] + ')'
        text = KTAP_END.sub(lambda m: m.group(0).replace(':', ' :', 1), text)
        self.emit(self.stack[-1].indent + text)

    def _open(self, name, depth):
        self.stack.append(Level(name, depth, self.stack[-1].indent + INDENT))
        self.selftests = None

    def _result(self, depth, ok, name, directive):
        self.selftests = None
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].depth >= depth and self.stack[i].name == name:
                while len(self.stack) > i + 1:
                    self._close(False, 'no result line before ' + name)
                self._close(ok, directive)
                return
        while self.stack[-1].depth > depth:
            self._close(False, 'no result line')
        if name == self.stack[0].name:
            name += ' (result)'
        self._child(ok, name, directive)

    def feed(self, raw):
        top = self.stack[-1]
        content = raw.replace('\r', '').strip()
        depth = 0
        while depth < top.depth and content.startswith('# '):
            content = content[2:]
            depth += 1
        s = content.strip()
        r = RESULT.match(s)
        if r:
            self._result(depth, r[1] == 'ok', r[2], r[3])
        elif depth < top.depth:
            self._diag(content)
        elif sub := SUBTEST.match(s):
            self._open(sub[1], depth)
        elif PLAN.match(s) and len(self.stack) > 1 and not top.n and not top.plan:
            top.plan = int(s[3:])
        elif PREFIXED_VERSION.match(s) and self.selftests:
            self._open(self.selftests, depth + 1)
        elif not VERSION.match(s):
            if SELFTESTS.match(s):
                self.selftests = s[2:]
            self._diag(content)

    def finish(self):
        """Close what is open as not ok; returns the step's Level."""
        while len(self.stack) > 1:
            self._close(False, 'no result line: the output ended')
        return self.stack[0]


class KtapResult(unittest.TestResult):
    """A KTAP result line per test as it ends, each failure's traceback as diagnostics before
    it; a failing class or module fixture is a failing line of its own."""

    def __init__(self, out):
        super().__init__()
        self.out, self.n, self.bad, self.status = out, 0, 0, None

    def _line(self, test, ok, directive=None):
        self.n += 1
        self.bad += not ok
        print(result_line(ok, self.n, test.id().removeprefix('slabpark.tests.'), directive),
              file=self.out, flush=True)

    def startTest(self, test):
        self.status = (True, None)

    def stopTest(self, test):
        self._line(test, *self.status)
        self.status = None

    def _set(self, test, ok, directive=None, err=None):
        if err:
            for t in self._exc_info_to_string(err, test).rstrip().splitlines():
                print('# ' + t, file=self.out)
        if self.status is None:
            self._line(test, ok, directive)
        elif not ok or self.status[0]:
            self.status = (ok, directive)

    def addError(self, test, err):
        self._set(test, False, err=err)

    addFailure = addError

    def addSubTest(self, test, subtest, err):
        if err:
            self._set(test, False, err=err)

    def addSkip(self, test, reason):
        self._set(test, True, 'SKIP ' + reason)

    def addUnexpectedSuccess(self, test):
        self._set(test, False, 'unexpected success')


def run_unittests(start_dir, top_dir, out=sys.stdout):
    """KTAP (no plan) of the tests under START_DIR; 0 when none failed."""
    suite = unittest.TestLoader().discover(start_dir, top_level_dir=top_dir)
    print('KTAP version 1', file=out)
    res = KtapResult(out)
    suite.run(res)
    print('# unittest: %d passed, %d failed' % (res.n - res.bad, res.bad), file=out, flush=True)
    return 1 if res.bad or not res.n else 0


def main_test(top):
    return run_unittests(os.path.join(top, 'tools/slabpark/tests'), os.path.join(top, 'tools'))
