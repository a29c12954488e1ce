# SPDX-License-Identifier: GPL-2.0
"""python3 -m slabpark report RESULTS_DIR | experiment | check | test

report: prints the tables of a results directory of 'make run' (one boot, or the
alternating boots of BASE=1) and writes them to RESULTS_DIR/summary.txt,
with summary-*.csv beside it.  Exit status: 0 ok, 1 no data, 2 usage.
experiment: what make run BASE=1 / WORKLOAD= / MIN_PARTIAL=1 do, from
the environment tools/run.sh has checked (slabpark.experiment).
check [STEP...] [--full] [--list]: make check (slabpark.check).
test: the package's unit tests as KTAP (make check's step python).
"""

import argparse
import os
import sys

from . import check, experiment, ktap, report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog='python3 -m slabpark',
                                 description='slab parking bench, host side')
    sub = ap.add_subparsers(dest='cmd', required=True)
    rp = sub.add_parser('report', help='tables of a results directory')
    rp.add_argument('results', help="a 'make run' results directory")
    sub.add_parser('experiment', help='make run BASE=1 / WORKLOAD= / '
                   'MIN_PARTIAL=1 (from tools/run.sh)')
    cp = sub.add_parser('check', help='make check: the steps, one KTAP '
                        'document')
    cp.add_argument('steps', nargs='*', metavar='STEP')
    cp.add_argument('--full', action='store_true',
                    help='every step, the check-full ones too')
    cp.add_argument('--list', action='store_true', help='list the steps')
    sub.add_parser('test', help="the package's unit tests, as KTAP")
    args = ap.parse_args(argv)
    if args.cmd == 'check':
        return check.main(args.steps, args.full, args.list)
    if args.cmd == 'test':
        return ktap.main_test(check.TOP)
    if args.cmd == 'experiment':
        return experiment.main()
    if args.cmd == 'report':
        if not os.path.isdir(args.results):
            ap.error('%s: not a directory' % args.results)
        try:
            lines = report.report(args.results)
        except (FileNotFoundError, KeyError, ValueError) as e:
            print('slabpark report: %s' % e, file=sys.stderr)
            return 1
        text = '\n'.join(lines) + '\n'
        sys.stdout.write(text)
        with open(os.path.join(args.results, 'summary.txt'), 'w') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
