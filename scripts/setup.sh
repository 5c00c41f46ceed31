#!/usr/bin/env bash
# README command 1: install dependencies, build (Release), install gpusim (the command
# on PATH and the Python package), run the default scenario.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
install_dependencies
build
install_gpusim
gpusim run "$ROOT/scenarios/quickstart.yaml"
