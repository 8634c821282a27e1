"""Correctness checks raise with a message that says what is wrong."""

import pytest
import torch

from autograder.core.correctness import (
    Case,
    CheckFailed,
    Tolerance,
    check_tensor,
    generator,
    run_trials,
    seed_for,
)

TOL = Tolerance(rtol=1e-4, atol=1e-5)


def double(x):
    return x * 2


@pytest.mark.parametrize("out, message", [
    (torch.ones(3, dtype=torch.float64) * 2, "dtype"),
    (torch.ones(4) * 2, "shape"),
    ([2.0, 2.0, 2.0], "must be a torch.Tensor"),
    (torch.tensor([2.0, float("nan"), 2.0]), "non-finite"),
    (torch.tensor([2.0, 2.1, 2.0]), "differs from the reference at 1 of 3 elements; worst at index (1,)"),
])
def test_check_tensor_names_the_problem(out, message):
    with pytest.raises(CheckFailed, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_tensor(out, torch.ones(3) * 2, TOL)


def test_a_tensor_subclass_is_not_a_tensor_result():
    class Lazy(torch.Tensor):
        pass

    with pytest.raises(CheckFailed, match="must be a torch.Tensor"):
        check_tensor((torch.ones(3) * 2).as_subclass(Lazy), torch.ones(3) * 2, TOL)


def test_values_within_tolerance_pass():
    check_tensor(torch.ones(3) * 2 + 1e-6, torch.ones(3) * 2, TOL)


def test_run_trials_catches_input_mutation():
    def in_place(x):
        return x.mul_(2)

    with pytest.raises(CheckFailed, match="modified its input"):
        run_trials(in_place, double, [Case("a", (torch.ones(3),))], TOL, "f")


def test_run_trials_passes_aliasing_outputs_unless_the_exercise_promises_stable_outputs():
    buffer = torch.empty(3)

    def static_output(x):  # like a CUDA graph's static output buffer
        return buffer.copy_(x * 2)

    cases = [Case("a", (torch.ones(3),)), Case("b", (torch.full((3,), 5.0),))]
    assert run_trials(static_output, double, cases, TOL, "f")[0] == 2
    with pytest.raises(CheckFailed, match="read after the next call"):
        run_trials(static_output, double, cases, TOL, "f", recheck_previous=True)


def test_run_trials_reports_the_candidates_exception():
    def broken(x):
        raise ValueError("boom")

    with pytest.raises(CheckFailed, match="raised ValueError on a: boom"):
        run_trials(broken, double, [Case("a", (torch.ones(3),))], TOL, "f")


def test_the_secret_changes_every_input_and_the_public_default_is_stable(monkeypatch):
    monkeypatch.delenv("COURSE_GRADING_SECRET", raising=False)
    public = seed_for("01_eager_mode", "speed", 0)
    assert public == seed_for("01_eager_mode", "speed", 0)
    monkeypatch.setenv("COURSE_GRADING_SECRET", "instructor")
    assert seed_for("01_eager_mode", "speed", 0) != public
    a = torch.randn(5, generator=generator("x", "y", 0, "s1"))
    b = torch.randn(5, generator=generator("x", "y", 0, "s2"))
    assert not torch.equal(a, b)


def test_grading_hides_inductors_tf32_advice_but_not_the_learners_own_warnings(monkeypatch):
    """Inductor tells every GPU user to enable TF32, which the grader rejects; a learner's own warning stays."""
    import warnings

    from autograder import exercises
    from autograder.exercises.spec import Check, Exercise
    from autograder.grader import grade_namespace

    def noisy_check(namespace, ctx):
        warnings.warn("TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled.",
                      stacklevel=1)
        warnings.warn("\nOnline softmax is disabled on the fly since Inductor decides to\nsplit the reduction.",
                      stacklevel=1)
        namespace["f"]()
        return "ok"

    def learners_code():
        warnings.warn("my own warning", stacklevel=1)

    fake = Exercise("99_fake", "fake", ("f",), (Check("c", "c", 1, noisy_check, ("f",)),), "nothing")
    monkeypatch.setitem(exercises.EXERCISES, fake.id, fake)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = grade_namespace(fake.id, {"f": learners_code}, device="cpu")
    assert report.ok()
    assert [str(w.message) for w in seen] == ["my own warning"]
