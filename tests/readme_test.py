#!/usr/bin/python3
"""The README as a new user meets it: every command runs, every quoted figure is what gpusim prints.

Reads README.md, then every page of docs/ (docs/**/*.md, in path order) and, in a fresh working directory that sees the repository's scenarios/, data/,
results/ and python/ (outputs such as out/qs land in the working directory, not in the checkout):

- runs every line of every ```sh block (exit 0 expected; `gpusim check` included), and every
  ```python block under Debian's /usr/bin/python3 with the package the build assembled;
- writes a block preceded by `<!-- write: PATH -->` to PATH before the commands after it run;
- checks a block preceded by `<!-- file: PATH -->` is that repository file, byte for byte;
- after `<!-- figures: COMMAND -->` (several such lines add up), checks the next paragraph's
  **bold** figures (in a table: its bold figures, or without any, every figure in its cells but the
  first column) against the numbers COMMAND prints: a figure matches a printed number equal to it
  at the figure's precision. A cell longer than 40 characters is a sentence: only its bold
  figures count. `<!-- timings: HEADER; ROW LABEL -->` names the table's columns and rows that
  hold timings, which depend on the machine and are not compared.
Timings depend on the machine: the README never sets them in bold or under a figures marker.
A block or paragraph preceded by `<!-- data: PATH -->` needs a trace that data/ does not carry:
its commands run with the caller's GPUSIM_DATA (CI sets it) when that directory holds PATH, and are
skipped, saying so, when it does not. Blocks preceded by `<!-- skip: WHY -->`, and blocks with no
language (formats, trees, sketches), are not run. The set-up and test commands are what run this test: they are skipped too.

Usage: readme_test.py GPUSIM_BINARY SOURCE_DIR
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile
from decimal import Decimal, InvalidOperation

MARKER = re.compile(r"^<!--\s*(write|file|figures|timings|skip|data):\s*(.*?)\s*-->$")
NUMBER = re.compile(r"(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)|(?<![\w.,])[-+]?\d+(?:\.\d+)?(?![\d.]\d)")
BOLD = re.compile(r"\*\*(.+?)\*\*")
SETUP = ("./scripts/setup.sh", "./scripts/test.sh")


def numbers(text):
    """The numbers in text as Decimals ("71,481.60" -> 71481.60; "1.00x" -> 1.00; "2026-11-23" -> 2026, 11, 23)."""
    out = []
    for m in NUMBER.finditer(text):
        try:
            out.append(Decimal(m.group(0).replace(",", "").lstrip("+")))
        except InvalidOperation:
            pass
    return out


def matches(figure, printed):
    """A README figure matches a printed number that is equal at the figure's precision."""
    exponent = figure.as_tuple().exponent
    return any(p == figure or (p.as_tuple().exponent < exponent and p.quantize(figure) == figure) for p in printed)


def bold_figures(text):
    return [n for span in BOLD.findall(text) for n in numbers(span)]


def table_figures(text, timings):
    """A table's figures: every number of a short cell, the bold ones of a sentence; not the first column
    (labels), nor the rows and columns named in a timings marker (they depend on the machine)."""
    rows = [[c.strip() for c in row.strip().strip("|").split("|")] for row in text.splitlines()]
    header, body = rows[0], rows[2:]
    skip = {i for i, h in enumerate(header) if h in timings}
    out = []
    for row in body:
        if row[0] in timings:
            continue
        for i, cell in enumerate(row[1:], start=1):
            if i not in skip:
                out += bold_figures(cell) if len(cell) > 40 else numbers(cell.replace("**", ""))
    return out


def parse(readme):
    """Yields (kind, payload, line) in README order: ("block", (lang, text, markers)), ("para", (text, markers))."""
    lines = readme.splitlines()
    markers = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line.strip())
        if m:
            markers.append((m.group(1), m.group(2)))
            i += 1
            continue
        if line.startswith("```"):
            lang, start = line[3:].strip(), i + 1
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                i += 1
            yield "block", (lang, "\n".join(lines[start:i]) + "\n", markers), start
            markers = []
            i += 1
            continue
        if line.strip() and markers:
            start = i
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("```"):
                i += 1
            yield "para", ("\n".join(lines[start:i]), markers), start + 1
            markers = []
            continue
        i += 1


def shell_lines(text):
    """The commands of a sh block: one per line, with trailing '# ...' comments removed."""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        yield re.sub(r"\s+#\s.*$", "", line)


def main():
    binary, root = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    failures, ran, figures = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for name in ("scenarios", "data", "results", "python", "scripts", "docs"):
            if (root / name).exists():
                (work / name).symlink_to(root / name)
        env = dict(os.environ, PATH=f"{binary.parent}:{os.environ['PATH']}", MPLBACKEND="Agg",
                   PYTHONPATH=f"{binary.parent.parent / 'python'}:{root / 'python'}")
        shared_data = env.pop("GPUSIM_DATA", "")  # a new user has only data/
        shared_data = str(pathlib.Path(shared_data).resolve()) if shared_data else ""  # the commands run elsewhere
        outputs = {}
        skipped = 0

        def run(command, where, data=None):
            nonlocal ran
            key = (command, data)
            if key not in outputs:
                run_env = dict(env, GPUSIM_DATA=shared_data) if data else env
                done = subprocess.run(command, shell=True, cwd=work, env=run_env, capture_output=True, text=True)
                ran += 1
                outputs[key] = done.stdout + done.stderr
                if done.returncode != 0:
                    failures.append(f"{where}: `{command}` exited {done.returncode}:\n"
                                    + (done.stdout + done.stderr)[-2000:])
            return outputs[key]

        for page, kind, payload, where in ((p, *item) for p in pages for item in parse(p.read_text())):
            where = f"{page.relative_to(root)}:{where}"
            markers = payload[-1]
            kinds = dict(markers)
            if "skip" in kinds:
                continue
            data = kinds.get("data")
            if data and not (shared_data and (pathlib.Path(shared_data) / data).exists()):
                skipped += 1
                print(f"SKIP {where}: needs {data} in the data directory GPUSIM_DATA "
                      f"({'not set' if not shared_data else 'not in ' + shared_data})")
                continue
            if kind == "block":
                lang, text, _ = payload
                if "figures" in kinds or "timings" in kinds:
                    failures.append(f"{where}: a figures or timings marker before a code block checks nothing")
                if "write" in kinds:
                    target = work / kinds["write"]
                    if target.parent.resolve() != work.resolve():  # not through the checkout's symlinked folders
                        failures.append(f"{where}: write: takes a file name in the working directory")
                    else:
                        target.write_text(text)
                    continue
                if "file" in kinds:
                    if (root / kinds["file"]).read_text() != text:
                        failures.append(f"{where}: the block differs from {kinds['file']}")
                    continue
                if lang == "sh":
                    for command in shell_lines(text):
                        if not command.startswith(SETUP):
                            run(command, where, data)
                elif lang == "python":
                    script = work / ("readme_" + re.sub(r"\W", "_", where) + ".py")
                    script.write_text(text)
                    run(f"/usr/bin/python3 {script.name}", where, data)
                continue
            text, _ = payload
            commands = [arg for k, arg in markers if k == "figures"]
            if not commands:
                continue
            printed = [n for c in commands for n in numbers(run(c, where, data))]
            timings = {t.strip() for k, arg in markers if k == "timings" for t in arg.split(";")}
            quoted = table_figures(text, timings) if text.lstrip().startswith("|") else bold_figures(text)
            if not quoted:
                failures.append(f"{where}: a figures marker with no figure after it")
            for figure in quoted:
                figures += 1
                if not matches(figure, printed):
                    failures.append(f"{where}: {figure} is not what `{' ; '.join(commands)}` prints")
    for f in failures:
        print(f"FAIL {f}")
    print(f"README and docs/: {ran} commands run, {figures} figures checked, {skipped} skipped for their data, "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
