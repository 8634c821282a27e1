"""The learner's progress, like a course platform's: which lessons are done, which exercises passed, and the
best speedup measured for each. Stored in one small JSON file per user, outside the repository:
``$COURSE_PROGRESS_FILE``, else ``$XDG_DATA_HOME/torch-compile-course/progress.json`` (default
``~/.local/share/...``). A missing or corrupt file never breaks a notebook: it reads as "nothing done yet",
and a corrupt one is kept aside (``progress.json.corrupt``) instead of being overwritten silently.

    from autograder.course import progress
    progress.panel("04")   # the small panel at the top of each notebook
    progress.progress()    # the whole table
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import time
from pathlib import Path

LESSONS = {"00": "Start here", "01": "Eager mode", "02": "The compile pipeline", "03": "Compile modes",
           "04": "Graph breaks", "05": "Dynamic shapes", "06": "CUDA graphs"}
# tests/test_progress.py keeps this in step with the registry
EXERCISES = {"01": "01_eager_mode", "02": "02_compile_pipeline", "03": "03_compile_modes", "04": "04_graph_breaks",
             "05": "05_dynamic_shapes", "06": "06_cuda_graphs"}
VERSION = 1


def path() -> Path:
    if os.environ.get("COURSE_PROGRESS_FILE"):
        return Path(os.environ["COURSE_PROGRESS_FILE"])
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "torch-compile-course" / "progress.json"


def _empty() -> dict:
    return {"version": VERSION, "lessons": {}, "exercises": {}}


def _recording_disabled() -> bool:
    """Grading runs (nbgrader autograde, the isolated grader) and headless runs of a notebook (papermill, a CI's
    check) are not the learner's own progress."""
    return bool(os.environ.get("NBGRADER_EXECUTION") or os.environ.get("AUTOGRADER_WORKER")) or _under_papermill()


def _under_papermill() -> bool:
    """This kernel was started by papermill: its parent process (the kernel's launcher) runs papermill's code.
    Papermill sets no variable of its own, and a notebook cannot see how it is being run."""
    pid = os.getppid()
    for _ in range(2):  # the launcher, or the one above it where a wrapper (a sandbox) started the kernel
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"papermill" in f.read(8192):
                    return True
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False


def load() -> dict:
    """The stored progress; an empty record if the file is missing, unreadable or not ours."""
    p = path()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _empty()
    except (OSError, ValueError):
        _set_aside(p)
        return _empty()
    if not (isinstance(data, dict) and isinstance(data.get("lessons"), dict)
            and isinstance(data.get("exercises"), dict)):
        _set_aside(p)
        return _empty()
    return data


def _set_aside(p: Path) -> None:
    try:
        os.replace(p, p.with_name(p.name + ".corrupt"))
    except OSError:
        pass


def _save(data: dict) -> bool:
    """Write atomically (a crash mid-write leaves the old file); False where the disk refuses."""
    p = path()
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".progress-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
        os.replace(tmp, p)
        return True
    except OSError:
        return False


def lesson_done(lesson: str) -> None:
    """Mark lesson ``lesson`` ("00".."06") done (the last cell of each lesson calls it)."""
    if lesson not in LESSONS:
        raise ValueError(f"unknown lesson {lesson!r}; lessons are {', '.join(LESSONS)}")
    if _recording_disabled():
        return
    data = load()
    data["lessons"][lesson] = {"done_at": time.strftime("%Y-%m-%d %H:%M")}
    saved = _save(data)
    print(f"Lesson {lesson} ({LESSONS[lesson]}) marked done." if saved else
          f"Lesson {lesson} done (progress could not be saved to {path()}).")


def record_exercise(exercise_id: str, points: float, max_points: float, speedup: float | None,
                    not_graded: float = 0) -> dict:
    """Record one self-check of an exercise: passed if every point was earned; the best speedup is kept.
    ``not_graded``: points of checks this machine could not grade (speed, on a CPU): where every other point was
    earned, the exercise is "verified on a CPU", not passed."""
    data = load()
    entry = data["exercises"].get(exercise_id, {})
    passed = points >= max_points
    if not_graded and points >= max_points - not_graded:
        entry["cpu_verified"] = True
    best = entry.get("best_speedup")
    if speedup is not None and (best is None or speedup > best):
        best = speedup
    entry.update(passed=bool(entry.get("passed")) or passed, best_points=max(entry.get("best_points", 0), points),
                 max_points=max_points, best_speedup=best, last_checked=time.strftime("%Y-%m-%d %H:%M"))
    data["exercises"][exercise_id] = entry
    if not _recording_disabled():
        _save(data)
    return entry


def rows(data: dict | None = None) -> list[tuple[str, str, str]]:
    """(lesson, lesson status, exercise status) for every lesson."""
    data = load() if data is None else data
    out = []
    for number, title in LESSONS.items():
        lesson = "done" if number in data["lessons"] else "not yet"
        ex_id = EXERCISES.get(number)
        exercise = "-"
        if ex_id:
            e = data["exercises"].get(ex_id)
            if e is None:
                exercise = "not tried"
            else:
                speed = f", best {e['best_speedup']:.2f}x" if e.get("best_speedup") else ""
                exercise = ("passed" if e.get("passed") else
                            "verified on a CPU; its speed check needs a GPU" if e.get("cpu_verified") else
                            f"{e.get('best_points', 0):g}/{e.get('max_points', '?')} points") + speed
        out.append((f"{number} {title}", lesson, exercise))
    return out


def _in_kernel() -> bool:
    from autograder.course.display import _in_kernel as in_kernel

    return in_kernel()


def progress() -> list[tuple[str, str, str]]:
    """Show the whole progress table (HTML in a notebook, text elsewhere) and return its rows."""
    table = rows()
    if _in_kernel():
        from IPython.display import HTML, display

        body = "".join(f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td><td>{html.escape(c)}</td></tr>"
                       for a, b, c in table)
        display(HTML("<div class='course-progress'><table><tr><th>lesson</th><th>status</th><th>exercise</th>"
                     f"</tr>{body}</table><small>{html.escape(str(path()))}</small></div>"))
    else:
        for a, b, c in table:
            print(f"{a:28} {b:8} {c}")
    return table


def panel(current: str) -> None:
    """Show the panel at the top of a notebook (HTML in a notebook, a text line elsewhere); nothing in a grading's
    run of a notebook (its feedback page would show a sandbox's empty progress)."""
    if os.environ.get("NBGRADER_EXECUTION") or os.environ.get("AUTOGRADER_WORKER"):
        return
    text = panel_text(current)
    if _in_kernel():
        from IPython.display import display

        display({"text/html": f"<div class='course-progress-panel' style='border:1px solid #ccc;padding:4px 8px;"
                              f"border-radius:4px'>{html.escape(text)}</div>", "text/plain": text}, raw=True)
    else:
        print(text)


def panel_text(current: str) -> str:
    """One line: lessons done, exercises passed, and this lesson's exercise."""
    data = load()
    done = sum(1 for n in LESSONS if n in data["lessons"])
    passed = sum(1 for e in EXERCISES.values() if data["exercises"].get(e, {}).get("passed"))
    on_cpu = sum(1 for e in EXERCISES.values() if data["exercises"].get(e, {}).get("cpu_verified")
                 and not data["exercises"][e].get("passed"))
    mine = dict((r[0][:2], r[2]) for r in rows(data)).get(current, "-")
    text = (f"Course progress: {done}/{len(LESSONS)} lessons done, {passed}/{len(EXERCISES)} exercises passed"
            + (f" ({on_cpu} more verified on a CPU, speed not graded there)" if on_cpu else "")
            + (f"; exercise {current}: {mine}" if current in EXERCISES else "")
            + " — autograder.course.progress.progress() shows the table")
    return text
