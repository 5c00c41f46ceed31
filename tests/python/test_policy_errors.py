"""A Python policy's mistakes come back as errors that say what went wrong: an id the view does not
have is an IndexError naming it and the valid range, and a method returning the wrong type (or NaN)
is a gpusim.PolicyError naming the policy's class, the method and the job."""
import math
import re

import pytest

import gpusim
from policies_for_tests import Fifo, GreedyScheduler


@pytest.fixture
def quick(root):
    return root / "scenarios" / "quickstart.yaml"


# --- ids given to the view

def probe_placement(probe):
    """A first-fit placement that runs probe(view, job) at its first score() call."""

    class Probe(gpusim.Placement):
        def score(self, view, job, node):
            probe(view, job)
            return 0.0

    return Probe()


# (view method, the argument to make bad, the other arguments' values) -> kind of id, owner
ACCESSORS = [
    ("job", 0, ()),
    ("node", 0, ()),
    ("gpu", 0, ()),
    ("pool", 0, ()),
    ("node_gpus", 0, ()),
    ("is_pending", 0, ()),
    ("deadline_s", 0, ()),
    ("waited_s", 0, ()),
    ("gpus_to_place", 0, ()),
    ("fits_on_node", 0, ("job", 0)),
    ("fits_on_node", 1, ("job", 0)),
    ("node_admits", 0, ("job", 0)),
    ("node_admits", 1, ("job", 0)),
    ("gpu_fits", 0, ("job", 0)),
    ("gpu_fits", 1, ("job", 0)),
    ("fitting_gpus", 0, ("job", 0)),
    ("fitting_gpus", 1, ("job", 0)),
    ("gpu_demand", 0, ("job", 0)),
    ("gpu_demand", 1, ("job", 0)),
]
# What each argument of each method is an id of.
KINDS = {
    "job": ["job"], "node": ["node"], "gpu": ["GPU"], "pool": ["pool"], "node_gpus": ["node"],
    "is_pending": ["job"], "deadline_s": ["job"], "waited_s": ["job"], "gpus_to_place": ["job"],
    "fits_on_node": ["job", "node"], "node_admits": ["job", "node"], "gpu_fits": ["job", "GPU"],
    "fitting_gpus": ["job", "node"], "gpu_demand": ["job", "pool"],
}


def counts(view, scenario):
    return {"job": len(scenario.jobs), "node": view.node_count, "GPU": view.gpu_count, "pool": len(scenario.pools)}


@pytest.mark.parametrize("bad", ["end", 10**6, -1, 2**70])
@pytest.mark.parametrize("method,position,others", ACCESSORS, ids=[f"{m}-arg{p}" for m, p, _ in ACCESSORS])
def test_view_ids_out_of_range_are_index_errors(quick, method, position, others, bad):
    scenario = gpusim.load_scenario(quick)
    seen = {}

    def probe(view, job):
        if seen:
            return
        kind = KINDS[method][position]
        n = counts(view, scenario)[kind]
        value = n if bad == "end" else bad
        args = [job if o == "job" else o for o in others] if others else [None]
        args[position] = value
        with pytest.raises(IndexError) as e:
            getattr(view, method)(*args)
        owner = "run" if kind == "job" else "cluster"
        seen["message"] = str(e.value)
        seen["want"] = f"{kind} {value} is out of range: the {owner} has {kind}s 0..{n - 1}"

    gpusim.run(quick, policy=("fifo", probe_placement(probe)))
    assert seen["message"] == seen["want"]


@pytest.mark.parametrize("bad", ["3", 1.5, None, True])
def test_view_ids_of_the_wrong_type_are_type_errors(quick, bad):
    seen = {}

    def probe(view, job):
        if not seen:
            with pytest.raises(TypeError) as e:
                view.node(bad)
            seen["message"] = str(e.value)

    gpusim.run(quick, policy=("fifo", probe_placement(probe)))
    assert seen["message"].startswith("a node id must be an int, not ")


def test_view_ids_in_range_still_work(quick):
    """The last id of each kind is valid, and numpy's ints are ids."""
    np = pytest.importorskip("numpy")
    seen = {}

    def probe(view, job):
        if not seen:
            last = view.node_count - 1
            seen["node"] = view.node(np.int64(last)).name
            seen["gpu"] = view.gpu(view.gpu_count - 1).node == last
            seen["gpus"] = view.node_gpus(last)[-1] == view.gpu_count - 1

    gpusim.run(quick, policy=("fifo", probe_placement(probe)))
    assert seen["node"] and seen["gpu"] and seen["gpus"]


def test_slots_an_autoscaled_pool_has_not_provisioned_read_as_off_nodes(root):
    """An autoscaled pool reserves ids up to its maximum but builds a node only when it provisions
    one: every id below node_count is still valid, and a slot not built is an off node."""
    seen = {}

    def probe(view, job):
        if not seen:
            last = view.node_count - 1  # autoscale.yaml: one pool of up to 8 nodes, one at the start
            node = view.node(last)
            seen["node"] = (node.name, node.ready, node.gpu_count, node.first_gpu)
            seen["gpus"] = view.node_gpus(last)
            seen["gpu"] = view.gpu(view.gpu_count - 1).node
            seen["fits"] = (view.fits_on_node(job, last), view.node_admits(job, last), view.fitting_gpus(job, last),
                            view.gpu_fits(job, view.gpu_count - 1))

    gpusim.run(root / "scenarios" / "autoscale.yaml", policy=("fifo", probe_placement(probe)))
    assert seen["node"] == ("a100-7", False, 8, 56)
    assert seen["gpus"] == list(range(56, 64))
    assert seen["gpu"] == 7
    assert seen["fits"] == (False, False, [], False)


# --- what policy methods return

def policy_error(run, *parts):
    """Runs `run`, expects a PolicyError, and checks its message holds each of `parts` (regexes)."""
    with pytest.raises(gpusim.PolicyError) as e:
        run()
    for part in parts:
        assert re.search(part, str(e.value)), (part, str(e.value))
    return str(e.value)


@pytest.mark.parametrize("value", ["x", math.nan, None, [1.0], {"a": 1}])
def test_placement_score_of_the_wrong_type(quick, value):
    class BadScore(gpusim.Placement):
        def score(self, view, job, node):
            return value

    policy_error(lambda: gpusim.run(quick, policy=("fifo", BadScore())),
                 r"^Python policy BadScore: score\(job \d+, node \d+\) returned ", re.escape(repr(value)),
                 "must return a number, not NaN")


@pytest.mark.parametrize("value", [math.nan, math.inf, "soon", None, 2**80, (1, "a"), (1, 2, 3), (), [1, 2], (math.nan,)])
@pytest.mark.parametrize("base", [gpusim.QueueOrder, gpusim.Scheduler])
def test_queue_key_of_the_wrong_type(quick, base, value):
    class BadKey(base):
        def key(self, job):
            return value

        def decide(self, view, binder):  # for the Scheduler
            pass

    policy = (BadKey(), "first-fit") if base is gpusim.QueueOrder else BadKey()
    policy_error(lambda: gpusim.run(quick, policy=policy),
                 r"^Python policy BadKey: key\(job \d+\) returned ", re.escape(repr(value)),
                 "must return an int or a tuple of one or two ints")


def test_queue_keys_that_are_numbers_still_work(quick):
    class Keys(gpusim.QueueOrder):
        def key(self, job):
            return (float(job.arrival_us), job.id) if job.id % 2 else job.arrival_us

    a = gpusim.run(quick, policy=(Keys(), "first-fit"))
    b = gpusim.run(quick, policy=(Fifo(), "first-fit"))
    assert a.summary["jobs_completed"] == b.summary["jobs_completed"]


@pytest.mark.parametrize("case", ["garbage", "none", "out-of-range", "negative", "not-fitting", "too-many", "duplicate", "float"])
def test_choose_gpus_returning_garbage(quick, case):
    class BadChoice(gpusim.Placement):
        def score(self, view, job, node):
            return 0.0

        def choose_gpus(self, view, job, fitting, count):
            if case == "duplicate" and count < 2:
                return fitting[:count]  # only a job of two or more GPUs can repeat one
            unfit = [g for g in range(view.gpu_count) if g not in fitting]
            return {
                "garbage": "garbage",
                "none": None,
                "out-of-range": [10**6] * count,
                "negative": [-1] * count,
                "not-fitting": unfit[:count],
                "too-many": fitting[:count] + [fitting[0]],
                "duplicate": [fitting[0]] * count,
                "float": [float(g) for g in fitting[:count]],
            }[case]

    policy_error(lambda: gpusim.run(quick, policy=("fifo", BadChoice())),
                 r"^Python policy BadChoice: choose_gpus\(job \d+, fitting \[[\d, ]*\], count \d+\) returned ",
                 r"must return a list of \d+ distinct GPU ids from the fitting ones")


def test_choose_gpus_in_range_still_works(quick):
    class Reversed(gpusim.Placement):
        def score(self, view, job, node):
            return 0.0

        def choose_gpus(self, view, job, fitting, count):
            return tuple(reversed(fitting))[:count]

    assert gpusim.run(quick, policy=("fifo", Reversed())).summary["jobs_completed"] > 0


def decide_with(call):
    """A scheduler whose decide() calls call(view, binder, job) for the first pending job."""

    class BadDecide(gpusim.Scheduler):
        def decide(self, view, binder):
            pending = view.pending()
            if pending:
                call(view, binder, pending[0])

    return BadDecide()


BINDS = {
    "job-str": (lambda v, b, j: b.bind("x", [0], [0]), r"bind\(job 'x', nodes \[0\], gpus \[0\]\)", "a job id must be an int, not str"),
    "job-float": (lambda v, b, j: b.bind(1.0, [0], [0]), r"bind\(job 1\.0,", "a job id must be an int, not float"),
    "job-negative": (lambda v, b, j: b.bind(-1, [0], [0]), r"bind\(job -1,", r"job -1 is out of range: the run has jobs 0\.\.\d+"),
    "job-past-end": (lambda v, b, j: b.bind(10**6, [0], [0]), r"bind\(job 1000000,", r"job 1000000 is out of range: the run has jobs 0\.\.\d+"),
    "nodes-str": (lambda v, b, j: b.bind(j, "0", [0]), r"bind\(job \d+, nodes '0',", "nodes must be a list of ids, not str"),
    "nodes-int": (lambda v, b, j: b.bind(j, 0, [0]), r"bind\(job \d+, nodes 0,", "nodes must be a list of ids, not int"),
    "node-negative": (lambda v, b, j: b.bind(j, [-1], [0]), r"bind\(job \d+, nodes \[-1\]", r"node -1 is out of range: the cluster has nodes 0\.\.\d+"),
    "gpu-past-end": (lambda v, b, j: b.bind(j, [0], [v.gpu_count]), r"bind\(job \d+, nodes \[0\], gpus \[\d+\]\)",
                     r"GPU \d+ is out of range: the cluster has GPUs 0\.\.\d+"),
    "gpus-none": (lambda v, b, j: b.bind(j, [0], None), r"gpus None\)", "gpus must be a list of ids, not NoneType"),
    "instance-str": (lambda v, b, j: b.bind(j, [0], [0], ["a"]), r"instances \['a'\]", "instance 'a' is not a MIG slot index"),
    "instances-int": (lambda v, b, j: b.bind(j, [0], [0], 5), r"instances 5\)", "instances must be a list"),
    "instance-negative": (lambda v, b, j: b.bind(j, [0], [0], [-1]), r"instances \[-1\]", "instance -1 is not a MIG slot index"),
    "recheck-nan": (lambda v, b, j: b.recheck_at_s(math.nan), r"recheck_at_s\(nan\)", "must be a finite number of seconds"),
    "recheck-inf": (lambda v, b, j: b.recheck_at_s(math.inf), r"recheck_at_s\(inf\)", "must be a finite number of seconds"),
    "recheck-huge": (lambda v, b, j: b.recheck_at_s(1e300), r"recheck_at_s\(1e\+300\)", "must be a finite number of seconds"),
    "recheck-str": (lambda v, b, j: b.recheck_at_s("soon"), r"recheck_at_s\('soon'\)", "must be a finite number of seconds"),
}


@pytest.mark.parametrize("case", list(BINDS))
def test_decide_binding_with_wrong_types(quick, case):
    call, what, why = BINDS[case]
    policy_error(lambda: gpusim.run(quick, policy=decide_with(call)), r"^Python policy BadDecide: decide\(\) called binder\.", what, why)


def test_decide_binding_well_still_works(quick):
    def recheck(view, binder, job):
        binder.recheck_at_s(view.now_s + 60)
        GreedyScheduler().decide(view, binder)

    assert gpusim.run(quick, policy=decide_with(recheck)).summary["jobs_completed"] > 0


@pytest.mark.parametrize("value", ["yes", None, 1, [True]])
def test_would_use_of_the_wrong_type(root, value):
    class BadWouldUse(GreedyScheduler):
        def would_use(self, view, job, pool):
            return value

    policy_error(lambda: gpusim.run(root / "scenarios" / "autoscale.yaml", policy=BadWouldUse()),
                 r"^Python policy BadWouldUse: would_use\(job \d+, pool \d+\) returned ", re.escape(repr(value)), "must return a bool")
