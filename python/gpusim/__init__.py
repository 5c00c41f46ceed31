"""gpusim: a deterministic discrete-event simulator of GPU clusters.

    import gpusim
    r = gpusim.run("scenarios/quickstart.yaml")
    r.summary["cost_usd"], r.jobs.head()
    gpusim.compare("scenarios/sharing-strategies.yaml")

Same scenario and seed, byte-identical results: the figures come from the same C++ engine and
writers as the `gpusim` command.
"""
from ._core import AuditError, InputError, OutputError, PolicyError, __version__
from .api import (Catalog, Result, RunNote, Scenario, catalog, compare, load_scenario, mig, outputs, report, run,
                  table_rows)
from .policy import Placement, QueueOrder, Scheduler
from .sweep import sweep

__all__ = [
    "run", "compare", "sweep", "load_scenario", "catalog", "mig", "outputs", "report", "table_rows",
    "Result", "Scenario", "Catalog", "RunNote",
    "QueueOrder", "Placement", "Scheduler",
    "InputError", "PolicyError", "AuditError", "OutputError", "__version__", "plot",
]


def __getattr__(name: str):
    # gpusim.plot (matplotlib, numpy) loads on first use, as pandas does: `import gpusim` stays fast.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'gpusim' has no attribute {name!r}")
