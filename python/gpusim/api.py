"""run, compare, load_scenario, catalog and mig: the Python face of the engine."""
from __future__ import annotations

import json
import numbers
import os
import warnings
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence, Union

from . import _core

if TYPE_CHECKING:
    import pandas as pd


def _pandas():
    """pandas, imported on first use: `import gpusim` does not pay for it (docs/guide/python.md)."""
    import pandas

    return pandas


ScenarioLike = Union[str, os.PathLike, Mapping[str, Any], "Scenario"]


def _json(value, where: str) -> str:
    """`value` as JSON, which the scenario reader (YAML) reads back unchanged; numpy's scalars and arrays
    and other numbers (numbers.Integral, numbers.Real) as Python's own; anything else a TypeError naming `where`."""

    def plain(v):
        if isinstance(v, numbers.Integral):
            return int(v)
        if isinstance(v, numbers.Real):
            return float(v)
        if callable(getattr(v, "tolist", None)):  # numpy's bool_, str_ and arrays
            return v.tolist()
        raise TypeError(f"{where}: expected a number, a string, a bool, a list or a dict, "
                        f"got {type(v).__module__}.{type(v).__qualname__}")

    return json.dumps(value, default=plain)


def _overrides(overrides, seed) -> list[str]:
    """{"cluster.pools[0].count": 8} or ["cluster.pools[0].count=8"] -> ["path=value", ...]."""
    out: list[str] = []
    if isinstance(overrides, Mapping):
        out += [f"{path}={_json(value, f'overrides[{path!r}]')}" for path, value in overrides.items()]
    elif overrides is not None:
        items = [] if isinstance(overrides, str) else list(overrides)
        wrong = next((x for x in items if not isinstance(x, str)), None)
        if isinstance(overrides, str) or wrong is not None:
            got = f"a list holding {type(wrong).__name__} {wrong!r}" if wrong is not None else "a string"
            raise TypeError(f"overrides must be a dict {{path: value}} or a list of 'path=value' strings, got {got}")
        out += items
    if seed is not None:
        out.append(f"seed={int(seed)}")
    return out


def _source(scenario: ScenarioLike):
    """(path, text) for the loader: a file, or a dict written out as JSON (its path names it in errors)."""
    if isinstance(scenario, Scenario):
        return scenario._path, scenario._text
    if isinstance(scenario, Mapping):
        return "<dict>", _json(scenario, "scenario")
    if isinstance(scenario, (str, os.PathLike)):
        return os.fspath(scenario), None
    raise TypeError(f"scenario must be a path, a dict or a gpusim.Scenario, not {type(scenario).__name__}")


class Scenario:
    """A loaded, validated scenario. Pass it to run() or compare() to skip reloading."""

    def __init__(self, core: _core.Scenario, path: str, text: str | None, overrides: list[str], data: str | None,
                 variant: str | None = None):
        self._core, self._path, self._text, self._overrides, self._data = core, path, text, overrides, data
        self.variant = variant  # the variant it was loaded as; reloading with more overrides keeps it

    name = property(lambda self: self._core.name)
    seed = property(lambda self: self._core.seed)
    policy = property(lambda self: self._core.policy, doc="The scenario's policy, QUEUE+PLACEMENT")
    variants = property(lambda self: self._core.variants, doc="Names of the scenario's variants")
    file = property(lambda self: self._core.file)

    @property
    def config(self) -> dict:
        """The scenario tree after overrides, as dicts and lists."""
        return self._core.config

    @property
    def pools(self) -> pd.DataFrame:
        return _pandas().DataFrame(self._core.pools)

    @property
    def jobs(self) -> pd.DataFrame:
        """Every job of the workload (traces, inline jobs, generators), in arrival order."""
        return _pandas().DataFrame(self._core.job_columns())

    def __repr__(self) -> str:
        pools = self._core.pools
        return (f"<gpusim.Scenario {self.name!r}: {len(pools)} pools, {sum(p['nodes'] for p in pools)} node slots, "
                f"policy {self.policy}, seed {self.seed}>")


def _resolve(scenario: ScenarioLike, overrides, seed, data):
    """(path, text, overrides, data) for the loader; a Scenario brings its own overrides and data."""
    path, text = _source(scenario)
    sets = (scenario._overrides if isinstance(scenario, Scenario) else []) + _overrides(overrides, seed)
    if data is None and isinstance(scenario, Scenario):
        data = scenario._data
    return path, text, sets, data


def _max_memory(max_memory: int | str | None) -> str | None:
    """max_memory as the loader takes it: bytes (an int) or a size such as "4GiB", as --max-memory."""
    return None if max_memory is None else str(max_memory)


def load_scenario(scenario: ScenarioLike, overrides=None, seed=None, data: str | None = None,
                  variant: str | None = None, max_memory: int | str | None = None) -> Scenario:
    """Load and validate a scenario (a path or a dict), or one of its variants; errors raise
    gpusim.InputError with the CLI's message. max_memory: refuse a scenario whose estimated memory is
    over this many bytes (an int, or a size such as "4GiB"); default, as the CLI's: half of physical memory."""
    if isinstance(scenario, Scenario):
        if overrides is None and seed is None and data is None and variant is None and max_memory is None:
            return scenario
        variant = variant if variant is not None else scenario.variant
    path, text, sets, data = _resolve(scenario, overrides, seed, data)
    if variant is None:
        return Scenario(_core.load_scenario(path, text, sets, data, _max_memory(max_memory)), path, text, sets, data)
    variants = _core.load_variants(path, text, sets, data, _max_memory(max_memory))
    for name, core in variants:
        if name == variant:
            return Scenario(core, path, text, sets, data, variant)
    known = ", ".join(name for name, _ in variants if name) or "(none)"
    raise _core.InputError(f"{path}: variant: no variant '{variant}'; its variants: {known}")


class RunNote(UserWarning):
    """A default a run relied on or a figure it could not give (summary.json's run_notes: a reference GPU the
    scenario did not name, an unpriced pool), raised as a warning by run() and compare(), as the CLI prints them
    under its table. warnings.filterwarnings("ignore", category=gpusim.RunNote) silences them."""


def _warn_notes(summary: dict) -> None:
    for note in summary.get("run_notes") or []:
        warnings.warn(note, RunNote, stacklevel=3)


class Result:
    """One run: .summary (summary.json as a dict), .jobs, .timeseries, .pool_timeseries, .gpus, .cost, .tenants,
    .services and .requests (DataFrames)."""

    def __init__(self, scenario: Scenario, run: _core.Run):
        self.scenario = scenario
        self._run = run
        self.summary: dict = json.loads(run.summary_json())
        self._frames: dict[str, pd.DataFrame] = {}

    def _frame(self, name: str) -> pd.DataFrame:
        if name not in self._frames:
            # Columns filled in C++, typed as read_csv types the run directory's CSV file.
            pd = _pandas()
            # copy=False: the arrays are the frame's alone; pandas need not copy them into blocks.
            frame = pd.DataFrame(getattr(self._run, f"{name}_columns")(), copy=False)
            if frame.empty:  # read_csv of a header alone has an object index
                frame.index = pd.Index([], dtype=object)
            self._frames[name] = frame
        return self._frames[name]

    jobs = property(lambda self: self._frame("jobs"), doc="One row per job (jobs.csv)")
    timeseries = property(lambda self: self._frame("timeseries"), doc="The cluster, sampled (timeseries.csv)")
    pool_timeseries = property(lambda self: self._frame("pool_timeseries"), doc="Each pool, sampled (pool_timeseries.csv)")
    gpus = property(lambda self: self._frame("gpus"), doc="One row per GPU (gpus.csv)")
    cost = property(lambda self: self._frame("cost"), doc="Cost per pool, market, tenant, kind, model (cost.csv)")
    tenants = property(lambda self: self._frame("tenants"),
                       doc="Per namespace: waits, GPUs held against fair share, preemptions (tenants.csv; empty without tenancy:)")
    services = property(lambda self: self._frame("services"),
                        doc="Per inference service: requests, latency percentiles, SLO attainment, cost per token (services.csv)")
    requests = property(lambda self: self._frame("requests"),
                        doc="One row per request of the services (requests.csv; empty unless run(..., outputs=['requests']))")
    replicas = property(lambda self: self._frame("replicas"),
                        doc="Each change of a service's desired, created and ready replicas (replicas.csv)")
    seconds = property(lambda self: self._run.seconds, doc="Wall time of the simulation")
    events = property(lambda self: self._run.events)

    def figures(self) -> dict[str, float]:
        """Every number of the summary by dotted path ('jct_s.p99'), as a sweep row has them."""
        return dict(_core.flatten_summary(self._run.summary_json()))

    def table(self) -> str:
        """The run table `gpusim run` prints (its rows: table_rows())."""
        return _core.run_table(self._run.summary_json())

    def write(self, directory: str, force: bool = False) -> None:
        """Write the run directory (summary.json, jobs.csv, ...) as `gpusim run --out` does, with the
        on-request outputs the run was asked for (run(..., outputs=["trace"])): into a temporary
        directory beside it, renamed into place when complete. `force` replaces an existing run
        directory; a file, a symlink or a directory with other files is refused (ValueError)."""
        self._run.write(os.fspath(directory), force)

    def report(self, path: str, force: bool = False) -> None:
        """Write the run's HTML report (as `gpusim run --report`): one self-contained file, plots as
        inline SVG. Its heat map and node events need run(..., outputs=["occupancy"]); without it the
        page says so. An existing file is refused (ValueError) unless `force`."""
        self._run.report(os.fspath(path), force)

    def __repr__(self) -> str:
        s = self.summary
        unpriced = " + unpriced" if s.get("unpriced_pools") else ""
        return (f"<gpusim.Result {s['scenario']} {s['policy']}: cost {s['cost_usd']:,.2f} USD{unpriced}, "
                f"allocation {s['allocation_ratio']:.1%}, jobs completed {s['jobs_completed']}/{s['jobs_total']}>")


def run(scenario: ScenarioLike, policy=None, overrides=None, seed: int | None = None, data: str | None = None,
        variant: str | None = None, outputs: Sequence[str] = (), audit: bool = False,
        max_memory: int | str | None = None) -> Result:
    """Simulate a scenario (path, dict or Scenario), or one of its variants, under its policy or `policy`.

    policy: None (the scenario's), "QUEUE+PLACEMENT", a gpusim.QueueOrder or gpusim.Placement
    instance (composed with the other half of the scenario's policy), a (queue, placement) pair of
    names or instances, or a gpusim.Scheduler instance. overrides: {path: value} or ["path=value"],
    as --set. seed: overrides the scenario's seed. outputs: on-request outputs Result.write() adds
    (e.g. ["trace"]; see gpusim.outputs()). audit: check the run's invariants after every event
    (raises gpusim.AuditError at the first broken one). max_memory: as load_scenario's."""
    s = load_scenario(scenario, overrides, seed, data, variant, max_memory)
    result = Result(s, _core.simulate(s._core, policy, list(outputs), audit))
    _warn_notes(result.summary)
    return result


def report(run_dir: str, path: str, force: bool = False) -> None:
    """Write the HTML report of a run directory (gpusim run --out DIR, or Result.write) to `path`,
    as `gpusim report RUN_DIR --out PATH` does: the same renderer, the same page. An existing file is
    refused (ValueError) unless `force`; a missing or malformed run directory raises InputError."""
    _core.report(os.fspath(run_dir), os.fspath(path), force)


def outputs() -> pd.DataFrame:
    """The files a run directory can hold: name, file, description, and whether every write() has it."""
    return _pandas().DataFrame(_core.outputs(), columns=["name", "file", "description", "by_default"])


def table_rows() -> pd.DataFrame:
    """The figures the run and compare tables show, in their order, as declared once in C++ (the HTML
    report and gpusim check read the same rows): label, key (a JSON pointer into summary.json; as a
    compare() column: its dotted path) and which way is better ("lower", "higher" or "")."""
    rows = [(label, pointer, pointer.lstrip("/").replace("/", "."), better) for label, pointer, better in _core.table_rows()]
    return _pandas().DataFrame(rows, columns=["label", "pointer", "column", "better"])


def compare(scenario: ScenarioLike, policies: Sequence | None = None, overrides=None, seed: int | None = None,
            data: str | None = None, max_memory: int | str | None = None, workers: int = 1) -> pd.DataFrame:
    """Every variant of the scenario under every policy (default: the scenario's): one row each,
    with the columns variant, policy, then every figure of the summary by dotted path; the runs
    `gpusim compare` makes. policies: as run()'s policy, each. max_memory: as load_scenario's.
    workers: runs at once (0: one per core), as `gpusim compare --jobs`; with a policy written in
    Python the runs go one at a time, in order."""
    path, text, sets, data = _resolve(scenario, overrides, seed, data)
    runs = _core.compare(path, text, sets, data, list(policies or []), _max_memory(max_memory), workers)
    rows = []
    for variant, policy, summary in runs:
        _warn_notes(json.loads(summary))
        rows.append({"variant": variant, "policy": policy, **dict(_core.flatten_summary(summary))})
    frame = _pandas().DataFrame(rows)
    return frame if runs[0][0] else frame.drop(columns="variant")


class Catalog:
    """The built-in hardware catalog: GPU models (with MIG tables) and node templates."""

    @property
    def gpus(self) -> list:
        return list(_core.builtin_gpus())

    @property
    def nodes(self) -> list:
        return list(_core.builtin_nodes())

    def gpu(self, name: str):
        for g in _core.builtin_gpus():
            if g.name == name or name in g.aliases:
                return g
        raise KeyError(f"unknown GPU model {name!r}; known: {', '.join(g.name for g in _core.builtin_gpus())}")

    def node(self, name: str):
        for n in _core.builtin_nodes():
            if n.name == name:
                return n
        raise KeyError(f"unknown node template {name!r}; known: {', '.join(n.name for n in _core.builtin_nodes())}")

    def gpu_frame(self) -> pd.DataFrame:
        fields = ["name", "vendor", "memory_mib", "sms", "bf16_tflops", "fp8_tflops", "fp32_tflops",
                  "memory_bandwidth_gb_per_s", "tdp_w", "fabric", "link_gb_per_s", "links", "pcie_gen", "compute_capability"]
        return _pandas().DataFrame([{**{f: getattr(g, f) for f in fields}, "mig": g.mig is not None, "source": g.source}
                             for g in self.gpus])

    def node_frame(self) -> pd.DataFrame:
        fields = ["name", "gpu", "gpus", "cpu_milli", "memory_mib", "price_per_node_hour_usd",
                  "spot_price_per_node_hour_usd", "source"]
        return _pandas().DataFrame([{f: getattr(n, f) for f in fields} for n in self.nodes])

    def table(self, view: str = "all", filter: str | None = None, gpu: str | None = None) -> str:
        """The text `gpusim catalog VIEW [--filter F] [--gpu G]` prints; view: all, gpus, nodes, prices, mig or models."""
        return _core.catalog_text(view, filter, gpu)

    def json(self, view: str = "all", filter: str | None = None, gpu: str | None = None) -> dict:
        """What `gpusim catalog VIEW ... --json` prints, parsed: every field, with each entry's source."""
        return json.loads(_core.catalog_json(view, filter, gpu))

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return f"<gpusim.Catalog: {len(self.gpus)} GPU models, {len(self.nodes)} node templates>"


def catalog() -> Catalog:
    return Catalog()


class Mig:
    """MIG geometry of one GPU model: its profiles and every valid layout (as `gpusim mig`)."""

    def __init__(self, model: str):
        self.model = _core.mig_model(model)
        self.table = self.model.mig

    @property
    def profiles(self) -> pd.DataFrame:
        fields = ["name", "profile_id", "memory_mib", "sms", "compute_slices", "memory_slices", "starts", "max_count",
                  "media_extensions"]
        return _pandas().DataFrame([{f: getattr(p, f) for f in fields} for p in self.table.profiles])

    def layouts(self, maximal: bool = False) -> pd.DataFrame:
        """One row per valid layout: its description, whether it is maximal, and its instances (profile@start)."""
        names = [p.name for p in self.table.profiles]
        rows = [{"layout": self.table.describe(o.counts), "maximal": o.maximal,
                 "instances": " ".join(f"{names[p]}@{s}" for p, s in o.instances)}
                for o in self.table.layouts() if o.maximal or not maximal]
        return _pandas().DataFrame(rows)

    def __repr__(self) -> str:
        return f"<gpusim.Mig {self.model.name}: {len(self.table.profiles)} profiles>"


def mig(model: str) -> Mig:
    """MIG profiles and layouts of a GPU model; gpusim.InputError naming the MIG-capable models if unknown."""
    return Mig(model)
