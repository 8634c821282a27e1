"""Grade a submission's namespace against an exercise spec: one protocol for self-study, nbgrader and CI."""

from __future__ import annotations

import json
import platform
import time
import traceback
import warnings
from dataclasses import asdict, dataclass, field

import torch

from autograder.correctness import CheckFailed, grading_secret
from autograder.exercises import get_exercise
from autograder.exercises.spec import Exercise
from autograder.timing import _perf_counter

PASSED, FAILED, SKIPPED, INCONCLUSIVE = "passed", "failed", "skipped", "inconclusive"
# Inductor's warnings that say nothing about the learner's code, shown in graded cells on a GPU: the first
# advises TF32, which the grader would reject (global settings must stay as they are).
QUIET_WARNINGS = (r"TensorFloat32 tensor cores for float32 matrix multiplication available",
                  r"\s*Online softmax is disabled on the fly")


class NeedsGPU(Exception):
    """The check's mechanism only exists on a CUDA GPU."""


class Inconclusive(Exception):
    """The measurement stayed too noisy to decide, after re-measuring."""

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message)
        self.details = details or {}


@dataclass
class CheckResult:
    id: str
    title: str
    kind: str
    points: float
    max_points: int
    status: str
    message: str
    hint: str = ""
    details: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def line(self) -> str:
        mark = {PASSED: "PASS", FAILED: "FAIL", SKIPPED: "SKIP", INCONCLUSIVE: "????"}[self.status]
        return f"[{mark}] {self.id} ({self.points:g}/{self.max_points}): {self.message.splitlines()[0]}"


@dataclass
class Report:
    exercise: str
    results: list[CheckResult]
    environment: dict
    seconds: float = 0.0
    skip_allowed: bool = False
    error: str = ""  # the submission could not be graded at all (did not load, timed out, ...)
    # nbgrader's hidden tests, graded in the same isolated process on a second secret stream (autograde only);
    # they score through their test cells, not through ``points``
    hidden: list[CheckResult] = field(default_factory=list)

    def ok(self) -> bool:
        """Every check passed (a skip counts only where skipping was explicitly allowed)."""
        allowed = {PASSED, SKIPPED} if self.skip_allowed else {PASSED}
        return bool(self.results) and all(r.status in allowed for r in self.results)

    @property
    def points(self) -> float:
        return sum(r.points for r in self.results)

    @property
    def max_points(self) -> int:
        return sum(r.max_points for r in self.results)

    def result(self, check_id: str) -> CheckResult:
        for r in self.results:
            if r.id == check_id:
                return r
        raise KeyError(check_id)

    def hidden_result(self, check_id: str) -> CheckResult:
        for r in self.hidden:
            if r.id == check_id:
                return r
        raise KeyError(f"the grading did not run the hidden test of {check_id}")

    def lines(self) -> list[str]:
        head = f"{self.exercise}: {self.points:g}/{self.max_points} points in {self.seconds:.1f} s"
        return [head] + [r.line() for r in self.results]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, default=str)

    @classmethod
    def from_json(cls, text: str) -> Report:
        data = json.loads(text)
        data["results"] = [CheckResult(**r) for r in data["results"]]
        data["hidden"] = [CheckResult(**r) for r in data.get("hidden", [])]
        return cls(**data)


def environment() -> dict:
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {"torch": torch.__version__, "python": platform.python_version(), "gpu": gpu}


# ---- global torch state: a submission must not change it (slowing the baseline, TF32, ...) ----

def fingerprint() -> dict:
    """The global settings that change how fast or how precisely the baseline runs."""
    state = {
        "num_threads": torch.get_num_threads(),
        "num_interop_threads": torch.get_num_interop_threads(),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cuda.matmul.allow_fp16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "cuda.matmul.allow_bf16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
        "cudnn.enabled": torch.backends.cudnn.enabled,
        "cudnn.benchmark": torch.backends.cudnn.benchmark,
        "cudnn.deterministic": torch.backends.cudnn.deterministic,
        "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "grad_enabled": torch.is_grad_enabled(),
        "default_dtype": str(torch.get_default_dtype()),
    }
    try:
        from torch._dynamo.eval_frame import _stance
        state["compiler_stance"] = _stance.stance
    except ImportError:  # torch < 2.6 has no stance
        pass
    return state


def _trusted_objects() -> dict:
    """Functions the protocol relies on; a submission that replaces any of them is cheating."""
    return {
        "time.perf_counter": time.perf_counter, "torch.cuda.synchronize": torch.cuda.synchronize,
        "torch.cuda.Event.elapsed_time": torch.cuda.Event.elapsed_time, "torch.allclose": torch.allclose,
        "torch.isclose": torch.isclose, "torch.equal": torch.equal, "torch.isfinite": torch.isfinite,
        "torch.testing.assert_close": torch.testing.assert_close, "torch.Tensor.clone": torch.Tensor.clone,
        "torch.Tensor.detach": torch.Tensor.detach, "torch.Tensor.double": torch.Tensor.double,
        "torch.Tensor.sum": torch.Tensor.sum, "torch.Tensor.__eq__": torch.Tensor.__eq__,
    }


_TRUSTED = _trusted_objects()  # bound when the grader is imported, before student code runs


def patched_functions() -> list[str]:
    now = _trusted_objects()
    return [name for name, obj in _TRUSTED.items() if now[name] is not obj]


def submission_threads() -> list[str]:
    """Live threads running code the submission defined (background work, GPU load on the side)."""
    import threading

    from autograder.submission import SUBMISSION_FILE

    found = []
    for thread in threading.enumerate():
        target = getattr(thread, "_target", None)
        code = getattr(target, "__code__", None)
        if code is not None and code.co_filename.startswith(SUBMISSION_FILE):
            found.append(thread.name)
    return found


def changed_settings(before: dict, after: dict) -> list[str]:
    return [f"{k}: {before[k]!r} -> {after.get(k)!r}" for k in before if after.get(k) != before[k]]


# ---- the grading context and the loop over checks ----

@dataclass
class GradeContext:
    exercise: Exercise
    device: torch.device
    secret: str
    allow_skip: bool = False
    state_before: dict = field(default_factory=fingerprint)
    cpu_gate: float | None = None  # tests only: exercise the timed-output checks on a CPU
    events: object = None  # CompileEvents of the whole grading so far (for the diagnosis)

    @property
    def cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def size(self) -> str:
        return "full" if self.cuda else "smoke"

    def gate(self) -> float:
        """The speed gate on this device; raises NeedsGPU where the exercise has no CPU gate."""
        if self.cuda:
            return self.exercise.speed_gate
        if self.cpu_gate is not None:
            return self.cpu_gate
        if self.exercise.cpu_gate is None:
            raise NeedsGPU(f"the speed check needs a CUDA GPU (this machine has none); "
                           f"on a GPU it requires {self.exercise.speed_gate:g}x over {self.exercise.baseline}")
        return self.exercise.cpu_gate

    def assert_state_unchanged(self) -> None:
        patched = patched_functions()
        if patched:
            raise CheckFailed(f"your code replaced functions the grader relies on: {', '.join(patched)}",
                              "do not patch timers, synchronize or comparison functions")
        threads = submission_threads()
        if threads:
            raise CheckFailed(f"your code left background threads running ({', '.join(threads)}); their work is "
                              "invisible to the checks and competes with the baseline",
                              "compute each result inside the call that returns it")
        changes = changed_settings(self.state_before, fingerprint())
        if changes:
            raise CheckFailed(
                "your code changed global torch settings, which would change the baseline's speed or the "
                "precision of the comparison: " + "; ".join(changes),
                "leave thread counts, matmul precision (TF32), cuDNN flags, grad mode and the compiler stance "
                "as they are")


def default_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def grade_namespace(exercise_id: str, namespace: dict, *, device: torch.device | str | None = None,
                    allow_skip: bool = False, secret: str | None = None, state_before: dict | None = None,
                    only: list[str] | None = None, progress=None, cpu_gate: float | None = None) -> Report:
    """Run every check of ``exercise_id`` on the functions in ``namespace``; never raises for bad code."""
    exercise = get_exercise(exercise_id)
    ctx = GradeContext(exercise, torch.device(device) if device else default_device(),
                       secret or grading_secret(), allow_skip, cpu_gate=cpu_gate)
    if state_before is not None:
        ctx.state_before = state_before
    start = _perf_counter()
    results = []
    checks = [c for c in exercise.checks if only is None or c.id in only]
    from autograder.structure import capture_compile_events

    with capture_compile_events() as ctx.events, warnings.catch_warnings():
        for text in QUIET_WARNINGS:
            warnings.filterwarnings("ignore", message=text)
        for i, check in enumerate(checks):
            if progress:
                progress(i, len(checks), check.title)
            results.append(run_check(check, namespace, ctx))
    if progress:
        progress(len(checks), len(checks), "done")
    return Report(exercise.id, results, environment(), _perf_counter() - start, allow_skip)


def run_check(check, namespace: dict, ctx: GradeContext) -> CheckResult:
    def result(status, message, hint="", details=None, points=0.0):
        return CheckResult(check.id, check.title, check.kind, points, check.points, status, message, hint,
                           details or {})

    missing = [name for name in check.needs if not callable(namespace.get(name))]
    if missing:
        errors = namespace.get("__load_errors__") or []
        return result(FAILED, f"no function named {', '.join(missing)} was defined"
                      + (f"; while your notebook ran, {'; '.join(errors)}" if errors else ""),
                      "define it with exactly this name (the checks look it up by name), and make every cell run")
    start = _perf_counter()
    try:
        ctx.assert_state_unchanged()  # before too: what the submission did while loading counts
        outcome = check.run(namespace, ctx)
        message, details = outcome if isinstance(outcome, tuple) else (outcome, {})
        details["check_s"] = _perf_counter() - start
        ctx.assert_state_unchanged()
        return result(PASSED, message, details=details, points=float(check.points))
    except CheckFailed as err:
        return result(FAILED, err.reason, err.hint, getattr(err, "details", {}))
    except NeedsGPU as err:
        status = SKIPPED if ctx.allow_skip else FAILED
        return result(status, str(err), "run the check on a machine with a CUDA GPU")
    except Inconclusive as err:
        return result(INCONCLUSIVE, str(err), "re-run on a quieter machine; nothing else should use the GPU",
                      err.details)
    except torch.cuda.OutOfMemoryError as err:
        return result(FAILED, f"ran out of GPU memory: {str(err).splitlines()[0]}",
                      "free what you keep alive (caches, references to outputs)")
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as err:  # SystemExit too: a submission's sys.exit() is its failure, not the grader's
        tb = traceback.extract_tb(err.__traceback__)
        where = next((f"{f.filename}:{f.lineno}" for f in reversed(tb) if "autograder" not in f.filename), "")
        return result(FAILED, f"your code raised {type(err).__name__}: {err}" + (f" (at {where})" if where else ""),
                      "run the function on a small input in a cell of its own and read the traceback")
