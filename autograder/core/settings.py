"""Process-wide torch state a submission could change: the numeric settings (threads, TF32, cuDNN, grad mode...)
and the compiler's configuration (``torch._dynamo.config``, ``torch._inductor.config``).

The submission's process (the worker) snapshots both before it loads the submission, reports every change to
the numeric settings, and puts both back where the trusted side asks. None of it can reach the trusted side's
baseline, which runs in another process.
"""

from __future__ import annotations

import torch

CONFIG_MODULES = ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config")


def fingerprint() -> dict:
    """The global settings that change how fast or how precisely code runs."""
    state = {
        "num_threads": torch.get_num_threads(),
        "num_interop_threads": torch.get_num_interop_threads(),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        "cuda.matmul.allow_fp16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
        "cuda.matmul.allow_bf16_reduced_precision_reduction":
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
        "cudnn.enabled": torch.backends.cudnn.enabled,
        "cudnn.benchmark": torch.backends.cudnn.benchmark,
        "cudnn.deterministic": torch.backends.cudnn.deterministic,
        "cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "grad_enabled": torch.is_grad_enabled(),
        "default_dtype": str(torch.get_default_dtype()),
    }
    try:
        from torch._dynamo.eval_frame import _stance
        state["compiler_stance"] = _stance.stance
    except ImportError:  # torch < 2.6 has no stance
        pass
    return state


def changed(before: dict, after: dict) -> list[str]:
    return [f"{k}: {before[k]!r} -> {after.get(k)!r}" for k in before if after.get(k) != before[k]]


def restore_fingerprint(state: dict) -> None:
    """Put the numeric settings back (the ones a submission can set from Python)."""
    torch.set_num_threads(state["num_threads"])
    torch.set_float32_matmul_precision(state["float32_matmul_precision"])
    torch.backends.cuda.matmul.allow_tf32 = state["cuda.matmul.allow_tf32"]
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = \
        state["cuda.matmul.allow_fp16_reduced_precision_reduction"]
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = \
        state["cuda.matmul.allow_bf16_reduced_precision_reduction"]
    torch.backends.cudnn.enabled = state["cudnn.enabled"]
    torch.backends.cudnn.benchmark = state["cudnn.benchmark"]
    torch.backends.cudnn.deterministic = state["cudnn.deterministic"]
    torch.backends.cudnn.allow_tf32 = state["cudnn.allow_tf32"]
    torch.use_deterministic_algorithms(state["deterministic_algorithms"])
    torch.set_grad_enabled(state["grad_enabled"])
    torch.set_default_dtype(getattr(torch, state["default_dtype"].removeprefix("torch.")))
    if "compiler_stance" in state:
        try:
            from torch._dynamo.eval_frame import _stance
            if _stance.stance != state["compiler_stance"]:
                torch.compiler.set_stance(state["compiler_stance"])
        except Exception:  # set_stance refuses inside a compiled region; nothing is compiling here
            pass


def compiler_config() -> dict:
    """A copy of every compiler configuration module's values."""
    import importlib

    return {name: importlib.import_module(name).get_config_copy() for name in CONFIG_MODULES}


def changed_config(before: dict, after: dict) -> list[str]:
    found = []
    for module, values in before.items():
        now = after.get(module, {})
        for key, value in values.items():
            try:
                same = bool(now.get(key) == value)
            except Exception:  # values that cannot be compared (tensors, odd objects)
                same = now.get(key) is value
            if not same:
                found.append(f"{module.removeprefix('torch.')}.{key}")
    return found


def restore_config(saved: dict) -> None:
    import importlib
    import warnings

    with warnings.catch_warnings():  # setting deprecated keys back to their defaults warns
        warnings.simplefilter("ignore")
        for name, values in saved.items():
            importlib.import_module(name).load_config(values)
