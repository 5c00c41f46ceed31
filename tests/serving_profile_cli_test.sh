#!/usr/bin/env bash
# gpusim serving profile as a user meets it: the text and the JSON give the same iteration, the terms
# add up to it, and every bad flag fails with exit 2 naming the flag.
# Usage: serving_profile_cli_test.sh GPUSIM ROOT
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
T=$TMP
fail() { echo "FAIL: $*"; fail=1; }
# Exit 2 and an error containing $1 (the rest: the command).
expect_error() {
  local want=$1
  shift
  check "$*" 2 "$@"
  contains "$*" "$TMP/err" "$want"
}

P=("$GPUSIM" serving profile --model llama-3-8b --gpu H200)
for args in "--batch 64 --context 2048" "--prefill 2048 --share ts:3" "--batch 8 --context 512 --share mig:3g.71gb" \
  "--batch 1 --context 128 --share mps:2" "--batch 256 --context 1024 --tp 4"; do
  # shellcheck disable=SC2086
  "${P[@]}" $args >"$T/text" 2>"$T/err" || fail "$args: exited $?: $(cat "$T/err")"
  # shellcheck disable=SC2086
  "${P[@]}" $args --json >"$T/json" || fail "$args --json: exited $?"
  /usr/bin/python3 - "$T/json" "$T/text" "$args" <<'PY' || fail "$args: the JSON and the text disagree"
import json, re, sys
j = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read(); args = sys.argv[3]
t = j["terms_ms"]
total = t["overhead"] + max(t["compute"], t["memory"]) + t["attention"] + t["all_reduce"] + t["share"]
assert abs(total - j["iteration_ms"]) < 1e-9, (total, j["iteration_ms"])
shown = float(re.search(r"iteration\s+([\d.]+) ms", text).group(1))
assert abs(shown - j["iteration_ms"]) < 5e-4, (shown, j["iteration_ms"])
assert (t["share"] > 0) == ("ts:" in args), t["share"]      # only time-slicing waits
assert (t["all_reduce"] > 0) == ("--tp 4" in args), t["all_reduce"]
assert j["fits"] and j["kv_cache_tokens"] >= j["cached_tokens"], j
PY
done
# A model too large for its instance is flagged, not refused.
"${P[@]}" --batch 8 --context 512 --share mig:1g.18gb --json >"$T/json" 2>"$T/err" || fail "1g.18gb exited $?"
grep -q '"fits": false' "$T/json" || fail "1g.18gb: expected fits false"
grep -q "leave no room for a KV cache" "$T/err" || fail "1g.18gb: expected a warning"

expect_error "--model: unknown model 'nope'" "$GPUSIM" serving profile --model nope --gpu H200 --batch 1 --context 1
expect_error "--gpu: unknown GPU model 'nope'" "$GPUSIM" serving profile --model llama-3-8b --gpu nope --batch 1 --context 1
expect_error "kind fixed" "$GPUSIM" serving profile --model resnet-50 --gpu H200 --batch 1 --context 1
expect_error "give either --batch B --context C" "${P[@]}" --batch 1 --context 1 --prefill 10
expect_error "give either --batch B --context C" "${P[@]}"
expect_error "--context: a decode step needs both" "${P[@]}" --batch 4
expect_error "--batch: expected 1 to 1000000 sequences" "${P[@]}" --batch 0 --context 1
expect_error "--context: expected 0 to 100000000 cached tokens" "${P[@]}" --batch 1 --context 9223372036854775807
expect_error "--prefill: expected 1 to 100000000 prompt tokens" "${P[@]}" --prefill 100000001
expect_error "--share: expected mig:PROFILE, ts:N or mps:N" "${P[@]}" --prefill 10 --share vgpu:2
expect_error "--share: expected ts:N with N replicas from 1 to 32" "${P[@]}" --prefill 10 --share ts:33
expect_error "--share: expected mps:N with N replicas from 1 to 48" "${P[@]}" --prefill 10 --share mps:x
expect_error "has no MIG profile '9g.1gb'; its profiles: 1g.18gb" "${P[@]}" --prefill 10 --share mig:9g.1gb
expect_error "has no MIG" "$GPUSIM" serving profile --model llama-3-8b --gpu L40S --prefill 10 --share mig:1g.10gb
expect_error "--tp: no node template holds 16 GPUs" "${P[@]}" --prefill 10 --tp 16
expect_error "--node: unknown node template 'nope'" "${P[@]}" --prefill 10 --node nope
expect_error "--tp: expected a tensor-parallel degree of at least 1" "${P[@]}" --prefill 10 --tp 0
expect_error "--tp: a tensor-parallel replica needs whole GPUs; --share ts:2" "${P[@]}" --prefill 10 --tp 2 --share ts:2

[ "$fail" = 0 ] && echo "serving profile: every check passed"
exit $fail
