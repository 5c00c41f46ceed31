# gpusim report / run --report / compare --report as a user meets them: one renderer whatever the
# source of the files, bad input named with exit 2, nothing overwritten without --force.
# Usage: report_cli_test.sh GPUSIM ROOT
source "$(dirname "$0")/cli_lib.sh"
S="$ROOT/scenarios/first-scenario.yaml"

check run-report 0 "$GPUSIM" run "$S" --out "$TMP/run" --report "$TMP/a.html"
contains run-report-occupancy "$TMP/out" "occupancy.json"
check report-dir 0 "$GPUSIM" report "$TMP/run" --out "$TMP/b.html"
# The same texts on disk or in memory: the same page, byte for byte.
if cmp -s "$TMP/a.html" "$TMP/b.html"; then ok report-same-bytes; else echo "FAIL report-same-bytes"; fail=1; fi
check run-report-no-out 0 "$GPUSIM" run "$S" --report "$TMP/c.html"
if cmp -s "$TMP/a.html" "$TMP/c.html"; then ok report-no-out-same-bytes; else echo "FAIL report-no-out-same-bytes"; fail=1; fi
contains report-svg "$TMP/a.html" '<svg class="plot"'
lacks report-no-script "$TMP/a.html" "<script"
lacks report-no-network "$TMP/a.html" "https://"

check report-exists 2 "$GPUSIM" report "$TMP/run" --out "$TMP/b.html"
contains report-exists-text "$TMP/err" "--force"
check report-force 0 "$GPUSIM" report "$TMP/run" --out "$TMP/b.html" --force
check run-report-exists 2 "$GPUSIM" run "$S" --report "$TMP/a.html"
check report-missing-dir 2 "$GPUSIM" report "$TMP/nothing" --out "$TMP/d.html"
contains report-missing-dir-text "$TMP/err" "$TMP/nothing"
mkdir "$TMP/empty"
check report-not-run-dir 2 "$GPUSIM" report "$TMP/empty" --out "$TMP/d.html"
contains report-not-run-dir-text "$TMP/err" "$TMP/empty/summary.json"
cp -r "$TMP/run" "$TMP/broken"
printf 'time_s,pool,gpus_ready\n0,serving,x\n' >"$TMP/broken/pool_timeseries.csv"
check report-malformed 2 "$GPUSIM" report "$TMP/broken" --out "$TMP/d.html"
contains report-malformed-text "$TMP/err" "$TMP/broken/pool_timeseries.csv"
[ -e "$TMP/d.html" ] && { echo "FAIL report-nothing-written"; fail=1; } || ok report-nothing-written
check run-seeds-report 2 "$GPUSIM" run "$S" --seeds 1-2 --report "$TMP/e.html"

check compare-report 0 "$GPUSIM" compare "$ROOT/scenarios/spot-trace.yaml" --data "$ROOT/data" --report "$TMP/cmp.html"
contains compare-report-diff "$TMP/cmp.html" 'class="diff"'
check compare-report-exists 2 "$GPUSIM" compare "$ROOT/scenarios/spot-trace.yaml" --data "$ROOT/data" --report "$TMP/cmp.html"
exit $fail
