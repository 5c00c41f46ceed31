#!/usr/bin/python3
"""The serving roofline's H200 efficiencies from the H200 measurements of 2026-11-28 (docs/serving.md#calibration).

Reads data/measurements/h200-2026-11-28/ (ceilings.jsonl, power-tensor-and-llm.jsonl): a Llama-3-8B-shaped
decoder in plain PyTorch (SDPA attention, one CUDA graph per decode step, not vLLM) on one H200 SXM:
decode steps at batch 1 / 64 / 256 with 1,024 cached tokens and a 2,048-token prefill.

  e_flops  the sustained bf16 GEMM ceiling at the 700 W power limit over the catalog's peak
           (653 / 989 TFLOP/s, rounded to 0.01): prefill and decode at batch 256 run at the power
           limit with a throttled SM clock, so the burst ceiling (806, 0.815) is not what they see;
  e_attn, e_bw  fitted with e_flops fixed and overhead 0 (the run has no vLLM scheduler or sampler and
           CUDA graphs remove launch cost): a grid search minimising the squared relative errors of the
           four points (prefill sets e_attn, the decode steps e_bw). One prefill point cannot part
           e_flops from e_attn: with both free the fit puts the whole prefill into e_flops (0.54) and
           makes attention free (e_attn without bound), hence e_flops from the ceiling.
It prints the fit, each point's measured and model time and error, and, as a diagnostic, the same fit
with the per-step overhead free (the shipped entry keeps vLLM's assumed overhead_tp1 instead).

The model's figures are gpusim's llama-3-8b (workloads/data/models.yaml) and the H200-141GB catalog entry
(hardware/data/gpus.yaml); the formula is sim/model/src/serving_model.cpp's iteration_time_s at TP 1 with
the batch shape sim/serving/src/serving.cpp builds (a request computing q tokens after o cached ones adds
q (o + q/2) to attention and o + q to kv_tokens). tests/serving/h200_serving_test.cpp checks the shipped
entry against the same points.

Usage: h200_serving_fit.py [measurement directory]
"""
import json
import os
import sys

# llama-3-8b (workloads/data/models.yaml): params, layers, heads x head_dim, KV bytes per token (bf16).
PARAMS, LAYERS, QDIM, KV_BYTES = 8030261248, 32, 32 * 128, 2 * 32 * 8 * 128 * 2
WEIGHT_BYTES = 2 * PARAMS
EMBEDDING = 128256 * 4096  # the input embedding table: gathered, not streamed, in a decode step
# H200-141GB (hardware/data/gpus.yaml): peak dense bf16 FLOP/s, memory bytes/s.
FLOPS, BW = 989e12, 4800e9
POINTS = [  # phase in power-tensor-and-llm.jsonl, requests, tokens each computes (q), cached tokens (o)
    ("decode_b1_c1024", 1, 1, 1024),
    ("decode_b64_c1024", 64, 1, 1024),
    ("decode_b256_c1024", 256, 1, 1024),
    ("prefill2048", 1, 2048, 0),
]


def read(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def iteration_s(batch, q, o, e_flops, e_bw, e_attn, overhead):
    tokens, attention, kv_tokens = batch * q, batch * q * (o + q / 2), batch * (o + q)
    comp = 2 * PARAMS * tokens / (FLOPS * e_flops)
    mem = (WEIGHT_BYTES + KV_BYTES * kv_tokens) / (BW * e_bw)
    att = 4 * LAYERS * QDIM * attention / (FLOPS * e_attn)
    return overhead + max(comp, mem) + att


def errors(measured, p):
    return [iteration_s(b, q, o, *p) * 1e3 / measured[name] - 1 for name, b, q, o in POINTS]


def grid(a, b, step):
    n = round((b - a) / step)
    return [round(a + i * step, 6) for i in range(n + 1)]


def fit(measured, e_flops, overheads):
    best = None
    for overhead in overheads:
        for e_attn in grid(0.05, 0.30, 0.005):
            for e_bw in grid(0.40, 0.95, 0.01):
                p = (e_flops, e_bw, e_attn, overhead)
                err = sum(x * x for x in errors(measured, p))
                if best is None or err < best[0]:
                    best = (err, p)
    return best[1]


def table(measured, p):
    for (name, b, q, o), e in zip(POINTS, errors(measured, p)):
        print(f"  {name:18} measured {measured[name]:6.2f} ms  model {iteration_s(b, q, o, *p) * 1e3:6.2f} ms  "
              f"error {100 * e:+5.1f} %")


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../data/measurements/h200-2026-11-28")
    ceilings = read(os.path.join(d, "ceilings.jsonl"))
    phases = {r["phase"]: r for r in read(os.path.join(d, "power-tensor-and-llm.jsonl"))}
    model = next(r for r in ceilings if "params" in r)
    # The measured model is gpusim's llama-3-8b but for its 65 RMSNorm weight vectors (32 x 2 + 1 of
    # 4,096), and reads every weight but the embedding table each step; gpusim counts all 2 x params.
    assert PARAMS - model["params"] == 65 * 4096, model
    assert 2 * (model["params"] - EMBEDDING) == model["weight_bytes_read_per_step"], model
    print(f"params: gpusim {PARAMS:,}, measured {model['params']:,}; bytes a step: gpusim {WEIGHT_BYTES:,}, "
          f"measured {model['weight_bytes_read_per_step']:,} ({WEIGHT_BYTES / model['weight_bytes_read_per_step'] - 1:+.1%})")
    sustained, burst = phases["gemm8192"]["tflops"], next(r["tflops"] for r in ceilings if r.get("probe") == "gemm8192")
    for name, _, _, _ in POINTS:
        print(f"  {name:18} {phases[name]['iter_ms']:6.2f} ms at {phases[name]['power_w']:.0f} W, SM {phases[name]['sm_mhz']:.0f} MHz")
    print(f"bf16 GEMM: burst {burst:.0f} TFLOP/s ({burst * 1e12 / FLOPS:.3f} of peak), sustained at the power limit "
          f"{sustained:.0f} ({sustained * 1e12 / FLOPS:.3f}, SM {phases['gemm8192']['sm_mhz']:.0f} MHz)")
    measured = {name: phases[name]["iter_ms"] for name, _, _, _ in POINTS}
    e_flops = round(sustained * 1e12 / FLOPS, 2)
    p = fit(measured, e_flops, [0.0])
    print(f"fit, overhead 0: e_flops={p[0]:.2f} (sustained GEMM) e_bw={p[1]:.2f} e_attn={p[2]:.3f}")
    table(measured, p)
    d = fit(measured, e_flops, grid(0, 0.002, 0.0001))
    print(f"diagnostic, overhead free: overhead={d[3] * 1e3:.1f} ms e_bw={d[1]:.2f} e_attn={d[2]:.3f}")
    table(measured, d)


if __name__ == "__main__":
    main()
