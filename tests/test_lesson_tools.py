"""The helpers lessons use: profiler counts, plots and the quiz."""

import matplotlib
import pytest
import torch

from autograder import plots, quiz
from autograder.exercises.ex01_eager_mode import gelu_bias_chain
from autograder.profiling import profile_call

matplotlib.use("Agg")


def test_profiler_counts_one_operator_per_eager_op_and_one_region_compiled():
    x, bias = torch.randn(64, 64), torch.randn(64)
    eager = profile_call(gelu_bias_chain, x, bias)
    compiled = profile_call(torch.compile(gelu_bias_chain), x, bias)
    assert eager.count == 10 and eager.short_names() == {"aten::add": 3, "aten::mul": 6, "aten::tanh": 1}
    assert compiled.count == 1 and "Torch-Compiled Region" in next(iter(compiled.kernels))


def test_break_even_is_compile_time_over_the_saving_per_call():
    fig, n = plots.break_even(eager_s=0.003, compiled_s=0.001, compile_s=2.0)
    assert n == pytest.approx(1000)
    fig, n = plots.break_even(eager_s=0.001, compiled_s=0.002, compile_s=2.0)
    assert n == float("inf")


@pytest.mark.parametrize("lesson", sorted(quiz.QUIZZES))
def test_every_quiz_question_has_a_valid_answer_and_an_explanation(lesson):
    for n, q in enumerate(quiz.QUIZZES[lesson], 1):
        assert 0 <= q.answer < len(q.options) and len(q.options) >= 3 and q.why
        assert quiz.answer(lesson, n, q.answer).startswith("Correct.")
        wrong = (q.answer + 1) % len(q.options)
        assert quiz.answer(lesson, n, wrong).startswith("Not quite")


def test_quiz_prints_without_a_notebook_frontend(capsys):
    quiz.show("01")
    assert "Q1." in capsys.readouterr().out
