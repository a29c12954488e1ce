#!/bin/bash
# perf-lock.sh's perf: BPF with FAKE_BPF=1, its arguments in $FAKE_LOG, the workload after --
echo "$*" >>"$FAKE_LOG"
case "$*" in
"lock con -ab"*)
    [ "${FAKE_BPF:-0}" = 1 ] || { echo " Error: switch \`b' is not \
available because no BUILD_BPF_SKEL=1" >&2; exit 129; }
    [ "$4" = -- ] || echo "  contended   total wait   type   caller"
    ;;
"lock contention"*) echo "  contended   total wait   type   caller" ;;
esac
while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
[ $# -gt 1 ] || exit 0
shift
"$@" || echo "fake perf: the workload exited with $?"
