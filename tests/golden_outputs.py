#!/usr/bin/python3
"""Every shipped scenario's output files, byte for byte, against recorded SHA-256 digests.

Runs each scenario of scenarios/ once per variant under its own policy, every extra policy
results/baseline.yaml records for it, and the FGD packing experiment (one seed, every policy),
and compares a digest of each file the run writes with tests/golden/outputs.sha256. Every run is
made under --audit, so every shipped scenario also has its invariants checked after each event, and
every run's summary.json and run table are checked to account for every job and request (the rows
of each table add up to its total: tests/accounting.py), and `gpusim report` must read every run
directory (its checks of types and ranges must refuse nothing gpusim writes), and every CSV row must
have as many fields as its header (the files are unquoted). A refactoring must
leave them all unchanged; a named model change or fix regenerates them with --update, and the
commit says why.

Usage: golden_outputs.py GPUSIM_BINARY SOURCE_DIR [--update]
"""
import hashlib
import pathlib
import subprocess
import sys
import tempfile

import json

import yaml

import accounting


def runs(root):
    """(label, arguments) for every run the digests cover, in a fixed order."""
    extra = {}
    for r in yaml.safe_load((root / "results/baseline.yaml").read_text())["runs"]:
        if "policy" in r:
            extra.setdefault(pathlib.Path(r["scenario"]).name, []).append((r.get("variant"), r["policy"]))
    for path in sorted((root / "scenarios").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        variants = {v["name"]: v.get("set") or [] for v in doc.get("variants") or []} or {None: []}
        combos = [(v, None) for v in variants] + extra.get(path.name, [])
        for variant, policy in combos:
            args = ["run", str(path)]
            for s in variants[variant]:
                args += ["--set", s]
            if policy:
                args += ["--policy", policy]
            label = path.stem + (f"[{variant}]" if variant else "") + (f"{{{policy}}}" if policy else "")
            yield label, args


def digests(binary, root):
    out = {}
    data = ["--data", str(root / "data")]
    unaccounted, ragged = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, args) in enumerate(runs(root)):
            d = pathlib.Path(tmp) / str(i)
            done = subprocess.run([binary, *args, *data, "--audit", "--out", str(d)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                sys.exit(f"{label}: gpusim exited {done.returncode}: {done.stderr}")
            unaccounted += [f"{label}: {p}" for p in accounting.problems(json.loads((d / "summary.json").read_text()),
                                                                         done.stdout)]
            report = subprocess.run([binary, "report", str(d), "--out", str(pathlib.Path(tmp) / "report.html"), "--force"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if report.returncode != 0:
                sys.exit(f"{label}: gpusim report refused its run directory: {report.stderr}")
            for f in sorted(d.iterdir()):
                out[f"{label}/{f.name}"] = hashlib.sha256(f.read_bytes()).hexdigest()
                if f.suffix == ".csv":  # unquoted: a comma inside a field would shift every column after it
                    rows = f.read_text().splitlines()
                    ragged += [f"{label}/{f.name} line {n}" for n, row in enumerate(rows[1:], 2)
                               if row.count(",") != rows[0].count(",")][:3]
        if unaccounted:
            sys.exit("rows that do not add up to their total:\n" + "\n".join(unaccounted))
        if ragged:
            sys.exit("CSV rows with another number of fields than their header:\n" + "\n".join(ragged))
        csv = pathlib.Path(tmp) / "packing.csv"
        table = subprocess.run([binary, "packing", str(root / "scenarios/fgd-openb.yaml"), "--seeds", "42", *data,
                                "--csv", str(csv)], check=True, capture_output=True).stdout
        # The last column is wall-clock seconds per run: not an output of the model. Its width (and so
        # the padding before it) grows on a slow machine, so the padding goes with it.
        rows, _, notes = table.partition(b"\n\n")
        table = b"\n".join(row.rsplit(b" ", 1)[0].rstrip() for row in rows.splitlines()) + notes
        out["packing/table.txt"] = hashlib.sha256(table).hexdigest()
        out["packing/checkpoints.csv"] = hashlib.sha256(csv.read_bytes()).hexdigest()
    return out


def main():
    binary, root = sys.argv[1], pathlib.Path(sys.argv[2])
    golden = root / "tests/golden/outputs.sha256"
    now = digests(binary, root)
    if "--update" in sys.argv[3:]:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text("".join(f"{h}  {name}\n" for name, h in now.items()))
        print(f"wrote {len(now)} digests to {golden}")
        return 0
    want = dict(reversed(line.split("  ", 1)) for line in golden.read_text().splitlines())
    changed = [n for n in want if now.get(n) != want[n]]
    added = [n for n in now if n not in want]
    for n in changed:
        print(f"{'missing' if n not in now else 'changed'}: {n}")
    for n in added:
        print(f"new: {n}")
    print(f"{len(want) - len(changed)} passed, {len(changed) + len(added)} failed")
    return 1 if changed or added else 0


if __name__ == "__main__":
    sys.exit(main())
