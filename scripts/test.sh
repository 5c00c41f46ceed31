#!/usr/bin/env bash
# README command 2: install dependencies, check the formatting of the changed lines, build, run every
# test (GoogleTest, the CLI, pytest and the notebooks, all through CTest), build the docs site, the regression check
# against results/baseline.yaml, then the sanitizer build's tests and the fuzz harnesses
# (scripts/sanitize.sh; skipped, saying so, without clang 14).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
# Fails (exit 1) with the diff when a line changed since .clang-format was added is not formatted.
"$ROOT/scripts/check_format.sh"
build
ctest --test-dir "$BUILD" --output-on-failure --parallel "$(nproc)"
# The manual as a site (docs/, mkdocs.yml): a link to a page that does not exist fails it.
mkdocs build --strict --quiet --config-file "$ROOT/mkdocs.yml" --site-dir "$BUILD/site"
# Fails (exit 1) if a change made a recorded utilization, cost or latency figure worse (issue 6).
"$BUILD/bin/gpusim" check "$ROOT/results/baseline.yaml" --data "$ROOT/data" --markdown "$BUILD/check.md" --force
# ASan + UBSan over the C++ tests and every shipped scenario; each fuzz harness over its corpus and
# regressions, then 20 s of fuzzing each (docs/design/testing.md).
"$ROOT/scripts/sanitize.sh"
