#!/usr/bin/env bash
# gpusim calibrate on the reference H200 files prints model.yaml's measured figures; a scenario that
# includes its output runs exactly as one without; bad input fails with exit 2 naming file and line.
# Usage: calibrate_cli_test.sh GPUSIM REPO
set -u
GPUSIM=$1
REPO=$2
H200=$REPO/data/measurements/h200-2026-11-28
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Exit 2 and an error containing $1 (the rest: the command).
expect_error() {
  local want=$1
  shift
  "$@" >/dev/null 2>"$T/err"
  local rc=$?
  [ "$rc" = 2 ] || fail "$* exited $rc, expected 2"
  grep -qF -- "$want" "$T/err" || fail "$*: expected '$want' in: $(cat "$T/err")"
}

cd "$REPO" || exit 1
"$GPUSIM" calibrate data/measurements/h200-2026-11-28 >"$T/calibration.yaml" || fail "calibrate exited $?"
# model.yaml's measured values (power in tenths of a watt: model.yaml rounds them to whole watts).
for want in "timeslice: 0.00205" "preempt_switch: 0.000227" "yield_switch: 0.000127" "context_memory_mib: 524" \
  "bandwidth_interference: 0.00" "gpus: \[H200-141GB\]" "tdp_w: 700" "idle_low_w: 76.6" "idle_high_w: 121.1" \
  "clock_hold: 5" "fp32_w: 464.3" "memory_w: 374.6" "capped_w: 690.5" "throttled_clock: 0.753" \
  "throttled_throughput: 0.810" "e_flops: 0.66" "e_bw: 0.61" "e_attn: 0.105"; do
  grep -qE "^[ -]*$want" "$T/calibration.yaml" || fail "calibrate's output lacks '$want'"
done

# The output is model: overrides a scenario includes; with model.yaml's own figures the run is unchanged.
(cat scenarios/sharing-strategies.yaml && printf 'model: {include: calibration.yaml}\n') >"$T/included.yaml"
"$GPUSIM" run "$T/included.yaml" >"$T/included.txt" 2>/dev/null || fail "run with the include exited $?"
"$GPUSIM" run scenarios/sharing-strategies.yaml >"$T/plain.txt" 2>/dev/null || fail "run without it exited $?"
diff -q "$T/included.txt" "$T/plain.txt" >/dev/null || fail "a scenario including the calibration runs differently"
# An included value is read (a bad one is refused, naming the included file and its line).
printf 'time_slicing:\n  timeslice: 0\n' >"$T/bad-cal.yaml"
(cat scenarios/sharing-strategies.yaml && printf 'model: {include: bad-cal.yaml}\n') >"$T/bad-include.yaml"
expect_error "bad-cal.yaml:line 2: time_slicing.timeslice" "$GPUSIM" validate "$T/bad-include.yaml"
(cat scenarios/sharing-strategies.yaml && printf 'model: {include: absent.yaml}\n') >"$T/no-include.yaml"
expect_error "absent.yaml" "$GPUSIM" validate "$T/no-include.yaml"

# Bad measurement directories.
expect_error "$T/none" "$GPUSIM" calibrate "$T/none"
mkdir "$T/partial" && cp "$H200"/* "$T/partial/" && rm "$T/partial/timeslice.jsonl"
expect_error "timeslice.jsonl" "$GPUSIM" calibrate "$T/partial"
mkdir "$T/malformed" && cp "$H200"/* "$T/malformed/"
sed -i '3s/.*/{"group": "ts-alu-full", "n": 2,/' "$T/malformed/sharing.jsonl"
expect_error "sharing.jsonl:line 3" "$GPUSIM" calibrate "$T/malformed"
mkdir "$T/nofield" && cp "$H200"/* "$T/nofield/"
sed -i '2s/"run_med_ms":[0-9.]*,//' "$T/nofield/timeslice.jsonl"
expect_error "timeslice.jsonl:line 2: run_med_ms" "$GPUSIM" calibrate "$T/nofield"

[ "$failures" = 0 ] && echo "calibrate_cli_test: all passed"
exit $((failures > 0))
