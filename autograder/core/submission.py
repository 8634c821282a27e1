"""Load a submission (a notebook or a .py file) into a namespace, with clear errors for bad input."""

from __future__ import annotations

import ast
import inspect
import json
import linecache
import math
import sys
import textwrap
import traceback
import types
from pathlib import Path

CELLS = "__cells__"
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


def closure_source(fn, namespace: dict, name: str | None = None) -> str:
    """Python source that defines ``fn`` again in a fresh process, as ``name`` (default: its own): the modules
    ``namespace`` imported, the functions and classes of the submission that ``fn`` names (followed recursively,
    through decorators, default values, base classes and methods), what it names that was imported from a module
    (``from torch.cuda import CUDAGraph``), simple constants (numbers, strings, and lists, tuples, sets and dicts
    of them; torch dtypes and devices), then ``fn``. Source comes from the submission's own cells, never through
    ``__wrapped__`` to another function. Raises SubmissionError where a source cannot be found (a function built
    at run time, a lambda...)."""
    imports, constants, defs, seen = [], [], [], set()
    submission = namespace.get("__name__")

    def visit(obj) -> None:
        for found in sorted(_names_of(obj)):
            if found in seen or found not in namespace:
                continue
            seen.add(found)
            value = namespace[found]
            if _defined_by(value, submission):
                visit(value)
                defs.append(_source(value))
                if getattr(value, "__name__", found) != found:
                    defs.append(f"{found} = {value.__name__}\n")
            elif (const := _constant(value)) is not None:
                constants.append(f"{found} = {const}")
            elif (reached := _importable(value, submission)) is not None:
                constants.append(f"{found} = {reached}")

    for key, value in namespace.items():
        if isinstance(value, types.ModuleType) and not key.startswith("_"):
            imports.append(f"import {value.__name__}" if value.__name__ == key
                           else f"import {value.__name__} as {key}")
    seen.add(fn.__name__)
    if name:
        seen.add(name)
    visit(fn)
    alias = [f"{name} = {fn.__name__}"] if name and name != fn.__name__ else []
    return "\n".join(imports + constants + [""] + defs + [_source(fn)] + alias)


def _own_code(obj):
    """The code object of ``obj`` (a function, or a decorator's wrapper around one) that a submission cell
    compiled, or None."""
    candidates = [obj]
    try:
        candidates.append(inspect.unwrap(obj))
    except ValueError:  # a __wrapped__ cycle
        pass
    for candidate in candidates:
        code = getattr(candidate, "__code__", None)
        if isinstance(code, types.CodeType) and code.co_filename.startswith(SUBMISSION_FILE):
            return code
    return None


def _defined_by(value, submission) -> bool:
    """A function or class that the submission's cells define (decorated or not)."""
    if isinstance(value, type):
        return value.__module__ in (submission, "__main__")
    return callable(value) and _own_code(value) is not None


def _names_of(obj) -> set[str]:
    """Every global name ``obj``'s source can read: its code's names (nested code included) and the names in
    its definition (decorators, default values, base classes, class attributes)."""
    found, codes = set(), []
    members = list(vars(obj).values()) if isinstance(obj, type) else [obj]
    for member in members:
        for part in (member, getattr(member, "__func__", None), getattr(member, "fget", None),
                     getattr(member, "fset", None)):
            code = _own_code(part) if part is not None and callable(part) else None
            if code is not None:
                codes.append(code)
    while codes:
        code = codes.pop()
        found.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    try:
        tree = ast.parse(textwrap.dedent(_source(obj)))
    except (SubmissionError, SyntaxError):
        return found
    found.update(node.id for node in ast.walk(tree) if isinstance(node, ast.Name))
    return found


def _constant(value, depth: int = 0) -> str | None:
    """Source that makes ``value`` again, for plain data (numbers, strings, None, and containers of them)."""
    if depth > 6:
        return None
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_constant(v, depth + 1) for v in value]
        if any(i is None for i in items):
            return None
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        if isinstance(value, tuple):
            return "(" + "".join(f"{i}, " for i in items) + ")"
        return f"{type(value).__name__}([" + ", ".join(items) + "])"
    if isinstance(value, dict):
        pairs = [(_constant(k, depth + 1), _constant(v, depth + 1)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None


def _importable(value, submission: str | None = None) -> str | None:
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
    if not (isinstance(module, str) and isinstance(qualname, str)) or "<" in qualname \
            or module in ("__main__", "__submission__", submission):
        return None
    try:
        if functools.reduce(getattr, qualname.split("."), importlib.import_module(module)) is not value:
            return None
    except (ImportError, AttributeError):
        return None
    return f"__import__('importlib').import_module({module!r}).{qualname}"


def _source(obj) -> str:
    """The source of a function or class of the submission, from its own cell: a function's from its code
    object (with its decorators; never another function's through ``__wrapped__``), a class's from the cells'
    syntax trees (the last cell that defines that name)."""
    if isinstance(obj, type):
        module = sys.modules.get(obj.__module__)
        for filename in reversed(getattr(module, CELLS, None) or []):
            if filename not in linecache.cache:
                continue
            lines = linecache.cache[filename][2]
            try:
                tree = ast.parse("".join(lines))
            except SyntaxError:
                continue
            found = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == obj.__name__]
            if found:
                node = found[-1]
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                return "".join(lines[first - 1:node.end_lineno])
        raise SubmissionError(f"cannot find the source of class {obj.__name__!r}: define it with class in a cell")
    code = _own_code(obj)
    try:
        return inspect.getsource(code if code is not None else obj)
    except (OSError, TypeError) as err:
        raise SubmissionError(f"cannot find the source of {getattr(obj, '__name__', obj)!r}: define it with def "
                              f"or class in a cell ({err})") from None
