import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True, scope="session")
def _progress_file(tmp_path_factory):
    """Tests never write the learner's real progress file (autograder.progress)."""
    os.environ["COURSE_PROGRESS_FILE"] = str(tmp_path_factory.mktemp("progress") / "progress.json")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def run_make(*args: str, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    """Run `make ARGS` in the repository with this interpreter's environment first on PATH."""
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(["make", "--no-print-directory", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout, **kwargs)
