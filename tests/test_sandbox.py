"""The sandbox every process that runs student code gets (bubblewrap): what such a process can and cannot do.

Each test runs a small program the way the grader runs a worker (core.sandbox.wrap) and asserts what it could
reach. Skips, saying why, only where bubblewrap cannot run (.ci/run installs it).
"""

import json
import os
import subprocess
import sys

import pytest

from autograder.core import sandbox
from autograder.tools.paths import REPO


@pytest.fixture(autouse=True)
def bwrap(monkeypatch):
    monkeypatch.setenv(sandbox.MODE_ENV, "auto")
    if sandbox.mode() != "bwrap":
        pytest.skip(sandbox.describe())


def _inside(code: str, tmp_path, **kwargs) -> str:
    """Run ``code`` in the sandbox, with ``tmp_path`` as its writable scratch; return what it printed."""
    done = subprocess.run(sandbox.wrap([sys.executable, "-c", code], writable=[tmp_path], cwd=tmp_path, **kwargs),
                          capture_output=True, text=True, timeout=60, env={**os.environ, "SECRET_OF_PARENT": "s3"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _python_dirs_under(folder: str) -> set[str]:
    """Entries of ``folder`` that hold this Python (a venv in the checkout, pyenv in the home): bound inside."""
    roots = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    depth = len(folder.rstrip(os.sep).split(os.sep))
    return {r.split(os.sep)[depth] for r in roots if r.startswith(folder.rstrip(os.sep) + os.sep)}


def test_the_course_folder_home_and_other_files_are_invisible(tmp_path, repo):
    home = os.path.expanduser("~")
    out = _inside(f"import json, os; print(json.dumps([os.listdir({str(repo)!r}), os.listdir({home!r})]))", tmp_path)
    in_repo, in_home = (set(x) for x in json.loads(out))
    # of the checkout only the grader's own package; of the home nothing but where Python is installed
    assert "autograder" in in_repo and in_repo <= {"autograder"} | _python_dirs_under(str(repo))
    assert in_home <= _python_dirs_under(home)


def test_the_grader_package_and_the_system_are_read_only(tmp_path, repo):
    out = _inside(f"""
for path in [{str(repo / 'autograder' / 'owned.py')!r}, '/usr/owned', '/etc/owned']:
    try:
        open(path, 'w'); print('wrote', path)
    except OSError as err:
        print('refused', err.errno)
open('scratch.txt', 'w').write('mine')
print('scratch ok')
""", tmp_path)
    assert "wrote" not in out and out.endswith("scratch ok")
    assert (tmp_path / "scratch.txt").read_text() == "mine"


def test_there_is_no_network(tmp_path):
    out = _inside("""
import socket
try:
    socket.create_connection(('1.1.1.1', 53), timeout=3); print('connected')
except OSError as err:
    print('no network', type(err).__name__)
""", tmp_path)
    assert out.startswith("no network")


def test_a_root_grader_gives_no_capabilities_inside(tmp_path):
    out = _inside("print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])", tmp_path)
    assert int(out, 16) == 0


def test_every_writable_memory_folder_is_no_larger_than_the_memory_limit(tmp_path, monkeypatch):
    """A tmpfs is memory that RLIMIT_DATA does not count: each one the sandbox makes (home too) has the limit as
    its size, so files cannot take the machine's memory past it."""
    monkeypatch.setenv(sandbox.MEMORY_ENV, "512M")
    home = os.path.expanduser("~")
    out = _inside(f"import os, json; print(json.dumps({{p: os.statvfs(p).f_blocks * os.statvfs(p).f_frsize for p in "
                  f"['/tmp', '/dev/shm', {home!r}]}}))", tmp_path)
    assert json.loads(out) == dict.fromkeys(["/tmp", "/dev/shm", home], 512 << 20), out


def test_nothing_it_forks_outlives_it(tmp_path):
    # a double-forked daemon that would write a file 3 s later, after the sandboxed program has exited
    _inside(f"""
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3)
        open({str(tmp_path / 'late.txt')!r}, 'w').write('survived')
    os._exit(0)
print('parent done')
""", tmp_path)
    import time

    time.sleep(4)
    assert not (tmp_path / "late.txt").exists()


def test_none_turns_it_off_and_says_so_but_keeps_the_memory_limit(monkeypatch):
    monkeypatch.setenv(sandbox.MODE_ENV, "none")
    monkeypatch.setenv(sandbox.MEMORY_ENV, "none")
    assert sandbox.wrap(["true"]) == ["true"]
    assert sandbox.describe().startswith("UNSANDBOXED") and "no memory limit" in sandbox.describe()
    monkeypatch.setenv(sandbox.MEMORY_ENV, "2G")
    assert sandbox.wrap(["true"])[-3:] == [f"--data={2**31}:{2**31}", "--", "true"]
    assert "memory limit 2 GiB per process" in sandbox.describe()


def test_a_grading_worker_runs_in_it_and_the_report_says_so(tmp_path):
    from autograder.core.grading import Policy, grade_file
    from autograder.exercises import get_exercise

    probe = tmp_path / "probe.py"
    probe.write_text(f"""import os
def fast_gelu_bias(x, bias):
    raise RuntimeError(f"saw secret={{'COURSE_GRADING_SECRET' in os.environ}} "
                       f"solutions={{os.path.exists({str(REPO / 'solutions')!r})}}")
""")
    os.environ["COURSE_GRADING_SECRET"] = "never-inside"
    try:
        report = grade_file(get_exercise("01_eager_mode"), probe, only=["fast_gelu_bias_correct"],
                            policy=Policy(allow_skip=True, timeout=120))
    finally:
        del os.environ["COURSE_GRADING_SECRET"]
    assert "saw secret=False solutions=False" in report.result("fast_gelu_bias_correct").message
    assert report.environment["sandbox"].startswith("sandboxed")


def test_a_grading_worker_has_shared_memory_of_its_own_that_ends_with_the_grading(tmp_path):
    """Red team 2026-11-24 (shm_persist): the worker shared the host's /dev/shm, where a file outlived the grading
    (a channel to the next one) and sat outside the memory limit. Now it sees only its grading's pool folder."""
    from autograder.core.grading import Policy, grade_file
    from autograder.exercises import get_exercise

    host_file = f"/dev/shm/course-test-host-{os.getpid()}"
    open(host_file, "w").write("the host's")
    probe = tmp_path / "probe.py"
    probe.write_text(f"""import os
open("/dev/shm/left-behind-{os.getpid()}", "w").write("a message to the next grading")
SEEN = sorted(os.listdir("/dev/shm"))
def fast_gelu_bias(x, bias):
    raise RuntimeError(f"saw {{SEEN}} host={{os.path.exists({host_file!r})}}")
""")
    try:
        report = grade_file(get_exercise("01_eager_mode"), probe, only=["fast_gelu_bias_correct"],
                            policy=Policy(allow_skip=True, timeout=120))
    finally:
        os.unlink(host_file)
    message = report.result("fast_gelu_bias_correct").message
    seen = message.split("saw ", 1)[1].split("]", 1)[0]
    assert "host=False" in message and f"left-behind-{os.getpid()}" in seen
    assert all(name.startswith(("autograder-pools-", "left-behind-")) for name in seen.strip("[]'").split("', '"))
    assert not os.path.exists(f"/dev/shm/left-behind-{os.getpid()}")
    pools = [n for n in seen.strip("[]'").split("', '") if n.startswith("autograder-pools-")]
    assert pools and not any(os.path.exists(f"/dev/shm/{n}") for n in pools)  # the grading's folder went with it



def test_a_read_only_folder_inside_the_writable_scratch_stays_read_only(tmp_path):
    """The feedback run's shown reports are bound read-only: inside its writable scratch or not, they cannot be
    replaced (a red team's link there once redirected a copy made outside the sandbox)."""
    shown = tmp_path / "shown"
    shown.mkdir()
    (shown / "report.json").write_text("{}")
    out = _inside(f"""
import os
try:
    open({str(shown / 'report.json')!r}, 'w').write('forged'); print('written')
except OSError as err:
    print('refused', type(err).__name__)
""", tmp_path, readable=[shown])
    assert out.startswith("refused"), out
    assert (shown / "report.json").read_text() == "{}"


def test_a_folder_on_the_graders_path_that_is_not_python_stays_invisible(tmp_path, monkeypatch):
    """`python -m` puts its working directory on sys.path: an instructor who ran the grading from the course folder
    had it bound into the sandbox, every submission, report and the gradebook with it (a red team read them)."""
    course = tmp_path / "course"
    (course / "submitted").mkdir(parents=True)
    (course / "gradebook.db").write_text("grades")
    monkeypatch.syspath_prepend(str(course))
    monkeypatch.chdir(course)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = _inside(f"import os; print(os.path.exists({str(course / 'gradebook.db')!r}), "
                  f"os.path.isdir({str(course / 'submitted')!r}))", scratch)
    assert out == "False False"


def test_a_venv_that_is_a_link_runs_inside_and_a_sandbox_that_cannot_start_python_is_the_graders_error(tmp_path,
                                                                                                        monkeypatch):
    """Issue 40: with `.venv` a symlink (.gitignore allows one) every sandboxed grading failed in 2 s ("prlimit:
    failed to execute .../.venv/bin/python") and each student got 0 with "did your code crash Python?". The
    interpreter is now started inside by a path that exists there; and a sandbox that cannot start Python at all
    stops a class before any grading, saying it is the grader's setup, with nothing recorded."""
    if sys.prefix == sys.base_prefix:
        pytest.skip(f"this Python ({sys.executable}) is not a venv's")
    link = tmp_path / "venv-link"
    link.symlink_to(sys.prefix, target_is_directory=True)
    python = link / "bin" / os.path.basename(sys.executable)
    code = ("import sys; from autograder.core import sandbox; sandbox.preflight(); "
            "print(sandbox.reachable(sys.executable))")
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == os.path.join(os.path.realpath(link / "bin"), python.name)

    from autograder.tools import classroom

    monkeypatch.setattr(sandbox, "reachable", lambda path: path)  # as before: the link's own path inside
    monkeypatch.setattr(sys, "executable", str(python))
    sandbox.preflight.cache_clear()
    course = tmp_path / "course"
    (course / "submitted" / "alice" / "01_eager_mode").mkdir(parents=True)
    try:
        with pytest.raises(sandbox.SandboxUnavailable, match="not any student's code: nothing was graded"):
            classroom.autograde(course)
    finally:
        sandbox.preflight.cache_clear()
    assert not (course / "results").exists() and not (course / "gradebook.db").exists()


def test_a_machine_without_disk_for_a_gradings_scratch_stops_before_grading_and_says_so(monkeypatch):
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(sandbox.shutil, "disk_usage", lambda path: usage(10 * 2**30, 10 * 2**30 - 2**20, 2**20))
    sandbox.preflight.cache_clear()
    try:
        with pytest.raises(sandbox.SandboxUnavailable, match="only 0.0 GiB free .* not any student's code"):
            sandbox.preflight()
    finally:
        sandbox.preflight.cache_clear()
