"""Load a submission (a notebook or a .py file) into a namespace, with clear errors for bad input."""

from __future__ import annotations

import ast
import json
import linecache
import sys
import traceback
import types
from pathlib import Path

CELLS = "__cells__"
SUBMISSION_FILE = "<submission>"  # each cell compiles as "<submission>:N", with its source in linecache


class SubmissionError(Exception):
    """The submission cannot be graded at all: malformed, raising on load, calling sys.exit, ..."""


def _is_test_cell(cell: dict) -> bool:
    meta = cell.get("metadata")
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None  # a student's file: any JSON may stand here
    return isinstance(meta, dict) and bool(meta.get("grade")) and not meta.get("solution")


def _drop_magics(source: str) -> str:
    """IPython magics and shell escapes mean nothing outside a kernel; keep line numbers stable."""
    return "\n".join("pass  # " + ln if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())


def plain_python(source: str) -> str:
    """A cell's source as Python that runs outside a kernel: IPython's own transformer turns every magic, shell
    escape and help request into a call of ``get_ipython()`` (which the worker answers with nothing: see
    load_namespace), wherever it stands: inside a loop, as ``t = %timeit -o f(x)``, as ``out = !ls`` (a red team
    found an honest per-size ``%timeit`` loop a syntax error here, the cell dropped, its function's checks 0). A cell
    magic's first line is dropped and its body runs, as ``%%time`` runs it in a kernel. Where IPython is missing
    (a bare GPU image), lines that start with ``%`` or ``!`` are dropped instead."""
    lines = source.splitlines(True)
    head = ""
    if lines and lines[0].lstrip().startswith("%%"):
        head, source = "pass  # " + lines[0].rstrip("\n") + "\n", "".join(lines[1:])
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return head + (TransformerManager().transform_cell(source) if source.strip() else source)
    except Exception:  # no IPython here, or text its transformer refuses: the line rule, and the compiler says why
        return head + _drop_magics(source)


class _NoKernel:
    """What ``get_ipython()`` returns in the grader's worker: magics and shell escapes do nothing there."""

    def getoutput(self, *args, **kwargs):
        return []

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def notebook_code(path: Path) -> list[str]:
    """The code cells a notebook runs, in order, except nbgrader's graded test cells (which call the grader)."""
    try:
        nb = json.loads(Path(path).read_text(encoding="utf-8"))
        cells = nb["cells"]
        if not isinstance(cells, list):
            raise TypeError(f"its cells are a {type(cells).__name__}, not a list")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise SubmissionError(f"{Path(path).name} is not a readable Jupyter notebook ({type(err).__name__}: "
                              f"{err}); re-download it or restore it from the exercise") from None
    parts = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or _is_test_cell(cell):
            continue
        source = cell.get("source", "")
        source = "".join(map(str, source)) if isinstance(source, list) else str(source)
        parts.append(plain_python(source))
    return parts


def submission_code(path: Path) -> list[str]:
    """The sources to execute, in order: a notebook's code cells, or a .py file as one source."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"{path} does not exist")
    if path.suffix == ".ipynb":
        return notebook_code(path)
    if path.suffix == ".py":
        return [path.read_text(encoding="utf-8")]
    raise SubmissionError(f"{path.name}: expected a .ipynb notebook or a .py file")


LOAD_ERRORS = "__load_errors__"


def load_namespace(*sources: str) -> dict:
    """Execute the sources (cells), in order, in one fresh namespace; return it.

    Like nbgrader, a cell that raises does not stop the others: its error is recorded under
    ``namespace[LOAD_ERRORS]`` and reported with the checks whose functions it failed to define.
    ``sys.exit`` ends the loading with a SubmissionError: nothing after it would run in a notebook either.
    """
    # A real module in sys.modules: Dynamo looks up the module of a class it traces (a learner's nn.Module).
    module = types.ModuleType("__submission__")
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    namespace[LOAD_ERRORS] = []
    namespace[CELLS] = []  # the cells' file names in linecache, in order (a class's source is found there)
    namespace["get_ipython"] = _NoKernel  # what plain_python made of the cells' magics: calls that do nothing
    for number, source in enumerate(sources, 1):
        filename = f"{SUBMISSION_FILE}:{number}"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # inspect.getsource
        namespace[CELLS].append(filename)
        try:
            # as a kernel compiles it: without this module's `from __future__ import annotations`
            code = compile(source, filename, "exec", dont_inherit=True)
        except SyntaxError as err:
            namespace[LOAD_ERRORS].append(f"code cell {number} has a syntax error, line {err.lineno}: {err.msg}")
            continue
        except (ValueError, MemoryError, RecursionError) as err:  # a null byte; nesting past the parser's depth
            namespace[LOAD_ERRORS].append(f"code cell {number} cannot be compiled: {type(err).__name__}: "
                                          f"{str(err)[:200]}")
            continue
        try:
            exec(code, namespace)  # noqa: S102 - running the student's code is the point
        except SystemExit as err:
            raise SubmissionError(f"your code called sys.exit({err.code!r}) (or exit()); remove it: the "
                                  "grader needs your functions, not a finished process") from None
        except KeyboardInterrupt:
            raise
        except BaseException as err:
            frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == filename]
            line = source.splitlines()[frames[-1].lineno - 1].strip() if frames else ""
            where = f" at `{line}`" if line else ""
            todo = (" (a `# YOUR CODE HERE` is still to be filled in)" if isinstance(err, NotImplementedError)
                    else "")
            namespace[LOAD_ERRORS].append(f"code cell {number} raised {type(err).__name__}: {err}{where}{todo}")
    return namespace


def static_closure(sources: list[str], name: str) -> str:
    """Python source that defines the submission's ``name`` again in a fresh process, made from the submission's
    text alone, by whoever holds it (the judge), without running any of it: every top-level import, then the last
    top-level definition of ``name`` and of each name it reads, followed through what those read (functions and
    classes with their decorators, default values, base classes and bodies; plain constants: numbers, strings,
    containers of them, names, attributes such as ``torch.float32``, ``torch.device(...)``), in the order the cells
    define them. Anything else at the top level (a demo call, an attribute set on a function, a print) is not
    shipped. Raises SubmissionError where ``name`` has no top-level definition."""
    imports: list[str] = []
    bindings: dict[str, tuple[int, str, set[str]]] = {}  # name -> (position, statement's source, names it reads)
    position = 0
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        lines = source.splitlines(True)
        for node in tree.body:
            position += 1
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            text = "".join(lines[first - 1:node.end_lineno])
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.append(text)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bindings[node.name] = (position, text, _reads(node))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                    and _plain_value(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [n for t in targets for n in _target_names(t)]
                if names and all(isinstance(n, str) for n in names):
                    for target in names:
                        bindings[target] = (position, text, _reads(node.value))
    if name not in bindings:
        raise SubmissionError(f"cannot find a top-level definition of {name!r}: define it with def (or class) in a "
                              "cell")
    needed, todo = set(), [name]
    while todo:
        found = todo.pop()
        if found in needed or found not in bindings:
            continue
        needed.add(found)
        todo.extend(bindings[found][2])
    statements = sorted({bindings[n][:2] for n in needed})
    return "".join(imports) + "\n" + "\n".join(text for _, text in statements)


def compile_modes(sources: list[str]) -> list[str]:
    """The ``mode=`` strings the submission's text hands to a call of something named ``compile`` (torch.compile,
    a decorator with arguments), read from the text without running it: for the judge's messages about a compile
    that runs long (which mode searches), never for a verdict."""
    found = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, MemoryError, RecursionError):  # nesting past the parser's depth too
            continue
        for node in ast.walk(tree):
            name = getattr(node.func, "attr", getattr(node.func, "id", "")) if isinstance(node, ast.Call) else ""
            for kw in node.keywords if name == "compile" else ():
                if kw.arg == "mode" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                    found.append(kw.value.value[:40])
                elif kw.arg == "options" and isinstance(kw.value, ast.Dict) and any(
                        isinstance(k, ast.Constant) and k.value == "max_autotune" for k in kw.value.keys):
                    found.append("options: max_autotune")
    return list(dict.fromkeys(found))


# What max-autotune searches (every GEMM's kernels, every Triton kernel's launch configuration by coordinate
# descent) takes minutes on cold caches: 02's training step had not finished its first compile after 470 s on an
# H100 (benchmarks/issue38/). A grading whose submission asks for it gets this long unless someone set a limit.
SEARCHING_MODES = ("max-autotune", "max-autotune-no-cudagraphs", "options: max_autotune")
DEFAULT_LIMIT_S = 600.0
SEARCH_LIMIT_S = 1800.0


def grading_limit(sources: list[str]) -> float:
    """Seconds for a whole grading when no one set a limit: 600, or 1800 where the text asks for max-autotune.
    Time only, never points: a submission that names the mode and does not use it keeps only itself waiting."""
    return SEARCH_LIMIT_S if any(m in SEARCHING_MODES for m in compile_modes(sources)) else DEFAULT_LIMIT_S


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _target_names(target: ast.AST) -> list[str | None]:
    """The names an assignment target binds; None for a target that is not a plain name (``f.attr = ...``)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for t in target.elts for n in _target_names(t)]
    return [None]


_PLAIN_CALLS = {"float", "int", "complex", "frozenset", "set", "tuple", "list", "dict", "range", "device", "dtype"}


def _plain_value(node: ast.AST) -> bool:
    """An expression that makes a plain value (a constant, a container of them, a name, an attribute, arithmetic,
    ``torch.device('cuda')``): shipped with the functions that read it. A call of anything else is not."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain_value(node.value)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_plain_value(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is None or _plain_value(k) for k in node.keys) and all(_plain_value(v) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        return _plain_value(node.operand)
    if isinstance(node, ast.BinOp):
        return _plain_value(node.left) and _plain_value(node.right)
    if isinstance(node, ast.Call):
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return called in _PLAIN_CALLS and all(_plain_value(a) for a in node.args) \
            and all(_plain_value(k.value) for k in node.keywords)
    return False
