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
    # Two namespaces, one waiting for the other (tests/tenancy/tenancy_test.cpp works the figures by hand).
    r = gpusim.run({"name": "two", "cluster": {"pools": [{"name": "p", "node": "a10-1x", "count": 2}]},
                    "tenancy": {},
                    "workload": {"reference_gpu": "A10",
                                 "jobs": [{"name": "a", "count": 2, "gpus": 1, "duration": "2h", "namespace": "a"},
                                          {"name": "b", "gpus": 1, "duration": "1h", "namespace": "b"}]}})
    r.write(str(tmp_path / "run"))
    expected = pd.read_csv(tmp_path / "run" / "tenants.csv")
    pd.testing.assert_frame_equal(r.tenants, expected, check_exact=True)
    assert list(r.tenants["name"]) == ["a", "b"]
    assert list(r.tenants["wait_max_s"]) == [0, 7200]
    assert r.summary["tenancy"]["fairness_jain"] == 0.5


def test_services_and_requests_frames_are_read_csv_of_their_files(root, tmp_path):
    r = gpusim.run(root / "scenarios" / "inference-sharing.yaml", data=str(root / "data"), variant="mps",
                   outputs=["requests"])
    r.write(str(tmp_path / "run"))
    for frame, file in {"services": "services.csv", "requests": "requests.csv"}.items():
        pd.testing.assert_frame_equal(getattr(r, frame), pd.read_csv(tmp_path / "run" / file), check_exact=True)
    # Seven services, every request completed; each service's rows add up to its figures.
    assert len(r.services) == 7
    assert (r.requests.status == "completed").all()
    counts = r.requests.groupby("service").size()
    for _, s in r.services.iterrows():
        assert counts[s["name"]] == s["requests_completed"]
    assert r.summary["serving"]["requests_completed"] == len(r.requests)


def test_latency_cdf_draws_a_line_per_result(root):
    import matplotlib
    matplotlib.use("Agg")
    runs = {v: gpusim.run(root / "scenarios" / "inference-sharing.yaml", data=str(root / "data"), variant=v,
                          outputs=["requests"]) for v in ("mig", "mps")}
    ax = gpusim.plot.latency_cdf(runs, metric="ttft")
    assert [line.get_label() for line in ax.get_lines()] == ["mig", "mps"]


def test_replicas_frame_and_plot_follow_an_autoscaled_service(root, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    r = gpusim.run(root / "scenarios" / "inference-autoscale.yaml", data=str(root / "data"),
                   variant="HPA on running requests")
    r.write(str(tmp_path / "run"))
    pd.testing.assert_frame_equal(r.replicas, pd.read_csv(tmp_path / "run" / "replicas.csv"), check_exact=True)
    # Pods follow the autoscaler's count within its bounds; a pod is ready only once created.
    assert r.replicas.desired.between(1, 10).all()
    assert (r.replicas.ready <= r.replicas.pods).all()
    assert r.replicas.time_s.is_monotonic_increasing
    s = r.summary["services"][0]
    assert s["replicas_peak"] == r.replicas.pods.max()
    assert s["scale_ups"] > 0 and s["scale_downs"] > 0
    ax = gpusim.plot.replicas(r)
    assert [line.get_label() for line in ax.get_lines()] == ["desired", "pods", "ready"]


def test_a_disaggregated_service_is_one_row_with_its_pools(root, tmp_path):
    r = gpusim.run(root / "scenarios" / "serving-disaggregated.yaml", data=str(root / "data"),
                   variant="5 prefill + 3 decode", outputs=["requests"])
    r.write(str(tmp_path / "run"))
    for frame, file in {"services": "services.csv", "requests": "requests.csv"}.items():
        pd.testing.assert_frame_equal(getattr(r, frame), pd.read_csv(tmp_path / "run" / file), check_exact=True)
    assert len(r.services) == 1
    s = r.services.iloc[0]
    assert (s["pools.prefill.replicas"], s["pools.decode.replicas"]) == (5, 3)
    assert s["replicas"] == 8
    assert s["gpu_hours_allocated"] == pytest.approx(s["pools.prefill.gpu_hours_allocated"] +
                                                     s["pools.decode.gpu_hours_allocated"], abs=1e-5)
    assert s["kv_transfer_s.p50"] > 0
    # Every request ends on a decode replica, which made all its tokens but the first.
    assert r.requests.replica.str.startswith("rag-decode-").all()
    assert r.requests.prefill_replica.str.startswith("rag-prefill-").all()
    assert (r.requests.kv_transfer_s > 0).all() and (r.requests.kv_transfer_s <= r.requests.ttft_s).all()
