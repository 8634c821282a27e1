"""Self-study in a real browser: JupyterLab on 127.0.0.1, driven by Playwright with Debian's Chromium.

A learner's attempt at exercise 04 (the one-branch mistake) runs top to bottom on the CPU; the progress panel
and the result card render with the expected text, and "show a hint" reveals the first hint. A screenshot is
saved under build/browser/ as the test's artifact. Skips, saying why, only where Chromium or Playwright cannot
be had (`.ci/run` installs Chromium with apt).
"""

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "build" / "browser"
EX = "04_graph_breaks"


def _attempt(folder: Path) -> Path:
    """The student version of exercise 04 with a wrong FixedBlock (one branch only) filled in and the graded
    test cells left out (in JupyterLab an error stops Run All), ending with the result-card cell."""
    nb = json.loads((REPO / "exercises" / EX / f"{EX}.ipynb").read_text())
    wrong = (REPO / "autograder" / "exercises" / "submissions" / EX / "one_branch.py").read_text()
    cells = []
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("grade"):
            continue
        if meta.get("grade_id") == "FixedBlock":
            cell["source"] = wrong
        cells.append(cell)
    nb["cells"] = cells
    path = folder / f"{EX}_attempt.ipynb"
    path.write_text(json.dumps(nb))
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (`apt-get install chromium`; .ci/run does)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
    root = tmp_path_factory.mktemp("lab")
    notebook = _attempt(root)
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ, COURSE_PROGRESS_FILE=str(root / "progress.json"), PYTHONPATH=str(REPO),
               JUPYTER_CONFIG_DIR=str(root / "config"), JUPYTER_RUNTIME_DIR=str(root / "runtime"))
    env.pop("COURSE_ALLOW_SKIP", None)
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}", "--ServerApp.open_browser=False"]
    if os.getuid() == 0:
        cmd.append("--allow-root")
    log = open(root / "lab.log", "w")
    server = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    pytest.fail("jupyter lab did not start:\n" + (root / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/lab/tree/{notebook.name}?token={token}", root
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_an_exercise_runs_in_jupyterlab_and_shows_progress_result_card_and_hints(lab):
    from playwright.sync_api import sync_playwright

    url, root = lab
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(url)
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle'], "
                                   ".jp-Toolbar-kernelStatus", timeout=60_000)
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            card = page.wait_for_selector(".course-result-card", timeout=240_000)
            card_text = card.inner_text()
            assert "Graph breaks" in card_text and "FAILED" in card_text, card_text
            assert "differs" in card_text, card_text
            panel = page.locator(".course-progress-panel").first.inner_text()
            assert "Course progress:" in panel and "exercise 04: not tried" in panel, panel
            page.locator(".course-hint-button").first.click()
            hints = page.wait_for_selector(".course-hints div", timeout=10_000).inner_text()
            assert hints.startswith("Hint 1/"), hints
            page.screenshot(path=str(ARTIFACTS / "exercise04_result_card.png"), full_page=True)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "failure.png"), full_page=True)
            shutil.copy(root / "lab.log", ARTIFACTS / "lab.log")
            raise
        finally:
            browser.close()
    saved = json.loads((root / "progress.json").read_text())
    assert saved["exercises"][EX]["passed"] is False  # the card recorded the attempt in the learner's file
