"""Exercise 01's workload: lesson 1's op-by-op GELU chain, the checked stack of such layers the learner makes fast
(part b), and the workloads of unknown duration that their ``benchmark()`` is graded on. Imported by the lesson, the
notebook, the grader, and the submission's process."""

from __future__ import annotations

import math

import torch

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
# Part (b)'s timed input: x of (rows, cols) and LAYERS biases of cols. At full size one eager call moves about 100
# times the bytes a fused call must (four layers of ten full-size operators and a finiteness check each).
SIZES = {"smoke": (1024, 1024), "full": (4096, 8192)}
LAYERS = 4


def gelu_bias_chain(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU(x + bias), tanh approximation, written op by op as eager code often is.

    x: (..., n) float tensor; bias: (n,) -> (..., n), same dtype and device. In eager mode every
    operator below is its own kernel and writes its own intermediate tensor to memory.
    """
    z = x + bias
    inner = SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)
    return 0.5 * z * (1.0 + torch.tanh(inner))


def checked_gelu_bias(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """A stack of GELU(h + bias[layer]) layers (tanh approximation, op by op), checked after every layer: the kind of
    debugging guard that stays in code, which stops at the first layer whose activations are not finite.

    x: (..., n) float tensor; bias: (layers, n), one row per layer, same dtype and device -> (..., n).
    Raises FloatingPointError when any layer's activations hold a NaN or an infinity (finite inputs can overflow
    too). The check reads a value on the host (``if tensor:``), once per layer.
    """
    h = x
    for layer, b in enumerate(bias):
        z = h + b
        inner = SQRT_2_OVER_PI * (z + 0.044715 * z * z * z)
        h = 0.5 * z * (1.0 + torch.tanh(inner))
        if not torch.isfinite(h).all():
            raise FloatingPointError(f"layer {layer}: the activations are not finite")
    return h


# Where the workload's flags live in its shared page (int32 words, one cache line apart): how far the GPU got, and how
# far the judge let it go.
PROGRESS, RELEASE = 0, 16
RELEASE_ALL = 2**31 - 1


class _Driver:
    """The CUDA driver's stream memory operations (libcuda, through ctypes): a stream writes a word of host memory
    when it gets there, and waits until another word reaches a value. Loaded once per process."""

    _lib = None

    @classmethod
    def lib(cls):
        if cls._lib is None:
            import ctypes

            lib = ctypes.CDLL("libcuda.so.1")
            cls.wait = getattr(lib, "cuStreamWaitValue32_v2", None) or lib.cuStreamWaitValue32
            cls.write = getattr(lib, "cuStreamWriteValue32_v2", None) or lib.cuStreamWriteValue32
            cls._lib = lib
        return cls._lib

    @classmethod
    def check(cls, result: int, what: str) -> None:
        if result != 0:
            raise RuntimeError(f"{what} failed (CUresult {result})")

    @classmethod
    def device_pointer(cls, host: torch.Tensor) -> int:
        """``host`` (a page of shared memory) registered with CUDA: its address as the GPU sees it. The caller keeps
        ``host`` alive as long as the GPU may use it: unmapped, its addresses could be mapped again for another
        page, which CUDA would still hold registered (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, seen on an H100
        once a benchmark's own allocations moved the address space around)."""
        import ctypes

        lib = cls.lib()
        address, size = ctypes.c_void_p(host.data_ptr()), ctypes.c_size_t(host.numel() * host.element_size())
        result = lib.cuMemHostRegister_v2(address, size, ctypes.c_uint(1 | 2))  # PORTABLE | DEVICEMAP
        if result == 712:  # a stale registration of these addresses (a page mapped there before): renew it
            lib.cuMemHostUnregister(address)
            result = lib.cuMemHostRegister_v2(address, size, ctypes.c_uint(1 | 2))
        cls.check(result, "cuMemHostRegister")
        pointer = ctypes.c_uint64()
        cls.check(lib.cuMemHostGetDevicePointer_v2(ctypes.byref(pointer), ctypes.c_void_p(host.data_ptr()),
                                                   ctypes.c_uint(0)), "cuMemHostGetDevicePointer")
        return pointer.value


def paced_workload(flags: torch.Tensor | None = None, device: str = "cpu"):
    """A workload whose every call lasts as long as the grader (another process) decides, while the call runs.

    On a GPU (``flags``: a page of host memory shared with the grader): each call queues, on the current CUDA
    stream, a write of its number to ``flags[PROGRESS]`` and a wait until ``flags[RELEASE]`` reaches it. The call
    returns at once, like any CUDA op; the GPU reaches it later, and the grader, which watches the page, releases
    it when it decides. A benchmark that never synchronizes times the launches only. On a CPU: each call asks the
    grader and waits for its answer. Either way nothing in this process knows how long a call takes before it has
    run, and the grader makes the first call of a benchmark slow (like a compile) by releasing it late."""
    if flags is None:
        from autograder.core.worker import ask_judge

        def workload():
            ask_judge({"wait": True})
        return workload

    import ctypes

    torch.cuda.synchronize(device)  # the driver calls below need this thread's CUDA context current
    _Driver.lib()
    base = _Driver.device_pointer(flags)
    progress, release = ctypes.c_uint64(base + 4 * PROGRESS), ctypes.c_uint64(base + 4 * RELEASE)
    state = {"calls": 0, "page": flags}  # the page stays mapped (and registered) while the workload lives

    def workload():
        state["calls"] += 1
        stream = ctypes.c_void_p(torch.cuda.current_stream(device).cuda_stream)
        _Driver.check(_Driver.write(stream, progress, ctypes.c_uint32(state["calls"]), ctypes.c_uint(0)),
                      "cuStreamWriteValue32")
        _Driver.check(_Driver.wait(stream, release, ctypes.c_uint32(state["calls"]), ctypes.c_uint(0)),
                      "cuStreamWaitValue32")  # 0: CU_STREAM_WAIT_VALUE_GEQ
    return workload


def run_benchmark(benchmark, workload) -> float:
    """``benchmark(workload)`` as a number (a one-element tensor is accepted)."""
    result = benchmark(workload)
    if isinstance(result, torch.Tensor) and result.numel() == 1:
        result = result.item()
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        raise TypeError(f"benchmark(fn) must return the seconds per call as a float, got {type(result).__name__} "
                        f"{result!r}"[:200])
    return float(result)
