"""The FGD paper's experiment (Weng et al., ATC'23) against its artifact's published per-seed figures
(results/published/fgd_atc23_*.csv): allocation at 100% and 130% arrived demand for each of the six
policies, the ranking at 130%, and on the default pod list fragmentation from 50% to 90%."""
import csv

from common import Comparison, Row, mean, read_published

# The artifact's policy names (its analysis CSVs) and gpusim's.
POLICIES = {
    "Random": "fifo+random",
    "DotProd": "fifo+dot-product",
    "GpuClustering": "fifo+gpu-clustering",
    "GpuPacking": "fifo+gpu-packing",
    "BestFit": "fifo+best-fit",
    "FGD": "fifo+fgd",
}
SCENARIO = "scenarios/fgd-openb.yaml"
# The bar for the ten-seed mean allocation (issue 23).
ALLOCATION_TOLERANCE_PCT = 0.5


def gpusim_checkpoints(context, workload, extra_args):
    """gpusim's mean (over seeds) of each CSV column, by policy and percent of capacity arrived."""
    path = context.scratch_file(f"fgd-{workload}.csv")
    context.run("packing", SCENARIO, "--csv", path, "--force", *extra_args)
    by_point = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            by_point.setdefault((r["policy"], int(r["percent"])), []).append(r)
    return lambda policy, percent, column: mean(100 * float(r[column]) for r in by_point[(policy, percent)])


def ranking(score):
    """The policies from worst to best by `score` (the artifact's names)."""
    return " < ".join(sorted(POLICIES, key=score))


def allocation_rows(workload, gpusim):
    published = [r for r in read_published("fgd_atc23_alloc.csv") if r["workload"] == workload]
    paper = lambda policy, percent: mean(float(r[f"alloc_pct_at_{percent}"]) for r in published if r["policy"] == policy)
    rows = [
        Row(f"{policy} alloc @{percent}% (%)", paper(policy, percent), gpusim(ours, percent, "allocation_ratio"),
            ALLOCATION_TOLERANCE_PCT)
        for percent in (100, 130)
        for policy, ours in POLICIES.items()
    ]
    rows.append(Row("ranking @130%", ranking(lambda p: paper(p, 130)),
                    ranking(lambda p: gpusim(POLICIES[p], 130, "allocation_ratio"))))
    return rows


def compare_default(context):
    gpusim = gpusim_checkpoints(context, "default", [])
    published = read_published("fgd_atc23_frag_ratio_default.csv")
    frag = lambda policy, percent: mean(float(r[f"frag_ratio_pct_at_{percent}"]) for r in published if r["policy"] == policy)
    return allocation_rows("default", gpusim) + [
        Row(f"{policy} frag @{percent}% (%)", frag(policy, percent), gpusim(ours, percent, "frag_ratio"))
        for percent in (50, 70, 80, 90)
        for policy, ours in POLICIES.items()
    ]


COMPARISONS = [
    Comparison(
        name="fgd-default",
        title="FGD paper, default openb pod list, 10 seeds, against its artifact's figures",
        command=f"gpusim packing {SCENARIO}",
        compare=compare_default,
        quick=True,
        needs=("alibaba-gpu-v2023-openb/openb_pod_list_default.csv",),
    ),
]
