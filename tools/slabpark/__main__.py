# SPDX-License-Identifier: GPL-2.0
"""python3 -m slabpark report|record|summary DIR | experiment | check | test
   | soak | slabstat

report DIR: prints the tables of a results directory of make run's
  experiments (BASE=1's alternating boots, WORKLOAD=, MIN_PARTIAL=1,
  FLUSH=1, the device kit's boots) and writes them to DIR/report.txt, with
  summary-*.csv and summary.txt (as 'summary' writes it) beside it.
record DIR [--where W --runs R]: prints the header, the configuration
  block and the per-placement tables of a module comparison (make run,
  make run HOST=1; tools/report/report-runs.sh puts them in report.txt);
  with --where, first writes DIR/meta.txt (slabpark.facts).
summary DIR: writes DIR/summary.txt (<= 80 columns, <= 40 lines; the key
  rows, beyond/within noise, a conclusion) and prints it.
experiment: what make run BASE=1 / WORKLOAD= / MIN_PARTIAL=1 / FLUSH=1
  do, from the environment tools/run.sh has checked (slabpark.experiment).
check [STEP...] [--full] [--list]: make check (slabpark.check).
test: the package's unit tests as KTAP (make check's step python).
soak: make soak, a randomized long guest run (slabpark.steps.soak).
slabstat {snap,diff,split,window,compare} ...: slabstat's analysis of
  tools/guest/slab-dump.sh's dumps (slabpark.slabstat).
Exit status: 0 ok, 1 no data or bad data, 2 usage.
"""

import argparse
import json
import os
import sys

from . import check, experiment, facts, ktap, record, report, steps, summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog='python3 -m slabpark',
                                 description='slab parking bench, host side')
    sub = ap.add_subparsers(dest='cmd', required=True)
    rp = sub.add_parser('report', help="tables of an experiment's results")
    rp.add_argument('results', help="a 'make run' results directory")
    rc = sub.add_parser('record', help='the full tables of a module '
                        'comparison, on stdout')
    rc.add_argument('results', help="a 'make run' results directory")
    rc.add_argument('--where', help='where it ran, for DIR/meta.txt')
    rc.add_argument('--runs', default='', help='runs x duration, for '
                    'DIR/meta.txt')
    sm = sub.add_parser('summary', help='DIR/summary.txt')
    sm.add_argument('results', help="a 'make run' results directory")
    sub.add_parser('experiment', help='make run BASE=1 / WORKLOAD= / '
                   'MIN_PARTIAL=1 / FLUSH=1 (from tools/run.sh)')
    cp = sub.add_parser('check', help='make check: the steps, one KTAP '
                        'document')
    cp.add_argument('steps', nargs='*', metavar='STEP')
    cp.add_argument('--full', action='store_true',
                    help='every step, the check-full ones too')
    cp.add_argument('--list', action='store_true', help='list the steps')
    sub.add_parser('test', help="the package's unit tests, as KTAP")
    sub.add_parser('soak', help='make soak: a randomized long guest run')
    argv = sys.argv[1:] if argv is None else argv
    # before argparse, which would take the '--' between compare's groups
    if argv[:1] == ['slabstat']:
        from . import slabstat
        return slabstat.main(argv[1:])
    args = ap.parse_args(argv)
    if args.cmd == 'check':
        return check.main(args.steps, args.full, args.list)
    if args.cmd == 'soak':
        return steps.soak()
    if args.cmd == 'test':
        return ktap.main_test(check.TOP)
    if args.cmd == 'experiment':
        return experiment.main()
    if not os.path.isdir(args.results):
        ap.error('%s: not a directory' % args.results)
    name = 'slabpark %s' % args.cmd
    try:
        if args.cmd == 'summary':
            sys.stdout.write(summary.write(args.results))
            return 0
        if args.cmd == 'record':
            if args.where:
                facts.write_meta(args.results, args.where, args.runs)
            lines = record.record(args.results)
            sys.stdout.write('\n'.join(lines) + '\n')
            return 0
        lines = report.report(args.results)
    except (FileNotFoundError, KeyError, ValueError,
            json.JSONDecodeError) as e:
        print('%s: %s' % (name, e), file=sys.stderr)
        return 1
    text = '\n'.join(lines) + '\n'
    sys.stdout.write(text)
    with open(os.path.join(args.results, 'report.txt'), 'w') as f:
        f.write(text)
    try:
        summary.write(args.results)
    except (FileNotFoundError, KeyError, ValueError) as e:
        print('%s: no summary.txt: %s' % (name, e), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
