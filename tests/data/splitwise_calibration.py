#!/usr/bin/python3
"""The serving roofline's calibration against SplitwiseSim's profile (docs/serving.md#calibration).

Reads SplitwiseSim's data/perf_model.csv (github.com/Mutinifni/splitwise-sim, MIT, file at commit
378088013a54df6f2052c27ff5ae6ea7619c3ecc), takes the median of each configuration's 5 repetitions
(leaving out the power-capped H100 and llama2-70b TP2 batch 64, a failed run: its prompt time falls
8x while e2e jumps to 160 s), and
  --write-medians PATH  writes them as tests/data/splitwise_medians.csv's rows;
  otherwise             fits overhead_tp, alpha, e_attn, e_link per GPU on llama2-70b with e_flops and e_bw
                        fixed at Vidur's values (grid search minimising squared relative errors of prefill and
                        decode), printing the parameters and the MAPEs on llama2-70b and the held-out bloom-176b.
The formula is sim/model/src/serving_model.cpp's iteration_time_s; the C++ test
tests/serving/serving_calibration_test.cpp evaluates the shipped values against the medians.

Usage: splitwise_calibration.py perf_model.csv [--write-medians PATH]
"""
import collections
import csv
import statistics
import sys

MODELS = {  # params, layers, hidden, heads x head_dim, KV bytes per token (fp16): workloads/data/models.yaml
    "llama2-70b": (68976648192, 80, 8192, 8192, 2 * 80 * 8 * 128 * 2),
    "bloom-176b": (176247271424, 70, 14336, 14336, 2 * 70 * 112 * 128 * 2),
}
GPUS = {  # peak bf16 FLOP/s, memory bytes/s, NVLink bytes/s a direction: hardware/data/gpus.yaml
    "a100-80gb": (312e12, 2039e9, 300e9),
    "h100-80gb": (989e12, 3350e9, 450e9),
}
VIDUR = {"a100-80gb": (0.72, 0.77), "h100-80gb": (0.77, 0.79)}  # e_flops, e_bw


def medians(path):
    runs = collections.defaultdict(list)
    for r in csv.DictReader(open(path)):
        key = (r["model"], r["hardware"], int(r["tensor_parallel"]), int(r["prompt_size"]), int(r["batch_size"]),
               int(r["token_size"]))
        runs[key].append((float(r["prompt_time"]), float(r["token_time"])))
    out = []
    for key, v in sorted(runs.items()):
        model, hw, tp, _, batch, _ = key
        if hw.endswith("pcap") or (model == "llama2-70b" and tp == 2 and batch == 64):
            continue
        out.append((key, statistics.median(p for p, _ in v), statistics.median(t for _, t in v)))
    return out


def iteration_s(model, hw, tp, tokens, attention, kv_tokens, q):
    e_flops, e_bw, t0, alpha, e_attn, e_link = q
    params, layers, hidden, qdim, kv = MODELS[model]
    flops, bw, link = GPUS[hw]
    comp = 2 * params * tokens / (tp * flops * e_flops)
    mem = (2 * params / tp + kv / tp * kv_tokens) / (bw * e_bw)
    att = 4 * layers * qdim * attention / (tp * flops * e_attn)
    ar = 0 if tp == 1 else 2 * layers * (2 * (tp - 1) * alpha + tokens * hidden * 2 / (e_link * link) * 2 * (tp - 1) / tp)
    return t0 + max(comp, mem) + att + ar


def errors(points, q):
    pe, de = [], []
    for (model, hw, tp, p, b, t), prompt_ms, token_ms in points:
        ctx = p + t // 2
        pe.append(iteration_s(model, hw, tp, p * b, b * p * p / 2, p * b, q) * 1e3 / prompt_ms - 1)
        de.append(iteration_s(model, hw, tp, b, b * ctx, b * ctx, q) * 1e3 / token_ms - 1)
    return pe, de


def report(points, q):
    pe, de = errors(points, q)
    mape = lambda xs: 100 * sum(abs(x) for x in xs) / len(xs)
    worst = lambda xs: 100 * max(abs(x) for x in xs)
    return (f"n={len(points)} prefill MAPE {mape(pe):.2f}% (max {worst(pe):.0f}%), "
            f"decode MAPE {mape(de):.2f}% (max {worst(de):.0f}%)")


def grid(a, b, step):
    n = round((b - a) / step)
    return [a + i * step for i in range(n + 1)]


def fit(points, hw):
    e_flops, e_bw = VIDUR[hw]
    best = None
    for t0 in grid(0, 0.025, 0.0005):
        for alpha in grid(0, 20e-6, 2e-6):
            for e_attn in (0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0):
                for e_link in (0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1.0):
                    q = (e_flops, e_bw, t0, alpha, e_attn, e_link)
                    pe, de = errors(points, q)
                    err = sum(x * x for x in pe) + sum(x * x for x in de)
                    if best is None or err < best[0]:
                        best = (err, q)
    return best[1]


def main():
    points = medians(sys.argv[1])
    if len(sys.argv) == 4 and sys.argv[2] == "--write-medians":
        with open(sys.argv[3], "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            for key, prompt_ms, token_ms in points:
                w.writerow(list(key) + [f"{prompt_ms:.4f}", f"{token_ms:.4f}"])
        return
    for hw in GPUS:
        train = [x for x in points if x[0][1] == hw and x[0][0] == "llama2-70b"]
        held = [x for x in points if x[0][1] == hw and x[0][0] == "bloom-176b"]
        q = fit(train, hw)
        print(f"{hw}: e_flops={q[0]:.2f} e_bw={q[1]:.2f} overhead_tp={q[2] * 1e3:.1f} ms alpha={q[3] * 1e6:.0f} us "
              f"e_attn={q[4]:.3f} e_link={q[5]:.2f}")
        print("  fit llama2-70b:       ", report(train, q))
        print("  held-out bloom-176b:  ", report(held, q))


if __name__ == "__main__":
    main()
