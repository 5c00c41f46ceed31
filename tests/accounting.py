"""Every job and request accounted for: the rows of each table of a run add up to its total.

problems(summary, table) checks one run's summary.json and the run table `gpusim run` printed for it:
jobs by status against jobs_total (the terminal table's job rows too), pools, tenants, kinds and GPU
models against the cluster's figures, requests by outcome against those that arrived, and services
against the serving totals. golden_outputs.py calls it for every shipped scenario's runs.
"""
import re

JOB_STATUSES = ["jobs_completed", "jobs_running_at_end", "jobs_pending_at_end", "jobs_unschedulable", "jobs_failed",
                "jobs_rejected", "jobs_not_arrived"]
TABLE_JOB_ROWS = ["jobs completed", "jobs running at end", "jobs pending at end", "jobs unschedulable", "jobs failed",
                  "jobs rejected", "jobs not arrived"]
REQUEST_OUTCOMES = ["requests_completed", "requests_rejected", "requests_unfinished", "requests_timed_out"]


def _close(a, b, tolerance):
    return abs(a - b) <= tolerance


def _table_rows(table):
    """{label: number} of the run table's figure rows ("  jobs total   16")."""
    rows = {}
    for line in table.splitlines():
        m = re.match(r"^  (\S.*?)\s{2,}([-\d,.]+)$", line)
        if m:
            try:
                rows[m.group(1)] = float(m.group(2).replace(",", ""))
            except ValueError:
                pass
    return rows


def problems(s, table=None):
    out = []

    def equal(what, total, parts, tolerance=0.0):
        if not _close(total, sum(parts), tolerance):
            out.append(f"{what}: {total} is not the sum of its rows {parts} ({sum(parts)})")

    equal("jobs_total", s["jobs_total"], [s.get(k, 0) for k in JOB_STATUSES])
    pools = s["pools"]
    equal("gpu_hours_capacity", s["gpu_hours_capacity"], [p["gpu_hours_capacity"] for p in pools], 1e-4 * len(pools))
    equal("gpu_hours_allocated", s["gpu_hours_allocated"], [p["gpu_hours_allocated"] for p in pools], 1e-4 * len(pools))
    equal("gpu_hours_busy", s["gpu_hours_busy"], [p["gpu_hours_busy"] for p in pools], 1e-4 * len(pools))
    priced = [p for p in pools if p["name"] not in s["unpriced_pools"]]
    if any(p["cost_usd"] is None for p in priced) or any(p["cost_usd"] is not None for p in pools if p not in priced):
        out.append("unpriced_pools does not name the pools without a cost")
    equal("cost_usd", s["cost_usd"], [p["cost_usd"] for p in priced], 0.01 * len(pools))
    if "energy" in s:  # issue 45: the fleet's energy is its pools', and what jobs drew is their tenants'
        equal("energy.kwh", s["energy"]["kwh"], [p["energy"]["kwh"] for p in pools], 1e-5 * len(pools))
        equal("energy.jobs_kwh (tenants)", s["energy"]["jobs_kwh"], [t["energy_kwh"] for t in s["tenants"]],
              1e-5 * len(s["tenants"]))
    tenants = s["tenants"]
    equal("jobs_total (tenants)", s["jobs_total"], [t["jobs"] for t in tenants])
    equal("jobs_completed (tenants)", s["jobs_completed"], [t["jobs_completed"] for t in tenants])
    equal("gpu_hours_allocated (tenants)", s["gpu_hours_allocated"], [t["gpu_hours_allocated"] for t in tenants],
          1e-4 * len(tenants))
    for by in ("by_kind", "by_gpu_model"):
        groups = s["cost"][by].values()
        equal(f"gpu_hours_allocated ({by})", s["gpu_hours_allocated"], [g["gpu_hours_allocated"] for g in groups],
              1e-4 * (len(groups) + 1))
    if "serving" in s:
        serving = s["serving"]
        for scope in [serving] + s["services"]:
            name = scope.get("name", "serving")
            equal(f"{name}: requests_arrived", scope["requests_arrived"], [scope.get(k, 0) for k in REQUEST_OUTCOMES])
        for k in ["requests_arrived"] + REQUEST_OUTCOMES:
            if k in serving:
                equal(f"serving.{k} (services)", serving[k], [v.get(k, 0) for v in s["services"]])
        equal("serving.requests_not_completed", serving["requests_arrived"] - serving["requests_completed"],
              [r["requests"] for r in serving["requests_not_completed"]])
    if table is not None:
        rows = _table_rows(table)
        if "jobs total" not in rows:
            out.append("the run table has no jobs total")
        else:
            equal("the run table's jobs total", rows["jobs total"], [rows.get(k, 0) for k in TABLE_JOB_ROWS])
        if "requests arrived" in rows:
            equal("the run table's requests arrived", rows["requests arrived"],
                  [rows.get(k, 0) for k in ("requests completed", "requests rejected", "requests unfinished",
                                            "requests timed out")])
    return out
