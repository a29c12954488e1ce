#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The report of 'make run' (in the guest) and 'make run HOST=1' (on the
# host), from what tools/guest/guest-compare.sh wrote: report.txt, the full
# record (the header with kernel, series, commit, CPU and topology, one
# configuration block, per placement every counter, gauge, derived row,
# result and latency bound of the modes: python3 -m slabpark record; then
# the noise floor, the tables of tools/report/summarize-runs.sh, the sheaf
# sweep's, lock_stat's and the measurement kernel's tables when they were
# asked for), the <placement>.csv/.json tables (slabstat compare),
# summary.csv, and parking.png when gnuplot is installed.  The caller
# writes summary.txt (python3 -m slabpark summary) and prints it.
# Without python3 (make run HOST=1 in make check's busybox guest) the
# placement tables are slabstat compare's.
#
# Usage: tools/report/report-runs.sh RESULTS_DIR DATA_DIR SHAPE
#   RESULTS_DIR   where the report goes (report.txt, *.csv, *.json, parking.png)
#   DATA_DIR      what compare.sh wrote: runs/<placement>/park<mode>/<round>.{json,results}
#                 and, with LOCKSTAT=1, lockstat/ (make run: RESULTS_DIR/guest/files;
#                 HOST=1: RESULTS_DIR/host)
#   SHAPE         where it ran, for the headers and the plot's title
#                 ("TCG guest, 2 nodes x 2 vCPUs"; "host, 2 nodes x 8 CPUs, ...")
#
# Environment: the knobs of the run as tools/run.sh resolved them: RUNS,
# DURATION_MS, PLACEMENTS, LOCKSTAT, MEASURE, SWEEP.
# The last line of report.txt is "results: DIR (the files written)".

set -euo pipefail
# shellcheck source=tools/lib.sh
. "$(dirname "$0")/../lib.sh"

if [ $# -ne 3 ] || [ ! -d "$2/runs" ]; then
	echo "usage: $0 RESULTS_DIR DATA_DIR SHAPE (DATA_DIR/runs/ from tools/guest/guest-compare.sh)" >&2
	exit 2
fi
results=$1 data=$2 shape=$3
runsdir=$data/runs
: "${RUNS:?}" "${DURATION_MS:?}" "${PLACEMENTS:?}" "${LOCKSTAT:?}" "${MEASURE:?}" "${SWEEP=}"
cd "$SLABPARK_TOP"

report=$results/report.txt
: >"$report"
out() { cat >>"$report"; }
have_python=0
command -v python3 >/dev/null 2>&1 && have_python=1
slabpark() { PYTHONPATH=$SLABPARK_TOP/tools python3 -m slabpark "$@"; }
slabstat() { slabpark slabstat "$@"; }

# the header, the configuration block and the placement tables; meta.txt
# records the series and the commit that ran, and where: a TCG guest, or
# this host
case "$shape" in
*TCG*) where=$shape ;;
*) where="host, $shape" ;;
esac
if [ "$have_python" = 1 ]; then
	slabpark record "$results" --where "$where" \
		--runs "$RUNS x $DURATION_MS ms per placement and mode; PLACEMENTS=\"$PLACEMENTS\"${SWEEP:+ SWEEP=$SWEEP}" | out
	echo | out
fi

# The noise floor first: the local placement parks nothing and runs the
# same code in every mode, so the spread of its ops/s over all its runs
# is what a difference must exceed to mean something.
noise_floor() {
	local v ldir=$runsdir/local
	# a sweep: the local runs at the smallest sheaf capacity (the default)
	[ -z "$SWEEP" ] || ldir=$runsdir/$(find "$runsdir" -mindepth 1 -maxdepth 1 -type d -name 'local-sc*' -printf "%f\n" |
		sort -t- -k2.3,2n | head -n 1)
	v=$(cat "$ldir"/park*/*.results 2>/dev/null | sed -n 's/^ops_per_sec: //p' | sort -n) || true
	if [ -z "$v" ]; then
		echo "== noise floor: no local placement in this run (PLACEMENTS=\"$PLACEMENTS\"): unknown"
		return
	fi
	echo "$v" | awk -v shape="$shape" '
		{ a[++n] = $1 }
		END {
			med = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			spread = 0
			if (med > 0)
				spread = 100 * (a[n] - a[1]) / med
			printf "== noise floor (%s):\n", shape
			printf "   the local placement, which parks nothing, gave %.2f-%.2f M ops/s over its %d runs\n",
				a[1] / 1e6, a[n] / 1e6, n
			printf "   (all modes), median %.2f M: a spread of %.0f%% of the median; ops/s differences\n",
				med / 1e6, spread
			printf "   smaller than that mean nothing here\n"
		}'
}
noise_floor | out

# what compare.sh ran: the placements, or with a sweep <placement>-sc<C>
groupdirs=$PLACEMENTS
[ -z "$SWEEP" ] || groupdirs=$(find "$runsdir" -mindepth 1 -maxdepth 1 -type d -printf "%f\n" | sort -t- -k1,1 -k2.3,2n)
for p in $groupdirs; do
	groups=() labels=()
	for kv in $SP_PARK_MODES; do
		m=${kv%%=*}
		[ -d "$runsdir/$p/park$m" ] || continue
		[ ${#groups[@]} -eq 0 ] || groups+=(--)
		groups+=("$runsdir/$p/park$m"/*.json)
		labels+=("${kv#*=}")
	done
	labels_csv=$(IFS=,; echo "${labels[*]}")
	if [ "$have_python" = 0 ]; then
		{
			echo
			echo "== placement: $p ($RUNS runs each of ${DURATION_MS} ms; $shape)"
			[ "$labels_csv" = base ] &&
				echo "   (this kernel has no parking switch: base numbers only)"
			slabstat compare --labels "$labels_csv" "${groups[@]}"
		} | out
	fi
	slabstat compare --csv --labels "$labels_csv" "${groups[@]}" >"$results/$p.csv"
	slabstat compare --json --labels "$labels_csv" "${groups[@]}" >"$results/$p.json"
done

tools/report/summarize-runs.sh "$runsdir" "$results" | out
[ "$MEASURE" = 0 ] || tools/report/summarize-measure.sh "$runsdir" | out
[ -z "$SWEEP" ] || tools/report/summarize-sweep.sh "$results" | out
if [ "$LOCKSTAT" = 1 ]; then
	tools/report/summarize-lockstat.sh "$data/lockstat" | out
fi
rm -f "$results/parking.png"
if command -v gnuplot >/dev/null 2>&1; then
	# the title: where it ran, the host's CPU model on HOST=1
	title=$where
	case "$where" in
	host,*)
		cpu=$(sed -n 's/^cpu_model=//p' "$data/topology" 2>/dev/null | head -n 1)
		title="${cpu:-host}, $shape"
		;;
	esac
	tools/report/plot-runs.sh "$results" "$title" && echo "plot: $results/parking.png" | out
fi
if [ -f "$data/topology" ]; then
	# the facts of guest-lib.sh's topo_write, long lists folded
	{ echo; echo "== topology ($data/topology)"; fold -s -w 100 "$data/topology"; } | out
fi
# the directory of RESULTS_DIR that holds the raw data
datatop=${data#"$results"/}
datatop=${datatop%%/*}
written="report.txt"
[ "$have_python" = 0 ] || written="summary.txt $written"
written="$written *.csv *.json"
[ ! -f "$results/parking.png" ] || written="$written parking.png"
echo | out
# relative to the checkout where it is in it (results/<date>-<time>)
echo "results: ${results#"$SLABPARK_TOP"/}: $written $datatop/" | out
