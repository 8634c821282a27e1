"""The classroom path's pieces, each on its own (tests/test_classroom.py grades a whole class with them):
the feedback run's private gradebook, a unit's time limit, notebooks nbgrader can autograde after a split cell,
and the HTML nbgrader renders from a student's notebook (autograder.tools.safe_html, nbgrader_config.py)."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from conftest import REPO
from nbconvert import HTMLExporter
from test_classroom import new_class

from autograder.exercises import get_exercise
from autograder.tools import classroom, grade_student
from autograder.tools.grade_student import private_gradebook, run_unit
from autograder.tools.notebooks import for_nbgrader
from autograder.tools.safe_html import clean_html


def test_what_runs_is_removed():
    for hostile in ("<script>steal()</script>", "<img src=x onerror='steal()'>", "<a href='javascript:steal()'>a</a>",
                    "<a href='JaVaScRiPt:steal()'>a</a>", "<iframe src='https://evil'></iframe>",
                    "<svg onload='steal()'></svg>", "<form action='https://evil'><input></form>",
                    "<a href='data:text/html,<script>steal()</script>'>a</a>", "<div style='background:url(x)'>s</div>",
                    "<object data='evil.swf'></object>", "<style>body{display:none}</style>", "<!-- c --><b>b</b>"):
        cleaned = clean_html(hostile)
        for word in ("<script", "onerror", "onload", "javascript:", "<iframe", "<svg", "<form", "<input", "href=",
                     "url(", "<object", "<style", "<!--"):
            assert word not in cleaned.lower(), (hostile, cleaned)


def test_a_documents_markup_and_the_course_card_stay():
    card = ("<div class='course-result-card'><h3>01: 12/12 points</h3><table><tr><th>check</th>"
            "<td style='color:#1a7f37;font-weight:bold'>PASSED</td></tr></table></div>")
    cleaned = clean_html(card)
    assert "<h3>" in cleaned and "<th>" in cleaned and 'class="course-result-card"' in cleaned
    assert "color:#1a7f37" in cleaned.replace(" ", "")
    assert clean_html("<img src='data:image/png;base64,iVBORw0KGgo='>").startswith('<img src="data:image/png')
    assert clean_html("<p>a &lt; b</p><pre><code>x = 1</code></pre>") == "<p>a &lt; b</p><pre><code>x = 1</code></pre>"


def test_nbgraders_feedback_template_with_the_course_config_leaves_nothing_that_runs():
    """Rendered as `nbgrader generate_feedback` renders (its own template, which shows markdown cells without
    nbconvert's clean_html: a student's markdown script ran), with the committed nbgrader_config.py."""
    import nbgrader
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPO)).load_config()
    formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("# Notes\nsee <script>steal('md')</script> `a < b`"))
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"application/javascript": "steal('js')"}),
                    nbformat.v4.new_output("display_data",
                                           data={"text/html": "<b>ok</b><script>steal('html')</script>"})]
    nb.cells.append(cell)
    exporter = HTMLExporter(config=config, template_name="feedback",
                            extra_template_basedirs=[str(formgrader / "templates")],
                            extra_template_paths=[str(formgrader / "static/node_modules/bootstrap/dist/css")])
    body = exporter.from_notebook_node(nb, resources={"nbgrader": {"score": 1, "max_score": 2, "late_penalty": 0,
                                                                   "notebook": "n"}})[0]
    assert '<h1 id="Notes">' in body and "<code>a &lt; b</code>" in body and "<b>ok</b>" in body
    assert "steal('js')" not in body and "<script>steal" not in body


def test_the_feedback_runs_gradebook_holds_no_other_student(tmp_path, monkeypatch):
    """The feedback run's kernel can read its gradebook copy: it holds the released cells and the student's own
    grades, and not a byte of anyone else's name or grades (a red team read every student's grades there)."""
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")  # alembic
    course = tmp_path / "gradebook.db"
    with Gradebook(f"sqlite:///{course}") as gb:
        gb.add_assignment("a1")
        gb.add_notebook("a1", "a1")
        gb.add_grade_cell("check", "a1", "a1", max_score=3, cell_type="code")
        for student, score in (("peggy", 1.0), ("victor-secret-name", 2.5)):
            gb.add_student(student, email=f"{student}@example.org")
            gb.add_submission("a1", student)
            gb.find_grade("check", "a1", "a1", student).auto_score = score
        gb.db.commit()
    mine = tmp_path / "private.db"
    private_gradebook(course, "peggy", mine)
    with Gradebook(f"sqlite:///{mine}") as gb:
        assert [s.id for s in gb.students] == ["peggy"]
        assert gb.find_grade("check", "a1", "a1", "peggy").auto_score == 1.0
        assert [c.name for c in gb.find_notebook("a1", "a1").grade_cells] == ["check"]
    assert b"victor-secret-name" not in mine.read_bytes()
    assert b"victor-secret-name" in course.read_bytes()  # the control: the course's own gradebook has it


def test_a_unit_past_its_time_limit_is_stopped_with_everything_it_started(tmp_path, monkeypatch):
    """A unit stuck where no step's own limit applies is stopped at the unit's limit (COURSE_UNIT_TIMEOUT), its
    children with it, reported as unfinished and not tried again (it would only run out of time again). The
    working files it had written (a copy of the submission, a gradebook) go with it."""
    child, scratch = tmp_path / "child.pid", tmp_path / "scratch.path"
    code = ("import os, subprocess, sys, time\n"
            "folder = os.environ['COURSE_UNIT_SCRATCH']\n"
            "open(os.path.join(folder, 'gradebook.db'), 'w').write('a student\\'s work')\n"
            f"open({str(scratch)!r}, 'w').write(folder)\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(child)!r}, 'w').write(str(p.pid))\ntime.sleep(60)\n")
    start = time.monotonic()
    status, _, err = run_unit([sys.executable, "-c", code], env=dict(os.environ), timeout=3)
    assert status == "timeout" and "time limit" in err and time.monotonic() - start < 30
    assert not Path(scratch.read_text()).exists(), "the killed unit's working files were left behind"
    pid = int(child.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True,
                                                         text=True).stdout.strip() not in ("", "Z"):
        time.sleep(0.1)
    assert subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True,
                          text=True).stdout.strip() in ("", "Z"), "the unit's child outlived it"

    (tmp_path / "course").mkdir()
    course = new_class(tmp_path / "course", ["alice"])
    monkeypatch.setenv("COURSE_UNIT_TIMEOUT", "2")
    units = tmp_path / "units"  # where run_unit makes each unit's folder
    units.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(units))
    start = time.monotonic()
    assert classroom.fan_out(course, ["alice"], course / "results", workers=1) == ["alice"]
    assert time.monotonic() - start < 30  # stopped at 2 s, once: no second attempt
    assert list(units.iterdir()) == []


def test_the_judge_reads_the_secret_from_a_file_in_the_units_own_folder(tmp_path, monkeypatch):
    """The secret's 0600 file sits in the folder run_unit removes however the unit ends, not loose in /tmp."""
    seen = {}

    def judge(assignment, notebook, out, log, *, env, timeout, grace):
        path = Path(env["COURSE_GRADING_SECRET_FILE"])
        seen.update(path=path, text=path.read_text(), mode=path.stat().st_mode & 0o777,
                    secret_env="COURSE_GRADING_SECRET" in env)
        return None, 1

    unit = tmp_path / "unit"
    unit.mkdir()
    monkeypatch.setenv("COURSE_UNIT_SCRATCH", str(unit))
    monkeypatch.setenv("COURSE_GRADING_SECRET", "the-instructors-secret")
    monkeypatch.setattr(grade_student, "run_judge", judge)
    (tmp_path / "log").write_text("the judge said nothing\n")
    shutil.copy(REPO / "exercises" / "01_eager_mode" / "01_eager_mode.ipynb", tmp_path / "nb.ipynb")  # to judge
    report = grade_student.trusted_grading("01_eager_mode", tmp_path / "nb.ipynb", tmp_path / "out.json",
                                           tmp_path / "log")
    assert not report.ok()  # no report from the judge: a failed one, with its last lines
    assert seen["path"].parent.parent == unit and seen["text"] == "the-instructors-secret" and seen["mode"] == 0o600
    assert not seen["secret_env"] and list(unit.iterdir()) == []  # not in the judge's environment; removed after


def test_a_split_or_copied_cell_keeps_its_metadata_only_where_nbgrader_can_record_it():
    """JupyterLab's Split Cell and copy-paste keep a cell's nbgrader metadata: a released grade_id twice, or one
    from another exercise (a student pasted their exercise-01 benchmark into 02). nbgrader 0.9 fails on either
    (KeyError: 'grade_id'), so the student was not recorded at all. The code stays; the metadata stays once."""
    import json

    def cell(source, grade_id=None):
        meta = {"nbgrader": {"grade_id": grade_id, "solution": True, "grade": False, "locked": False,
                             "schema_version": 3}} if grade_id else {}
        return {"cell_type": "code", "metadata": meta, "source": source}

    cells = [cell("a = 1", "answer"), cell("b = a", "answer"), cell("c = b"), cell("d = c", "benchmark"),
             cell("e = d", "other")]
    cells[2]["metadata"] = {"nbgrader": {}}
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    out = json.loads(for_nbgrader(json.dumps(nb).encode(), frozenset({"answer", "other"})))["cells"]
    assert [c["metadata"].get("nbgrader", {}).get("grade_id") for c in out] == [None, "answer", None, None, "other"]
    assert [c["source"] for c in out] == ["a = 1", "b = a", "c = b", "d = c", "e = d"]  # the code, unchanged
    assert for_nbgrader(b"{ not json", frozenset()) == b"{ not json"  # the caller reports an unreadable file


def test_a_submission_folders_timestamp_is_read_only_as_a_small_regular_file(tmp_path):
    """A student's folder may hold any timestamp.txt: text that is no time stopped the record step in nbgrader,
    a link to /dev/zero was copied without end, a link to a FIFO never returned (a sixth red team)."""
    from autograder.tools.record import readable_timestamp

    (tmp_path / "good").write_text("2026-11-25 10:00:00.123456 UTC\n")
    (tmp_path / "words").write_text("not a date\n")
    (tmp_path / "zero").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to-fifo").symlink_to(tmp_path / "fifo")
    assert readable_timestamp(tmp_path / "good") == "2026-11-25 10:00:00.123456 UTC"
    for name in ("words", "zero", "fifo", "to-fifo"):
        assert readable_timestamp(tmp_path / name) == "", name


def test_a_units_slot_names_the_gpu_and_torch_its_judge_saw():
    from autograder.core.protocol import Report
    from autograder.tools.grade_student import slot

    exercise = get_exercise("01_eager_mode")
    judged = Report.failed(exercise, "x", environment={"torch": "2.11.0+cu130", "gpu": "NVIDIA H100 80GB HBM3"})
    unjudged = Report.failed(exercise, "the grader ended without a report")  # no environment: not believed
    seen = slot([unjudged, judged])
    assert (seen["gpu"], seen["torch"]) == ("NVIDIA H100 80GB HBM3", "2.11.0+cu130")
    import torch  # without such a report the unit asks torch itself

    assert slot([unjudged])["torch"] == torch.__version__ == slot([])["torch"]


def test_nbgrader_processes_stamp_a_new_gradebook_with_the_revision_nbgraders_own_lookup_finds(tmp_path, monkeypatch):
    import nbgrader.api

    from autograder.tools import nbgrader_main

    original = nbgrader.api.get_alembic_version  # nbgrader's: `alembic heads` in a subprocess, found on PATH
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert nbgrader_main.alembic_head() == original()
    try:
        nbgrader_main.use_alembic_head_in_process()
        with nbgrader.api.Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gradebook:
            version = gradebook.db.execute(nbgrader.api.text("select version_num from alembic_version")).scalar()
    finally:
        nbgrader.api.get_alembic_version = original
    assert version == original()


def test_a_feedback_run_finds_packages_installed_through_pythonpath(tmp_path, monkeypatch):
    """A GPU host with no package index gets nbgrader by `pip install --target DIR` and PYTHONPATH=DIR: the feedback
    run (sandboxed where bubblewrap works) must find what the grader itself found there. Without the caller's
    PYTHONPATH it found no nbgrader and a 24-student class on 4 x H200 recorded no one (2026-11-27)."""
    site = tmp_path / "site"
    (site / "fake_nbgrader").mkdir(parents=True)
    (site / "fake_nbgrader-1.0.dist-info").mkdir()  # what pip install --target leaves
    (site / "fake_nbgrader" / "__main__.py").write_text(
        "import sys, autograder\nprint('fake nbgrader ran:', sys.argv[1], sys.argv[4])\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setattr(grade_student, "NBGRADER", "fake_nbgrader")
    scratch, reports, log = tmp_path / "scratch", tmp_path / "reports", tmp_path / "feedback.log"
    scratch.mkdir()
    reports.mkdir()
    monkeypatch.chdir(scratch)
    code = grade_student.feedback_run(scratch, "peggy", "01_eager_mode", reports, log)
    assert code == 0, log.read_text()
    assert "fake nbgrader ran: autograde peggy" in log.read_text()


def test_the_sandbox_binds_pythonpath_folders_but_never_the_callers_own(tmp_path, monkeypatch):
    """A folder of the instructor's PYTHONPATH that pip installed into is part of the installation; a folder of
    their own (no package installed: a secret may sit there), the working directory, a folder above it, or one that
    holds a class (its submissions, its gradebook) is not, even when PYTHONPATH names it."""
    from autograder.core import sandbox

    site, course, gradebook_dir, work, own = (tmp_path / n for n in ("site", "course", "books", "work", "own"))
    for folder in (site / "pkg-1.0.dist-info", course / "submitted", gradebook_dir, work, own):
        folder.mkdir(parents=True)
    for folder in (course, gradebook_dir, tmp_path):  # installed into, yet a class's or the caller's
        (folder / "pkg-1.0.dist-info").mkdir()
    (gradebook_dir / "gradebook.db").write_bytes(b"")
    (own / "secret.txt").write_text("s3cret")
    monkeypatch.chdir(work)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(map(str, (site, course, gradebook_dir, tmp_path, own, "", "/"))))
    assert sandbox._pythonpath_roots() == [os.path.realpath(site)]
    assert sandbox.python_path().split(os.pathsep)[:2] == [str(sandbox.PACKAGE.parent), str(site)]


def test_a_missing_feedback_notebook_is_reported_with_the_end_of_its_log(tmp_path):
    """The record step names why a feedback run returned nothing: the last line of its log, printable only."""
    from autograder.tools.record import log_ending

    unit = tmp_path / "peggy"
    (unit / "logs").mkdir(parents=True)
    (unit / "logs" / "01_eager_mode-feedback.log").write_text(
        "Traceback (most recent call last):\n  ...\nModuleNotFoundError: No module named 'nbgrader'\x1b[0m\n\n")
    ending = log_ending(unit, "01_eager_mode")
    assert "its log ends: ModuleNotFoundError: No module named 'nbgrader'?[0m" in ending
    assert log_ending(unit, "02_compile_pipeline") == ""
    (unit / "logs" / "03_compile_modes-feedback.log").symlink_to("/etc/hostname")
    assert log_ending(unit, "03_compile_modes") == ""


def test_a_class_whose_feedback_runs_cannot_start_is_refused_before_any_student_is_graded(tmp_path, monkeypatch):
    """Every unit's feedback run needs nbgrader and a kernel in its environment and sandbox. Where they are missing,
    make autograde stops at once, saying it is the machine's setup; no unit starts and nothing is recorded (a class on
    4 x H200 was graded for 20 minutes and then recorded no one)."""
    import pytest

    from autograder.core import sandbox

    (tmp_path / "course").mkdir()
    course = new_class(tmp_path / "course", ["alice"])
    monkeypatch.setattr(grade_student, "FEEDBACK_NEEDS", "import nbgrader_is_not_installed_here\n")
    started = []
    monkeypatch.setattr(classroom, "fan_out", lambda *a, **k: started.append(a) or [])
    with pytest.raises(sandbox.SandboxUnavailable,
                       match="nbgrader_is_not_installed_here.*not any student's code: nothing was graded"):
        classroom.autograde(course)
    assert not started and not (course / "results").exists()


def test_the_feedback_preflight_passes_where_feedback_runs_work():
    grade_student.feedback_preflight()  # this machine's feedback runs start nbgrader and a kernel (the class tests)


def test_a_notebook_with_nothing_to_grade_scores_0_with_its_reason_and_no_judge(tmp_path, monkeypatch):
    """No file, a file the unit could not read safely, and make autograde's stand-in for a file that was not a
    notebook are scored 0 by the unit itself, the reason on every check; a real notebook still goes to the judge,
    even one whose author copied the stand-in's message (only the mark counts, and it costs its author the points)."""
    import json

    from autograder.tools.grade_student import QUARANTINED, not_gradable, trusted_grading

    judged = []

    def judge(exercise_id, path, out, log, **_):
        judged.append(path)
        log.write_text("a judge ran\n")
        return None, 1

    monkeypatch.setattr(grade_student, "run_judge", judge)
    stub = json.loads((REPO / "exercises" / "01_eager_mode" / "01_eager_mode.ipynb").read_text())
    stand_in = {**stub, "metadata": {**stub["metadata"], QUARANTINED: "JSONDecodeError: Expecting value"}}
    cases = {"missing.ipynb": None, "unsafe.ipynb": {"unreadable": "reached through a link"},
             "stand_in.ipynb": stand_in}
    for name, content in cases.items():
        notebook = tmp_path / name
        if content is not None:
            notebook.write_text(json.dumps(content))
        why = not_gradable(notebook)
        report = trusted_grading("01_eager_mode", notebook, tmp_path / f"{name}.json", tmp_path / f"{name}.log")
        assert why and report.points == 0 and all(why in r.message for r in report.results), name
    assert not judged
    (tmp_path / "real.ipynb").write_text(json.dumps(stub))
    assert not_gradable(tmp_path / "real.ipynb") == ""
    trusted_grading("01_eager_mode", tmp_path / "real.ipynb", tmp_path / "real.json", tmp_path / "real.log")
    assert len(judged) == 1


def _notebook(path: Path, *cells) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nbformat.v4.new_notebook(cells=list(cells)), path)
    return path


def test_one_students_unrenderable_notebook_costs_only_their_own_feedback_page(tmp_path, monkeypatch):
    """A red team's markdown cell with a lost attachment made nbgrader fail on one student; make feedback stopped
    there, and every later assignment got no page for anyone. Now every other page is made, the page not made is
    listed with nbgrader's words in autograded/feedback-failed.csv, and the command exits 1 after all of it."""
    for student, name in [("alice", "01_eager_mode"), ("mallory", "01_eager_mode"), ("alice", "04_graph_breaks")]:
        (tmp_path / "submitted" / student / name).mkdir(parents=True)
        _notebook(tmp_path / "autograded" / student / name / f"{name}.ipynb", nbformat.v4.new_code_cell("x = 1"))

    def nbgrader(course, command, name, *flags):  # renders alice, fails on mallory, as nbgrader does
        assert command == "generate_feedback"
        page = course / "feedback" / "alice" / name / f"{name}.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text("<html></html>")
        if (course / "autograded" / "mallory" / name).exists():
            raise RuntimeError("nbgrader generate_feedback failed (exit 1): missing attachment: plot.png; "
                               "There was an error processing assignment for student 'mallory'")

    monkeypatch.setattr(classroom, "run_nbgrader", nbgrader)
    pages = classroom.feedback(tmp_path)
    assert [p.relative_to(tmp_path / "feedback").parts[:2] for p in pages] == [("alice", "01_eager_mode"),
                                                                               ("alice", "04_graph_breaks")]
    rows = (tmp_path / "autograded" / classroom.FEEDBACK_FAILED_CSV).read_text().splitlines()
    assert rows[0] == "student,assignment,why" and len(rows) == 2
    assert rows[1].startswith("mallory,01_eager_mode,") and "missing attachment" in rows[1]
    assert classroom.main(["feedback", "--course", str(tmp_path)]) == 1
    shutil.rmtree(tmp_path / "autograded" / "mallory")
    assert classroom.main(["feedback", "--course", str(tmp_path)]) == 0  # all made: no list left behind
    assert not (tmp_path / "autograded" / classroom.FEEDBACK_FAILED_CSV).exists()


def test_an_output_too_long_to_render_is_cut_before_feedback_is_made():
    """nbconvert's ANSI filter takes quadratic time in a line's escape codes: one printed line of 2 million made one
    student's page take 330 s (a red team, 2026-11-27). Outputs longer than OUTPUT_CAP characters are cut, saying
    so; a normal output is left as it is."""
    from autograder.tools.notebooks import OUTPUT_CAP, cap_outputs

    with tempfile.TemporaryDirectory() as tmp:
        long = "\x1b[m" * 1_000_000
        cell = nbformat.v4.new_code_cell("print(...)", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text=long),
            nbformat.v4.new_output("execute_result", data={"text/plain": long, "image/png": "AAAA"}),
            nbformat.v4.new_output("stream", name="stdout", text="ok\n")])
        path = _notebook(Path(tmp) / "nb.ipynb", cell)
        assert cap_outputs(path) == 2
        outputs = nbformat.read(path, as_version=4).cells[0].outputs
        assert len(outputs[0].text) <= OUTPUT_CAP and "cut by the grader" in outputs[0].text
        assert "cut by the grader" in outputs[1].data["text/plain"] and outputs[1].data["image/png"] == "AAAA"
        assert outputs[2].text == "ok\n"
        assert cap_outputs(path) == 0


def test_a_unit_that_cannot_start_for_one_student_does_not_stop_the_class(tmp_path, monkeypatch):
    """A red team's code cell whose nbgrader metadata was a string crashed the unit's limit computation, the
    exception went up through the class's thread pool, and no one was recorded. Now that student's unit is listed
    as not finished (failed.csv) and every other unit runs."""
    def limit(course, student):
        if student == "mallet":
            raise AttributeError("'str' object has no attribute 'get'")
        return 60.0

    def unit(cmd, *, env, timeout, preexec_fn=None, name=""):
        results = Path(cmd[cmd.index("--results") + 1]) / name
        results.mkdir(parents=True, exist_ok=True)
        (results / grade_student.RESULT).write_text("{}")
        return 0, "graded", ""

    monkeypatch.setattr(classroom, "unit_timeout", limit)
    monkeypatch.setattr(classroom, "run_unit", unit)
    assert classroom.fan_out(tmp_path, ["alice", "mallet", "zoe"], tmp_path / "results", workers=1) == ["mallet"]
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["alice", "zoe"]


def test_a_units_time_limit_is_a_number_whatever_the_students_files_hold(tmp_path, monkeypatch):
    """unit_timeout runs before any unit, in make autograde, a Ray task and a Slurm task alike: a student's files
    that make reading them raise give the longest limit an assignment could ask for, not an exception."""
    (tmp_path / "submitted" / "mallet" / "01_eager_mode").mkdir(parents=True)
    (tmp_path / "submitted" / "mallet" / "01_eager_mode" / "01_eager_mode.ipynb").write_text("{}")
    honest = grade_student.unit_timeout(tmp_path, "mallet")

    def broken(path=None):
        raise AttributeError("'str' object has no attribute 'get'")

    monkeypatch.setattr(grade_student, "submission_timeout", broken)
    assert grade_student.unit_timeout(tmp_path, "mallet") > honest > 0


def test_a_feedback_log_the_students_code_filled_keeps_only_its_tail(tmp_path):
    """The feedback run's log lies in the course folder after the unit, and the student's kernel writes into it (a
    red team appended 100 MiB through /proc/1/fd/1): it keeps its last LOG_KEEP bytes, which hold its last line."""
    log = tmp_path / "00_warmup-feedback.log"
    log.write_bytes(b"x" * (3 * grade_student.LOG_KEEP) + b"\nthe kernel did not start\n")
    grade_student.keep_tail(log)
    text = log.read_text()
    assert len(text) < grade_student.LOG_KEEP + 200 and text.startswith("[the first ")
    assert text.endswith("the kernel did not start\n")
    short = tmp_path / "short.log"
    short.write_text("fine\n")
    grade_student.keep_tail(short)
    assert short.read_text() == "fine\n"
