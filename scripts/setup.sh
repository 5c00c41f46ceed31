#!/usr/bin/env bash
# README command 1: install dependencies, build (Release), run the default scenario.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
build
"$BUILD/bin/gpusim" run "$ROOT/scenarios/quickstart.yaml"
