"""Showing results in a notebook: a progress bar while grading and a result card afterwards.

Widgets and HTML where a Jupyter frontend is there; plain text otherwise (papermill logs, terminals).
"""

from __future__ import annotations

import html

from autograder.core.protocol import FAILED, PASSED, SKIPPED, Report
from autograder.core.timing import format_seconds

# What a learner without a GPU is told about a check that needs one (README, "No GPU?", says how to get one).
NO_GPU = ("Not a failure of your code: run the notebook on a machine with a CUDA GPU to get these points (README, "
          "\"No GPU?\": a free one on Colab or Kaggle)")


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython

        return get_ipython() is not None and hasattr(get_ipython(), "kernel")
    except ImportError:
        return False


class Progress:
    """``update(done, total, label)``: an ipywidgets bar in a kernel, text lines elsewhere."""

    def __init__(self, title: str):
        self.title, self.widget = title, None
        if _in_kernel():
            try:
                import ipywidgets
                from IPython.display import display

                self.widget = ipywidgets.IntProgress(value=0, min=0, max=1, description="grading",
                                                     layout={"width": "60%"})
                self.label = ipywidgets.Label(title)
                display(ipywidgets.HBox([self.widget, self.label]))
            except ImportError:
                self.widget = None

    def update(self, done: int, total: int, label: str) -> None:
        if self.widget is not None:
            self.widget.max, self.widget.value = total, done
            self.label.value = f"{self.title}: {label}"
        else:
            print(f"[{done}/{total}] {label}", flush=True)

    def close(self) -> None:
        """Fill the bar: a report reused from an earlier cell (nothing left to grade) is finished too."""
        if self.widget is not None:
            self.widget.value = self.widget.max
            self.widget.bar_style = "success"
            self.label.value = f"{self.title}: done"


class HintLadder:
    """A check's hints (from the exercise spec), revealed one at a time. Hints point the way; they never
    contain the solution."""

    def __init__(self, check_id: str, hints: list[str]):
        self.check_id, self.hints, self.shown = check_id, list(hints), 0

    def next(self) -> str:
        if not self.hints:
            return f"No hints for {self.check_id}: the message above says what failed."
        if self.shown >= len(self.hints):
            return f"No more hints for {self.check_id} ({len(self.hints)} shown): the lesson's sections have the rest."
        self.shown += 1
        return f"Hint {self.shown}/{len(self.hints)} for {self.check_id}: {self.hints[self.shown - 1]}"

    def html(self) -> str:
        """The hints as nested ``<details>``: "show a hint" opens the first, and inside it "show the next hint"
        the next, so they come one at a time. Plain HTML, not a widget: it needs no kernel connection (a widget
        made before a kernel switch stays "Loading widget..." for good) and works in feedback pages too."""
        inner = ""
        for n in range(len(self.hints), 0, -1):
            label = "show a hint" if n == 1 else "show the next hint"
            text = html.escape(f"Hint {n}/{len(self.hints)} for {self.check_id}: {self.hints[n - 1]}")
            inner = (f"<details class='course-hint'><summary class='course-hint-button' style='cursor:pointer;"
                     f"color:#1a5fb4'>{label}</summary><div class='course-hints'>{text}</div>{inner}</details>")
        return inner


def report_text(report: Report) -> str:
    lines = report.lines()
    if any(r.status == FAILED for r in report.results):
        lines.append(f"  hints, one at a time: autograder.selfcheck.hint({report.exercise!r}, CHECK_ID)")
    for r in report.results:
        if r.status == SKIPPED:
            lines.append(f"  {r.id} is not graded on this machine: {NO_GPU}")
        elif not r.passed:
            if r.hint:
                lines.append(f"  hint for {r.id}: {r.hint}")
            for reason in r.details.get("diagnosis", []):
                lines.append(f"  why: {reason}")
    return "\n".join(lines)


def speed_chart(details: dict, title: str):
    """Per-block times of baseline and candidate (a matplotlib Figure)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 2.6))
    data = [[t * 1e3 for t in details["baseline_per_call_s"]], [t * 1e3 for t in details["candidate_per_call_s"]]]
    ax.boxplot(data, vert=False, widths=0.5)
    ax.set_yticks([1, 2], ["baseline", "yours"])
    ax.set_xlabel("ms per call (each point: one timed block)")
    ax.set_xscale("log")
    ax.set_title(f"{title}: {details['speedup']:.2f}x (gate {details['gate']:g}x)")
    fig.tight_layout()
    return fig


def show_report(report: Report, exercise) -> None:
    if not _in_kernel():
        print(report_text(report))
        return
    from IPython.display import display

    rows = []
    for r in report.results:
        color = "#1a7f37" if r.passed else ("#9a6700" if r.status != "failed" else "#cf222e")
        extra = ""
        if r.status == SKIPPED:
            extra = f"<div style='color:#555'>{html.escape(NO_GPU)}</div>"
        elif not r.passed:
            why = "".join(f"<li>{html.escape(x)}</li>" for x in r.details.get("diagnosis", []))
            extra = (f"<div style='color:#555'>{html.escape(r.hint)}</div>" if r.hint else "") + (
                f"<ul>{why}</ul>" if why else "")
        if r.notes:  # what the learner's process said about itself: shown, never graded
            extra += ("<div class='course-notes' style='color:#555'>Notes (your process's word, not graded):<ul>"
                      + "".join(f"<li>{html.escape(n)}</li>" for n in r.notes) + "</ul></div>")
        status = "NOT GRADED HERE" if r.status == SKIPPED else r.status.upper()
        rows.append(f"<tr><td style='color:{color};font-weight:bold'>{status}</td>"
                    f"<td>{html.escape(r.title)}</td><td>{r.points:g}/{r.max_points}</td>"
                    f"<td>{html.escape(r.message)}{extra}</td></tr>")
    # text/plain beside the HTML: what papermill's logs, nbconvert --to script and text-only views show
    skipped = sum(r.max_points for r in report.results if r.status == SKIPPED)
    unseen = f" ({skipped:g} not graded here: no GPU)" if skipped else ""
    display({"text/html": f"<div class='course-result-card'><h3>{html.escape(exercise.title)}: {report.points:g}/"
                          f"{report.max_points} points{unseen}</h3><table>{''.join(rows)}</table></div>",
             "text/plain": report_text(report)}, raw=True)
    for r in report.results:
        if "baseline_per_call_s" in r.details:
            import matplotlib.pyplot as plt

            fig = speed_chart(r.details, r.title)
            display(fig)
            plt.close(fig)
            d = r.details
            print(f"{r.id}: baseline {format_seconds(d['baseline_s'])}, yours {format_seconds(d['candidate_s'])}, "
                  f"compile/first call {format_seconds(d['compile_s'])}")
    for r in report.results:
        if r.status == FAILED and exercise.hints.get(r.id):
            ladder = HintLadder(r.id, exercise.hints[r.id])
            display({"text/html": f"<div><b>{html.escape(r.id)}</b> failed:{ladder.html()}</div>",
                     "text/plain": f"{r.id}: autograder.selfcheck.hint({exercise.id!r}, {r.id!r}) shows a hint"},
                    raw=True)
    if all(r.status == PASSED for r in report.results):
        print("All checks passed.")
