#!/usr/bin/env python3
"""What a policy written in Python costs: the same decisions made by C++ and by Python.

Runs each replay REPS times under the built-in C++ policy and under its Python re-implementation
(tests/python/policies_for_tests.py; the test suite checks both give byte-identical figures) and
prints the median wall time of each and the ratio. Google Benchmark measures the C++ side in
gpusim_bench; this script needs the Python module, so it runs under Debian's python3:

    PYTHONPATH=build/python /usr/bin/python3 bench/python_policy_benchmark.py
"""
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))

import gpusim  # noqa: E402
from policies_for_tests import BestFit, Fifo, FirstFit  # noqa: E402

REPS = 5
SMALL = {"cluster": {"pools": [{"name": "t4", "node": "t4-8x", "count": 5, "sharing": "fractional"}]}}
CASES = [
    ("openb-default (8,152 pods, 1,523 nodes)", ROOT / "scenarios/openb-default.yaml", None,
     "fifo+best-fit", (Fifo(), BestFit())),
    ("openb pods on 5 x 8 T4 (queues build up)", ROOT / "scenarios/openb-default.yaml", SMALL,
     "fifo+best-fit", (Fifo(), BestFit())),
    ("quickstart (250 jobs, 3 nodes)", ROOT / "scenarios/quickstart.yaml", None,
     "fifo+first-fit", (Fifo(), FirstFit())),
]


def median_seconds(scenario, policy) -> tuple[float, dict]:
    times, summary = [], None
    for _ in range(REPS):
        t0 = time.perf_counter()
        r = gpusim.run(scenario, policy=policy)
        times.append(time.perf_counter() - t0)
        summary = r.summary
    return statistics.median(times), summary


def main() -> None:
    print(f"{'replay':<44} {'C++ policy':>12} {'Python policy':>14} {'ratio':>7}")
    for label, path, overrides, cpp, py in CASES:
        scenario = gpusim.load_scenario(path, overrides=overrides)
        cpp_s, a = median_seconds(scenario, cpp)
        py_s, b = median_seconds(scenario, py)
        a.pop("policy"), b.pop("policy")
        same = "" if a == b else "  (figures differ!)"
        print(f"{label:<44} {cpp_s * 1e3:>9.1f} ms {py_s * 1e3:>11.1f} ms {py_s / cpp_s:>6.1f}x{same}")


if __name__ == "__main__":
    main()
