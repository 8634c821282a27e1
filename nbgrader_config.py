"""nbgrader configuration: solutions/ is the single source, exercises/ the generated student release."""

import os

c = get_config()  # noqa: F821  (nbgrader injects get_config)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "torch-compile-course"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
# These three and the gradebook are git-ignored working folders.
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"

# A first torch.compile inside a graded cell can take ~25 s on a cold cache (FACTS.md), and a speed
# measurement several seconds more; 30 s (nbgrader's default) is too tight, an unbounded cell is worse.
c.Execute.timeout = int(os.environ.get("COURSE_CELL_TIMEOUT", "300"))
c.Execute.interrupt_on_timeout = True

# A graded test cell the student deleted is put back (with a note saying so) and graded: deleting a failing
# test cannot hide it, and an accidental deletion costs a correct solution nothing. Edited test cells are
# restored from the gradebook by nbgrader itself (locked cells).
c.OverwriteCells.add_missing_cells = True

# Every notebook nbgrader renders to HTML (feedback, formgrader's views) is sanitised by nbconvert: a student's
# cells produced its outputs and may have written its markdown, and neither may run a script in the browser of
# whoever opens it (formgrader runs at the instructor's origin) or show markup of their own making.
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.filters = {"clean_html": "autograder.tools.safe_html.clean_html",  # keeps a document's markup
                          "strip_files_prefix": "autograder.tools.safe_html.strip_files_prefix"}  # markdown cells

# Student versions keep the task text and starter code, never the solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
