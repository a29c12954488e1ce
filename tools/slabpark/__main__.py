# SPDX-License-Identifier: GPL-2.0
"""python3 -m slabpark COMMAND; --help lists all but slabstat (whose '--' argparse would take).
Exit status: 0 ok, 1 no or bad data, 2 usage."""

import argparse
import os
import sys

from . import check, config, deps, ktap, run, slabstat, steps, summary


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, '%s: error: %s\n' % (self.prog, message))


def main(argv=None) -> int:
    ap = Parser(prog='python3 -m slabpark', description='slab parking bench, host side')
    sub = ap.add_subparsers(dest='cmd', required=True)
    rn = sub.add_parser('run', help='make run', epilog='knobs (make variables, from the '
                        'environment):\n' + config.reference(),
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    what = rn.add_mutually_exclusive_group()
    what.add_argument('--check-only', action='store_true',
                      help="HOST=1: check this machine's prerequisites only")
    what.add_argument('--report', metavar='DIR', help="the report of make run HOST=1's runs "
                      "in DIR/host (made without python3)")
    rp = sub.add_parser('report', help='the report of a results directory')
    rp.add_argument('results', help="a 'make run' results directory")
    rp.add_argument('--where', default='', help='where it ran, for DIR/meta.txt')
    rp.add_argument('--runs', default='', help='runs x duration, for DIR/meta.txt')
    sm = sub.add_parser('summary', help='DIR/summary.txt')
    sm.add_argument('results', help="a 'make run' results directory")
    cp = sub.add_parser('check', help='make check: the steps, one KTAP document')
    cp.add_argument('steps', nargs='*', metavar='STEP')
    cp.add_argument('--full', action='store_true', help='every step, the check-full ones too')
    cp.add_argument('--list', action='store_true', help='list the steps')
    sub.add_parser('test', help="the package's unit tests, as KTAP")
    sub.add_parser('soak', help='make soak: a randomized long guest run')
    sub.add_parser('deps', help='the Debian packages the bench needs')
    dk = sub.add_parser('device-kit', help='make device-kit: the tarball that runs the '
                        'comparison on a lent many-core machine without a package registry')
    dk.add_argument('--out', metavar='FILE',
                    help='the tarball (default $SLABPARK_CACHE/device-kit/slabpark-kit.tar.xz)')
    dk.add_argument('--test', action='store_true', help='then run it here as a 2 x 2 guest, '
                    'one boot of each kernel, and print the report')
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['slabstat']:
        return slabstat.main(argv[1:])
    args = ap.parse_args(argv)
    if args.cmd == 'check':
        return check.main(steps.STEPS, args.steps, args.full, args.list)
    if args.cmd == 'soak':
        return steps.soak()
    if args.cmd == 'test':
        return ktap.main_test(check.TOP)
    if args.cmd == 'run':
        return run.main(args.check_only, args.report)
    if args.cmd == 'device-kit':
        return run.main(kit=(args.out, args.test))
    if args.cmd == 'deps':
        check.setup_env()
        return deps.main()
    if not os.path.isdir(args.results):
        ap.error('%s: not a directory' % args.results)
    try:
        if args.cmd == 'summary':
            sys.stdout.write(summary.write(args.results))
            return 0
        lines, _ = run.write_report(args.results, args.where, args.runs)
    except (FileNotFoundError, KeyError, ValueError) as e:
        print('slabpark %s: %s' % (args.cmd, e), file=sys.stderr)
        return 1
    sys.stdout.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
