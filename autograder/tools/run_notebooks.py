"""Execute course notebooks headless with papermill (what `make check` and the notebook tests run).

    python -m autograder.tools.run_notebooks [--size smoke|full|auto] [--device auto|cpu|cuda] [NOTEBOOK ...]

Every lesson and solution notebook has a ``parameters`` cell with DEVICE and SIZE; papermill injects the
values given here. Executed copies go to build/notebooks/ (git-ignored); the sources are never touched.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path
from queue import Empty

from autograder.tools.paths import REPO

OUT_DIR = REPO / "build" / "notebooks"
KERNEL = "python3"


def runnable_notebooks(root: Path = REPO) -> list[Path]:
    """Lessons and reference solutions: the notebooks that must run top to bottom without error.

    (Student versions in exercises/ are meant to fail until the student fills them in.)
    """
    return sorted((root / "lessons").glob("*.ipynb")) + sorted((root / "solutions").glob("*/*.ipynb"))


POLL_SLICE_S = 0.5


@contextlib.contextmanager
def sliced_polls(slice_s: float = POLL_SLICE_S):
    """nbclient waits for a cell's reply with one poll of the kernel's socket as long as the cell's time limit. On a
    loaded machine, after a widget cell (``ipywidgets.interact``), that poll sometimes misses the reply's wake-up and
    returns only at the limit, and the notebook then goes on as if nothing happened (jupyter/nbclient#312): lesson 5's
    slider cell took exactly its 240 s limit in CI, 900 s on a GPU host; 8 of 24 runs of a six-slider notebook beside
    a CPU load each lost 30 s, its limit. Polling in slices sees the reply at the next slice (0 of 24 lost any)."""
    from jupyter_client.channels import AsyncZMQSocketChannel

    original = AsyncZMQSocketChannel.get_msg

    async def get_msg(self, timeout: float | None = None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                return await original(self, timeout=slice_s if left is None else min(slice_s, left))
            except Empty:
                if left is not None and left <= slice_s:
                    raise

    AsyncZMQSocketChannel.get_msg = get_msg
    try:
        yield
    finally:
        AsyncZMQSocketChannel.get_msg = original


class NotebookFailed(RuntimeError):
    """A notebook raised; the message names the notebook, the cell and the error."""


def repair_compile_cache() -> None:
    """After a failed run: the kernel may have been killed while it wrote a kernel library into Inductor's cache,
    which every later compile of that kernel on this machine would load and die on (core.compile_cache). Never
    raises: the run's own failure is what the caller reports."""
    from autograder.core.compile_cache import drop_truncated_libraries

    try:
        from torch._inductor.runtime.cache_dir_utils import cache_dir
    except ImportError:  # a torch that keeps it elsewhere: nothing repaired
        return

    for path in drop_truncated_libraries(Path(cache_dir())):  # the kernel's: it inherits this environment
        print(f"removed a truncated kernel library from Inductor's cache: {path}", file=sys.stderr)


def run_notebook(path: Path, *, size: str = "auto", device: str = "auto", out_dir: Path = OUT_DIR,
                 timeout: int = 900, extra_parameters: dict | None = None) -> Path:
    """Execute ``path`` with papermill; return the executed copy's path or raise NotebookFailed."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    path = Path(path).resolve()
    rel = path.relative_to(REPO) if path.is_relative_to(REPO) else Path(path.name)
    out = Path(out_dir) / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    parameters = {"DEVICE": device, "SIZE": size, **(extra_parameters or {})}
    # An explicit CPU run (CI) may skip the speed checks that need a GPU; a GPU run enforces every gate.
    saved = os.environ.get("COURSE_ALLOW_SKIP")
    if device == "cpu":
        os.environ["COURSE_ALLOW_SKIP"] = "1"
    # A check run is not the learner's own progress: record it beside the executed copies instead.
    os.environ.setdefault("COURSE_PROGRESS_FILE", str(Path(out_dir) / "progress.json"))
    try:
        with sliced_polls():
            papermill.execute_notebook(
                str(path), str(out), parameters=parameters, kernel_name=KERNEL, cwd=str(path.parent),
                execution_timeout=timeout, progress_bar=False, log_output=False,
            )
    except PapermillExecutionError as err:
        repair_compile_cache()
        raise NotebookFailed(
            f"{rel}: cell {err.cell_index} (execution count {err.exec_count}) raised "
            f"{err.ename}: {err.evalue}\n  executed copy with the traceback: {out}"
        ) from None
    except BaseException:  # a cell past its timeout (the kernel killed, maybe mid-compile), an interrupt
        repair_compile_cache()
        raise
    finally:
        if saved is None:
            os.environ.pop("COURSE_ALLOW_SKIP", None)
        else:
            os.environ["COURSE_ALLOW_SKIP"] = saved
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.run_notebooks",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every lesson and solution")
    parser.add_argument("--size", default="auto", choices=["auto", "smoke", "full"])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--timeout", type=int, default=900, help="seconds per cell")
    args = parser.parse_args(argv)
    failures = []
    for nb in args.notebooks or runnable_notebooks():
        start = time.perf_counter()
        try:
            run_notebook(nb, size=args.size, device=args.device, out_dir=args.out, timeout=args.timeout)
            print(f"ok      {nb}  ({time.perf_counter() - start:.1f} s)", flush=True)
        except NotebookFailed as err:
            failures.append(nb)
            print(f"FAILED  {err}", flush=True)
    if failures:
        print(f"{len(failures)} notebook(s) failed", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
