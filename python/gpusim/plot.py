"""Plotting helpers (matplotlib). Each takes a Result (or {label: Result} to overlay several) and an
optional Axes, draws, and returns the Axes, so they compose in notebooks and in scripts:

    fig, axes = plt.subplots(2, 2, figsize=(12, 7))
    gpusim.plot.utilization(r, ax=axes[0, 0]); gpusim.plot.cost_breakdown(r, ax=axes[0, 1])
    gpusim.plot.jct_cdf({"fifo": a, "sjf": b}, ax=axes[1, 0]); gpusim.plot.occupancy(r, ax=axes[1, 1])
    gpusim.plot.latency_cdf({"mig": m, "mps": p}, metric="ttft")   # runs with outputs=["requests"]
"""
from __future__ import annotations

import numpy as np

KIND_COLORS = {"training": "tab:blue", "inference": "tab:orange", "notebook": "tab:green", "batch": "tab:purple"}


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 4))
    return ax


def _labelled(results) -> dict:
    if isinstance(results, dict):
        return results
    return {results.summary["policy"]: results}


def utilization(result, ax=None, hours: bool = True):
    """Allocation ratio (solid) and effective utilization, what DCGM would show (dashed), per pool over time."""
    ax = _axes(ax)
    ts = result.pool_timeseries
    scale = 3600.0 if hours else 1.0
    for i, (pool, rows) in enumerate(ts.groupby("pool", sort=False)):
        color = f"C{i}"
        ax.plot(rows.time_s / scale, rows.allocation_ratio, color=color, label=f"{pool} allocated")
        ax.plot(rows.time_s / scale, rows.effective_utilization, color=color, linestyle="--", label=f"{pool} busy (SMs)")
    ax.set_xlabel("time (h)" if hours else "time (s)")
    ax.set_ylabel("share of ready GPUs")
    ax.set_ylim(0, 1.05)
    ax.set_title(f"{result.summary['scenario']}: allocation and utilization per pool")
    ax.legend(fontsize="small")
    return ax


def cost_breakdown(result, ax=None):
    """Each pool's bill split into GPU time jobs kept busy, allocated but unused, and idle capacity (USD)."""
    ax = _axes(ax)
    cost = result.cost
    pools = cost[cost.scope == "pool"]
    busy = pools.busy_cost_usd.to_numpy()
    unused = pools.unused_allocated_cost_usd.to_numpy()
    idle = pools.idle_cost_usd.to_numpy()
    x = np.arange(len(pools))
    ax.bar(x, busy, label="busy", color="tab:green")
    ax.bar(x, unused, bottom=busy, label="allocated, unused", color="tab:orange")
    ax.bar(x, idle, bottom=busy + unused, label="idle", color="tab:gray")
    ax.set_xticks(x, pools.name)
    ax.set_ylabel("USD")
    ax.set_title(f"{result.summary['scenario']}: cost {result.summary['cost_usd']:,.0f} USD, "
                 f"waste {result.summary['cost']['waste_usd']:,.0f} USD")
    ax.legend(fontsize="small")
    return ax


def _cdf(results, column: str, label: str, ax, hours: bool):
    ax = _axes(ax)
    scale = 3600.0 if hours else 1.0
    for name, r in _labelled(results).items():
        values = np.sort(r.jobs[column].dropna().to_numpy()) / scale
        if len(values):
            ax.step(values, np.arange(1, len(values) + 1) / len(values), where="post", label=name)
    ax.set_xlabel(f"{label} ({'h' if hours else 's'})")
    ax.set_ylabel("fraction of jobs")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize="small")
    return ax


def jct_cdf(results, ax=None, hours: bool = True):
    """CDF of job completion time (arrival to end) of completed jobs, one line per result."""
    return _cdf(results, "jct_s", "job completion time", ax, hours)


def queue_delay_cdf(results, ax=None, hours: bool = True):
    """CDF of queueing delay (arrival to first start), one line per result."""
    return _cdf(results, "queue_delay_s", "queueing delay", ax, hours)


def latency_cdf(results, metric: str = "ttft", service: str | None = None, ax=None):
    """CDF of a request latency ("ttft", "e2e", "queue" or "tpot", in seconds) of completed requests,
    one line per result; `service` keeps one service's requests. Needs run(..., outputs=["requests"])."""
    ax = _axes(ax)
    for name, r in _labelled(results).items():
        rows = r.requests
        rows = rows[rows.status == "completed"]
        if service is not None:
            rows = rows[rows.service == service]
        values = np.sort(rows[f"{metric}_s"].dropna().to_numpy())
        if len(values):
            ax.step(values, np.arange(1, len(values) + 1) / len(values), where="post", label=name)
    ax.set_xscale("log")
    ax.set_xlabel(f"{metric.upper()} (s)")
    ax.set_ylabel("fraction of requests")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize="small")
    return ax


def replicas(result, service: str | None = None, ax=None, hours: bool = True):
    """A service's replicas over time: desired (the autoscaler's count), pods and ready ones, as steps;
    the gap between pods and ready is the cold start. `service`: one service (default the first
    autoscaled one)."""
    ax = _axes(ax)
    rows = result.replicas
    if service is None:
        scaled = [s["name"] for s in result.summary.get("services", []) if "scale_ups" in s]
        service = scaled[0] if scaled else (rows.service.iloc[0] if len(rows) else None)
    rows = rows[rows.service == service]
    scale = 3600.0 if hours else 1.0
    end = result.summary["simulated_s"] / scale
    for column, style in (("desired", ":"), ("pods", "--"), ("ready", "-")):
        t = np.append(rows.time_s.to_numpy() / scale, end)
        v = np.append(rows[column].to_numpy(), rows[column].to_numpy()[-1:] if len(rows) else [])
        ax.step(t[:len(v)], v, where="post", linestyle=style, label=column)
    ax.set_xlabel("hours" if hours else "seconds")
    ax.set_ylabel(f"replicas of {service}")
    ax.legend(fontsize="small")
    return ax


def occupancy(result, ax=None, hours: bool = True, max_gpus: int = 64):
    """Per-GPU occupancy strip: one row per GPU, a bar while a job held it (its latest attempt),
    coloured by job kind; shared GPUs show overlapping translucent bars."""
    ax = _axes(ax)
    scale = 3600.0 if hours else 1.0
    gpus = result.gpus.head(max_gpus)
    row = {(n, int(i)): k for k, (n, i) in enumerate(zip(gpus.node, gpus["index"]))}
    end_of_run = result.summary["simulated_s"]
    for job in result.jobs.itertuples():
        if not isinstance(job.placement, str) or job.placement == "" or np.isnan(job.start_s):
            continue
        end = job.end_s if not np.isnan(job.end_s) else end_of_run
        for part in job.placement.split("|"):
            node, _, gpu_list = part.partition(":")
            for g in filter(None, gpu_list.split("+")):
                k = row.get((node, int(g.split("/")[0])))
                if k is not None:
                    ax.broken_barh([(job.start_s / scale, (end - job.start_s) / scale)], (k - 0.4, 0.8),
                                   color=KIND_COLORS.get(job.kind, "tab:gray"), alpha=0.6, linewidth=0)
    ax.set_yticks(range(len(gpus)), [f"{n}:{i}" for n, i in zip(gpus.node, gpus["index"])], fontsize="x-small")
    ax.invert_yaxis()
    ax.set_xlabel("time (h)" if hours else "time (s)")
    ax.set_title(f"{result.summary['scenario']}: GPU occupancy")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=c, label=k) for k, c in KIND_COLORS.items()], fontsize="small", loc="upper right")
    return ax
