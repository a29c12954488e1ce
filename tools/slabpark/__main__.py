# SPDX-License-Identifier: GPL-2.0
"""python3 -m slabpark report RESULTS_DIR | experiment

report: prints the tables of a results directory of 'make run' (one boot, or the
alternating boots of BASE=1) and writes them to RESULTS_DIR/summary.txt,
with summary-*.csv beside it.  Exit status: 0 ok, 1 no data, 2 usage.
experiment: what make run BASE=1 / WORKLOAD= / MIN_PARTIAL=1 do, from
the environment tools/run.sh has checked (slabpark.experiment).
"""

import argparse
import os
import sys

from . import experiment, report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog='python3 -m slabpark',
                                 description='slab parking bench, host side')
    sub = ap.add_subparsers(dest='cmd', required=True)
    rp = sub.add_parser('report', help='tables of a results directory')
    rp.add_argument('results', help="a 'make run' results directory")
    sub.add_parser('experiment', help='make run BASE=1 / WORKLOAD= / '
                   'MIN_PARTIAL=1 (from tools/run.sh)')
    args = ap.parse_args(argv)
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
