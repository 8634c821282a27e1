"""The speed check: the submission's function (in the worker) against the baseline (here), on the judge's clock.

Each timed block is one request to the worker: the judge's clock starts before the request and stops only
after the judge has read every output of the block out of its own memory (a digest of the output slots),
so work the worker leaves running after it answers cannot shorten the time; a late write shows as outputs
that changed after the clock stopped. Every call gets inputs no earlier call had (fresh values in every block,
and for launch-bound exercises a chain through the previous output, so nothing can be computed ahead).
After a block the judge picks calls at random and checks their outputs against its own reference, computed from
its own copy of the inputs (the shared copy must still match it, bit for bit). The
baseline runs through the same block code in this process, with the submission's process paused (SIGSTOP)
and the GPU drained first, so nothing the submission left running can slow it down.
"""

from __future__ import annotations

import math
import os
import random
import statistics
import time
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

import torch

from autograder.core.blocks import run_block
from autograder.core.correctness import check_outputs, same_bits
from autograder.core.diagnosis import diagnose_speed
from autograder.core.profiling import copy_bandwidth  # here, not where it is used: see grading.late_imports
from autograder.core.protocol import CheckFailed, Inconclusive, Tolerance
from autograder.core.timing import (
    MIN_BLOCK_S,
    MIN_WARMUP_CALLS,
    Timing,
    _perf_counter,
    compare_runners,
    format_seconds,
    synchronize,
)
from autograder.core.trust import answer, clock, judge, worker
from autograder.core.wire import Fn, Pool, Ref, digest

KERNEL_SECONDS = "autograder.core.profiling:kernel_seconds"

SAMPLES_PER_BLOCK = 2  # outputs checked against the reference after each block of the submission's calls
# With Timed.guard, each timed block of the submission is followed, with this chance, by a guard block (drawn from
# the OS's randomness: the worker cannot know which blocks are guards, nor which call in one is poisoned).
GUARD_SHARE = 0.5
# A block crosses the process boundary once (a request, a reply, the GPU switching between the worker's and
# the judge's contexts: ~2-3 ms measured on an H200), and only the submission's side crosses it. Blocks of
# 50 ms keep that fixed cost near 5% of a block; 10 ms blocks cost the launch-bound references 7-30%.
# On a CPU the boundary is a pipe round trip (~0.1 ms): short blocks do.
GPU_BLOCK_S = 0.050
MAX_WARMUP_CALLS, MAX_WARMUP_S = 200, 60.0
# A fused kernel that reads its inputs and writes its output once cannot beat a copy of the same bytes.
CEILING = 1.0
# CPU seconds beside the requests (Session.beside_requests_s) that an honest submission may still show while it is
# timed: torch's compile-pool sidecar (torch._inductor's SubprocPool, started by the first compile) imports torch in
# the background (4.4 CPU seconds on the course's 2-core CPU), which can land after a warm-up whose compile hit the
# cache. A compile beside the requests costs more: one graph of exercise 05's encoder is seconds, 03's max-autotune
# search minutes.
BESIDE_SLACK_S = 10.0
# Counted from the candidate's fourth call on: the first three compile, warm up and record CUDA graphs (where a
# compile's workers run beside the serving thread, on the clock of exercise 03's compile budget).
BESIDE_AFTER = 3


def serving_cores(ctx) -> int:
    """Cores one request may keep busy: one on a GPU (the thread that launches the kernels and waits for them);
    torch's intra-op threads on a CPU (the worker computes with the judge's count: grading.worker_env)."""
    return 1 if ctx.cuda else torch.get_num_threads()


@dataclass
class Timed:
    """The timed calls, described once for both sides.

    ``args(generator, index)``: fresh inputs of call ``index`` (tensors on the device). ``chain``: the course
    function ("module:name") that makes a call's first input from the fresh one and the previous output.
    ``keep``: outputs must keep their values until the block ends (they are copied out then); otherwise each
    output is copied out at once (it may be reused by the next call). ``finish``: the course function run
    at the end of a block with the model (a Ref in the worker, the baseline's own here) and a slot (a training
    step's weights). ``verify(record)`` replaces the sampled reference check (a training step).
    """

    args: Callable
    tol: Tolerance
    chain: str | None = None
    keep: bool = False
    out_like: Callable | None = None  # args -> (shape, dtype) of the output; default: like args[0]
    no_grad: bool = True
    bytes_per_call: int | None = None  # fewest bytes a call moves, the copy-out included (memory-bound)
    expect_compiled: bool = True
    stance: str | None = None  # a compiler stance for the submission's timed blocks (e.g. "fail_on_recompile")
    finish: str | None = None
    finish_numel: int = 0
    verify: Callable | None = None
    min_block_s: float | None = None  # default: GPU_BLOCK_S on a GPU, MIN_BLOCK_S on a CPU
    # a timed block's calls are a multiple of this: with args cycling over that many kinds of call (05's traffic
    # lengths), every block holds each kind as often, so blocks of both sides time the same mix
    calls_multiple: int = 1
    # ``guard(generator, args) -> (args, what)``: a call's inputs made into ones on which the baseline raises
    # ``guard_raises`` (01 (b): a NaN, an overflow in a later layer). Untimed guard blocks, like the timed ones,
    # hide one such call at a random position: the function must raise at exactly that call (outputs before it
    # written and right, none after). A check that runs everywhere but in the timed blocks (it reads who calls it)
    # returns there. Needs outputs copied at once (no keep) and no chain.
    guard: Callable | None = None
    guard_raises: str = "FloatingPointError"


@dataclass
class BlockRecord:
    """One timed block as the judge saw it: inputs, outputs and the finish slot, all in its own memory."""

    index: int
    calls: list[list[torch.Tensor]]
    outs: list[torch.Tensor]
    finished: torch.Tensor | None


@dataclass
class Drawn:
    """A block's inputs as the judge drew them, in its own memory and never shared: ``args[j]`` are call j's
    arguments; ``regions[p]`` is what the shared pool of argument position p must hold (every call's, in order)."""

    args: list[tuple[torch.Tensor, ...]]
    regions: list[torch.Tensor]


class _Runner:
    """One side's blocks: fills fresh inputs, runs a block (here or in the worker), times it on the judge's
    clock with every output read before the clock stops, then checks what it must."""

    def __init__(self, ctx, timed: Timed, name: str, *, local: Callable | None = None, remote: Ref | None = None,
                 model=None, purpose: str, reference: Callable | None = None):
        self.ctx, self.timed, self.name, self.reference = ctx, timed, name, reference
        self.local, self.remote, self.model, self.purpose = local, remote, model, purpose
        self.per_call: list[float] = []
        self.overhead: list[float] = []  # judge's time minus the worker's, per block: the cost of the boundary
        self.next_call = 0
        self.blocks_run = 0
        self.in_pools: list[Pool] = []
        self.out_pool = self.finish_pool = None
        self.chain = Fn(timed.chain).load() if timed.chain else None
        self.views: dict = {}
        # Timed inputs and the calls checked come from the OS's randomness, not the secret: even someone who
        # had the secret could neither precompute a block nor know which of its calls will be checked.
        self.rng = random.SystemRandom()
        self.first = 0.0
        self.warmup_calls = 0
        self.calls = 1
        self.blocks: list[tuple[float, int]] = []  # (seconds, calls) of every block, warm-up included
        self.guards = 0  # guard blocks passed (Timed.guard)
        self.guarded = ""
        self.beside_from: tuple | None = None  # Session.beside_mark at the fourth call

    # ---- pools ----
    def _pool(self, current: Pool | None, numel: int, dtype) -> Pool:
        """``current`` if it is big enough, else a new pool twice its size (shared with the worker)."""
        if current is not None and current.numel >= numel and current.tensor.dtype == dtype:
            return current
        shared = self.remote is not None
        pool = Pool(max(numel, 2 * (current.numel if current else 0)), dtype, self.ctx.device,
                    self.ctx.session.pool_dir if shared else None,
                    self.ctx.session.private_pool(self.ctx.device) if shared else None)
        if self.remote is not None:
            self.ctx.pools.append(pool)
            self.ctx.session.share(pool)
        pool.unlink()  # mapped where it is needed: the file can go
        return pool

    def _prepare(self, n: int, guard_at: int | None = None):
        """Fresh inputs for ``n`` calls, one pool per argument position (a call's arguments never share
        storage, as they would not in a real caller), and NaN-poisoned output slots. With ``guard_at``, that
        call's inputs are made a guard's (Timed.guard); what they hold is kept in ``self.guarded``. Returns the
        slots and ``drawn``, the judge's own copy of every call's inputs: what the reference computes from and what
        the shared inputs must still hold after the block. Neither is read back from shared memory: a red team's
        thread in the worker overwrote the shared inputs between the judge's write and its digest of them, and the
        reference, computed from what was read back, agreed with outputs made from the overwritten inputs."""
        gen = torch.Generator(device=self.ctx.device).manual_seed(self.rng.getrandbits(63))
        args = [self.timed.args(gen, self.next_call + j) for j in range(n)]
        self.next_call += n
        if guard_at is not None:
            poisoned, self.guarded = self.timed.guard(gen, [a.clone() for a in args[guard_at]])
            args[guard_at] = tuple(poisoned)
        likes = [self.timed.out_like(a) if self.timed.out_like else (a[0].shape, a[0].dtype) for a in args]
        positions = len(args[0])
        self.in_pools = [self._pool(self.in_pools[p] if p < len(self.in_pools) else None,
                                    sum(a[p].numel() for a in args), args[0][p].dtype) for p in range(positions)]
        self.out_pool = self._pool(self.out_pool, sum(math.prod(s) for s, _ in likes), likes[0][1])
        for pool in self.in_pools + [self.out_pool]:
            pool.used = 0
        call_slots = [[self.in_pools[p].alloc(t.shape) for p, t in enumerate(a)] for a in args]
        # each position's slots lie in call order from the pool's start: its region is this, written in one copy
        regions = [torch.cat([a[p].reshape(-1) for a in args]) for p in range(positions)]
        for pool, region in zip(self.in_pools, regions, strict=True):
            pool.region().copy_(region)
        # the judge's copy of each call's arguments: views of its regions (the draws themselves can go)
        args = [tuple(regions[p][s.offset:s.offset + s.numel].view(s.shape) for p, s in enumerate(slots))
                for slots in call_slots]
        out_slots = [self.out_pool.alloc(s) for s, _ in likes]
        region = self.out_pool.region()
        region.fill_(float("nan") if region.is_floating_point() else 0)
        finish_slot = None
        if self.timed.finish:
            self.finish_pool = self._pool(self.finish_pool, self.timed.finish_numel, torch.float32)
            self.finish_pool.used = 0
            finish_slot = self.finish_pool.alloc((self.timed.finish_numel,))
            self.finish_pool.tensor.fill_(float("nan"))
        synchronize(self.ctx.device)
        # The digests' key, new for every block and known only here (see wire.digest).
        self.key = self.rng.getrandbits(63)
        return call_slots, out_slots, finish_slot, Drawn(args, regions)

    def _inputs_changed(self, drawn: Drawn) -> bool:
        """Whether the shared inputs differ from what the judge wrote (compared with its own copy, bit for bit: a
        NaN it wrote must still be that NaN)."""
        return not all(same_bits(pool.region(), region) for pool, region in zip(self.in_pools, drawn.regions,
                                                                                    strict=True))

    def _outputs_digest(self) -> tuple:
        finished = digest(self.finish_pool.tensor, self.key) if self.finish_pool else ""
        return digest(self.out_pool.region(), self.key), finished

    def _view(self, pool: Pool, slot):
        """Views cached as the worker caches them: both sides pay the same per-call cost."""
        key = (pool.id, slot)
        found = self.views.get(key)
        if found is None:
            if len(self.views) > 50_000:
                self.views.clear()
            found = self.views[key] = pool.view(slot)
        return found

    # ---- one block ----
    def _block(self, n: int) -> float:
        if self.remote is not None and self.beside_from is None and sum(c for _, c in self.blocks) >= BESIDE_AFTER:
            self.beside_from = self.ctx.session.beside_mark()  # off the block's clock
        call_slots, out_slots, finish_slot, drawn = self._prepare(n)
        ctx, timed = self.ctx, self.timed
        from autograder.core.grading import stops

        stopped = stops()
        synchronize(ctx.device)
        t0 = _perf_counter()
        if self.remote is not None:
            reply = self._request(call_slots, out_slots, finish_slot)
            if timed.keep and "error" not in reply:
                # Which slot takes which call's output is dealt now, after the calls (see blocks.py).
                out_slots = self._deal(out_slots)
                reply = {**ctx.session.call("collect", outs=out_slots, device=str(ctx.device)),
                         "seconds": reply.get("seconds")}
        else:
            finish = None
            if timed.finish:
                fin_fn, fin_view = Fn(timed.finish).load(), self.finish_pool.view(finish_slot)

                def finish():
                    fin_fn(self.model, fin_view)
            grad = torch.no_grad() if timed.no_grad else nullcontext()
            calls = [[self._view(self.in_pools[p], s) for p, s in enumerate(slots)] for slots in call_slots]
            with grad:
                run_block(self.local, calls, [self._view(self.out_pool, s) for s in out_slots], chain=self.chain,
                          keep=timed.keep, finish=finish, device=ctx.device)
            reply = {}
        # Read every output (and the finished weights) before the clock stops.
        seen = self._outputs_digest()
        seconds = _perf_counter() - t0
        self.blocks_run += 1
        self.blocks.append((seconds, n))
        if stops() != stopped:
            raise Inconclusive("the grading process was stopped and continued while it timed a block (by another "
                               "process?): the measurement is void")
        if isinstance(reply.get("seconds"), float):  # the worker's own time of the block (self-reported)
            self.overhead.append(max(seconds - reply["seconds"], 0.0))
        if "error" in reply:
            self._fail_reply(reply["error"])
        if self.remote is not None:
            self._check_block(out_slots, finish_slot, drawn, seen)
        return seconds

    def _request(self, call_slots, out_slots, finish_slot) -> dict:
        """The worker runs one block: its reply."""
        timed = self.timed
        finish = (Fn(timed.finish), [self.model, finish_slot]) if timed.finish else None
        return self.ctx.session.call("block", fn=self.remote, calls=call_slots, outs=None if timed.keep else out_slots,
                                     chain=Fn(timed.chain) if timed.chain else None, keep=timed.keep, finish=finish,
                                     no_grad=timed.no_grad, device=str(self.ctx.device), stance=timed.stance)

    def _guard_block(self) -> None:
        """A block like the timed ones, not timed, in which one call at a random position has a guard's inputs
        (Timed.guard): it must raise there, and only there. Established in the judge's memory: the outputs of the
        calls before it written (two checked against the reference), none after it, and the error's type."""
        from autograder.core.grading import RemoteError

        n = self.calls
        at = self.rng.randrange(n)
        call_slots, out_slots, _, drawn = self._prepare(n, guard_at=at)
        start = _perf_counter()
        reply = self._request(call_slots, out_slots, None)
        self.blocks.append((_perf_counter() - start, at + 1))  # a compile hidden here is still charged (excess_s)
        where = (f"call {at + 1} of {n} in a block like the timed ones, whose input held {self.guarded} (the eager "
                 f"chain raises {self.timed.guard_raises} there)")
        hint = ("the check must run on every call, the timed ones too: the grader hides inputs that must raise "
                "among its timed-like calls")
        if "error" not in reply:
            raise CheckFailed(f"{self.name} returned on {where}: its check did not run there", hint)
        err = RemoteError(reply["error"] if isinstance(reply["error"], dict) else {})
        if err.type != self.timed.guard_raises:
            raise CheckFailed(f"{self.name} raised {err.describe()} on {where}, not {self.timed.guard_raises}",
                              hint)
        outs = [self.out_pool.view(s) for s in out_slots]
        written = [not bool(torch.isnan(o).all()) for o in outs]
        if written != [j < at for j in range(n)]:
            late = [j + 1 for j, w in enumerate(written) if w != (j < at)]
            raise CheckFailed(f"{self.name} raised {self.timed.guard_raises} in a block like the timed ones, but not "
                              f"at the call whose input must make it raise ({where}): the outputs of call(s) "
                              f"{late[:5]} say otherwise", hint)
        for j in sorted(self.rng.sample(range(at), min(SAMPLES_PER_BLOCK, at))):
            with torch.no_grad() if self.timed.no_grad else nullcontext():
                expected = self.reference(*[a.clone() for a in drawn.args[j]])
            check_outputs(outs[j].clone(), expected, self.timed.tol,
                          f"{self.name}'s output in a block like the timed ones (call {j + 1} of {n})")
        self.guards += 1

    def _deal(self, slots: list) -> list:
        """The slots in a new order, shuffled among slots of the same shape: nothing in the worker knew it."""
        dealt = list(slots)
        for shape in {s.shape for s in slots}:
            where = [i for i, s in enumerate(slots) if s.shape == shape]
            order = [slots[i] for i in where]
            self.rng.shuffle(order)
            for i, slot in zip(where, order, strict=True):
                dealt[i] = slot
        return dealt

    def _fail_reply(self, error) -> None:
        from autograder.core.grading import RemoteError

        err = RemoteError(error if isinstance(error, dict) else {})
        if err.type == "OutputError":
            raise CheckFailed(f"during timing, {self.name} {err.message}",
                              "return one tensor like the reference's, computed from that call's input")
        if err.not_implemented:
            raise CheckFailed(f"{self.name} is not written yet (it raises NotImplementedError)",
                              "replace `raise NotImplementedError()` with your code")
        raise CheckFailed(f"during timing, {self.name} raised {err.describe()}", _RECOMPILE_HINT
                          if "recompile" in err.message.lower() else "")

    def _check_block(self, out_slots, finish_slot, drawn: Drawn, seen) -> None:
        timed = self.timed
        calls = drawn.args  # the judge's own copies, never shared
        outs = [self.out_pool.view(s) for s in out_slots]
        # Copy what will be checked first, then take the digest again: the copies are what the digest vouches for,
        # so nothing the worker writes while the judge checks (a thread of its own) can slip into a comparison.
        if timed.verify is not None:
            record = BlockRecord(self.blocks_run, [[a.clone() for a in c] for c in calls], [o.clone() for o in outs],
                                 self.finish_pool.view(finish_slot).clone() if finish_slot is not None else None)
        else:
            # The calls to check are chosen now, after the block: nothing in the worker could know them.
            picked = sorted(self.rng.sample(range(len(calls)), min(SAMPLES_PER_BLOCK, len(calls))))
            copies = {j: ([a.clone() for a in calls[j]], outs[j].clone(),
                          outs[j - 1].clone() if self.chain is not None and j > 0 else None) for j in picked}
        now = self._outputs_digest()
        if now != seen:
            raise CheckFailed(f"{self.name}'s outputs changed after it had returned: work was still running "
                              "after the call (on a side stream or a thread), outside the time measured",
                              "compute each result inside the call that returns it, on the caller's stream")
        if self._inputs_changed(drawn):
            raise CheckFailed(f"{self.name} modified its inputs during timing (the call, or other code of yours): "
                              "they no longer hold what the grader wrote",
                              "inputs belong to the caller: compute into new tensors")
        if timed.verify is not None:
            timed.verify(record)
            return
        for j, (args, out, previous) in copies.items():
            if previous is not None:
                args[0] = self.chain(args[0], previous)
            with torch.no_grad() if timed.no_grad else nullcontext():
                expected = self.reference(*args)
            check_outputs(out, expected, timed.tol,
                          f"{self.name}'s output during timing (call {j + 1} of {len(calls)} in a block)")

    # ---- the runner interface of timing.compare_runners ----
    def warm_up(self) -> None:
        """Calls one at a time until steady; the first one's time is the compile cost."""
        self.first = self._block(1)
        calls, recent = 1, []
        deadline = time.monotonic() + MAX_WARMUP_S
        while True:
            recent.append(self._block(1))
            calls += 1
            if calls >= MIN_WARMUP_CALLS and len(recent) >= 3 and max(recent[-3:]) <= 1.5 * min(recent[-3:]):
                break
            if calls >= MAX_WARMUP_CALLS or time.monotonic() > deadline:
                break
        self.warmup_calls = calls
        estimate = statistics.median(recent[-3:])
        block_s = self.timed.min_block_s or (GPU_BLOCK_S if self.ctx.cuda else MIN_BLOCK_S)
        self.calls = max(1, math.ceil(block_s / max(estimate, 1e-7)))
        # One trial block corrects the estimate (single calls overstate the time of fast functions).
        host = self._block(self.calls) * 1.0
        if host < block_s:
            self.calls = max(self.calls, math.ceil(self.calls * block_s / max(host, 1e-7)))
        m = self.timed.calls_multiple
        self.calls = m * math.ceil(self.calls / m)

    def run_block(self) -> float:
        per_call = self._block(self.calls) / self.calls
        self.per_call.append(per_call)
        if self.timed.guard is not None and self.remote is not None and self.rng.random() < GUARD_SHARE:
            self._guard_block()
        return per_call

    def excess_s(self) -> float:
        """Seconds spent beyond the steady per-call time, over every block this runner ran (warm-up and timed):
        the first call's compile, and any cost deferred to a later call (a median of blocks hides one slow
        block; this sum does not)."""
        steady = statistics.median(self.per_call) if self.per_call else 0.0
        return sum(max(0.0, seconds - calls * steady) for seconds, calls in self.blocks)

    def beside_s(self) -> float:
        """CPU seconds the submission's processes used beside the requests from this runner's fourth call on
        (warm-up, timed blocks, and between them: a compile in another thread or process shows)."""
        if self.beside_from is None:
            return 0.0
        return self.ctx.session.beside_requests_s(self.beside_from, serving_cores(self.ctx))[0]

    def timing(self, start: int = 0) -> Timing:
        return Timing(self.name, self.per_call[start:], self.calls, self.first, self.warmup_calls)


_RECOMPILE_HINT = ("every shape a call can have must be ready before timing starts; TORCH_LOGS='recompiles' "
                   "names the guard that failed")

# ---- the GPU drained before the baseline runs ----
_probe: dict = {}


def _probe_s(device) -> float:
    buf = _probe.setdefault(("buf", device), torch.ones(2**23, device=device))
    synchronize(device)
    t0 = _perf_counter()
    buf.sum()
    synchronize(device)
    return _perf_counter() - t0


def drain_gpu(device, limit_s: float = 5.0) -> None:
    """Wait until a small probe kernel runs at its calibrated speed: nothing else is left on the GPU."""
    if torch.device(device).type != "cuda":
        return
    if ("calibrated", device) not in _probe:
        _probe[("calibrated", device)] = min(_probe_s(device) for _ in range(10))
    calm = 2 * _probe[("calibrated", device)] + 50e-6
    deadline = time.monotonic() + limit_s
    while _probe_s(device) > calm:
        if time.monotonic() > deadline:
            raise Inconclusive("the GPU stayed busy with other work while the submission's process was paused "
                               f"(for {limit_s:g} s): work queued before the pause, or another program")
        time.sleep(0.002)


# CPU time the submission's stopped processes may still be charged while paused (a clock tick or two as a stop
# takes effect); more means something of it ran while the baseline was timed.
PAUSED_CPU_S = 0.02


@contextmanager
def paused(session):
    """The submission stopped while the judge measures on its own (a baseline, a workload's truth): every process
    and thread stopped before the block starts, and none of them charged CPU time until it ends; otherwise the
    measurement is void (Inconclusive)."""
    from autograder.core.grading import StillRunning, judge_scheduling

    if session.process is not None and judge_scheduling() != session.scheduling:
        raise Inconclusive("the measurement is void: the grader's own scheduling (policy, priority or CPUs) changed "
                           "since the grading began (something of the grading's user changed it)")
    try:
        session.pause()
    except StillRunning as err:
        session.resume()
        raise Inconclusive(f"the measurement is void: {err}, while the grader measured on its own") from None
    ran = 0.0
    try:
        yield
    finally:
        ran = session.resume()
    if ran > PAUSED_CPU_S:
        raise Inconclusive(f"the measurement is void: the submission's processes used {ran:.2f} s of CPU while they "
                           "were paused and the grader measured on its own")


@contextmanager
def shared_core(ctx):
    """On a GPU, the timed blocks of both sides run on one core: the judge's thread (which runs the baseline's
    blocks) and the worker's serving thread (which runs the candidate's) are pinned to the same CPU for the timed
    rounds. They take turns (the worker is stopped while the baseline runs), so a slower core (a busy hyperthread
    sibling, another job) slows both sides alike: on a busy host a host-bound eager baseline once ran 1.9x slower in
    the judge's process than the same code in the worker's (THREAT_MODEL). Not during the warm-up: a compile's worker
    processes, started there, inherit their parent thread's CPUs. Where affinity cannot be set, nothing changes; a
    serving thread found on other CPUs at the end voids the measurement."""
    from autograder.core.grading import judge_scheduling

    session = ctx.session
    # not where the judge's scheduling changed already: paused() voids that measurement against the grading's start
    server = (session.serving_pid() if ctx.cuda and hasattr(os, "sched_setaffinity")
              and judge_scheduling() == session.scheduling else None)
    mine = theirs = set()
    try:
        if server is not None:
            mine, theirs = os.sched_getaffinity(0), os.sched_getaffinity(server)
    except OSError:
        pass
    both = mine & theirs
    if not both:
        yield
        return
    core = {max(both)}
    try:
        os.sched_setaffinity(server, core)
        os.sched_setaffinity(0, core)
    except OSError:
        _set_affinity(server, theirs)
        yield
        return
    saved = session.scheduling
    session.scheduling = (*saved[:2], sorted(core))  # what paused() now expects of the judge
    try:
        yield
        if _affinity(server) not in (core, None):
            raise Inconclusive("the measurement is void: the thread of your process that serves the grader's "
                               "requests was moved off the CPU the grader times both sides on (did your code set "
                               "its CPU affinity?)")
    finally:
        os.sched_setaffinity(0, mine)
        session.scheduling = saved
        _set_affinity(server, theirs)


def _affinity(tid: int) -> set | None:
    try:
        return os.sched_getaffinity(tid)
    except OSError:  # gone
        return None


def _set_affinity(tid: int, cpus: set) -> None:
    try:
        os.sched_setaffinity(tid, cpus)
    except OSError:  # gone, or not ours to set
        pass


SPEED_FACTS = (
    clock("the candidate's blocks against the baseline's, interleaved, on the grader's clock, which stops only after "
          "the grader has read every output of a block", "block", "collect", "pool"),
    judge("the baseline and the reference, run by the grader itself on its own copies (the submission's processes "
          "stopped while the baseline runs)"),
    answer("outputs of calls the grader picks after each block, against its own reference on its own copy of the "
           "inputs (never read back from shared memory); the shared inputs still as written, bit for bit", "block",
           "collect"),
)
SPEED_DIAGNOSTICS = (
    worker("compile counters (graphs, breaks, recompiles, CUDA-graph skips) since the last check", "events"),
    worker("GPU busy: one call's kernel time under the profiler of your process", KERNEL_SECONDS),
)


def speed_check(ctx, baseline: Callable, candidate: Ref, timed: Timed, *, name: str = "your function",
                baseline_model=None, candidate_model: Ref | None = None,
                reference: Callable | None = None, gate: float | None = None,
                baseline_name: str | None = None) -> tuple[str, dict]:
    """Compare the worker's ``candidate`` with the local ``baseline`` under the course protocol; raise
    CheckFailed (too slow, wrong during timing), Inconclusive or NeedsGPU, or return the message and details.
    ``reference`` (default: the baseline) computes the outputs the sampled calls are checked against. The verdict
    rests on the judge's clock and its own checks only; what the worker says about itself (compile counters, its
    profiler) explains it afterwards (``speed_diagnosis``)."""
    if timed.guard is not None and (timed.keep or timed.chain):
        raise ValueError("Timed.guard needs each output copied at once (keep=False) and no chain")
    gate = ctx.gate(gate, over=baseline_name)
    session = ctx.session
    base = _Runner(ctx, timed, baseline_name or ctx.exercise.baseline, local=baseline, model=baseline_model,
                   purpose="speed-base")
    cand = _Runner(ctx, timed, name, remote=candidate, model=candidate_model, purpose="speed",
                   reference=reference or baseline)

    @contextmanager
    def phase(runner):
        if runner is base:
            with paused(session):
                if ctx.policy.drain:
                    drain_gpu(ctx.device)
                yield
        else:
            yield

    comparison = compare_runners(base, cand, gate=gate, phase=phase, timed_region=lambda: shared_core(ctx))
    ctx.notes["speed_excess_s"] = cand.excess_s()  # what the candidate's calls cost beyond their steady time
    from autograder.core.grading import Uncountable

    try:
        ctx.notes["speed_beside_s"] = cand.beside_s()  # what its processes did beside the requests while timed
    except Uncountable as err:  # the exercises that charge it say so (03, 05); the others do not use it
        ctx.notes["speed_beside_s"], ctx.notes["speed_beside_why"] = None, str(err)
    ctx.notes["speed"] = (comparison, cand, timed)  # for speed_diagnosis
    details = {
        "speedup": comparison.speedup, "speedup_min": comparison.speedup_min,
        "speedup_max": comparison.speedup_max, "gate": gate,
        "baseline_s": comparison.baseline.median_s, "candidate_s": comparison.candidate.median_s,
        "baseline_spread": comparison.baseline.spread, "candidate_spread": comparison.candidate.spread,
        "compile_s": comparison.candidate.first_call_s, "blocks": len(comparison.candidate.per_call_s),
        "excess_s": ctx.notes["speed_excess_s"],
        "calls_per_block": comparison.candidate.calls_per_block, "attempts": comparison.attempts,
        "baseline_per_call_s": comparison.baseline.per_call_s,
        "candidate_per_call_s": comparison.candidate.per_call_s,
        "device": str(ctx.device),
        "boundary_s_per_block": statistics.median(cand.overhead) if cand.overhead else None,
        "guard_blocks": cand.guards,
        "beside_cpu_s": ctx.notes["speed_beside_s"],
    }
    message = comparison.summary()
    if cand.guards:
        message += (f"; it raised {timed.guard_raises} where it must in {cand.guards} untimed block(s) like the timed "
                    "ones")
    if timed.bytes_per_call and ctx.cuda:
        bandwidth = copy_bandwidth(ctx.device)
        fraction = timed.bytes_per_call / comparison.candidate.median_s / bandwidth
        if fraction > CEILING:  # before accusing anyone: the ceiling measured again, now
            bandwidth = copy_bandwidth(ctx.device, again=True)
            fraction = timed.bytes_per_call / comparison.candidate.median_s / bandwidth
        details.update(copy_bandwidth=bandwidth, fraction_of_copy_bandwidth=fraction)
        message += f"; {fraction:.0%} of this GPU's copy bandwidth"
        if fraction > CEILING:
            raise CheckFailed(
                f"{name} ran in {format_seconds(comparison.candidate.median_s)}: at {fraction:.0%} of this GPU's "
                "copy bandwidth, faster than its memory can even read the inputs and write the outputs: results "
                "are being reused, not computed", "compute every call's result from that call's inputs", details)
    if comparison.verdict == "pass":
        return message, details
    reasons = diagnose_speed(comparison, None, cuda=ctx.cuda, expect_compiled=timed.expect_compiled, busy=None)
    details["diagnosis"] = reasons
    if comparison.verdict == "inconclusive":
        raise Inconclusive(f"inconclusive after {comparison.attempts} measurements: {message}", details)
    raise CheckFailed(f"too slow: {message}", "; ".join(reasons), details)


def compile_events_since_last(ctx):
    """The worker's compile counters since the last diagnosis that read them (or since loading): what it says."""
    now = ctx.session.events()
    before = ctx.notes.get("events_seen")
    ctx.notes["events_seen"] = now
    return now.since(before) if before is not None else now


def speed_diagnosis(ctx) -> list[str]:
    """What the worker says explains a speed check's verdict (never decides it): its compile counters, its GPU busy
    time, and the reasons they suggest when the check was too slow."""
    events = compile_events_since_last(ctx)
    notes = [f"compiled: {events.summary()}"]
    found = ctx.notes.pop("speed", None)
    if found is None:  # the check ended before its comparison
        return notes
    comparison, cand, timed = found
    busy = _gpu_busy(ctx, cand, comparison.candidate.median_s) if ctx.cuda else None
    if busy is not None:
        notes.append(f"GPU busy {busy:.0%} of the wall time")
        ctx.notes["diagnosed"] = {"gpu_busy": busy}  # into the result's details, for the card and the GPU table
    if comparison.verdict != "pass":
        reasons = diagnose_speed(comparison, events, cuda=ctx.cuda, expect_compiled=timed.expect_compiled,
                                 busy=busy)
        notes.extend(reasons)
    return notes


def _gpu_busy(ctx, cand: _Runner, wall_s: float) -> float | None:
    """Kernel time per call as the worker's profiler saw it, over the judge's wall time (for the result card)."""
    try:
        call_slots, _, _, _ = cand._prepare(1)
        reply = ctx.session.invoke(Fn(KERNEL_SECONDS), cand.remote, *call_slots[0],
                                   keep=False, no_grad=cand.timed.no_grad)
        kernel_s = float(reply.value.get("value") or 0.0)
    except Exception:  # an aid for the card, never a reason to fail
        return None
    return min(kernel_s / wall_s, 1.0) if wall_s > 0 and kernel_s > 0 else None
