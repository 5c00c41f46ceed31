"""The probe kit's PyTorch part (tools/probe/README.md): GEMM and copy ceilings (ceilings.jsonl) and
power by phase for a bf16 GEMM and a Llama-3-8B-shaped decoder (power-tensor-and-llm.jsonl).

The decoder has Llama-3-8B's shapes and random bf16 weights; rotary embeddings are left out (their
cost is negligible next to the GEMMs and attention). Its step times are those of plain PyTorch, not
of a serving engine.
"""
import time

HIDDEN, LAYERS, Q_HEADS, KV_HEADS, HEAD_DIM, MLP, VOCAB = 4096, 32, 32, 8, 128, 14336, 128256
CONTEXT_TOKENS = 1024
PREFILL_TOKENS = 2048
DECODE_BATCHES = (1, 64, 256)
GEMM_N = 8192
COPY_BYTES = 2 << 30
GU_BATCHES = (1, 16, 64, 256)
WARMUPS, TIMED = 3, 10
IDLE_STEP_S = 0.05


def unavailable():
    """Why the PyTorch steps cannot run here, or None."""
    try:
        import torch
    except ImportError:
        return "PyTorch is not importable"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA GPU"
    return None


def weight_params():
    """Matrix weights of the decoder (norms left out, 0.003%): 8,029,995,008 for Llama-3-8B."""
    kv = KV_HEADS * HEAD_DIM
    per_layer = 2 * HIDDEN * HIDDEN + 2 * HIDDEN * kv + 3 * HIDDEN * MLP
    return LAYERS * per_layer + 2 * VOCAB * HIDDEN


def weight_bytes_per_step():
    """bf16 bytes a decode step reads: every weight but the embedding table, of which it reads rows."""
    return (weight_params() - VOCAB * HIDDEN) * 2


def _time_ms(torch, fn):
    """Mean ms of one call over TIMED calls after WARMUPS, on CUDA events."""
    for _ in range(WARMUPS):
        fn()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(TIMED):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / TIMED


def ceilings(write):
    import torch
    props = torch.cuda.get_device_properties(0)
    write({"torch": torch.__version__, "gpu": props.name, "sms": props.multi_processor_count})
    a = torch.randn(GEMM_N, GEMM_N, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(GEMM_N, GEMM_N, device="cuda", dtype=torch.bfloat16)
    ms = _time_ms(torch, lambda: a @ b)
    write({"probe": "gemm8192", "ms": ms, "tflops": 2 * GEMM_N**3 / (ms * 1e-3) / 1e12})
    del a, b
    src = torch.empty(COPY_BYTES, device="cuda", dtype=torch.uint8)
    dst = torch.empty_like(src)
    ms = _time_ms(torch, lambda: dst.copy_(src))
    write({"probe": "copy2GiB", "ms": ms, "tb_s_rw": 2 * COPY_BYTES / (ms * 1e-3) / 1e12})
    del src, dst
    write({"params": weight_params(), "weight_bytes_read_per_step": weight_bytes_per_step()})
    w = torch.randn(HIDDEN, 2 * MLP, device="cuda", dtype=torch.bfloat16)  # gate and up, fused
    for batch in GU_BATCHES:
        x = torch.randn(batch, HIDDEN, device="cuda", dtype=torch.bfloat16)
        ms = _time_ms(torch, lambda: x @ w)
        write({"probe": "gemm_gu", "b": batch, "ms": ms, "tb_s": w.numel() * 2 / (ms * 1e-3) / 1e12,
               "tflops": 2 * batch * w.numel() / (ms * 1e-3) / 1e12})
    torch.cuda.empty_cache()


class Decoder:
    """Llama-3-8B-shaped weights and forward pass; `kv` holds per-layer caches for decode."""

    def __init__(self, torch):
        self.torch = torch
        self.F = torch.nn.functional

        def w(*shape):
            return torch.randn(*shape, device="cuda", dtype=torch.bfloat16) * 0.02

        kv = KV_HEADS * HEAD_DIM
        self.embed, self.head, self.norm = w(VOCAB, HIDDEN), w(HIDDEN, VOCAB), w(HIDDEN)
        self.layers = [dict(n1=w(HIDDEN), qkv=w(HIDDEN, HIDDEN + 2 * kv), o=w(HIDDEN, HIDDEN), n2=w(HIDDEN),
                            gu=w(HIDDEN, 2 * MLP), down=w(MLP, HIDDEN)) for _ in range(LAYERS)]

    def forward(self, tokens, caches=None, pos=0):
        """tokens [b, s] -> logits of the last position. With caches, the new keys and values go in at
        `pos` and attention reads positions 0..pos; without, attention is causal over the tokens."""
        F, torch = self.F, self.torch
        b, s = tokens.shape
        x = self.embed[tokens]
        kv = KV_HEADS * HEAD_DIM
        for i, lw in enumerate(self.layers):
            h = F.rms_norm(x, (HIDDEN,), lw["n1"])
            q, k, v = (h @ lw["qkv"]).split([HIDDEN, kv, kv], dim=-1)
            q = q.view(b, s, Q_HEADS, HEAD_DIM).transpose(1, 2)
            k = k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
            v = v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
            if caches is not None:
                k_cache, v_cache = caches[i]
                k_cache[:, :, pos:pos + s] = k
                v_cache[:, :, pos:pos + s] = v
                k, v = k_cache[:, :, :pos + s], v_cache[:, :, :pos + s]
            a = F.scaled_dot_product_attention(q, k, v, is_causal=caches is None, enable_gqa=True)
            x = x + a.transpose(1, 2).reshape(b, s, HIDDEN) @ lw["o"]
            h = F.rms_norm(x, (HIDDEN,), lw["n2"])
            gate, up = (h @ lw["gu"]).chunk(2, dim=-1)
            x = x + (F.silu(gate) * up) @ lw["down"]
        return F.rms_norm(x[:, -1], (HIDDEN,), self.norm) @ self.head

    def decode_step(self, batch):
        """A CUDA graph of one decode step at batch `batch` with CONTEXT_TOKENS cached; returns replay."""
        torch = self.torch
        shape = (batch, KV_HEADS, CONTEXT_TOKENS + 1, HEAD_DIM)
        caches = [(torch.randn(shape, device="cuda", dtype=torch.bfloat16),
                   torch.randn(shape, device="cuda", dtype=torch.bfloat16)) for _ in range(LAYERS)]
        tokens = torch.randint(0, VOCAB, (batch, 1), device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up off the default stream, as graph capture asks
            for _ in range(WARMUPS):
                self.forward(tokens, caches, CONTEXT_TOKENS)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.forward(tokens, caches, CONTEXT_TOKENS)
        return graph.replay


def _phase(torch, name, step, secs, mean):
    """Runs `step` (each call synchronized, as a serving loop would) for `secs`; the power record."""
    start = time.monotonic()
    iters = 0
    while time.monotonic() - start < secs:
        step()
        torch.cuda.synchronize()
        iters += 1
    end = time.monotonic()
    keys = ["power_w", "power_instant_w", "util_gpu", "sm_mhz", "temp_c", "limit_w"]
    samples, m = mean(start, end, keys)
    return {"phase": name, "iters": iters, "secs": end - start, "samples": samples, "power_w": m["power_w"],
            "power_instant_w": m["power_instant_w"], "util": m["util_gpu"], "sm_mhz": m["sm_mhz"],
            "temp_c": m["temp_c"], "limit_w": m["limit_w"], "iter_ms": (end - start) * 1e3 / iters}


def llm_power(write, mean, phase_s):
    """Power phases of power-tensor-and-llm.jsonl. `mean(start, end, keys)` averages the nvidia-smi
    samples of a phase (its first 1.5 s left out); `phase_s` gives each phase's seconds."""
    import torch

    def idle():
        time.sleep(IDLE_STEP_S)

    write(_phase(torch, "idle", idle, phase_s["idle"], mean))
    a = torch.randn(GEMM_N, GEMM_N, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(GEMM_N, GEMM_N, device="cuda", dtype=torch.bfloat16)
    rec = _phase(torch, "gemm8192", lambda: a @ b, phase_s["gemm8192"], mean)
    write(dict(rec, tflops=2 * GEMM_N**3 / (rec["iter_ms"] * 1e-3) / 1e12))
    del a, b
    model = Decoder(torch)
    with torch.inference_mode():
        for batch in DECODE_BATCHES:
            name = f"decode_b{batch}_c{CONTEXT_TOKENS}"
            try:
                rec = _phase(torch, name, model.decode_step(batch), phase_s[name], mean)
            except torch.cuda.OutOfMemoryError as e:  # batch 256's KV cache needs ~34 GiB
                write({"phase": name, "err": f"out of memory: {str(e).splitlines()[0]}"})
                continue
            finally:
                torch.cuda.empty_cache()
            tokens_per_s = batch / (rec["iter_ms"] * 1e-3)
            joules = rec["power_w"] / tokens_per_s if rec["power_w"] is not None else None
            write(dict(rec, tokens_per_s=tokens_per_s, joules_per_token=joules))
        prompt = torch.randint(0, VOCAB, (1, PREFILL_TOKENS), device="cuda")
        name = f"prefill{PREFILL_TOKENS}"
        rec = _phase(torch, name, lambda: model.forward(prompt), phase_s[name], mean)
        write(dict(rec, tokens_per_s=PREFILL_TOKENS / (rec["iter_ms"] * 1e-3)))
    del model
    torch.cuda.empty_cache()
    write(_phase(torch, "idle_after", idle, phase_s["idle_after"], mean))
