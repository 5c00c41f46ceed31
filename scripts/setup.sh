#!/usr/bin/env bash
# README command 1: install dependencies, build (Release), install the Python package, run the
# default scenario.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
build
install_python_package
"$BUILD/bin/gpusim" run "$ROOT/scenarios/quickstart.yaml"
