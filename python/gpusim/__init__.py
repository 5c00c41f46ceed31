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
from .policy import Placement, QueueOrder, Router, Scheduler
from .sweep import sweep


def register_router(cls, name: str | None = None):
    """Make a gpusim.Router subclass available to scenarios as `router: NAME` (default cls.name);
    registering a name again replaces it. Returns the class, so it also works as a decorator."""
    from . import _core

    _core.register_router(cls, name or cls.name, cls.description)
    return cls


__all__ = [
    "run", "compare", "sweep", "load_scenario", "catalog", "mig", "outputs", "report", "table_rows",
    "Result", "Scenario", "Catalog", "RunNote",
    "QueueOrder", "Placement", "Scheduler", "Router", "register_router",
    "InputError", "PolicyError", "AuditError", "OutputError", "__version__", "plot",
]


def __getattr__(name: str):
    # gpusim.plot (matplotlib, numpy) loads on first use, as pandas does: `import gpusim` stays fast.
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    raise AttributeError(f"module 'gpusim' has no attribute {name!r}")
