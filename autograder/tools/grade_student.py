"""One student's grading: the unit of work every fan-out runs (one student, one GPU, one process at a time).

    python -m autograder.tools.grade_student --course C --student S --results R

Every submitted notebook is first copied (a regular file, never through a link) into a folder no sandbox sees;
then for each assignment, in a scratch folder of its own (never the course folder), two steps: every trusted
grading first, one at a time, then the feedback runs, several at once (``feedback_parallel``):

1. **trusted grading**: ``python -m autograder grade A notebook --hidden --json`` with the grading secret, outside
   any notebook kernel; its worker (the student's code) runs in the sandbox. Its report is the score.
2. **feedback run**: ``nbgrader autograde A --student S`` against a private copy of the gradebook, in the sandbox,
   with no secret in its environment; the graded test cells only show the trusted report (``COURSE_REPORT_DIR``),
   so the executed notebook is the student's feedback.

Writes ``R/S/reports/A.json``, ``R/S/autograded/A/``, then ``R/S/result.json`` last (the sign that the unit
finished; the files appear at once, by renaming a finished folder). Nothing is written to the gradebook: the
record step (:mod:`autograder.tools.record`) is its only writer.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.core import sandbox
from autograder.core.protocol import SECRET_ENV, Report
from autograder.core.submission import SEARCH_LIMIT_S
from autograder.exercises import EXERCISES, get_exercise
from autograder.selfcheck import REPORT_ENV, SKIP_ENV, run_judge, submission_timeout
from autograder.tools.notebooks import for_nbgrader
from autograder.tools.release import NBGRADER

RESULT = "result.json"
UNIT_SCRATCH_ENV = "COURSE_UNIT_SCRATCH"  # set by run_unit: see unit_folder
# What the feedback run (a process that runs student code) may see of the caller's environment.
FEEDBACK_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LD_LIBRARY_PATH",
                "COURSE_CELL_TIMEOUT", SKIP_ENV, "TORCHINDUCTOR_COMPILE_THREADS", "OMP_NUM_THREADS")


def unit_folder() -> str | None:
    """The folder run_unit made for this unit, which it removes however the unit ends (a unit killed at its limit
    cleans up nothing itself): where the unit's temporary files go. None outside run_unit (the system temp dir)."""
    return os.environ.get(UNIT_SCRATCH_ENV) or None


QUARANTINED = "course_unreadable"  # notebook metadata of the stand-in for an unreadable file (classroom.py)


def not_gradable(notebook: Path) -> str:
    """Why ``notebook`` (the unit's trusted copy) has nothing a judge could grade, or '': no file, a file that
    could not be read safely (the copy then says so), or the stand-in make autograde put in place of a file that
    was not a notebook. A student who writes the stand-in's mark into their own notebook only loses its points."""
    if not notebook.exists():
        return "no notebook was submitted for this assignment"
    try:
        data = json.loads(notebook.read_bytes())
    except (OSError, ValueError):
        return ""  # the judge reports what it makes of it
    if isinstance(data, dict) and set(data) == {"unreadable"}:
        return f"the submitted file could not be read ({data['unreadable']})"
    meta = data.get("metadata") if isinstance(data, dict) else None
    reason = meta.get(QUARANTINED) if isinstance(meta, dict) else None
    if reason:
        return f"the file submitted was not a readable Jupyter notebook ({str(reason)[:300]})"
    return ""


def trusted_grading(assignment: str, notebook: Path, out: Path, log: Path) -> Report:
    """The judge's report on ``notebook`` (a failed report with the judge's last lines if it made none). A notebook
    with nothing to grade (not_gradable) scores 0 with the reason, without a judge: six judges that start only to
    say so cost a class's GPU 86 s a student (4 x H200, 2026-11-27)."""
    why = not_gradable(notebook)
    if why:
        report = Report.failed(get_exercise(assignment), f"not graded: {why}; every check scores 0",
                               "submit a readable notebook and ask your instructor to regrade",
                               skip_allowed=os.environ.get(SKIP_ENV) == "1")
        out.write_text(report.to_json())
        log.write_text(f"not graded, no judge started: {why}\n")
        return report
    env = {k: v for k, v in os.environ.items() if k not in ("NBGRADER_EXECUTION", SECRET_ENV)}
    # The judge reads the secret from a 0600 file outside every sandbox, not from its environment: a process
    # that can read other processes' /proc/<pid>/environ finds only the file's name there.
    with tempfile.TemporaryDirectory(prefix="autograder-secret-", dir=unit_folder()) as private:
        if os.environ.get(SECRET_ENV):
            secret_file = Path(private) / "secret"
            secret_file.touch(mode=0o600)
            secret_file.write_text(os.environ[SECRET_ENV])
            env[SECRET_ENV + "_FILE"] = str(secret_file)
        report, code = run_judge(assignment, notebook, out, log, env=env, timeout=submission_timeout(notebook),
                                 grace=300)
    if report is not None:
        return report
    tail = "\n".join(log.read_text(errors="replace").strip().splitlines()[-8:])
    report = Report.failed(get_exercise(assignment), f"the grader ended without a report (exit {code}): {tail}",
                           skip_allowed=os.environ.get(SKIP_ENV) == "1")
    out.write_text(report.to_json())
    return report


def private_gradebook(source: Path, student: str, dest: Path) -> None:
    """``dest``: the course gradebook as the feedback run may see it (its kernel can read the file): every
    assignment, notebook and cell the course released, and of students only ``student`` and their own earlier
    submissions. Everyone else's rows are deleted and the file rebuilt (VACUUM), so that not even the free pages
    keep their names or grades."""
    import sqlite3

    original, copy = sqlite3.connect(f"file:{source}?mode=ro", uri=True), sqlite3.connect(dest)
    try:
        original.backup(copy)
        others = "select id from submitted_assignment where student_id is not ?"
        notebooks = f"select id from submitted_notebook where assignment_id in ({others})"
        for table in ("grade", "comment"):
            copy.execute(f"delete from {table} where notebook_id in ({notebooks})", (student,))
        copy.execute(f"delete from submitted_notebook where assignment_id in ({others})", (student,))
        copy.execute("delete from submitted_assignment where student_id is not ?", (student,))
        copy.execute("delete from student where id is not ?", (student,))
        copy.commit()
        copy.execute("vacuum")
    finally:
        original.close()
        copy.close()


def released_cells(gradebook: Path, assignment: str) -> frozenset[str]:
    """The grade_ids of every cell nbgrader recorded when it released ``assignment`` (its source cells)."""
    import sqlite3

    db = sqlite3.connect(f"file:{gradebook}?mode=ro", uri=True)
    try:
        rows = db.execute("select sc.name from source_cell sc join notebook n on sc.notebook_id = n.id "
                          "join assignment a on n.assignment_id = a.id where a.name = ?", (assignment,)).fetchall()
    finally:
        db.close()
    return frozenset(name for (name,) in rows)


def feedback_env(reports: Path) -> dict:
    """The environment of a feedback run: a few of the grader's variables, never its secret; the caller's
    PYTHONPATH (sandbox.python_path) so that an nbgrader installed there is found."""
    env = {k: os.environ[k] for k in FEEDBACK_ENV if k in os.environ}
    env["PATH"] = os.path.dirname(sandbox.reachable(sys.executable)) + os.pathsep + env.get("PATH", "")
    env[REPORT_ENV] = str(reports)
    env["PYTHONPATH"] = sandbox.python_path()
    return env


# what a feedback run needs: nbgrader, and a Python kernel nbclient can start
FEEDBACK_NEEDS = ("import nbgrader.apps.nbgraderapp, nbclient, ipykernel\n"
                  "from jupyter_client.kernelspec import KernelSpecManager\n"
                  "KernelSpecManager().get_kernel_spec('python3')\n")


def feedback_preflight() -> None:
    """Start a feedback run's Python as every unit will (its environment, its sandbox) and import what it needs,
    once, before any student is graded: raise SandboxUnavailable, saying it is the grading machine's setup, when it
    cannot. On 4 x H200 a class whose feedback runs could not import nbgrader spent 20 minutes grading and then
    recorded no one."""
    with tempfile.TemporaryDirectory(prefix="feedback-preflight-", dir=unit_folder()) as tmp:
        scratch, reports = Path(tmp) / "scratch", Path(tmp) / "reports"
        scratch.mkdir()
        reports.mkdir()
        argv = sandbox.wrap([sys.executable, "-c", FEEDBACK_NEEDS], writable=[scratch], readable=[reports],
                            cwd=scratch)
        env = feedback_env(reports)
        try:
            done = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise sandbox.SandboxUnavailable(f"a feedback run's Python could not start: {err}") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise sandbox.SandboxUnavailable(
            f"a feedback run (nbgrader running a student's notebook, sandboxed, with PYTHONPATH="
            f"{env['PYTHONPATH']}) cannot start: {tail[0][:400]}. This is the grading machine's "
            "setup, not any student's code: nothing was graded or recorded. Install nbgrader, nbclient and ipykernel "
            "for this Python (or put where they are on PYTHONPATH) and grade again")


def feedback_run(scratch: Path, student: str, assignment: str, reports: Path, log: Path) -> int:
    """nbgrader autograde of one assignment in ``scratch`` (the only writable path), sandboxed, secret-free."""
    env = feedback_env(reports)
    cmd = [sys.executable, "-m", NBGRADER, "autograde", assignment, "--student", student, "--force",
           f"--CourseDirectory.root={scratch}", f"--CourseDirectory.db_url=sqlite:///{scratch / 'gradebook.db'}"]
    argv = sandbox.wrap(cmd, writable=[scratch], readable=[reports], cwd=scratch)
    try:
        with open(log, "w") as output:
            try:
                return subprocess.run(argv, cwd=scratch, env=env, stdout=output, stderr=subprocess.STDOUT,
                                      timeout=submission_timeout() + 600).returncode
            except subprocess.TimeoutExpired:
                return -1
    finally:
        keep_tail(log)


LOG_KEEP = 256 * 1024


def keep_tail(log: Path, keep: int = LOG_KEEP) -> None:
    """Cut a feedback log the student's code wrote into (its kernel's output; a red team appended 100 MiB through
    /proc/1/fd/1) to its last ``keep`` bytes: it stays in the course folder after the unit."""
    try:
        size = log.stat().st_size
        if size <= keep:
            return
        with open(log, "rb") as f:
            f.seek(size - keep)
            tail = f.read()
        log.write_bytes(f"[the first {size - keep} bytes of this log were cut by the grader]\n".encode() + tail)
    except OSError:
        pass


def slot(reports: list[Report]) -> dict:
    """Where this unit ran: for a disputed grade, regrade on the same kind of slot. The GPU and torch are what the
    unit's first judge saw (its report's environment); only a unit without such a report (no scored assignment, or
    no judge that wrote one) asks torch here, so that a unit's own process does not import torch for one line."""
    seen = [r.environment for r in reports if r.environment.get("torch")]
    if seen:
        gpu, version = seen[0].get("gpu"), seen[0]["torch"]
    else:
        import torch

        gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
        version = torch.__version__
    return {"host": socket.gethostname(), "gpu": gpu, "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "cpus": sorted(os.sched_getaffinity(0)), "torch": version, "sandbox": sandbox.describe(gpu=gpu is not None)}


MAX_NOTEBOOK_BYTES = 64 << 20  # a submitted or executed notebook; more is refused, not read


def read_regular(path: Path, root: Path, limit: int = MAX_NOTEBOOK_BYTES) -> bytes:
    """The bytes of ``path``, a regular file under ``root``, without following a link anywhere on the way. Folders a
    student's code could write (a sandbox's scratch) or shape (an upload) may hold a link to the grading secret,
    another student's work, the gradebook or /dev/zero: each is refused with OSError, and nothing is read."""
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if os.path.commonpath([real_root, real]) != real_root or real != os.path.abspath(path):
        raise OSError(f"{path.name}: reached through a link, or not under {root}")
    with sandbox.open_regular(path) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{path.name}: over {limit >> 20} MB")
    return data


def grade_student(course: Path, student: str, results: Path) -> dict:
    """Grade every assignment ``student`` submitted under ``course``; return (and write) the unit's summary.

    Every submitted notebook is copied into a trusted folder before any of the student's code runs; the judge
    grades those copies. Each feedback run gets a scratch folder of its own (nothing one assignment's run leaves
    there reaches the next), the shown reports sit outside it, and only the one executed notebook comes back,
    read as a regular file."""
    submitted = course / "submitted" / student
    if not submitted.is_dir():
        raise FileNotFoundError(f"no submissions for {student!r} under {course / 'submitted'}")
    final = results / student
    partial = results / f".{student}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    (partial / "reports").mkdir(parents=True)
    (partial / "logs").mkdir()
    summary = {"student": student, "assignments": {}}
    reports = []
    unit_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"grade-{student}-", dir=unit_folder()) as tmp:
        trusted = Path(tmp) / "trusted"  # no sandbox ever binds it
        trusted.mkdir()
        assignments = sorted(p.name for p in submitted.iterdir() if p.is_dir() and not p.is_symlink())
        for assignment in assignments:
            source = submitted / assignment / f"{assignment}.ipynb"
            if os.path.lexists(source):
                try:
                    data = read_regular(source, submitted)
                except OSError as err:  # graded as a notebook that cannot be read, with the reason
                    data = json.dumps({"unreadable": str(err)}).encode()
                (trusted / f"{assignment}.ipynb").write_bytes(data)
        # The trusted gradings one after another (each has the GPU to itself), then the feedback runs, which need
        # no GPU time that counts, several at once: each is mostly a kernel's start-up (seconds per assignment).
        runs = []
        for assignment in assignments:
            start = time.perf_counter()
            notebook = trusted / f"{assignment}.ipynb"
            scratch = Path(tmp) / f"scratch-{assignment}"  # the feedback run's only writable folder
            shown = Path(tmp) / f"shown-{assignment}"  # what the kernel may read: bound read-only
            (scratch / "submitted" / student / assignment).mkdir(parents=True)
            shown.mkdir()
            shutil.copy(course / "nbgrader_config.py", scratch)
            # private: the feedback run writes only this copy, which holds no other student
            private_gradebook(course / "gradebook.db", student, scratch / "gradebook.db")
            released = released_cells(scratch / "gradebook.db", assignment)
            if notebook.exists():  # the judge grades the copy as submitted; nbgrader gets ids it can handle
                (scratch / "submitted" / student / assignment / notebook.name).write_bytes(
                    for_nbgrader(notebook.read_bytes(), released))
            # Practice (the warm-up) has no trusted grading, so nothing of it is scored: the student still gets
            # the feedback of its own checks, and the record step says it recorded no score.
            report = None
            if assignment in EXERCISES:
                report = trusted_grading(assignment, notebook, partial / "reports" / f"{assignment}.json",
                                         partial / "logs" / f"{assignment}-grading.log")
                reports.append(report)
                shutil.copy(partial / "reports" / f"{assignment}.json", shown / f"{assignment}.json")
            runs.append((assignment, scratch, shown, released, report, time.perf_counter() - start))
        with concurrent.futures.ThreadPoolExecutor(feedback_parallel(len(runs))) as pool:
            done = [pool.submit(_timed_feedback, scratch, student, assignment, shown,
                                partial / "logs" / f"{assignment}-feedback.log")
                    for assignment, scratch, shown, _, _, _ in runs]
        for (assignment, scratch, _, released, report, judged_s), future in zip(runs, done, strict=True):
            code, feedback_s = future.result()
            executed = scratch / "autograded" / student / assignment / f"{assignment}.ipynb"
            refused = None
            if os.path.lexists(executed):
                try:
                    data = read_regular(executed, scratch)
                    (partial / "autograded" / assignment).mkdir(parents=True)
                    # what the sandbox left may have been rewritten after nbgrader wrote it: the record step's own
                    # nbgrader pass must still be able to record it
                    (partial / "autograded" / assignment / executed.name).write_bytes(for_nbgrader(data, released))
                except OSError as err:  # the record step reports the missing notebook; the log says why
                    refused = str(err)
            shutil.rmtree(scratch, ignore_errors=True)
            # seconds: this assignment's own steps (set-up and trusted grading, then its feedback run, which ran
            # beside the others'); judge_s: the judge process, start-up included; grading_s: the report's own;
            # startup_s: the judge's life before it graded (so judge_s - startup_s - grading_s is its ending)
            row = {"seconds": round(judged_s + feedback_s, 1), "judge_s": round(judged_s, 1),
                   "feedback_s": round(feedback_s, 1), "feedback_exit": code}
            if refused:
                row["feedback_refused"] = refused
            row.update({"grading_s": round(report.seconds, 1), "startup_s": report.environment.get("startup_s"),
                        "points": report.points,
                        "max_points": report.max_points} if report is not None else {"scored": False})
            summary["assignments"][assignment] = row
    summary["seconds"] = round(time.perf_counter() - unit_start, 1)
    summary["slot"] = slot(reports)
    (partial / RESULT).write_text(json.dumps(summary, indent=1))
    if final.exists():
        shutil.rmtree(final)
    partial.rename(final)
    return summary


UNIT_TIMEOUT_ENV = "COURSE_UNIT_TIMEOUT"


FEEDBACK_PARALLEL_ENV = "COURSE_FEEDBACK_PARALLEL"


def feedback_parallel(runs: int) -> int:
    """Feedback runs at once: half the cores this unit may use (its slot's, where it has one), at most one per
    assignment, at least one; or ``COURSE_FEEDBACK_PARALLEL``."""
    if os.environ.get(FEEDBACK_PARALLEL_ENV):
        return max(1, int(os.environ[FEEDBACK_PARALLEL_ENV]))
    return max(1, min(runs, len(os.sched_getaffinity(0)) // 2))


def _timed_feedback(scratch: Path, student: str, assignment: str, reports: Path, log: Path) -> tuple[int, float]:
    start = time.perf_counter()
    return feedback_run(scratch, student, assignment, reports, log), time.perf_counter() - start


def unit_timeout(course: Path, student: str) -> float:
    """Seconds a whole unit may take: what its steps' own limits add up to (per assignment, a trusted grading of
    the submission's limit plus 300 s, a feedback run of that limit plus 600 s; a notebook that asks for
    max-autotune has a longer limit), plus two minutes; or
    ``COURSE_UNIT_TIMEOUT``. It stops what the steps' limits do not cover (a unit stuck between steps)."""
    if os.environ.get(UNIT_TIMEOUT_ENV):
        return float(os.environ[UNIT_TIMEOUT_ENV])
    folder = course / "submitted" / student
    try:
        limits = [max((submission_timeout(nb) for nb in a.glob("*.ipynb")), default=submission_timeout())
                  for a in folder.iterdir() if a.is_dir()] if folder.is_dir() else []
    except Exception:  # noqa: BLE001 - a student's files never stop the class (Ray and Slurm tasks call this too)
        limits = [SEARCH_LIMIT_S] * len(EXERCISES)  # the longest any assignment could ask for
    return sum(2 * limit + 900 for limit in limits or [submission_timeout()]) + 120


def run_unit(cmd: list[str], *, env: dict, timeout: float, preexec_fn=None,
             name: str = "") -> tuple[int | str, str, str]:
    """Run a grading unit's command in a session of its own: (exit code, or "timeout"; stdout; stderr). Past
    ``timeout`` the whole session is killed (the judge, the feedback run and whatever they started), not only the
    unit's own process. The unit's working files (copies of the submission, its gradebook, the trusted notebook)
    go to a folder made here and removed here however the unit ends: a unit killed at its limit cannot clean up.
    Where the host offers one, the unit runs in a control group of its own (core/cgroups.py: a memory and a task
    limit over all it starts), and whatever of it is still running when it ends is killed with the group."""
    import signal

    from autograder.core import cgroups

    try:
        group = cgroups.UnitGroup(name)
    except OSError as problem:  # the host's groups changed since the probe: the unit runs, and the log says how
        print(f"warning: no cgroup for unit {name}: {problem}", file=sys.stderr)
        group = cgroups.UnitGroup(name, kind="none")

    def start() -> None:
        group.preexec()
        if preexec_fn is not None:
            preexec_fn()

    scratch = tempfile.mkdtemp(prefix="grading-unit-")
    # Output to files, not pipes: a process the unit left running (a daemon in a session of its own) would hold a
    # pipe open, and reading it to its end would wait for that process, past the unit's own end.
    with tempfile.TemporaryFile("w+", errors="replace") as out, tempfile.TemporaryFile("w+", errors="replace") as err:
        why = ""
        try:
            proc = subprocess.Popen(group.argv(cmd), env={**env, UNIT_SCRATCH_ENV: scratch},
                                    stdout=out, stderr=err, text=True, start_new_session=True, preexec_fn=start)
            try:
                code: int | str = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
                code = "timeout"
                why = f"\nthe unit was stopped after {timeout:g} s (its time limit; {UNIT_TIMEOUT_ENV})"
        finally:
            group.close()
            shutil.rmtree(scratch, ignore_errors=True)
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read() + why


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.grade_student",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--course", type=Path, required=True)
    parser.add_argument("--student", required=True)
    parser.add_argument("--results", type=Path, required=True)
    args = parser.parse_args(argv)
    if not (os.environ.get(SECRET_ENV) or os.environ.get(SECRET_ENV + "_FILE")):
        print(f"warning: neither {SECRET_ENV} nor {SECRET_ENV}_FILE is set: hidden inputs use the public seed",
              file=sys.stderr)
    summary = grade_student(args.course.resolve(), args.student, args.results.resolve())
    for name, row in summary["assignments"].items():
        if row.get("scored") is False:
            print(f"not scored {args.student}/{name}: practice, no trusted grading (feedback only)")
        else:
            print(f"graded {args.student}/{name}: {row['points']:g}/{row['max_points']} in {row['seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
