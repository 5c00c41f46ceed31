#!/usr/bin/python3
"""The HTML report of every shipped scenario, opened in headless Chromium (issue 21).

For each scenario of scenarios/: `gpusim run --report` (and, for a scenario with variants, `gpusim
compare --report`, its variants side by side). One browser session loads every report from disk
(file://, so any network fetch would fail) and fails on: a console error, a plot (each <svg
class="plot">) of zero size, with no drawn mark of non-zero size, or whose screenshot is one
uniform colour. A full-page screenshot of each report goes to SCREENSHOT_DIR.

Without Chromium, chromedriver or python3-selenium the test is skipped (exit 77) on a developer's
machine and fails in CI (CI=true), where scripts/common.sh installs them.

Usage: report_browser_test.py GPUSIM_BINARY SOURCE_DIR SCREENSHOT_DIR
"""
import io
import os
import pathlib
import shutil
import subprocess
import sys
import time

import yaml

SKIP = 77


def missing(why):
    if os.environ.get("CI") == "true":
        sys.exit(f"report_browser_test: {why}; CI must have chromium, chromium-driver and python3-selenium (scripts/common.sh)")
    print(f"report_browser_test: skipped: {why}")
    sys.exit(SKIP)


try:
    from PIL import Image
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
except ImportError as e:
    missing(f"cannot import {e.name}")


def reports(binary, root, out):
    """Writes every report; yields (label, path)."""
    data = ["--data", str(root / "data")]
    for path in sorted((root / "scenarios").glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        commands = [("run", path.stem)]
        if doc.get("variants"):
            commands.append(("compare", path.stem + "-compare"))
        for command, label in commands:
            html = out / f"{label}.html"
            done = subprocess.run([binary, command, str(path), *data, "--report", str(html)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                sys.exit(f"{label}: gpusim {command} exited {done.returncode}: {done.stderr}")
            yield label, html


def pixels(svg):
    return Image.open(io.BytesIO(svg.screenshot_as_png)).convert("RGB").tobytes()


def check_page(driver, label, html, shots):
    problems = []
    driver.get(html.resolve().as_uri())
    for entry in driver.get_log("browser"):
        if entry.get("level") == "SEVERE":
            problems.append(f"console error: {entry.get('message')}")
    plots = driver.find_elements(By.CSS_SELECTOR, "svg.plot")
    if not plots:
        problems.append("no plot")
    shown = []
    for i, svg in enumerate(plots):
        name = svg.find_element(By.TAG_NAME, "title").get_attribute("textContent")
        size = svg.size
        if size["width"] <= 0 or size["height"] <= 0:
            problems.append(f"plot {i} ({name}): zero size {size}")
            continue
        marks = driver.execute_script(
            "return [...arguments[0].querySelectorAll('.mark')].filter(e => {"
            " const b = e.getBBox(); return b.width > 0 || b.height > 0; }).length;", svg)
        if marks == 0:
            problems.append(f"plot {i} ({name}): nothing drawn")
        shown.append((i, name, svg, pixels(svg)))
    height = driver.execute_script("return document.documentElement.scrollHeight;")
    driver.set_window_size(1100, min(height + 40, 16000))
    driver.save_screenshot(str(shots / f"{label}.png"))
    driver.set_window_size(1100, 1000)
    # Drawn means visible: each plot's pixels change when its marks (lines, bars, cells) are hidden.
    driver.execute_script("const s = document.createElement('style'); s.textContent = '.mark{visibility:hidden}';"
                          " document.head.appendChild(s);")
    for i, name, svg, before in shown:
        if pixels(svg) == before:
            problems.append(f"plot {i} ({name}): blank (no visible mark)")
    return len(plots), [f"{label}: {p}" for p in problems]


def main():
    binary, root, shots = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
    browser = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if not browser or not driver_path:
        missing("chromium or chromedriver not found")
    shutil.rmtree(shots, ignore_errors=True)  # this test's own directory: the last run's pages and screenshots
    shots.mkdir(parents=True)
    t0 = time.monotonic()
    written = list(reports(binary, root, shots))
    t1 = time.monotonic()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                "--window-size=1100,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    problems, plots = [], 0
    try:
        for label, html in written:
            n, p = check_page(driver, label, html, shots)
            plots += n
            problems += p
    finally:
        driver.quit()
    sizes = [h.stat().st_size for _, h in written]
    print(f"{len(written)} reports ({min(sizes):,} to {max(sizes):,} bytes), {plots} plots; written in {t1 - t0:.1f} s, "
          f"checked in Chromium in {time.monotonic() - t1:.1f} s; screenshots in {shots}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
