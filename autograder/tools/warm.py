"""Fill the workers' compile cache with the course's own compiles, once per machine, torch and grader version:

    python -m autograder.tools.warm [--exercise ID ...] [--force] [--workers N]   # `make autograde` runs it first

Every sandboxed grading starts from a copy of the workers' cache (:func:`autograder.core.grading.worker_cache`) and
what it writes there is thrown away with its scratch, so a class whose cache is empty pays every first compile in
every unit (02's first step compile: 62 s of a 121 s grading on an H100; 40 s in all with the cache warm). This
grades each exercise's reference solution once, unsandboxed — the course's own code, nothing of a student's — so
its compiles land in that cache, then writes a marker (torch version, device, the grader's digest); a later run
with the same ones does nothing. A student's compile finds the entries its own code shares with the reference
(Inductor's FX graph and kernel caches are keyed by what is compiled), never anything another student wrote.
With ``--workers N`` on a host with several GPUs, N references are graded at once, each on its own GPU and share of
the cores (tools/slots.py), into the one cache (Inductor and Triton write their entries atomically): on 4 x H200 the
six one after another took 252 s of a class's 24 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from autograder.core.grading import package_digest, worker_cache
from autograder.core.protocol import SECRET_ENV
from autograder.exercises import EXERCISES
from autograder.tools.paths import SOLUTIONS
from autograder.tools.slots import gpu_count, run_in_slots, slots

MARKER = "warmed.json"
# the longest first, so that several GPUs end together (02's training step compiles longest)
LONGEST_FIRST = ("02_compile_pipeline", "05_dynamic_shapes", "03_compile_modes", "04_graph_breaks", "01_eager_mode",
                 "06_cuda_graphs")


def stamp() -> dict:
    import torch

    return {"torch": torch.__version__, "grader": package_digest(),
            "device": torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu"}


def warm(exercises: list[str] | None = None, force: bool = False, workers: int = 1) -> dict:
    """Grade the references of ``exercises`` (default: all) so that their compiles fill the workers' cache, up to
    ``workers`` at once where there are that many GPUs (one on a CPU); returns what was done and how long each
    took."""
    marker = worker_cache() / MARKER
    wanted = sorted(exercises or EXERCISES)
    now = {**stamp(), "exercises": wanted}
    if not force and marker.is_file():
        try:
            if json.loads(marker.read_text()) == now:
                return {"warm": "already", **now}
        except ValueError:
            pass
    env = {k: v for k, v in os.environ.items() if not k.startswith(SECRET_ENV)}
    env["COURSE_SANDBOX"] = "none"  # the course's own code: its worker writes the shared cache itself
    gpus = gpu_count()
    at_once = max(1, min(workers, gpus, len(wanted))) if gpus else 1

    def grade(exercise: str, slot: dict):
        start = time.perf_counter()
        pin = (lambda: os.sched_setaffinity(0, slot["cores"])) if slot["cores"] else None
        done = subprocess.run([sys.executable, "-m", "autograder", "grade", exercise,
                               str(SOLUTIONS / exercise / f"{exercise}.ipynb"), "--allow-skip"],
                              env={**env, **slot["env"]}, capture_output=True, text=True, preexec_fn=pin)
        return exercise, round(time.perf_counter() - start, 1), done

    order = sorted(wanted, key=lambda e: LONGEST_FIRST.index(e) if e in LONGEST_FIRST else len(LONGEST_FIRST))
    # one at a time: unpinned, as before there were slots
    layout = slots(at_once, gpus=gpus) if at_once > 1 else [{"cores": None, "env": {}}]
    graded = run_in_slots(layout, order, grade)
    seconds = {}
    for exercise, took, done in graded:
        seconds[exercise] = took
        # on a CPU exercise 06 verifies nothing (every check needs a GPU) and compiles nothing: nothing to warm
        if done.returncode != 0 and "nothing was verified on this machine" not in done.stdout:
            raise RuntimeError(f"warming the compile cache: the reference of {exercise} did not pass "
                               f"(exit {done.returncode}):\n{(done.stdout + done.stderr)[-2000:]}")
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(json.dumps(now, indent=1))
    return {"warm": "done", "seconds": seconds, "at_once": at_once, **now}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.tools.warm", description=__doc__.splitlines()[0])
    parser.add_argument("--exercise", action="append", choices=sorted(EXERCISES))
    parser.add_argument("--force", action="store_true", help="grade the references again even if the marker matches")
    parser.add_argument("--workers", type=int, default=1, help="references graded at once, one GPU each")
    args = parser.parse_args(argv)
    print(json.dumps(warm(args.exercise, args.force, args.workers), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
