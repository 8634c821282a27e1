"""Submissions as a learning platform delivers them: one zip of files named by student, imported with nbgrader's
own zip_collect (issue 40), then graded like any other."""

import shutil
import zipfile

import pytest
from conftest import REPO

from autograder.tools import classroom, collect

EX = "01_eager_mode"


@pytest.mark.slow
def test_an_lms_zip_lands_in_submitted_by_student_and_what_it_cannot_place_is_listed(tmp_path, capsys):
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(REPO / "nbgrader_config.py", course)
    shutil.copytree(REPO / "solutions" / EX, course / "solutions" / EX)
    classroom.release(course)
    notebook = (REPO / "exercises" / EX / f"{EX}.ipynb").read_bytes()
    plain, canvas = tmp_path / "plain.zip", tmp_path / "canvas.zip"
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr(f"alice_{EX}.ipynb", notebook)
        z.writestr(f"bob_{EX}.ipynb", notebook)
        z.writestr("readme.txt", "not a submission")
        z.writestr(f"carol_{EX}_draft.ipynb", notebook)  # a notebook of another name: listed, not collected
    with zipfile.ZipFile(canvas, "w") as z:
        z.writestr(f"doejane_LATE_12345_678901_{EX}-1.ipynb", notebook)  # a late resubmission
    code = collect.main(["--course", str(course), "--assignment", EX, "--zip", str(plain)])
    out = capsys.readouterr().out
    assert code == 1 and "NOT COLLECTED" in out and f"carol_{EX}_draft" in out, out
    assert collect.main(["--course", str(course), "--assignment", EX, "--zip", str(canvas), "--names", "canvas"]) == 0
    for student in ("alice", "bob", "doejane"):
        assert (course / "submitted" / student / EX / f"{EX}.ipynb").read_bytes() == notebook, student
    assert not (course / "submitted" / "carol").exists()
    with pytest.raises(FileNotFoundError, match="make release"):
        collect.collect(course, "02_compile_pipeline", plain, collect.NAMES["plain"])
