"""DistServe's case for disaggregation (Zhong et al., OSDI 2024, Figure 1 and the paragraph beside it;
results/published/distserve_fig1.csv): a 13B model (OPT-13B, the model of the paper's evaluation) on A100-80GB
GPUs, 512-token prompts and 64-token outputs arriving as a Poisson process, an SLO of P90 TTFT 0.4 s and P90
TPOT 0.04 s. A GPU serving both phases (vLLM, whole prompts first as its 2023 scheduler ran them: gpusim's
`enable_chunked_prefill: false`) reaches a goodput of about 1.6 req/s; a GPU serving only prefills 5.6 req/s
and one serving only decodes 10 req/s, so 2 prefill GPUs and 1 decode GPU serve 10 req/s, 3.3 per GPU, 2.1x.

gpusim runs the same four systems on one DGX A100-80GB node: one colocated replica; a disaggregated service
whose other pool is big enough never to be the limit (prefill only: 1 prefill replica, 4 decode; decode only:
6 prefill, 1 decode); and 2 prefill + 1 decode replicas, each replica one GPU, each KV cache sent over
NVLink. A system's goodput is the highest rate (found by bisection, 10 minutes of arrivals a run, one seed)
at which its P90 figures meet the SLO, per GPU of the phase that limits it."""
import json
import os

from common import Comparison, Row, read_published

TTFT_P90_S = 0.4
TPOT_P90_S = 0.04
DURATION = "10m"
# A guard, not a fidelity bar: each figure's relative error as documented in docs/fidelity.md ("DistServe's case
# for disaggregation", 2026-11-30) plus 5 points. gpusim's A100 steps are those of today's vLLM, faster than the
# 2023 vLLM DistServe measured (docs/fidelity.md says by how much and why); a model change that closes the gap
# lowers these.
GUARD = {
    "colocated_goodput_per_gpu": 2.38,
    "prefill_only_goodput_per_gpu": 1.27,
    "decode_only_goodput_per_gpu": 1.83,
    "two_prefill_one_decode_per_gpu": 1.89,
    "disaggregated_over_colocated": 0.21,
}

SCENARIO = """name: distserve-fig1
seed: 1
cluster:
  pools:
    - {{name: a100, node: dgx-a100-80gb, count: 1}}
workload:
  services:
    - name: chat
      model: opt-13b
      replicas: {prefill}
      cold_start: none
      engine: {{enable_chunked_prefill: false}}
      requests:
        generator: {{rate: {rate}, duration: {duration}, prompt_tokens: 512, output_tokens: 64}}
{decode}policy: fifo+first-fit
"""

# name, prefill (or colocated) replicas, decode replicas (None: colocated), SLO figures judged, GPUs the goodput is per
SYSTEMS = (
    ("colocated_goodput_per_gpu", 1, None, ("ttft", "tpot"), 1),
    ("prefill_only_goodput_per_gpu", 1, 4, ("ttft",), 1),
    ("decode_only_goodput_per_gpu", 6, 1, ("tpot",), 1),
    ("two_prefill_one_decode_per_gpu", 2, 1, ("ttft", "tpot"), 3),
)


def meets(context, prefill, decode, judged, rate):
    """Do the P90 figures of `judged` meet the SLO at `rate` requests per second?"""
    path = context.scratch_file("distserve-fig1.yaml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(prefill=prefill, rate=f"{rate:.6f}", duration=DURATION,
                                decode=f"      decode: {{replicas: {decode}}}\n" if decode else ""))
    out = context.scratch_file("out")
    context.run("run", path, "--out", out, "--force")
    with open(os.path.join(out, "summary.json")) as f:
        service = json.load(f)["services"][0]
    if service["requests_completed"] != service["requests_arrived"]:
        return False
    limits = {"ttft": TTFT_P90_S, "tpot": TPOT_P90_S}
    return all(service[f"{m}_s"]["p90"] <= limits[m] for m in judged)


def goodput(context, prefill, decode, judged):
    """The highest rate meeting the SLO, to 1 %: bisection between a rate that meets it and one that does not."""
    low, high = 0.5, 1.0
    while meets(context, prefill, decode, judged, high):
        low, high = high, high * 2
    while high / low > 1.01:
        mid = (low * high) ** 0.5
        if meets(context, prefill, decode, judged, mid):
            low = mid
        else:
            high = mid
    return low


def compare(context):
    published = {r["figure"]: float(r["value"]) for r in read_published("distserve_fig1.csv")}
    ours = {}
    for name, prefill, decode, judged, gpus in SYSTEMS:
        ours[name] = goodput(context, prefill, decode, judged) / gpus
    ours["disaggregated_over_colocated"] = ours["two_prefill_one_decode_per_gpu"] / ours["colocated_goodput_per_gpu"]
    what = {
        "colocated_goodput_per_gpu": "colocated (vLLM), goodput per GPU (req/s)",
        "prefill_only_goodput_per_gpu": "prefill only, goodput per GPU (req/s)",
        "decode_only_goodput_per_gpu": "decode only, goodput per GPU (req/s)",
        "two_prefill_one_decode_per_gpu": "2 prefill + 1 decode, goodput per GPU (req/s)",
        "disaggregated_over_colocated": "disaggregated over colocated (x)",
    }
    return [Row(what[k], published[k], ours[k], GUARD[k] * published[k]) for k in what]


COMPARISONS = [
    Comparison(
        name="distserve-fig1",
        title="DistServe (OSDI'24) Figure 1: OPT-13B on A100-80GB, 512/64 tokens, colocated vs 2 prefill + 1 decode",
        command="gpusim run <one scenario per system and rate, written by scripts/fidelity/distserve.py> (bisection)",
        compare=compare,
        quick=True,
    )
]
