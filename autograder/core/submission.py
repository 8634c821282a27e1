"""Load a submission (a notebook or a .py file) into a namespace, with clear errors for bad input."""

from __future__ import annotations

import inspect
import json
import linecache
import sys
import traceback
import types
from pathlib import Path

SUBMISSION_FILE = "<submission>"  # each cell compiles as "<submission>:N", with its source in linecache


class SubmissionError(Exception):
    """The submission cannot be graded at all: malformed, raising on load, calling sys.exit, ..."""


def _is_test_cell(cell: dict) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


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
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise SubmissionError(f"{Path(path).name} is not a readable Jupyter notebook ({type(err).__name__}: "
                              f"{err}); re-download it or restore it from the exercise") from None
    parts = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or _is_test_cell(cell):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
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
    namespace["get_ipython"] = _NoKernel  # what plain_python made of the cells' magics: calls that do nothing
    for number, source in enumerate(sources, 1):
        filename = f"{SUBMISSION_FILE}:{number}"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)  # inspect.getsource
        try:
            code = compile(source, filename, "exec")
        except SyntaxError as err:
            namespace[LOAD_ERRORS].append(f"code cell {number} has a syntax error, line {err.lineno}: {err.msg}")
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


def closure_source(fn, namespace: dict) -> str:
    """Python source that defines ``fn`` again in a fresh process: the modules ``namespace`` imported, the
    user-defined functions and classes ``fn`` names (followed recursively), what it names that was imported from
    a module (``from torch.cuda import CUDAGraph``), simple constants (numbers, strings, lists, tuples and dicts of
    them, torch dtypes and devices), then ``fn``. Raises SubmissionError where a source cannot be found (a
    function built at run time, a lambda...)."""
    imports, constants, defs, seen = [], [], [], set()

    def names_of(obj) -> set[str]:
        codes = [obj.__code__] if hasattr(obj, "__code__") else [
            v.__code__ for v in vars(obj).values() if hasattr(v, "__code__")]
        found = set()
        while codes:
            code = codes.pop()
            found.update(code.co_names)
            codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        return found

    def visit(obj) -> None:
        for name in sorted(names_of(obj)):
            if name in seen or name not in namespace:
                continue
            seen.add(name)
            value = namespace[name]
            if isinstance(value, (types.FunctionType, type)) and getattr(value, "__module__", None) in (
                    namespace.get("__name__"), "__main__"):
                visit(value)
                defs.append(_source(value))
            elif _literal(value):
                constants.append(f"{name} = {value!r}")
            elif (found := _importable(value)) is not None:
                constants.append(f"{name} = {found}")

    for name, value in namespace.items():
        if isinstance(value, types.ModuleType) and not name.startswith("_"):
            imports.append(f"import {value.__name__}" if value.__name__ == name
                           else f"import {value.__name__} as {name}")
    seen.add(fn.__name__)
    visit(fn)
    return "\n".join(imports + constants + [""] + defs + [_source(fn)])


def _literal(value) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_literal(v) for v in value)
    if isinstance(value, dict):
        return all(_literal(k) and _literal(v) for k, v in value.items())
    return isinstance(value, (int, float, str, bool)) or value is None


def _importable(value) -> str | None:
    """An expression that gets ``value`` again in a fresh process: an object a module defines (reached through
    the module, as the learner's `from ... import` reached it), or a torch dtype or device; else None."""
    import functools
    import importlib

    import torch

    if isinstance(value, torch.dtype):
        return f"__import__('torch').{str(value).removeprefix('torch.')}"
    if isinstance(value, torch.device):
        return f"__import__('torch').device({str(value)!r})"
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if not (isinstance(module, str) and isinstance(qualname, str)) or "<" in qualname or module == "__main__":
        return None
    try:
        if functools.reduce(getattr, qualname.split("."), importlib.import_module(module)) is not value:
            return None
    except (ImportError, AttributeError):
        return None
    return f"__import__('importlib').import_module({module!r}).{qualname}"


def _source(obj) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError) as err:
        raise SubmissionError(f"cannot find the source of {getattr(obj, '__name__', obj)!r}: define it with def "
                              f"or class in a cell ({err})") from None
