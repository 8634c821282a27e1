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
                    "compile changes execution (fusion, less Python overhead): same function, results equal up to "
                    "rounding (fused kernels round differently, so compare with a tolerance)."),
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
    "02": [
        Question("What does Dynamo hand to a backend?",
                 ("Python bytecode", "A torch.fx.GraphModule of the captured ops, with example inputs",
                  "Triton source code", "A TorchScript module"),
                 1, "Dynamo runs your function's bytecode symbolically and records the tensor ops in an FX graph; "
                    "the backend (inductor, aot_eager, or your own callable) gets the GraphModule and example inputs "
                    "and returns something callable to run instead."),
        Question("Your function has one graph break in the middle. How many times is the backend called?",
                 ("Once: the break is ignored", "Twice: one graph before the break, one after",
                  "Never: the whole function runs eagerly", "Once per call of the function"),
                 1, "Each side of the break is its own graph; the code at the break runs in Python. (Inside a "
                    "loop, a break can instead make Dynamo skip the frame: lesson 4.)"),
        Question("In the forward graph AOTAutograd builds, `y.add_(1.0)` appears as...",
                 ("aten.add_ (in place)", "aten.add (out of place): the graph is functionalised",
                  "a Python call", "nothing: AOTAutograd drops it"),
                 1, "Functionalisation rewrites mutations as pure ops (and copies back into inputs where needed), "
                    "so the compiler can reorder and fuse freely."),
        Question("backend='aot_eager' on a training step is...",
                 ("as fast as inductor", "no faster than backend='eager': it traces forward and backward but "
                  "generates no kernels", "faster than inductor for fp32", "unable to run backward"),
                 1, "aot_eager runs the traced ATen graphs with the same eager kernels; it is a debugging tool to tell "
                    "a Dynamo/AOTAutograd problem from an Inductor one. In the lesson's runs it was slower than "
                    "backend='eager' every time (and than no compile on both H200 runs); on exercise 02's step "
                    "0.78x of eager (H200, 20 gradings)."),
        Question("Why is the second compile of the same function, in a new process, faster than the first?",
                 ("The GPU remembers it", "Inductor's on-disk caches (FX graph cache, AOTAutograd cache, compiled "
                  "kernels) under TORCHINDUCTOR_CACHE_DIR survive the process", "Python caches bytecode",
                  "It is not: every process compiles from scratch"),
                 1, "The caches are on by default and keyed on the graph, the inputs' properties and the torch "
                    "version; Dynamo still re-traces, but code generation and kernel compiles are reused."),
        Question("You compile each of 24 identical transformer blocks (regional compilation) instead of the model. "
                 "What do you expect?",
                 ("24 compiles", "A compile time that stops growing with depth: one block's code is reused",
                  "A faster steady state than whole-model compile", "It does not work with nn.Sequential"),
                 1, "The blocks share code, so the compiled graph is reused (after at most a recompile), and compile "
                    "time stops growing with depth. Nothing fuses across blocks, and the steady state moved both "
                    "ways in the lesson's runs (25% and 2.5x slower in two, 20% faster in another): measure both."),
        Question("A compiled optimizer step runs under an LR scheduler with lr=0.01 (a Python float). What does "
                 "the scheduler's first change of the learning rate do?",
                 ("Nothing: the graph reads the new value", "It fails a guard on the old value and recompiles",
                  "It raises an error", "The step silently keeps using 0.01"),
                 1, "A Python float read inside a compiled function is guarded on its value; the lesson's recompile "
                    "log prints that guard. What the next changes cost depends on the code that reads it (torch "
                    "2.11/2.13): Adam's single-tensor code makes it symbolic after that one recompile, its foreach "
                    "code (CUDA's default) recompiles for every value. lr=torch.tensor(0.01) makes it data: one "
                    "graph for every value."),
        Question("A training step's forward has one graph break. With plain torch.compile, how is its backward "
                 "compiled?",
                 ("As one graph, captured when backward() runs", "As two graphs, one per forward piece, traced ahead "
                  "of time by AOTAutograd", "Not at all: the backward runs eagerly", "As one graph per ATen op"),
                 1, "AOTAutograd derives each backward graph from its forward graph, so the break splits the backward "
                    "too. Compiled autograd (torch._dynamo.config.compiled_autograd = True, set before "
                    "torch.compile) captures the whole backward at run time as one graph instead, but only for a "
                    "backward() called inside the compiled function: one called outside is not captured, silently "
                    "(the lesson's counts show both)."),
        Question("The compiled model's results differ from eager. With backend='eager' and backend='aot_eager' they "
                 "match; with 'inductor' they do not. Where do you look next?",
                 ("Dynamo's graph capture", "AOTAutograd's backward", "Inductor: its config flags, then the "
                  "minifier (TORCHDYNAMO_REPRO_AFTER='aot')", "The GPU driver"),
                 2, "Each backend adds one stage: the first one that differs names the stage. Inductor here means "
                    "its decompositions or its code generation: backend='aot_eager_decomp_partition' tells them "
                    "apart (the lesson's dropout example already differs there). Random numbers are the lesson's "
                    "example (fallback_random=True makes them eager's)."),
    ],
    "03": [
        Question("Your model's GPU kernels add up to 150 us per call, but a call takes 700 us of wall time. "
                 "Which mode is most likely to help?",
                 ("max-autotune-no-cudagraphs: faster GEMM kernels", "reduce-overhead: CUDA graphs",
                  "default: more fusion", "None: the GPU is saturated"),
                 1, "The GPU is busy about 20% of the time: the rest is Python and kernel launches (launch-bound). "
                    "CUDA graphs replay all the kernels with one launch; faster kernels shorten only the 20%."),
        Question("What does mode='max-autotune' switch on that 'max-autotune-no-cudagraphs' does not?",
                 ("Coordinate-descent tuning", "GEMM autotuning", "CUDA graphs", "Dynamic shapes"),
                 2, "list_mode_options() shows it: both set max_autotune and coordinate_descent_tuning; only "
                    "max-autotune adds triton.cudagraphs."),
        Question("On a large, matmul-bound batch, reduce-overhead measured the same as the default mode. Why?",
                 ("CUDA graphs were skipped", "Launch overhead is a tiny share of a call dominated by long kernels",
                  "reduce-overhead only works for training", "The default mode already uses CUDA graphs"),
                 1, "CUDA graphs remove per-kernel launch cost, a few microseconds each. When each kernel runs for "
                    "milliseconds, there is nothing left to remove."),
        Question("f = torch.compile(model, mode='reduce-overhead'); a = f(x1); b = f(x2). After warm-up, what "
                 "can `a` hold?",
                 ("Always model(x1)", "Possibly model(x2): the replay wrote into the same memory",
                  "A copy on the CPU", "Nothing: a is freed"),
                 1, "CUDA-graph outputs live in the graph's memory pool and the next replay reuses it. Early on "
                    "reading `a` raises an error; after warm-up it can silently hold b's values. Clone what you keep."),
        Question("Which call switches a compiled function to eager without recompiling, e.g. to compare the two?",
                 ("torch._dynamo.reset()", "torch.compiler.set_stance('force_eager')",
                  "torch.compile(model, mode='eager')", "model.eval()"),
                 1, "set_stance (torch 2.6+) changes what compiled functions do on their next calls; leaving the "
                    "context returns to the compiled code, with no new compile. reset() throws compiled code away."),
        Question("Why may max-autotune not tune matmuls at all on a T4?",
                 ("T4s do not support Triton", "It has fewer SMs than Inductor requires for GEMM autotuning (68)",
                  "max-autotune needs bfloat16", "T4s have no tensor cores"),
                 1, "Inductor's is_big_gpu() checks the SM count; below 68 it logs 'Not enough SMs to use "
                    "max_autotune_gemm mode' and keeps the library GEMMs."),
        Question("A submission wraps its model in torch.autocast('cuda', dtype=torch.bfloat16) and is graded "
                 "against the fp32 model with rtol=1e-4. What happens?",
                 ("It passes: autocast keeps fp32 accuracy", "It fails the correctness check: bf16 rounding leaves "
                  "errors around 1e-3 to 1e-2", "It is faster and therefore passes", "autocast is ignored under "
                  "torch.compile"),
                 1, "bf16 stores 7 mantissa bits (8 with the implicit leading one; fp32 stores 23); the lesson's "
                    "cell prints the error of each precision against a float64 run. The grader pins fp32 so a "
                    "speedup is compile's, not rounding's."),
    ],
    "04": [
        Question("Which of these does NOT break the graph under the default torch.compile?",
                 ("print(y.shape)", "s = y.sum().item()", "z = np.tanh(y.numpy())", "if y.sum() > 0: ..."),
                 2, "Dynamo translates NumPy calls on tensors into torch ops. print is I/O, .item() and a Python "
                    "if on a tensor need the tensor's value on the host: those three break."),
        Question("A function has `if x.mean().item() > 1: x = x / 2` inside a `for` loop. What does "
                 "torch.compile do with it?",
                 ("One graph per iteration", "Two graphs per iteration", "Skips the whole function: 0 graphs, "
                  "eager speed", "Raises an error"),
                 2, "Dynamo cannot resume in the middle of a loop after a break, so it skips the frame and runs "
                    "it eagerly. explain() reports 0 graphs."),
        Question("Lesson 4's BrokenBlock reads `spread = max(h.std().item(), 1e-3)` and logs it. Why can the "
                 "compiled stack end up slower than eager?",
                 ("item() is slow on GPUs", "The way the float is used makes Dynamo guard on its value: every new "
                  "value recompiles, until the limit, then eager", "It disables fusion in the whole model",
                  "Every .item() float recompiles for each new value, however it is used"),
                 1, "A float used only in arithmetic recompiles once and then becomes a symbol (breaks.with_item: 3 "
                    "graphs over 12 values). Here its uses are guarded by value, so each call fails the guard: "
                    "recompile after recompile, then the recompile limit sends it to eager. TORCH_LOGS='recompiles' "
                    "names the guard."),
        Question("You call torch._dynamo.explain(g)(x) between compiling f and timing it. What happens?",
                 ("Nothing: explain only reads", "f's compiled code is thrown away and the timing includes a "
                  "recompile", "f is run eagerly forever", "explain raises"),
                 1, "explain() calls torch._dynamo.reset() before and after, which wipes every compiled function "
                    "in the process."),
        Question("Which fix keeps one graph AND runs only the chosen side of a branch?",
                 ("torch.where(c, a(x), b(x))", "torch.cond(c, a, b, (x,))",
                  "if torch.compiler.is_compiling(): ...", "@torch.compiler.disable"),
                 1, "torch.where computes both sides and picks; torch.cond is a higher-order op that runs one. "
                    "is_compiling() would change what the compiled path computes; disable declares a break."),
        Question("With `fullgraph=True`, what happens at the first graph break?",
                 ("It is skipped silently", "torch.compile raises, naming the cause and the line",
                  "The function runs eagerly", "Dynamo retries with dynamic shapes"),
                 1, "fullgraph=True turns a break into an error: the quickest way to walk through a function's "
                    "breaks one at a time. (.item() is an exception since torch 2.10: captured as a symbol.)"),
    ],
    "05": [
        Question("A compiled function is called with lengths 64, 128, 256 (default dynamic=None). How many graphs?",
                 ("1", "2: a static one for 64, then a dynamic one that serves 128 and 256", "3", "8, then eager"),
                 1, "Automatic dynamic: the first call specialises; the first size change recompiles with the length "
                    "as a symbol, and later lengths reuse that graph."),
        Question("A module's forward does `self.calls += 1` (a Python int). torch.compile(model) over 20 calls:",
                 ("1 graph", "2 graphs, then dynamic", "8 graphs, then the rest run eagerly, after one logged warning",
                  "an error at the second call"),
                 2, "Integer attributes of an nn.Module are static: the guard self.calls == N fails every call, "
                    "until recompile_limit (8); then Dynamo logs one warning and compiles nothing more for the "
                    "function. Every cached graph guards on an old count, so none matches again: every later call "
                    "runs eagerly."),
        Question("Which of these does NOT add a guard that can make a compiled function recompile?",
                 ("model.eval() after model.train()", "wrapping a call in torch.no_grad()",
                  "a new tensor with the same shape, dtype and device", "a float64 input after float32 ones"),
                 2, "Guards check tensor metadata (dtype, device, size, stride, requires_grad) and global state, not "
                    "values: new data with the same metadata reuses the graph."),
        Question("Under torch.compiler.set_stance('fail_on_recompile'), a function that has already hit the "
                 "recompile limit gets a new shape. What happens?",
                 ("It raises", "It runs eagerly without an error", "It recompiles anyway", "It returns None"),
                 1, "Past the limit Dynamo no longer compiles that function, so there is no recompile to fail on: "
                    "it runs eagerly. Count graphs as well as using the stance."),
        Question("You pad requests to bucket lengths for a model whose attention looks at every position. What "
                 "else is needed for correct outputs?",
                 ("Nothing: padding with zeros is harmless", "A mask, so no position attends to the padding",
                  "dynamic=True", "A larger recompile limit"),
                 1, "Zero rows still get attention weight (exp(0) is not 0) and change every real output; a key "
                    "padding mask gives them weight 0. The lesson's mean over the sequence shows the same."),
        Question("What does torch._dynamo.mark_dynamic(x, 1) do that dynamic=None does not?",
                 ("Nothing", "Makes dim 1 dynamic from the first compile (one graph, no static first graph), and "
                  "errors if the graph specialises it", "Pads dim 1 to a bucket", "Disables guards on x"),
                 1, "Automatic dynamic compiles a static graph first and goes dynamic at the first change; "
                    "mark_dynamic skips the static graph and insists the dimension stays dynamic."),
    ],
    "06": [
        Question("Why must a model be warmed up before torch.cuda.graph captures it?",
                 ("To fill the GPU caches", "Lazy initialisation (cuBLAS handles, workspaces, allocator pools) "
                  "cannot happen inside a capture", "Warm-up makes the replay faster", "It is optional"),
                 1, "During capture, kernels are recorded, not run; set-up work that allocates or synchronises "
                    "fails there. In a fresh process the first matmul's set-up happens inside the capture."),
        Question("You replay a captured graph after calling step(x) with a new tensor x, but forgot "
                 "static_in.copy_(x). What does the output hold?",
                 ("The result for x", "The result for whatever is in the captured input buffer",
                  "An error", "NaN"),
                 1, "A graph records addresses. It reads the static input buffer, not the new tensor."),
        Question("Which of these can be captured in a CUDA graph?",
                 ("y.sum().item()", "x[x > 0]", "x * 2 + 1 on a static buffer", "y.cpu()"),
                 2, ".item() and .cpu() sync with the host, x[x > 0] has a data-dependent size; pointwise work on "
                    "fixed addresses is what graphs record."),
        Question("With mode='reduce-overhead', you keep out1 = f(x1) and call f(x2). After warm-up, out1 may...",
                 ("always keep its values", "hold f(x2)'s values, without any error", "raise an error always",
                  "be moved to the CPU"),
                 1, "Each call is a new generation that reuses the previous outputs' memory. Early on reading out1 "
                    "raises; after warm-up it can silently change. Clone outputs you keep."),
        Question("Which API turns on CUDAGraph Trees?",
                 ("torch.jit.script + torch.compiler.optimize", "torch.compile(model, mode='reduce-overhead')",
                  "torch.compiler.CUDAGraph()", "torch.jit.load"),
                 1, "CUDAGraph Trees are Inductor's: reduce-overhead (or max-autotune, or "
                    "options={'triton.cudagraphs': True}). torch.compiler.optimize and torch.compiler.CUDAGraph "
                    "do not exist."),
        Question("When do CUDA graphs stop paying off?",
                 ("Never", "When each kernel runs long enough that launch overhead is a small share",
                  "At batch size 2", "When the model has more than 8 layers"),
                 1, "A replay saves a roughly fixed cost per kernel launch; at large batches the kernels dominate."),
    ],
}


def answer(lesson: str, number: int, choice: int) -> str:
    """Check one answer (1-based question number, 0-based option index); returns the verdict and why."""
    q = QUIZZES[lesson][number - 1]
    verdict = "Correct." if choice == q.answer else f"Not quite: the answer is {q.options[q.answer]!r}."
    return f"{verdict} {q.why}"


def show(lesson: str) -> None:
    """Render the lesson's questions: radio buttons and a Check button each (text without a frontend)."""
    from autograder.course.display import _in_kernel

    questions = QUIZZES[lesson]
    if not _in_kernel():
        for n, q in enumerate(questions, 1):
            print(f"Q{n}. {q.prompt}")
            for i, option in enumerate(q.options):
                print(f"    {i}) {option}")
        print(f"Check an answer with autograder.course.quiz.answer({lesson!r}, QUESTION, OPTION).")
        return
    import ipywidgets as w
    from IPython.display import display

    boxes = []
    for n, q in enumerate(questions, 1):
        # a radio button's label is plain text: its `code` shows without the backticks
        radio = w.RadioButtons(options=[(o.replace("`", ""), i) for i, o in enumerate(q.options)], value=None,
                               layout={"width": "max-content"})
        button = w.Button(description="Check", button_style="info")
        feedback = w.HTML()

        def on_click(_, radio=radio, feedback=feedback, n=n):
            if radio.value is None:
                feedback.value = "<i>Pick an answer first.</i>"
                return
            text = answer(lesson, n, radio.value)
            color = "#1a7f37" if text.startswith("Correct") else "#cf222e"
            feedback.value = f"<span style='color:{color}'>{as_html(text)}</span>"

        button.on_click(on_click)
        boxes.append(w.VBox([w.HTML(f"<b>Q{n}. {as_html(q.prompt)}</b>"), radio, button, feedback]))
    display(w.VBox(boxes))


def as_html(text: str) -> str:
    """``text`` for an HTML widget: escaped, and `code` in backticks shown as code (it showed the backticks)."""
    import html
    import re

    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))
