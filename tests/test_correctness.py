"""Correctness checks raise with a message that says what is wrong."""

import pytest
import torch
from conftest import fake_check

from autograder.core.correctness import check_tensor, generator, grading_secret, same_bits, seed_for
from autograder.core.protocol import CheckFailed, Tolerance

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


def test_the_secret_changes_every_input_and_the_public_default_is_stable(monkeypatch):
    monkeypatch.delenv("COURSE_GRADING_SECRET", raising=False)
    public = seed_for("01_eager_mode", "speed", 0, grading_secret())
    assert public == seed_for("01_eager_mode", "speed", 0, grading_secret())
    monkeypatch.setenv("COURSE_GRADING_SECRET", "instructor")
    assert seed_for("01_eager_mode", "speed", 0, grading_secret()) != public
    a = torch.randn(5, generator=generator("x", "y", 0, "s1"))
    b = torch.randn(5, generator=generator("x", "y", 0, "s2"))
    assert not torch.equal(a, b)


def test_grading_hides_inductors_tf32_advice_but_not_the_learners_own_warnings():
    """Inductor tells every GPU user to enable TF32, which the grader forbids; a check's own warnings stay."""
    import warnings

    from conftest import grade_source

    from autograder.core.protocol import Exercise

    def noisy_check(ctx):
        warnings.warn("TensorFloat32 tensor cores for float32 matrix multiplication available but not enabled.",
                      stacklevel=1)
        warnings.warn("\nOnline softmax is disabled on the fly since Inductor decides to\nsplit the reduction.",
                      stacklevel=1)
        warnings.warn("my own warning", stacklevel=1)
        return "ok"

    fake = Exercise("99_fake", "fake", ("f",), (fake_check("c", "c", 1, noisy_check, ("f",)),), "nothing")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        report = grade_source("def f():\n    pass\n", fake)
    assert report.ok()
    assert [str(w.message) for w in seen] == ["my own warning"]


def test_inputs_as_written_are_compared_bit_for_bit_an_unchanged_nan_included():
    """The judge's check that shared inputs still hold what it wrote (trials, timed blocks): torch.equal calls a NaN
    unchanged in place changed; a sign flipped on zero, or another NaN, is a change."""
    x = torch.tensor([1.0, float("nan"), 0.0])
    assert not torch.equal(x, x.clone()) and same_bits(x, x.clone())
    assert not same_bits(x, torch.tensor([1.0, float("nan"), -0.0]))
    assert not same_bits(x, torch.tensor([1.0, -float("nan"), 0.0]))
    assert not same_bits(x, x.double()) and not same_bits(x, x[:2])
    assert same_bits(torch.arange(4), torch.arange(4)) and same_bits(x.half(), x.clone().half())
    assert same_bits(torch.ones(2, 3).t(), torch.ones(3, 2))  # what is compared is the values, in the view's order
