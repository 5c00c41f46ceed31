#!/usr/bin/env bash
# Regenerate the fidelity comparisons of docs/fidelity.md (published figures beside gpusim's, with the
# differences): scripts/reproduce.sh --list; scripts/reproduce.sh fgd-default; no name runs them all.
exec /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/fidelity/reproduce.py" "$@"
