"""A judge that grades more than once forks its workers from a template that has done their imports
(autograder.core.zygote): the submission finds the process a fresh worker would be, the judge manages it as one,
and the template gives a submission nothing to reach: nothing of it to read or trace, and killing or stopping it
only costs the next worker its head start."""

import json
import os
import resource
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import torch
from conftest import fake_check, grade_source

from autograder.core import zygote
from autograder.core.protocol import Exercise
from autograder.core.wire import Entry

REPO = Path(__file__).resolve().parent.parent
# What a submission can see of its own process, written at load into a file the test names.
FACTS = """import ctypes, json, os, resource, sys, threading
with open({path!r}, "w") as f:
    json.dump({{"pid": os.getpid(), "ppid": os.getppid(), "sid": os.getsid(0), "pgid": os.getpgid(0),
               "cwd": os.getcwd(), "path0": sys.path[0], "argv1": sys.argv[1:],
               "main": sys.modules["__main__"].__spec__.name, "env": sorted(os.environ),
               "threads": threading.active_count(), "dumpable": ctypes.CDLL(None).prctl(3, 0, 0, 0, 0),
               "stdin": os.readlink("/proc/self/fd/0"), "log": os.readlink("/proc/self/fd/1"),
               "cmdline": open("/proc/self/cmdline", "rb").read().decode(errors="replace"),
               "fsize": resource.getrlimit(resource.RLIMIT_FSIZE), "nice": os.getpriority(os.PRIO_PROCESS, 0),
               "cpus": sorted(os.sched_getaffinity(0)),
               "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd"))}}, f)
def value():
    return 1
"""
ONE = Exercise("99_fake", "fake", ("value",), (
    fake_check("value", "value", 1, lambda ctx: ctx.call(Entry("value"), what="value()").value["value"] == 1 and "one",
          ("value",)),), "nothing")


@pytest.fixture(autouse=True)
def _one_thread():
    """Workers compute with the judge's threads; a template is forked from only with one (see the second test)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _facts(tmp_path, monkeypatch, fork: str) -> dict:
    monkeypatch.setenv(zygote.ENV, fork)
    path = tmp_path / f"facts-{uuid.uuid4().hex}.json"
    grade_source("", ONE)  # this judge's first worker: never forked
    report = grade_source(FACTS.format(path=str(path)), ONE)
    assert report.result("value").status == "passed", report.result("value").message
    return json.loads(path.read_text())


def test_a_forked_worker_is_the_process_a_fresh_worker_would_be(tmp_path, monkeypatch):
    forked, fresh = _facts(tmp_path, monkeypatch, "1"), _facts(tmp_path, monkeypatch, "0")
    assert zygote.template_pids(), "no template was started"
    assert "autograder.core.zygote" in forked["cmdline"] and "autograder.core.worker" in fresh["cmdline"]
    for facts in (forked, fresh):
        assert facts["ppid"] == os.getpid()  # the judge's child (a forked one adopted), paused and killed by it
        assert facts["sid"] == facts["pgid"] == facts["pid"]  # a session and process group of its own
        assert facts["cwd"] == facts["path0"] and Path(facts["log"]) == Path(facts["cwd"]) / "worker.log"
        assert facts["main"] == "autograder.core.worker" and facts["stdin"] == "/dev/null"
        assert len(facts["argv1"]) == 1 and int(facts["argv1"][0]) in facts["fds"]  # the judge's socket
    same = ("env", "threads", "dumpable", "fsize", "nice", "cpus")
    assert {k: forked[k] for k in same} == {k: fresh[k] for k in same}
    assert len(forked["fds"]) <= len(fresh["fds"]) + 1, (forked["fds"], fresh["fds"])  # none of the template's
    assert forked["pid"] not in zygote.template_pids()


def test_a_template_with_more_than_one_thread_is_not_forked_from(monkeypatch):
    """fork copies only the calling thread: from a template whose imports started OpenMP's pool, a worker would
    lose it. Such a template is refused once, and the worker starts from nothing."""
    monkeypatch.setenv(zygote.ENV, "1")
    torch.set_num_threads(2)  # the worker (and its template) compute with the judge's threads: OpenMP's pool
    for _ in range(2):
        assert grade_source("def value():\n    return 1\n", ONE).result("value").status == "passed"
    keys = [key for key in zygote._templates if ("OMP_NUM_THREADS", "2") in key[1]]
    assert keys and all(zygote._templates[key] is None for key in keys)


# In a worker: the pid of its judge's template (another test process can have one too).
FIND_TEMPLATE = """def _templates():
    found = []
    for pid in os.listdir("/proc"):
        try:
            if (pid.isdigit() and int(pid) != os.getpid()  # a forked worker has the template's command line
                    and b"autograder.core.zygote" in open(f"/proc/{pid}/cmdline", "rb").read()
                    and int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]) == os.getppid()):
                found.append(int(pid))
        except OSError:
            pass
    return found
"""
HOSTILE = "import os, signal, json\n" + FIND_TEMPLATE + """def value():
    import subprocess
    control = subprocess.Popen(["sleep", "60"])  # an ordinary process of the same user: what refusing takes away
    pids, seen = _templates(), []
    pid = pids[0]
    for who, name, mode in ((pid, "mem", "r+b"), (pid, "environ", "rb"), (control.pid, "mem", "r+b")):
        try:
            open(f"/proc/{who}/{name}", mode).close()
            seen.append(name + " opened")
        except OSError as err:
            seen.append(f"{name} refused ({type(err).__name__})")
    control.kill()
    for pid in pids:  # this judge's templates (one per worker environment it has graded with)
        os.kill(pid, signal.%s)
    return 1 if seen else 0
"""


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_a_worker_that_kills_or_stops_the_template_only_costs_the_next_worker_its_head_start(sig, monkeypatch):
    monkeypatch.setenv(zygote.ENV, "1")
    monkeypatch.setattr(zygote, "FORK_TIMEOUT_S", 3)  # a stopped template never answers
    grade_source("", ONE)
    assert grade_source(HOSTILE % sig, ONE).result("value").status == "passed"
    victims = [t for t in zygote._templates.values() if t is not None and t.process.poll() is None]
    report = grade_source("def value():\n    return 1\n", ONE)  # graded all the same, by a fresh worker
    assert report.result("value").status == "passed", report.result("value").message
    for t in victims:
        os.kill(t.process.pid, signal.SIGCONT) if t.process.poll() is None else None


POISON = "import os, resource\n" + FIND_TEMPLATE + """
for t in _templates():  # this judge's: one per worker environment it graded with
    resource.prlimit(t, resource.RLIMIT_FSIZE, (0, 0))  # no file may grow: a later worker that prints dies
    os.setpriority(os.PRIO_PROCESS, t, 19)
    os.sched_setaffinity(t, {min(os.sched_getaffinity(t))})
def value():
    return 1
"""


def test_a_worker_that_changes_the_templates_limits_or_scheduling_changes_no_later_worker(tmp_path, monkeypatch):
    """A red team's worker set its template's RLIMIT_FSIZE to 0, its nice value to 19 and its CPUs to one (a
    process of the same user may, non-dumpable or not); an honest submission graded next, whose worker printed at
    load, failed. The judge compares the template with itself as it started before each fork (and the worker
    after it): a changed template is discarded, and the next worker starts from nothing."""
    monkeypatch.setenv(zygote.ENV, "1")
    grade_source("", ONE)
    assert grade_source(POISON, ONE).result("value").status == "passed"
    path = tmp_path / "facts.json"
    report = grade_source("print('a line in the log at load')\n" + FACTS.format(path=str(path)), ONE)
    assert report.result("value").status == "passed", report.result("value").message
    facts = json.loads(path.read_text())
    assert "autograder.core.worker" in facts["cmdline"]  # started from nothing
    assert facts["fsize"] == list(resource.getrlimit(resource.RLIMIT_FSIZE))
    assert facts["nice"] == os.getpriority(os.PRIO_PROCESS, 0) and facts["cpus"] == sorted(os.sched_getaffinity(0))


JUDGE = """
import json, os, sys
sys.path.insert(0, "tests")
os.environ["COURSE_SANDBOX"] = "none"
os.environ["COURSE_FORK_WORKERS"] = "1"
import torch
from autograder.core import sandbox
assert sandbox.refuse_tracing(gpu=False)
torch.set_num_threads(1)
from conftest import grade_source
from test_forked_workers import HOSTILE, ONE
grade_source("", ONE)
report = grade_source(HOSTILE.replace("return 1 if seen else 0", "raise ValueError(', '.join(seen))") % "SIGCONT",
                      ONE)
print(report.result("value").message)
"""


@pytest.mark.skipif(not os.path.exists("/usr/bin/setpriv"), reason="setpriv (util-linux) runs the judge without "
                    "capabilities")
def test_a_worker_can_neither_read_nor_trace_the_template():
    """Non-dumpable: a worker of the same user without CAP_SYS_PTRACE cannot open the template's memory (to plant
    code in the next worker) or its environment. Run without capabilities (setpriv), as under a non-root grader."""
    done = subprocess.run(["setpriv", "--bounding-set=-all", "--inh-caps=-all", sys.executable, "-c", JUDGE],
                          capture_output=True, text=True, timeout=300, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "mem refused (PermissionError), environ refused (PermissionError), mem opened" in done.stdout, done.stdout
