"""Sweeps: the same rows from the CLI's threads, a local process pool and a Dask cluster."""
import io
import subprocess

import pandas as pd
import pytest

import gpusim

GRID = {"cluster.pools[0].count": [1, 2], "seed": [1, 2]}
POLICIES = ["fifo+best-fit", "fifo+first-fit"]


def cli_sweep(cli, scenario):
    out = subprocess.run([cli, "sweep", str(scenario), "--grid", "cluster.pools[0].count=1,2", "--grid", "seed=1,2",
                          "--policies", ",".join(POLICIES), "--jobs", "2"], check=True, capture_output=True, text=True)
    return pd.read_csv(io.StringIO(out.stdout))


def test_local_sweep_matches_the_cli(root, cli):
    scenario = root / "scenarios" / "quickstart.yaml"
    df = gpusim.sweep(scenario, GRID, policies=POLICIES, workers=2)
    want = cli_sweep(cli, scenario)
    assert len(df) == 8
    assert list(df.columns[:3]) == ["cluster.pools[0].count", "seed", "policy"]
    assert df["policy"].tolist() == want["policy"].tolist()
    for column in ["cost_usd", "allocation_ratio", "jct_s.mean", "queue_delay_s.p99"]:
        assert df[column].tolist() == want[column].tolist(), column


def test_sweep_bad_grid_is_an_input_error(root):
    with pytest.raises(gpusim.InputError, match="seed"):
        gpusim.sweep(root / "scenarios" / "quickstart.yaml", {"seed": [1, "x"]}, workers=1)


def test_dask_sweep_on_a_loopback_cluster(root):
    distributed = pytest.importorskip("dask.distributed")
    scenario = root / "scenarios" / "quickstart.yaml"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        df = gpusim.sweep(scenario, GRID, policies=POLICIES, client=client)
    local = gpusim.sweep(scenario, GRID, policies=POLICIES, workers=1)
    pd.testing.assert_frame_equal(df, local)
