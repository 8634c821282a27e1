"""Observing torch.compile without torch._dynamo.explain (which would wipe compiled state)."""

import torch

from autograder.core.compile_events import RecordingBackend, capture_compile_events


def with_print(x):
    y = torch.sin(x) * 2
    print("side effect")  # a graph break
    return y.cos()


def test_graph_breaks_are_reported_with_file_and_line_and_reason(capsys):
    compiled = torch.compile(with_print, backend="eager")
    with capture_compile_events() as events:
        compiled(torch.randn(8))
    assert events.graphs == 2
    assert len(events.graph_breaks) == 1
    brk = events.graph_breaks[0]
    assert brk.where.endswith("test_structure.py:10")  # the print line
    assert "print" in brk.reason


def test_recompiles_are_reported_with_their_guard():
    compiled = torch.compile(lambda x: x * 3, backend="eager", dynamic=False)
    with capture_compile_events() as events:
        compiled(torch.randn(4))
        compiled(torch.randn(5))
    assert len(events.recompiles) == 1
    assert "size mismatch" in " ".join(events.recompiles[0].guards)


def test_capture_does_not_reset_compiled_functions():
    compiled = torch.compile(lambda x: x + 1, backend="eager")
    compiled(torch.randn(3))
    with capture_compile_events() as events:
        compiled(torch.randn(3))
    assert events.graphs == 0  # still compiled: nothing was wiped


def test_inductor_kernels_are_counted_and_eager_backend_generates_none():
    with capture_compile_events() as inductor:
        torch.compile(lambda x: torch.relu(x) * 2 + 1)(torch.randn(64))
    with capture_compile_events() as eager:
        torch.compile(lambda x: torch.relu(x) * 3 + 1, backend="eager")(torch.randn(64))
    assert inductor.kernels >= 1 and eager.kernels == 0


def test_kernels_of_a_compile_whose_backend_raised_are_said_to_be_from_an_unfinished_compile():
    from torch._inductor.compile_fx import compile_fx

    def fails_after_codegen(gm, example_inputs):  # as a compile cut by a grading's limit ends: kernels, no graph
        compile_fx(gm, example_inputs)
        raise RuntimeError("stopped")

    with capture_compile_events() as events:
        try:
            torch.compile(lambda x: (x.sin() + 1).cos(), backend=fails_after_codegen)(torch.randn(8))
        except Exception:  # noqa: BLE001 - torch wraps it (BackendCompilerFailed)
            pass
    assert events.graphs == 0 and events.kernels >= 1
    assert "generated kernel(s) (from a compile that did not finish)" in events.summary()
    with capture_compile_events() as finished:
        torch.compile(lambda x: (x.sin() + 2).cos())(torch.randn(8))
    assert "did not finish" not in finished.summary()


def test_recording_backend_counts_graphs_and_ops():
    backend = RecordingBackend(inner="eager")
    torch.compile(with_print, backend=backend)(torch.randn(8))
    assert len(backend.graphs) == 2
    assert backend.graphs[0].ops["torch.sin"] == 1
    assert backend.graphs[1].ops["method:cos"] == 1
