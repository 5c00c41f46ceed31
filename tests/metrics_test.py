#!/usr/bin/python3
"""metrics.om (issue 21) as a user makes it: `gpusim run SCENARIO --metrics=FILE` and `--out DIR --metrics`
on shipped scenarios; the file's structure (OpenMetrics text: one TYPE/HELP block per family, every
sample timestamped, each series' timestamps increasing, `# EOF` last), byte-identical reruns, and, when
promtool is installed, `promtool tsdb create-blocks-from openmetrics` accepting it. With CI=true a
missing promtool is a failure (scripts/common.sh installs Debian's prometheus package).

Usage: metrics_test.py GPUSIM_BINARY SOURCE_DIR
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+) (\d+(?:\.\d+)?)$')
DCGM = ["DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE",
        "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"]
OWN = ["gpusim_pending_pods", "gpusim_running_pods", "gpusim_ready_gpus", "gpusim_allocated_gpus", "gpusim_billed_nodes",
       "gpusim_cost_usd"]


def check_structure(text, start_s, step_s):
    """Problems with an OpenMetrics file as promtool's backfill reads it (and as gpusim writes it)."""
    problems = []
    if not text.endswith("# EOF\n"):
        problems.append("does not end with '# EOF'")
    families, current, last = [], None, {}
    for n, line in enumerate(text.splitlines()[:-1], 1):
        if line.startswith("# TYPE "):
            name, kind = line.split()[2:4]
            if name in families:
                problems.append(f"line {n}: family {name} twice")
            families.append(name)
            current = (name, kind)
            continue
        if line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m or current is None:
            problems.append(f"line {n}: not a sample: {line[:120]}")
            continue
        name, labels, value, ts = m.groups()
        expected = current[0] + ("_total" if current[1] == "counter" else "")
        if name != expected:
            problems.append(f"line {n}: {name} in family {current[0]}")
        float(value)
        t = float(ts)
        if (t - start_s) % step_s:
            problems.append(f"line {n}: timestamp {ts} not on the step grid")
        key = (name, labels)
        if key in last and last[key] >= t:
            problems.append(f"line {n}: series {name}{labels or ''} goes back in time")
        last[key] = t
    if families != DCGM + OWN:
        problems.append(f"families {families}")
    return problems + check_energy(text, step_s)


def check_energy(text, step_s):
    """Each GPU's energy counter (mJ) never falls, and grows by its power gauge (W, one decimal) x the step."""
    problems, series = [], {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if m and m.group(1) in ("DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"):
            series.setdefault((m.group(2), float(m.group(4))), {})[m.group(1)] = float(m.group(3))
    before = {}
    for (labels, t), v in sorted(series.items(), key=lambda kv: kv[0][1]):
        if len(v) != 2:
            problems.append(f"{labels} at {t}: power and energy not both sampled")
            continue
        mj = v["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"]
        if labels in before and before[labels][0] == t - step_s:
            grown = (mj - before[labels][1]) / 1e3 / step_s
            if abs(grown - v["DCGM_FI_DEV_POWER_USAGE"]) > 0.06:
                problems.append(f"{labels} at {t}: energy grew {grown:.3f} W, power says {v['DCGM_FI_DEV_POWER_USAGE']}")
        if labels in before and mj < before[labels][1]:
            problems.append(f"{labels} at {t}: the energy counter fell")
        before[labels] = (t, mj)
    return problems


def main():
    binary, root = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    failures = []
    promtool = shutil.which("promtool")
    if not promtool and os.environ.get("CI") == "true":
        failures.append("promtool is missing (CI=true): install Debian's prometheus package (scripts/common.sh)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)

        def gpusim(*args):
            done = subprocess.run([str(binary), *args], cwd=tmp, capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                failures.append(f"gpusim {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
            return done

        # quickstart: 1h steps over a week; partition-10xa100: MIG instances and time-sliced pods.
        for name, start, start_s, step_s in [("quickstart", "2026-03-01", 1772323200, 3600),
                                              ("partition-10xa100", "2026-01-01T00:00:00Z", 1767225600, 3600)]:
            scenario = str(root / "scenarios" / f"{name}.yaml")
            gpusim("run", scenario, f"--metrics={name}.om", "--metrics-start", start)
            gpusim("run", scenario, "--out", f"{name}-run", "--metrics", "--metrics-start", start)
            path = tmp / f"{name}.om"
            if not path.exists():
                continue
            text = path.read_text()
            in_dir = tmp / f"{name}-run" / "metrics.om"
            if not in_dir.exists() or in_dir.read_text() != text:
                failures.append(f"{name}: --out DIR --metrics wrote another metrics.om than --metrics=FILE")
            failures += [f"{name}: {p}" for p in check_structure(text, start_s, step_s)]
            print(f"{name}: {len(text)} bytes, {text.count(chr(10))} lines")
            if name == "partition-10xa100" and 'GPU_I_PROFILE="1g.10gb"' not in text:
                failures.append(f"{name}: no MIG instance series")
            if promtool:
                done = subprocess.run([promtool, "tsdb", "create-blocks-from", "openmetrics", str(path), str(tmp / f"{name}-tsdb")],
                                      capture_output=True, text=True, timeout=600)
                if done.returncode != 0:
                    failures.append(f"{name}: promtool exit {done.returncode}\n{done.stderr[-2000:]}")
                else:
                    print(f"{name}: promtool created {len(list((tmp / f'{name}-tsdb').iterdir()))} blocks")
        # The same run twice: the same bytes.
        gpusim("run", str(root / "scenarios" / "quickstart.yaml"), "--metrics=again.om", "--metrics-start", "2026-03-01")
        if (tmp / "again.om").exists() and (tmp / "again.om").read_bytes() != (tmp / "quickstart.om").read_bytes():
            failures.append("quickstart: metrics.om differs between two runs")
        # --force replaces an existing file.
        gpusim("run", str(root / "scenarios" / "quickstart.yaml"), "--metrics=again.om", "--force")
    if not promtool:
        print("promtool not installed: the backfill check was skipped")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
