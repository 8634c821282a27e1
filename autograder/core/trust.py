"""Who established each fact a check rests on, and every request the judge makes of the worker.

The rule: **a point is earned only by a fact the judge established itself** — its own computation on its own
memory (``JUDGE``), its own clock around named requests (``CLOCK``), or an answer the worker returned that the
judge compared with a truth it computed itself (``ANSWER``: an output, a benchmark's figure, a recorder's counts,
an exception's type for an input that must be refused). Everything that runs in the worker, the grader's own
helpers included, is the submission's word: a counter, a kept output read back, a source text, a premise (a reset,
a slow first call). Those are ``WORKER`` facts: they may be shown on the card as diagnostics, but they never decide.

Two declarations enforce it:

* each :class:`~autograder.core.protocol.Check` names the facts that decide it (``decided_by``: judge, clock or
  answer only, checked when the check is made) and the worker facts it shows (``diagnostics``);
* :data:`REQUESTS` lists every request the worker serves, with its role. A check's verdict (``Check.run``) may use
  transport and lifecycle requests only; observations run afterwards, in ``Check.diagnose``, whose findings are
  notes on the result. The judge's session keeps a ledger of every request (its name and its time on the judge's
  clock), and the grading fails the *grader*, not the student, when a verdict used an observation or a request the
  registry does not know (``audit``). ``tests/test_trust.py`` scans the source for every request named in code.

docs/THREAT_MODEL.md's tables are written from these declarations (``python -m autograder.tools.trust_tables``)
and a test keeps them equal.
"""

from __future__ import annotations

from dataclasses import dataclass

# ---- facts ----
JUDGE = "judge"  # the judge's own computation on its own memory (inputs, references, the OS's randomness)
CLOCK = "clock"  # the judge's clock around requests, every request inside the window charged
ANSWER = "answer"  # a value from the worker, compared with a truth the judge computed itself
WORKER = "worker"  # what the worker says about itself: never decides
DECIDING = (JUDGE, CLOCK, ANSWER)


@dataclass(frozen=True)
class Fact:
    what: str  # in words, as the report and THREAT_MODEL show it
    source: str  # JUDGE, CLOCK, ANSWER or WORKER
    requests: tuple[str, ...] = ()  # the registry's names of the requests the fact rests on (or reads)

    def __post_init__(self):
        if self.source not in DECIDING + (WORKER,):
            raise ValueError(f"unknown source {self.source!r} for fact {self.what!r}")
        unknown = [r for r in self.requests if r not in REQUESTS]
        if unknown:
            raise ValueError(f"fact {self.what!r} names requests the registry does not know: {unknown}")


def judge(what: str, *requests: str) -> Fact:
    return Fact(what, JUDGE, requests)


def clock(what: str, *requests: str) -> Fact:
    return Fact(what, CLOCK, requests)


def answer(what: str, *requests: str) -> Fact:
    return Fact(what, ANSWER, requests)


def worker(what: str, *requests: str) -> Fact:
    return Fact(what, WORKER, requests)


# ---- requests ----
TRANSPORT = "transport"  # moves inputs, outputs or answers the judge verifies; builds what it verifies the effects of
LIFECYCLE = "lifecycle"  # starts, maps memory, resets, limits, ends: nothing of it decides (a limiter can only fail)
OBSERVATION = "observation"  # a fact about the worker's insides: diagnostics only (Check.diagnose)
ROLES = (TRANSPORT, LIFECYCLE, OBSERVATION)


@dataclass(frozen=True)
class Request:
    name: str  # an op ("block"), "entry"/"ref" (the submission's own callables) or a course function's path
    runs: str  # what the worker runs for it
    role: str

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"request {self.name}: unknown role {self.role!r}")

    @property
    def clock(self) -> str:
        """Where the request stands on the judge's clock. Every request is timed there (the session's ledger);
        ``timed``: inside a measured block; ``charged``: counted in every budget window it falls in (03's compile
        budget, 05's warm-up and unseen requests); ``after``: only after a verdict (an observation, for notes)."""
        if self.role == OBSERVATION:
            return "after"
        return "timed" if self.name in ("block", "collect", "event") else "charged"


def _course(path: str) -> str:
    return path if path.startswith("autograder.") else f"autograder.{path}"


_REQUESTS = [
    # ---- ops (core/worker.py, Worker.op_*) ----
    Request("hello", "reports the worker's pid and torch", LIFECYCLE),
    Request("load", "loads the submission's cells; its duration is on the judge's clock (load_s)", LIFECYCLE),
    Request("pool", "maps one of the judge's shared pools", LIFECYCLE),
    Request("unpool", "forgets pools", LIFECYCLE),
    Request("reset", "torch._dynamo.reset()", LIFECYCLE),
    Request("invoke", "calls a function on slots, copies its output into a slot", TRANSPORT),
    Request("block", "a timed block of calls (core/blocks.run_block), outputs into slots", TRANSPORT),
    Request("collect", "a kept block's outputs into slots dealt after the calls", TRANSPORT),
    Request("events", "the compile counters captured since loading", OBSERVATION),
    Request("bye", "ends serving", LIFECYCLE),
    Request("progress", "a live grading's progress bar (self-study)", LIFECYCLE),
    Request("event", "the worker asks the judge mid-request (a workload that waits on the judge)", TRANSPORT),
    # the submission's own callables: their answers are what is graded
    Request("entry", "a function the submission defined, by name", TRANSPORT),
    Request("ref", "an object the worker keeps for the judge (a step, a predictor)", TRANSPORT),
    # ---- course functions (Fn), run in the worker ----
    Request(_course("core.blocks:same"), "a kept output, read back into a slot", OBSERVATION),
    Request(_course("core.blocks:copysign_chain"), "the next input from the previous output (inside a block)",
            TRANSPORT),
    Request(_course("core.profiling:kernel_seconds"), "kernel time of one call under the profiler", OBSERVATION),
    Request(_course("exercises.ex01_eager_mode.workload:paced_workload"),
            "a workload each call of which waits on the judge (a GPU stream on a flag the judge releases; "
            "on a CPU, a question the judge answers)", TRANSPORT),
    Request(_course("exercises.ex01_eager_mode.workload:run_benchmark"), "benchmark(workload) as a number",
            TRANSPORT),
    Request(_course("exercises.ex02_compile_pipeline.workload:hunt"),
            "compiles a hidden function with the learner's NanHunter, calls it once; what the hunter found",
            TRANSPORT),
    Request(_course("exercises.ex02_compile_pipeline.workload:build_model"), "the model from the judge's seed",
            TRANSPORT),
    Request(_course("exercises.ex02_compile_pipeline.workload:make_optimizer"), "AdamW on the model", TRANSPORT),
    Request(_course("exercises.ex02_compile_pipeline.workload:make_sgd"), "plain SGD on the model (a step's update "
            "is its gradient)", TRANSPORT),
    Request(_course("exercises.ex02_compile_pipeline.workload:stepped"), "step(x, y), then the weights into a slot",
            TRANSPORT),
    Request(_course("exercises.ex02_compile_pipeline.workload:copy_params"), "the weights into a slot (a block's "
            "finish)", TRANSPORT),
    Request(_course("exercises.ex02_compile_pipeline.workload:step_events"), "graph and break counts of two steps",
            OBSERVATION),
    Request(_course("exercises.ex03_compile_modes.workload:build_model"), "the model from the judge's seed",
            TRANSPORT),
    Request(_course("exercises.ex04_graph_breaks.workload:build_stack"), "a stack of FixedBlock, BrokenBlock's "
            "weights", TRANSPORT),
    Request(_course("exercises.ex04_graph_breaks.workload:compile_model"), "torch.compile(model), the course's "
            "configuration", TRANSPORT),
    Request(_course("exercises.ex04_graph_breaks.workload:count_graphs"), "fullgraph=True, then graphs, breaks and "
            "recompiles of the default compile", OBSERVATION),
    Request(_course("exercises.ex05_dynamic_shapes.workload:build_model"), "the model from the judge's seed",
            TRANSPORT),
    Request(_course("exercises.ex05_dynamic_shapes.workload:install_graph_budget"), "stops a server that compiles "
            "without end (it can only fail one)", LIFECYCLE),
    Request(_course("exercises.ex05_dynamic_shapes.workload:requests_of"), "model.requests", OBSERVATION),
    Request(_course("exercises.ex05_dynamic_shapes.workload:overlap_chain"), "the next request from the previous "
            "output (inside a block)", TRANSPORT),
    Request(_course("exercises.ex06_cuda_graphs.workload:build_model"), "the model from the judge's seed",
            TRANSPORT),
    Request(_course("exercises.ex06_cuda_graphs.workload:capture_in_fresh_process"), "in a fresh process running "
            "only the source the judge shipped: the model, then make_graphed_step", TRANSPORT),
    Request(_course("exercises.ex06_cuda_graphs.workload:kept_step"), "the step made there", TRANSPORT),
    Request(_course("exercises.ex06_cuda_graphs.workload:fresh_counts"), "CUDA-graph captures and torch.compile "
            "graphs in the fresh process", OBSERVATION),
]
REQUESTS: dict[str, Request] = {r.name: r for r in _REQUESTS}


def request_name(op: str, fields: dict) -> str:
    """The registry's name of a request: its op, or for ``invoke`` what it calls (a course function's path,
    ``entry`` or ``ref``)."""
    if op != "invoke":
        return op
    from autograder.core.wire import Entry, Fn, Ref

    fn = fields.get("fn")
    if isinstance(fn, Fn):
        return fn.path
    if isinstance(fn, Entry):
        return "entry"
    if isinstance(fn, Ref):
        return "ref"
    return "invoke"


class GraderError(RuntimeError):
    """The grader broke its own rule (a verdict that used an observation, a request nobody declared): the grader's
    fault, never the student's."""


def audit(check, used: list[str]) -> None:
    """Raise GraderError if the verdict of ``check`` used a request the registry does not know or an observation
    (those belong in Check.diagnose)."""
    unknown = sorted({u for u in used if u not in REQUESTS})
    if unknown:
        raise GraderError(f"check {check.id} sent requests the registry does not declare: {unknown}")
    observed = sorted({u for u in used if REQUESTS[u].role == OBSERVATION})
    if observed:
        raise GraderError(f"the verdict of check {check.id} used observations of the worker ({observed}); they may "
                          "only explain it (Check.diagnose)")


def label(check) -> str:
    """What the report shows next to a result: ``verified``, with the worker's diagnostics named."""
    shown = [f.what for f in check.diagnostics]
    return "verified" + (f"; not graded, your process's word: {'; '.join(shown)}" if shown else "")
