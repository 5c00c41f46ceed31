#!/usr/bin/env python3
"""The slowdown guard (docs/design/performance.md): counts the instructions a handful of fixed runs
execute, under valgrind's cachegrind, and fails when one rose more than 3 % over the count recorded in
results/instruction_counts.json. Instructions, not seconds: the count is the same whatever else the
machine is doing, so a 3 % rise is a change in the code, not noise.

    instruction_counts.py GPUSIM REPO BUILD_ID            check (exit 1 on a rise, 77 when not comparable)
    instruction_counts.py GPUSIM REPO BUILD_ID --update   record the counts (commit them saying why)

BUILD_ID names the compiler and build type: counts recorded by another compiler, or by a build that is
not Release, are not comparable, and the check is skipped saying so (exit 77, CTest's "skipped"); with
CI=true such a skip is a failure, since scripts/common.sh installs valgrind and builds Release. Counts
recorded on a CPU whose features pick other glibc routines are skipped too, in CI as well."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOLERANCE = 0.03
SKIPPED = 77
# glibc picks its string and math routines by these CPU features (valgrind shows the host's, less
# AVX-512): counts taken on a CPU with others differ by a few percent with no change in gpusim.
FEATURES = ("avx2", "bmi2", "erms", "fma", "movbe")


def cpu_features():
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    return [x for x in FEATURES if x in flags]


def count(gpusim, repo, args, scratch):
    """The instructions `gpusim ARGS` executes (cachegrind's I refs), run in the repository."""
    argv = [a.replace("{data}", os.path.join(repo, "data")).replace("{out}", scratch) for a in args]
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", gpusim] + argv,
                          cwd=repo, capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    if done.returncode != 0:
        sys.exit(f"instruction_counts: `gpusim {' '.join(argv)}` exited {done.returncode}:\n{done.stderr[-3000:]}")
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if not refs:
        sys.exit(f"instruction_counts: no instruction count in valgrind's output:\n{done.stderr[-3000:]}")
    return int(refs.group(1).replace(",", ""))


def skip(why):
    if os.environ.get("CI") == "true":
        sys.exit(f"instruction_counts: {why}; CI must compare them (scripts/common.sh installs valgrind, builds Release)")
    print(f"instruction_counts: skipped: {why}")
    return SKIPPED


def main():
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] != "--update"):
        sys.exit(__doc__)
    gpusim, repo, build_id = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    update = len(sys.argv) == 5
    path = os.path.join(repo, "results", "instruction_counts.json")
    with open(path) as f:
        recorded = json.load(f)
    if not shutil.which("valgrind"):
        return skip("valgrind is not installed")
    if not update and recorded["build"] != build_id:
        return skip(f"the counts were recorded by {recorded['build']!r}, this build is {build_id!r}")
    if not update and recorded["cpu_features"] != cpu_features():
        # Not a failure even in CI: the machine, not the change, would move the counts.
        print(f"instruction_counts: skipped: the counts were recorded on a CPU with {recorded['cpu_features']}, "
              f"this one has {cpu_features()} (of {list(FEATURES)}, which pick glibc's routines)")
        return SKIPPED
    risen = []
    with tempfile.TemporaryDirectory() as scratch:
        for run in recorded["runs"]:
            n = count(gpusim, repo, run["args"], scratch)
            before = run["instructions"]
            change = (n - before) / before if before else 0.0
            print(f"{run['name']:<24} {n:>15,} instructions  {change:+7.2%} against {before:,}")
            if change > TOLERANCE:
                risen.append(f"{run['name']} rose {change:+.2%}")
            if update:
                run["instructions"] = n
    if update:
        recorded["build"] = build_id
        recorded["cpu_features"] = cpu_features()
        with open(path, "w") as f:
            json.dump(recorded, f, indent=2)
            f.write("\n")
        print(f"recorded in {path}: commit it saying what made the counts move")
        return 0
    if risen:
        print(f"instruction_counts: FAILED: {'; '.join(risen)} (over {TOLERANCE:.0%}). If the rise is meant, record it with "
              f"`tests/instruction_counts.py build/bin/gpusim . '{build_id}' --update` in a commit that says why.")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
