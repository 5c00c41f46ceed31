"""Parameter sweeps: a grid of scenario fields x variants x policies, one row per run.

Locally the runs go to a process pool; given a dask.distributed.Client they run on its cluster.
The points and their order come from the same C++ as `gpusim sweep`, so the rows are the same
whichever runs them."""
from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from . import _core
from .api import _max_memory, _pandas, _resolve, load_scenario

if TYPE_CHECKING:
    import pandas as pd


def _value_text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def _one(task: dict) -> dict:
    """One sweep point, run in a worker process (module-level: it must pickle)."""
    from . import api  # a fresh process imports the package

    scenario = task["text_dict"] if task["text_dict"] is not None else task["path"]
    result = api.run(scenario, policy=task["policy"] or None, overrides=task["overrides"], data=task["data"],
                     max_memory=task["max_memory"])
    row = dict(task["columns"])
    if not task["policy"]:
        row["policy"] = result.summary["policy"]
    row.update({k: v for k, v in result.figures().items() if k not in row})
    return row


def sweep(scenario, grid: Mapping[str, Sequence[Any]], policies: Sequence[str] | None = None, overrides=None,
          data: str | None = None, client=None, workers: int | None = None,
          max_memory: int | str | None = None) -> pd.DataFrame:
    """Run every combination of `grid` ({path: [values]}) x the scenario's variants x `policies`.

    client: a dask.distributed.Client to run on its cluster; None runs on a local process pool of
    `workers` processes (default: one per core). Policies are names here (Python policy objects do
    not travel to other processes). Returns one row per run in a fixed order. max_memory: as
    load_scenario's, for the scenario and for each point as it runs."""
    load_scenario(scenario, overrides, None, data, max_memory=max_memory)  # fail early, with the loader's message
    path, text, sets, data = _resolve(scenario, overrides, None, data)
    axes = [(p, [_value_text(v) for v in values]) for p, values in grid.items()]
    points = _core.sweep_points(path, text, sets, data, axes, list(policies or []), _max_memory(max_memory))
    text_dict = json.loads(text) if text is not None else None
    tasks = [{"path": path, "text_dict": text_dict, "columns": p["columns"], "overrides": p["overrides"],
              "policy": p["policy"], "data": data, "max_memory": max_memory} for p in points]
    if client is not None:
        futures = client.map(_one, tasks, pure=False)
        rows = client.gather(futures)
    else:
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count()) as pool:
            rows = list(pool.map(_one, tasks))
    return _pandas().DataFrame(rows)
