#!/usr/bin/env bash
# README command 2: install dependencies, build, run every test (GoogleTest through CTest).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
build
ctest --test-dir "$BUILD" --output-on-failure --parallel "$(nproc)"
