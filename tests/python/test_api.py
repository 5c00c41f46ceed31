"""The Python API against the CLI: same figures, same errors, DataFrames with the CSV columns."""
import json
import subprocess
import sys
import warnings

import pandas as pd
import pytest

import gpusim
from policies_for_tests import BestFit, Fifo, FirstFit, GreedyScheduler


def cli_json(cli, *args):
    out = subprocess.run([cli, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_import_loads_no_pandas_numpy_or_matplotlib():
    # A fresh interpreter (this one has them from conftest): they load on first use, so that
    # `import gpusim` stays fast; gpusim.plot and a result's frames still work.
    code = ("import sys, gpusim; heavy = [m for m in ('pandas', 'numpy', 'matplotlib') if m in sys.modules]; "
            "assert not heavy, heavy; gpusim.plot.jct_cdf; assert 'numpy' in sys.modules; "
            "assert type(gpusim.outputs()).__name__ == 'DataFrame'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_run_matches_the_cli(root, cli):
    scenario = root / "scenarios" / "quickstart.yaml"
    r = gpusim.run(scenario)
    assert r.summary == cli_json(cli, "run", str(scenario))
    assert len(r.jobs) == r.summary["jobs_total"]
    assert {"id", "queue_delay_s", "jct_s", "placement"} <= set(r.jobs.columns)
    assert {"time_s", "allocation_ratio", "effective_utilization"} <= set(r.timeseries.columns)
    assert set(r.pool_timeseries.pool) == {"dgx-a100", "t4-shared"}
    # Per-pool samples add up to the cluster's.
    sums = r.pool_timeseries.groupby("time_s").gpus_allocated.sum()
    assert (abs(sums.to_numpy() - r.timeseries.set_index("time_s").gpus_allocated.loc[sums.index].to_numpy()) < 1e-5).all()


def test_table_and_its_rows_are_the_cli_s(root, cli):
    scenario = root / "scenarios" / "quickstart.yaml"
    r = gpusim.run(scenario)
    printed = subprocess.run([cli, "run", str(scenario)], capture_output=True, text=True, check=True).stdout
    assert r.table() in printed
    rows = gpusim.table_rows()
    assert {"cost (USD)", "allocation ratio"} <= set(rows.label)
    assert rows.set_index("label").better["cost (USD)"] == "lower"
    # Every row's figure that the run has is a compare() column, under the name table_rows() gives.
    df = gpusim.compare(scenario, policies=["fifo+first-fit"])
    present = [c for c in rows.column if c in r.figures()]
    assert present and set(present) <= set(df.columns)


def test_policy_overrides_and_seed_as_the_cli(root, cli):
    scenario = root / "scenarios" / "quickstart.yaml"
    r = gpusim.run(scenario, policy="sjf+spread", overrides={"cluster.pools[0].count": 3}, seed=7)
    want = cli_json(cli, "run", str(scenario), "--policy", "sjf+spread", "--set", "cluster.pools[0].count=3", "--set", "seed=7")
    assert r.summary == want
    assert r.summary["seed"] == 7 and r.summary["policy"] == "sjf+spread"


def test_overrides_take_numpy_numbers_and_name_a_wrong_type(root):
    np = pytest.importorskip("numpy")
    scenario = root / "scenarios" / "quickstart.yaml"
    assert (gpusim.run(scenario, overrides={"cluster.pools[0].count": np.int64(3)}).summary ==
            gpusim.run(scenario, overrides={"cluster.pools[0].count": 3}).summary)
    with pytest.raises(TypeError, match=r"overrides\['cluster.pools\[0\].count'\]: expected a number.*got builtins.object"):
        gpusim.run(scenario, overrides={"cluster.pools[0].count": object()})
    with pytest.raises(TypeError, match=r"a list of 'path=value' strings, got a list holding tuple \('seed', 3\)"):
        gpusim.run(scenario, overrides=[("seed", 3)])


def test_dict_scenario():
    scenario = {
        "name": "two-jobs", "seed": 1,
        "cluster": {"pools": [{"name": "a100", "node": "dgx-a100-80gb", "count": 1}]},
        "workload": {"jobs": [{"name": "a", "arrival": 0, "duration": "1h", "gpus": 8},
                              {"name": "b", "arrival": 0, "duration": "1h", "gpus": 8}]},
        "policy": "fifo+first-fit",
    }
    r = gpusim.run(scenario)
    assert r.summary["jobs_completed"] == 2
    assert r.summary["makespan_s"] == 7200  # the second waits for the first: one node of 8 GPUs
    assert list(r.jobs.queue_delay_s) == [0, 3600]


def test_run_notes_are_warnings_and_unpriced_cost_is_flagged():
    # A pool of a node template with no price, and a job whose GPU its duration was stated on is not named.
    scenario = {
        "name": "own-hardware", "seed": 1,
        "catalog": {"nodes": [{"name": "own-box", "gpu": "A100-80GB-SXM", "gpus": 2, "cpu_milli": 8000,
                               "memory_mib": 65536, "source": "ours"}]},
        "cluster": {"pools": [{"name": "own", "node": "own-box", "count": 1}]},
        "workload": {"jobs": [{"name": "j", "gpus": 1, "duration": "1h"}]},
    }
    with pytest.warns(gpusim.RunNote) as caught:
        r = gpusim.run(scenario)
    notes = [str(w.message) for w in caught]
    assert any("1 job has durations stated on A100-80GB-SXM, the default reference GPU" in n for n in notes)
    assert any(n.startswith("Pool own is unpriced") for n in notes)
    assert r.summary["unpriced_pools"] == ["own"]
    assert "+ unpriced" in repr(r)
    # Named and priced: nothing to flag.
    scenario["workload"]["reference_gpu"] = "A100-80GB-SXM"
    scenario["cluster"]["pools"][0]["price_per_gpu_hour_usd"] = 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpusim.RunNote)
        r = gpusim.run(scenario)
    assert "unpriced" not in repr(r)


def test_deadlines_in_the_view_and_the_summary():
    scenario = {
        "name": "deadline", "seed": 1,
        "cluster": {"pools": [{"name": "a100", "node": "dgx-a100-80gb", "count": 1}]},
        "workload": {"jobs": [{"name": "a", "arrival": 0, "duration": "1h", "gpus": 8},
                              {"name": "b", "arrival": 0, "duration": "1h", "gpus": 8, "deadline": "90m"}]},
    }
    seen = []

    class Records(gpusim.Placement):
        name = "records"

        def score(self, view, job, node):
            seen.append((view.now_s, view.job(job).name, view.deadline_s(job), view.waited_s(job)))
            return 0.0

    r = gpusim.run(scenario, policy=Records())
    assert ("a", None) == seen[0][1:3]
    assert seen[-1] == (3600, "b", 5400, 3600)  # b starts once a ends, having waited an hour
    assert (r.summary["deadlines_met"], r.summary["deadlines_missed"]) == (0, 1)
    assert r.summary["lateness_max_s"] == 1800  # due at 1.5 h, ended at 2 h


def test_errors_are_the_cli_messages(root, cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ncluster: {pools: [{name: p, node: nope, count: 1}]}\nworkload: {jobs: []}\n")
    out = subprocess.run([cli, "run", str(bad)], capture_output=True, text=True)
    assert out.returncode == 2
    with pytest.raises(gpusim.InputError) as e:
        gpusim.run(bad)
    assert out.stderr.strip() == f"error: {e.value}"
    assert "line 2: cluster.pools[0].node: unknown node template 'nope'" in str(e.value)
    with pytest.raises(gpusim.InputError, match="unknown queue order 'lifo'"):
        gpusim.run(root / "scenarios" / "quickstart.yaml", policy="lifo+first-fit")
    with pytest.raises(ValueError):  # InputError is a ValueError
        gpusim.load_scenario({"name": "x"})


def test_numbers_in_dicts_are_checked_as_in_files():
    # A dict reaches the same number reader as a file (issue 19): NaN, a count past 32 bits and a
    # negative time are refused with the field and its range, never wrapped.
    def job(**fields):
        return {"name": "x", "cluster": {"pools": [{"name": "p", "node": "l4-4x", "count": 1}]},
                "workload": {"jobs": [{"name": "j", "gpus": 1, "duration": "1h", **fields}]}}
    cases = [({"u": float("nan")}, "workload.jobs[0].u: expected a number in 0..1, got 'NaN'"),
             ({"gpus": 2**32 + 1}, "workload.jobs[0].gpus: expected an integer in 0..100000, got 4294967297"),
             ({"priority": 2**32}, "workload.jobs[0].priority: expected an integer in -2147483648..2147483647"),
             ({"arrival": -5}, "workload.jobs[0].arrival: expected a duration from 0 to 100 years")]
    for fields, message in cases:
        with pytest.raises(gpusim.InputError) as e:
            gpusim.load_scenario(job(**fields))
        assert message in str(e.value)


def test_compare_one_row_per_variant_and_policy(root, cli):
    df = gpusim.compare(root / "scenarios" / "sharing-strategies.yaml", policies=["fifo+first-fit", "fifo+best-fit"])
    assert list(df.variant) == ["whole-gpus"] * 2 + ["mig"] * 2 + ["time-slicing"] * 2 + ["mps"] * 2
    assert list(df.policy[:2]) == ["fifo+first-fit", "fifo+best-fit"]
    want = cli_json(cli, "compare", str(root / "scenarios" / "sharing-strategies.yaml"), "--policies", "fifo+first-fit,fifo+best-fit")
    assert list(df.cost_usd) == [s["cost_usd"] for s in want]
    assert list(df.allocation_ratio) == [s["allocation_ratio"] for s in want]


def test_compare_runs_python_policies_beside_named_ones(root):
    # One plan with `gpusim compare`; a policy written in Python runs in this thread, in the rows' order.
    path = root / "scenarios" / "quickstart.yaml"
    policies = ["fifo+best-fit", Fifo(), ("fifo", BestFit())]
    df = gpusim.compare(path, policies=policies, workers=2)
    assert list(df.policy) == ["fifo+best-fit", "py-fifo+best-fit", "fifo+py-best-fit"]
    assert list(df.cost_usd) == [gpusim.run(path, policy=p).summary["cost_usd"] for p in policies]
    with pytest.raises(gpusim.InputError, match="^--policies: give policies, or a scenario with variants$"):
        gpusim.compare(path)


def test_load_scenario_objects(root):
    s = gpusim.load_scenario(root / "scenarios" / "quickstart.yaml", overrides=["cluster.pools[0].count=4"])
    assert s.name == "quickstart" and s.seed == 42 and s.policy == "fifo+best-fit"
    assert s.config["cluster"]["pools"][0]["count"] == 4
    assert list(s.pools.name) == ["dgx-a100", "t4-shared"] and s.pools.nodes[0] == 4
    assert isinstance(s.jobs, pd.DataFrame) and len(s.jobs) == 250
    # A loaded scenario runs as is, and keeps its overrides.
    assert gpusim.run(s).summary["gpus"] == 4 * 8 + 8


def test_catalog_and_mig():
    cat = gpusim.catalog()
    h100 = cat.gpu("H100-80GB-SXM")
    assert h100.memory_mib == 81559 or h100.memory_mib > 80000
    assert h100.mig is not None and {p.name for p in h100.mig.profiles} >= {"1g.10gb", "7g.80gb"}
    assert cat.node("dgx-a100-80gb").gpus == 8
    assert "A100-80GB-SXM" in set(cat.gpu_frame().name)
    a100 = gpusim.mig("A100-80GB-SXM")
    layouts = a100.layouts()
    assert len(layouts) > len(a100.layouts(maximal=True)) > 0
    assert "1 x 7g.80gb" in set(layouts.layout)
    with pytest.raises(gpusim.InputError, match="MIG-capable models"):
        gpusim.mig("nope")
    with pytest.raises(gpusim.InputError, match="T4 does not support MIG"):
        gpusim.mig("T4")


def test_python_halves_decide_as_the_cpp_ones(root):
    """Python re-implementations give byte-identical figures to the built-ins they copy."""
    openb = root / "scenarios" / "openb-default.yaml"
    cpp = gpusim.run(openb, policy="fifo+best-fit")
    py = gpusim.run(openb, policy=(Fifo(), BestFit()))
    assert py.summary["policy"] == "py-fifo+py-best-fit"
    cpp.summary.pop("policy"), py.summary.pop("policy")
    assert py.summary == cpp.summary
    quick = root / "scenarios" / "quickstart.yaml"
    a = gpusim.run(quick, policy="fifo+first-fit")
    b = gpusim.run(quick, policy=FirstFit())  # a placement alone keeps the scenario's queue order
    assert b.summary["policy"] == "fifo+py-first-fit"
    assert b.jobs.placement.tolist() == a.jobs.placement.tolist()


def test_python_scheduler_runs_and_is_validated(root):
    quick = root / "scenarios" / "quickstart.yaml"
    r = gpusim.run(quick, policy=GreedyScheduler())
    assert r.summary["policy"] == "py-greedy"
    assert r.summary["jobs_completed"] == gpusim.run(quick, policy="fifo+first-fit").summary["jobs_completed"]

    class Overbook(gpusim.Scheduler):
        name = "overbook"

        def decide(self, view, binder):
            for job in view.pending():
                binder.bind(job, [0], [0])  # everything on GPU 0 of node 0

    with pytest.raises(gpusim.PolicyError):
        gpusim.run(quick, policy=Overbook())

    class Broken(gpusim.QueueOrder):
        def key(self, job):
            return "soon"

    with pytest.raises(gpusim.PolicyError, match="must return an int"):
        gpusim.run(quick, policy=Broken())

    class Raises(gpusim.Placement):
        def score(self, view, job, node):
            raise KeyError("from the policy")

    with pytest.raises(KeyError, match="from the policy"):  # the policy's own exception comes back
        gpusim.run(quick, policy=Raises())


def test_same_inputs_same_outputs(root, tmp_path):
    quick = root / "scenarios" / "spot-trace.yaml"
    a, b = gpusim.run(quick), gpusim.run(quick)
    a.write(tmp_path / "a")
    b.write(tmp_path / "b")
    for f in ["summary.json", "jobs.csv", "timeseries.csv", "pool_timeseries.csv", "cost.csv"]:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    with pytest.raises(gpusim.InputError, match="pass --force"):
        a.write(tmp_path / "a")


def test_plots_draw(root):
    import matplotlib.pyplot as plt

    r = gpusim.run(root / "scenarios" / "quickstart.yaml")
    s = gpusim.run(root / "scenarios" / "quickstart.yaml", policy="sjf+best-fit")
    fig, axes = plt.subplots(2, 3)
    assert len(gpusim.plot.utilization(r, ax=axes[0, 0]).lines) == 4  # 2 pools x (allocated, busy)
    assert len(gpusim.plot.cost_breakdown(r, ax=axes[0, 1]).patches) == 6  # 2 pools x 3 parts
    assert len(gpusim.plot.jct_cdf({"fifo": r, "sjf": s}, ax=axes[0, 2]).lines) == 2
    assert len(gpusim.plot.queue_delay_cdf(r, ax=axes[1, 0]).lines) == 1
    assert len(gpusim.plot.occupancy(r, ax=axes[1, 1]).collections) > 100
    plt.close(fig)


def test_report_one_renderer(root, cli, tmp_path):
    """gpusim.report(run_dir), Result.report() and `gpusim run --report` write the same page."""
    r = gpusim.run(root / "scenarios/first-scenario.yaml", outputs=["occupancy"])
    r.write(tmp_path / "run")
    gpusim.report(tmp_path / "run", tmp_path / "a.html")
    r.report(tmp_path / "b.html")
    subprocess.run([cli, "run", str(root / "scenarios/first-scenario.yaml"), "--report", str(tmp_path / "c.html")], check=True,
                   capture_output=True)
    page = (tmp_path / "a.html").read_bytes()
    assert b'<svg class="plot"' in page and b"<script" not in page
    assert page == (tmp_path / "b.html").read_bytes() == (tmp_path / "c.html").read_bytes()
    with pytest.raises(ValueError, match="--force|force"):
        gpusim.report(tmp_path / "run", tmp_path / "a.html")
    gpusim.report(tmp_path / "run", tmp_path / "a.html", force=True)
    with pytest.raises(gpusim.InputError, match="summary.json"):
        gpusim.report(tmp_path, tmp_path / "d.html")


def test_occupancy_adds_up_to_the_allocated_gpu_hours(root, tmp_path):
    """occupancy.json (the report's heat map): each cell's allocated share x the row's GPUs x the
    column's length, summed, is the run's allocated GPU-hours (to the cells' 3 decimals)."""
    for scenario in ("first-scenario.yaml", "spot-trace.yaml"):
        r = gpusim.run(root / "scenarios" / scenario, outputs=["occupancy"], data=str(root / "data"))
        r.write(tmp_path / scenario)
        occ = json.loads((tmp_path / scenario / "occupancy.json").read_text())
        assert occ["columns"] <= 200 and len(occ["rows"]) <= 128 + len(r.summary["pools"])
        spans = [min(occ["column_s"], occ["end_s"] - c * occ["column_s"]) for c in range(occ["columns"])]
        hours = sum(a * row["gpus"] * s / 3600 for row in occ["rows"] for a, s in zip(row["allocated"], spans))
        capacity = sum(u * row["gpus"] * s / 3600 for row in occ["rows"] for u, s in zip(row["up"], spans))
        gpus = sum(row["gpus"] for row in occ["rows"])
        slack = 0.0005 * gpus * occ["end_s"] / 3600  # half the last decimal, on every cell
        assert abs(hours - r.summary["gpu_hours_allocated"]) <= slack, scenario
        assert abs(capacity - r.summary["gpu_hours_capacity"]) <= slack, scenario


def test_energy_of_jobs_adds_up_to_the_summary(root):
    # Issue 45: each job's energy in the jobs frame, their sum the summary's jobs_kwh; carbon per job only
    # where the grid gives it.
    r = gpusim.run(root / "scenarios" / "quickstart.yaml")
    assert r.jobs["energy_kwh"].sum() == pytest.approx(r.summary["energy"]["jobs_kwh"], abs=1e-3)
    assert "carbon_kg" not in r.jobs.columns
    c = gpusim.run(root / "scenarios" / "quickstart.yaml", overrides={"cluster.carbon_g_per_kwh": 400})
    assert c.jobs["carbon_kg"].sum() == pytest.approx(0.4 * c.summary["energy"]["jobs_kwh"], abs=1e-3)
    assert c.summary["energy"]["carbon_kg"] == pytest.approx(0.4 * c.summary["energy"]["kwh"], rel=1e-9)


def test_owned_pool_cost_and_power_budget(root):
    # Issue 45: an owned pool's jobs pay its electricity (their costs add up to its allocated cost), and a
    # power budget's peak and waits come back in the summary.
    r = gpusim.run(root / "scenarios" / "energy-owned-vs-cloud.yaml", data=str(root / "data"))
    pool = r.summary["pools"][0]
    assert pool["market"] == "owned"
    assert pool["owned"]["capital_usd"] + pool["owned"]["electricity_usd"] == pytest.approx(pool["cost_usd"], abs=0.02)
    assert r.jobs["cost_usd"].sum() == pytest.approx(pool["allocated_cost_usd"], abs=0.5)
    b = gpusim.run(root / "scenarios" / "energy-power-cap.yaml", variant="500W+2", data=str(root / "data"))
    budget = b.summary["power_budgets"][0]
    assert budget["name"] == "rack" and budget["pools"] == ["h200"] and budget["kw"] == 43
    assert 0 < budget["peak_kw"] <= 43 and budget["jobs_waited"] > 0
