"""Processes that run a submission's code, inside bubblewrap (``bwrap``): an existing tool made for this.

What such a process sees: the system's programs and libraries read-only, this Python and the grader's package
read-only, the paths its caller names (a private writable scratch, one student's files), a private ``/tmp`` and
home, no network (its own network namespace, loopback only). It dies with the process that started it
(``--die-with-parent``); with ``own_pids`` it also has its own PID namespace, so nothing it forks outlives it.
What it does not see: the course folder, the gradebook, other students' submissions, the grading secret (its
environment is the caller's, and callers pass the secret to no process they wrap).

``COURSE_SANDBOX`` picks the mode: ``bwrap`` (required: fail if bubblewrap cannot run), ``none`` (off, said so
in every report), unset or ``auto`` (bubblewrap where it runs, else off, said so).

Memory: every such process starts under ``prlimit --data`` (util-linux; the kernel's RLIMIT_DATA), so an
allocation past the limit fails inside the student's own process (MemoryError, or torch's "can't allocate
memory") instead of waking the host's OOM killer, which may pick the judge or another student's grading. The
limit is per process (a compile worker has its own). ``COURSE_MEMORY_LIMIT`` sets it (``16G``, ``512M``,
``none``); unset: 16G for processes without a GPU, none for those with one (RLIMIT_DATA with CUDA is not yet
measured on a GPU: set it there after `make gpu-check` passes with it).
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

MODE_ENV = "COURSE_SANDBOX"
MEMORY_ENV = "COURSE_MEMORY_LIMIT"
DEFAULT_MEMORY = "16G"
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
PACKAGE = Path(__file__).resolve().parent.parent  # the autograder package: read-only inside
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/sys")


class SandboxUnavailable(RuntimeError):
    pass


@functools.cache
def _working_bwrap() -> tuple[str | None, str]:
    """(path to a bwrap that runs here, why not)."""
    found = shutil.which("bwrap")
    if not found:
        return None, "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = [found, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
             "--die-with-parent", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as err:
        return None, f"bubblewrap did not run: {err}"
    if done.returncode != 0:
        return None, f"bubblewrap cannot create namespaces here: {done.stderr.strip()[:200]}"
    return found, ""


def proc_stat(task: int | str) -> list[str] | None:
    """The fields after the command name in /proc/TASK/stat (TASK: a pid, or "PID/task/TID" for a thread), 0-based
    from the state: [1] the parent's pid, [11] and [12] user and system time, [19] the start time. None if gone."""
    try:
        with open(f"/proc/{task}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def mode() -> str:
    """'bwrap' or 'none' for this machine and setting; raises SandboxUnavailable when bwrap is required."""
    wanted = os.environ.get(MODE_ENV, "auto").strip().lower() or "auto"
    if wanted not in ("auto", "bwrap", "none"):
        raise SandboxUnavailable(f"{MODE_ENV}={wanted!r}: use bwrap, none or auto")
    if wanted == "none":
        return "none"
    path, why = _working_bwrap()
    if path:
        return "bwrap"
    if wanted == "bwrap":
        raise SandboxUnavailable(f"{MODE_ENV}=bwrap, but {why}")
    return "none"


def size_bytes(text: str) -> int:
    """``16G``, ``512M``, ``32GiB``, ``1024`` as bytes; ValueError for anything else."""
    text = text.strip().lower().removesuffix("b").removesuffix("i")
    number, unit = text.rstrip("kmgt"), text[len(text.rstrip("kmgt")):]
    try:
        return int(float(number) * _UNITS[unit])
    except KeyError:
        raise ValueError(text) from None


def memory_limit(gpu: bool) -> int | None:
    """Bytes of data memory a process running student code may have (None: no limit); see the module's doc."""
    text = os.environ.get(MEMORY_ENV, "").strip().lower().removesuffix("b").removesuffix("i")
    if text in ("none", "off", "0"):
        return None
    if not text:
        if gpu:
            return None
        text = DEFAULT_MEMORY.lower()
    try:
        limit = size_bytes(text)
    except ValueError:
        raise SandboxUnavailable(f"{MEMORY_ENV}={os.environ.get(MEMORY_ENV)!r}: use a size such as 16G or 512M, "
                                 "or none") from None
    if limit < 2**28:
        raise SandboxUnavailable(f"{MEMORY_ENV}={os.environ.get(MEMORY_ENV)!r}: under 256M, not even Python and "
                                 "torch would start")
    return limit


def _memory_words(gpu: bool) -> str:
    limit = memory_limit(gpu)
    if limit is None:
        return "no memory limit"
    if not shutil.which("prlimit"):
        return "no memory limit (prlimit, from util-linux, is not installed)"
    return f"memory limit {limit / 2**30:g} GiB per process"


def describe(gpu: bool = False) -> str:
    """One line for reports and logs: is student code sandboxed here, and if not, why; its memory limit."""
    current = mode()
    if current == "bwrap":
        return ("sandboxed (bubblewrap: no network, read-only system and course code, private scratch; "
                f"{_memory_words(gpu)})")
    why = "turned off (COURSE_SANDBOX=none)" if os.environ.get(MODE_ENV, "").lower() == "none" else _working_bwrap()[1]
    return f"UNSANDBOXED: student code ran with this user's rights ({why}; {_memory_words(gpu)})"


class NotARegularFile(OSError):
    """A path a sandboxed process could write now names a device, a pipe or a folder instead of a file."""


def open_regular(path: Path):
    """``path`` opened for reading only if it is a regular file, never through a link in its place: a folder a
    sandboxed process could write may hold a link to the grading secret, another student's work, the gradebook
    or /dev/zero. Raises OSError (a link: ELOOP; NotARegularFile for anything else that is not a file)."""
    f = os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb")
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise NotARegularFile(f"{Path(path).name}: not a regular file")
    return f


NO_TRACE_ENV = "COURSE_JUDGE_NO_TRACE"


def refuse_tracing(gpu: bool) -> bool:
    """Make this process (the judge) non-dumpable, so that no process without CAP_SYS_PTRACE can attach to it or
    read its /proc/PID/{environ,mem,root,cwd,fd}: not even a worker of the same user that shares its PID
    namespace. Returns whether this process is non-dumpable now.

    On a GPU it waits for ``COURSE_JUDGE_NO_TRACE=1``: the worker opens the judge's memory through CUDA IPC, which
    has not been run against a non-dumpable judge yet (THREAT_MODEL.md)."""
    if gpu and os.environ.get(NO_TRACE_ENV) != "1":
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_dumpable, pr_get_dumpable = 4, 3
        libc.prctl(pr_set_dumpable, 0, 0, 0, 0)
        return libc.prctl(pr_get_dumpable, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux
        return False


def _python_roots() -> list[str]:
    """The interpreter, its standard library and the environment's packages (a venv and its base, the user's site
    folder): the installation's own folders and the entries of sys.path inside them, never any other entry. An
    entry outside them is a folder of the caller's (`python -m` puts its working directory first, and an
    instructor running the documented commands from the course folder had every student's submission, the reports
    and the gradebook bound into the sandbox: a red team read them there)."""
    import site

    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    prefixes.add(os.path.dirname(os.path.realpath(sys.executable)))
    sites = {os.path.realpath(p) for p in site.getsitepackages()} if hasattr(site, "getsitepackages") else set()
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else ""
    if user and user in sys.path and os.path.isdir(user):
        sites.add(os.path.realpath(user))
    roots = set(prefixes) | {p for p in sites if os.path.isdir(p)} | set(_pythonpath_roots())
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        if real and os.path.isdir(real) and any(real == r or real.startswith(r + os.sep) for r in roots):
            roots.add(real)
    return sorted(roots)


def _pythonpath_roots() -> list[str]:
    """The folders of the caller's PYTHONPATH that pip installed into (``pip install --target``, as on a GPU host
    with no package index: they hold a ``*.dist-info``): part of how this Python finds its packages, so the sandbox
    binds them read-only. Never another folder (one of the caller's own, where a secret or a class's files may be),
    the working directory or a folder above it, nor one that holds a class's files (a ``submitted`` folder or a
    gradebook)."""
    cwd = os.path.realpath(os.getcwd())
    roots = []
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        real = os.path.realpath(entry) if entry else ""
        if not real or not os.path.isdir(real) or real == os.sep:
            continue
        if cwd == real or cwd.startswith(real + os.sep):
            continue
        if os.path.isdir(os.path.join(real, "submitted")) or os.path.exists(os.path.join(real, "gradebook.db")):
            continue
        try:
            installed = any(name.endswith((".dist-info", ".egg-info")) for name in os.listdir(real))
        except OSError:
            installed = False
        if installed:
            roots.append(real)
    return roots


def python_path() -> str:
    """PYTHONPATH for a process the grader starts (a worker, a feedback run): the course's package first, then the
    caller's own entries, so that packages installed beside the interpreter's (``pip install --target``) are found
    there too. On a GPU host whose nbgrader came that way, a feedback run without them found no nbgrader, and no
    student of a 24-student class was recorded."""
    own = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join([str(PACKAGE.parent), *own])


def reachable(path: str) -> str:
    """``path`` with the links among its folders resolved, the file's own name kept: the interpreter of a ``.venv``
    that is itself a link (``.gitignore`` allows one) is bound inside at its target, so the link's own path does not
    exist there. The name stays, since a venv's ``bin/python`` is itself a link out of the venv, and Python finds
    the venv from the folder of the name it was started by."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


MIN_FREE_BYTES = 2 * 2**30  # a grading's scratch: compile caches copied in, a notebook's outputs, the reports


@functools.cache
def preflight() -> None:
    """Start this Python in the sandbox once, as every grading will: raise SandboxUnavailable, saying it is the
    grader's setup that failed, when it cannot (the interpreter not reachable inside, bubblewrap broken, no disk
    for a grading's scratch), before any student's grading could be blamed for it."""
    import tempfile

    folder = tempfile.gettempdir()
    free = shutil.disk_usage(folder).free
    if free < MIN_FREE_BYTES:
        raise SandboxUnavailable(
            f"only {free / 2**30:.1f} GiB free in {folder}, where every grading makes its scratch folder (at least "
            f"{MIN_FREE_BYTES / 2**30:g} GiB): this is the grading machine's setup, not any student's code: nothing "
            "was graded or recorded. Free some space, or point TMPDIR at a disk that has it")
    if mode() == "none":
        return
    argv = wrap([sys.executable, "-c", "import autograder"], cwd=Path("/"))
    env = {**os.environ, "PYTHONPATH": python_path()}
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SandboxUnavailable(f"the grader's sandbox could not start Python: {err}") from None
    if done.returncode != 0:
        raise SandboxUnavailable(
            f"the grader's sandbox could not start Python ({reachable(sys.executable)}): "
            f"{(done.stderr or done.stdout).strip()[-400:]}. This is the grading machine's setup, not any student's "
            f"code: nothing was graded or recorded. Fix it, or run without the sandbox ({MODE_ENV}=none, said so "
            "in every report)")


def wrap(argv: list[str], *, writable: list[Path] = (), readable: list[Path] = (), cwd: Path | None = None,
         gpu: bool = False, own_pids: bool = True, new_session: bool = True) -> list[str]:
    """``argv`` as it runs in the sandbox (unchanged when the mode is 'none').

    ``writable``/``readable``: paths bound at the same place (read-write / read-only); a folder of the host's
    /dev/shm among them (the tensor pools a judge shares) is the only part of it the process sees. ``gpu``: the
    host's /dev (the GPU's device files, and its /dev/shm, where torch's CUDA IPC keeps reference counts); without
    it, /dev and /dev/shm are the sandbox's own, /dev/shm a tmpfs under the memory limit that ends with it.
    ``own_pids``: a PID namespace of its own (kept off where CUDA IPC with a process outside is needed).
    ``new_session``: a session of its own (no terminal to inject into; off where the caller signals the
    process group)."""
    limit, prlimit, current = memory_limit(gpu), shutil.which("prlimit"), mode()
    if current != "none":
        argv = [reachable(a) if a == sys.executable else a for a in argv]
    if limit is not None and prlimit:  # prlimit sets the limit, then execs argv: the same process tree
        argv = [prlimit, f"--data={limit}:{limit}", "--", *argv]
    if current == "none":
        return list(argv)
    bwrap, _ = _working_bwrap()
    # --cap-drop ALL: a grader run as root would otherwise keep root's capabilities inside (and could write
    # read-only files it can reach, or ptrace).
    args = [bwrap, "--die-with-parent", "--cap-drop", "ALL", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if not gpu:
        args.append("--unshare-ipc")
    if new_session:
        args.append("--new-session")
    if own_pids:
        args.append("--unshare-pid")
    for root in SYSTEM:
        args += ["--ro-bind-try", root, root]
    args += ["--ro-bind", "/dev/null", "/etc/shadow"] if os.path.exists("/etc/shadow") else []
    # Each tmpfs is memory the limit above does not count: it gets the limit as its size.
    sized = ["--size", str(limit)] if limit is not None else []
    args += ["--dev-bind", "/dev", "/dev"] if gpu else ["--dev", "/dev", *sized, "--tmpfs", "/dev/shm"]
    for tmp in ("/tmp", "/run", "/var"):
        args += [*sized, "--tmpfs", tmp]
    args += ["--proc", "/proc"]
    home = os.environ.get("HOME")
    if home and home not in ("/", "/tmp"):
        args += [*sized, "--tmpfs", home]  # a private, empty home: no dotfiles, keys or tokens of the grader's user
    for root in _python_roots():
        args += ["--ro-bind", root, root]
    args += ["--ro-bind", str(PACKAGE), str(PACKAGE)]
    for path in writable:
        args += ["--bind", str(path), str(path)]
    for path in readable:  # after the writable ones: a read-only folder inside a writable one stays read-only
        args += ["--ro-bind", str(path), str(path)]
    if cwd is not None:
        args += ["--chdir", str(cwd)]
    return args + ["--", *argv]
