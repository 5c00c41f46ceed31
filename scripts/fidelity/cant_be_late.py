"""Can't Be Late (Wu et al., NSDI'24): one 48-h job with a 52-h deadline and a 0.1-h changeover delay on
the us-west-2a p3.2xlarge (V100) availability trace, started at each of the 1,000 start points of the
paper's artifact, against the artifact's mean cost per policy (results/published/cant_be_late_*.csv)."""
import csv
import os
from collections import Counter

from common import Comparison, Row, read_published

SCENARIO = "scenarios/cant-be-late.yaml"
OFFSET = "cluster.pools[0].spot.availability.offset"
TRACE = "skypilot-spot-traces/availability/1-node/aws-10-26-2022/us-west-2a_v100_1.json"
TICK_S = 600  # the trace's gap_seconds: the artifact's start points are tick indexes
# The published policies (the artifact's names in the CSV) and gpusim's; then the paper's own policy and its
# variant without hysteresis, which the artifact's recorded runs do not have.
POLICIES = {"greedy": "fifo+cbl-greedy", "on-demand": "fifo+cbl-on-demand", "spot": "fifo+cbl-spot"}
UNPUBLISHED = {"uniform-progress": "fifo+cbl-uniform-progress", "uniform-plain": "fifo+cbl-uniform-plain"}
# The bar: each policy's mean cost within 5% of the published one (issue 23).
COST_TOLERANCE = 0.05


def start_ticks():
    """The artifact's 1,000 start points (873 distinct) with how often each was drawn."""
    return Counter(int(r["start_tick"]) for r in read_published("cant_be_late_start_ticks.csv"))


def sweep_command(ticks):
    offsets = ",".join(f"{t * TICK_S}s" for t in sorted(ticks))
    policies = ",".join([*POLICIES.values(), *UNPUBLISHED.values()])
    return ["sweep", SCENARIO, "--grid", f"{OFFSET}={offsets}", "--policies", policies, "--jobs", str(os.cpu_count() or 1)]


def compare(context):
    ticks = start_ticks()
    path = context.scratch_file("cant-be-late.csv")
    context.run(*sweep_command(ticks), "--out", path, "--force")
    runs = {}  # policy -> [(weight, cost, missed)]
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            weight = ticks[int(float(r[OFFSET].rstrip("s"))) // TICK_S]
            runs.setdefault(r["policy"], []).append((weight, float(r["cost.allocated_usd"]), int(r["deadlines_missed"])))
    total = sum(ticks.values())
    mean_cost = {p: sum(w * c for w, c, _ in v) / total for p, v in runs.items()}
    missed = {p: sum(w * m for w, _, m in v) for p, v in runs.items()}
    on_demand = mean_cost[POLICIES["on-demand"]]
    published = {r["policy"]: r for r in read_published("cant_be_late_us_west_2a_v100.csv")}
    rows = []
    for name, ours in POLICIES.items():
        if ours == POLICIES["on-demand"]:
            continue  # 1 by construction: its cost in USD follows
        paper = float(published[name]["cost_vs_on_demand"])
        rows.append(Row(f"{name} cost / on-demand", paper, mean_cost[ours] / on_demand, COST_TOLERANCE * paper))
    rows.append(Row("on-demand mean cost (USD)", float(published["on-demand"]["mean_cost_usd"]), on_demand,
                    COST_TOLERANCE * float(published["on-demand"]["mean_cost_usd"])))
    # Not in the artifact's runs: reported beside greedy's published figure, which the paper has them beat.
    for name, ours in UNPUBLISHED.items():
        rows.append(Row(f"{name} cost / on-demand (published: greedy's)", float(published["greedy"]["cost_vs_on_demand"]),
                        mean_cost[ours] / on_demand))
    # Deadlines: the Safety Net keeps every one (the paper's §3.3); spot only misses as often as in the
    # artifact's runs, to within 1% of them (the artifact counts whole 10-minute ticks).
    for name, ours in {**POLICIES, **UNPUBLISHED}.items():
        paper = int(published.get(name, {}).get("deadlines_missed_52h") or 0)
        rows.append(Row(f"{name} deadlines missed (of {total})", paper, missed[ours], 0 if name != "spot" else total / 100))
    order = sorted(["greedy", "uniform-progress", "on-demand"], key=lambda n: mean_cost[{**POLICIES, **UNPUBLISHED}[n]])
    rows.append(Row("cost order, deadline kept", "uniform-progress < greedy < on-demand", " < ".join(order)))
    return rows


COMPARISONS = [
    Comparison(
        name="cant-be-late",
        title="Can't Be Late, one job on us-west-2a V100 at the artifact's 1,000 start points, against its mean costs",
        command=f"gpusim sweep {SCENARIO} --grid '{OFFSET}=<the 873 start points x 600 s>' --policies "
        + ",".join([*POLICIES.values(), *UNPUBLISHED.values()]),
        compare=compare,
        quick=True,  # 4,365 one-job runs: a few seconds
        needs=(TRACE,),
    ),
]
