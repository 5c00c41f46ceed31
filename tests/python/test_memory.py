"""Bounded memory from Python (issue 19): the loader refuses what the CLI refuses, with the same limit
(max_memory=, default half of physical memory) and the same messages, before it allocates."""
import subprocess

import pytest

import gpusim


def scenario(jobs=None, **more):
    s = {"name": "m", "seed": 1,
         "cluster": {"pools": [{"name": "p", "node": "dgx-a100-80gb", "count": 1}]},
         "workload": {"jobs": jobs or [{"name": "j", "gpus": 1, "duration": "1m", "count": 1000}]}}
    s.update(more)
    return s


def test_a_huge_inline_count_is_refused_naming_the_field():
    with pytest.raises(gpusim.InputError, match=r"workload\.jobs\[0\]\.count.*1000000000 jobs.*max_memory="):
        gpusim.load_scenario(scenario([{"name": "j", "gpus": 1, "duration": "1h", "count": 1_000_000_000}]))


def test_a_step_of_a_microsecond_over_a_day_is_refused():
    with pytest.raises(gpusim.InputError, match=r"outputs\.timeseries_step.*time-series rows"):
        gpusim.run(scenario(horizon="1d", outputs={"timeseries_step": "1us"}))


def test_max_memory_lowers_the_limit_in_bytes_or_with_units():
    assert len(gpusim.load_scenario(scenario()).jobs) == 1000
    for limit in (65536, "64KiB"):
        with pytest.raises(gpusim.InputError, match=rf"memory limit of 64\.0 KiB \(max_memory {limit}\)"):
            gpusim.load_scenario(scenario(), max_memory=limit)
    with pytest.raises(gpusim.InputError, match=r"workload\.jobs\[0\]\.count"):
        gpusim.compare(scenario(), ["fifo+first-fit"], max_memory="64KiB")
    with pytest.raises(gpusim.InputError, match=r"workload\.jobs\[0\]\.count"):
        gpusim.sweep(scenario(), {"seed": [1, 2]}, max_memory="64KiB", workers=1)
    # A point the grid makes larger is refused by its own run.
    with pytest.raises(gpusim.InputError, match=r"workload\.jobs\[0\]\.count.*max_memory 1MiB"):
        gpusim.sweep(scenario(), {"workload.jobs.0.count": [10, 100000]}, max_memory="1MiB", workers=1)
    with pytest.raises(gpusim.InputError, match="max_memory: expected a memory size"):
        gpusim.run(scenario(), max_memory="lots")


def test_nested_aliases_are_refused_as_by_the_cli(tmp_path, cli):
    lines = ["name: laughs", "lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"lol{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 13)]
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(gpusim.InputError, match=r"aliases \(\*name\) repeat this block") as e:
        gpusim.load_scenario(path)
    out = subprocess.run([cli, "run", str(path)], capture_output=True, text=True)
    assert out.returncode == 2
    assert str(e.value) in out.stderr
