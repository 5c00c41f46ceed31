#!/usr/bin/python3
"""The contended scale scenario (scenarios/scale/contended-10m.yaml, issue 22) at 1/100 with --set:
100,000 jobs on 1,000 GPUs, the same load per GPU. Under fifo+best-fit and fifo+fgd every job
completes and the queue is non-empty most of the time while jobs arrive: the fraction of the time
series' samples (every 10 minutes) with a pending job, up to the last arrival, is at least 60%.
(The full run is too slow for a test; its figures are in docs/design/performance.md.)

Usage: contended_scale_test.py GPUSIM_BINARY SOURCE_DIR
"""
import csv
import pathlib
import subprocess
import sys
import tempfile

SCENARIO = "scenarios/scale/contended-10m.yaml"
SCALE = 100
MIN_NONEMPTY = 0.6


def scaled_overrides():
    """--set values dividing the fleet, every class's count and its arrival rate by SCALE."""
    sets = [f"cluster.pools[0].count={12500 // SCALE}"]
    classes = [("serve", 5280000, 40000), ("train", 3664000, 27760)] + [(f"burst-{k:02d}", 96000, 19200) for k in range(11)]
    for i, (_, count, rate) in enumerate(classes):
        sets += [f"workload.generator.classes[{i}].count={count // SCALE}",
                 f"workload.generator.classes[{i}].arrival.rate_per_hour={rate / SCALE:g}"]
    return [a for s in sets for a in ("--set", s)]


def queue_nonempty_fraction(out):
    with open(out / "jobs.csv", newline="") as f:
        jobs = list(csv.DictReader(f))
    last_arrival = max(float(j["arrival_s"]) for j in jobs)
    statuses = {j["status"] for j in jobs}
    with open(out / "timeseries.csv", newline="") as f:
        pending = [int(r["pending"]) for r in csv.DictReader(f) if float(r["time_s"]) <= last_arrival]
    return len(jobs), statuses, sum(p > 0 for p in pending) / len(pending), max(pending)


def main():
    gpusim, root = sys.argv[1], pathlib.Path(sys.argv[2])
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for policy in ("fifo+best-fit", "fifo+fgd"):
            out = pathlib.Path(tmp) / policy
            subprocess.run([gpusim, "run", str(root / SCENARIO), "--data", str(root / "data"), "--out", str(out),
                            "--set", f"policy={policy}"] + scaled_overrides(), check=True, capture_output=True)
            jobs, statuses, fraction, peak = queue_nonempty_fraction(out)
            ok = jobs == 100000 and statuses == {"completed"} and fraction >= MIN_NONEMPTY
            print(f"{'ok  ' if ok else 'FAIL'} {policy}: {jobs} jobs, statuses {sorted(statuses)}, queue non-empty "
                  f"in {fraction:.1%} of the samples up to the last arrival (at least {MIN_NONEMPTY:.0%}), "
                  f"at most {peak} pending")
            failed |= not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
