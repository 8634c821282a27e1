"""'Check your understanding': multiple-choice questions, checked at once, with an explanation.

In a notebook each question is a set of radio buttons and a Check button; without a widget frontend
(papermill, a terminal) the questions print with their options, and ``answer(lesson, n, choice)`` checks one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
    prompt: str
    options: tuple[str, ...]
    answer: int  # index into options
    why: str


QUIZZES: dict[str, list[Question]] = {
    "01": [
        Question("Why is the first call of a torch.compile'd function slow?",
                 ("The GPU must warm up its clocks", "It captures the graph, generates and compiles kernels",
                  "Compiled functions always run slower the first 10 times", "It copies the weights"),
                 1, "Compilation is lazy: Dynamo captures on the first call and Inductor generates code then. "
                    "Later calls with compatible inputs reuse the result, which is why benchmarks warm up."),
        Question("You time a CUDA function with time.perf_counter() around a loop, without "
                 "torch.cuda.synchronize(). What do you measure?",
                 ("The kernels' run time", "Mostly the time to launch the kernels",
                  "The same as with synchronize", "Nothing: it raises"),
                 1, "CUDA ops return as soon as they are queued. Without a synchronize before stopping the clock, "
                    "the loop ends while the GPU is still working."),
        Question("Which one changes how fast the code executes, not what a module computes or records?",
                 ("model.eval()", "torch.no_grad()", "torch.compile(model)", "model.train()"),
                 2, "eval() switches dropout/batch-norm behaviour, no_grad() stops recording the autograd graph; "
                    "compile changes execution (fusion, less Python overhead) and keeps the math."),
        Question("What is in the state_dict of `torch.compile(model)` that is not in model.state_dict()?",
                 ("Compiled kernels", "An `_orig_mod.` prefix on every key", "Guards", "Nothing at all"),
                 1, "The compiled wrapper holds the original module as `_orig_mod`, so its keys get that prefix. "
                    "Save the original module's state_dict (or use Module.compile(), which compiles in place)."),
        Question("Why does compiling an op-by-op GELU chain make it several times faster on a GPU?",
                 ("Inductor uses lower precision", "The ops are fused into one kernel: one read and one write of the "
                  "tensor instead of one per op", "It skips the tanh", "It caches the results"),
                 1, "Eager runs each op as a kernel that reads and writes the whole tensor; the fused kernel keeps "
                    "intermediates in registers. The work is memory-bound, so fewer bytes moved is faster."),
    ],
}


def answer(lesson: str, number: int, choice: int) -> str:
    """Check one answer (1-based question number, 0-based option index); returns the verdict and why."""
    q = QUIZZES[lesson][number - 1]
    verdict = "Correct." if choice == q.answer else f"Not quite: the answer is {q.options[q.answer]!r}."
    return f"{verdict} {q.why}"


def show(lesson: str) -> None:
    """Render the lesson's questions: radio buttons and a Check button each (text without a frontend)."""
    from autograder.display import _in_kernel

    questions = QUIZZES[lesson]
    if not _in_kernel():
        for n, q in enumerate(questions, 1):
            print(f"Q{n}. {q.prompt}")
            for i, option in enumerate(q.options):
                print(f"    {i}) {option}")
        print(f"Check an answer with autograder.quiz.answer({lesson!r}, QUESTION, OPTION).")
        return
    import ipywidgets as w
    from IPython.display import display

    boxes = []
    for n, q in enumerate(questions, 1):
        radio = w.RadioButtons(options=list(q.options), value=None, layout={"width": "max-content"})
        button = w.Button(description="Check", button_style="info")
        feedback = w.HTML()

        def on_click(_, q=q, radio=radio, feedback=feedback, n=n):
            if radio.value is None:
                feedback.value = "<i>Pick an answer first.</i>"
                return
            text = answer(lesson, n, q.options.index(radio.value))
            color = "#1a7f37" if text.startswith("Correct") else "#cf222e"
            feedback.value = f"<span style='color:{color}'>{text}</span>"

        button.on_click(on_click)
        boxes.append(w.VBox([w.HTML(f"<b>Q{n}. {q.prompt}</b>"), radio, button, feedback]))
    display(w.VBox(boxes))
