"""A class graded on a Ray cluster: one Ray task per student, one GPU each; the driver is the only writer.

    make autograde-ray                    # = python -m autograder.tools.classroom autograde --runner ray

Optional: ``pip install -e ".[ray]"`` (Ray is not a default dependency). The driver connects to the cluster
named by ``RAY_ADDRESS`` (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on the others),
or, without one, starts a local Ray on this machine.

Each task reserves ``num_gpus=1`` (0 on a cluster with no GPU) and a share of the CPUs, and runs the same
grading unit as every other path, as a subprocess: ``python -m autograder.tools.grade_student --course C
--student S --results R``. It returns only the path of the unit's ``result.json`` (or ``None``); the driver
retries a unit that returned none, or whose task died (a lost node), once, and then records everything itself
(:mod:`autograder.tools.record`). Ray reserves counts of GPUs and CPUs, not particular cores; on a GPU node Ray
sets ``CUDA_VISIBLE_DEVICES`` to the GPU it reserved. The task does not rely on that GPU existing: where the
GPUs were only declared (``ray.init(num_gpus=2)`` on a CPU machine, as the tests do) the unit grades on the CPU.

The course folder, the results folder and the Python environment must be at the same paths on every node (a
shared filesystem), as with Slurm. The grading secret: the Ray workers of a local Ray inherit the driver's
environment; on a cluster started with ``ray start``, set ``COURSE_GRADING_SECRET_FILE`` to a 0600 file at the
same path on every node. The secret itself is never passed as a task argument (Ray keeps those in its object
store and shows them in its state API).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from autograder.core.protocol import SECRET_ENV
from autograder.tools.grade_student import RESULT, run_unit, unit_timeout

# Ray replaces builtins.print in the driver for its progress bars, and leaves it replaced after ray.shutdown():
# torch.compile then traces Ray's print in place of Python's (a graph break reported inside ray/).
os.environ.setdefault("RAY_TQDM_PATCH_PRINT", "0")


def _grade_unit(course: str, student: str, results: str, python: str, env: dict, threads: int) -> str | None:
    """Body of the Ray task (on a worker): the grading unit as a subprocess; the result's path, or None."""
    child = {**os.environ, **env}
    if threads >= 2:  # one core: leave the defaults (the judge and the worker it times would share it)
        child["TORCHINDUCTOR_COMPILE_THREADS"] = child["OMP_NUM_THREADS"] = str(threads)
    cmd = [python, "-m", "autograder.tools.grade_student", "--course", course, "--student", student,
           "--results", results]
    code, out, err = run_unit(cmd, env=child, timeout=unit_timeout(Path(course), student), name=student)
    result = Path(results) / student / RESULT
    print(f"[{student}] {out.strip()} {err.strip()[-500:] if code else ''}", flush=True)
    return str(result) if code == 0 and result.exists() else None


def resources(workers: int) -> tuple[float, float]:
    """(GPUs, CPUs) per task on the connected cluster: one GPU and an equal share of the CPUs per GPU; on a
    cluster without GPUs, no GPU and a ``workers``-th of the CPUs."""
    import ray

    total = ray.cluster_resources()
    gpus, cpus = total.get("GPU", 0), total.get("CPU", 1)
    if gpus >= 1:
        return 1, max(1, int(cpus // gpus))
    return 0, max(1, int(cpus // max(1, workers)))


def fan_out(course: Path, students: list[str], results: Path, workers: int = 1, retries: int = 1,
            address: str | None = None) -> dict[str, str | None]:
    """Grade ``students`` as Ray tasks (see the module docstring); return each student's result path or None.

    Uses the Ray already initialised in this process if any, else ``ray.init(address)`` (``RAY_ADDRESS``, or a
    new local Ray), shut down again at the end."""
    try:
        import ray
    except ImportError as err:
        raise RuntimeError('the Ray runner needs Ray: pip install -e ".[ray]"') from err
    started = not ray.is_initialized()
    if started:
        ray.init(address=address or os.environ.get("RAY_ADDRESS") or None)
    try:
        num_gpus, num_cpus = resources(workers)
        # What the unit needs of this (the driver's) environment on a worker: the course's settings, without
        # the secret itself (see the module docstring).
        env = {k: v for k, v in os.environ.items() if k.startswith("COURSE_") and k != SECRET_ENV}
        task = ray.remote(_grade_unit).options(num_gpus=num_gpus, num_cpus=num_cpus, max_retries=0,
                                               name="grade_student")
        python = os.path.abspath(sys.executable)

        def submit(student: str):
            return task.remote(str(course), student, str(results), python, env, int(num_cpus))

        print(f"Ray: {len(students)} students, {num_gpus:g} GPU and {num_cpus:g} CPUs per task on "
              f"{ray.cluster_resources()}", flush=True)
        pending = {submit(s): (s, 1, time.perf_counter()) for s in students}
        out: dict[str, str | None] = {}
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            student, attempt, start = pending.pop(ref)
            try:
                path, why = ray.get(ref), "no result.json"
            except Exception as err:  # the task or its node died (ray.exceptions.RayError)
                path, why = None, f"{type(err).__name__}: {str(err)[:300]}"
            if path is None and attempt <= retries:
                print(f"[{student}] attempt {attempt} ended without a result ({why}): again", flush=True)
                pending[submit(student)] = (student, attempt + 1, time.perf_counter())
                continue
            print(f"[{student}] {'done' if path else 'FAILED: ' + why} ({time.perf_counter() - start:.1f} s)",
                  flush=True)
            out[student] = path
        return out
    finally:
        if started:
            ray.shutdown()
