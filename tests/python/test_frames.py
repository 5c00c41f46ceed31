"""A Result's DataFrames come from C++ columns, not CSV text: they must be the frames pd.read_csv makes
of the run directory's files (same columns, dtypes and values), whatever the scenario's tables hold:
empty fields, all-empty columns, integral floats, text columns (MIG layouts, placements, links)."""
import pandas as pd
import pytest

import gpusim

FRAMES = {"jobs": "jobs.csv", "timeseries": "timeseries.csv", "pool_timeseries": "pool_timeseries.csv",
          "gpus": "gpus.csv", "cost": "cost.csv"}


@pytest.mark.parametrize("scenario", ["quickstart.yaml", "mig-repartition.yaml", "spot-training.yaml",
                                      "topology-war-story.yaml", "t4-timeslice-oom.yaml", "autoscale.yaml"])
def test_frames_are_read_csv_of_the_written_files(root, tmp_path, scenario):
    r = gpusim.run(root / "scenarios" / scenario, data=str(root / "data"))
    r.write(str(tmp_path / "run"))
    for frame, file in FRAMES.items():
        expected = pd.read_csv(tmp_path / "run" / file)
        pd.testing.assert_frame_equal(getattr(r, frame), expected, check_exact=True, obj=f"{scenario} {frame}")


def test_a_table_with_no_rows_is_read_csv_of_its_header(root, tmp_path):
    r = gpusim.run({"name": "idle", "cluster": {"pools": [{"name": "a", "node": "dgx-a100-80gb", "count": 1}]},
                    "workload": {"jobs": []}})
    r.write(str(tmp_path / "run"))
    pd.testing.assert_frame_equal(r.jobs, pd.read_csv(tmp_path / "run" / "jobs.csv"), check_exact=True)


def test_tenants_frame_is_read_csv_of_tenants_csv(tmp_path):
    # Two namespaces, one waiting for the other (tests/tenancy_test.cpp works the figures by hand).
    r = gpusim.run({"name": "two", "cluster": {"pools": [{"name": "p", "node": "a10-1x", "count": 2}]},
                    "tenancy": {},
                    "workload": {"jobs": [{"name": "a", "count": 2, "gpus": 1, "duration": "2h", "namespace": "a"},
                                          {"name": "b", "gpus": 1, "duration": "1h", "namespace": "b"}]}})
    r.write(str(tmp_path / "run"))
    expected = pd.read_csv(tmp_path / "run" / "tenants.csv")
    pd.testing.assert_frame_equal(r.tenants, expected, check_exact=True)
    assert list(r.tenants["name"]) == ["a", "b"]
    assert list(r.tenants["wait_max_s"]) == [0, 7200]
    assert r.summary["tenancy"]["fairness_jain"] == 0.5
