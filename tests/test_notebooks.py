"""Every lesson and reference solution runs top to bottom, headless, on CPU at smoke size (papermill)."""

import nbformat
import pytest
from conftest import REPO, run_make

from autograder.exercises import EXERCISES
from autograder.tools.notebooks import LOG_TAG, noisy_cells, strip
from autograder.tools.run_notebooks import NotebookFailed, run_notebook, runnable_notebooks

NOTEBOOKS = runnable_notebooks()
ALL = NOTEBOOKS + sorted((REPO / "exercises").glob("*/*.ipynb"))


def _id(path):
    return str(path.relative_to(REPO))


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_notebook_has_a_parameters_cell_with_device_and_size(path):
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1, f"{_id(path)} needs exactly one cell tagged 'parameters'"
    assert "DEVICE =" in cells[0].source and "SIZE =" in cells[0].source


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_notebook_runs_on_cpu_at_smoke_size(path, tmp_path):
    # No smoke-size cell needs minutes: a cell that does is a hang, and fails with its cell number.
    out = run_notebook(path, size="smoke", device="cpu", out_dir=tmp_path, timeout=240)
    executed = nbformat.read(out, as_version=4)
    assert noisy_cells(executed) == [], "a cell's output is a wall of warnings or logs"
    plain = [o["data"].get("text/plain", "") for c in executed.cells if c.cell_type == "code"
             for o in c.get("outputs", []) if "course-result-card" in o.get("data", {}).get("text/html", "")]
    if path.parts[-3] == "solutions" and path.stem in EXERCISES:  # the card reads as text too (papermill logs)
        assert len(plain) == 1 and "points in" in plain[0], plain
        for check in EXERCISES[path.stem].checks:  # one line per check: [PASS], or [SKIP] where a GPU is needed
            assert f"] {check.id} (" in plain[0], (check.id, plain[0])


RUN_ALL_TAG = "raises-exception"  # JupyterLab's Run All and nbclient go on past a cell with it


@pytest.mark.parametrize("path", sorted((REPO / "solutions").glob("*/*.ipynb")), ids=_id)
def test_run_all_goes_past_the_learners_cells_and_failing_checks_to_the_result_card(path):
    cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    for cell in cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") or meta.get("solution"):
            assert RUN_ALL_TAG in cell.metadata.get("tags", []), (meta.get("grade_id"), cell.source[:80])
    if path.stem in EXERCISES:  # the card cell is last, untagged: it is where a run with a failed check ends
        assert cells[-1].source == "check(EX, globals())"
        assert RUN_ALL_TAG not in cells[-1].metadata.get("tags", [])


@pytest.mark.slow
def test_an_untouched_exercise_runs_to_its_card_and_fails_there_without_grader_tracebacks(tmp_path):
    with pytest.raises(NotebookFailed, match=r"0/12 points: 4 of 4 checks did not pass: benchmark_known_durations"):
        run_notebook(REPO / "exercises/01_eager_mode/01_eager_mode.ipynb", size="smoke", device="cpu",
                     out_dir=tmp_path)
    executed = nbformat.read(tmp_path / "exercises/01_eager_mode/01_eager_mode.ipynb", as_version=4)
    outputs = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    cards = [o["data"]["text/plain"] for o in outputs if "course-result-card" in o.get("data", {}).get("text/html", "")]
    assert len(cards) == 1 and all(f"[FAIL] {c.id} (" in cards[0] for c in EXERCISES["01_eager_mode"].checks)
    failed_checks = [o for o in outputs if o.output_type == "error" and o.ename == "CheckFailed"]
    assert len(failed_checks) == 5  # four graded cells and the card's one-line summary
    for error in failed_checks:  # message and hint only: no frame of the grader's code
        assert len(error.traceback) == 1 and "Hint:" in error.traceback[0] and "autograder" not in error.traceback[0]


def test_a_cell_printing_a_wall_of_warnings_is_named_unless_the_log_is_its_point():
    noisy = nbformat.v4.new_code_cell("x = 1")
    noisy.outputs = [nbformat.v4.new_output("stream", name="stderr", text="UserWarning: careful\n" * 30)]
    quiet = nbformat.v4.new_code_cell("y = 2")
    quiet.outputs = [nbformat.v4.new_output("stream", name="stderr", text="one warning\n"),
                     nbformat.v4.new_output("stream", name="stdout", text="result\n" * 100)]
    about_logs = nbformat.v4.new_code_cell("z = 3")
    about_logs.metadata["tags"] = [LOG_TAG]
    about_logs.outputs = list(noisy.outputs)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# t"), noisy, quiet, about_logs])
    assert noisy_cells(nb) == ["cell 2: 30 lines on stderr, starting 'UserWarning: careful' (capture the log, "
                               "or tag the cell 'shows-logs' if the log is the point)"]


def test_a_failing_notebook_is_reported_with_its_cell_and_error(tmp_path):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('DEVICE = "auto"\nSIZE = "auto"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("raise ValueError('boom')")]
    path = tmp_path / "broken.ipynb"
    nbformat.write(strip(nb), path)
    with pytest.raises(NotebookFailed, match=r"broken.ipynb: cell 3 .*ValueError: boom"):
        run_notebook(path, out_dir=tmp_path / "out", size="smoke", device="cpu")


def test_a_notebook_stopped_at_its_cells_timeout_leaves_no_truncated_kernel_library_behind(tmp_path, monkeypatch):
    # the kernel killed while its compile wrote a library: here the library is left by a cell, then the cell hangs
    cache = tmp_path / "inductor"
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(cache))
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('DEVICE = "auto"\nSIZE = "auto"')
    params.metadata["tags"] = ["parameters"]
    left = cache / "ab" / "cabc.main.so"
    nb.cells = [params, nbformat.v4.new_code_cell(f"import os, time\nos.makedirs({str(left.parent)!r})\n"
                                                  f"open({str(left)!r}, 'wb').write(b'\\x7fELF')\ntime.sleep(60)")]
    path = tmp_path / "killed.ipynb"
    nbformat.write(strip(nb), path)
    with pytest.raises(Exception, match="(?i)timed? ?out"):
        run_notebook(path, out_dir=tmp_path / "out", size="smoke", device="cpu", timeout=5)
    assert cache.is_dir() and not left.exists()


def test_make_check_runs_the_named_notebooks():
    result = run_make("check", "SIZE=smoke", "DEVICE=cpu", "NOTEBOOKS=lessons/00_start_here.ipynb")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ok      lessons/00_start_here.ipynb" in result.stdout


def test_a_reply_whose_wake_up_a_poll_missed_is_seen_at_the_next_slice_not_at_the_cells_limit():
    """jupyter/nbclient#312 on a loaded machine: one poll as long as the cell's limit misses the reply's wake-up and
    returns only at the limit. Stand-in socket: a poll sees only what was ready when it began."""
    import asyncio
    import time
    from queue import Empty

    from jupyter_client.channels import AsyncZMQSocketChannel

    from autograder.tools.run_notebooks import sliced_polls

    ready_at = time.monotonic() + 0.3

    async def missing_poll(self, timeout=None):
        began = time.monotonic()
        await asyncio.sleep(timeout)  # the wake-up never comes: the poll waits out its timeout
        if began >= ready_at:
            return {"msg_type": "execute_reply"}
        raise Empty

    channel = object.__new__(AsyncZMQSocketChannel)
    original = AsyncZMQSocketChannel.get_msg
    AsyncZMQSocketChannel.get_msg = missing_poll
    try:
        with sliced_polls(slice_s=0.2):
            start = time.monotonic()
            reply = asyncio.run(AsyncZMQSocketChannel.get_msg(channel, timeout=30))
            waited = time.monotonic() - start
        assert reply == {"msg_type": "execute_reply"} and waited < 2, waited  # not 30 s
        assert AsyncZMQSocketChannel.get_msg is missing_poll  # restored on the way out
        with sliced_polls(slice_s=0.2), pytest.raises(Empty):  # nothing ever comes: Empty at the limit, as before
            ready_at = float("inf")
            asyncio.run(AsyncZMQSocketChannel.get_msg(channel, timeout=0.5))
    finally:
        AsyncZMQSocketChannel.get_msg = original
