#!/bin/bash
# a perf for tools/report/perf-lock.sh's tests: BPF works with FAKE_BPF=1,
# it logs its arguments to $FAKE_LOG and runs the workload after --
echo "$*" >>"$FAKE_LOG"
case "$*" in
"lock con -ab"*)
    [ "${FAKE_BPF:-0}" = 1 ] || { echo " Error: switch \`b' is not \
available because no BUILD_BPF_SKEL=1" >&2; exit 129; }
    [ "$4" = -- ] || echo "  contended   total wait   type   caller"
    ;;
"lock contention"*) echo "  contended   total wait   type   caller" ;;
esac
# the workload after --, as perf runs it
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
[ $# -gt 1 ] || exit 0
shift
"$@" || echo "fake perf: the workload exited with $?"
