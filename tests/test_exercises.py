"""Exercise specs as data: the notebooks, the CLI and the known-wrong approaches agree with them."""

import ast
import json
import re
import subprocess
import sys

import nbformat
import pytest
import torch
from conftest import REPO, SPIN, grade_with_override, host_reads

from autograder.core.grading import Policy, grade_file
from autograder.exercises import EXERCISES, get_exercise
from autograder.tools import cases
from autograder.tools.paths import solution, student_version

COURSE_IDS = [f"0{i}_{name}" for i, name in enumerate(
    ["eager_mode", "compile_pipeline", "compile_modes", "graph_breaks", "dynamic_shapes", "cuda_graphs"], 1)]


def _cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout)


def test_exercise_ids_are_the_course_folders():
    assert set(EXERCISES) <= set(COURSE_IDS)
    for exercise_id in EXERCISES:
        assert (REPO / "solutions" / exercise_id / f"{exercise_id}.ipynb").exists()
        assert EXERCISES[exercise_id].id == exercise_id  # the spec in that folder is that exercise's


def test_the_registry_knows_its_ids_without_importing_a_spec_and_names_them_for_an_unknown_one():
    # A classroom unit, the record step and a feedback kernel ask "is this an exercise?" and import no torch
    # for it (a grading unit's own process then starts in a fraction of a second instead of ~5 CPU-seconds).
    probe = ("import sys; from autograder.exercises import EXERCISES; "
             "assert '01_eager_mode' in EXERCISES and '00_warmup' not in EXERCISES and len(list(EXERCISES)) == 6; "
             "import autograder.tools.grade_student, autograder.tools.classroom, autograder.tools.record, "
             "autograder.tools.ray_runner, autograder.tools.slurm, autograder.selfcheck; "
             "print(sorted(m for m in sys.modules if m == 'torch' or m.endswith('.spec')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr
    with pytest.raises(KeyError, match="unknown exercise '07_nope'; known: 01_eager_mode, 02_compile_pipeline"):
        get_exercise("07_nope")


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_every_check_has_a_graded_cell_with_the_specs_points(exercise_id):
    nb = nbformat.read(REPO / "solutions" / exercise_id / f"{exercise_id}.ipynb", as_version=4)
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells
             if c.metadata.get("nbgrader", {}).get("grade")}
    exercise = EXERCISES[exercise_id]
    for check in exercise.checks:
        assert check.id in cells, f"no graded cell with grade_id {check.id}"
        assert cells[check.id].metadata["nbgrader"]["points"] == check.points
        assert f'"{check.id}"' in cells[check.id].source
    assert sum(c.metadata["nbgrader"]["points"] for c in cells.values()) == exercise.points


def test_cli_lists_each_exercise_and_its_entry_points():
    result = _cli("list")
    assert result.returncode == 0
    lines = dict(line.split("\t") for line in result.stdout.strip().splitlines())
    assert lines["01_eager_mode"] == "benchmark fast_gelu_bias"


def test_cli_grades_the_reference_solution(tmp_path):
    report = tmp_path / "report.json"
    solution = REPO / "solutions/01_eager_mode/01_eager_mode.ipynb"
    result = _cli("grade", "01_eager_mode", str(solution), "--json", str(report), "--allow-skip")
    assert result.returncode == 0, result.stdout + result.stderr
    check_lines = [line for line in result.stdout.splitlines() if line.startswith("[")]
    assert len(check_lines) == len(EXERCISES["01_eager_mode"].checks)  # one line per check
    assert "[SKIP] fast_gelu_bias_speed" in result.stdout  # no GPU here: skipped, as CI allows
    data = json.loads(report.read_text())
    assert data["exercise"] == "01_eager_mode" and len(data["results"]) == 4
    # Its judge compiles nothing itself, so it skipped the compiler's warm-up; it imported nothing once the
    # submission's process had started (a module imported then could have been edited by it)
    assert not EXERCISES["01_eager_mode"].judge_compiles
    assert data["environment"].get("late_imports", []) == [], data["environment"]["late_imports"]


def test_cli_exits_nonzero_when_the_gpu_speed_check_cannot_run_and_skipping_is_not_allowed():
    result = _cli("grade", "01_eager_mode", str(REPO / "solutions/01_eager_mode/01_eager_mode.ipynb"))
    assert result.returncode == 1
    assert "needs a CUDA GPU" in result.stdout


def test_allow_skip_never_passes_a_grading_in_which_nothing_ran():
    """A red team (2026-11-27): every check of 06 needs a GPU, so with --allow-skip a step returning zeros was all
    SKIP and exit 0, "every check passed". Nothing verified is not a pass."""
    result = _cli("grade", "06_cuda_graphs", str(REPO / "solutions/06_cuda_graphs/06_cuda_graphs.ipynb"),
                  "--allow-skip")
    assert result.returncode == 1 and "nothing was verified on this machine" in result.stdout, result.stdout


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_the_untouched_student_version_fails_every_check_with_a_helpful_message(exercise_id):
    report = grade_file(EXERCISES[exercise_id], student_version(exercise_id), policy=Policy(allow_skip=True))
    assert report.points == 0
    for result in report.results:
        assert result.status == "failed"
        assert "NotImplementedError" in result.message or "not written yet" in result.message, result.line()


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_the_notebooks_hidden_tests_are_the_specs_hidden_checks(exercise_id):
    """Each hidden test sits in its own check's graded cell and re-runs a check the spec marks hidden (the
    isolated grading runs exactly those on the second secret stream under autograde)."""
    nb = nbformat.read(REPO / "solutions" / exercise_id / f"{exercise_id}.ipynb", as_version=4)
    hidden = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        for line in cell.source.splitlines():
            if line.startswith("hidden_check("):
                check_id = line.split('"')[1]
                assert check_id == meta.get("grade_id"), f"hidden test of {check_id} in the cell of {meta}"
                hidden.append(check_id)
    assert tuple(hidden) == EXERCISES[exercise_id].hidden_checks
    assert "speed" not in {EXERCISES[exercise_id].check(c).kind for c in hidden}  # one measurement per grading


def test_a_grading_with_hidden_tests_runs_them_on_a_second_stream_with_the_same_worker():
    ex = EXERCISES["04_graph_breaks"]
    skip = Policy(allow_skip=True)
    report = grade_file(ex, solution(ex.id), only=["outputs_match"], hidden=True, policy=skip)
    assert [r.id for r in report.hidden] == ["outputs_match"]
    assert all(r.passed for r in report.hidden + report.results)
    one_branch = next(c for c in cases.cases(ex.id) if c.name == "one_branch")  # wrong in eager mode too
    wrong = grade_file(ex, solution(ex.id), overrides=[one_branch.path], only=["outputs_match"], hidden=True,
                       policy=skip)
    assert wrong.hidden_result("outputs_match").status == "failed"
    assert not grade_file(ex, solution(ex.id), only=["outputs_match"], policy=skip).hidden  # only when asked


def test_a_submission_that_cannot_be_graded_fails_its_hidden_tests_too(tmp_path):
    broken = tmp_path / "04_graph_breaks.ipynb"
    broken.write_text('{"cells": [ not json')
    report = grade_file(EXERCISES["04_graph_breaks"], broken, hidden=True)
    assert [r.status for r in report.hidden] == ["failed"]
    assert "not a readable Jupyter notebook" in report.hidden_result("outputs_match").message


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_the_grader_loading_a_solution_compiles_and_times_nothing(exercise_id, monkeypatch, capsys):
    """The cells that only show the learner results skip inside the grader (and under nbgrader autograde),
    so a submission's code is compiled and measured once, by the checks."""
    from autograder.core.compile_events import capture_compile_events
    from autograder.core.submission import LOAD_ERRORS, load_namespace, notebook_code

    monkeypatch.setenv("AUTOGRADER_WORKER", "1")
    with capture_compile_events() as events:
        namespace = load_namespace(*notebook_code(REPO / "solutions" / exercise_id / f"{exercise_id}.ipynb"))
    assert namespace[LOAD_ERRORS] == []
    assert events.graphs == 0
    out = capsys.readouterr().out
    assert "us per call" not in out and "is not written yet" not in out


def test_ipython_syntax_anywhere_in_a_cell_loads_and_does_nothing(tmp_path):
    """What runs in Jupyter loads in the grader's worker: a magic inside a loop, assigned magics, shell escapes,
    help requests, a cell magic whose body defines something (a red team's honest per-size %timeit loop was a
    syntax error, the cell dropped and its function's checks scored 0)."""
    import json

    from autograder.core.submission import LOAD_ERRORS, load_namespace, notebook_code

    cells = ["import math\ndef f(n):\n    return n + 1\nfor n in (1, 2):\n    %timeit -n 1 -r 1 f(n)\n",
             "t = %timeit -o f(1)\nout = !ls\nf?\n!pip install nothing\nafter = f(2)\n",
             "%%time\ndef g(n):\n    return 2 * n\n", "%matplotlib inline\nlast = g(after)\n"]
    nb = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": []} for c in cells],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "magics.ipynb"
    path.write_text(json.dumps(nb))
    namespace = load_namespace(*notebook_code(path))
    assert namespace[LOAD_ERRORS] == []
    assert (namespace["t"], namespace["out"], namespace["after"], namespace["last"]) == (None, [], 3, 6)


def test_the_cpu_benchmark_truth_follows_a_loaded_machine_but_not_calls_spaced_out():
    from autograder.exercises.ex01_eager_mode.spec import Truth, _paced_truth

    def arrivals(*gaps):
        return [sum(gaps[:i]) for i in range(len(gaps) + 1)]
    measured = Truth.exact(0.0022)  # 2 ms of the grader's wait + a 0.2 ms round trip, measured before the benchmark
    slowed = _paced_truth(measured, 0.002, arrivals(*[0.0027] * 20))  # load slowed each call alike
    assert (slowed.low, slowed.high) == pytest.approx((0.0027, 0.0027))
    # Some calls stalled: a loop's mean and the calls' median both count as the truth; a one-second first call
    # (a compile) counts in neither.
    stalled = _paced_truth(measured, 0.002, arrivals(1.0, *[0.0024] * 12, *[0.003] * 8))
    assert stalled.low == pytest.approx(0.0024) and stalled.high == pytest.approx((12 * 0.0024 + 8 * 0.003) / 20)
    assert stalled.ratio(0.0026) == 1.0 and stalled.ratio(0.0033) == pytest.approx(0.0033 / stalled.high)
    # The load came and went: the fastest tenth of the calls sets the low end (a median of repeats can pick the
    # quiet stretch: on a loaded CI machine the reference returned 0.78x the calls' median gap)
    burst = _paced_truth(measured, 0.002, arrivals(*[0.0024] * 6, *[0.0031] * 14))
    assert burst.low == pytest.approx(0.0024) and burst.ratio(0.0024) == 1.0
    capped = _paced_truth(measured, 0.002, arrivals(*[0.012] * 20))  # 10 ms gaps between calls: capped at +50%
    assert (capped.low, capped.high) == pytest.approx((1.5 * 0.0022, 1.5 * 0.0022))
    never_below = _paced_truth(measured, 0.002, arrivals(*[0.001] * 20))  # never below the grader's own wait
    assert (never_below.low, never_below.high) == pytest.approx((0.002, 0.002))
    assert _paced_truth(measured, 0.002, arrivals(0.0027, 0.0027, 0.0027)) == measured  # too few calls for a pace


def test_a_benchmark_that_returns_a_guess_passes_about_one_gpu_grading_in_200():
    """Exercise 01's GPU durations: even the best constant for each call (chosen knowing the distribution) lands
    all three in their 0.8..1.25 windows in under 1% of secrets."""
    import math

    from autograder.exercises.ex01_eager_mode.spec import durations

    drawn = [durations(seed, cuda=True) for seed in range(4000)]
    assert all(len(d) == 3 and all(0.001 <= s <= 0.012 for s in d) for d in drawn)
    best = 0.0
    for guess in (0.001 * 12 ** (i / 40) for i in range(41)):
        hits = sum(all(0.8 <= guess / s <= 1.25 for s in d) for d in drawn) / len(drawn)
        best = max(best, hits)
    assert best < 0.01, best
    assert 0.002 < (math.log(1.5625) / math.log(12)) ** 3 < 0.01  # the docstring's estimate


def test_benchmark_durations_are_new_at_every_grading_whatever_the_secret():
    """Exercise 01 draws its workloads' durations from the OS's randomness, not from the secret: with the public
    self-study secret, durations derived from it would be known in advance (the public_secret case)."""
    from types import SimpleNamespace

    from autograder.exercises.ex01_eager_mode.spec import _durations

    for cuda in (True, False):
        ctx = SimpleNamespace(cuda=cuda, seed=lambda *a: 0)  # the same secret every time
        drawn = {tuple(_durations(ctx)) for _ in range(5)}
        assert len(drawn) == 5


def test_the_compile_budget_is_the_instructors_when_set_and_a_bad_value_says_what_to_give(monkeypatch):
    from autograder.exercises.ex03_compile_modes import spec

    monkeypatch.delenv(spec.BUDGET_ENV, raising=False)
    assert spec.compile_budget_s() == spec.COMPILE_BUDGET_S == 60
    monkeypatch.setenv(spec.BUDGET_ENV, "90")
    assert spec.compile_budget_s() == 90
    monkeypatch.setenv(spec.BUDGET_ENV, "a minute")
    with pytest.raises(ValueError, match="give the compile budget in seconds"):
        spec.compile_budget_s()


@pytest.mark.parametrize("beside", [True, False], ids=["a child computes beside", "nothing beside"])
def test_exercise_03s_compile_budget_charges_cpu_spent_beside_the_calls(tmp_path, beside, monkeypatch):
    """A red team's predict forked a process at import to do the compile's work beside the calls, where no clock
    charged it. The CPU the submission's processes use beyond the serving thread (one core through each call at
    most) is charged to the compile budget: here over the budget predictor's later calls (no GPU, so no speed
    check), a forked child spinning beside them."""
    from autograder.exercises.ex03_compile_modes import spec

    monkeypatch.setattr(spec, "BESIDE_SLACK_S", 0.05)
    override = tmp_path / "beside.py"
    override.write_text(f"""import os, time
{SPIN}
if {beside} and os.fork() == 0:  # stopped with the worker between requests, killed with it at the end
    while True:
        _spin(1.0)
def make_predict(model):
    def predict(x):
        _spin(0.1)
        return model(x.clone())
    return predict
""")
    # one torch thread: one core allowed through each call
    result = grade_with_override("03_compile_modes", override, ["compile_budget"], threads=1).result("compile_budget")
    assert result.status == "passed", result.line()  # far under the budget either way: what is charged is read
    charged = result.details["beside_charged_s"]
    if beside:
        assert charged > 0.1, result.details  # 7 calls of 0.1 s, a core busy beside each
    else:
        assert charged == 0.0, result.details


def test_exercise_03s_model_makes_cudagraph_trees_skip_the_lessons_recipe_but_not_the_reference(monkeypatch):
    """Exercise 03's premise, shown on a CPU (no CUDA graphs here): the graph Inductor compiles for the model writes
    into its input x (the model standardises x in place), and CUDAGraph Trees' own test, check_for_mutation (what
    CUDAGraphTreeManager._update_non_cudagraph_managed_mutation asks before it records a graph, torch 2.11 and
    2.13), refuses it: "skipping cudagraphs due to mutated inputs". A copy of x made before the compiled call is
    that same plain input, so it is refused too. The reference solution's graph writes into no input. Lesson 3's
    recipe also changes the caller's x; the reference does not. What the GPU makes of a skip is gpu-check's."""
    import inspect

    from torch._inductor import config, output_code
    from torch._inductor.cudagraph_utils import WrappedFunction, check_for_mutation, get_placeholder_info

    from autograder.core.submission import LOAD_ERRORS, load_namespace, notebook_code
    from autograder.exercises.ex03_compile_modes.workload import CONFIGS, build_model

    graphs = []
    init = output_code.CompiledFxGraph.__init__

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        bound = inspect.signature(init).bind(self, *args, **kwargs).arguments
        graphs.append(WrappedFunction(model=None, static_input_idxs=tuple(bound["static_input_idxs"] or ()), id=None,
                                      constants=(), placeholders=get_placeholder_info(bound["gm"].graph),
                                      mutated_input_idxs=tuple(self.mutated_input_idxs)))

    def skip_reason(predict) -> tuple[str | None, bool]:
        """Whether CUDAGraph Trees would refuse the one graph compiled for predict, and whether x changed."""
        torch._dynamo.reset()
        graphs.clear()
        x = torch.randn(batch, width)
        before = x.clone()
        with torch.no_grad():
            predict(x)
        assert len(graphs) == 1
        # a plain input: no tensor of an earlier CUDA graph (is_cuda_graph_recorded_tensor is False for it)
        return check_for_mutation(graphs[0], [None] * len(graphs[0].placeholders), lambda t: False), \
            not torch.equal(x, before)

    monkeypatch.setattr(output_code.CompiledFxGraph, "__init__", recording_init)
    monkeypatch.setenv("AUTOGRADER_WORKER", "1")
    width, _, batch = CONFIGS["smoke"]
    with config.patch(fx_graph_cache=False):  # a cached graph is loaded, not built: nothing to record
        recipe = torch.compile(build_model("smoke", 3, "cpu"), mode="reduce-overhead")
        reason, changed = skip_reason(lambda x: recipe(x).clone())
        assert reason and reason.startswith("skipping cudagraphs due to mutated inputs (1 instances)"), reason
        assert "x.sub_(self.mean).div_(self.std)" in reason and changed  # it names the line; the caller's x changed
        namespace = load_namespace(*notebook_code(REPO / "solutions" / "03_compile_modes" / "03_compile_modes.ipynb"))
        assert namespace[LOAD_ERRORS] == []
        reason, changed = skip_reason(namespace["make_predict"](build_model("smoke", 3, "cpu")))
        assert reason is None and not changed


def test_exercise_06s_model_reads_its_decision_on_the_host_and_the_references_captured_function_does_not():
    """Exercise 06's premise, on a CPU (issue 39 item 2): the early-exit model's forward reads one value on the host
    per call (its `if self.typical(h):`), which a CUDA-graph capture refuses (a sync; lesson 6, section 3), so
    lesson 6's recipe, which captures model(static_in), cannot capture it. The function the reference solution
    captures (branchless_forward) reads nothing on the host and equals the model on both kinds of batch, bit for bit
    here. Not shown on a CPU: the capture error itself, and the speed (GPU facts:
    benchmarks/design/ex06_transfer.py)."""
    from autograder.core.submission import LOAD_ERRORS, load_namespace, notebook_code, static_closure
    from autograder.exercises.ex06_cuda_graphs.workload import CONFIGS, build_model, make_batch

    # the judge's cut of the solution (what the fresh process gets), not the notebook's demo and result-card cells
    cells = notebook_code(REPO / "solutions" / "06_cuda_graphs" / "06_cuda_graphs.ipynb")
    namespace = load_namespace(static_closure(cells, "branchless_forward"))
    assert namespace[LOAD_ERRORS] == []
    branchless = namespace["branchless_forward"]
    for size, cfg in CONFIGS.items():
        model = build_model(size, 7, "cpu")
        gen = torch.Generator().manual_seed(0)
        for atypical in (False, True):
            x = make_batch(gen, cfg.batch, cfg.width, atypical, "cpu")
            assert host_reads(model, x) == 1
            assert host_reads(branchless, model, x) == 0
            with torch.no_grad():
                want = model.deep(model.first(x)) if atypical else model.exit(model.first(x))
                assert torch.equal(model(x), want)  # the batch went the way its kind says
                assert torch.equal(branchless(model, x), want)


def _06_context(secret: str):
    """A grading context of exercise 06 on a CPU under ``secret``: what its checks draw their inputs from."""
    from autograder.core.grading import GradeContext

    return GradeContext(EXERCISES["06_cuda_graphs"], None, torch.device("cpu"), secret)


def _both_switches(pattern) -> bool:
    return {(False, True), (True, False)} <= set(zip(pattern[:-1], pattern[1:], strict=True))


def test_exercise_06s_inputs_go_both_ways_far_from_the_radius_in_every_check():
    """Every sequence of inputs the grader draws for exercise 06 (correctness, the outputs kept, the fresh process,
    the timed calls' pattern), under any secret, holds typical and atypical batches and both switches between them,
    so a step that captured one way, or decides a call late, is wrong within the sequence; the batches go the way
    their labels say; and the decision is far from the radius (RMS after the first stage at most 1.5 on typical
    batches, at least 4.5 on atypical ones, over 40 weight seeds at both sizes), so that rounding on another device
    cannot flip it. A timed input keeps its fresh magnitudes (copysign), hence its way."""
    from autograder.core.blocks import copysign_chain
    from autograder.exercises.ex06_cuda_graphs import spec
    from autograder.exercises.ex06_cuda_graphs.workload import CONFIGS, RADIUS, build_model, make_batch

    for seed in range(40):
        ctx = _06_context(f"secret {seed}")
        for purpose, calls in spec.SEQUENCES.items():
            pattern = spec.pattern_for(ctx, purpose)
            assert len(pattern) == calls and _both_switches(pattern), (purpose, pattern)
    ctx = _06_context("secret 0")
    model = build_model("smoke", spec._seed(ctx), "cpu")
    for label, (x,) in spec.correctness_cases(ctx):  # the labels the grader reports are the ways the model takes
        with torch.no_grad():
            assert ("atypical" in label) == (not bool(model.typical(model.first(x)))), label
    worst_typical, least_atypical = 0.0, float("inf")
    for size, cfg in CONFIGS.items():
        for seed in range(40):
            model = build_model(size, seed, "cpu")
            gen = torch.Generator().manual_seed(1000 + seed)
            previous = torch.randn(cfg.batch, cfg.width, generator=gen)
            for atypical in spec.pattern_for(_06_context(f"secret {seed}"), "correctness"):
                x = make_batch(gen, cfg.batch, cfg.width, atypical, "cpu")
                for inp in (x, copysign_chain(x, previous)):
                    with torch.no_grad():
                        rms = float(model.first(inp).pow(2).mean(-1).amax().sqrt())
                    if atypical:
                        least_atypical = min(least_atypical, rms)
                    else:
                        worst_typical = max(worst_typical, rms)
                previous = x
    assert worst_typical < 1.6 < RADIUS < 4.4 < least_atypical, (worst_typical, least_atypical)


def test_exercise_06s_ways_are_drawn_from_the_secret_so_a_step_cannot_pick_its_graph_by_call_index():
    """Which calls of a check get an atypical batch is drawn from the grading's secret, a pattern per check
    (workload.atypical_pattern), not a fixed pattern by call index: a step that replays a graph chosen by its call
    count, never reading the batch's decision (cases/index_pattern.py), follows one pattern, and another secret
    draws another. Every pattern keeps both kinds and both switches. The old fixed pattern (typical, atypical,
    atypical, typical, atypical, typical) is not what the public secret, its hidden stream or an instructor's secret
    draws for correctness, so index_pattern is wrong there on at least one input (its GPU verdict: make gpu-check)."""
    from autograder.core.correctness import HIDDEN, PUBLIC_SECRET
    from autograder.exercises.ex06_cuda_graphs import spec
    from autograder.exercises.ex06_cuda_graphs.workload import atypical_pattern

    old = (False, True, True, False, True, False)
    secrets = [f"instructor secret {i}" for i in range(60)]
    by_secret = {s: {p: spec.pattern_for(_06_context(s), p) for p in spec.SEQUENCES} for s in secrets}
    correctness = [by_secret[s]["correctness"] for s in secrets]
    assert len(set(correctness)) >= 20  # 52 patterns of six calls have both switches: secrets spread over them
    assert {by_secret[s]["fresh-process"] for s in secrets} == {(False, True, False), (True, False, True)}
    assert any(by_secret[s]["correctness"] != by_secret[s]["speed"] for s in secrets)  # each check its own
    assert all(_both_switches(p) for patterns in by_secret.values() for p in patterns.values())
    assert spec.pattern_for(_06_context("instructor secret 0"), "correctness") == correctness[0]  # deterministic
    for secret in (PUBLIC_SECRET, PUBLIC_SECRET + HIDDEN, "instructor-secret-42"):
        ctx = _06_context(secret)  # the ways of the inputs fresh_inputs grades, as its labels say
        drawn = tuple("atypical" in label for label, _ in spec.correctness_cases(ctx))
        assert drawn == spec.pattern_for(ctx, "correctness") != old, secret
    assert spec.pattern_for(_06_context(PUBLIC_SECRET), "fresh-process") != old[:3]
    with pytest.raises(ValueError, match="at least 3 calls"):
        atypical_pattern(0, 2)  # two calls cannot hold both switches


def _01_host_reads(fn, *args) -> int:
    """How many times ``fn(*args)`` reads a tensor's value on the host (aten._local_scalar_dense: .item(), bool(t),
    `if t:`; on a GPU a copy back and a stream synchronisation), seen by a dispatch mode on a CPU."""
    from torch.utils._python_dispatch import TorchDispatchMode

    reads = []

    class Reads(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.overloadpacket is torch.ops.aten._local_scalar_dense:
                reads.append(func)
            return func(*args, **(kwargs or {}))

    with torch.no_grad(), Reads():
        fn(*args)
    return len(reads)


def _01_reference() -> dict:
    """The reference solution's part (b) cell, run after the imports it needs (not the notebook's other cells)."""
    nb = nbformat.read(REPO / "solutions" / "01_eager_mode" / "01_eager_mode.ipynb", as_version=4)
    cell, = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "fast_gelu_bias"]
    namespace: dict = {}
    exec("import torch\nfrom autograder.exercises.ex01_eager_mode.workload import SQRT_2_OVER_PI, checked_gelu_bias\n"
         + cell.source, namespace)  # noqa: S102 - the course's own solution cell
    return namespace


def _01_context(secret: str):
    from autograder.core.grading import GradeContext

    return GradeContext(EXERCISES["01_eager_mode"], None, torch.device("cpu"), secret)


def test_exercise_01s_checked_chain_defeats_the_lessons_recipe_and_the_reference_keeps_its_check():
    """Exercise 01 (b)'s premise, on a CPU (issue 39 item 2): checked_gelu_bias reads one value on the host per layer
    (its `if not torch.isfinite(h).all():`), and torch.compile of it as it is (lesson 1's recipe) compiles no graph at
    all: the break sits inside the loop, so Dynamo runs the whole frame eagerly. The reference's compiled function
    is one graph with no break, and the reference reads one value per call; it equals the eager chain on finite
    inputs and raises FloatingPointError on each of the grader's guard inputs, as the eager chain does. Not shown on
    a CPU: the speeds (benchmarks/design/ex01_transfer.py on a GPU)."""
    from autograder.exercises.ex01_eager_mode import spec
    from autograder.exercises.ex01_eager_mode.workload import LAYERS, checked_gelu_bias

    gen = torch.Generator().manual_seed(0)
    x, bias = torch.randn(64, 96, generator=gen), torch.randn(LAYERS, 96, generator=gen)
    assert _01_host_reads(checked_gelu_bias, x, bias) == LAYERS
    as_is = torch._dynamo.explain(checked_gelu_bias)(x, bias)
    assert as_is.graph_count == 0  # the frame ran eagerly: nothing for Inductor to fuse
    ref = _01_reference()
    compiled = torch._dynamo.explain(ref["gelu_bias_layers"])(x, bias)
    assert (compiled.graph_count, compiled.graph_break_count) == (1, 0)
    torch._dynamo.reset()
    assert _01_host_reads(ref["fast_gelu_bias"], x, bias) == 1
    for label, args in spec.correctness_cases(_01_context("secret 0")):
        torch.testing.assert_close(ref["fast_gelu_bias"](*args), checked_gelu_bias(*args), rtol=spec.TOL.rtol,
                                   atol=spec.TOL.atol, msg=label)
    for label, args, raises in spec.probe_cases(_01_context("secret 0")):
        if raises:
            for fn in (checked_gelu_bias, ref["fast_gelu_bias"]):
                with pytest.raises(FloatingPointError):
                    fn(*args)
        else:
            torch.testing.assert_close(ref["fast_gelu_bias"](*args), checked_gelu_bias(*args), rtol=spec.TOL.rtol,
                                       atol=spec.TOL.atol, msg=label)
    torch._dynamo.reset()


def _02_reference_step(model, optimizer):
    """The reference solution's make_train_step cell (part (b)), run after the imports it needs."""
    nb = nbformat.read(REPO / "solutions" / "02_compile_pipeline" / "02_compile_pipeline.ipynb", as_version=4)
    cell, = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "make_train_step"]
    namespace: dict = {}
    exec("import torch\n" + cell.source, namespace)  # noqa: S102 - the course's own solution cell
    return namespace["make_train_step"](model, optimizer)


def test_exercise_02s_training_loss_defeats_the_lessons_recipe_and_the_reference_compiles_it_whole():
    """Exercise 02 (b)'s premise, on a CPU (issue 39 item 2): the eager step calls model.training_loss, which runs
    the blocks itself and never calls the model, so what lesson 2 compiles (torch.compile(model), its calls) and
    lesson 1's Module.compile() compile no graph on the step's path: the method reached through the wrapper is the
    original's. The reference compiles the method: one graph, no break, and the loss and every gradient of the
    eager step. Not shown on a CPU: the speeds (benchmarks/design/ex02_loss_method.py and
    benchmarks/issue39/h200-2026-11-30/ on an H200: 0.83x-1.13x for the two traps, 2.5x-3.1x for the reference)."""
    from torch._dynamo.utils import counters

    from autograder.exercises.ex02_compile_pipeline.workload import CONFIGS, build_model, make_sgd, train_step

    cfg, batch = CONFIGS["smoke"]
    gen = torch.Generator().manual_seed(0)
    x, y = (torch.randn(batch, cfg.seq, cfg.dim, generator=gen) for _ in range(2))

    def graphs_of(make_step):
        torch._dynamo.reset()
        counters.clear()
        model = build_model("smoke", 0, "cpu")
        optimizer = make_sgd(model)
        loss = make_step(model, optimizer)(x, y)
        return counters["stats"]["unique_graphs"], sum(counters["graph_break"].values()), loss, model

    def wrapper(model, optimizer):
        compiled = torch.compile(model)
        return lambda x, y: train_step(compiled, optimizer, x, y)

    def in_place(model, optimizer):
        model.compile()
        return lambda x, y: train_step(model, optimizer, x, y)

    assert graphs_of(wrapper)[0] == 0
    assert graphs_of(in_place)[0] == 0
    _, _, eager_loss, eager_model = graphs_of(lambda m, o: lambda x, y: train_step(m, o, x, y))
    graphs, breaks, loss, model = graphs_of(_02_reference_step)
    assert (graphs, breaks) == (1, 0)
    torch.testing.assert_close(loss, eager_loss, rtol=1e-5, atol=1e-6)
    for (name, p), q in zip(model.named_parameters(), eager_model.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=1e-4, atol=1e-6, msg=name)  # SGD, lr=1: the gradients agree
    torch._dynamo.reset()


def test_exercise_01s_probes_tell_the_check_from_every_lesser_one_under_any_secret():
    """After the six trials the grader probes in an order drawn from the secret: inputs on which checked_gelu_bias
    raises (always an overflow at a later layer from finite inputs and an infinite bias before the last layer) and
    finite extremes on which it returns. Under 20 secrets the eager chain does what each probe says, and every lesser
    check a red team wrote disagrees with it on some probe (raises where it returns, or returns where it raises):
    the inputs and the first layer only, the inputs and the last bias row, the sum of the output, a bound on
    |x| + |bias|; and the second red team's: infinities only (a NaN in a bias passes), column sums, a threshold
    under float32's largest value, the first four layers, all but the last layer, the timing shape only, float32
    inputs only. The
    check of the output once (a non-finite activation never becomes finite again) agrees on all.
    The order differs between secrets, so raising by call count fails too."""
    from autograder.exercises.ex01_eager_mode import spec
    from autograder.exercises.ex01_eager_mode.workload import SQRT_2_OVER_PI, checked_gelu_bias

    def layers(x, bias):
        h = x
        for b in bias:
            z = h + b
            h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))
        return h

    def finite(t):
        return bool(torch.isfinite(t).all())

    def per_layer(x, bias, ok):  # True when ok(pre-activation, activation) holds at every layer
        h = x
        for b in bias:
            z = h + b
            h = 0.5 * z * (1.0 + torch.tanh(SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)))
            if not ok(z, h):
                return False
        return True

    timing = spec.SIZES[_01_context("any").size]
    lesser = {
        "inputs and first layer": lambda x, b: finite(x) and finite(b) and finite(layers(x, b[:1])),
        "inputs and last bias": lambda x, b: finite(x) and finite(b[-1]) and finite(x.amax() + b[0].amax()),
        "sum of the output": lambda x, b: finite(layers(x, b).sum()),
        "bound on |x| + |bias|": lambda x, b: finite(x.abs().amax() + b.abs().amax(dim=1).sum()),
        # the second red team's (2026-11-27 night)
        "x, then infinities only": lambda x, b: finite(x) and per_layer(x, b, lambda z, h: not torch.isinf(z).any()),
        "column sums": lambda x, b: per_layer(x, b, lambda z, h: finite(h.sum(dim=-2))),
        "a threshold under float32's largest": lambda x, b: per_layer(x, b, lambda z, h: bool(h.abs().amax() < 1.7e38)),
        "the first four layers": lambda x, b: finite(layers(x, b[:4])),
        "all but the last layer": lambda x, b: finite(layers(x, b[:-1])) and finite(b[-1]),
        "the timing shape only": lambda x, b: tuple(x.shape) != tuple(timing) or finite(layers(x, b)),
        "float32 only": lambda x, b: x.dtype != torch.float32 or finite(layers(x, b)),
    }
    wrong_somewhere = dict.fromkeys(lesser, False)
    orders = set()
    for seed in range(20):
        probes = spec.probe_cases(_01_context(f"secret {seed}"))
        orders.add(tuple(raises for _, _, raises in probes))
        labels = " ".join(label for label, _, _ in probes)
        assert all(g in labels for g in spec.GUARDS[1:3] + spec.GUARDS[4:]) and all(e in labels for e in spec.EXTREMES)
        for label, (x, b), raises in probes:
            try:
                checked_gelu_bias(x.clone(), b.clone())
                assert not raises, label
            except FloatingPointError:
                assert raises, label
            assert finite(layers(x, b)) != raises, label  # the honest check of the output once agrees
            for name, passes in lesser.items():
                if not wrong_somewhere[name]:  # found wrong once is enough (each costs a pass over the layers)
                    wrong_somewhere[name] = passes(x, b) == raises
    assert all(wrong_somewhere.values()), wrong_somewhere
    assert len(orders) >= 10, "the probes' order must come from the secret"
    for _, args in spec.correctness_cases(_01_context("secret 1"))[2:]:
        assert torch.isfinite(checked_gelu_bias(*args)).all()


def test_exercise_04_measures_the_breaks_against_the_graders_own_compile_of_the_original():
    """The unchanged BrokenBlock, compiled with its breaks, reached 1.59x over eager on an H100: past the 1.5x
    gate. no_graph_breaks times the fix against the judge's own torch.compile of the original stack (a fact of the
    judge's, where the graph count was the worker's word); the count is a note. On a CPU the timed check says it
    needs a GPU, and the note still says where the graph broke."""
    ex = EXERCISES["04_graph_breaks"]
    original = next(c for c in cases.cases(ex.id) if c.name == "original")
    report = grade_file(ex, solution(ex.id), overrides=[original.path], only=["no_graph_breaks"],
                        policy=Policy(allow_skip=True))
    result = report.result("no_graph_breaks")
    assert result.status == "skipped" and "over torch.compile of the original BrokenBlock stack" in result.message
    assert any("graph break" in note for note in result.notes), result.notes
    assert result.points == 0


def test_the_compiled_original_computes_what_the_original_computes():
    from autograder.exercises.ex04_graph_breaks.spec import compiled_original
    from autograder.exercises.ex04_graph_breaks.workload import reference_stack

    eager, compiled = reference_stack("smoke", 3, "cpu"), compiled_original(reference_stack("smoke", 3, "cpu"))
    with torch.no_grad():
        for sign in (1.0, -1.0, 1.0):
            x = torch.randn(2, 16, 64) + 0.5 * sign
            torch.testing.assert_close(compiled(x), eager(x), rtol=1e-4, atol=1e-4)




# a call, with its arguments and the calls chained on it: ``h.std().clamp_min(1e-3)``
CALL = re.compile(r"[A-Za-z_][\w.]*(?:\((?:[^()]|\([^()]*\))*\))+(?:\.\w+(?:\((?:[^()]|\([^()]*\))*\))?)*")


def _messages(exercise_id: str) -> list[str]:
    """Every string a learner can read in the exercise's spec (its checks' messages, hints and diagnoses): each
    string constant of the module, f-strings' literal parts joined, but for docstrings (developers' reading)."""
    tree = ast.parse((REPO / "autograder" / "exercises" / f"ex{exercise_id}" / "spec.py").read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            found.append("".join(v.value for v in node.values if isinstance(v, ast.Constant)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found.append(node.value)
    return found


@pytest.mark.parametrize("exercise_id", sorted(EXERCISES))
def test_no_hint_gives_a_line_of_the_reference_solution_away(exercise_id):
    """Hints lead, one step at a time; none is the answer (exercise 01's last hint once was its solution, word for
    word; 04's spelled out its one new expression, an outside audit found on 2026-11-29). Every statement of the
    solution cells of 24 characters or more, and every call in them of 14 characters or more (``h.std().clamp_min(
    1e-3)``, ``torch.compile(model)``), that the task's own text does not show, stays out of every hint, and out of
    the notes a failed check prints (the diagnoses)."""

    nb = nbformat.read(REPO / "solutions" / exercise_id / f"{exercise_id}.ipynb", as_version=4)
    shown = " ".join(c.source for c in nb.cells if c.cell_type == "markdown")
    solution = [line.split("#")[0].strip() for c in nb.cells if c.cell_type == "code"
                for block in re.findall(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", c.source, re.S)
                for line in block.splitlines()]
    calls = [m[0] for line in solution for m in CALL.finditer(line) if len(m[0]) >= 14]
    secret = [line for line in solution + calls if (len(line) >= 24 or line in calls) and line not in shown]
    for check, hints in [*EXERCISES[exercise_id].hints.items(), ("spec.py", _messages(exercise_id))]:
        for hint in hints:
            leaked = [line for line in secret if line in hint]
            assert not leaked, f"{check}'s hint {hint!r} gives away {leaked}"


def test_a_compiler_setting_made_at_import_is_undone_and_the_report_says_so(tmp_path):
    """A red team's honest-looking fix kept a log call and set Dynamo's ignore_logger_methods at import; the worker
    undoes configuration set at import (the checks compile with the course's), and nothing told the learner. The
    grading's first check now carries a note that names the setting."""
    override = tmp_path / "config_at_import.py"
    override.write_text("import torch\ntorch._dynamo.config.cache_size_limit = 3\n")
    report = grade_with_override("04_graph_breaks", override, ["outputs_match"])
    result = report.result("outputs_match")
    assert result.status == "passed", result.line()
    assert any("configuration when it was loaded" in n and "undid it" in n for n in result.notes), result.notes
