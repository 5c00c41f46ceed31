"""Python re-implementations of built-in policies, decision for decision (used by the tests and by
bench/python_policy_benchmark.py to measure what Python costs)."""
import gpusim


class Fifo(gpusim.QueueOrder):
    name = "py-fifo"

    def key(self, job):
        return job.arrival_us


class FirstFit(gpusim.Placement):
    """The lowest-numbered node that fits, its first fitting GPUs (C++ first-fit)."""
    name = "py-first-fit"

    def score(self, view, job, node):
        return 0.0


class BestFit(gpusim.Placement):
    """C++ best-fit: least free GPU + CPU share left on the node, then the GPUs with least room."""
    name = "py-best-fit"

    def score(self, view, job, node):
        n = view.node(node)
        gpu_term = 0.0
        if n.gpu_count > 0:
            free = sum(view.gpu(g).free_milli for g in range(n.first_gpu, n.first_gpu + n.gpu_count))
            free -= view.gpus_to_place(job) * view.gpu_demand(job, n.pool)[0]
            gpu_term = free / (1000.0 * n.gpu_count)
        return gpu_term + (n.free_cpu_milli - view.job(job).cpu_milli) / n.cpu_milli

    def choose_gpus(self, view, job, fitting, count):
        return sorted(fitting, key=lambda g: view.gpu(g).free_milli)[:count]


class GreedyScheduler(gpusim.Scheduler):
    """A whole scheduler: every pending job, in arrival order, on the first node it fits."""
    name = "py-greedy"

    def decide(self, view, binder):
        for job in view.pending():
            for node in range(view.node_count):
                gpus = self.gpus_on(view, job, node)
                if gpus is not None:
                    binder.bind(job, [node], gpus)
                    break
