import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# The grading logic is tested without the sandbox (on a CPU a sandboxed worker rebuilds Inductor's precompiled
# header, ~6 s per grading); test_sandbox.py and test_classroom.py turn it on and test it.
os.environ.setdefault("COURSE_SANDBOX", "none")
# pytest-xdist runs several test processes: each (and every grading worker, kernel or CLI it starts) computes
# on its share of the cores, or OpenMP's waits on busy cores make compiled CPU code 100x slower than eager.
# Only in an xdist process: the controller loads this file too, before it starts them, and a value it set
# would be inherited by every one of them (it was: 2 threads each for 3 processes on 2 cores, and an honest
# compiled server took 40-80 ms per request against eager's 2.5 ms on CI). A value the caller set is kept.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1)
                                                      // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))))


@pytest.fixture(autouse=True, scope="session")
def _progress_file(tmp_path_factory):
    """Tests never write the learner's real progress file (autograder.progress)."""
    os.environ["COURSE_PROGRESS_FILE"] = str(tmp_path_factory.mktemp("progress") / "progress.json")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def run_make(*args: str, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    """Run `make ARGS` in the repository with this interpreter's environment first on PATH.

    The outer `make test CPU=1` hands its command-line variables down twice, in MAKEFLAGS and as environment
    variables; drop both so that each test's make sees only the variables the test names (`make -n env` must
    not inherit CI's CPU=1)."""
    flags = os.environ.get("MAKEFLAGS", "")
    outer = {word.split("=", 1)[0] for word in flags.split(" -- ", 1)[1].split()} if " -- " in flags else set()
    dropped = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", *outer}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(["make", "--no-print-directory", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout, **kwargs)


def graded_until_told(grade):
    """``grade()`` (a Report or one check's result), graded again, twice at most, while the grader says it could not
    tell on this machine: a verdict inconclusive and none failed, which on a loaded runner is the true answer (05's
    request that waited for a core without the CPU a compile uses), and whose message says to grade again. A third
    "could not tell" stands, so a grader that never decides cannot pass a test that wants a verdict."""
    from autograder.core.protocol import FAILED, INCONCLUSIVE

    def could_not_tell(graded) -> bool:
        statuses = {r.status for r in graded.results} if hasattr(graded, "results") else {graded.status}
        return INCONCLUSIVE in statuses and FAILED not in statuses

    graded = grade()
    for _ in range(2):
        if not could_not_tell(graded):
            break
        graded = grade()
    return graded


# A submission's busy wait of ``seconds`` on the wall clock (the text of a function, for override files).
SPIN = """def _spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
"""


def grade_with_override(exercise_id: str, override: Path, only: list[str], threads: int | None = None):
    """The reference solution of ``exercise_id`` with ``override`` on top, graded on a CPU for the ``only`` checks;
    ``threads``: the judge's torch threads meanwhile (the worker computes with the judge's count)."""
    import torch

    from autograder.core.grading import grade_file
    from autograder.exercises import EXERCISES
    from autograder.tools.paths import solution

    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        return grade_file(EXERCISES[exercise_id], solution(exercise_id), overrides=[override], only=only,
                          device="cpu")
    finally:
        torch.set_num_threads(before)


def grade_source(source: str, exercise, deadline: float = 120, **policy):
    """Grade ``source`` (a submission's code) against a test's own ``exercise`` in a real worker process, within
    ``deadline`` seconds in all."""
    import tempfile

    import torch

    from autograder.core.grading import Policy, Session, grade_session

    policy.setdefault("cpu_gate", 1.5)
    with tempfile.TemporaryDirectory() as scratch:
        session = Session.spawn(timeout=deadline, scratch=Path(scratch))
        session.timeout = deadline
        try:
            return grade_session(exercise, session, device=torch.device("cpu"), secret="test",
                                 policy=Policy(**policy), sources=[source])
        finally:
            session.close()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under `make test` (pytest-xdist, --dist loadgroup) the tests of one xdist_group must reach one process:
    a class graded in two processes at once costs minutes and can fail. pytest 9 silently drops xdist 3.8's
    grouping, so say so instead of grading twice."""
    # Longest first (pytest-xdist hands out work in this order): the class and scale groups take minutes in one
    # process each; started last, they would leave the other process idle until they end.
    def rank(item) -> int:
        group = item.get_closest_marker("xdist_group")
        if group:
            return {"classroom": 0, "classroom-serial": 1, "scale": 1}.get(group.args[0] if group.args else "", 2)
        return 3 if item.get_closest_marker("slow") else 4

    items.sort(key=rank)
    if not getattr(config.option, "loadgroup", False):
        return
    lost = [i.nodeid for i in items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(f"pytest {pytest.__version__} ignores pytest-xdist's xdist_group ({lost[0]}): "
                                "install the versions pyproject.toml's dev extra names (pip install -e '.[dev]')")


def pytest_configure(config):
    if getattr(config.option, "dist", "no") == "loadgroup" and int(pytest.__version__.split(".")[0]) >= 9:
        raise pytest.UsageError(f"pytest {pytest.__version__} drops pytest-xdist's xdist_group, which `make test` "
                                "needs: pip install -e '.[dev]' (pytest<9)")


def pytest_terminal_summary(terminalreporter):
    """After pytest's slowest tests, the seconds each test file took (setup, call and teardown, summed over its
    tests): where the suite's time goes, for whoever keeps `make test` short."""
    seconds: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) in ("setup", "call", "teardown") and hasattr(report, "duration"):
                path = report.nodeid.split("::", 1)[0]
                seconds[path] = seconds.get(path, 0.0) + report.duration
    if len(seconds) < 2:
        return
    total = sum(seconds.values())
    terminalreporter.write_sep("=", f"seconds per test file ({total:.0f} s in all, over every test process)")
    for path, s in sorted(seconds.items(), key=lambda kv: -kv[1])[:12]:
        terminalreporter.write_line(f"{s:8.1f} s  {s / total:5.1%}  {path}")


def fake_check(*args, **kwargs):
    """A Check for a test's fake exercise: decided by the answer of the test's own function (every real check
    declares its facts; core/trust.py)."""
    from autograder.core.protocol import Check
    from autograder.core.trust import answer

    kwargs.setdefault("decided_by", (answer("the test function's answer, checked by the test", "entry"),))
    return Check(*args, **kwargs)


def host_reads(fn, *args) -> int:
    """How many times ``fn(*args)`` reads a tensor's value on the host: aten._local_scalar_dense, the op behind
    .item(), bool(tensor) and `if tensor:` (on a GPU a copy to the host and a stream synchronisation), seen by a
    dispatch mode on a CPU. Data-dependent shapes (aten.nonzero, a boolean mask) are counted too."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    reads = []

    class Reads(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.overloadpacket in (torch.ops.aten._local_scalar_dense, torch.ops.aten.nonzero,
                                       torch.ops.aten.masked_select):
                reads.append(str(func))
            return func(*args, **(kwargs or {}))

    with torch.no_grad(), Reads():
        fn(*args)
    return len(reads)
