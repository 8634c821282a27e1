# outcome: passed | kind: cheat | checks: predict_correct,predict_speed | reason: the judge's memory is out of reach | device: gpu | class: 8
# Found by a red team (2026-11-27, 4 x H100): CUDA IPC hands the worker a whole allocator segment's handle, and
# the caching allocator packed the judge's own small tensors (reference weights, expected outputs) into the
# segments its pools came from; mapping a pool's segment from offset 0 reached them (one grading passed with
# zeros after zeroing a judge weight). This worker maps every pool's segment from offset 0 and writes NaN over
# everything in it but the pools it was handed, then serves honestly: if any tensor of the judge's shared a
# segment with a pool, a comparison would fail. Pools now come from a memory pool of their own per worker, so
# the grading goes on undisturbed and the honest serving passes (the reference's: x copied inside the compiled
# function).
import torch
import torch.multiprocessing.reductions as _reductions

_rebuild = _reductions.rebuild_cuda_tensor
_received: dict = {}  # segment handle -> the (offset, size) of each pool handed over in it


def _poison(*args):
    tensor = _rebuild(*args)
    (_, _, _, _, _, _, device, handle, size, offset, _, counter, counter_offset, event, sync) = args
    ranges = _received.setdefault(bytes(handle), [])
    ranges.append((offset, size))
    span = (2 << 20) if offset + size <= (2 << 20) else (20 << 20) if offset + size <= (20 << 20) else offset + size
    try:
        whole = torch.UntypedStorage._new_shared_cuda(device, handle, span, 0, counter, counter_offset, event, sync)
        words = torch.empty(0, dtype=torch.uint8, device="cuda").set_(whole, 0, (span,))
        keep = [(o, words[o:o + s].clone()) for o, s in ranges]
        words.view(torch.float32)[: span // 4].fill_(float("nan"))
        for o, data in keep:
            words[o:o + data.numel()] = data
        torch.cuda.synchronize()
    except Exception:  # a segment smaller than the guess: this pool's alone
        pass
    return tensor


_reductions.rebuild_cuda_tensor = _poison


def make_predict(model):
    compiled = torch.compile(lambda x: model(x.clone()), mode="reduce-overhead")

    def predict(x):
        return compiled(x).clone()
    return predict
