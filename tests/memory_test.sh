#!/usr/bin/env bash
# Bounded memory (issue 19): a scenario whose estimated footprint is over the memory limit is refused
# with exit 2 naming the field, before anything big is allocated: every command runs under a 1 GiB
# address-space limit, so a run that allocated first would die of std::bad_alloc (exit 1), not exit 2.
# Usage: memory_test.sh GPUSIM ROOT
. "$(dirname "$0")/cli_lib.sh"

small() { (ulimit -v 1048576 && exec "$@"); }

scenario() {  # scenario FILE CLUSTER WORKLOAD [MORE]: a scenario with these blocks
  printf 'name: m\nseed: 1\n%s\ncluster:\n%s\nworkload:\n%s\n' "${4:-}" "$2" "$3" >"$TMP/$1"
}
ONE_POOL='  pools: [{name: p, node: dgx-a100-80gb, count: 1}]'
ONE_JOB='  jobs: [{name: j, gpus: 1, duration: 1h}]'

refused() {  # refused NAME FILE FIELD [FLAGS...]: exit 2 under the small limit, naming FIELD and the limit
  local name="$1" file="$2" field="$3"
  shift 3
  check "$name: exit 2" 2 small "$GPUSIM" run "$TMP/$file" "$@"
  contains "$name: names the field" "$TMP/err" "$field"
  contains "$name: says how to raise the limit" "$TMP/err" "--max-memory"
}

scenario inline.yaml "$ONE_POOL" '  jobs: [{name: j, gpus: 1, duration: 1h, count: 1000000000}]'
refused "inline count 1e9" inline.yaml "workload.jobs[0].count"
contains "inline count 1e9: the estimate" "$TMP/err" "1000000000 jobs"

scenario generator.yaml "$ONE_POOL" '  generator: {classes: [{name: c, count: 1000000000000000, gpus: 1, duration: 1h}]}'
refused "generator count 1e15" generator.yaml "workload.generator.classes[0].count"

# A horizon past the clock's 100 years is refused by its field's range; one inside it, by the rows
# its time series would hold.
scenario horizon.yaml "$ONE_POOL" "$ONE_JOB" 'horizon: 100000000d'
check "horizon of 1e8 days" 2 "$GPUSIM" run "$TMP/horizon.yaml"
contains "horizon of 1e8 days: the range" "$TMP/err" "horizon: expected a duration"
scenario century.yaml "$ONE_POOL" "$ONE_JOB" $'horizon: 36500d\noutputs: {timeseries_step: 1s}'
refused "a century of 1-second rows" century.yaml "outputs.timeseries_step"
contains "a century of 1-second rows: the rows" "$TMP/err" "time-series rows"

scenario step.yaml "$ONE_POOL" "$ONE_JOB" $'horizon: 1d\noutputs: {timeseries_step: 1us}'
refused "timeseries_step 1us over a day" step.yaml "outputs.timeseries_step"

pools='  pools:'
for i in $(seq 0 63); do pools+=$'\n'"    - {name: p$i, node: dgx-a100-80gb, count: 1000000}"; done
scenario pools.yaml "$pools" "$ONE_JOB"
refused "64 pools of 1M nodes" pools.yaml "cluster.pools[0].count"
contains "64 pools of 1M nodes: the others are counted" "$TMP/err" "and 61 more"

# The limit: lowered and raised by --max-memory on every command that loads scenarios.
scenario thousand.yaml "$ONE_POOL" '  jobs: [{name: j, gpus: 1, duration: 1m, count: 1000}]'
refused "a lower --max-memory" thousand.yaml "workload.jobs[0].count" --max-memory 64KiB
contains "a lower --max-memory: the limit and where it comes from" "$TMP/err" "64.0 KiB (--max-memory 64KiB)"
check "the default limit runs it" 0 small "$GPUSIM" run "$TMP/thousand.yaml"
check "the default limit: the inline count 1e9 refused by validate" 2 small "$GPUSIM" validate "$TMP/inline.yaml"
contains "the default limit is half of physical memory" "$TMP/err" "half of this machine's"
for cmd in compare sweep; do
  extra=()
  [ "$cmd" = compare ] && extra=(--policies fifo+first-fit)
  [ "$cmd" = sweep ] && extra=(--grid seed=1,2)
  check "$cmd --max-memory" 2 small "$GPUSIM" "$cmd" "$TMP/thousand.yaml" "${extra[@]}" --max-memory 64KiB
  contains "$cmd --max-memory: names the field" "$TMP/err" "workload.jobs[0].count"
done
printf 'version: 1\ntolerances: {jobs_completed: {worse: lower}}\nruns:\n  - scenario: %s\n    policy: fifo+first-fit\n    metrics: {jobs_completed: 1000}\n' "$TMP/thousand.yaml" >"$TMP/baseline.yaml"
check "check --max-memory" 2 small "$GPUSIM" check "$TMP/baseline.yaml" --max-memory 64KiB
contains "check --max-memory: names the field" "$TMP/err" "workload.jobs[0].count"
for value in lots 0 -1GiB 4XB 1e300GiB; do
  check "--max-memory $value refused" 2 "$GPUSIM" run "$TMP/thousand.yaml" --max-memory "$value"
  contains "--max-memory $value: names the flag" "$TMP/err" "--max-memory"
done

# An autoscaled pool builds a node when it provisions it: a maximum of a million 8-GPU nodes (2.6 GiB
# if all were provisioned, the estimate's worst case, which --max-memory lets through) runs one job
# inside the 1 GiB limit, with the one node it had (it reserved every slot up front, 2.4 GB, before).
scenario autoscaled.yaml '  pools: [{name: p, node: dgx-a100-80gb, count: 1, autoscale: {min: 1, max: 1000000}}]' "$ONE_JOB"
check "autoscale max 1e6 runs in 1 GiB" 0 small "$GPUSIM" run "$TMP/autoscaled.yaml" --max-memory 4GiB --out "$TMP/autoscaled"
check "autoscale max 1e6: gpus.csv lists the built node's GPUs" 0 test "$(wc -l <"$TMP/autoscaled/gpus.csv")" -eq 9

# Nested aliases ("billion laughs"): refused when the document is read, before any reader walks it.
{
  printf 'name: laughs\nlol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n'
  for i in $(seq 1 12); do printf 'lol%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n' $i $i $((i - 1)) \
    $((i - 1)) $((i - 1)) $((i - 1)) $((i - 1)) $((i - 1)) $((i - 1)) $((i - 1)) $((i - 1)) $((i - 1)); done
} >"$TMP/laughs.yaml"
check "billion laughs: exit 2" 2 small "$GPUSIM" run "$TMP/laughs.yaml"
contains "billion laughs: says why" "$TMP/err" "aliases (*name) repeat this block"

exit $fail
