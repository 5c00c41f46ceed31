"""Tests of the probe driver's parts that need no GPU: the plan against the reference measurement's
groups, power-phase means, output safety and the records it writes (stub probe programs).
Run: /usr/bin/python3 -m unittest discover -s tools/probe -p '*_test.py'"""
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import probe  # noqa: E402
import torch_phases  # noqa: E402

REFERENCE = HERE.parent.parent / "data" / "measurements" / "h200-2026-11-28"
REFERENCE_SMS = 132


def reference_lines(name):
    return [json.loads(line) for line in (REFERENCE / name).read_text().splitlines() if line.strip()]


class PlanTest(unittest.TestCase):
    def test_groups_are_the_reference_groups(self):
        # Every (group, n) of the reference's sharing.jsonl, in its order, with its mode, blocks, duty and
        # duration: `gpusim calibrate` reads a kit run as it reads the reference.
        ref = [(d["group"], d["n"], d["mode"], d["blocks"], d["duty"], d["dur"])
               for d in reference_lines("sharing.jsonl")]
        ours = [(probe.CALIB.name, 1, "alu", 2 * REFERENCE_SMS, 1.0, probe.CALIB.dur_s)]
        ours += [(g.name, n, g.mode, probe.group_blocks(g, REFERENCE_SMS), g.duty, g.dur_s)
                 for g in probe.GROUPS for n in g.counts]
        self.assertEqual(ours, ref)

    def test_power_phases_are_the_reference_phases(self):
        ref = [(d["phase"], d["n"]) for d in reference_lines("power-sharing-phases.jsonl")]
        ours = []
        for s in probe.STEPS:
            if s in probe.IDLE_S:
                ours.append((s, 0))
            elif s in probe.GROUP_BY_NAME:
                ours += [(s, n) for n in probe.GROUP_BY_NAME[s].counts]
        self.assertEqual(ours, ref)

    def test_iters_scale_to_a_quarter_millisecond_kernel(self):
        # On the H200, 10,000 iterations took 0.2744 ms between starts: 9,100 make 0.25 ms (reference).
        self.assertEqual(probe.scaled_iters(0.2744), 9100)
        self.assertEqual(probe.scaled_iters(0.5), 5000)
        self.assertEqual(probe.scaled_iters(1e6), 100)  # never below a hundred

    def test_mps_groups_need_the_flag(self):
        steps, notes = probe.select_steps(None, mps=False)
        self.assertFalse(any(s.startswith("mps-") for s in steps))
        self.assertIn("mps-alu-full", notes[0])
        steps, notes = probe.select_steps(None, mps=True)
        self.assertEqual(steps[-4:], ["mps-alu-full", "mps-alu-quarter", "mps-mem", "mps-duty25"])
        self.assertEqual(notes, [])

    def test_only_keeps_the_run_order_and_rejects_unknown_steps(self):
        steps, _ = probe.select_steps("timeslice, ts-mem", mps=False)
        self.assertEqual(steps, ["ts-mem", "timeslice"])
        self.assertFalse(probe.needs_calib(["ceilings", "idle"]))
        with self.assertRaises(SystemExit) as e:
            probe.select_steps("ts-memory", mps=False)
        self.assertIn("ts-mem", str(e.exception))  # names the known steps

    def test_dry_run_prints_every_group_without_a_gpu(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(probe.main(["--dry-run", "--mps", "--out", "/nonexistent/x"]), 0)
        text = out.getvalue()
        for g in probe.GROUPS:
            self.assertIn(f"--tag {g.name}#I", text)
        self.assertIn("calib n=1", text)
        self.assertIn("timeslice_probe --run slice_nN_I", text)
        self.assertIn("echo quit | nvidia-cuda-mps-control", text)
        self.assertFalse(pathlib.Path("/nonexistent/x").exists())


class PhaseMeanTest(unittest.TestCase):
    def test_leaves_out_the_first_second_and_missing_readings(self):
        # Samples at 0, 0.5, ..., 3.0 s: power 100 W until 1 s (settling), 400 W after; with the first
        # second left out only 1.0..3.0 s count (5 samples), all 400 W.
        samples = [(t / 2, {"power_w": 100.0 if t < 2 else 400.0, "util_gpu": None}) for t in range(7)]
        count, means = probe.phase_mean(samples, 0.0, 3.0, 1.0, ["power_w", "util_gpu"])
        self.assertEqual(count, 5)
        self.assertEqual(means, {"power_w": 400.0, "util_gpu": None})

    def test_empty_window(self):
        self.assertEqual(probe.phase_mean([(0.5, {"power_w": 1.0})], 0.0, 1.0, 1.5, ["power_w"]),
                         (0, {"power_w": None}))

    def test_smi_line(self):
        keys = ["power_w", "power_instant_w", "sm_mhz"]
        self.assertEqual(probe.parse_smi_line("448.45, [N/A], 1980\n", keys),
                         {"power_w": 448.45, "power_instant_w": None, "sm_mhz": 1980.0})
        self.assertIsNone(probe.parse_smi_line("448.45, 1980", keys))


STUB_PROBE = """#!/usr/bin/python3
import json, sys
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
keys = {keys}
rec = {{k: 0 for k in keys}}
rec.update(tag=a["--tag"], mode=a["--mode"], blocks=int(a["--blocks"]), iters=int(a["--iters"]),
           duty=float(a["--duty"]), err="no error")
print(json.dumps(rec))
"""


class FakeSampler:
    def mean(self, start, end, skip_s, keys):
        return 3, {k: 1.0 for k in keys}


class RecordsTest(unittest.TestCase):
    def test_sharing_records_have_the_reference_fields(self):
        ref = reference_lines("sharing.jsonl")[0]
        ref_phase = reference_lines("power-sharing-phases.jsonl")[0]
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            stub = tmp / "sharing_probe"
            stub.write_text(STUB_PROBE.format(keys=list(ref["procs"][0])))
            stub.chmod(0o755)
            run = probe.Run(tmp, tmp, None, ["true"], FakeSampler())
            run.sms = REFERENCE_SMS
            group = probe.Group("ts-alu-quarter", "alu", "quarter", 1.0, 0.01, (2,))
            procs = run.sharing_group(group, 2, 9100)
            self.assertEqual([p["tag"] for p in procs], ["ts-alu-quarter#0", "ts-alu-quarter#1"])
            line = json.loads((tmp / "sharing.jsonl").read_text())
            self.assertEqual(list(line), list(ref))
            self.assertEqual(list(line["procs"][0]), list(ref["procs"][0]))
            self.assertEqual(line["blocks"], 33)
            phase = json.loads((tmp / "power-sharing-phases.jsonl").read_text())
            self.assertEqual(list(phase), list(ref_phase))

    def test_a_process_without_output_is_recorded_with_why(self):
        procs = probe.run_processes([[sys.executable, "-c", "import sys; sys.exit('boom')"]], None, 0.0)
        self.assertIn("exited 1: boom", procs[0]["err"])

    def test_refuses_a_non_empty_output_without_force(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            (out / "sharing.jsonl").write_text("old\n")
            (out / "notes.txt").write_text("mine\n")
            with self.assertRaises(SystemExit):
                probe.prepare_out(out, force=False)
            probe.prepare_out(out, force=True)
            self.assertFalse((out / "sharing.jsonl").exists())  # the kit's files go
            self.assertTrue((out / "notes.txt").exists())  # nothing else does


class TorchShapesTest(unittest.TestCase):
    def test_llama_3_8b_weights_as_in_the_reference(self):
        params = reference_lines("ceilings.jsonl")[3]
        self.assertEqual(torch_phases.weight_params(), params["params"])
        self.assertEqual(torch_phases.weight_bytes_per_step(), params["weight_bytes_read_per_step"])


if __name__ == "__main__":
    unittest.main()
