# SPDX-License-Identifier: GPL-2.0
"""The host's judgment of what the guest scripts (tools/guest/) leave in
OUT/files: the kselftest's and slub_kunit's output, kmemleak's reports.
Each judge returns its failures."""

import os
import re
from typing import Dict, List, Optional, Tuple

from . import guest_out
from .ktap import RESULT

# The slab parking cases of slub_kunit (patch 6 of the series), in suite
# order: the slub_break_parking= bits of the break kernel
# (tools/kernel/bench-patches/break-parking.patch) under which each fails,
# those under which it is not run (without parking, the free under the
# timer base lock takes the list_lock, a spinlock_t under a raw spinlock;
# with the work armed from the free path it deadlocks), and whether it may
# skip with CONFIG_SLUB_RCU_DEBUG=y (its SLAB_TYPESAFE_BY_RCU frees go
# through RCU then).
KUNIT_PARK: Dict[str, Tuple[Tuple[int, ...], Tuple[int, ...], bool]] = {
    'test_park_full_slab': ((1,), (), False),
    'test_park_frees_keep_parked': ((1,), (), False),
    'test_park_alloc_unparks': ((1, 2), (), False),
    'test_park_bulk_alloc_unparks': ((1, 2), (), False),
    'test_park_empty_min_partial': ((1, 2, 4), (), False),
    'test_park_counts_for_min_partial': ((1, 2, 32), (), False),
    'test_park_shrink': ((1, 8), (), False),
    'test_park_destroy': ((1, 16), (), False),
    'test_park_leak_destroy': ((1, 16), (), False),
    'test_park_work_unparks': ((1, 64), (), True),
    'test_park_uncontended': ((), (), False),
    'test_park_free_under_timer_lock': ((), (1, 64), True),
}
# the one case a strict run may skip (TCG has no PMU)
PERF_CASE = 'test_kmalloc_nolock_and_friends_perf'
KPROBE_CASE = 'test_kmalloc_nolock_and_friends_kprobe'

# the kselftest's needs (its TESTS table) each kernel lacks: a test may
# skip only for one of them; debug: KASAN's quarantine holds a run's frees
KSFT_LACKS = {'patched': (), 'rt': (), 'base': ('parking',),
              'uma': ('two_nodes',), 'debug': ('frees',)}


def read(*path: str) -> str:
    try:
        with open(os.path.join(*path), errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def parse_result(line: str) -> Optional[Tuple[bool, str, Optional[str]]]:
    """(ok, name, directive or None) of a KTAP result line, or None"""
    m = RESULT.match(line)
    return (m.group(1) == 'ok', m.group(2), m.group(3)) if m else None


def kunit_cases(text: str) -> Dict[str, Tuple[str, str]]:
    """name -> (pass, fail or skip, the SKIP reason)"""
    out = {}
    for t in text.splitlines():
        r = parse_result(t.strip()) if t[:1] in ' \t' else None
        if r:
            ok, name, d = r
            skip = ok and (d or '').startswith('SKIP')
            out[name] = ('skip' if skip else 'pass' if ok else 'fail',
                         d[4:].strip() if skip else '')
    return out


def kunit(text: str, rcu_debug: bool, strict: bool) -> List[str]:
    """slub_kunit's KTAP TEXT: no case failed, the suite ok, every parking
    case passed (but a skip for SLUB_RCU_DEBUG where it may); strict: the
    kprobe case passed, no other case but PERF_CASE skipped"""
    cases = kunit_cases(text)
    suite = next((parse_result(t) for t in text.splitlines()
                  if parse_result(t)), None)
    bad = ['%s failed' % c for c, (r, _) in cases.items() if r == 'fail']
    if not suite or not suite[0]:
        bad.append('the suite is not ok')
    bad += ['unknown parking case %s' % c for c in cases
            if c.startswith('test_park_') and c not in KUNIT_PARK]
    for c, (_, _, rcu_may_skip) in KUNIT_PARK.items():
        r, why = cases.get(c, ('missing', ''))
        if r == 'missing':
            bad.append('%s did not run' % c)
        elif r == 'skip' and not (rcu_debug and rcu_may_skip and
                                  'SLUB_RCU_DEBUG' in why):
            bad.append('%s skipped (CONFIG_SLUB_RCU_DEBUG %s): %s' % (
                c, 'y' if rcu_debug else 'unset', why))
    if strict:
        if cases.get(KPROBE_CASE, ('',))[0] != 'pass':
            bad.append('the kmalloc_nolock() kprobe case did not run and pass')
        bad += ['%s skipped' % c for c, (r, _) in cases.items()
                if r == 'skip' and c != PERF_CASE and c not in KUNIT_PARK]
    return bad


def mutant_glob(mode: int) -> str:
    """kunit.filter_glob for MODE: the parking cases, but those MODE does
    not run (the one ever left out, test_park_free_under_timer_lock, is
    the one whose next to last character is 'c')"""
    skip = [c for c, v in KUNIT_PARK.items() if mode in v[1]]
    return 'slub_test.test_park_*' + ('[!c]?' if skip else '')


def mutant(text: str, mode: int) -> List[str]:
    """the break kernel's slub_kunit under slub_break_parking=MODE:
    exactly the cases MODE breaks fail, exactly those it runs ran"""
    if mode and not any(mode in v[0] for v in KUNIT_PARK.values()):
        return ['mode %d breaks no case of KUNIT_PARK' % mode]
    cases = kunit_cases(text)
    bad = ['%s ran: not a parking case' % c for c in cases
           if c not in KUNIT_PARK]
    bad += ['%s skipped' % c for c, (r, _) in cases.items() if r == 'skip']
    for c, (breaks, not_run, _) in KUNIT_PARK.items():
        got = cases.get(c, ('missing',))[0]
        want = 'missing' if mode in not_run else \
            'fail' if mode in breaks else 'pass'
        if got != want and got != 'skip':
            bad.append('%s: want %s, got %s' % (c, want, got))
    return bad


def kselftest(text: str, kernel: str) -> List[str]:
    """run_kselftest.sh -c slub_park's output on KERNEL: every test of the
    plan reported, none failed, a SKIP only for a need KERNEL lacks"""
    bad = []
    top = [parse_result(t) for t in text.splitlines() if parse_result(t)]
    if not top:
        bad.append('no result line of run_kselftest.sh (cut short?)')
    bad += ['run_kselftest.sh: not ok %s%s' % (n, ' # ' + d if d else '') for ok, n, d in top
            if not ok]
    if any(ok and (d or '').startswith('SKIP') for ok, _, d in top):
        bad.append('the whole slub_park suite was skipped')
    plan = re.search(r'(?m)^# 1\.\.(\d+)$', text)
    tests = [parse_result(t[2:]) for t in text.splitlines()
             if re.match(r'# (not )?ok \d+ [a-z_]+', t)]
    failed = [r[1] for r in tests if not r[0]]
    if failed:
        bad.append('not ok: ' + ', '.join(failed))
    if not plan or not tests or len(tests) != int(plan.group(1)):
        bad.append('%d tests reported of a plan of %s' % (
            len(tests), plan.group(1) if plan else 'none'))
    for ok, name, d in tests:
        m = re.match(r'SKIP( needs (\w+))?', d or '')
        if ok and m and (m.group(2) or '(none)') not in KSFT_LACKS[kernel]:
            bad.append('%s skipped for need %s, which the %s kernel has' % (
                name, m.group(2) or '(none)', kernel))
    return bad


def topology(text: str) -> List[str]:
    """the kselftest in the cpuless4 guest (node 1 shares node 0's
    socket, node 3 has no CPUs) chose nodes 0 and 2"""
    m = re.search(r'(?m)^(?:# )*nodes: (.*)$', text)
    if m and m.group(1).startswith('alloc_node=0 free_node=2, distance 21 '):
        return []
    return ["the kselftest's nodes are not 0 and 2: '%s'" % (
        m.group(1) if m else '')]


# the debug gate's kmemleak reports: the objects that may be in each
# (test_leak_destroy leaks one on purpose, and so its cache, which the
# kunit thread allocated)
KMEMLEAK = (('kmemleak-kunit.txt', 'slub_kunit|test_leak_destroy'),
            ('kmemleak-end.txt', 'comm "kunit_try_catch"'))


def kmemleak(files: str, name: str, expected: str) -> List[str]:
    """the objects of report NAME none of whose lines match EXPECTED"""
    if not os.path.isfile(os.path.join(files, name)):
        return ['no %s: the guest did not return it' % name]
    objs = re.split(r'(?m)^(?=unreferenced object)', read(files, name))[1:]
    leaks = [o for o in objs if not re.search(expected, o)]
    return ['%d suspected leak(s) (expected: %s):' % (len(leaks), expected)] + \
        leaks[0].splitlines()[:30] if leaks else []


def rcu_debug(bdir: str) -> bool:
    return bool(re.search(r'(?m)^CONFIG_SLUB_RCU_DEBUG=y$',
                          read(bdir, '.config')))


def check(ctx, files: str, kernel: str, suites, bdir: str) -> bool:
    """the judgments of what SUITES left in FILES on KERNEL (built in
    BDIR), a subtest '<suite>-host' each; all passed"""
    ksft = read(files, 'kselftest.txt')
    kunit_text = read(files, 'kunit-slub_test.ktap')
    judges = {
        'kselftest': lambda: kselftest(ksft, kernel),
        'kselftest-intree': lambda: kselftest(ksft, kernel),
        'topology': lambda: topology(ksft) + [
            '%s: %s' % (name, found) for ok, name, found in guest_out.host_runs(
                os.path.join(files, 'topology'), 'topology', kernel) if not ok],
        'kunit': lambda: kunit(kunit_text, rcu_debug(bdir),
                               kernel != 'debug'),
        'kmemleak': lambda: [b for f, ere in KMEMLEAK if 'kunit' in suites or 'kunit' not in f
                             for b in kmemleak(files, f, ere)],
    }
    ok = True
    for s in suites:
        if s in judges:
            ok &= result(ctx, s + '-host', judges[s]())
    return ok


def result(ctx, name: str, bad: List[str]) -> bool:
    """a subtest NAME of one result, failed with BAD said"""
    with ctx.subtest(name) as st:
        for t in bad:
            ctx.say('# FAIL: ' + t)
        st.result(not bad, name.rsplit('-', 1)[0])
    return st.ok
