"""gpusim.catalog() prints what `gpusim catalog` prints, and gives the same JSON: one C++ formatter
(cli/catalog.cpp) serves both front ends."""
import json
import subprocess

import pytest

import gpusim


def cli_out(cli, *args):
    return subprocess.run([cli, "catalog", *args], check=True, capture_output=True, text=True).stdout


def test_print_is_the_cli_text(cli, capsys):
    print(gpusim.catalog(), end="")
    assert capsys.readouterr().out == cli_out(cli)


@pytest.mark.parametrize("view, flags, kwargs", [
    ("gpus", [], {}),
    ("nodes", ["--filter", "A100"], {"filter": "A100"}),
    ("prices", [], {}),
    ("mig", ["--gpu", "H100-80GB-SXM"], {"gpu": "H100-80GB-SXM"}),
])
def test_views_match_the_cli(cli, view, flags, kwargs):
    cat = gpusim.catalog()
    assert cat.table(view, **kwargs) == cli_out(cli, view, *flags)
    assert cat.json(view, **kwargs) == json.loads(cli_out(cli, view, *flags, "--json"))


def test_known_values():
    cat = gpusim.catalog()
    nodes = {n["name"]: n for n in cat.json("nodes")["nodes"]}
    assert nodes["hgx-h100"]["gpus"] == 8 and nodes["hgx-h100"]["topology"]["links"] == ["NV18"]
    (h100,) = cat.json("mig", gpu="H100")["mig"]
    balanced = next(c for c in h100["configs"] if c["name"] == "all-balanced")
    assert balanced["counts"] == {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}


def test_bad_names_are_input_errors():
    with pytest.raises(gpusim.InputError, match="MIG-capable models: A30-24GB"):
        gpusim.catalog().table("mig", gpu="T4")
    with pytest.raises(gpusim.InputError, match="expected all, gpus, nodes, prices, mig or models"):
        gpusim.catalog().table("gpu")
