"""The submission's side of a grading: ``python -m autograder.core.worker FD`` (or a notebook's kernel, for
self-study) serves the judge's requests on one socket.

It loads the submission, keeps the objects the judge asks it to make, calls the submission's functions on
inputs in the judge's shared pools and writes their outputs back there. Everything here runs beside the
submission's code, which can change any of it: the judge believes nothing the worker says that it cannot
check against its own memory, clock or computation, and shows the rest (compile counters, kept outputs read back)
as notes that decide nothing (core/trust.py).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
import traceback

import torch
import torch._dynamo  # noqa: F401 - a submission's compiles need it: imported before it loads (once, in a template)

from autograder.core import settings
from autograder.core.blocks import OutputError, collect, copy_output, describe, run_block
from autograder.core.compile_events import capture_compile_events
from autograder.core.submission import SUBMISSION_FILE, SubmissionError, load_namespace
from autograder.core.timing import synchronize
from autograder.core.wire import Entry, Fn, Ref, SharedFile, Slot, WorkerEnd, use_shared_memory_files, view

_END: WorkerEnd | None = None  # the connection, for workloads that wait on the judge (ask_judge)
_SERVING: Worker | None = None


def ask_judge(event: dict) -> dict:
    """Send the judge a question in the middle of a request and wait for its answer (e.g. a workload whose
    duration only the judge knows)."""
    if _END is None:
        raise RuntimeError("not serving a judge")
    _END.send({"event": event})
    return _END.receive()


def encode_error(err: BaseException) -> dict:
    chain, seen = [], err
    while seen is not None and len(chain) < 10:
        chain.append(type(seen).__name__)
        seen = seen.__cause__ or seen.__context__
    frames = traceback.extract_tb(err.__traceback__)
    mine = [f for f in frames if f.filename.startswith(SUBMISSION_FILE) or "ipykernel" in f.filename
            or f.filename.startswith("<ipython")]
    where = ""
    if mine:
        f = mine[-1]
        where = f"{f.filename.replace(SUBMISSION_FILE + ':', 'code cell ')}, line {f.lineno}: {(f.line or '').strip()}"
    mro = [f"{c.__module__}.{c.__qualname__}"[:200] for c in type(err).__mro__[:20]]  # which FloatingPointError
    return {"type": type(err).__name__, "message": str(err)[:2000], "chain": chain, "where": where, "mro": mro}


def _is_submission_code(code) -> bool:
    return getattr(code, "co_filename", "").startswith(SUBMISSION_FILE)


def _code_of(target):
    """The code a thread was made to run, through functools.partial, bound methods and callable objects."""
    for _ in range(10):
        if target is None or hasattr(target, "__code__"):
            return getattr(target, "__code__", None)
        inner = getattr(target, "func", None) or getattr(target, "__func__", None)
        target = inner if inner is not None else vars(type(target)).get("__call__")
    return None


def submission_threads() -> dict:
    """Live threads that run, or were made to run, code the submission defined (work or GPU load on the side):
    a frame of the submission's on the thread's stack (a sleeping loop included), a target or Timer function of
    the submission's, or a Thread subclass whose run() the submission wrote (it has no target to see). As a
    reply's fields: their names, and their thread ids in this process's PID namespace (the judge reads their CPU)."""
    frames = sys._current_frames()
    found = []
    for thread in threading.enumerate():
        if thread is threading.current_thread():
            continue
        made = [_code_of(getattr(thread, attr, None)) for attr in ("_target", "function")]
        made.append(getattr(type(thread).run, "__code__", None))
        stack, frame = [], frames.get(thread.ident)
        while frame is not None:
            stack.append(frame.f_code)
            frame = frame.f_back
        if any(_is_submission_code(code) for code in made + stack):
            found.append(thread)
    return {"threads": [t.name for t in found], "thread_ids": [t.native_id for t in found]}


class Worker:
    """Serves one judge. ``namespace``: a kernel's globals (self-study) or None (a fresh process loads a file)."""

    def __init__(self, namespace: dict | None = None):
        self.namespace = namespace if namespace is not None else {}
        self.live = namespace is not None
        self.refs: dict[int, object] = {}
        self.pools: dict[int, torch.Tensor] = {}
        self.views: dict[Slot, torch.Tensor] = {}
        self.next_ref = 0
        self.settings0 = settings.fingerprint()
        self.config0 = settings.compiler_config()
        self.capture = None
        self.events = None
        self.kept: list = []  # a kept block's outputs, until the judge names their slots (op_collect)

    # ---- resolving what the judge names ----
    def resolve(self, item):
        if isinstance(item, Ref):
            return self.refs[item.id]
        if isinstance(item, Entry):
            if item.name not in self.namespace:
                raise NameError(f"no function named {item.name} was defined")
            return self.namespace[item.name]
        if isinstance(item, Fn):
            return item.load()
        if isinstance(item, Slot):
            found = self.views.get(item)
            if found is None:  # views are cached: a timed block reuses the same slots every time
                if len(self.views) > 50_000:
                    self.views.clear()
                found = self.views[item] = view(self.pools[item.pool], item)
            return found
        if isinstance(item, list):
            return [self.resolve(i) for i in item]
        if isinstance(item, tuple):
            return tuple(self.resolve(i) for i in item)
        if isinstance(item, dict):
            return {k: self.resolve(v) for k, v in item.items()}
        return item

    def keep(self, obj) -> int:
        self.next_ref += 1
        self.refs[self.next_ref] = obj
        return self.next_ref

    def state(self) -> dict:
        """What this process says about itself after a request (self-reported)."""
        now = settings.fingerprint()
        changes = settings.changed(self.settings0, now)
        if changes:
            settings.restore_fingerprint(self.settings0)  # reported once, then put back
        return {"changed": changes, **({} if self.live else submission_threads())}

    # ---- requests ----
    def handle(self, msg: dict) -> dict:
        op = msg.get("op")
        try:
            return getattr(self, f"op_{op}")(msg)
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as err:  # SystemExit too: the submission's sys.exit() is its own failure
            return {"error": encode_error(err), **self.state()}

    def op_hello(self, msg):
        return {"pid": os.getpid(), "torch": torch.__version__, "cuda": torch.cuda.is_available(), "live": self.live}

    def op_load(self, msg):
        errors, entry = [], {}
        if not self.live:
            try:
                self.namespace = load_namespace(*msg["sources"])
            except SubmissionError as err:
                return {"fatal": str(err)}
            errors = self.namespace.get("__load_errors__", [])
        changes = settings.changed(self.settings0, settings.fingerprint())
        config = settings.changed_config(self.config0, settings.compiler_config())
        settings.restore_fingerprint(self.settings0)
        settings.restore_config(self.config0)  # what the submission configured at import does not last
        for name in msg.get("entry_points", ()):
            value = self.namespace.get(name)
            entry[name] = None if value is None else describe(value)
        self.capture = capture_compile_events()
        self.events = self.capture.__enter__()
        if not self.live:  # torch, Dynamo and the submission, collected once and set aside (on the clock: loading)
            gc.collect()
            _freeze()
        return {"entry_points": entry, "load_errors": errors, "changed": changes, "config_changed": config,
                **({} if self.live else submission_threads())}

    def op_pool(self, msg):
        shared = msg["tensor"]
        if isinstance(shared, SharedFile) and shared.path is None:  # sealed memory: its descriptor follows
            fd = _END.receive_fd()
            try:
                self.pools[msg["id"]] = shared.open(fd)
            finally:
                os.close(fd)  # the mapping stays
        else:
            self.pools[msg["id"]] = shared.open() if isinstance(shared, SharedFile) else shared
        return {}

    def op_invoke(self, msg):
        if msg.get("fresh_settings"):  # the grader's own compiles run with the course's configuration
            settings.restore_fingerprint(self.settings0)
            settings.restore_config(self.config0)
        fn = self.resolve(msg["fn"])
        args = self.resolve(msg.get("args", []))
        kwargs = self.resolve(msg.get("kwargs", {}))
        stance = torch.compiler.set_stance(msg["stance"]) if msg.get("stance") else _nullcontext()
        with torch.no_grad() if msg.get("no_grad") else _nullcontext(), stance:
            out = fn(*args, **kwargs)
            if msg.get("into") is not None:
                copy_output(self.resolve(msg["into"]), out)
                synchronize(msg.get("device"))
        reply = {"value": describe(out), **self.state()}
        if msg.get("keep", True):
            reply["ref"] = self.keep(out)
        if not self.live:
            _freeze()
        return reply

    def op_block(self, msg):
        fn = self.resolve(msg["fn"])
        calls = [self.resolve(args) for args in msg["calls"]]
        outs = [self.resolve(s) for s in msg["outs"]] if msg.get("outs") is not None else None
        chain = self.resolve(msg["chain"]) if msg.get("chain") else None
        finish = None
        if msg.get("finish"):
            f_fn, f_args = self.resolve(msg["finish"][0]), self.resolve(msg["finish"][1])

            def finish():
                f_fn(*f_args)
        stance = torch.compiler.set_stance(msg["stance"]) if msg.get("stance") else _nullcontext()
        with torch.no_grad() if msg.get("no_grad") else _nullcontext(), stance:
            start = time.perf_counter()
            try:
                self.kept = run_block(fn, calls, outs, chain=chain, keep=msg.get("keep", False), finish=finish,
                                      device=msg.get("device"))
            except OutputError as err:
                return _output_error(err, self.state())
        return {"calls": len(calls), "seconds": time.perf_counter() - start, **self.state()}

    def op_collect(self, msg):
        """A kept block's outputs into the slots the judge names now, after the calls."""
        kept, self.kept = self.kept, []
        try:
            collect(kept, [self.resolve(s) for s in msg["outs"]])
        except OutputError as err:
            return _output_error(err, self.state())
        synchronize(msg.get("device"))
        return self.state()

    def op_unpool(self, msg):
        for pool in msg.get("ids", []):
            self.pools.pop(pool, None)
        self.views.clear()
        return {}

    def op_reset(self, msg):
        torch._dynamo.reset()
        return {}

    def op_events(self, msg):
        return {"events": self.events.snapshot().to_json() if self.events is not None else {}}

    def serve(self, end: WorkerEnd):
        """Answer requests until the judge says goodbye; return what it sent with it (a live grading's report)."""
        global _END, _SERVING
        _END, _SERVING = end, self
        try:
            while True:
                try:
                    msg = end.receive()
                except EOFError:
                    return None
                if msg.get("op") == "bye":
                    end.send({})
                    return msg.get("result")
                if msg.get("op") == "progress" and callable(self.on_progress):
                    self.on_progress(*msg["args"])
                    end.send({})
                    continue
                end.send(self.handle(msg))
        finally:
            _END = _SERVING = None
            if self.capture is not None:
                self.capture.__exit__(None, None, None)
            self.refs.clear()
            self.pools.clear()

    on_progress = None


def _freeze() -> None:
    """Set every object alive now aside from the cyclic garbage collector (gc.freeze: O(1)), so that a collection
    of the oldest generation during a later request scans only what was made since. Unfrozen, one scanned the whole
    heap of torch, Dynamo and the compiled code: about 0.2 s of CPU on the course's CPU machine, which landed in
    one of 05's unseen requests and made an honest server's request look like a wait (a loaded CI, 2026-11-29).
    Not in a live grading: that worker is the learner's own kernel. Objects still go when their count drops."""
    gc.freeze()


def _output_error(err: OutputError, state: dict) -> dict:
    return {"error": {"type": "OutputError", "message": str(err), "chain": ["OutputError"], "where": ""}, **state}


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def main() -> int:
    from multiprocessing.connection import Connection

    use_shared_memory_files()
    end = WorkerEnd(Connection(int(sys.argv[1])))
    Worker().serve(end)
    return 0


if __name__ == "__main__":
    from autograder.core.worker import main as _main  # this module under its own name: ask_judge sees _END

    sys.exit(_main())
