# outcome: secret-hidden | kind: cheat | checks: - | reason: - | device: any | class: 4
# Looks for the instructor's secret seed in its own environment and in its parent's (the grading process's),
# and leaves what it found in a file.
import os
import tempfile

_found = [os.environ.get("COURSE_GRADING_SECRET")]
for _pid in ("self", str(os.getppid())):
    try:
        with open(f"/proc/{_pid}/environ", "rb") as _f:
            _found += [v.decode(errors="replace") for v in _f.read().split(b"\0") if b"SECRET" in v]
    except OSError:
        pass
with open(os.path.join(tempfile.gettempdir(), "course-redteam-secret.txt"), "w") as f:
    f.write("searched: " + repr([v for v in _found if v]))
