"""Policies written in Python. Subclass one of these and pass an instance to gpusim.run().

The engine calls them at its decision points with a read-only ClusterView and checks every
decision they make, exactly as for the built-in C++ policies: a bad one raises gpusim.PolicyError.
What a method returns is checked too: the wrong type (or NaN) raises gpusim.PolicyError naming the
policy's class, the method and the job. The view checks every id it is given: one it does not have
(negative, or past the end) raises IndexError naming it and the valid range. Node ids run up to
every pool's size, autoscaling maximum included; a slot its pool has not provisioned is an off node.
Python costs speed (see docs/design/performance.md for the measured factor).

    class Smallest(gpusim.QueueOrder):
        name = "smallest-first"
        def key(self, job):                  # smaller runs first; ties go to the earlier arrival
            return (job.gpus * job.milli_per_gpu, job.arrival_us)

    class Emptiest(gpusim.Placement):
        name = "emptiest"
        def score(self, view, job, node):    # lower is better
            return -view.node(node).free_cpu_milli

    gpusim.run("scenarios/quickstart.yaml", policy=Smallest())            # with the scenario's placement
    gpusim.run("scenarios/quickstart.yaml", policy=("fifo", Emptiest()))
"""
from __future__ import annotations


class QueueOrder:
    """The order pending jobs are tried in. key(job) is called once, when the job arrives."""

    name = "python-queue"

    def key(self, job) -> int | tuple[int, int]:
        """An int or a pair of ints; smaller first, ties broken by job id (arrival order)."""
        raise NotImplementedError


class Placement:
    """Chooses among the nodes a job fits on (the engine filters them; this scores them)."""

    name = "python-placement"
    # Set to a method choose_gpus(view, job, fitting, count) -> list of GPU ids to pick GPUs inside
    # the chosen node; None keeps the default (the first `count` fitting GPUs, tightest first).
    choose_gpus = None

    def score(self, view, job: int, node: int) -> float:
        """Lower is better; ties go to the lowest node id. It must depend only on the node's state:
        nodes in identical states are scored once."""
        raise NotImplementedError


class Scheduler:
    """A whole policy: decide(view, binder) places pending jobs with binder.bind(job, nodes, gpus)."""

    name = "python-scheduler"

    def key(self, job) -> int | tuple[int, int]:
        """Queue order of view.pending(); default first come, first served."""
        return job.arrival_us

    def decide(self, view, binder) -> None:
        raise NotImplementedError

    def would_use(self, view, job: int, pool: int) -> bool:
        """Would this policy place the job on `pool`? The autoscaler asks before adding a node."""
        return True

    @staticmethod
    def gpus_on(view, job: int, node: int) -> list[int] | None:
        """The first GPUs of `node` the whole job fits on, or None: a simple single-node placement."""
        if not view.fits_on_node(job, node):
            return None
        fitting = view.fitting_gpus(job, node)
        need = view.gpus_to_place(job)
        return fitting[:need] if len(fitting) >= need else None


class Router:
    """Chooses which ready replica of a service a request goes to. Register the class once with
    gpusim.register_router (or as a decorator) and name it in a scenario: `router: <name>`. Each
    service using it gets its own instance. route() gets the request (id, arrival_s, prompt_tokens,
    output_tokens) and the service's replicas by slot: len(replicas), and per slot i ready(i),
    waiting(i), running(i), outstanding(i), kv_usage(i) (0-1), cached_blocks(i) and
    cached_prefix_tokens(i) (of this request's prompt, with prefix caching). It is called only when
    some replica is ready, and must return the slot of a ready one (else gpusim.PolicyError).

        @gpusim.register_router
        class Emptiest(gpusim.Router):
            name = "emptiest-kv"
            def route(self, request, replicas):
                ready = [i for i in range(len(replicas)) if replicas.ready(i)]
                return min(ready, key=replicas.kv_usage)
    """

    name = "python-router"
    description = "a router written in Python"

    def route(self, request, replicas) -> int:
        raise NotImplementedError
