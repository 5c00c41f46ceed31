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
contains compare-report-title "$TMP/cmp.html" "<h1>gpusim compare: spot-trace</h1>"

# The report speaks services (issue 39): per-service figures, SLO attainment where set, the requests that did
# not complete with their reason, latency curves from the requests kept for it; MIG titles that fit.
SV="$ROOT/scenarios/inference-sharing.yaml"
check services-report 0 "$GPUSIM" run "$SV" --data "$ROOT/data" --variant mig --report "$TMP/svc.html"
contains services-report-section "$TMP/svc.html" "<h2>Inference services</h2>"
contains services-report-ttft "$TMP/svc.html" "Time to first token of completed requests (CDF)"
contains services-report-row "$TMP/svc.html" "<tr><td>llama-3.2-3b</td><td>llama-3.2-3b</td><td>1</td><td>173</td><td>173</td><td>0</td><td>0</td><td>0</td>"
contains services-report-slo "$TMP/svc.html" "<td>91.3 %</td>"
contains services-report-mig-title "$TMP/svc.html" '>1 GPU A100-80GB-SXM: 7 x 1g.10gb</text>'
check services-report-no-slo 0 "$GPUSIM" run "$SV" --data "$ROOT/data" --variant mig --set 'workload.services[*].slo=null' --report "$TMP/noslo.html"
lacks services-report-no-attainment "$TMP/noslo.html" "<td>100.0 %</td><td>0.07</td>"
contains services-report-dash "$TMP/noslo.html" "<td>-</td><td>0.07</td>"
check services-compare-report 0 "$GPUSIM" compare "$SV" --data "$ROOT/data" --variant mig,mps --report "$TMP/svc-cmp.html"
contains services-compare-title "$TMP/svc-cmp.html" "<h1>gpusim compare: inference-sharing</h1>"
contains services-compare-cdf "$TMP/svc-cmp.html" "End-to-end latency of completed requests (CDF)"
# A legend entry longer than the legend's column widens its chart instead of running off it.
check services-compare-legend 0 "$GPUSIM" compare "$SV" --data "$ROOT/data" --variant mig,time-slicing --report "$TMP/svc-ts.html"
contains services-compare-legend-width "$TMP/svc-ts.html" '<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="734" height="260"'
# A run with no completed request is named under the latency plots, not left out of them unsaid.
check services-compare-none 0 "$GPUSIM" compare "$SV" --data "$ROOT/data" --variant mig,time-slicing \
  --set 'workload.services[*].engine.gpu_memory_utilization=0.9' --report "$TMP/svc-none.html"
contains services-compare-none-named "$TMP/svc-none.html" "Time to first token of completed requests (CDF): none in time-slicing."
exit $fail
