#!/usr/bin/python3
"""Runs the calibration probe kit on one GPU and writes raw files in the schemas of
data/measurements/h200-2026-11-28/ for `gpusim calibrate DIR` (tools/probe/README.md).

Never changes GPU settings (MIG, compute mode, clocks, power limit); starts an MPS control daemon
only with --mps, on a pipe directory of its own, and always stops it.
"""
import argparse
import contextlib
import dataclasses
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
OUTPUT_FILES = ("sharing.jsonl", "timeslice.jsonl", "power-sharing-phases.jsonl", "power-tensor-and-llm.jsonl",
                "ceilings.jsonl", "nvidia-smi.txt", "nvidia-smi-q.txt")

# The kernel loop is sized so that one `alu` launch takes ~0.25 ms alone, as in the reference:
# `calib` times CALIB_ITERS and scales them (10,000 iterations took 0.274 ms on the H200: 9,100).
CALIB_ITERS = 10000
TARGET_KERNEL_MS = 0.25
LONG_KERNEL_FACTOR = 8  # ts-alu-full-long: ~1.9 ms kernels
# Time-slice probe: ~5 us steps, 9,600 of them (~48 ms alone), two measured kernels a process.
SLICE_STEP_FRACTION = 50  # a step is 1/50 of a 0.25 ms kernel
SLICE_STEPS = 9600
SLICE_REPS = 2
SLICE_COUNTS = (1, 2, 3)

# Processes start this long before their common instant: seven CUDA contexts (or the first MPS
# client, which starts the MPS server) are ready well within it.
LEAD_S = 2.0
SHARING_SKIP_S = 1.0  # a sharing phase's power mean leaves out the first second of its window
TORCH_SKIP_S = 1.5  # a PyTorch phase's power mean leaves out its first 1.5 s
PROCESS_SLACK_S = 60  # a probe process still running this long after its window has hung
SAMPLE_PERIOD_MS = 100
SMI_FIELDS = {  # nvidia-smi query field -> key in the samples
    "power.draw": "power_w", "power.draw.instant": "power_instant_w", "utilization.gpu": "util_gpu",
    "utilization.memory": "util_mem", "clocks.sm": "sm_mhz", "temperature.gpu": "temp_c",
    "memory.used": "mem_used_mib", "power.limit": "limit_w"}


@dataclasses.dataclass(frozen=True)
class Group:
    """One sharing group of sharing.jsonl: the same probe in each of N processes, for N in counts."""
    name: str
    mode: str  # alu | mem
    width: str  # full: 2 blocks a SM; quarter: a block on each of a quarter of the SMs; none for mem
    duty: float
    dur_s: float
    counts: tuple
    long: bool = False
    mps: bool = False
    apps_mem_n: int = 0  # process count whose per-process memory is recorded (apps_mem)


GROUPS = (
    Group("ts-alu-full", "alu", "full", 1.0, 3.0, (1, 2, 4, 7), apps_mem_n=7),
    Group("ts-alu-quarter", "alu", "quarter", 1.0, 3.0, (1, 2, 4)),
    Group("ts-mem", "mem", "none", 1.0, 3.0, (1, 2, 4)),
    Group("ts-duty25", "alu", "full", 0.25, 3.0, (1, 2, 4, 7)),
    Group("ts-duty50", "alu", "full", 0.5, 3.0, (1, 2)),
    Group("ts-alu-full-long", "alu", "full", 1.0, 3.0, (1, 2), long=True),
    Group("pw-alu", "alu", "full", 1.0, 5.0, (1,)),
    Group("pw-mem", "mem", "none", 1.0, 5.0, (1,)),
    Group("pw-duty50", "alu", "full", 0.5, 5.0, (1,)),
    Group("pw-duty25", "alu", "full", 0.25, 5.0, (1,)),
    Group("mps-alu-full", "alu", "full", 1.0, 3.0, (1, 2, 4, 7), mps=True),
    Group("mps-alu-quarter", "alu", "quarter", 1.0, 3.0, (1, 2, 4, 7), mps=True),
    Group("mps-mem", "mem", "none", 1.0, 3.0, (2, 4), mps=True),
    Group("mps-duty25", "alu", "full", 0.25, 3.0, (2, 7), mps=True),
)
CALIB = Group("calib", "alu", "full", 1.0, 1.0, (1,))
IDLE_S = {"idle": 3.0, "idle2": 2.0}  # idle phases of power-sharing-phases.jsonl
# Order of a run: time-slicing groups, then PyTorch, then the MPS groups last, so that the daemon
# runs only while they do.
STEPS = (("idle",) + tuple(g.name for g in GROUPS if g.name.startswith("ts-")) +
         tuple(g.name for g in GROUPS if g.name.startswith("pw-")) + ("idle2", "timeslice", "ceilings", "llm-power") +
         tuple(g.name for g in GROUPS if g.mps))
GROUP_BY_NAME = {g.name: g for g in GROUPS}


def select_steps(only, mps):
    """The steps to run in order, and notes on those left out. `only`: comma-separated step names."""
    chosen = list(STEPS)
    if only:
        names = [n.strip() for n in only.split(",") if n.strip()]
        unknown = [n for n in names if n not in STEPS]
        if unknown:
            raise SystemExit(f"probe.py: unknown step(s) {', '.join(unknown)}; known: {', '.join(STEPS)}")
        chosen = [s for s in STEPS if s in names]
    notes = []
    if not mps:
        skipped = [s for s in chosen if s in GROUP_BY_NAME and GROUP_BY_NAME[s].mps]
        if skipped:
            notes.append(f"skipped without --mps: {', '.join(skipped)}")
        chosen = [s for s in chosen if s not in skipped]
    return chosen, notes


def needs_calib(steps):
    return any(s in GROUP_BY_NAME or s == "timeslice" for s in steps)


def scaled_iters(calib_gap_p50_ms):
    """Iterations for a ~0.25 ms kernel from calib's median time between kernel starts, in hundreds."""
    return max(100, round(CALIB_ITERS * TARGET_KERNEL_MS / calib_gap_p50_ms / 100) * 100)


def group_blocks(group, sms):
    return {"full": 2 * sms, "quarter": sms // 4, "none": 0}[group.width]


def sharing_command(binary, group, index, blocks, iters, start):
    return [str(binary), "--tag", f"{group.name}#{index}", "--mode", group.mode, "--blocks", str(blocks),
            "--iters", str(iters), "--duty", str(group.duty), "--dur", str(group.dur_s), "--start", str(start)]


def slice_iters_per_step(iters):
    return max(1, round(iters / SLICE_STEP_FRACTION))


def timeslice_command(binary, run, iters_per_step, start):
    return [str(binary), "--run", run, "--steps", str(SLICE_STEPS), "--iters-per-step", str(iters_per_step),
            "--reps", str(SLICE_REPS), "--start", str(start)]


def estimate_s(steps):
    per_run_s = LEAD_S + 1.0  # start-up and collection around each window
    total = (CALIB.dur_s + per_run_s) if needs_calib(steps) else 0.0
    for s in steps:
        if s in GROUP_BY_NAME:
            g = GROUP_BY_NAME[s]
            total += len(g.counts) * (g.dur_s + per_run_s)
        elif s in IDLE_S:
            total += IDLE_S[s]
        elif s == "timeslice":
            total += len(SLICE_COUNTS) * (per_run_s + 0.2 * SLICE_REPS * max(SLICE_COUNTS))
        elif s == "ceilings":
            total += 20
        elif s == "llm-power":
            total += sum(TORCH_PHASE_S.values()) + 60  # plus building the model and its graphs
    return total


TORCH_PHASE_S = {"idle": 4, "gemm8192": 8, "decode_b1_c1024": 6, "decode_b64_c1024": 6, "decode_b256_c1024": 6,
                 "prefill2048": 6, "idle_after": 5}


def format_plan(steps, notes, out, bin_dir):
    """The dry run: groups, process counts and commands, without a GPU."""
    sharing, timeslice = bin_dir / "sharing_probe", bin_dir / "timeslice_probe"
    lines = [f"probe plan -> {out} (about {estimate_s(steps) / 60:.0f} min)",
             "  nvidia-smi > nvidia-smi.txt; nvidia-smi -q > nvidia-smi-q.txt; nvidia-smi sampled every "
             f"{SAMPLE_PERIOD_MS} ms"]
    for s in steps:
        if s == next((c for c in steps if needs_calib([c])), None):
            lines.append("  calib n=1: " + " ".join(sharing_command(sharing, CALIB, 0, "2*SMs", CALIB_ITERS, "T")))
            lines.append(f"    ITERS = {CALIB_ITERS} x {TARGET_KERNEL_MS} ms / calib gap_p50_ms, in hundreds")
        if s in GROUP_BY_NAME:
            g = GROUP_BY_NAME[s]
            blocks = {"full": "2*SMs", "quarter": "SMs/4", "none": "0"}[g.width]
            iters = f"{LONG_KERNEL_FACTOR}*ITERS" if g.long else "ITERS"
            cmd = " ".join(sharing_command(sharing, g, "I", blocks, iters, "T"))
            extra = (", under MPS" if g.mps else "") + (f"; apps_mem at n={g.apps_mem_n}" if g.apps_mem_n else "")
            lines.append(f"  {g.name} n={','.join(map(str, g.counts))} (N at once, I = 0..N-1{extra}): {cmd}")
        elif s in IDLE_S:
            lines.append(f"  {s}: {IDLE_S[s]:.0f} s idle (power phase)")
        elif s == "timeslice":
            cmd = " ".join(timeslice_command(timeslice, "slice_nN_I", f"ITERS/{SLICE_STEP_FRACTION}", "T"))
            lines.append(f"  timeslice n={','.join(map(str, SLICE_COUNTS))} (N at once, I = 1..N): {cmd}")
        elif s == "ceilings":
            lines.append("  ceilings: PyTorch bf16 GEMM 8192^3, 2 GiB copy, Llama-3-8B MLP GEMMs at b=1,16,64,256")
        elif s == "llm-power":
            lines.append("  llm-power: PyTorch phases " + ", ".join(f"{k} {v} s" for k, v in TORCH_PHASE_S.items()))
    if any(GROUP_BY_NAME.get(s, CALIB).mps for s in steps):
        lines.append("  MPS: nvidia-cuda-mps-control -d before the first mps-* group (own pipe directory); "
                     "echo quit | nvidia-cuda-mps-control at the end, whatever happens")
    lines.append("  T = a wall-clock instant shared by the group's processes")
    lines += [f"  note: {n}" for n in notes]
    return "\n".join(lines)


def phase_mean(samples, start, end, skip_s, keys):
    """Means of `keys` over the samples in [start + skip_s, end] (monotonic seconds): the first
    second or so of a phase is left out, while clocks and power settle. Returns (count, means);
    a key with no reading (nvidia-smi's [N/A]) has mean None."""
    window = [v for t, v in samples if start + skip_s <= t <= end]
    means = {}
    for k in keys:
        values = [v[k] for v in window if v.get(k) is not None]
        means[k] = sum(values) / len(values) if values else None
    return len(window), means


def parse_smi_line(line, keys):
    """One CSV line of `nvidia-smi --query-gpu=... --format=csv,noheader,nounits` -> {key: float or None}."""
    values = [v.strip() for v in line.split(",")]
    if len(values) != len(keys):
        return None
    sample = {}
    for k, v in zip(keys, values):
        try:
            sample[k] = float(v)
        except ValueError:  # [N/A], [Not Supported]
            sample[k] = None
    return sample


class Sampler:
    """nvidia-smi's GPU query every SAMPLE_PERIOD_MS in a process of its own, stamped on arrival."""

    def __init__(self, smi):
        self.smi = smi
        fields = [f for f in SMI_FIELDS if self._supported(f)]
        self.keys = [SMI_FIELDS[f] for f in fields]
        self.samples = []
        self.proc = subprocess.Popen(
            smi + [f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits", "-lms", str(SAMPLE_PERIOD_MS)],
            stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _supported(self, field):  # power.draw.instant needs a recent driver
        return subprocess.run(self.smi + [f"--query-gpu={field}", "--format=csv,noheader"],
                              capture_output=True).returncode == 0

    def _read(self):
        for line in self.proc.stdout:
            sample = parse_smi_line(line, self.keys)
            if sample is not None:
                self.samples.append((time.monotonic(), sample))

    def mean(self, start, end, skip_s, keys):
        return phase_mean(list(self.samples), start, end, skip_s, keys)

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.thread.join()


def run_processes(commands, env, window_end):
    """Starts the commands at once and returns each one's last stdout line as JSON, or a record of why
    there is none. `window_end` (monotonic) is when they should have finished."""
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for c in commands]
    results = []
    for cmd, p in zip(commands, procs):
        try:
            out, err = p.communicate(timeout=max(1.0, window_end - time.monotonic()) + PROCESS_SLACK_S)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            err = f"timed out; {err}"
        lines = [ln for ln in out.splitlines() if ln.strip()]
        try:
            results.append(json.loads(lines[-1]))
        except (IndexError, json.JSONDecodeError):
            results.append({"err": f"{pathlib.Path(cmd[0]).name} exited {p.returncode}: {err.strip()[-300:]}"})
    return results


class Run:
    """One probe run: where it writes, what it runs with, and the figures later steps need."""

    def __init__(self, out, bin_dir, env, smi, sampler):
        self.out, self.bin_dir, self.env, self.smi, self.sampler = out, bin_dir, env, smi, sampler
        self.sms = None
        self.iters = None

    def write(self, name, record):
        with open(self.out / name, "a") as f:
            f.write((record if isinstance(record, str) else json.dumps(record)) + "\n")

    def sharing_group(self, group, n, iters):
        blocks = group_blocks(group, self.sms)
        lead_end = time.monotonic() + LEAD_S
        start_epoch = time.time() + LEAD_S
        commands = [sharing_command(self.bin_dir / "sharing_probe", group, i, blocks, iters, f"{start_epoch:.6f}")
                    for i in range(n)]
        window_end = lead_end + group.dur_s
        apps_mem = None
        if n == group.apps_mem_n:  # per-process memory, read mid-window in a thread of its own
            holder = {}
            reader = threading.Timer(LEAD_S + group.dur_s / 2, lambda: holder.update(mem=self.apps_mem()))
            reader.start()
        procs = run_processes(commands, self.env, window_end)
        if n == group.apps_mem_n:
            reader.join()
            apps_mem = holder.get("mem")
        for i, p in enumerate(procs):
            p.setdefault("tag", f"{group.name}#{i}")
        self.write("sharing.jsonl", {"group": group.name, "n": n, "mode": group.mode, "blocks": blocks,
                                     "iters": iters, "duty": group.duty, "dur": group.dur_s, "procs": procs,
                                     "apps_mem": apps_mem})
        if group is not CALIB:
            self.sharing_phase(group.name, n, lead_end, window_end)
        return procs

    def apps_mem(self):
        r = subprocess.run(self.smi + ["--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True)
        return r.stdout.strip() or None

    def sharing_phase(self, name, n, start, end):
        keys = ["power_w", "util_gpu", "util_mem", "sm_mhz", "temp_c", "mem_used_mib"]
        count, means = self.sampler.mean(start, end, SHARING_SKIP_S, keys)
        self.write("power-sharing-phases.jsonl", {"phase": name, "n": n, "samples": count, **means})

    def idle(self, name):
        start = time.monotonic()
        time.sleep(IDLE_S[name])
        self.sharing_phase(name, 0, start, time.monotonic())

    def calibrate(self):
        info = run_processes([[str(self.bin_dir / "sharing_probe"), "--info"]], self.env, time.monotonic())[0]
        if info.get("err") != "no error":
            raise SystemExit(f"probe.py: sharing_probe --info failed: {info.get('err')}")
        self.sms = info["sms"]
        calib = self.sharing_group(CALIB, 1, CALIB_ITERS)[0]
        if calib.get("err") != "no error" or not calib.get("gap_p50_ms"):
            raise SystemExit(f"probe.py: calib failed: {calib.get('err')}")
        self.iters = scaled_iters(calib["gap_p50_ms"])
        print(f"probe.py: {info['gpu']}, {self.sms} SMs; alu kernel {self.iters} iterations", file=sys.stderr)

    def timeslice(self):
        for n in SLICE_COUNTS:
            start_epoch = time.time() + LEAD_S
            commands = [timeslice_command(self.bin_dir / "timeslice_probe", f"slice_n{n}_{i + 1}",
                                          slice_iters_per_step(self.iters), f"{start_epoch:.6f}") for i in range(n)]
            for i, line in enumerate(run_processes(commands, self.env, time.monotonic() + LEAD_S + 2)):
                line.setdefault("run", f"slice_n{n}_{i + 1}")
                self.write("timeslice.jsonl", line)


def snapshot(smi, out):
    for args, name in (([], "nvidia-smi.txt"), (["-q"], "nvidia-smi-q.txt")):
        (out / name).write_text(subprocess.run(smi + args, capture_output=True, text=True, check=True).stdout)


@contextlib.contextmanager
def mps_daemon(env):
    """An MPS control daemon on a pipe directory of its own, so that `quit` reaches only this one."""
    with tempfile.TemporaryDirectory(prefix="gpusim-mps-") as tmp:
        mps_env = dict(env, CUDA_MPS_PIPE_DIRECTORY=f"{tmp}/pipe", CUDA_MPS_LOG_DIRECTORY=f"{tmp}/log")
        os.makedirs(mps_env["CUDA_MPS_PIPE_DIRECTORY"])
        os.makedirs(mps_env["CUDA_MPS_LOG_DIRECTORY"])
        try:
            subprocess.run(["nvidia-cuda-mps-control", "-d"], env=mps_env, check=True)
            yield mps_env
        finally:
            subprocess.run(["nvidia-cuda-mps-control"], input="quit\n", text=True, env=mps_env)


def find_bin_dir(given):
    candidates = [pathlib.Path(given)] if given else [HERE / "bin", HERE.parent.parent / "build" / "bin"]
    for d in candidates:
        if (d / "sharing_probe").exists() and (d / "timeslice_probe").exists():
            return d
    return None


def prepare_out(out, force):
    if out.exists() and any(out.iterdir()):
        if not force:
            raise SystemExit(f"probe.py: {out} is not empty; pass --force to overwrite")
        for name in OUTPUT_FILES:
            (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)


def run(steps, args, out, bin_dir):
    env = dict(os.environ)
    smi = ["nvidia-smi"]
    if args.gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(args.gpu)
        smi += ["-i", str(args.gpu)]
    snapshot(smi, out)
    sampler = Sampler(smi)
    mps = contextlib.ExitStack()
    try:
        r = Run(out, bin_dir, env, smi, sampler)
        for s in steps:
            print(f"probe.py: {s}", file=sys.stderr)
            if r.iters is None and needs_calib([s]):  # after the first idle phase, which wants cold clocks
                r.calibrate()
            if s in IDLE_S:
                r.idle(s)
            elif s in GROUP_BY_NAME:
                g = GROUP_BY_NAME[s]
                if g.mps and r.env is env:
                    r.env = mps.enter_context(mps_daemon(env))
                for n in g.counts:
                    r.sharing_group(g, n, r.iters * (LONG_KERNEL_FACTOR if g.long else 1))
            elif s == "timeslice":
                r.timeslice()
            else:
                run_torch_step(s, r)
    finally:
        mps.close()
        sampler.close()


def run_torch_step(step, r):
    import torch_phases  # beside this file; imports PyTorch only when asked for
    missing = torch_phases.unavailable()
    if missing:
        print(f"probe.py: {step} skipped: {missing}", file=sys.stderr)
        return
    if step == "ceilings":
        torch_phases.ceilings(lambda rec: r.write("ceilings.jsonl", rec))
    else:
        torch_phases.llm_power(lambda rec: r.write("power-tensor-and-llm.jsonl", rec),
                               lambda start, end, keys: r.sampler.mean(start, end, TORCH_SKIP_S, keys),
                               TORCH_PHASE_S)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, type=pathlib.Path, help="output directory (must be empty)")
    p.add_argument("--mps", action="store_true", help="also run the mps-* groups under an MPS control daemon")
    p.add_argument("--force", action="store_true", help="overwrite the kit's files in a non-empty --out")
    p.add_argument("--dry-run", action="store_true", help="print the plan and exit; needs no GPU")
    p.add_argument("--only", help=f"comma-separated steps to run, of: {', '.join(STEPS)}")
    p.add_argument("--gpu", type=int, help="GPU index to measure (default: CUDA's first)")
    p.add_argument("--bin", help="folder of sharing_probe and timeslice_probe (default: tools/probe/bin, build/bin)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    steps, notes = select_steps(args.only, args.mps)
    bin_dir = find_bin_dir(args.bin)
    if args.dry_run:
        print(format_plan(steps, notes, args.out, bin_dir or pathlib.Path(args.bin or HERE / "bin")))
        return 0
    if bin_dir is None and needs_calib(steps):
        raise SystemExit("probe.py: sharing_probe/timeslice_probe not found; build them with `make -C tools/probe` "
                         "or pass --bin")
    if shutil.which("nvidia-smi") is None:
        raise SystemExit("probe.py: nvidia-smi not found")
    prepare_out(args.out, args.force)
    for n in notes:
        print(f"probe.py: {n}", file=sys.stderr)
    run(steps, args, args.out, bin_dir)
    print(f"probe.py: done; next: gpusim calibrate {args.out} > calibration.yaml", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
