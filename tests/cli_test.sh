#!/usr/bin/env bash
# The CLI as a user meets it: help, exit codes, --out safety, byte-identical reruns, compare.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

check version 0 "$GPUSIM" --version
contains version-text "$TMP/out" "gpusim 0.1.0"
check help 0 "$GPUSIM" --help
contains help-text "$TMP/out" "compare"
check policies 0 "$GPUSIM" policies
contains policies-text "$TMP/out" "best-fit"
check no-command 2 "$GPUSIM"
check bad-flag 2 "$GPUSIM" run --frobnicate "$ROOT/scenarios/quickstart.yaml"
check trace-without-out 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --trace

check run 0 "$GPUSIM" run "$ROOT/scenarios/underutilized-a100.yaml"
contains run-cost "$TMP/out" "71,481.60"
check validate 0 "$GPUSIM" validate "$ROOT/scenarios/philly.yaml" --data "$ROOT/data"

printf 'name: x\ncluster: {pools: [{name: p, node: nope, count: 1}]}\nworkload: {jobs: []}\n' > "$TMP/bad.yaml"
check bad-scenario 2 "$GPUSIM" run "$TMP/bad.yaml"
contains bad-scenario-message "$TMP/err" "bad.yaml:line 2: cluster.pools[0].node: unknown node template 'nope'"
check bad-policy 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --policy lifo+first-fit
contains bad-policy-message "$TMP/err" "--policy: unknown queue order 'lifo'"
check missing-file 2 "$GPUSIM" run "$TMP/none.yaml"

# --out: written once, refused the second time (files untouched), allowed with --force.
check out-first 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/run1"
for f in summary.json jobs.csv timeseries.csv pool_timeseries.csv gpus.csv cost.csv low_utilization.csv scenario.yaml; do [ -s "$TMP/run1/$f" ] || { echo "FAIL missing $f"; fail=1; }; done
echo "user notes" > "$TMP/run1/summary.json"
check out-refused 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/run1"
contains out-untouched "$TMP/run1/summary.json" "user notes"
check out-force 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/run1" --force

# The run directory is written into a temporary directory beside it and renamed into place.
ls -a "$TMP" | grep -q '\.tmp-\|\.old-' && { echo "FAIL a temporary directory remains"; ls -a "$TMP"; fail=1; } || echo "ok   no temporary directory remains"
# --force replaces the directory: a symlinked summary.json is replaced by the file, its target untouched.
echo "not gpusim's" > "$TMP/target.txt"
rm "$TMP/run1/summary.json" && ln -s "$TMP/target.txt" "$TMP/run1/summary.json"
check out-force-symlink 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/run1" --force
[ "$(cat "$TMP/target.txt")" = "not gpusim's" ] && echo "ok   symlink target untouched" || { echo "FAIL symlink target written"; fail=1; }
[ -f "$TMP/run1/summary.json" ] && [ ! -L "$TMP/run1/summary.json" ] && echo "ok   summary.json a file again" || { echo "FAIL summary.json still a link"; fail=1; }
# --force replaces only a run directory: one holding anything else is refused, untouched.
mkdir "$TMP/mine" && echo keep > "$TMP/mine/notes.txt"
check out-force-foreign 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/mine" --force
contains out-force-foreign-text "$TMP/err" "'$TMP/mine' holds 'notes.txt', which is not a gpusim output"
contains out-force-foreign-untouched "$TMP/mine/notes.txt" "keep"
# --out naming a file, or a symlink (never written through), is refused.
echo "a file" > "$TMP/afile"
check out-file 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/afile"
contains out-file-text "$TMP/err" "error: --out: '$TMP/afile' is a file, expected a directory"
contains out-file-untouched "$TMP/afile" "a file"
ln -s "$TMP/run1" "$TMP/runlink"
check out-symlink 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/runlink" --force
contains out-symlink-text "$TMP/err" "is a symbolic link (to '$TMP/run1'); give the directory itself"
# A run that fails while writing leaves no directory behind. The write fails on a file-size limit
# (with SIGXFSZ ignored, write(2) returns EFBIG), which works as root too.
( trap '' XFSZ; ulimit -f 1; "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/failed" ) >"$TMP/out" 2>"$TMP/err"
[ $? -eq 1 ] && echo "ok   out-failed-write" || { echo "FAIL out-failed-write"; cat "$TMP/err"; fail=1; }
contains out-failed-write-text "$TMP/err" "cannot write file"
# A name that is not UTF-8 is refused at load, before anything is written.
check out-not-utf8 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --set "name=$(printf 'q\377')" --out "$TMP/failed"
contains out-not-utf8-text "$TMP/err" "byte 0xFF is not UTF-8 text"
[ ! -e "$TMP/failed" ] && echo "ok   failed run leaves no directory" || { echo "FAIL failed run left"; ls -la "$TMP/failed"; fail=1; }
ls -a "$TMP" | grep -q '\.tmp-' && { echo "FAIL failed run left a temporary directory"; ls -a "$TMP"; fail=1; } || echo "ok   failed run leaves no temporary directory"
# Two runs into one new directory: exactly one succeeds, the directory holds its complete run.
"$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/race" >/dev/null 2>"$TMP/race1.err" & p1=$!
"$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/race" >/dev/null 2>"$TMP/race2.err" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
if [ $((r1 == 0)) -ne $((r2 == 0)) ] && [ $((r1 + r2)) -eq 2 ]; then echo "ok   concurrent runs: exactly one succeeds"; else echo "FAIL concurrent runs exit $r1 and $r2"; cat "$TMP"/race?.err; fail=1; fi
cat "$TMP"/race?.err | grep -q "error: .*--out: .*" && echo "ok   concurrent runs: the loser says why" || { echo "FAIL concurrent message"; cat "$TMP"/race?.err; fail=1; }
diff -r "$TMP/race" "$TMP/run1" >/dev/null && echo "ok   concurrent runs: one complete run" || { echo "FAIL concurrent run directory"; ls -la "$TMP/race"; fail=1; }

# Same scenario and seed: byte-identical files.
check out-second 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --out "$TMP/run2"
for f in summary.json jobs.csv timeseries.csv pool_timeseries.csv gpus.csv cost.csv low_utilization.csv scenario.yaml; do
  cmp -s "$TMP/run1/$f" "$TMP/run2/$f" && echo "ok   identical $f" || { echo "FAIL $f differs between runs"; fail=1; }
done

check json 0 "$GPUSIM" run "$ROOT/scenarios/underutilized-a100.yaml" --json
contains json-cost "$TMP/out" '"cost_usd": 71481.6'
check compare 0 "$GPUSIM" compare "$ROOT/scenarios/quickstart.yaml" --policies fifo+first-fit,fifo+best-fit,sjf+spread
contains compare-table "$TMP/out" "sjf+spread"
contains compare-best "$TMP/out" "* best value of the row"
check set 0 "$GPUSIM" run "$ROOT/scenarios/underutilized-a100.yaml" --set cluster.pools[0].count=9 --json
contains set-effect "$TMP/out" '"jobs_pending_at_end": 0'

# gpusim mig: profile table, layouts, and a mig-parted file with one config that does not fit.
check mig-table 0 "$GPUSIM" mig A100-80GB-SXM
contains mig-profile "$TMP/out" "1g.10gb"
check mig-layouts 0 "$GPUSIM" mig A100-80GB-SXM --layouts --json
contains mig-count "$TMP/out" '"layouts": 127'
cat > "$TMP/mig.yaml" <<'YAML'
version: v1
mig-configs:
  balanced:
    - {devices: all, mig-enabled: true, mig-devices: {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 2}}
  bad:
    - {devices: all, mig-enabled: true, mig-devices: {"4g.40gb": 2}}
YAML
check mig-validate 2 "$GPUSIM" mig validate "$TMP/mig.yaml" --node dgx-a100-80gb
contains mig-reason "$TMP/out" "2 x 4g.40gb needs 8 memory slices at starts {0,4}; 4g.40gb starts are {0}, so at most 1 fits"
check mig-unknown 2 "$GPUSIM" mig T4
check variants 0 "$GPUSIM" compare "$ROOT/scenarios/t4-timeslice-oom.yaml"
contains variants-table "$TMP/out" "replicas-4-limits"

# gpusim topo: nvidia-smi's codes and legend, bandwidths, the network; unknown templates exit 2.
check topo-dgx 0 "$GPUSIM" topo dgx-a100-80gb
contains topo-nv12 "$TMP/out" "GPU0	 X 	NV12"
contains topo-legend "$TMP/out" "NV#  = Connection traversing a bonded set of # NVLinks"
contains topo-network "$TMP/out" "8 x 200 Gb/s NICs"
check topo-pcie 0 "$GPUSIM" topo a100-80gb-pcie-8x
contains topo-codes "$TMP/out" "GPU0	 X 	PXB	NODE	NODE	SYS"
check topo-unknown 2 "$GPUSIM" topo dgx-z900
contains topo-unknown-text "$TMP/err" "unknown node template 'dgx-z900'; known: dgx-a100-40gb"

# Spot, checkpoints, autoscaling and cost (issue 5): the compare table, the cost files, reruns.
check spot-compare 0 "$GPUSIM" compare "$ROOT/scenarios/spot-training.yaml"
contains spot-compare-rows "$TMP/out" "GPU-hours lost to rollback"
contains spot-compare-sweep "$TMP/out" "spot 1000/mo"
check spot-trace-a 0 "$GPUSIM" run "$ROOT/scenarios/spot-trace.yaml" --out "$TMP/st1"
check spot-trace-b 0 "$GPUSIM" run "$ROOT/scenarios/spot-trace.yaml" --out "$TMP/st2"
for f in summary.json jobs.csv timeseries.csv pool_timeseries.csv cost.csv low_utilization.csv; do
  cmp -s "$TMP/st1/$f" "$TMP/st2/$f" && echo "ok   identical spot-trace $f" || { echo "FAIL spot-trace $f differs between runs"; fail=1; }
done
contains cost-csv-header "$TMP/st1/cost.csv" "scope,name,market,cost_usd,allocated_cost_usd,busy_cost_usd,idle_cost_usd"
contains cost-csv-market "$TMP/st1/cost.csv" "market,spot,spot,"
contains cost-csv-kind "$TMP/st1/cost.csv" "kind,training,,"
check autoscale 0 "$GPUSIM" run "$ROOT/scenarios/autoscale.yaml" --out "$TMP/as"
contains low-util-window "$TMP/as/low_utilization.csv" "a100,11110,43200,32090,"
check bad-bucket 2 "$GPUSIM" run "$ROOT/scenarios/spot-training.yaml" --set cluster.pools.0.market=spot --set "cluster.pools.0.spot={aws_frequency: 30%}"
contains bad-bucket-text "$TMP/err" "spot.aws_frequency: unknown AWS interruption-frequency bucket '30%'"

# check: a baseline recorded under one policy; a worse policy, a perturbed number, bad input.
printf 'version: 1\ntolerances:\n  jct_s.mean: {worse: higher, rel: 0.01}\n  allocation_ratio: {worse: lower, abs: 0.002}\nruns:\n  - scenario: %s\n    policy: fifo+first-fit\n' \
  "$ROOT/scenarios/quickstart.yaml" > "$TMP/baseline.yaml"
check check-record 0 "$GPUSIM" check "$TMP/baseline.yaml" --update
contains check-recorded "$TMP/baseline.yaml" "jct_s.mean: 25839.558"
check check-same 0 "$GPUSIM" check "$TMP/baseline.yaml" --junit "$TMP/ok.xml" --markdown "$TMP/ok.md"
contains check-same-text "$TMP/out" "1 run, 2 metrics: 2 unchanged, 0 within tolerance, 0 better, 0 worse"
contains check-junit-ok "$TMP/ok.xml" '<testcase classname="gpusim.check" name="quickstart fifo+first-fit"'
contains check-markdown-ok "$TMP/ok.md" "## gpusim check: no regression"
sed 's/fifo+first-fit/fifo+spread/' "$TMP/baseline.yaml" > "$TMP/worse.yaml"
check check-worse-policy 1 "$GPUSIM" check "$TMP/worse.yaml" --junit "$TMP/worse.xml" --markdown "$TMP/worse.md"
contains check-worse-row "$TMP/out" "jct_s.mean"
contains check-worse-verdict "$TMP/out" "+93.38%)  worse higher, ±1%        WORSE"
contains check-worse-total "$TMP/out" "1 better, 1 worse -- REGRESSION"
contains check-worse-junit "$TMP/worse.xml" '<failure message="1 metric(s) regressed" type="regression">jct_s.mean: baseline 25839.6, now 49967.3, change +24127.8 (+93.38%)'
contains check-worse-markdown "$TMP/worse.md" "| quickstart fifo+spread | \`jct_s.mean\` | 25839.6 | 49967.3 |"
sed 's/jct_s.mean: 25839.558/jct_s.mean: 24000/' "$TMP/baseline.yaml" > "$TMP/perturbed.yaml"
check check-perturbed-number 1 "$GPUSIM" check "$TMP/perturbed.yaml"
contains check-perturbed-text "$TMP/out" "WORSE"
check check-no-overwrite 2 "$GPUSIM" check "$TMP/baseline.yaml" --junit "$TMP/ok.xml"
contains check-no-overwrite-text "$TMP/err" "ok.xml: --junit: file exists; pass --force to overwrite it"
# Single output files: a symlink is refused without --force and replaced (not written through) with it.
echo "linked" > "$TMP/linked.txt" && ln -s "$TMP/linked.txt" "$TMP/junit-link.xml"
check check-junit-symlink 2 "$GPUSIM" check "$TMP/baseline.yaml" --junit "$TMP/junit-link.xml"
contains check-junit-symlink-text "$TMP/err" "junit-link.xml: --junit: is a symbolic link; pass --force"
check check-junit-symlink-force 0 "$GPUSIM" check "$TMP/baseline.yaml" --junit "$TMP/junit-link.xml" --force
contains check-junit-symlink-target "$TMP/linked.txt" "linked"
[ ! -L "$TMP/junit-link.xml" ] && contains check-junit-replaced "$TMP/junit-link.xml" "<testsuite" || { echo "FAIL junit link kept"; fail=1; }
ln -s "$TMP/linked.txt" "$TMP/md-link.md"
check check-markdown-symlink 2 "$GPUSIM" check "$TMP/baseline.yaml" --markdown "$TMP/md-link.md"
printf 'version: 1\nruns:\n  - scenario: %s\n    metrics: {cost_usd: 1}\n' "$ROOT/scenarios/quickstart.yaml" > "$TMP/notol.yaml"
check check-no-tolerance 2 "$GPUSIM" check "$TMP/notol.yaml"
contains check-no-tolerance-text "$TMP/err" "no tolerance for 'cost_usd'"
printf 'version: 1\nruns:\n  - scenario: %s\n    variant: nope\n' "$ROOT/scenarios/sharing-strategies.yaml" > "$TMP/novariant.yaml"
check check-no-variant 2 "$GPUSIM" check "$TMP/novariant.yaml"
contains check-no-variant-text "$TMP/err" "has no variant 'nope'; its variants: whole-gpus, mig, time-slicing, mps"

# Issue 19, strict documents: a metric listed twice, a metric no summary has (bad input, not a regression).
printf 'version: 1\ntolerances:\n  jct_s.mean: {worse: higher, rel: 0.01}\nruns:\n  - scenario: %s\n    metrics:\n      jct_s.mean: 1\n      jct_s.mean: 2\n' \
  "$ROOT/scenarios/quickstart.yaml" > "$TMP/twice.yaml"
check check-metric-twice 2 "$GPUSIM" check "$TMP/twice.yaml"
contains check-metric-twice-text "$TMP/err" "twice.yaml:line 8: runs[0].metrics.jct_s.mean: the key 'jct_s.mean' is given twice (first at line 7): give it once"
printf 'version: 1\ntolerances:\n  jct_s.maen: {worse: higher, rel: 0.01}\nruns:\n  - scenario: %s\n    metrics:\n      jct_s.maen: 1\n' \
  "$ROOT/scenarios/quickstart.yaml" > "$TMP/typo.yaml"
check check-unknown-metric 2 "$GPUSIM" check "$TMP/typo.yaml"
contains check-unknown-metric-text "$TMP/err" "typo.yaml:line 7: runs[0].metrics.jct_s.maen: the run's summary has no metric 'jct_s.maen'"
# Input that used to reach the user as "internal error" (exit 1).
{ printf '? [a, b]\n: 1\n'; cat "$ROOT/scenarios/quickstart.yaml"; } > "$TMP/listkey.yaml"
check list-key 2 "$GPUSIM" run "$TMP/listkey.yaml"
contains list-key-text "$TMP/err" "listkey.yaml:line 1: expected a name as the key, got a list"
check set-through-scalar 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --set name.sub=1
contains set-through-scalar-text "$TMP/err" "error: --set: name.sub=1: cannot set 'sub': 'name' is the value 'quickstart', not a map"
check scenario-directory 2 "$GPUSIM" run "$TMP"
contains scenario-directory-text "$TMP/err" "is a directory: expected a file"
# No seed: the run says which it used.
grep -v '^seed:' "$ROOT/scenarios/quickstart.yaml" > "$TMP/noseed.yaml"
check no-seed 0 "$GPUSIM" run "$TMP/noseed.yaml"
contains no-seed-header "$TMP/out" "| seed 0 (the default: the scenario has no seed) |"
check seeded 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml"
if grep -qF "the default" "$TMP/out"; then echo "FAIL seeded-header: names a default seed"; fail=1; else echo "ok   seeded-header"; fi

# sweep: every combination, the same rows whatever the number of workers.
check sweep-1 0 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid 'cluster.pools[0].count=1,2' --grid seed=1,2 \
  --policies fifo+best-fit,fifo+first-fit --jobs 1 --out "$TMP/sweep1.csv"
check sweep-2 0 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid 'cluster.pools[0].count=1,2' --grid seed=1,2 \
  --policies fifo+best-fit,fifo+first-fit --jobs 2 --out "$TMP/sweep2.csv"
cmp -s "$TMP/sweep1.csv" "$TMP/sweep2.csv" && echo "ok   sweep rows identical with 1 and 2 workers" || { echo "FAIL sweep rows differ"; fail=1; }
[ "$(wc -l < "$TMP/sweep1.csv")" -eq 9 ] && echo "ok   sweep has 8 rows" || { echo "FAIL sweep rows"; cat "$TMP/sweep1.csv"; fail=1; }
contains sweep-header "$TMP/sweep1.csv" "cluster.pools[0].count,seed,policy,horizon_s,"
contains sweep-row "$TMP/sweep1.csv" "2,2,fifo+first-fit,604800,"
check sweep-no-overwrite 2 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid seed=1 --out "$TMP/sweep1.csv"
ln -s "$TMP/linked.txt" "$TMP/sweep-link.csv"
check sweep-symlink 2 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid seed=1 --out "$TMP/sweep-link.csv"
check sweep-symlink-force 0 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid seed=1 --out "$TMP/sweep-link.csv" --force
contains sweep-symlink-target "$TMP/linked.txt" "linked"
[ ! -L "$TMP/sweep-link.csv" ] && contains sweep-symlink-replaced "$TMP/sweep-link.csv" "seed,policy" || { echo "FAIL sweep link kept"; fail=1; }
check sweep-out-dir 2 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid seed=1 --out "$TMP" --force
contains sweep-out-dir-text "$TMP/err" "--out: is a directory, expected a file"
ln -s "$TMP/linked.txt" "$TMP/csv-link.csv"
check packing-csv-symlink 2 "$GPUSIM" packing "$ROOT/scenarios/fgd-openb.yaml" --data "$ROOT/data" --csv "$TMP/csv-link.csv"
contains packing-csv-symlink-text "$TMP/err" "csv-link.csv: --csv: is a symbolic link"
check sweep-bad-grid 2 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid seed
contains sweep-bad-grid-text "$TMP/err" "error: --grid: seed: expected PATH=V1,V2,..."
check sweep-bad-value 2 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid seed=1,x
contains sweep-bad-value-text "$TMP/err" "seed"

# packing: the FGD paper's experiment, its table and curves; bad seeds and a scenario without packing.
check packing 0 "$GPUSIM" packing "$ROOT/scenarios/fgd-openb.yaml" --data "$ROOT/data" --policies fifo+fgd,fifo+best-fit --seeds 42 \
  --csv "$TMP/curves.csv"
contains packing-table "$TMP/out" "fifo+fgd"
contains packing-header "$TMP/out" "alloc@100% alloc@130%   frag@50%"
contains packing-csv "$TMP/curves.csv" "fifo+fgd,42,130,"
[ "$(grep -c '^fifo+best-fit,42,' "$TMP/curves.csv")" -eq 131 ] && echo "ok   packing curve has 131 checkpoints" || { echo "FAIL packing curve"; fail=1; }
check packing-bad-seeds 2 "$GPUSIM" packing "$ROOT/scenarios/fgd-openb.yaml" --seeds 51-42
contains packing-bad-seeds-text "$TMP/err" "--seeds: 51-42: expected FIRST <= LAST"
check packing-not-packing 2 "$GPUSIM" packing "$ROOT/scenarios/quickstart.yaml" --seeds 1
contains packing-not-packing-text "$TMP/err" "expected a packing workload"

# Issue 20: --seeds (mean ± 95% CI), --by breakdowns, progress only on a terminal, friendlier errors.
check unknown-subcommand 2 "$GPUSIM" simulate x
contains unknown-subcommand-text "$TMP/err" "unknown subcommand 'simulate'; valid subcommands: run, compare, check"
check mistyped-flag 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --varient mps
contains mistyped-flag-text "$TMP/err" "error: The following arguments were not expected: mps --varient (gpusim run --help lists what it takes)"
check by-with-json 2 "$GPUSIM" run "$ROOT/scenarios/underutilized-a100.yaml" --json --by pool
contains by-with-json-text "$TMP/err" "--json excludes --by"
check jobs-negative 2 "$GPUSIM" compare "$ROOT/scenarios/quickstart.yaml" --policies fifo+best-fit --jobs -1
contains jobs-negative-text "$TMP/err" "expected 0 (one worker per core) or a number of workers from 1 to 2147483647, got -1"
if grep -qE '[0-9]{30}' "$TMP/err"; then echo "FAIL jobs-negative: a huge number in the message"; cat "$TMP/err"; fail=1; else echo "ok   jobs-negative-short"; fi
check run-seeds 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --seeds 1-3 --jobs 1
contains run-seeds-header "$TMP/out" "seeds 1-3 (3 runs each)"
contains run-seeds-pm "$TMP/out" " ± "
contains run-seeds-note "$TMP/out" "Student t, n-1 degrees of"
cp "$TMP/out" "$TMP/seeds-j1.txt"
check run-seeds-j2 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --seeds 1,2,3 --jobs 2
cmp -s "$TMP/out" "$TMP/seeds-j1.txt" && echo "ok   run --seeds same with 1 and 2 workers" || { echo "FAIL run --seeds differs with workers"; fail=1; }
check run-seeds-json 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --seeds 1-2,5 --json
contains run-seeds-json-seeds "$TMP/out" '"seeds": ['
contains run-seeds-json-ci "$TMP/out" '"ci95": '
contains run-seeds-json-n "$TMP/out" '"n": 3'
contains run-seeds-json-values "$TMP/out" '"values": ['
check run-seeds-out 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --seeds 1-2 --out "$TMP/never"
check run-seeds-set 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --seeds 1-2 --set seed=4
contains run-seeds-set-text "$TMP/err" "the seed is also set by --set seed=4"
check run-seeds-bad 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --seeds 1-2,2
contains run-seeds-bad-text "$TMP/err" "seed 2 is given twice"
check compare-seeds 0 "$GPUSIM" compare "$ROOT/scenarios/quickstart.yaml" --policies fifo+best-fit,fifo+first-fit --seeds 1-3
contains compare-seeds-header "$TMP/out" "seeds 1-3 (3 runs each)"
contains compare-seeds-best "$TMP/out" "* best mean of the row"
# The lower mean queue delay is starred; allocation ratio has no direction, and equal printed means
# (cost: both policies run the same fleet) are a tie, so neither row has a star.
grep -qE '^  queue delay mean .*[0-9] min +[0-9.]+ ± [0-9.]+ min \*$' "$TMP/out" && echo "ok   compare-seeds-star" \
  || { echo "FAIL compare-seeds-star"; cat "$TMP/out"; fail=1; }
if grep -E '^  (allocation ratio|cost \(USD\)) .*\*' "$TMP/out"; then echo "FAIL compare-seeds-no-star"; fail=1; else echo "ok   compare-seeds-no-star"; fi
contains compare-seeds-stderr "$TMP/err" "fifo+best-fit: "
# Not a terminal: no progress line on stderr (no carriage return, no ETA), only the timings.
if grep -q $'\r' "$TMP/err" || grep -q "ETA" "$TMP/err"; then echo "FAIL no-progress-off-terminal"; cat -A "$TMP/err"; fail=1; else echo "ok   no-progress-off-terminal"; fi
check run-quiet 0 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml"
[ "$(grep -c . "$TMP/err")" -eq 1 ] && contains run-quiet-text "$TMP/err" "simulated " || { echo "FAIL run-quiet: stderr"; cat -A "$TMP/err"; fail=1; }
check by-pool 0 "$GPUSIM" run "$ROOT/scenarios/autoscale.yaml" --by pool
contains by-pool-header "$TMP/out" "GPU-h capacity  GPU-h allocated  GPU-h busy  allocation  utilization"
check by-all 0 "$GPUSIM" run "$ROOT/scenarios/spot-training.yaml" --by tenant,kind --by model
contains by-tenant "$TMP/out" "  tenant "
contains by-kind "$TMP/out" "  job kind "
contains by-model "$TMP/out" "  GPU model "
check by-bad 2 "$GPUSIM" run "$ROOT/scenarios/quickstart.yaml" --by team
contains by-bad-text "$TMP/err" "unknown breakdown 'team'; expected pool, tenant, kind, model, queue, cohort or service"
check compare-by 0 "$GPUSIM" compare "$ROOT/scenarios/quickstart.yaml" --policies fifo+best-fit,fifo+spread --by pool
contains compare-by-label "$TMP/out" "fifo+spread:"
check sweep-seeds 0 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid 'cluster.pools[0].count=1,2' --seeds 1-2 --jobs 2
contains sweep-seeds-header "$TMP/out" "cluster.pools[0].count,policy,seeds,n,"
contains sweep-seeds-columns "$TMP/out" "cost_usd_mean,cost_usd_ci95"
contains sweep-seeds-row "$TMP/out" '2,fifo+best-fit,1-2,2,'
check sweep-seeds-grid 2 "$GPUSIM" sweep "$ROOT/scenarios/quickstart.yaml" --grid seed=1,2 --seeds 1-2

# A pool without a price is unpriced, not free (issue 39): "unpriced" in its cells, "+ unpriced" on the
# totals, unpriced_pools in summary.json, one warning on stderr; the catalog's PCIe and T4 templates are priced.
cat > "$TMP/unpriced.yaml" <<'YAML'
name: unpriced
catalog:
  nodes: [{name: mine, gpu: T4, gpus: 4, cpu_milli: 8000, memory_mib: 65536, source: "our own server"}]
cluster:
  pools: [{name: own, node: mine, count: 1}, {name: cloud, node: t4-8x, count: 1}, {name: pcie, node: a100-80gb-pcie-8x, count: 1}]
workload:
  reference_gpu: T4
  jobs: [{name: j, count: 12, gpus: 1, duration: 1h}]
YAML
check unpriced 0 "$GPUSIM" run "$TMP/unpriced.yaml" --json
/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["unpriced_pools"] == ["own"] and s["pools"][0]["cost_usd"] is None, s["unpriced_pools"]' "$TMP/out" \
  && ok unpriced-json || { echo "FAIL unpriced-json"; fail=1; }
check unpriced-table 0 "$GPUSIM" run "$TMP/unpriced.yaml" --by pool
matches unpriced-total "$TMP/out" '^  cost \(USD\) +37\.21 \+ unpriced$'
matches unpriced-pool-row "$TMP/out" '^  own +on-demand +4 +exclusive +unpriced '
matches unpriced-by-pool "$TMP/out" '^  own +4 +4\.0 .* unpriced +unpriced +unpriced +unpriced +[0-9.,]+$'
contains unpriced-note "$TMP/out" "Pool own is unpriced (node template mine has no price, nor does the scenario)"
[ "$(grep -c "warning: pool own is unpriced" "$TMP/err")" -eq 1 ] && ok unpriced-warning-once || { echo "FAIL unpriced-warning-once"; cat "$TMP/err"; fail=1; }
check unpriced-compare 0 "$GPUSIM" compare "$TMP/unpriced.yaml" --policies fifo+first-fit,fifo+spread
[ "$(grep -c "warning: pool own is unpriced" "$TMP/err")" -eq 1 ] && ok unpriced-compare-warning-once || { echo "FAIL unpriced-compare-warning-once"; cat "$TMP/err"; fail=1; }
# Two unpriced pools of one template: one note and one warning name both.
check unpriced-two 0 "$GPUSIM" run "$TMP/unpriced.yaml" --set 'cluster.pools[1]={name: own2, node: mine, count: 1}'
contains unpriced-two-note "$TMP/out" "Pools own, own2 are unpriced (node template mine has no price, nor does the scenario)"
[ "$(grep -c "warning:" "$TMP/err")" -eq 1 ] && grep -q "warning: pools own, own2 are unpriced" "$TMP/err" && ok unpriced-two-warning-once \
  || { echo "FAIL unpriced-two-warning-once"; cat "$TMP/err"; fail=1; }

# A bare number is seconds: an SLO of 200 (200 s) is allowed, and validate warns, showing milliseconds.
cat > "$TMP/slo.yaml" <<'YAML'
name: slo
cluster: {pools: [{name: p, node: dgx-a100-80gb, count: 1}]}
workload:
  services:
    - {name: chat, model: llama-3-8b, cold_start: none, slo: {ttft: 200, tpot: 50ms},
       requests: {generator: {rate: 1, duration: 1m, prompt_tokens: 100, output_tokens: 10}}}
YAML
check slo-validate 0 "$GPUSIM" validate "$TMP/slo.yaml"
contains slo-warning "$TMP/out" "warning: $TMP/slo.yaml:line 5: workload.services[0].slo.ttft: 200 s is a long latency target (a bare number is seconds); for milliseconds write ttft: 200ms"
lacks slo-ms-no-warning "$TMP/out" "slo.tpot"
lacks slo-no-cache-warning "$TMP/out" "enable_prefix_caching"
# Prefix caching switched on for requests that carry no content: validate says nothing can be reused.
check no-content-cache 0 "$GPUSIM" validate "$TMP/slo.yaml" --set 'workload.services[0].engine.enable_prefix_caching=true'
contains no-content-cache-warning "$TMP/out" "workload.services[0]: service 'chat': enable_prefix_caching is on, but its requests carry no content"

# Writing a scenario (issue 39): --variant on run and compare, --set PATH=null removes a block, --by
# service in run's help, and a hint when services' replicas leave a job no node.
check run-help-by 0 "$GPUSIM" run --help
contains run-help-by-service "$TMP/out" "pool, tenant, kind, model, queue, cohort, service"
check run-variant 0 "$GPUSIM" run "$ROOT/scenarios/inference-sharing.yaml" --variant mps
contains run-variant-header "$TMP/out" "| scenario inference-sharing | variant mps | policy"
contains run-variant-pool "$TMP/out" "mps x7 (nvidia.com/gpu)"
check run-variant-unknown 2 "$GPUSIM" run "$ROOT/scenarios/inference-sharing.yaml" --variant nope
contains run-variant-unknown-text "$TMP/err" "--variant: $ROOT/scenarios/inference-sharing.yaml has no variant 'nope'; its variants: mig, time-slicing, mps, whole-gpus"
check compare-variants 0 "$GPUSIM" compare "$ROOT/scenarios/inference-sharing.yaml" --variant mig --variant whole-gpus
matches compare-variants-columns "$TMP/out" '^  metric +mig +whole-gpus$'
check set-null 0 "$GPUSIM" run "$ROOT/scenarios/first-scenario.yaml" --set 'cluster.pools[1].sharing=null' --set horizon=1d
contains set-null-exclusive "$TMP/out" "  dev              on-demand      8                            exclusive"
check set-null-list 2 "$GPUSIM" run "$ROOT/scenarios/first-scenario.yaml" --set 'cluster.pools[0]=null'
contains set-null-list-text "$TMP/err" "null removes a key of a map; 'pools' is a list: give a value"
cat > "$TMP/block.yaml" <<'YAML'
name: block
cluster: {pools: [{name: a100, node: dgx-a100-80gb, count: 2}]}
workload:
  services:
    - {name: chat, count: 9, model: llama-3-8b, cold_start: none,
       requests: {generator: {rate: 1, duration: 10m, prompt_tokens: 100, output_tokens: 10}}}
  jobs:
    - {name: train, gpus: 8, kind: training, duration: 2h}
YAML
check block-validate 0 "$GPUSIM" validate "$TMP/block.yaml"
contains block-hint "$TMP/out" "workload.jobs[0]: job 'train' (8 GPUs) fits an empty cluster but no node its pools have once the replicas of chat-0, chat-1, chat-2 and 6 more services hold their GPUs"

exit $fail
