"""The wire between the trusted side (the judge) and the submission's process (the worker).

One socket, two directions that are not alike:

* judge -> worker: pickled requests. The judge's pools of input and output slots are mapped once into the
  worker (CUDA IPC through torch's multiprocessing reductions on a GPU; a file in /dev/shm that both map on a
  CPU, unlinked as soon as the worker has it), which reads its inputs from them and writes its outputs into them.
  The worker trusts the judge, so unpickling is fine there.
* worker -> judge: JSON only. The judge never unpickles anything the worker sends (a pickle can run code),
  and reads the worker's results out of its own memory.

Markers in a request name things in the worker: ``Ref(n)`` an object the worker keeps, ``Entry(name)`` a
function the submission defined, ``Fn("module:name")`` a function of the course's own code, ``Slot(...)`` a
view into a shared pool.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import pickle
import select
import socket
import struct
import tempfile
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler, recvfds, sendfds

import torch
import torch.multiprocessing as torch_mp

MAX_REPLY_BYTES = 16 * 2**20  # a reply is a few numbers and messages; a bigger one is not believed


def use_shared_memory_files() -> None:
    """Register torch's reductions (CUDA IPC) with the pickler used for requests. CPU pools do not go through
    them (see Pool): torch's file-system strategy would start a shared-memory daemon that outlives a grading and
    holds its parent's stdout open."""
    assert torch_mp is not None


def shm_dir() -> str | None:
    """Shared memory's folder (/dev/shm), where there is one; else the temporary folder."""
    return "/dev/shm" if os.path.isdir("/dev/shm") else None


def sealed_memory(nbytes: int) -> int | None:
    """A descriptor of anonymous shared memory of ``nbytes`` that no one can shrink or grow (memfd with seals), or
    None where the system has none. A pool the worker could truncate would make the judge's own reads of it fault
    (SIGBUS): a red team's worker truncated a shared file it had kept open, and the judge died without a report."""
    if not (hasattr(os, "memfd_create") and hasattr(fcntl, "F_ADD_SEALS")):
        return None
    try:
        fd = os.memfd_create("autograder-pool", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    except OSError:
        return None
    os.ftruncate(fd, nbytes)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
    return fd


def map_descriptor(fd: int, numel: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.from_file(f"/proc/self/fd/{fd}", shared=True, size=numel, dtype=dtype)


@dataclass(frozen=True)
class SharedFile:
    """A CPU pool as the worker maps it: a file both processes map (torch.from_file, shared). ``path`` None: sealed
    memory whose descriptor follows the request on the socket (SCM_RIGHTS)."""

    path: str | None
    numel: int
    dtype: str

    def open(self, fd: int | None = None) -> torch.Tensor:
        dtype = getattr(torch, self.dtype)
        if self.path is None:
            return map_descriptor(fd, self.numel, dtype)
        return torch.from_file(self.path, shared=True, size=self.numel, dtype=dtype)


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
    """The slot as a tensor of its own (sharing the pool's storage, but not a view of the pool: a caller's inputs
    are not views of one big buffer, and torch.compile guards on whether an input is a view)."""
    t = torch.empty(0, dtype=pool.dtype, device=pool.device)
    return t.set_(pool.untyped_storage(), pool.storage_offset() + slot.offset, slot.shape)


def private_pool(device):
    """A CUDA memory pool of the judge's for the pools it shares with one worker, and for nothing else.

    CUDA IPC exports a whole allocator segment (its base address; the offset of the block and a size travel beside
    it, and the receiving side can map from offset 0), and the caching allocator packs small blocks of any tensor
    into shared 2 MiB (and 20 MiB) segments: a pool allocated there took the judge's neighbouring tensors along.
    A red team's worker mapped its pool's segment from offset 0, found the judge's reference model there, zeroed a
    weight and passed with zeros. Allocated inside a MemPool of their own, the worker's pools fill segments that
    hold nothing but them (measured on an H100, torch 2.11: a worker that maps its pool's segment from offset 0
    finds the judge's tensors without it, none with it). Keep it alive until the worker is dead: the worker's
    mappings die with it. None where there is no CUDA or no MemPool (torch older than 2.5)."""
    if torch.device(device).type != "cuda" or not hasattr(torch.cuda, "use_mem_pool"):
        return None
    return torch.cuda.MemPool()


class Pool:
    """A flat shared tensor of one dtype on one device, carved into slots by a bump allocator."""

    _ids = itertools.count(1)  # next() on a count is atomic: gradings in threads never share an id

    def __init__(self, numel: int, dtype: torch.dtype, device: torch.device | str, directory: str | None = None,
                 private=None):
        """``directory``: where a CPU pool's file lives (a grading's own folder, the only one its sandboxed worker
        sees); default /dev/shm. ``private``: on a GPU, the worker's own ``torch.cuda.MemPool`` (see
        :func:`private_pool`) that the pool is allocated from."""
        self.id = next(Pool._ids)
        numel = max(numel, 1)
        self.path = self.fd = None
        self.private = private
        if torch.device(device).type == "cpu":
            nbytes = numel * torch.empty((), dtype=dtype).element_size()
            self.fd = sealed_memory(nbytes)
            if self.fd is not None:
                self.tensor = map_descriptor(self.fd, numel, dtype)
            else:  # no memfd here: a file in the grading's own folder
                fd, self.path = tempfile.mkstemp(prefix="autograder-pool-", dir=directory or shm_dir())
                os.ftruncate(fd, nbytes)
                os.close(fd)
                self.tensor = torch.from_file(self.path, shared=True, size=numel, dtype=dtype)
        elif private is not None:
            index = torch.device(device).index
            with torch.cuda.use_mem_pool(private, device=torch.cuda.current_device() if index is None else index):
                self.tensor = torch.empty(numel, dtype=dtype, device=device)
        else:
            self.tensor = torch.empty(numel, dtype=dtype, device=device)
        self.used = 0

    def shareable(self):
        """What a request carries to map this pool in the worker (with ``fd`` sent after it, where there is one)."""
        if self.path is None and self.fd is None:
            return self.tensor
        return SharedFile(self.path, self.numel, str(self.tensor.dtype).removeprefix("torch."))

    def __del__(self):
        if getattr(self, "fd", None) is not None:
            os.close(self.fd)  # the judge's mapping keeps the memory while the tensor lives

    def unlink(self) -> None:
        """Remove the file once every process that needs it has mapped it (the memory lives on until unmapped)."""
        if self.path is not None:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass

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


DIGEST_WIDTH = 1024


def digest(t: torch.Tensor, key: int) -> str:
    """A fingerprint of every element of a tensor, keyed: u^T X v over the tensor laid out as rows of
    DIGEST_WIDTH (X), with random u and v drawn from ``key``, which only the judge knows (the remainder gets
    weights of its own). Reading it makes the device read the whole tensor once, and a write in between changes
    it. An unkeyed fingerprint (a plain sum, as before) can be kept by a change that the writer balances: a red
    team rewrote the judge's inputs with cached ones while keeping each pool's sum exact. The same bytes and key
    give the same text (the same kernels, in the same order); NaNs compare equal as text."""
    flat = t.detach().reshape(-1)
    if flat.numel() == 0:
        return "empty"
    if not flat.is_floating_point():
        flat = flat.view(torch.uint8) if (flat.numel() * flat.element_size()) % 4 else flat.view(torch.int32)
        flat = flat.double()  # exact for 32-bit integers
    elif flat.dtype not in (torch.float32, torch.float64):
        flat = flat.float()
    gen = torch.Generator(device=flat.device).manual_seed(key)
    rows, rest = divmod(flat.numel(), DIGEST_WIDTH)
    v = torch.rand(DIGEST_WIDTH, generator=gen, device=flat.device, dtype=flat.dtype) + 0.5
    u = torch.rand(max(rows, 1), generator=gen, device=flat.device, dtype=flat.dtype) + 0.5
    w = torch.rand(max(rest, 1), generator=gen, device=flat.device, dtype=flat.dtype) + 0.5
    total = (flat[rows * DIGEST_WIDTH:] * w[:rest]).sum()
    if rows:
        total = total + u @ (flat[:rows * DIGEST_WIDTH].view(rows, DIGEST_WIDTH) @ v)
    return repr(float(total))


class WorkerGone(Exception):
    """The worker process ended, stopped answering, or sent something the judge does not accept."""


class JudgeEnd:
    """The judge's end: send a request, wait (with a deadline) for the JSON reply. ``on_event`` answers the
    worker's questions that arrive before the reply (a workload that waits on the judge's clock)."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def send(self, message: dict, fds: list[int] = ()) -> None:
        """The request, then (on the same socket, as ancillary data) descriptors the worker takes with it."""
        self.conn.send_bytes(bytes(ForkingPickler.dumps(message)))
        if fds:
            with socket.fromfd(self.conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sendfds(sock, list(fds))

    def readable(self, deadline: float) -> bool:
        """Whether a reply has begun to arrive by ``deadline`` (nothing is read: the judge may decide to wait on)."""
        remaining = max(0.0, deadline - time.monotonic())
        return bool(select.select([self.conn.fileno()], [], [], remaining)[0])

    def _read(self, n: int, deadline: float) -> bytes:
        """Exactly ``n`` bytes of the socket, or TimeoutError at ``deadline``: a worker that sends part of a reply
        and stops cannot keep the judge waiting past it (a red team's one byte of a length header held the judge in
        read() for good, with no report)."""
        chunks, got = [], 0
        while got < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.conn.fileno()], [], [], remaining)[0]:
                raise TimeoutError
            chunk = os.read(self.conn.fileno(), min(n - got, 1 << 20))
            if not chunk:
                raise WorkerGone("the connection closed in the middle of a reply")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _recv_bytes(self, deadline: float) -> bytes:
        """One message as multiprocessing's Connection frames it (a 4-byte big-endian length, or -1 and an 8-byte
        one), every byte read under ``deadline``."""
        size = struct.unpack("!i", self._read(4, deadline))[0]
        if size == -1:
            size = struct.unpack("!Q", self._read(8, deadline))[0]
        if size < 0 or size > MAX_REPLY_BYTES:
            raise WorkerGone(f"the worker sent a reply of {size} bytes (at most {MAX_REPLY_BYTES} are read)")
        return self._read(size, deadline)

    def receive(self, deadline: float) -> dict:
        try:
            data = self._recv_bytes(deadline)
        except TimeoutError:
            raise
        except OSError as err:
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

    def receive_fd(self) -> int:
        """A descriptor the judge sent right after its request."""
        with socket.fromfd(self.conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            return recvfds(sock, 1)[0]

    def send(self, message: dict) -> None:
        self.conn.send_bytes(json.dumps(message, default=str).encode())

    def wait_readable(self, timeout: float) -> bool:
        return bool(select.select([self.conn.fileno()], [], [], timeout)[0])
