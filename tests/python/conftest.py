"""pytest setup: the package under test is the one the build assembled (PYTHONPATH=build/python),
run by Debian's /usr/bin/python3; GPUSIM_ROOT is the source tree, GPUSIM_CLI the gpusim binary."""
import os
import pathlib

import matplotlib
import pytest

matplotlib.use("Agg")  # no display in CI

ROOT = pathlib.Path(os.environ.get("GPUSIM_ROOT", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture
def cli() -> str:
    path = os.environ.get("GPUSIM_CLI", str(ROOT / "build" / "bin" / "gpusim"))
    assert os.path.exists(path), f"the gpusim binary is not at {path}; set GPUSIM_CLI"
    return path
