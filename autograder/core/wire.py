"""The wire between the trusted side (the judge) and the submission's process (the worker).

One socket, two directions that are not alike:

* judge -> worker: pickled requests. Tensors travel as shared memory (CUDA IPC on a GPU, a shared-memory
  file on a CPU) through torch's multiprocessing reductions: the judge's pools of input and output slots
  are mapped once into the worker, which reads its inputs from them and writes its outputs into them.
  The worker trusts the judge, so unpickling is fine there.
* worker -> judge: JSON only. The judge never unpickles anything the worker sends (a pickle can run code),
  and reads the worker's results out of its own memory.

Markers in a request name things in the worker: ``Ref(n)`` an object the worker keeps, ``Entry(name)`` a
function the submission defined, ``Fn("module:name")`` a function of the course's own code, ``Slot(...)`` a
view into a shared pool.
"""

from __future__ import annotations

import itertools
import json
import pickle
import select
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler

import torch
import torch.multiprocessing as torch_mp

MAX_REPLY_BYTES = 16 * 2**20  # a reply is a few numbers and messages; a bigger one is not believed


def use_shared_memory_files() -> None:
    """CPU tensors travel as named shared-memory files (no file descriptors to pass between unrelated
    processes). Called on both sides before any tensor is sent."""
    torch_mp.set_sharing_strategy("file_system")


@dataclass(frozen=True)
class Ref:
    id: int


@dataclass(frozen=True)
class Entry:
    name: str


@dataclass(frozen=True)
class Fn:
    path: str  # "autograder.exercises.ex01_eager_mode.workload:gelu_bias_chain"

    def load(self):
        import importlib

        module, _, name = self.path.partition(":")
        if not module.startswith("autograder."):
            raise ValueError(f"only the course's own functions can be named: {self.path}")
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj


@dataclass(frozen=True)
class Slot:
    pool: int
    offset: int
    shape: tuple[int, ...]

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n


def view(pool: torch.Tensor, slot: Slot) -> torch.Tensor:
    return pool[slot.offset:slot.offset + slot.numel].view(slot.shape)


class Pool:
    """A flat shared tensor of one dtype on one device, carved into slots by a bump allocator."""

    _ids = itertools.count(1)  # next() on a count is atomic: gradings in threads never share an id

    def __init__(self, numel: int, dtype: torch.dtype, device: torch.device | str):
        self.id = next(Pool._ids)
        self.tensor = torch.empty(max(numel, 1), dtype=dtype, device=device)
        if self.tensor.device.type == "cpu":
            self.tensor.share_memory_()
        self.used = 0

    @property
    def numel(self) -> int:
        return self.tensor.numel()

    def alloc(self, shape) -> Slot:
        slot = Slot(self.id, self.used, tuple(int(s) for s in shape))
        if self.used + slot.numel > self.numel:
            raise MemoryError(f"pool {self.id} is full ({self.numel} elements)")
        self.used += slot.numel
        return slot

    def view(self, slot: Slot) -> torch.Tensor:
        return view(self.tensor, slot)

    def region(self, start: int = 0, end: int | None = None) -> torch.Tensor:
        return self.tensor[start:self.used if end is None else end]


def digest(t: torch.Tensor) -> str:
    """A fingerprint of every element of a tensor (its sum, by the same reduction kernel each time, so the same
    bytes always give the same digest; NaNs compare equal as text): reading it makes the device read the whole
    tensor, and a write in between changes it. A floating-point sum in the tensor's own dtype runs at memory
    speed, several times faster than an integer sum of its words."""
    flat = t.detach().reshape(-1)
    if flat.numel() == 0:
        return "empty"
    if not flat.is_floating_point():
        flat = flat.view(torch.uint8) if (flat.numel() * flat.element_size()) % 4 else flat.view(torch.int32)
        return str(int(flat.sum(dtype=torch.int64)))
    return repr(float(flat.sum()))


class WorkerGone(Exception):
    """The worker process ended, stopped answering, or sent something the judge does not accept."""


class JudgeEnd:
    """The judge's end: send a request, wait (with a deadline) for the JSON reply. ``on_event`` answers the
    worker's questions that arrive before the reply (a workload that waits on the judge's clock)."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def send(self, message: dict) -> None:
        self.conn.send_bytes(bytes(ForkingPickler.dumps(message)))

    def receive(self, deadline: float) -> dict:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not self.conn.poll(remaining):
            raise TimeoutError
        try:
            data = self.conn.recv_bytes(MAX_REPLY_BYTES)
        except (EOFError, OSError) as err:
            raise WorkerGone(f"the connection closed ({type(err).__name__})") from None
        try:
            reply = json.loads(data)
        except (ValueError, RecursionError):  # RecursionError: nesting deep enough to break the parser
            raise WorkerGone("the worker sent something that is not JSON") from None
        if not isinstance(reply, dict):
            raise WorkerGone("the worker sent a reply that is not a JSON object")
        return reply

    def close(self) -> None:
        self.conn.close()


class WorkerEnd:
    """The worker's end: requests are pickles from the judge, replies JSON."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def receive(self) -> dict:
        return pickle.loads(self.conn.recv_bytes())

    def send(self, message: dict) -> None:
        self.conn.send_bytes(json.dumps(message, default=str).encode())

    def wait_readable(self, timeout: float) -> bool:
        return bool(select.select([self.conn.fileno()], [], [], timeout)[0])
