# SPDX-License-Identifier: GPL-2.0
"""KTAP for make check: nesting a step's output, and unittest as KTAP.

Nester turns what one step prints (its own TAP/KTAP, kselftest's runner
output, KUnit's debugfs results, anything else) into the body of one
KTAP subtest, as it comes, which kunit.py parse reads down to the cases.
As kunit_parser, it nests by the "# Subtest:" names and version lines:

- A result line is a child of the innermost open subtest, renumbered;
  one named as an open subtest closes it (and, failed, what it holds).
- A version line before "# Subtest:" is its header; before a plan or a
  result it is a document: the fresh subtest's own, else an unnamed
  "part-K", closed when its plan is complete, by a result indented less
  than it, or at the end.
- A plan before the first child of a nested subtest is kept; any other
  is a diagnostic, as is everything else.
- After the kselftest runner's "# selftests: DIR: TEST", "# TAP version
  13" opens subtest "selftests: DIR: TEST" of lines with one more "# ".

A subtest's header is written with its first child (no child: one
result line), 4 spaces of indent a level; the caller writes the step's
own result line.
"""

import os
import re
import sys
import unittest

VERSION = re.compile(r'^K?TAP version (\d+)$')
PLAN = re.compile(r'^1\.\.(\d+)\b')
SUBTEST = re.compile(r'^# Subtest: (.*\S)')
RESULT = re.compile(r'^(ok|not ok) (\d+)(?=\s|$)(.*)$')
SELFTESTS = re.compile(r'^# (selftests: \S+: \S.*)$')
PREFIXED_VERSION = re.compile(r'^# K?TAP version \d+$')
# what makes kunit_parser stop reading (KTAP_END); kept out of diagnostics
KTAP_END = re.compile(r'(List of all partitions|Kernel panic - not syncing'
                      r'|reboot): (VFS:|System halted)?')
INDENT = '    '


def parse_result(s):
    """(ok: bool, number, name, directive or None) of a result line, or
    None.  The name ends at the first '#', as in kunit_parser."""
    m = RESULT.match(s)
    if not m:
        return None
    name, sep, directive = m.group(3).partition('#')
    name = re.sub(r'^-(\s|$)', '', name.strip()).strip()
    return (m.group(1) == 'ok', int(m.group(2)), name,
            directive.strip() if sep else None)


def result_line(ok, num, name, directive=None):
    s = ('%s %d %s' % ('ok' if ok else 'not ok', num, name)).rstrip()
    return s + ' # ' + directive if directive else s


class Level:
    """An open subtest: its name, the "# " prefixes of its lines (depth),
    what of it has been written."""

    def __init__(self, name, depth, parent, src_indent=None, anon=False):
        self.name, self.depth, self.parent = name, depth, parent
        self.src_indent = src_indent    # of an unnamed part's version line
        self.anon = anon                # an unnamed part
        self.indent = parent.indent + INDENT if parent else INDENT
        self.header = False     # version/Subtest/plan written
        self.plan = None        # the plan, written with the first child
        self.merged = False     # a document of the step's own is this one
        self.n = 0              # children written
        self.failed = 0         # children written as not ok
        self.selftests = None   # the kselftest runner's last test name


class Nester:
    """Feed the lines of one step (feed), then finish(); the KTAP lines of
    the step's subtest body go to emit(line)."""

    def __init__(self, name, emit):
        self.emit = emit
        self.base = Level(name, 0, None, src_indent=0)
        self.stack = [self.base]
        self.pending_version = None     # (depth, indent) of a version line

    # ---- writing

    def _header(self, lv):
        if lv.header:
            return
        if lv.parent:
            self._header(lv.parent)
        lv.header = True
        self.emit(lv.indent + 'KTAP version 1')
        self.emit(lv.indent + '# Subtest: ' + lv.name)
        if lv.plan:
            self.emit(lv.indent + '1..%d' % lv.plan)

    def _child(self, lv, ok, name, directive):
        self._header(lv)
        lv.n += 1
        if not ok:
            lv.failed += 1
        self.emit(lv.indent + result_line(ok, lv.n, name, directive))

    def _diag(self, lv, text):
        text = text.rstrip()
        if text.lstrip().startswith('#'):
            text = text.lstrip()
        else:
            text = ('# ' + text) if text.strip() else '#'
        if SUBTEST.match(text):
            text = '# (' + text[2:] + ')'
        text = KTAP_END.sub(lambda m: m.group(0).replace(':', ' :', 1), text)
        self.emit(lv.indent + text)

    def _close(self, ok, directive):
        """Close the top of the stack with a result in its parent."""
        lv = self.stack.pop()
        self._child(lv.parent, ok, lv.name, directive)

    def _close_part(self):
        """Close the unnamed part on top: ok when no child failed and its
        plan is complete."""
        lv = self.stack[-1]
        want = lv.plan or 0
        ok = lv.failed == 0 and lv.n >= want
        why = None
        if lv.failed:
            why = '%d of %d failed' % (lv.failed, lv.n)
        elif not ok:
            why = '%d of %d reported' % (lv.n, want)
        self._close(ok, why)

    def _open(self, name, depth, src_indent=None, anon=False):
        self.stack.append(Level(name, depth, self.stack[-1], src_indent, anon))
        return self.stack[-1]

    # ---- reading

    def _split(self, raw):
        """(depth of '# ' prefixes stripped, indent, content) of a line, the
        prefixes stripped only as far as the open levels have them."""
        p = self.stack[-1].depth
        ws = len(raw) - len(raw.lstrip())
        rest = raw[ws:]
        q = 0
        while q < p and (rest.startswith('# ') or rest == '#'):
            rest = rest[2:]
            q += 1
        if q:
            ws = len(rest) - len(rest.lstrip())
        return q, ws, rest

    def feed(self, raw):
        q, ws, content = self._split(raw.rstrip().replace('\r', ''))
        s = content.strip()
        top = self.stack[-1]

        if q < top.depth:
            r = parse_result(s)
            if r is None:
                self._diag(top, content)
                return
            # a result line outside the "# " prefixed output: it closes
            # the outermost prefixed level, and what is open inside it
            self.pending_version = None
            i = min(k for k, lv in enumerate(self.stack) if lv.depth > q)
            while len(self.stack) - 1 > i:
                self._close(False, 'no result line')
            lv = self.stack[-1]
            ok, _, name, directive = r
            self._close(ok, directive)
            if name != lv.name:
                self._diag(self.stack[-1], '# reported as: ' + s)
            return

        if VERSION.match(s):
            self.pending_version = (q, ws)
            return
        m = SUBTEST.match(s)
        if m:
            indent = ws
            if self.pending_version and self.pending_version[0] == q:
                indent = self.pending_version[1]
            self.pending_version = None
            self._open(m.group(1).strip(), q, indent)
            return
        pm = PLAN.match(s)
        r = parse_result(s) if not pm else None
        if (pm or r) and self.pending_version:
            pv = self.pending_version
            self.pending_version = None
            if top.n == 0 and not top.merged and top.plan is None:
                top.merged = True
            else:
                top = self._open('part-%d' % (top.n + 1), q, pv[1],
                                 anon=True)
        if pm:
            n = int(pm.group(1))
            # (not a step's own: after it, the step may print more)
            if n > 0 and top.n == 0 and top.plan is None and \
                    top is not self.base and not s[pm.end():].strip():
                top.plan = n
            else:
                self._diag(top, s)
            return
        if r:
            self._result(r, q, ws, s)
            return
        # a diagnostic
        m = SELFTESTS.match(s)
        if m:
            top.selftests = m.group(1)
        elif PREFIXED_VERSION.match(s) and top.selftests:
            lv = self._open(top.selftests, q + 1)
            lv.merged = True
            top.selftests = None
            return
        self._diag(top, content)

    def _result(self, r, q, ws, s):
        ok, _, name, directive = r
        top = self.stack[-1]
        top.selftests = None
        # an unnamed part ends at a result indented less than it
        while top.anon and ws < top.src_indent:
            self._close_part()
            top = self.stack[-1]
        # a result named as an open subtest closes it
        for i in range(len(self.stack) - 1, 0, -1):
            lv = self.stack[i]
            if lv.depth != q or lv.anon:
                continue
            if lv.name == name:
                while self.stack[-1] is not lv:
                    self._close(False, 'no result line before %s' % name)
                self._close(ok, directive)
                return
        if name == self.base.name:
            name += ' (result)'
        self._child(top, ok, name, directive)
        if top.anon and top.plan and top.n >= top.plan:
            self._close_part()

    def finish(self):
        """Close what is open (as not ok: the output ended); returns the
        base level (n children, failed)."""
        while len(self.stack) > 1:
            if self.stack[-1].anon:
                self._close_part()
            else:
                self._close(False, 'no result line: the output ended')
        return self.base


# ---- unittest as KTAP (python3 -m slabpark test)

class KtapResult(unittest.TestResult):
    """unittest's results as KTAP result lines, one per test as it ends
    (a class or module fixture that fails is a failing line of its own),
    the traceback of each failure as diagnostics before it."""

    def __init__(self, out):
        super().__init__()
        self.out, self.n, self.bad, self.status = out, 0, 0, None

    def _line(self, test, ok, directive=None):
        self.n += 1
        self.bad += not ok
        print(result_line(ok, self.n, test.id().removeprefix(
            'slabpark.tests.'), directive), file=self.out)
        self.out.flush()

    def startTest(self, test):
        super().startTest(test)
        self.status = (True, None)

    def stopTest(self, test):
        super().stopTest(test)
        self._line(test, *self.status)
        self.status = None

    def _set(self, test, ok, directive=None, err=None):
        if err:
            for t in self._exc_info_to_string(err, test).rstrip().splitlines():
                print('# ' + t, file=self.out)
        if self.status is None:         # a fixture outside any test
            self._line(test, ok, directive)
        elif not ok or self.status[0]:
            self.status = (ok, directive)

    def addError(self, test, err):
        super().addError(test, err)
        self._set(test, False, err=err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._set(test, False, err=err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._set(test, False, err=err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._set(test, True, 'SKIP ' + reason)

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._set(test, False, 'unexpected success')


def run_unittests(start_dir, top_dir, out=sys.stdout):
    """Discover and run the tests under start_dir, printing KTAP (no plan:
    a failing fixture adds a line).  A module that does not import is a
    failing test.  Returns 0 when every test passed or skipped, else 1."""
    suite = unittest.TestLoader().discover(start_dir, top_level_dir=top_dir)
    print('KTAP version 1', file=out)
    res = KtapResult(out)
    suite.run(res)
    print('# unittest: %d passed, %d failed' % (res.n - res.bad, res.bad),
          file=out)
    out.flush()
    return 1 if res.bad or not res.n else 0


def main_test(top):
    """python3 -m slabpark test: the package's unit tests, as KTAP."""
    return run_unittests(os.path.join(top, 'tools', 'slabpark', 'tests'),
                         os.path.join(top, 'tools'))
