"""What torch.compile did: graphs, graph breaks (reason, file:line), recompiles (guard), cudagraph skips,
generated kernels — observed without ``torch._dynamo.explain``, which resets Dynamo and so wipes every
compiled function in the process.

In a grading these are observed in the submission's process and sent to the trusted side as JSON
(:meth:`CompileEvents.to_json`): they are what that process says, which the report marks as self-reported.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
import torch._logging


@dataclass
class GraphBreak:
    where: str  # "file.py:LINE"
    reason: str  # first line of Dynamo's explanation
    frames: list[str] = field(default_factory=list)  # user-code traceback, outermost first: "file:line in func"

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"

    @property
    def inside_forward(self) -> bool:
        """The break happened while a module's forward ran: the model's graph (and its backward) is split.
        A break at ``loss.backward()`` or inside ``optimizer.step()`` is outside any forward."""
        return any(f.endswith((" in _call_impl", " in forward")) for f in self.frames)


@dataclass
class Recompile:
    function: str
    where: str
    guards: list[str]

    def __str__(self) -> str:
        return f"{self.function} ({self.where}) recompiled: {'; '.join(self.guards) or 'guard failed'}"


@dataclass
class CompileEvents:
    graphs: int = 0  # graphs Dynamo handed to a backend
    graph_breaks: list[GraphBreak] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    cudagraph_skips: int = 0
    kernels: int = 0  # kernels Inductor generated
    limit_hits: list[str] = field(default_factory=list)  # "hit config.recompile_limit": the function runs eager
    _start: tuple | None = field(default=None, repr=False)  # counters when the capture began

    def snapshot(self) -> CompileEvents:
        """The events so far, with the counters read now (inside a still-open capture)."""
        if self._start is None:
            return self
        graphs0, skips0, kernels0 = self._start
        return CompileEvents(_counter("stats", "unique_graphs") - graphs0, list(self.graph_breaks),
                             list(self.recompiles), _counter("inductor", "cudagraph_skips") - skips0,
                             _kernel_count() - kernels0, list(self.limit_hits))

    def since(self, earlier: CompileEvents) -> CompileEvents:
        """What happened after ``earlier`` (a snapshot of the same capture)."""
        return CompileEvents(self.graphs - earlier.graphs, self.graph_breaks[len(earlier.graph_breaks):],
                             self.recompiles[len(earlier.recompiles):],
                             self.cudagraph_skips - earlier.cudagraph_skips, self.kernels - earlier.kernels,
                             self.limit_hits[len(earlier.limit_hits):])

    def to_json(self) -> dict:
        return {"graphs": self.graphs, "kernels": self.kernels, "cudagraph_skips": self.cudagraph_skips,
                "graph_breaks": [vars(b) for b in self.graph_breaks], "recompiles": [vars(r) for r in self.recompiles],
                "limit_hits": list(self.limit_hits)}

    @classmethod
    def from_json(cls, data: dict) -> CompileEvents:
        """Rebuilt from what a worker sent, with every field checked for its type (the sender is untrusted)."""
        def strs(items):
            return [str(i)[:500] for i in items[:1000]] if isinstance(items, list) else []

        def items(key):
            found = data.get(key) if isinstance(data, dict) else None
            return [i for i in found[:1000] if isinstance(i, dict)] if isinstance(found, list) else []

        def count(key) -> int:  # a number, or 0 (a string, a float, Infinity, a list: whatever the worker sent)
            value = data.get(key, 0) if isinstance(data, dict) else 0
            return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31 else 0

        breaks = [GraphBreak(str(b.get("where", ""))[:300], str(b.get("reason", ""))[:500], strs(b.get("frames")))
                  for b in items("graph_breaks")]
        recompiles = [Recompile(str(r.get("function", ""))[:200], str(r.get("where", ""))[:300], strs(r.get("guards")))
                      for r in items("recompiles")]
        return cls(count("graphs"), breaks, recompiles, count("cudagraph_skips"), count("kernels"),
                   strs(data.get("limit_hits", []) if isinstance(data, dict) else []))

    def summary(self) -> str:
        # Dynamo counts a graph once its backend returned: kernels without a graph are a compile that raised or was
        # stopped after generating code (a max-autotune compile cut by a grading's limit read "0 graph(s) ... 44")
        unfinished = " (from a compile that did not finish)" if self.kernels and not self.graphs else ""
        return (f"{self.graphs} graph(s), {len(self.graph_breaks)} graph break(s), {len(self.recompiles)} "
                f"recompile(s), {self.kernels} generated kernel(s){unfinished}, {self.cudagraph_skips} cudagraph "
                "skip(s)")


_BREAK_AT = re.compile(r"Graph break.*? in user code at (\S+:\d+)")
_FRAME = re.compile(r'File "(.+?)", line (\d+), in (\S+)')
_RECOMPILE = re.compile(r"Recompiling function (\S+) in (\S+:\d+)")


def _parse_break(message: str) -> GraphBreak | None:
    where = _BREAK_AT.search(message)
    if not where:
        return None
    lines = [ln.strip() for ln in message.splitlines()]
    reason = ""
    for i, line in enumerate(lines):
        if line.startswith("Explanation:"):
            reason = line.removeprefix("Explanation:").strip()
            break
        if line.startswith("Graph Break Reason:") and not reason:
            reason = line.removeprefix("Graph Break Reason:").strip()
            nxt = next((ln for ln in lines[i + 1:] if ln), "")
            reason = nxt or reason
    traceback = message.split("User code traceback:", 1)[1] if "User code traceback:" in message else ""
    frames = [f"{file}:{line} in {func}" for file, line, func in _FRAME.findall(traceback)]
    return GraphBreak(where.group(1), reason, frames)


def _parse_recompile(message: str) -> Recompile | None:
    m = _RECOMPILE.search(message)
    if not m:
        return None
    guards = [ln.strip()[2:].split("#")[0].strip() for ln in message.splitlines()
              if ln.strip().startswith("- ") and "User stack" not in ln and "File " not in ln]
    return Recompile(m.group(1), m.group(2), [g for g in guards if g and not g.startswith("  ")])


class _Collector(logging.Handler):
    def __init__(self, events: CompileEvents):
        super().__init__(logging.DEBUG)
        self.events = events

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.name.endswith("__graph_breaks"):
            brk = _parse_break(message)
            if brk:
                self.events.graph_breaks.append(brk)
        elif record.name.endswith("__recompiles"):
            rec = _parse_recompile(message)
            if rec:
                self.events.recompiles.append(rec)
        elif "recompile_limit" in message or "cache_size_limit" in message:  # the name before torch 2.7
            self.events.limit_hits.append(message.strip().splitlines()[0])


def _counter(group: str, key: str) -> int:
    import torch._dynamo.utils  # here, not at the top: a judge that compiles nothing never imports Dynamo

    return int(torch._dynamo.utils.counters[group][key])


def _kernel_count() -> int:
    try:
        from torch._inductor import metrics
        return int(metrics.generated_kernel_count)
    except Exception:  # metrics moved or absent in this torch version
        return 0


@contextmanager
def capture_compile_events():
    """Record what Dynamo and Inductor do inside the block, quietly (their logs do not reach the screen).

    >>> with capture_compile_events() as events:
    ...     compiled(x)
    >>> events.graphs, events.graph_breaks, events.recompiles
    """
    events = CompileEvents()
    logger = logging.getLogger("torch._dynamo")
    saved_handlers, saved_level = logger.handlers[:], logger.level
    torch._logging.set_logs(graph_breaks=True, recompiles=True)
    for handler in logger.handlers[:]:
        logger.removeHandler(handler)
    collector = _Collector(events)
    logger.addHandler(collector)
    graphs0 = _counter("stats", "unique_graphs")
    skips0 = _counter("inductor", "cudagraph_skips")
    kernels0 = _kernel_count()
    events._start = (graphs0, skips0, kernels0)
    try:
        yield events
    finally:
        logger.removeHandler(collector)
        torch._logging.set_logs()
        for handler in logger.handlers[:]:
            logger.removeHandler(handler)
        for handler in saved_handlers:
            logger.addHandler(handler)
        logger.setLevel(saved_level)
        events.graphs = _counter("stats", "unique_graphs") - graphs0
        events.cudagraph_skips = _counter("inductor", "cudagraph_skips") - skips0
        events.kernels = _kernel_count() - kernels0
        events._start = None


@dataclass
class RecordedGraph:
    ops: Counter  # call_function / call_method / call_module targets -> count
    num_inputs: int


class RecordingBackend:
    """A Dynamo backend that records every graph it receives and then hands it to ``inner``.

    >>> backend = RecordingBackend()
    >>> torch.compile(fn, backend=backend)(x)
    >>> len(backend.graphs), backend.graphs[0].ops
    """

    def __init__(self, inner="inductor"):
        self.inner = inner
        self.graphs: list[RecordedGraph] = []

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        ops = Counter(op_name(node) for node in gm.graph.nodes
                      if node.op in ("call_function", "call_method", "call_module"))
        self.graphs.append(RecordedGraph(ops, len(example_inputs)))
        if self.inner == "eager":
            return gm.forward
        from torch._dynamo.backends.registry import lookup_backend
        return lookup_backend(self.inner)(gm, example_inputs)


def op_name(node: torch.fx.Node) -> str:
    """A readable name for an FX node's target: 'torch.tanh', 'mul', 'method:add', 'module:linear'."""
    if node.op == "call_method":
        return f"method:{node.target}"
    if node.op == "call_module":
        return f"module:{node.target}"
    target = node.target
    module = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    if module in ("_operator", "operator"):
        return name
    if module.startswith("torch"):
        return f"torch.{name}" if module in ("torch", "torch._C._VariableFunctions") else f"{module}.{name}"
    return name
