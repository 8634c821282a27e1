"""The Slurm path (autograder/tools/slurm.py): a generated job array, one task per student, and a record job.

Without Slurm: the scripts are written for a small class and pass ``bash -n``; the array body is then run
directly, once per task with ``SLURM_ARRAY_TASK_ID`` set, followed by the record script, and the grades.csv is
the one the local path (``make autograde``, one at a time) gives. With a Slurm controller answering here
(``sbatch`` on PATH, ``sinfo`` works), the same scripts are also submitted for real and waited for.

A single-node Slurm for that test, from Debian's packages (as root; no systemd needed):
``apt-get install slurm-wlm``; ``mkdir -p /run/munge && chown munge: /run/munge && su -s /bin/sh munge -c munged``;
a slurm.conf with ``SlurmctldHost=$(hostname)``, ``SlurmUser=root``, ``ProctrackType=proctrack/linuxproc``,
``TaskPlugin=task/none``, ``SelectType=select/cons_tres``, ``GresTypes=gpu`` and a node line
``NodeName=$(hostname) CPUs=2 Gres=gpu:2``; a gres.conf declaring two GPUs (``Name=gpu File=...``: on a CPU
machine, two character devices made with ``mknod F c 1 3``); then ``slurmctld; slurmd``.
"""

import csv
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, run_make
from test_classroom import EX, assert_class_grades, class_env, new_class  # noqa: F401 (class_env: a fixture)

from autograder.tools import classroom, slurm

# The slow tests here and in test_ray.py run in one test process (pytest-xdist group "scale"), one after
# another, so that no two of their gradings share the 2 cores.
STUDENTS = ("dave", "bob")  # a half-done notebook (its benchmark: 5 points) and the untouched stub; the full
# reference is graded by test_classroom, both fanned out and one at a time


def rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open()))


@pytest.fixture(scope="module")
def scale_env(class_env):  # noqa: F811 (the imported fixture)
    """test_classroom's settings, with the isolated grading's limit raised from its 30 s (short there for its
    hanging student; this class has none): a first compile on two busy cores can take longer."""
    mp = pytest.MonkeyPatch()
    mp.setenv("COURSE_SUBMISSION_TIMEOUT", "300")
    yield
    mp.undo()


def test_the_scripts_are_generated_and_only_generated(tmp_path):
    import nbformat

    for student in ("alice", "bob", "carol"):
        (tmp_path / "submitted" / student / EX).mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(), tmp_path / "submitted" / student / EX / f"{EX}.ipynb")
    done = subprocess.run([sys.executable, "-m", "autograder.tools.slurm", "--course", str(tmp_path), "--cpus", "6",
                           "--mem", "20G", "--max-running", "2", "--sbatch=--qos=high"],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "slurm"
    assert (out / "students.txt").read_text() == "alice\nbob\ncarol\n"
    array, record = (out / "array.sh").read_text(), (out / "record.sh").read_text()
    for line in ("--array=0-2%2", "--gres=gpu:1", "--cpus-per-task=6", "--mem=20G", "--time=02:00:00", "--qos=high"):
        assert f"#SBATCH {line}\n" in array, line
    assert "autograder.tools.grade_student --course" in array and "gres" not in record
    assert "autograder.tools.slurm record" in record
    assert "--dependency=afterany:$jid" in (out / "submit.sh").read_text()
    for script in ("array.sh", "record.sh", "submit.sh"):
        assert subprocess.run(["bash", "-n", str(out / script)]).returncode == 0, script
    assert not list((out / "logs").iterdir()) and not (tmp_path / "results").exists()  # nothing submitted or run
    for task, why in ((None, "SLURM_ARRAY_TASK_ID"), ("3", "no student on line 4")):
        env = {k: v for k, v in os.environ.items() if k != "SLURM_ARRAY_TASK_ID"}
        env.update({"SLURM_ARRAY_TASK_ID": task} if task else {})
        done = subprocess.run(["bash", str(out / "array.sh")], env=env, capture_output=True, text=True)
        assert done.returncode != 0 and why in done.stderr


def test_make_passes_the_slurm_variables():
    done = run_make("-n", "autograde-slurm", "SLURM_CPUS=4", "SLURM_GRES=gpu:h100:1", "SLURM_SUBMIT=1")
    assert re.search(r"autograder\.tools\.slurm --cpus 4 .*--gres \"gpu:h100:1\".*--submit", done.stdout,
                     re.S), done.stdout


@pytest.mark.slow
@pytest.mark.xdist_group("scale")
@pytest.mark.usefixtures("scale_env")
def test_the_array_body_run_task_by_task_gives_every_student_their_grades(tmp_path):
    course = new_class(tmp_path, (*STUDENTS, "carol"))
    paths = slurm.write_scripts(course, course / "slurm", course / "results", [*STUDENTS, "carol"], cpus=2)
    for task in range(len(STUDENTS)):  # carol's task never runs (cancelled, never scheduled)
        done = subprocess.run(["bash", str(paths["array.sh"])], env={**os.environ, "SLURM_ARRAY_TASK_ID": str(task)},
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"graded {STUDENTS[task]}/{EX}" in done.stdout
    done = subprocess.run(["bash", str(paths["record.sh"])], capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr  # one failure: carol
    assert [(r["student"], r["assignment"]) for r in rows(course / "autograded" / "failed.csv")] == [("carol", "*")]
    classroom.grades(course)
    assert_class_grades(course, STUDENTS)


def _slurm_answers() -> str:
    """Why a real Slurm cannot be used here ('' when it can)."""
    if not shutil.which("sbatch"):
        return "sbatch is not installed (Debian: apt-get install slurm-wlm; see this module's docstring)"
    done = subprocess.run(["sinfo", "-h", "-o", "%T %G"], capture_output=True, text=True, timeout=30)
    if done.returncode != 0 or not done.stdout.strip():
        return f"no Slurm controller answers (sinfo: {done.stderr.strip()[:200]})"
    if "gpu" not in done.stdout:
        return f"the Slurm nodes declare no gres/gpu (sinfo: {done.stdout.strip()[:200]})"
    return ""


@pytest.mark.slow
@pytest.mark.xdist_group("scale")
@pytest.mark.usefixtures("scale_env")
def test_a_real_slurm_runs_the_array_then_the_record_job(tmp_path):
    why = _slurm_answers()
    if why:
        pytest.skip(why)
    course = new_class(tmp_path, STUDENTS)
    paths = slurm.write_scripts(course, course / "slurm", course / "results", list(STUDENTS), cpus=1, mem="2G",
                                time="00:20:00")
    done = subprocess.run(["bash", str(paths["submit.sh"])], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    jobs = re.search(r"array job (\d+) .*record job (\d+)", done.stdout).groups()
    deadline = time.monotonic() + 900
    while subprocess.run(["squeue", "-h", "-j", ",".join(jobs)], capture_output=True, text=True).stdout.strip():
        assert time.monotonic() < deadline, "the Slurm jobs did not end in 15 minutes"
        time.sleep(5)
    logs = {p.name: p.read_text() for p in (course / "slurm" / "logs").iterdir()}
    grading = [text for name, text in logs.items() if name.startswith(f"grade-{jobs[0]}_")]
    assert len(grading) == len(STUDENTS), logs
    # Slurm gave each task one of the node's (declared) GPUs
    assert all(re.search(r"CUDA_VISIBLE_DEVICES=([01])\n", t) for t in grading), grading
    assert rows(course / "autograded" / "failed.csv") == [], logs
    classroom.grades(course)
    assert_class_grades(course, STUDENTS)
