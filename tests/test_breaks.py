"""Lesson 4's graph-break demos and exercise 04's block: each demo breaks (or does not break) the graph as the
lesson's table says, the sweep functions have exactly the breaks asked for, and the block's branch follows the
sign of its input's mean."""

import matplotlib
import pytest
import torch

from autograder.course import breaks, plots
from autograder.course.models import BrokenBlock, make_block_stack

matplotlib.use("Agg")

BREAKS = {"print", "logging call", ".item()", "data-dependent if", "untraceable C call (zlib.crc32)",
          "data-dependent shape (y[y > 0])"}


@pytest.mark.parametrize("name", sorted(breaks.CAUSES))
def test_each_cause_breaks_the_graph_once_or_not_at_all(name):
    e = breaks.explain(breaks.CAUSES[name], torch.randn(16))
    expected = (2, 1) if name in BREAKS else (1, 0)
    assert (e.graphs, e.breaks) == expected, e.reasons
    assert len(e.reasons) == expected[1]


@pytest.mark.parametrize("k", [0, 1, 3])
def test_stage_chain_has_exactly_the_breaks_asked_for_and_the_same_values(k):
    fn = breaks.stages_with_breaks(6, k)
    e = breaks.explain(fn, torch.randn(8))
    assert (e.graphs, e.breaks) == (k + 1, k)
    x = torch.randn(8)
    torch.testing.assert_close(fn(x), breaks.stages_with_breaks(6, 0)(x))


def test_stage_chain_refuses_more_breaks_than_gaps():
    with pytest.raises(ValueError, match="breaks must be in 0..5"):
        breaks.stages_with_breaks(6, 6)


def test_a_break_inside_a_loop_skips_the_frame_and_the_where_fix_is_one_graph_with_the_same_values():
    x = torch.randn(64)
    assert breaks.explain(breaks.gated_broken, x).graphs == 0
    assert (breaks.explain(breaks.gated_fixed, x).graphs, breaks.explain(breaks.gated_fixed, x).breaks) == (1, 0)
    torch.testing.assert_close(breaks.gated_fixed(x), breaks.gated_broken(x))


def test_explain_prints_nothing(capsys):
    breaks.explain(breaks.with_print, torch.randn(4))
    out = capsys.readouterr()
    assert out.out == "" and "y is ready" not in out.err


def test_sweep_times_every_break_count_and_the_plot_draws_it():
    sweep = breaks.sweep_breaks(torch.randn(256), 4, [0, 2], blocks=3)
    assert set(sweep["compiled_s"]) == {0, 2} and sweep["eager_s"] > 0
    assert all(s > 0 for s in sweep["compile_s"].values())
    fig = plots.time_vs_breaks(sweep, "t")
    assert len(fig.axes) == 1 and len(fig.axes[0].lines) == 2


def test_every_block_takes_the_branch_of_the_input_means_sign():
    taken = []

    class Recording(BrokenBlock):
        def forward(self, x):
            taken.append(bool(x.mean() > 0))
            return super().forward(x)

    stack = make_block_stack(Recording, 32, 4)
    for sign in (1.0, -1.0):
        taken.clear()
        with torch.no_grad():
            stack(torch.randn(2, 8, 32) + 0.2 * sign)
        assert taken == [sign > 0] * 4


def test_block_stacks_of_any_class_get_the_same_weights():
    class Other(BrokenBlock):
        pass

    a, b = make_block_stack(BrokenBlock, 16, 2, seed=3), make_block_stack(Other, 16, 2, seed=3)
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert ka == kb and torch.equal(va, vb)
    assert not torch.equal(make_block_stack(BrokenBlock, 16, 2, seed=4)[0].linear.weight, a[0].linear.weight)
