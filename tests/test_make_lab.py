"""`make lab ARGS=--no-browser` serves JupyterLab with the lessons, as a newcomer on a server would use it."""

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from conftest import BIN, REPO


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.status, resp.read().decode()


@pytest.mark.slow
def test_make_lab_serves_the_lessons_folder(tmp_path):
    port, token = _free_port(), "course-test-token"
    args = f"--no-browser --ip=127.0.0.1 --port={port} --IdentityProvider.token={token}"
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", JUPYTER_RUNTIME_DIR=str(tmp_path))
    log = open(tmp_path / "lab.log", "w")
    server = subprocess.Popen(["make", "lab", f"ARGS={args}"], cwd=REPO, env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                status, body = _get(f"http://127.0.0.1:{port}/api/contents/lessons?token={token}")
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "lab.log").read_text()
                assert time.monotonic() < deadline, "JupyterLab did not answer within 90 s"
                time.sleep(0.5)
        names = {item["name"] for item in json.loads(body)["content"]}
        assert "00_start_here.ipynb" in names
        status, page = _get(f"http://127.0.0.1:{port}/lab/tree/lessons?token={token}")
        assert status == 200 and "JupyterLab" in page
        # The learner's lab: no instructor tools (issue 40: Formgrader's menu and Create Assignment showed, and
        # opening Formgrader made a gradebook.db in the repository); `make lab-instructor` has them.
        config = json.loads(re.search(r'id="jupyter-config-data"[^>]*>(.*?)</script>', page, re.S).group(1))
        assert "@jupyter/nbgrader" in config["disabledExtensions"], config["disabledExtensions"]
        with pytest.raises(urllib.error.HTTPError) as refused:
            _get(f"http://127.0.0.1:{port}/formgrader?token={token}")
        assert refused.value.code == 404
        assert not (REPO / "gradebook.db").exists()
        # The course kernel is registered inside the environment.
        _, specs = _get(f"http://127.0.0.1:{port}/api/kernelspecs?token={token}")
        assert "torch-compile-course" in json.loads(specs)["kernelspecs"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
