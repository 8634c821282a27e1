"""On a GPU, the worker reaches nothing of the judge's memory but the pools shared with it.

CUDA IPC exports a whole allocator segment: the receiving side gets the segment's handle with the pool's offset
and size beside it, and can map the segment from offset 0. A red team's worker did, found the judge's reference
model among the small tensors packed into the same 2 MiB segment, zeroed a weight and passed with zeros. Pools
now come from a memory pool of their own per worker (``wire.private_pool``). These tests need CUDA (the GPU host
runs them: ``python -m pytest tests/test_gpu_memory.py``); on a CPU they are skipped, saying so.
"""

import multiprocessing as mp

import pytest
import torch

from autograder.core.wire import Pool, private_pool

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (run on the GPU host)")

MARK = 12345.678  # what the judge's own tensors hold, so that a scan can recognise them


def _scan(queue, found):
    """A worker that maps its pool's whole segment from offset 0 (as a red team's did) and counts the judge's
    marker values it can read there."""
    import torch.multiprocessing.reductions as reductions

    seen = {}
    rebuild = reductions.rebuild_cuda_tensor

    def spy(*args):
        seen["args"] = args
        return rebuild(*args)

    reductions.rebuild_cuda_tensor = spy
    queue.get()
    (_, _, _, _, _, _, device, handle, size, offset, _, counter, counter_offset, event, sync) = seen["args"]
    span = offset + size + (2 << 20)  # the pool, what precedes it in its segment, and what may follow
    whole = torch.UntypedStorage._new_shared_cuda(device, handle, span, 0, counter, counter_offset, event, sync)
    words = torch.empty(0, dtype=torch.float32, device="cuda").set_(whole, 0, (span // 4,))
    found.put(int((words == MARK).sum()))


def _hits(private: bool) -> int:
    torch.cuda.init()
    before = torch.full((65536,), MARK, device="cuda")  # 256 KiB: the small pool, as the judge's weights are
    pool = Pool(8192, torch.float32, "cuda", private=private_pool("cuda") if private else None)
    after = torch.full((65536,), MARK, device="cuda")
    context = torch.multiprocessing.get_context("spawn")
    queue, found = context.Queue(), context.Queue()
    worker = context.Process(target=_scan, args=(queue, found))
    worker.start()
    queue.put(pool.shareable())
    hits = found.get(timeout=120)
    worker.join(30)
    del before, after
    return hits


def test_a_worker_that_maps_its_pools_segment_from_offset_0_finds_none_of_the_judges_tensors():
    assert _hits(private=True) == 0


def test_control_without_a_private_pool_the_same_worker_finds_the_judges_tensors():
    """Shows the scan above can fail: an ordinary allocation shares its segment with the judge's tensors."""
    assert _hits(private=False) > 0


def test_the_segments_of_pools_hold_pools_only():
    """Every segment that holds a pool holds no other tensor of the judge's, whatever the sizes (the allocator
    packs up to 1 MiB into 2 MiB segments and up to 10 MiB into 20 MiB ones)."""
    private = private_pool("cuda")
    judge, pools = [], []
    for numel in (1, 300, 8192, 65536, 262144, 1 << 20, 3 << 20):
        judge.append(torch.randn(numel, device="cuda"))
        pools.append(Pool(numel, torch.float32, "cuda", private=private))
        judge.append(torch.randn(numel, device="cuda"))
    segments = torch.cuda.memory_snapshot()

    def segment_of(t):
        return next(s["address"] for s in segments
                    if s["address"] <= t.data_ptr() < s["address"] + s["total_size"])

    pool_segments = {segment_of(p.tensor) for p in pools}
    assert not pool_segments & {segment_of(t) for t in judge}
    assert mp.current_process().name == "MainProcess"
