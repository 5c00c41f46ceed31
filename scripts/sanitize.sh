#!/usr/bin/env bash
# Part of scripts/test.sh (docs/design/testing.md): the clang build with ASan + UBSan
# (build-asan), its C++ tests through CTest (the GoogleTest binaries, the CLI tests and every shipped
# scenario run under --audit by golden_outputs), then each fuzz harness over its seed corpus and
# regressions, and FUZZ_SECONDS (default 20) of fuzzing each. Skipped, saying so, without clang 14.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if ! command -v clang++-14 >/dev/null; then
  echo "gpusim: clang++-14 not found: the sanitizer build and the fuzz harnesses are skipped (scripts/setup.sh installs clang-14)" >&2
  exit 0
fi
build_sanitized
# Any sanitizer report fails the test that provoked it (-fno-sanitize-recover=all exits on UBSan too).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
# readme_test runs the installed commands and Python, golden_outputs repeats the scenario loop below,
# and memory_test runs gpusim under a 1 GiB address-space limit, where ASan cannot map its shadow
# memory (bad_inputs_test holds the same cases without the limit); report_browser_test tests the
# page in a browser, and report_cli_test already runs the report's renderer here; instruction counts are
# the Release build's (valgrind cannot run an ASan binary); fidelity_quick compares figures, 8 of CI's
# minutes under ASan, and its runs are below (the scenarios, the packing experiment, Tiresias' variants):
# the GCC build runs all six.
ctest --test-dir "$SANITIZE_BUILD" --output-on-failure --parallel "$(nproc)" \
  -E '^(readme_test|golden_outputs|memory_test|report_browser_test|instruction_counts_test|fidelity_quick)$'
# Every shipped scenario (scenarios/*.yaml) under --audit, writing its outputs, and the FGD packing experiment.
runs="$(mktemp -d)"
find "$ROOT/scenarios" -maxdepth 1 -name '*.yaml' | sort | xargs -P "$(nproc)" -I{} sh -c \
  'out="$4/$(basename "$2" .yaml)"; "$1/bin/gpusim" run "$2" --data "$3" --audit --out "$out" >/dev/null 2>"$out.log" ||
     { cat "$out.log" >&2; echo "$2: gpusim run failed under the sanitizers" >&2; exit 255; }' \
  sh "$SANITIZE_BUILD" {} "$ROOT/data" "$runs"
"$SANITIZE_BUILD/bin/gpusim" packing "$ROOT/scenarios/fgd-openb.yaml" --seeds 42 --data "$ROOT/data" >/dev/null
# The Tiresias simulator's five schedules (fidelity_quick's, scripts/fidelity/tiresias.py).
"$SANITIZE_BUILD/bin/gpusim" compare "$ROOT/scenarios/tiresias-philly.yaml" --data "$ROOT/data" >/dev/null
for p in "{name: tiresias+first-fit, params: {tiresias_starvation: 2}}" tiresias-gittins+first-fit; do
  "$SANITIZE_BUILD/bin/gpusim" run "$ROOT/scenarios/tiresias-philly.yaml" --set "policy=$p" --data "$ROOT/data" --audit >/dev/null
done
# scenarios/k8s holds Kubernetes objects, not scenarios: the scenarios imported from them run too.
"$SANITIZE_BUILD/bin/gpusim" import k8s "$ROOT/scenarios/k8s/manifests" --out "$runs/k8s-manifests.yaml" 2>/dev/null
"$SANITIZE_BUILD/bin/gpusim" import k8s "$ROOT/scenarios/k8s/snapshot.json" "$ROOT/scenarios/k8s/manifests/configmaps.yaml" \
  --horizon 8h --out "$runs/k8s-snapshot.yaml" 2>/dev/null
for s in k8s-manifests k8s-snapshot; do "$SANITIZE_BUILD/bin/gpusim" run "$runs/$s.yaml" --audit --out "$runs/$s" >/dev/null; done
rm -rf "$runs"
echo "sanitizers: every shipped scenario runs clean"

for t in "${FUZZ_TARGETS[@]}"; do
  mapfile -t inputs < <(find "$ROOT/fuzz/corpus/$t" "$ROOT/fuzz/regressions/$t" -type f 2>/dev/null | sort)
  "$SANITIZE_BUILD/bin/$t" -timeout="$FUZZ_TIMEOUT_S" -rss_limit_mb="$FUZZ_RSS_MB" "${inputs[@]}" >"$SANITIZE_BUILD/$t.replay.log" 2>&1 ||
    { tail -n 60 "$SANITIZE_BUILD/$t.replay.log" >&2; echo "$t: an input of fuzz/corpus/$t or fuzz/regressions/$t failed" >&2; exit 1; }
  echo "$t: ${#inputs[@]} corpus and regression inputs pass"
done
for t in "${FUZZ_TARGETS[@]}"; do
  scratch="$(mktemp -d)"
  mkdir -p "$SANITIZE_BUILD/fuzz-artifacts"
  fuzz_target "$t" "${FUZZ_SECONDS:-20}" "$SANITIZE_BUILD/fuzz-artifacts/$t-" "$scratch"
  rm -rf "$scratch"
done
