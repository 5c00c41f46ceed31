"""Request routers written in Python (gpusim.Router): registered by name, named by a scenario's
`router:`, called with the request and the service's replicas; a wrong answer is a PolicyError."""
import pytest

import gpusim


@pytest.fixture
def routing(root):
    return root / "scenarios" / "serving-routing.yaml"


SHORT = {"workload.services[0].requests.generator.duration": "2m", "workload.services[0].router": "python-first"}


@gpusim.register_router
class FirstReady(gpusim.Router):
    """Every request to the lowest ready slot: one replica serves all."""
    name = "python-first"
    description = "the lowest ready slot"

    def route(self, request, replicas):
        assert request.prompt_tokens >= 1500 and request.arrival_s >= 0
        return next(i for i in range(len(replicas)) if replicas.ready(i))


def test_a_python_router_decides_where_requests_go(routing):
    r = gpusim.run(routing, overrides=SHORT, outputs=["requests"])
    assert set(r.requests["replica"]) == {"chat-0"}
    # The same rule as the built-in least-outstanding's ties: a run that differs only in the router differs.
    other = gpusim.run(routing, overrides={**SHORT, "workload.services[0].router": "least-outstanding"}, outputs=["requests"])
    assert len(set(other.requests["replica"])) == 8


def test_a_python_router_sees_the_caches(routing):
    seen = []

    class Looking(gpusim.Router):
        name = "python-looking"

        def route(self, request, replicas):
            seen.append(max(replicas.cached_prefix_tokens(i) for i in range(len(replicas))))
            ready = [i for i in range(len(replicas)) if replicas.ready(i)]
            return min(ready, key=lambda i: (replicas.outstanding(i), replicas.kv_usage(i), i))

    gpusim.register_router(Looking)
    gpusim.run(routing, overrides={**SHORT, "workload.services[0].router": "python-looking"})
    assert seen[0] == 0 and max(seen) >= 1500  # the shared system prompt, cached after the first request


def test_a_wrong_slot_is_a_policy_error(routing):
    class Wrong(gpusim.Router):
        name = "python-wrong"

        def route(self, request, replicas):
            return len(replicas)

    gpusim.register_router(Wrong)
    with pytest.raises(gpusim.PolicyError, match=r"Python router Wrong: route\(request 0\) returned 8: it must return the slot"):
        gpusim.run(routing, overrides={**SHORT, "workload.services[0].router": "python-wrong"})


def test_prefix_caching_figures_reach_the_frames(routing):
    r = gpusim.run(routing, overrides={**SHORT, "workload.services[0].router": "prefix-affinity"}, outputs=["requests"])
    hit = r.services.loc[0, "prefix_cache_hit_rate"]
    assert 0.5 < hit <= 1  # the shared system prompt and the conversations, on the replica that has them
    assert r.services.loc[0, "prefill_tokens_saved"] == r.summary["serving"]["prefill_tokens_saved"]
    # Each request's first scheduling is in requests.csv; a preempted one looks again and may save more.
    assert 0 < r.requests["cached_tokens"].sum() <= r.summary["serving"]["prefill_tokens_saved"]
    assert (r.requests["cached_tokens"] >= 1488).sum() > 0  # 1,500-token system prompt: 93 full blocks
