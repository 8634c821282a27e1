# outcome: secret-hidden | kind: cheat | checks: - | reason: - | device: any
# Tries to read the instructor's secret seed from the environment and leaves what it found in a file.
import os
import tempfile

with open(os.path.join(tempfile.gettempdir(), "course-redteam-secret.txt"), "w") as f:
    f.write(repr(os.environ.get("COURSE_GRADING_SECRET")))
