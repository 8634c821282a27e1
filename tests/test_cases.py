"""Every case of every exercise (autograder/exercises/*/cases/) that can run on a CPU gets the verdict its
header promises: a wrong approach or a cheat is rejected for its stated reason, an honest alternative passes.

The GPU-only cases run in `make gpu-check`, twenty times each.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import graded_until_told

from autograder.core.grading import PACKAGE, Policy, grade_file
from autograder.core.protocol import Report
from autograder.exercises import EXERCISES
from autograder.exercises.ex03_compile_modes import spec as ex03
from autograder.tools import cases
from autograder.tools.paths import solution

CPU_CASES = cases.cases(device="cpu")
# cpu_gate: on a CPU the timed checks run too, with a gate any working submission clears (the 1.5x gate is a
# GPU figure); what they verify here is the outputs and effects of every timed call.
POLICY = Policy(cpu_gate=0.05, allow_skip=True, timeout=300)


def _id(case) -> str:
    return f"{case.exercise}/{case.name}"


def _grade(case, policy: Policy = POLICY):
    if "*" in case.checks:
        return _grade_in_a_copy(case, policy)
    only = None if case.policy == "learner" else case.graded_checks(cuda=False)  # a learner's grading is whole
    return grade_file(EXERCISES[case.exercise], solution(case.exercise), overrides=[case.path], only=only,
                      policy=policy)


def _grade_in_a_copy(case, policy: Policy):
    """Grade a case that may touch the grader's own files (every check at stake) with a private copy of the
    package, judge and worker both: a file it writes there cannot show up in the gradings that other test
    processes run at the same time from the real package (nor can their clean-up hide it)."""
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(PACKAGE, Path(tmp) / PACKAGE.name, ignore=shutil.ignore_patterns("__pycache__"))
        script = ("import sys\nfrom autograder.core.grading import Policy, grade_file\n"
                  "from autograder.exercises import EXERCISES\n"
                  f"report = grade_file(EXERCISES[{case.exercise!r}], {str(solution(case.exercise))!r}, "
                  f"overrides=[{str(case.path)!r}], only={case.graded_checks(cuda=False)!r}, "
                  f"policy=Policy({policy.allow_skip!r}, {policy.timeout!r}, {policy.cpu_gate!r}))\n"
                  "sys.stdout.write('REPORT ' + report.to_json().replace(chr(10), ' '))\n")
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp, env={**os.environ, "PYTHONPATH": tmp},
                              capture_output=True, text=True, timeout=policy.timeout + 120)
        assert "REPORT " in done.stdout, done.stdout[-2000:] + done.stderr[-4000:]
        return Report.from_json(done.stdout.split("REPORT ", 1)[1])


def test_every_exercise_has_cases_the_cpu_can_run():
    assert {c.exercise for c in CPU_CASES} >= set(EXERCISES) - {"06_cuda_graphs"}  # CUDA graphs need a GPU


def test_every_header_names_real_checks_and_a_known_kind():
    for case in cases.cases():
        ids = {c.id for c in EXERCISES[case.exercise].checks} | {"*"}
        assert set(case.checks) | set(case.gpu_checks) <= ids, case.path
        assert case.outcome in ("rejected", "passed", "diagnosed", "secret-hidden"), case.path
        assert case.kind in ("wrong", "cheat", "honest"), case.path
        assert case.device in ("any", "cpu", "gpu"), case.path
        assert case.policy in ("", "learner"), case.path
        if case.outcome == "rejected":
            assert case.checks or case.gpu_checks, case.path
            assert case.checks or case.note or case.device == "gpu", f"{case.path}: on a CPU nothing would tell it"
        if case.outcome == "diagnosed":
            assert case.note, f"{case.path}: a diagnosed case names the note that tells it"


@pytest.mark.parametrize("case", [c for c in CPU_CASES if c.outcome == "rejected"], ids=_id)
def test_a_wrong_or_cheating_submission_is_rejected_for_its_reason(case, monkeypatch):
    if ex03.BUDGET_ENV in case.path.read_text():  # a sleep of the budget + 5 s stands for a long compile:
        monkeypatch.setenv(ex03.BUDGET_ENV, "15")  # graded under a 15 s budget, not a minute's sleep
    timeout = 10 if case.name == "infinite_loop" else POLICY.timeout  # it spins a core until the limit
    # A case that only a GPU's timed check rejects is told here by its note: its timed check skips ("needs a
    # CUDA GPU") instead of running against a CPU gate, and the diagnosis after it still runs.
    gate = POLICY.cpu_gate if case.must_fail(cuda=False) and case.policy != "learner" else None
    report = _grade(case, Policy(POLICY.allow_skip, timeout, gate))
    ok, why = cases.verdict(case, report)
    assert ok, f"{case.name}: {why}\n" + "\n".join(report.lines())
    assert not report.ok() or not case.must_fail(cuda=False)  # a GPU-only rejection is told here by its note


@pytest.mark.parametrize("case", [c for c in CPU_CASES if c.outcome in ("passed", "diagnosed")], ids=_id)
def test_an_honest_alternative_passes_and_a_wrong_structure_only_the_worker_sees_is_noted_not_graded(case):
    report = graded_until_told(lambda: _grade(case, policy=POLICY))  # CI ran two in a row on 2026-11-29
    ok, why = cases.verdict(case, report)
    assert ok, f"{case.name}: {why}\n" + "\n".join(report.lines())


@pytest.mark.parametrize("case", cases.cases(exercise="06_cuda_graphs"), ids=_id)
def test_a_06_case_is_cut_by_the_judge_for_the_fresh_process_and_what_it_captures_reads_nothing_on_the_host(case):
    """Exercise 06's cases are graded on a GPU only (`make gpu-check`; CUDA graphs cannot exist on a CPU). What a
    CPU verifies of each: the judge's own step before any GPU work, the fresh_process check's cut of
    make_graphed_step (static_closure over the solution's cells and the case, as grading reads them), defines it
    again with the helpers it names in a namespace of its own; and where the case captures a branchless forward of
    the early-exit model (every case but the lesson's recipe, the eager one and the ones that capture pieces), that
    function reads no value on the host (the lesson's recipe captures model(static_in), which reads one: see
    tests/test_exercises.py) and equals the model on both kinds of batch. Each verdict is the GPU's to give."""
    import torch
    from conftest import host_reads

    from autograder.core.submission import static_closure, submission_code
    from autograder.exercises.ex06_cuda_graphs.workload import CONFIGS, build_model, make_batch

    source = static_closure(submission_code(solution(case.exercise)) + [case.path.read_text()], "make_graphed_step")
    shipped: dict = {}
    exec(source, shipped)  # noqa: S102 - the judge's cut must define the entry point again on its own
    assert callable(shipped["make_graphed_step"]), source
    captured = shipped.get("branchless_forward") or (shipped.get("Branchless") and
                                                     (lambda model, x: shipped["Branchless"](model)(x)))
    if case.name in ("lesson_recipe", "eager", "one_way_captured", "previous_decision", "two_graphs_host_decision",
                     "index_pattern"):
        assert "branchless_forward" not in case.path.read_text()
        return
    assert captured, f"{case.name} captures no branchless forward"
    cfg = CONFIGS["smoke"]
    model, gen = build_model("smoke", 11, "cpu"), torch.Generator().manual_seed(2)
    for atypical in (False, True):
        x = make_batch(gen, cfg.batch, cfg.width, atypical, "cpu")
        assert host_reads(captured, model, x) == 0
        with torch.no_grad():
            assert torch.equal(captured(model, x), model(x))


def test_the_secret_never_reaches_the_submissions_process():
    case = next(c for c in CPU_CASES if c.outcome == "secret-hidden")
    found = Path(tempfile.gettempdir()) / cases.SECRET_FILE_NAME
    found.unlink(missing_ok=True)
    try:
        report = grade_file(EXERCISES[case.exercise], solution(case.exercise), overrides=[case.path],
                            secret="instructor-secret-42", only=["fast_gelu_bias_correct"], policy=POLICY)
        assert report.results[0].passed  # graded normally, on inputs drawn from the secret
        text = found.read_text()
        assert "instructor-secret-42" not in text and text.startswith("searched")
    finally:
        found.unlink(missing_ok=True)  # what the submission wrote in the temp dir goes with the test
