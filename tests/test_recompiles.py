"""Lesson 5's demos and exercise 05's stream: what they claim, checked on the CPU."""

import time
from types import SimpleNamespace

import pytest
import torch
from conftest import SPIN, grade_with_override, graded_until_told

from autograder.core.correctness import seed_for
from autograder.core.protocol import CheckFailed
from autograder.core.submission import SubmissionError, load_namespace, static_closure
from autograder.course import recompiles
from autograder.course.models import make_encoder
from autograder.exercises.ex05_dynamic_shapes import spec as ex05
from autograder.exercises.ex05_dynamic_shapes import workload as ex05_workload


def test_a_module_int_attribute_recompiles_every_call_and_a_shape_only_once():
    rows = {r.what: r for r in recompiles.triggers(torch.device("cpu"))}
    assert rows["the same call again"].graphs == 1
    assert rows["a new shape each call (64, 128, 256)"].graphs == 2  # automatic dynamic
    assert rows["a module's int attribute (self.calls += 1)"].graphs == 3
    assert "self.calls" in rows["a module's int attribute (self.calls += 1)"].guard
    assert rows["torch.no_grad() around the second call"].recompiles == 1


def test_guards_show_the_int_baked_in_and_the_tensor_size():
    text = recompiles.guards(lambda x, n: x.sin() * n, torch.randn(8), 2, max_lines=200)
    assert "== 2" in text and "size=[8]" in text


def test_a_stream_past_the_recompile_limit_records_where_dynamo_gave_up():
    model = make_encoder(16, 2, 1, 32)
    run = recompiles.run_stream("naive", torch.compile(model), [torch.randn(1, t, 16) for t in range(4, 16)], "cpu")
    assert run.graphs == 8 and run.compiled_at == list(range(8))
    assert run.limit_hit_at == 8 and "recompile_limit" in run.limit_message


def test_bucket_plan_counts_shapes_and_padding():
    assert recompiles.bucket_plan([3, 5, 8], 4, 8) == (2, 1 - 16 / 20)
    assert recompiles.bucket_plan([3, 5, 8], 1, 8) == (3, 0.0)


def test_masked_pooling_of_a_padded_batch_equals_the_exact_one():
    x = torch.randn(1, 13, 8)
    padded = torch.nn.functional.pad(x, (0, 0, 0, 3))
    valid = torch.arange(16)[None] < 13
    torch.testing.assert_close(recompiles.pooled_masked(padded, valid), recompiles.pooled(x))
    assert not torch.allclose(recompiles.pooled(padded), recompiles.pooled(x))


def test_unseen_lengths_are_new_distinct_and_half_of_them_longer_than_any_warm_up_request():
    for secret in ("some instructor secret", "another", "a third"):
        class Ctx:
            size, device = "full", torch.device("cpu")

            @staticmethod
            def seed(purpose, index=0, secret=secret):
                return seed_for("05_dynamic_shapes", purpose, index, secret)
        warm, unseen = ex05.stream_lengths(Ctx)
        assert len(unseen) == len(set(unseen)) == 16 and not set(unseen) & set(warm)
        assert sum(t > max(warm) for t in unseen) >= 8 and ex05_workload.CONFIGS["full"][4] in unseen
        assert sum(t <= 95 for t in warm) >= len(warm) // 2  # the warm-up is traffic: mostly short requests


def test_the_timed_traffic_has_the_distributions_mix_in_every_cycle():
    """One length from each 64th of the distribution: every cycle holds the same share of long requests, so the
    speedup does not depend on which requests a secret happened to draw."""
    gen = torch.Generator().manual_seed(0)
    cycles = [sorted(ex05_workload.stratified("full", 64, gen)) for _ in range(20)]
    assert all(sum(t > 300 for t in c) in (1, 2, 3) and c[31] <= 60 for c in cycles)
    history = ex05_workload.traffic("full", ex05_workload.HISTORY, gen)
    assert 40 <= sorted(history)[1000] <= 56 and max(history) <= 2048 and min(history) >= 8


def test_the_full_size_keeps_max_len_2048_on_a_gpu_without_the_memory_for_8192(monkeypatch):
    """max_len 8192's attention scores (4.3 GB each) would not fit a T4, a consumer card or a 40 GB A100 beside the
    grader's own model: there the full size is the one graded before, max_len 2048."""
    gib = 2**30
    for total, size in ((16 * gib, "full-2048"), (40 * gib, "full-2048"), (80 * gib, "full"), (141 * gib, "full")):
        monkeypatch.setattr(torch.cuda, "get_device_properties", lambda device, total=total: SimpleNamespace(
            total_memory=total))
        assert ex05_workload.size_for("full", "cuda:0") == size
        assert ex05_workload.size_for("smoke", "cuda:0") == "smoke"
    assert ex05_workload.size_for("full", "cpu") == "full"
    assert ex05_workload.CONFIGS["full"][4] == 8192 and ex05_workload.CONFIGS["full-2048"][4] == 2048
    assert ex05_workload.CONFIGS["full"][:4] == ex05_workload.CONFIGS["full-2048"][:4]  # the same model otherwise


@pytest.mark.parametrize("stall, status", [("time.sleep(2.0)", "inconclusive"), ("_spin(2.0)", "failed")],
                         ids=["waits", "computes"])
def test_a_slow_unseen_request_is_a_compile_only_if_the_submissions_processes_spent_cpu_on_it(tmp_path, stall, status,
                                                                                                monkeypatch):
    """A red team's eager server, graded on a 2-core machine at load 5, was failed for one 348 ms request as
    "something compiled". A compile is CPU work of the submission's processes (stopped between requests, so the
    operating system's count covers the request alone): a slow request without it is inconclusive, not failed.
    The limit here is twice the base, not twenty times (a loaded machine's slow steady latency raises it)."""
    monkeypatch.setattr(ex05, "SPIKE_FACTOR", 2.0)
    override = tmp_path / "stall.py"
    override.write_text(f"""import time
_calls = [0]
def _spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
def make_server(model, traffic):
    def handle(x):
        _calls[0] += 1
        if _calls[0] == 15:  # smoke size: 12 warm-up requests, then the unseen ones
            {stall}
        return model(x)
    return handle
""")
    result = grade_with_override("05_dynamic_shapes", override, ["few_graphs"]).result("few_graphs")
    assert result.status == status, result.line()
    assert ("not a compile" in result.message) == (status == "inconclusive"), result.message
    if status == "failed":
        assert "unseen request 3" in result.message and "something compiled" in result.message



def test_a_slow_warm_up_stream_is_stopped_at_the_compile_budget(tmp_path, monkeypatch):
    """constant_latency's 6 s requests took a GPU grading past its 150 s limit inside the warm-up stream, before
    the budget was read (a timeout, not the verdict): each warm-up request is limited to the budget's rest, so the
    stream stops at the budget, with the budget's message. Here a 4 s budget and 1 s requests."""
    monkeypatch.setattr(ex05, "COMPILE_BUDGET_S", 4.0)
    override = tmp_path / "slow.py"
    override.write_text("""import time
def make_server(model, traffic):
    def handle(x):
        time.sleep(1.0)
        return model(x)
    return handle
""")
    start = time.perf_counter()
    result = grade_with_override("05_dynamic_shapes", override, ["few_graphs"]).result("few_graphs")
    assert result.status == "failed", result.line()
    assert "over the compile budget of 4 s" in result.message and "warm-up request" in result.message, result.message
    assert time.perf_counter() - start < 60, "the stream went on past the budget"


def test_a_paced_unseen_request_is_stopped_with_a_verdict(tmp_path, monkeypatch):
    """constant_latency paced every request to 6 s: its warm-up stream fit the budget on an H200, then its 16 unseen
    requests ran the grading past its time limit before any verdict. An unseen request is stopped at its limit
    and the check fails saying so. Here a limit 1 s past the spike and unseen requests that sleep 3 s."""
    monkeypatch.setattr(ex05, "UNSEEN_LIMIT_S", 1.0)
    override = tmp_path / "paced.py"
    override.write_text("""import time
_calls = [0]
def make_server(model, traffic):
    def handle(x):
        _calls[0] += 1
        if _calls[0] > 12:  # smoke size: 12 warm-up requests, then the unseen ones
            time.sleep(3.0)
        return model(x)
    return handle
""")
    start = time.perf_counter()
    result = grade_with_override("05_dynamic_shapes", override, ["few_graphs"]).result("few_graphs")
    assert result.status == "failed", result.line()
    assert "unseen request 1" in result.message and "was stopped after 1." in result.message, result.message
    assert time.perf_counter() - start < 60, "the unseen requests went on past their limit"


def test_every_checks_server_must_fit_the_compile_budget(tmp_path, monkeypatch):
    """A red team's server was cheap in few_graphs, where the budget was read, and spent 125 s in make_server in the
    later checks (a compile past the budget, for the speed check's points): every check's make_server is stopped
    at the budget. Here a 30 s budget and an eager server whose make_server sleeps 31 s from its second call on
    (few_graphs charges loading the submission too: on this 2-core machine under load that alone came to 12 s)."""
    monkeypatch.setattr(ex05, "COMPILE_BUDGET_S", 30.0)
    override = tmp_path / "later_heavy.py"
    override.write_text("""import time
_made = [0]
def make_server(model, traffic):  # an eager server (nothing to compile), then a slow one
    _made[0] += 1
    if _made[0] > 1:
        time.sleep(31.0)
    return model
""")
    # an eager request can wait for a core on a loaded machine (inconclusive): graded again as the message says
    report = graded_until_told(lambda: grade_with_override("05_dynamic_shapes", override, ["few_graphs",
                                                                                           "outputs_match"]))
    assert report.result("few_graphs").status == "passed", report.result("few_graphs").line()
    result = report.result("outputs_match")
    assert result.status == "failed" and "over the compile budget of 30 s" in result.message, result.line()
    assert "more than 30 s: make_server was stopped there" in result.message, result.message


def test_a_load_that_used_the_whole_budget_is_refused_before_make_server_with_what_it_took():
    """few_graphs charges loading the submission to the compile budget; a load that used all of it (within the load's
    own stop, which reads the same budget) is refused before make_server runs, and the message says what was spent
    (it read "took more than -1 s (make_server 0 s)")."""
    with pytest.raises(CheckFailed) as refused:
        ex05._server(None, charged_s=ex05.COMPILE_BUDGET_S + 0.4, what="loading your code, make_server and ...")
    message = refused.value.reason
    assert f"took {ex05.COMPILE_BUDGET_S + 0.4:.1f} s before make_server ran (loading your code)" in message, message


BESIDE = {
    "nothing beside": "",
    "a child computes beside": """
    if os.fork() == 0:  # stopped with the worker between requests, killed with it at the end
        while True:
            _spin(1.0)""",
    # children the kernel reaps itself take their CPU time out of every count in /proc (their parent's included):
    # only the worker's control group (cgroups.CpuGroup) still counts them
    "children the kernel reaps compute beside": """
    if os.fork() == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        while True:
            if os.fork() == 0:
                _spin(0.2)
                os._exit(0)
            time.sleep(0.25)""",
}


def _beside_server(tmp_path, setup: str, threads: int | None = None):
    """Exercise 05's few_graphs for a server whose handle spins 0.1 s in each request, after ``setup`` (BESIDE) ran
    in make_server."""
    override = tmp_path / "beside.py"
    override.write_text(f"""import os, signal, time
{SPIN}
def make_server(model, traffic):{setup}
    def handle(x):
        _spin(0.1)
        return model(x)
    return handle
""")
    return grade_with_override("05_dynamic_shapes", override, ["few_graphs"], threads=threads).result("few_graphs")


@pytest.mark.parametrize("beside", list(BESIDE))
def test_cpu_spent_beside_the_unseen_requests_is_a_compile_even_when_no_request_is_slow(tmp_path, beside,
                                                                                        monkeypatch):
    """A red team's relay forked a child that compiled one graph per exact length beside the requests, none of them
    slow. What the operating system counts for the submission's processes beyond one core busy through each
    request is work beside serving: a compile, whatever its process or thread. Here forked processes spin; the
    server's own thread spins in each request, so their cores are the only ones beyond serving (torch's threads
    get a core each on a CPU: one here)."""
    monkeypatch.setattr(ex05, "BESIDE_SLACK_S", 0.05)
    grade = lambda: _beside_server(tmp_path, BESIDE[beside], threads=1)  # noqa: E731
    if BESIDE[beside]:
        result = grade()
        assert result.status == "failed", result.line()
        assert "unseen requests" in result.message and "beside the requests" in result.message, result.message
    else:
        # The control's request spins 0.1 s of wall time: on a loaded CI machine it lost its core and ran over the
        # limit on 63 ms of CPU (2026-11-30), which the check truly calls a wait. Graded again as its message says.
        result = graded_until_told(grade)
        assert result.status == "passed", result.line()


def test_without_a_control_group_a_process_that_ignores_sigchld_makes_the_cpu_count_inconclusive(tmp_path,
                                                                                                 monkeypatch):
    """Where the judge cannot make a control group, it counts from /proc, where a child the kernel reaps itself takes
    its time with it (a red team's helper, forked with SIGCHLD ignored and killed in the window, cancelled a
    thread's work from the count): the count is refused, not trusted."""
    from autograder.core import cgroups

    monkeypatch.setattr(cgroups.CpuGroup, "make", classmethod(lambda cls: None))
    result = _beside_server(tmp_path, BESIDE["children the kernel reaps compute beside"])
    assert result.status == "inconclusive" and "ignores SIGCHLD" in result.message, result.line()


def test_the_graph_budget_stops_a_compile_that_never_ends():
    torch._dynamo.reset()
    fn = torch.compile(lambda x: x.sin() + 1, dynamic=False)
    assert ex05_workload.install_graph_budget(3)
    try:
        for n in range(2, 10):
            fn(torch.randn(n))
    except Exception as err:
        chain = []
        while err is not None:
            chain.append(type(err).__name__)
            err = err.__cause__ or err.__context__
        assert "GraphBudgetExceeded" in chain
    else:
        raise AssertionError("eight static graphs compiled under a budget of three")
    finally:
        torch._dynamo.reset()


def test_a_learners_function_is_shipped_with_its_helpers_imports_and_constants():
    source = static_closure(["import torch\nK = 3\ndef helper(x):\n    return torch.relu(x) * K\n",
                             "def make(m, b):\n    return lambda x: helper(x)\n", "print('a demo cell')\n"], "make")
    assert "import torch" in source and "K = 3" in source and "def helper" in source and "demo" not in source
    fresh: dict = {}
    exec(source, fresh)  # noqa: S102 - the shipped code must define make again on its own
    assert float(fresh["make"](None, 1)(torch.tensor([-1.0, 2.0])).sum()) == 6.0


def test_names_imported_from_modules_and_plain_constants_travel_with_the_function():
    """A seventh red team's honest solution (06): `from torch.cuda import CUDAGraph, Stream, ...`, as torch's docs
    write it, lost those names in the fresh process (NameError), and so would a dict or a device constant."""
    source = static_closure(["import torch\nfrom collections import OrderedDict as OD\nfrom math import sqrt\n"
                             "from torch.nn.functional import relu\nCFG = {'scale': 2.0, 'names': ('a', 'b')}\n"
                             "DT, DEV = torch.float64, torch.device('cpu')\n",
                             "def make(n):\n    d = OD(a=sqrt(n))\n    x = torch.tensor([-1.0, d['a']], dtype=DT, "
                             "device=DEV)\n    return relu(x) * CFG['scale']\n"], "make")
    fresh: dict = {}
    exec(source, fresh)  # noqa: S102 - the shipped code must define make again on its own
    out = fresh["make"](9)
    assert out.dtype == torch.float64 and out.tolist() == [0.0, 6.0]


HONEST_SHAPES = {  # an eighth red team's honest ways to write a function that failed to ship to a fresh process
    "a class it returns, with a base class and a class attribute": (
        "import torch\nclass Base:\n    SCALE = 3.0\nclass Step(Base):\n    def __init__(self, n):\n"
        "        self.n = n\n    def __call__(self, x):\n        return x * self.SCALE * self.n\n",
        "def make(n):\n    return Step(n)\n"),
    "a constant as a default value": ("K = 3\ndef helper(x, k=K):\n    return x * k\n",
                                      "def make(n):\n    return lambda x: helper(x) * n\n"),
    "a helper under a decorator": ("import torch\n@torch.no_grad()\ndef helper(x):\n    return x * K\nK = 3\n",
                                   "def make(n):\n    return lambda x: helper(x) * n\n"),
    "math.inf and a set": ("from math import inf\nOK = {1, 2}\n",
                           "def make(n):\n    return lambda x: x * 3 * n if n in OK and n < inf else None\n"),
    "an lru_cache helper": ("import functools\n@functools.lru_cache\ndef factor():\n    return 3\n",
                            "def make(n):\n    return lambda x: x * factor() * n\n"),
    "the entry point bound under another name": ("def _build(n):\n    return lambda x: x * 3 * n\n",
                                                 "make = _build\n"),
    "a definition given again in a later cell (the last one counts, as in a kernel)": (
        "def make(n):\n    raise RuntimeError('the first draft')\n",
        "def make(n):\n    return lambda x: x * 3 * n\n"),
}


@pytest.mark.parametrize("shape", sorted(HONEST_SHAPES))
def test_honest_ways_to_write_a_function_ship_to_a_fresh_process(shape):
    source = static_closure(list(HONEST_SHAPES[shape]), "make")
    fresh: dict = {}
    exec(source, fresh)  # noqa: S102 - the shipped code must define make again on its own
    assert float(fresh["make"](2)(torch.tensor(1.0))) == 6.0, source


def test_the_source_shipped_is_the_graders_own_cut_of_the_text_never_what_the_code_does_at_run_time():
    """An eighth red team's forgery pointed the graded function's __wrapped__ at an earlier, working definition;
    a ninth's shipped honest code to the fresh process while the graded step was another. The judge now cuts the
    source from the text it read: statements that run code at the top level (an attribute set, a call, a loop)
    are not shipped, and the definition shipped is the last one the cells make."""
    source = static_closure(["def good(n):\n    return lambda x: x * 3 * n\n",
                             "def make(n):\n    raise RuntimeError('only works warm')\nmake.__wrapped__ = good\n"
                             "import autograder.exercises.ex06_cuda_graphs.workload as w\n"
                             "w.capture_in_fresh_process = None\nprint('side effect')\n"
                             "make = good if False else make\n"],
                            "make")
    assert "only works warm" in source and "x * 3 * n" not in source
    assert "__wrapped__" not in source and "capture_in_fresh_process" not in source and "print" not in source


def test_a_function_that_is_not_defined_at_the_top_level_cannot_be_shipped():
    with pytest.raises(SubmissionError, match="top-level definition"):
        static_closure(["for i in range(1):\n    def make(n):\n        return n\n"], "make")


def test_a_submission_runs_without_the_graders_own_future_imports():
    """Annotations are evaluated as in the learner's kernel (an eighth red team saw them turned into strings by
    the grader's `from __future__ import annotations`)."""
    ns = load_namespace("def f(x: int) -> int:\n    return x\n")
    assert ns["f"].__annotations__ == {"x": int, "return": int}
