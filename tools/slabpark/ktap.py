# SPDX-License-Identifier: GPL-2.0
"""KTAP for make check: nesting a step's output, and unittest as KTAP.

``Nester`` turns what one step prints (its own TAP/KTAP, kselftest's
runner output, KUnit's debugfs results, anything else) into the body of
one KTAP subtest, line by line as it comes, so that the whole of make
check is one KTAP document that ``tools/testing/kunit/kunit.py parse``
reads down to the step's own cases.  The rules follow what
kunit_parser.py does (it nests by the "# Subtest:" names and the version
lines, not by indentation):

- Result lines ("ok N name", "not ok N name # directive") are children of
  the innermost open subtest, renumbered 1, 2, ... there; one whose name
  is that of an open subtest closes it (inner ones left open are closed
  as "not ok ... # no result line").
- "# Subtest: NAME" opens a subtest; a version line just before it is
  its header.  A version line before a plan or a result is a document:
  in a subtest that has nothing yet it is that subtest's own (its plan
  becomes the subtest's plan); elsewhere it opens an unnamed part,
  "part-K", closed when its plan is complete, by a result line indented
  less than its version line (which then follows it), or at the end.
- A plan before the first child of a nested subtest is kept; any other
  plan (the step's own, which more output may follow, a late "1..N",
  "1..0 # SKIP") is a diagnostic.
- kselftest's runner prefixes a test's own output with "# ": after a
  "# selftests: DIR: TEST" line, "# TAP version 13" opens the subtest
  "selftests: DIR: TEST" whose lines carry one more "# ", closed by the
  runner's result line.
- Everything else is a "#" diagnostic.

A subtest's header (version, "# Subtest:", plan) is written when its
first child is, so a subtest without children is one result line.
Output indentation is 4 spaces a level (as KUnit's); the caller writes
the step's own result line.
"""

import re
import sys
import traceback
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
    rest = m.group(3)
    name, sep, directive = rest.partition('#')
    name = name.strip()
    if name.startswith('- '):
        name = name[2:].strip()
    elif name == '-':
        name = ''
    return (m.group(1) == 'ok', int(m.group(2)), name,
            directive.strip() if sep else None)


def result_line(ok, num, name, directive=None):
    s = '%s %d %s' % ('ok' if ok else 'not ok', num, name)
    s = s.rstrip()
    if directive:
        s += ' # ' + directive
    return s


def is_skip(directive):
    return bool(directive) and directive.upper().startswith('SKIP')


class Level:
    """An open subtest: its name, the "# " prefixes of its lines (depth),
    what of it has been written."""

    def __init__(self, name, depth, parent, src_indent=None, anon=False):
        self.name = name
        self.depth = depth
        self.parent = parent
        self.src_indent = src_indent
        self.anon = anon
        self.level = parent.level + 1 if parent else 1
        self.header = False     # version/Subtest/plan written
        self.plan = None        # the plan, held until the first child
        self.plan_out = None    # the plan written
        self.merged = False     # a document of the step's own is this one
        self.n = 0              # children written
        self.failed = 0         # children written as not ok
        self.selftests = None   # the kselftest runner's last test name

    def fresh(self):
        return self.n == 0 and not self.merged and self.plan is None

    @property
    def indent(self):
        return INDENT * self.level


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
            lv.plan_out = lv.plan

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

    def _close(self, lv, ok, directive, name=None):
        """Close lv (the top of the stack) with a result in its parent."""
        assert self.stack[-1] is lv and lv is not self.base
        self.stack.pop()
        self._child(lv.parent, ok, name or lv.name, directive)

    def _close_derived(self, lv):
        """Close an unnamed part: ok when no child failed and its plan
        is complete."""
        want = lv.plan_out or lv.plan or 0
        ok = lv.failed == 0 and lv.n >= want
        why = None
        if lv.failed:
            why = '%d of %d failed' % (lv.failed, lv.n)
        elif not ok:
            why = '%d of %d reported' % (lv.n, want)
        self._close(lv, ok, why)

    def _open(self, name, depth, src_indent=None, anon=False):
        top = self.stack[-1]
        lv = Level(name, depth, top, src_indent, anon)
        self.stack.append(lv)
        return lv

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
        raw = raw.rstrip('\r\n').rstrip()
        raw = raw.replace('\r', '')
        q, ws, content = self._split(raw)
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
                self._close(self.stack[-1], False, 'no result line')
            lv = self.stack[-1]
            ok, _, name, directive = r
            self._close(lv, ok, directive)
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
            if top.fresh():
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
        while top.anon and top.src_indent is not None and \
                ws < top.src_indent:
            self._close_derived(top)
            top = self.stack[-1]
        # a result named as an open subtest closes it
        for i in range(len(self.stack) - 1, 0, -1):
            lv = self.stack[i]
            if lv.depth != q or lv.anon:
                continue
            if lv.name == name:
                while self.stack[-1] is not lv:
                    self._close(self.stack[-1], False,
                                'no result line before %s' % name)
                self._close(lv, ok, directive)
                return
        if name == self.base.name:
            name += ' (result)'
        self._child(top, ok, name, directive)
        if top.anon and top.plan_out and top.n >= top.plan_out:
            self._close_derived(top)

    def finish(self):
        """Close what is open (as not ok: the output ended); returns the
        base level (n children, failed)."""
        while len(self.stack) > 1:
            lv = self.stack[-1]
            if lv.anon:
                self._close_derived(lv)
            else:
                self._close(lv, False, 'no result line: the output ended')
        return self.base


# ---- unittest as KTAP (python3 -m slabpark test)

class KtapResult(unittest.TestResult):
    """unittest's results as KTAP result lines, one per test as it ends
    (a class or module fixture that fails is a failing line of its own),
    the traceback of a failure as diagnostics."""

    def __init__(self, out):
        super().__init__()
        self.out = out
        self.n = 0
        self.bad = 0
        self._status = None

    def _line(self, test, ok, directive=None, tb=None):
        for line in (tb or '').rstrip().splitlines():
            print('# ' + line, file=self.out)
        self.n += 1
        if not ok:
            self.bad += 1
        name = test.id()
        if name.startswith('slabpark.tests.'):
            name = name[len('slabpark.tests.'):]
        print(result_line(ok, self.n, name, directive), file=self.out)
        self.out.flush()

    def startTest(self, test):
        super().startTest(test)
        self._status = (True, None, None)

    def stopTest(self, test):
        super().stopTest(test)
        if self._status is not None:
            self._line(test, *self._status)
        self._status = None

    def _set(self, test, ok, directive=None, err=None):
        tb = self._exc_info_to_string(err, test) if err else None
        if self._status is None:        # a fixture outside any test
            self._line(test, ok, directive, tb)
        elif ok is False or self._status[0]:
            self._status = (ok, directive, tb)

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
    import os
    try:
        return run_unittests(os.path.join(top, 'tools', 'slabpark', 'tests'),
                             os.path.join(top, 'tools'))
    except Exception:
        traceback.print_exc()
        return 1
