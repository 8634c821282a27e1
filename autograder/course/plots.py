"""The lessons' plots (matplotlib figures), kept out of the notebooks so the notebooks stay readable."""

from __future__ import annotations

import matplotlib.pyplot as plt


def break_even(eager_s: float, compiled_s: float, compile_s: float, calls: int | None = None):
    """Cumulative time of N calls, eager vs compiled (compile paid on call 1). Returns (figure, break-even N)."""
    saving = eager_s - compiled_s
    n_even = compile_s / saving if saving > 0 else float("inf")
    calls = calls or int(min(max(3 * n_even, 10), 1e7)) if saving > 0 else 1000
    xs = [0, calls]
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(xs, [0, eager_s * calls], label=f"eager ({eager_s * 1e3:.3g} ms/call)")
    ax.plot(xs, [compile_s, compile_s + compiled_s * calls], label=f"compiled ({compiled_s * 1e3:.3g} ms/call "
            f"+ {compile_s:.1f} s compile)")
    if saving > 0:
        ax.axvline(n_even, color="gray", linestyle=":")
        ax.annotate(f"break-even: {n_even:,.0f} calls", (n_even, compile_s), textcoords="offset points",
                    xytext=(5, 5))
    ax.set_xlabel("number of calls")
    ax.set_ylabel("total seconds")
    ax.legend()
    fig.tight_layout()
    return fig, n_even


def times_by_size(sizes, eager_s, compiled_s, title: str):
    """Per-call time and speedup against problem size (log-log)."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    left.loglog(sizes, [t * 1e3 for t in eager_s], "o-", label="eager")
    left.loglog(sizes, [t * 1e3 for t in compiled_s], "o-", label="compiled")
    left.set_xlabel("elements")
    left.set_ylabel("ms per call")
    left.legend()
    right.semilogx(sizes, [e / c for e, c in zip(eager_s, compiled_s, strict=True)], "o-", color="green")
    right.axhline(1.0, color="gray", linestyle=":")
    right.set_xlabel("elements")
    right.set_ylabel("speedup (eager / compiled)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def bars(values: dict[str, float], ylabel: str, title: str, fmt: str = "{:.3g}"):
    """One bar per label, each annotated with its value."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    bars_ = ax.bar(list(values), list(values.values()), color=["#888", "#4a90d9", "#e8793a", "#5aa55a"][:len(values)])
    for bar, v in zip(bars_, values.values(), strict=True):
        ax.annotate(fmt.format(v), (bar.get_x() + bar.get_width() / 2, v), ha="center", va="bottom")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def compile_and_run(rows: dict[str, tuple[float, float]], title: str):
    """Side by side: compile seconds and run milliseconds per call, for each way of compiling."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    names = list(rows)
    left.bar(names, [c for c, _ in rows.values()], color="#e8793a")
    left.set_ylabel("first call (compile), s")
    right.bar(names, [r * 1e3 for _, r in rows.values()], color="#4a90d9")
    right.set_ylabel("steady state, ms per call")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def compile_vs_run(results: dict[str, list], title: str):
    """One panel per workload: each mode as a point, cold compile seconds (x) against microseconds per call (y).

    ``results``: workload name -> list of ``autograder.course.modes.ModeResult``.
    """
    fig, axes = plt.subplots(1, len(results), figsize=(4.8 * len(results), 3.6), squeeze=False)
    for ax, (workload, rows) in zip(axes[0], results.items(), strict=True):
        for r in rows:
            ax.scatter(max(r.first_calls_s, 1e-2), r.per_call_s * 1e6, s=40)
            ax.annotate(r.mode, (max(r.first_calls_s, 1e-2), r.per_call_s * 1e6), textcoords="offset points",
                        xytext=(4, 4), fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("first 3 calls, cold compile (s, log)")
        ax.set_ylabel("steady state (us per call)")
        ax.set_ylim(bottom=0)
        ax.set_title(workload, fontsize=10)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def times_by_batch(times: dict[str, dict[int, float]], title: str):
    """Per-call time against batch size for each mode (log-log), and each mode's speedup over eager."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.4))
    for mode, by_batch in times.items():
        batches = list(by_batch)
        left.loglog(batches, [by_batch[b] * 1e6 for b in batches], "o-", label=mode)
        if "eager" in times and mode != "eager":
            right.semilogx(batches, [times["eager"][b] / by_batch[b] for b in batches], "o-", label=mode)
    left.set_xlabel("batch size")
    left.set_ylabel("us per call")
    left.legend(fontsize=8)
    right.axhline(1.0, color="gray", linestyle=":")
    right.set_xlabel("batch size")
    right.set_ylabel("speedup over eager")
    right.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def time_vs_breaks(sweep: dict, title: str):
    """Per-call time of the compiled stage chain against its number of graph breaks, with eager as a line
    (``sweep`` from ``autograder.course.breaks.sweep_breaks``)."""
    ks = sorted(sweep["compiled_s"])
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(ks, [sweep["compiled_s"][k] * 1e6 for k in ks], "o-", label="compiled")
    ax.axhline(sweep["eager_s"] * 1e6, color="gray", linestyle="--", label="eager (no compile)")
    ax.set_xlabel("graph breaks in the function")
    ax.set_ylabel("us per call")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def stream_timeline(runs, title: str):
    """Per-request latency over a stream (log scale), one line per way of serving; a dot where a request
    compiled a graph. ``runs``: autograder.course.recompiles.StreamRun."""
    fig, ax = plt.subplots(figsize=(9, 3.6))
    for run in runs:
        ms = [t * 1e3 for t in run.latency_s]
        (line,) = ax.semilogy(range(1, len(ms) + 1), ms, "-", lw=1.2, label=f"{run.name} ({run.graphs} graphs)")
        ax.semilogy([i + 1 for i in run.compiled_at], [ms[i] for i in run.compiled_at], "o", color=line.get_color(),
                    ms=5)
    ax.set_xlabel("request number (dots: the request compiled a graph)")
    ax.set_ylabel("ms for the request")
    ax.set_title(title)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


def bucket_tradeoff(steps, shapes, waste, chosen: int):
    """For each bucket step: graphs to compile (left axis) and padded work thrown away (right axis)."""
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    ax.plot(steps, shapes, "o-", color="#4a90d9")
    ax.set_xlabel("bucket step (pad each length up to a multiple of it)")
    ax.set_ylabel("graphs to compile", color="#4a90d9")
    other = ax.twinx()
    other.plot(steps, [w * 100 for w in waste], "s-", color="#e8793a")
    other.set_ylabel("% of the work is padding", color="#e8793a")
    ax.axvline(chosen, color="gray", linestyle=":")
    fig.tight_layout()
    return fig


def launch_overhead(rows, title: str):
    """Per call against the number of tiny ops: eager wall time, GPU kernel time, one CUDA-graph replay."""
    fig, ax = plt.subplots(figsize=(6.5, 3.4))
    ops = [r.ops for r in rows]
    ax.plot(ops, [r.eager_s * 1e6 for r in rows], "o-", label="eager, wall clock")
    ax.plot(ops, [r.kernel_s * 1e6 for r in rows], "s--", label="eager, GPU kernel time (profiler)")
    ax.plot(ops, [r.graph_s * 1e6 for r in rows], "^-", label="CUDA graph replay, wall clock")
    ax.set_xlabel("tiny ops per call")
    ax.set_ylabel("us per call")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def speedup_by_batch(rows, title: str, mark: int | None = None):
    """Eager / graphed time per call against the batch size (log x): where CUDA graphs stop paying."""
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    ax.semilogx([r.batch for r in rows], [r.speedup for r in rows], "o-", base=2)
    ax.axhline(1.0, color="gray", linestyle=":")
    if mark is not None:
        ax.axvline(mark, color="#e8793a", linestyle="--")
    ax.set_xlabel("batch size")
    ax.set_ylabel("speedup of the CUDA graph")
    ax.set_title(title)
    fig.tight_layout()
    return fig
